//! The generated chapter `docs/common-mistakes.md`: one entry per mistake
//! fixture of the authoring benchmark (`tests/authoring/<site>/NN_*.wsite`),
//! showing the mistake, the diagnostics `wsitec check` gives it today (code,
//! message, help; LANGUAGE.md §11) and the fix, grouped by kind.
//!
//! A fixture describes itself in header comments:
//!
//! ```text
//! // mistake: `&&` written for `and`
//! // kind: habit
//! // fix:   requires l.renewals < 2 and l.returned == none
//! // wish: E001 could name `and`
//! ```
//!
//! `mistake` (the entry's title), `kind` (one of [`KINDS`]) and at least one
//! `fix` line are required; `wish` says what a better diagnostic would be and
//! stays out of the chapter. The excerpt is every line a diagnostic is expected
//! on plus every line ending in `// show`, annotations removed.

use crate::harness::{compile_fixture, display_name};
use std::fmt;
use std::path::{Path, PathBuf};

/// The kinds of mistake, in chapter order: key, heading, introduction.
pub const KINDS: &[(&str, &str, &str)] = &[
    (
        "habit",
        "Habits from other languages",
        "Spellings carried over from JavaScript, Python, C or SQL.",
    ),
    (
        "types",
        "Types and optional values",
        "Values of the wrong type, optional values used as plain ones, arithmetic the language does not define.",
    ),
    (
        "permissions",
        "Markers and their permissions",
        "What a marker may read and write has to be declared (§6).",
    ),
    (
        "pages",
        "Pages and navigation",
        "Pages nothing leads to, targets that do not exist, arguments that do not fit.",
    ),
    (
        "data",
        "Data, seeds and invariants",
        "Seed rows and the rules the data must obey (§4).",
    ),
    (
        "tasks",
        "Tasks the prover refuses",
        "Tasks that cannot be done, are done already, or cannot be decided (§7, §10).",
    ),
];

/// Why a fixture cannot become a chapter entry.
#[derive(Debug, PartialEq, Eq)]
pub enum ChapterError {
    /// A required header comment (`// mistake:`, `// kind:`, `// fix:`) is missing.
    MissingHeader {
        fixture: String,
        header: &'static str,
    },
    /// `// kind:` names no entry of [`KINDS`].
    UnknownKind { fixture: String, kind: String },
    /// No line is annotated or marked `// show`.
    NoExcerpt { fixture: String },
}

impl fmt::Display for ChapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChapterError::MissingHeader { fixture, header } => {
                write!(f, "{fixture}: no `// {header}:` line")
            }
            ChapterError::UnknownKind { fixture, kind } => {
                write!(f, "{fixture}: unknown kind `{kind}`")
            }
            ChapterError::NoExcerpt { fixture } => {
                write!(f, "{fixture}: no annotated or `// show` line")
            }
        }
    }
}

impl std::error::Error for ChapterError {}

/// One fixture, read for the chapter.
#[derive(Debug)]
pub struct Mistake {
    /// The fixture's path from the repository root.
    pub fixture: String,
    pub title: String,
    pub kind: &'static str,
    pub excerpt: Vec<String>,
    pub fix: Vec<String>,
    pub wishes: Vec<String>,
}

/// Where the chapter lives.
pub fn chapter_path() -> PathBuf {
    crate::repo_root().join("docs").join("common-mistakes.md")
}

/// The values of every `// name:` header line of `text`.
fn headers<'t>(text: &'t str, name: &str) -> Vec<&'t str> {
    let prefix = format!("// {name}:");
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix(prefix.as_str()))
        .map(|v| v.strip_prefix(' ').unwrap_or(v).trim_end())
        .collect()
}

/// The source part of a line: annotations and a final `// show` removed.
fn code_part(line: &str) -> &str {
    let code = crate::find_annotation(line).map_or(line, |(at, _)| &line[..at]);
    let code = code.trim_end();
    code.strip_suffix("// show").unwrap_or(code).trim_end()
}

/// Lines without their common indentation.
fn dedent(lines: &[&str]) -> Vec<String> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()).to_string())
        .collect()
}

/// The excerpt: annotated and `// show` lines in order, `...` where lines
/// were skipped.
fn excerpt(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut wanted: Vec<usize> = crate::expectations(text).iter().map(|e| e.line).collect();
    wanted.extend(
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim_end().ends_with("// show"))
            .map(|(i, _)| i + 1),
    );
    wanted.sort_unstable();
    wanted.dedup();
    // `None` marks skipped lines; it stays out of the indentation count.
    let mut shown: Vec<Option<&str>> = Vec::new();
    let mut previous = None;
    for line_no in wanted {
        if previous.is_some_and(|p: usize| p + 1 != line_no) {
            shown.push(None);
        }
        shown.push(Some(lines.get(line_no - 1).map_or("", |l| code_part(l))));
        previous = Some(line_no);
    }
    let code: Vec<&str> = shown.iter().flatten().copied().collect();
    let mut dedented = dedent(&code).into_iter();
    shown
        .iter()
        .map(|line| match line {
            Some(_) => dedented.next().unwrap_or_default(),
            None => "...".to_string(),
        })
        .collect()
}

