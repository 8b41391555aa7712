//! Shared pieces of the wsite test suites: finding the conformance fixtures in
//! `tests/ui/` and the authoring benchmark in `tests/authoring/`, and reading
//! the diagnostics they expect; checking a fixture is [`harness`], the
//! generated "common mistakes" chapter [`mistakes_chapter`]; the random sites
//! and the four-way proof comparison of the prover's soundness campaign live
//! in [`soundness`].
//!
//! A fixture states its expected diagnostics inline, as a comment at the end of
//! the line the diagnostic's primary span starts on:
//!
//! ```text
//!   text "{p.nmae}"   // error[E101]: unknown field
//!   link "x" -> Nowhere  // error[E101] warning[S103]
//! ```
//!
//! A full-line comment starting `// ^` points at the nearest line above it that is
//! not itself such a comment (for lines that cannot end in a comment, such as an
//! unterminated string). The text after `:` is a prefix of the expected message;
//! it may only follow a single expectation.

pub mod agent_process;
pub mod fuzz_harness;
pub mod harness;
pub mod mistakes_chapter;
pub mod soundness;
pub mod webdriver;

use std::path::{Path, PathBuf};
use wsite_runtime::ir::{Program, Ty, Value};
use wsite_runtime::value::{Date, Time};

/// The number in environment variable `name` (a test's volume knob, such
/// as `WSITE_SOUNDNESS_SITES`), or `default` when it is unset or not one.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default)
}

/// One expected diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Expected {
    pub line: usize,
    pub severity: String,
    pub code: String,
    pub message: Option<String>,
}

/// The folder holding the `.wsite` fixtures.
pub fn ui_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ui")
}

/// The repository root (for examples and the like).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Every file below `dir` whose name ends with `ending`, sorted, entering
/// only the folders `enter` accepts (by name).
pub fn files_below(dir: &Path, ending: &str, enter: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if enter(name) {
                out.extend(files_below(&p, ending, enter));
            }
        } else if name.ends_with(ending) {
            out.push(p);
        }
    }
    out
}

/// Every `tests/ui/*.wsite`, sorted by name.
pub fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(ui_dir())
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "wsite"));
    files.sort();
    files
}

/// The authoring benchmark: one folder per site, holding the final
/// `site.wsite` and its first-draft mistakes `NN_short_name.wsite`.
pub fn authoring_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("authoring")
}

/// The benchmark's site folders (every folder of `tests/authoring/` with a
/// `site.wsite`), sorted.
pub fn authoring_sites() -> Vec<PathBuf> {
    let mut sites: Vec<PathBuf> = std::fs::read_dir(authoring_dir())
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    sites.retain(|p| p.join("site.wsite").is_file());
    sites.sort();
    sites
}

/// The mistake fixtures of one benchmark site: its `.wsite` files other than
/// `site.wsite`, sorted by name.
pub fn site_mistakes(site: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(site)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "wsite") && !p.ends_with("site.wsite"));
    files.sort();
    files
}

/// Every mistake fixture of the authoring benchmark, site by site.
pub fn authoring_fixtures() -> Vec<PathBuf> {
    authoring_sites()
        .iter()
        .flat_map(|s| site_mistakes(s))
        .collect()
}

/// Every example site (`examples/<domain>/*.wsite`), sorted.
pub fn examples() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(domains) = std::fs::read_dir(repo_root().join("examples")) else {
        return out;
    };
    for domain in domains.filter_map(Result::ok) {
        if let Ok(files) = std::fs::read_dir(domain.path()) {
            out.extend(
                files
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "wsite")),
            );
        }
    }
    out.sort();
    out
}

/// Every example's lowered program, with its path. Test support: an example
/// that does not compile clean is a failure of the caller's test.
#[allow(clippy::expect_used, clippy::panic)]
pub fn example_programs() -> Vec<(String, wsite_runtime::ir::Program)> {
    examples()
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).expect("readable example");
            let name = path.display().to_string();
            let program = wsitec::compile_str(&name, &text)
                .program
                .unwrap_or_else(|| panic!("{name} does not compile"));
            (name, program)
        })
        .collect()
}

/// `program` compiled for the JIT, the text pool it was compiled with, and
/// the task instances its flat engine plays (all of them once every marker
/// compiles). For the examples, which always compile.
#[allow(clippy::expect_used)]
pub fn jit_site(
    program: &Program,
) -> (
    wsite_runtime::jit::JitSite,
    wsite_runtime::layout::TextPool,
    Vec<wsite_runtime::env::TaskInstance>,
) {
    use wsite_runtime::jit::{FlatStart, JitSite};
    use wsite_runtime::layout::{StateLayout, TextPool};
    let layout = StateLayout::for_program(program).expect("the example has a flat layout");
    let mut pool = TextPool::for_program(program);
    let site = JitSite::compile(program, &layout, &mut pool).expect("the example compiles");
    let instances = wsite_runtime::env::instances(program)
        .into_iter()
        .filter(|inst| FlatStart::new(&site, inst, &mut pool.clone()).is_ok())
        .collect();
    (site, pool, instances)
}

