//! wsitec: the wsite compiler as a library.
//!
//! Pure, except for [`host`]: it never touches the file system, a clock or a
//! process. Callers (the CLI, the language server, tests) hand it source texts
//! and a loader for `use`d files, and get back the parsed program and every
//! diagnostic. [`host`] is the one edge that reads programs from disk, shared
//! by the CLI and the Python binding. The stages are
//! [`syntax`] (pest grammar → AST), [`check`] (names, types, effects, lints),
//! [`lower`] (checked AST → IR), [`consistency`] and [`verify`] (the checks
//! that run the lowered program) and [`diagnostics`] (the data type and its
//! renderers); [`format`] lays source out canonically.

pub mod check;
pub mod consistency;
pub mod diagnostics;
pub mod fix;
pub mod format;
pub mod gen;
pub mod host;
pub mod ide;
pub mod lower;
mod modules;
pub mod partial;
pub mod span;
pub mod stdlib;
pub mod syntax;
pub mod taskgen;
pub mod verify;

use diagnostics::{Code, Diagnostic, Diagnostics};
use std::collections::BTreeMap;
use syntax::ast::{FileId, SourceFile, Span, UseTarget};

/// One source text and the name it is shown under (usually its path).
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
}

/// Finds the text of a `use "./path.wsite"`: given the importing file's name and
/// the path as written, returns the new file's display name and text, or a reason.
pub type Loader<'a> = dyn FnMut(&str, &str) -> Result<Source, String> + 'a;

/// The outcome of compiling one program: its files, their ASTs and diagnostics.
pub struct Compilation {
    pub sources: Vec<Source>,
    pub files: Vec<SourceFile>,
    pub diagnostics: Vec<Diagnostic>,
    /// The lowered program, when checking found no errors.
    pub program: Option<wsite_runtime::ir::Program>,
    /// The prover's verdict on every task instance, when proving was asked
    /// for and the program lowered.
    pub proofs: Vec<verify::TaskOutcome>,
    /// What type checking learned (types, resolved names and accesses by
    /// expression), for the editor features of [`ide`].
    pub typed: check::types::Typed,
}

/// What `compile_with` runs beyond the static analyses.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Prove every task (F401–F406) and sweep the invariants (C302).
    pub prove: Option<wsite_runtime::prove::Options>,
    /// Prove only this task (a task or instance name); the sweep is skipped.
    pub only_task: Option<String>,
    /// Prove the tasks but skip the invariant sweep (C302): for corpus runs
    /// that only ask whether every task is proven.
    pub skip_sweep: bool,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The task instances the prover found feasible (what a verified site
    /// trains on), in the program's order; none without a program.
    pub fn proven_instances(&self) -> Vec<wsite_runtime::env::TaskInstance> {
        let Some(program) = &self.program else {
            return Vec::new();
        };
        let proven: Vec<&str> = self
            .proofs
            .iter()
            .filter(|p| p.verdict == wsite_runtime::prove::Verdict::Feasible)
            .map(|p| p.instance.as_str())
            .collect();
        wsite_runtime::env::instances(program)
            .into_iter()
            .filter(|i| proven.contains(&i.name.as_str()))
            .collect()
    }
}

/// Parses `roots` and every file they `use` (through `loader`), then runs every
/// static analysis. Each root is a separate entry file of the same program.
pub fn compile(roots: Vec<Source>, loader: &mut Loader<'_>) -> Compilation {
    compile_with(roots, loader, Options::default())
}

/// [`compile`], plus the bounded search when `options.prove` is set.
pub fn compile_with(roots: Vec<Source>, loader: &mut Loader<'_>, options: Options) -> Compilation {
    let mut diags = Diagnostics::default();
    let mut sources = roots;
    let mut files: Vec<SourceFile> = Vec::new();
    let mut next_expr = 0u32;
    // Module bindings by the display name of the module's file.
    let mut bindings: BTreeMap<String, modules::Binding> = BTreeMap::new();
    let mut requirements = Vec::new();
    let mut i = 0;
    while i < sources.len() {
        let id = FileId(i as u32);
        let mut parsed = syntax::parse_file(id, &sources[i].text, &mut next_expr, &mut diags);
        if let Some(binding) = bindings.get(&sources[i].name) {
            requirements.extend(modules::instantiate(&mut parsed, binding, &mut diags));
        }
        let importer = sources[i].name.clone();
        for (path, span, binding) in file_uses(&parsed, &mut diags) {
            let Some(name) = load_use(&importer, &path, span, loader, &mut sources, &mut diags)
            else {
                continue;
            };
            if let Some(binding) = binding {
                bind_once(&mut bindings, name, binding, &mut diags);
            }
        }
        files.push(parsed);
        i += 1;
    }
    modules::check_requirements(&files, &requirements, &mut diags);
    let typed = check::check_program(&files, &mut diags);
    let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
    let analysed = partial::analyse(&files, &texts, &typed, &options, &mut diags);
    Compilation {
        sources,
        files,
        diagnostics: diags.into_sorted(),
        program: analysed.program,
        proofs: analysed.proofs,
        typed,
    }
}