/// Reads a fixture's headers and excerpt.
pub fn read_mistake(path: &Path, text: &str) -> Result<Mistake, ChapterError> {
    let fixture = display_name(path);
    let first = |name: &'static str| {
        headers(text, name)
            .first()
            .map(|v| v.to_string())
            .ok_or_else(|| ChapterError::MissingHeader {
                fixture: fixture.clone(),
                header: name,
            })
    };
    let title = first("mistake")?;
    let kind_name = first("kind")?;
    let kind = KINDS
        .iter()
        .map(|(k, _, _)| *k)
        .find(|k| *k == kind_name)
        .ok_or_else(|| ChapterError::UnknownKind {
            fixture: fixture.clone(),
            kind: kind_name.clone(),
        })?;
    let fix = dedent(&headers(text, "fix"));
    if fix.is_empty() {
        return Err(ChapterError::MissingHeader {
            fixture,
            header: "fix",
        });
    }
    let excerpt = excerpt(text);
    if excerpt.is_empty() {
        return Err(ChapterError::NoExcerpt { fixture });
    }
    let wishes = headers(text, "wish")
        .iter()
        .map(|w| w.to_string())
        .collect();
    Ok(Mistake {
        fixture,
        title,
        kind,
        excerpt,
        fix,
        wishes,
    })
}

/// The diagnostics a fixture gets today, one list item each.
fn diagnostics_of(name: &str, text: &str) -> String {
    let mut out = String::new();
    for d in compile_fixture(name, text).diagnostics {
        let head = format!(
            "**{}[{}]** {}",
            d.severity().as_str(),
            d.code.as_str(),
            d.message
        );
        match d.help.as_deref().filter(|h| !h.is_empty()) {
            // A backslash at the end of the line breaks it inside the item.
            Some(help) => out.push_str(&format!("- {head}\\\n  *help:* {help}\n")),
            None => out.push_str(&format!("- {head}\n")),
        }
    }
    if out.is_empty() {
        out.push_str("- nothing at all\n");
    }
    out
}

/// A title with its first letter in upper case (headings read better so).
fn capitalised(title: &str) -> String {
    let mut chars = title.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn code_block(lines: &[String]) -> String {
    format!("```wsite\n{}\n```\n", lines.join("\n"))
}

/// The whole chapter, from the given fixtures.
pub fn render(fixtures: &[PathBuf]) -> Result<String, ChapterError> {
    let mut entries = Vec::new();
    for path in fixtures {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mistake = read_mistake(path, &text)?;
        let said = diagnostics_of(&mistake.fixture, &text);
        entries.push((mistake, said));
    }
    let mut out = String::from(HEADER);
    for (key, heading, _) in KINDS {
        let count = entries.iter().filter(|(m, _)| m.kind == *key).count();
        out.push_str(&format!(
            "- [{heading}](#{}) ({count})\n",
            heading.to_lowercase().replace(' ', "-").replace(',', "")
        ));
    }
    for (key, heading, intro) in KINDS {
        out.push_str(&format!("\n## {heading}\n\n{intro}\n"));
        for (m, said) in entries.iter().filter(|(m, _)| m.kind == *key) {
            out.push_str(&format!(
                "\n### {}\n\n*From [{}](../{}).*\n\n{}\n**What `wsitec check` says:**\n\n{}\n**The fix:**\n\n{}",
                capitalised(&m.title),
                m.fixture.trim_start_matches("tests/authoring/"),
                m.fixture,
                code_block(&m.excerpt),
                said,
                code_block(&m.fix)
            ));
        }
    }
    Ok(out)
}

const HEADER: &str = "# Common mistakes

<!-- Generated by tests/src/mistakes_chapter.rs from tests/authoring; do not edit by hand. -->

*This chapter is generated.* Every entry is a mistake made while writing a new
site from the [language reference](language.md) alone, kept as a fixture of the
authoring benchmark in `tests/authoring/<site>/` (the finished sites are the
`site.wsite` files there). Each shows the mistake, what `wsitec check` reports
for it today, and the fix. To regenerate after changing a fixture or a
diagnostic, run

```sh
WSITE_UPDATE_DOCS=1 cargo test -p wsite-tests --test authoring
```

(without the variable, that test fails when this file is stale).

";

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = "// mistake: `&&` for `and`\n// kind: habit\n// fix:   if a and b {\n// fix:     text \"x\"\n// wish: name `and`\npage P {\n  heading \"h\" // show\n  text \"t\"\n  if a && b { // error[E001]: expected\n  }\n}\n";

    #[test]
    fn reads_headers_and_the_excerpt_without_annotations() {
        let m = read_mistake(Path::new("f.wsite"), FIXTURE).expect("a valid fixture");
        assert_eq!(m.title, "`&&` for `and`");
        assert_eq!(m.kind, "habit");
        assert_eq!(m.fix, vec!["if a and b {", "  text \"x\""]);
        assert_eq!(m.wishes, vec!["name `and`"]);
        assert_eq!(m.excerpt, vec!["heading \"h\"", "...", "if a && b {"]);
    }

    #[test]
    fn refuses_an_unknown_kind_and_a_missing_fix() {
        let unknown = FIXTURE.replace("kind: habit", "kind: style");
        assert!(matches!(
            read_mistake(Path::new("f.wsite"), &unknown),
            Err(ChapterError::UnknownKind { .. })
        ));
        let no_fix: String = FIXTURE
            .lines()
            .filter(|l| !l.starts_with("// fix:"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(matches!(
            read_mistake(Path::new("f.wsite"), &no_fix),
            Err(ChapterError::MissingHeader { header: "fix", .. })
        ));
    }

    #[test]
    fn capitalises_titles_but_leaves_code_alone() {
        assert_eq!(capitalised("a task"), "A task");
        assert_eq!(capitalised("`&&` for"), "`&&` for");
    }
}