/// Reads the inline expectations of a fixture.
pub fn expectations(text: &str) -> Vec<Expected> {
    let mut out = Vec::new();
    let mut last_code_line = 1;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let Some((comment_at, annotations)) = find_annotation(line) else {
            last_code_line = line_no;
            continue;
        };
        let points_up =
            line[..comment_at].trim().is_empty() && annotations.trim_start().starts_with('^');
        let target = if points_up { last_code_line } else { line_no };
        if !points_up {
            last_code_line = line_no;
        }
        out.extend(parse_annotations(
            annotations.trim_start().trim_start_matches('^'),
            target,
        ));
    }
    out.sort();
    out
}

/// The byte offset of an annotation comment in `line`, and the text after `//`.
pub(crate) fn find_annotation(line: &str) -> Option<(usize, &str)> {
    let mut from = 0;
    while let Some(rel) = line.get(from..)?.find("//") {
        let at = from + rel;
        let rest = line.get(at + 2..)?;
        let body = rest.trim_start().trim_start_matches('^').trim_start();
        if ["error[", "warning[", "info["]
            .iter()
            .any(|p| body.starts_with(p))
        {
            return Some((at, rest));
        }
        from = at + 2;
    }
    None
}

fn parse_annotations(text: &str, line: usize) -> Vec<Expected> {
    let (codes, message) = match text.split_once("]:") {
        Some((codes, msg)) => (format!("{codes}]"), Some(msg.trim().to_string())),
        None => (text.to_string(), None),
    };
    let mut out: Vec<Expected> = codes
        .split_whitespace()
        .filter_map(|tok| {
            let (severity, rest) = tok.split_once('[')?;
            let code = rest.strip_suffix(']')?;
            Some(Expected {
                line,
                severity: severity.to_string(),
                code: code.to_string(),
                message: None,
            })
        })
        .collect();
    if let (Some(last), Some(msg)) = (out.last_mut(), message) {
        last.message = Some(msg).filter(|m| !m.is_empty());
    }
    out
}

/// Compares what a fixture expects with what was reported as
/// `(line, severity, code, message)`; returns a description of every difference.
pub fn compare(expected: &[Expected], actual: &[(usize, String, String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut unmatched: Vec<&(usize, String, String, String)> = actual.iter().collect();
    for e in expected {
        let pos = unmatched.iter().position(|(line, sev, code, msg)| {
            *line == e.line
                && *sev == e.severity
                && *code == e.code
                && e.message
                    .as_ref()
                    .is_none_or(|m| msg.starts_with(m.as_str()))
        });
        match pos {
            Some(p) => {
                unmatched.remove(p);
            }
            None => problems.push(format!(
                "expected {}[{}] on line {}{} but it was not reported",
                e.severity,
                e.code,
                e.line,
                e.message
                    .as_ref()
                    .map(|m| format!(" (`{m}`)"))
                    .unwrap_or_default()
            )),
        }
    }
    for (line, sev, code, msg) in unmatched {
        problems.push(format!("unexpected {sev}[{code}] on line {line}: {msg}"));
    }
    problems
}

/// A tiny deterministic generator for random walks (no `rand`, the same
/// sequence on every machine).
pub struct Lcg(pub u64);

impl Lcg {
    /// A number in `0..n` (`0` when `n` is 0).
    pub fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap_or(0) % n.max(1)
    }
}

/// Candidate values for a parameter of type `ty` in `world`: existing row ids
/// (and one that does not exist), a few numbers, the texts the task may type
/// and those the tables hold, every variant, a few dates and times, `none`
/// for optional parameters.
pub fn argument_values(
    program: &Program,
    world: &wsite_runtime::interp::exec::World,
    ty: &Ty,
    typeable: &[String],
    texts: &[Value],
) -> Vec<Value> {
    let mut out = match ty {
        Ty::Optional(inner) => {
            let mut v = argument_values(program, world, inner, typeable, texts);
            v.push(Value::None);
            return v;
        }
        Ty::Int => [-1, 0, 1, 2, 3, 5, 10, 100, i64::MAX]
            .into_iter()
            .map(Value::Int)
            .collect(),
        Ty::Money => [0, 1, 1500, 100_000, -500]
            .into_iter()
            .map(Value::Money)
            .collect(),
        Ty::Bool => vec![Value::Bool(false), Value::Bool(true)],
        Ty::Text => {
            let mut v: Vec<Value> = typeable
                .iter()
                .map(|s| Value::Text(s.as_str().into()))
                .collect();
            v.extend(texts.iter().cloned());
            v.push(Value::Text("".into()));
            v.push(Value::Text("  trail15 ".into()));
            v
        }
        Ty::Date => {
            let today = program.site.today.day_number();
            [-400, -30, -1, 0, 1, 7, 30]
                .into_iter()
                .filter_map(|d| Date::from_day_number(today + d))
                .map(Value::Date)
                .collect()
        }
        Ty::Time => [(0, 0), (9, 30), (12, 0), (17, 45), (23, 59)]
            .into_iter()
            .map(|(hour, minute)| Value::Time(Time { hour, minute }))
            .collect(),
        Ty::Enum(e) => (0..program.enums[*e as usize].variants.len() as u32)
            .map(Value::Enum)
            .collect(),
        Ty::Row(t) => {
            let rows = world.db.tables[*t as usize].rows();
            let mut v: Vec<Value> = rows.iter().map(|r| Value::Row(r.id)).collect();
            v.push(Value::Row(rows.last().map_or(1, |r| r.id + 1)));
            v
        }
    };
    out.dedup();
    out
}

/// Overwrites a few table cells with other values of their types (as the
/// JIT tests do), to reach faults and gate rejections that play rarely reaches.
pub fn perturb_cells(
    program: &Program,
    layout: &wsite_runtime::layout::StateLayout,
    bytes: &mut [u8],
    pool_len: usize,
    rng: &mut Lcg,
) {
    let u32_at =
        |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]));
    for _ in 0..3 {
        if program.tables.is_empty() {
            return;
        }
        let t = rng.next(program.tables.len());
        let tl = &layout.tables[t];
        let count = u32_at(bytes, tl.count) as usize;
        let fields = &program.tables[t].fields;
        if count == 0 || fields.is_empty() {
            continue;
        }
        let f = rng.next(fields.len());
        let (cells, i, ty) = (tl.columns[f], rng.next(count), &fields[f].ty);
        let (optional, base) = match ty {
            Ty::Optional(inner) => (true, &**inner),
            other => (false, other),
        };
        let word = match base {
            Ty::Int | Ty::Money => [0, 1, -1, 2, 1000, i64::MAX][rng.next(6)],
            Ty::Bool => rng.next(2) as i64,
            Ty::Text => rng.next(pool_len) as i64,
            Ty::Date => program.site.today.day_number() + rng.next(100) as i64 - 50,
            Ty::Time => rng.next(24 * 60) as i64,
            Ty::Enum(e) => rng.next(program.enums[*e as usize].variants.len()) as i64,
            Ty::Row(_) => 999_999,
            Ty::Optional(_) => continue,
        };
        let absent = optional && rng.next(4) == 0;
        let word = if absent { 0 } else { word };
        bytes[cells.word_at(i)..cells.word_at(i) + 8].copy_from_slice(&word.to_le_bytes());
        bytes[cells.present_at(i)] = u8::from(!absent);
    }
}