/// Lowers a program and runs the analyses that need the IR. `clean` says
/// the front end found no errors; then a lowering failure is a compiler bug,
/// reported (never a panic) so the user sees where it happened. Over stubs
/// (see [`partial`]) a failure only means there are no partial results.
pub(crate) fn lower_and_run_checks(
    files: &[SourceFile],
    texts: &[&str],
    typed: &check::types::Typed,
    clean: bool,
    diags: &mut Diagnostics,
) -> Option<lower::Lowered> {
    // A library (no site) does not run, and a module's table parameters are not
    // bound to real tables yet (see docs/DECISIONS.md), so neither is lowered.
    let has_site = files
        .iter()
        .flat_map(|f| &f.decls)
        .any(|d| matches!(d.kind, syntax::ast::DeclKind::Site(_)));
    let has_params = files
        .iter()
        .any(|f| f.module.as_ref().is_some_and(|m| !m.params.is_empty()));
    if !has_site || has_params {
        return None;
    }
    match lower::lower(files, texts, typed) {
        Ok(lowered) => {
            consistency::check(&lowered, files, diags);
            Some(lowered)
        }
        Err(e) if clean => {
            diags.push(
                Diagnostic::new(
                    Code::E001,
                    e.span,
                    format!("internal compiler error while lowering: {}", e.message),
                )
                .help("this is a bug in wsitec, not in your site; please report it with this file"),
            );
            None
        }
        Err(_) => None,
    }
}

/// Checks one text with no other files (what tests and fuzzers want).
pub fn compile_str(name: &str, text: &str) -> Compilation {
    compile_str_with(name, text, Options::default())
}

/// [`compile_str`] with options (the prover, for instance).
pub fn compile_str_with(name: &str, text: &str, options: Options) -> Compilation {
    compile_with(
        vec![Source {
            name: name.into(),
            text: text.into(),
        }],
        &mut |_, path| Err(format!("cannot load `{path}`: no files are available here")),
        options,
    )
}

/// Records the bindings a `use` gives module `name`; a module is bound once
/// per program (its declarations join the one namespace).
fn bind_once(
    bindings: &mut BTreeMap<String, modules::Binding>,
    name: String,
    binding: modules::Binding,
    diags: &mut Diagnostics,
) {
    match bindings.get(&name) {
        Some(first) => diags.push(
            Diagnostic::new(
                Code::E102,
                binding.span,
                format!("module `{name}` is already bound; a module is used once per program"),
            )
            .related(first.span, "bound here first"),
        ),
        None => {
            bindings.insert(name, binding);
        }
    }
}

/// The files a parsed file `use`s, with the bindings given to each; a
/// standard-library module as `std::name`, an unknown one reported here.
fn file_uses(
    file: &SourceFile,
    diags: &mut Diagnostics,
) -> Vec<(String, Span, Option<modules::Binding>)> {
    let mut out = Vec::new();
    for decl in &file.decls {
        let syntax::ast::DeclKind::Use(u) = &decl.kind else {
            continue;
        };
        let binding = (!u.bindings.is_empty()).then(|| modules::Binding {
            span: decl.span,
            pairs: u.bindings.clone(),
        });
        match &u.target {
            UseTarget::File(path, span) => out.push((path.clone(), *span, binding)),
            UseTarget::Std(path) => {
                let name: Vec<&str> = path.iter().map(|i| i.name.as_str()).collect();
                let span = path
                    .first()
                    .map(|f| f.span.to(path.last().map(|l| l.span).unwrap_or(f.span)))
                    .unwrap_or(decl.span);
                let name = name.join("::");
                if stdlib::module(&name).is_some() {
                    out.push((format!("{STD_PREFIX}{name}"), span, binding));
                } else {
                    let known: Vec<&str> = stdlib::MODULES.iter().map(|(n, _)| *n).collect();
                    diags.push(
                        Diagnostic::new(Code::E101, span, format!("unknown module `std::{name}`"))
                            .help(format!("the standard library has: {}", known.join(", "))),
                    );
                }
            }
        }
    }
    out
}

/// How a standard-library module is named among the sources.
pub(crate) const STD_PREFIX: &str = "std::";

/// Loads a `use`d file once (by display name), reporting E101 when it cannot
/// be; the file's display name when it could. Standard-library modules come
/// from the compiler itself, never from the loader.
fn load_use(
    importer: &str,
    path: &str,
    span: Span,
    loader: &mut Loader<'_>,
    sources: &mut Vec<Source>,
    diags: &mut Diagnostics,
) -> Option<String> {
    let found = match path.strip_prefix(STD_PREFIX).and_then(stdlib::module) {
        Some(text) => Ok(Source {
            name: path.to_string(),
            text: text.to_string(),
        }),
        None => loader(importer, path),
    };
    match found {
        Ok(src) => {
            let name = src.name.clone();
            if !sources.iter().any(|s| s.name == src.name) {
                sources.push(src);
            }
            Some(name)
        }
        Err(why) => {
            diags.push(
                Diagnostic::new(Code::E101, span, format!("unknown module `{path}`"))
                    .label(why)
                    .help("check the path; it is relative to the file that says `use`"),
            );
            None
        }
    }
}
