//! Reading programs from disk: a `.wsite` file, a directory whose `.wsite`
//! files form one program, or a built `.wsb` artifact (which carries its
//! sources), plus the files they `use`.

use crate::{Compilation, Source};
use std::io::Read;
use std::path::{Path, PathBuf};
use wsite_runtime::artifact::{self, Artifact};

/// One program to check: its display name and entry files.
pub struct ProgramInput {
    pub name: String,
    pub roots: Vec<Source>,
    /// Files an artifact carries, found by name before the disk is tried.
    pub embedded: Vec<Source>,
}

/// The version `.wsb` files must have been built by.
pub const COMPILER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Whether `path` names an artifact: a `.wsb` name (so a damaged one gets the
/// artifact reader's clear error), or a file that starts like one.
pub fn is_artifact(path: &Path) -> bool {
    if path.extension().is_some_and(|x| x == "wsb") {
        return true;
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| artifact::looks_like_artifact(&head))
}

/// Reads a `.wsb` artifact (every failure is a clear message).
pub fn read_artifact(path: &Path) -> Result<Artifact, String> {
    artifact::read(path, COMPILER_VERSION).map_err(|e| e.to_string())
}

/// The `.wsite` files directly in `dir`, in name order.
pub fn wsite_files_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read directory `{}`: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "wsite"))
        .collect();
    files.sort();
    Ok(files)
}

/// Expands a command-line path into a program: a file is one program by itself;
/// a directory is one program made of all the `.wsite` files directly in it; an
/// artifact gives back the sources it was built from.
pub fn program_input(path: &Path) -> Result<ProgramInput, String> {
    let name = path.display().to_string();
    if is_artifact(path) {
        let built = read_artifact(path)?;
        let embedded: Vec<Source> = built
            .sources
            .into_iter()
            .map(|s| Source {
                name: s.path,
                text: s.text,
            })
            .collect();
        return Ok(ProgramInput {
            name,
            roots: embedded.clone(),
            embedded,
        });
    }
    if path.is_dir() {
        let files = wsite_files_in(path)?;
        if files.is_empty() {
            return Err(format!("directory `{name}` holds no `.wsite` files"));
        }
        let roots = files
            .iter()
            .map(|f| read_source(f))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(ProgramInput {
            name,
            roots,
            embedded: Vec::new(),
        });
    }
    Ok(ProgramInput {
        name,
        roots: vec![read_source(path)?],
        embedded: Vec::new(),
    })
}

/// `a/./b/../c.wsite` → `a/c.wsite`: one name per file, so a file reached by
/// two spellings of its path (or one that `use`s itself) is loaded once.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_normal =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_normal {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

fn read_source(path: &Path) -> Result<Source, String> {
    let path = normalize(path);
    let name = path.display().to_string();
    // Only a regular file: opening a FIFO named by a `use` blocked the
    // checker (and the language server) forever, and a device never ends.
    let meta = std::fs::metadata(&path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    if !meta.is_file() {
        return Err(format!("`{name}` is not a regular file"));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("`{name}` is not UTF-8 text"))?;
    Ok(Source { name, text })
}

/// Compiles a program (static analyses only), loading `use "./x.wsite"`
/// relative to the importing file.
pub fn compile(input: ProgramInput) -> Compilation {
    compile_with(input, crate::Options::default())
}

/// Compiles a program with options (the prover, for instance).
pub fn compile_with(input: ProgramInput, options: crate::Options) -> Compilation {
    let mut loader = disk_loader(input.embedded);
    crate::compile_with(input.roots, &mut loader, options)
}

/// Finds the files a program `use`s: `use "./x.wsite"` relative to the
/// importing file, among the files an artifact carries first.
pub fn disk_loader(embedded: Vec<Source>) -> impl FnMut(&str, &str) -> Result<Source, String> {
    move |importer, path| {
        let base = Path::new(importer).parent().unwrap_or(Path::new("."));
        let wanted = normalize(&base.join(path)).display().to_string();
        if let Some(found) = embedded.iter().find(|s| s.name == wanted) {
            return Ok(found.clone());
        }
        read_source(&base.join(path))
    }
}

/// The `.wsite` files `paths` name: each file as given, each directory's
/// files in name order (each file one site).
pub fn site_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files.extend(wsite_files_in(p)?);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// A site that runs, with the task instances to play.
pub struct RunnableSite {
    /// The path as given (what `train` and `eval` call the site).
    pub name: String,
    pub program: wsite_runtime::ir::Program,
    pub instances: Vec<wsite_runtime::env::TaskInstance>,
}

/// Loads and checks the site in `file`, proving its tasks when `verified`
/// (then only the proven instances are kept, else all of them). A site
/// whose errors keep it from running is `None`, with a warning; feasibility
/// errors only drop the tasks they concern (as `build --drop-infeasible`).
pub fn runnable_site(
    file: &Path,
    verified: bool,
    budget: usize,
) -> Result<Option<RunnableSite>, String> {
    let input = program_input(file)?;
    let name = input.name.clone();
    let options = crate::Options {
        prove: verified.then(|| wsite_runtime::prove::Options {
            budget,
            ..Default::default()
        }),
        skip_sweep: true,
        ..Default::default()
    };
    let c = compile_with(input, options);
    let blocking = c
        .diagnostics
        .iter()
        .any(|d| d.is_error() && !d.code.as_str().starts_with('F'));
    let Some(program) = c.program.clone().filter(|_| !blocking) else {
        eprintln!("warning: {name} has errors and is left out");
        return Ok(None);
    };
    let instances = if verified {
        c.proven_instances()
    } else {
        wsite_runtime::env::instances(&program)
    };
    Ok(Some(RunnableSite {
        name,
        program,
        instances,
    }))
}