/// The first buffer field that differs, for the failure message.
pub fn first_difference(
    a: &wsite_runtime::batch::Buffers,
    b: &wsite_runtime::batch::Buffers,
) -> &'static str {
    let fields: [(&str, bool); 26] = [
        ("instruction", a.instruction == b.instruction),
        ("page", a.page == b.page),
        ("alert", a.alert == b.alert),
        ("steps", a.steps == b.steps),
        ("context", a.context == b.context),
        ("sibling", a.sibling == b.sibling),
        ("history_kind", a.history_kind == b.history_kind),
        ("history_text", a.history_text == b.history_text),
        ("element_count", a.element_count == b.element_count),
        ("role", a.role == b.role),
        ("flags", a.flags == b.flags),
        ("text", a.text == b.text),
        ("value", a.value == b.value),
        ("action_count", a.action_count == b.action_count),
        ("action_kind", a.action_kind == b.action_kind),
        ("action_element", a.action_element == b.action_element),
        ("action_text", a.action_text == b.action_text),
        ("action_mask", a.action_mask == b.action_mask),
        ("reward", a.reward == b.reward),
        ("done", a.done == b.done),
        ("truncated", a.truncated == b.truncated),
        ("success", a.success == b.success),
        ("progress", a.progress == b.progress),
        ("episode_return", a.episode_return == b.episode_return),
        ("episode_length", a.episode_length == b.episode_length),
        ("overflow", a.overflow == b.overflow),
    ];
    fields
        .iter()
        .find(|(_, same)| !same)
        .map_or("none", |(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_trailing_and_upward_annotations() {
        let text = "a\nb // error[E101]: unknown\n  \"x\n  // ^ error[E002]\nc // error[E201] warning[S101]\n";
        let got = expectations(text);
        assert_eq!(got.len(), 4);
        assert!(got.contains(&Expected {
            line: 2,
            severity: "error".into(),
            code: "E101".into(),
            message: Some("unknown".into())
        }));
        assert!(got.contains(&Expected {
            line: 3,
            severity: "error".into(),
            code: "E002".into(),
            message: None
        }));
        assert!(got.iter().any(|e| e.line == 5 && e.code == "S101"));
    }

    #[test]
    fn urls_in_strings_are_not_annotations() {
        assert!(expectations("text \"see https://example.org\"\n").is_empty());
    }
}
