//! Applying machine-applicable fixes (the [`Fix`](crate::diagnostics::Fix)
//! of a diagnostic, turned into text edits by [`crate::ide`]) to a whole
//! program: what `wsitec fix` does, as a pure function the language server
//! could call too (INTERFACES.md, `wsitec fix`).
//!
//! One round checks the program, takes every fix it offers, applies those
//! that do not overlap an earlier one (in file and position order, so the
//! outcome is the same on every run; declarations appended at the end of a
//! file never overlap) and leaves the others to the next round, which checks
//! the edited text again. Rounds stop when no fix
//! applies or after [`DEFAULT_ROUNDS`].
//!
//! Two rules keep the edits safe. While the program has syntax errors, a
//! fix that adds a declaration (a missing page) waits: the source the parser
//! skipped may hold that very declaration. And a round after which the
//! program has more errors than before is undone, and ends the run.

use crate::diagnostics::{Category, Code, Diagnostic};
use crate::ide::actions::Edit;
use crate::ide::Analysis;
use crate::{Compilation, Loader, Options, Source};
use std::collections::BTreeMap;

/// Rounds before `fix` stops even when fixes are left (each round's fixes
/// may make new ones possible, such as a page created by one round having
/// permissions added by the next).
pub const DEFAULT_ROUNDS: usize = 4;

/// One fix that was applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// 1-based.
    pub round: usize,
    pub file: String,
    /// The 1-based line of the diagnostic it fixes, in the text of its round.
    pub line: usize,
    pub code: Code,
    pub title: String,
}

/// A file the fixes changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Changed {
    pub name: String,
    pub before: String,
    pub after: String,
}

/// What fixing a program did.
pub struct Outcome {
    pub applied: Vec<Applied>,
    pub changed: Vec<Changed>,
    pub rounds: usize,
    /// What the first check (of the text as read) reported.
    pub first: Vec<Diagnostic>,
    /// The last check (of the text with every applied fix).
    pub last: Compilation,
}

impl Outcome {
    /// Diagnostics of the first check that offered a fix.
    pub fn offered(&self) -> usize {
        self.first.iter().filter(|d| d.fix.is_some()).count()
    }
}

/// Checks `roots` (and the files they `use`, through `loader`) with
/// `options`, applies fixes for up to `max_rounds` rounds and checks the
/// result.
pub fn fix_program(
    roots: Vec<Source>,
    loader: &mut Loader<'_>,
    options: &Options,
    max_rounds: usize,
) -> Outcome {
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let check = |texts: &BTreeMap<String, String>, loader: &mut Loader<'_>| {
        let roots: Vec<Source> = roots.iter().map(|s| with_text(s.clone(), texts)).collect();
        let mut overlaid = |importer: &str, path: &str| {
            loader(importer, path).map(|source| with_text(source, texts))
        };
        crate::compile_with(roots, &mut overlaid, options.clone())
    };
    let mut first: Option<(Vec<Diagnostic>, Vec<Source>)> = None;
    let mut applied = Vec::new();
    let mut rounds = 0;
    let mut last: Option<Compilation> = None;
    while rounds < max_rounds {
        let current = last.take().unwrap_or_else(|| check(&texts, loader));
        if first.is_none() {
            first = Some((current.diagnostics.clone(), current.sources.clone()));
        }
        let analysis = Analysis::new(current);
        let round = rounds + 1;
        let (edited, fixes) = apply_round(&analysis, round);
        let before = errors(&analysis.compilation);
        if fixes.is_empty() {
            last = Some(analysis.compilation);
            break;
        }
        let mut next_texts = texts.clone();
        next_texts.extend(edited);
        let next = check(&next_texts, loader);
        if errors(&next) > before {
            last = Some(analysis.compilation);
            break;
        }
        texts = next_texts;
        applied.extend(fixes);
        rounds = round;
        last = Some(next);
    }
    let last = last.unwrap_or_else(|| check(&texts, loader));
    let (first, originals) =
        first.unwrap_or_else(|| (last.diagnostics.clone(), last.sources.clone()));
    let changed = originals
        .into_iter()
        .filter_map(|s| {
            let after = texts.get(&s.name)?;
            (*after != s.text).then(|| Changed {
                name: s.name,
                before: s.text,
                after: after.clone(),
            })
        })
        .collect();
    Outcome {
        applied,
        changed,
        rounds,
        first,
        last,
    }
}

/// `source` with its text replaced by the edited one, if any.
fn with_text(mut source: Source, texts: &BTreeMap<String, String>) -> Source {
    if let Some(text) = texts.get(&source.name) {
        source.text = text.clone();
    }
    source
}

fn errors(c: &Compilation) -> usize {
    c.diagnostics.iter().filter(|d| d.is_error()).count()
}

fn has_syntax_errors(c: &Compilation) -> bool {
    c.diagnostics
        .iter()
        .any(|d| d.code.category() == Category::Syntax)
}

/// One fix offered for a diagnostic: its edits, all in one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub diagnostic: usize,
    pub title: String,
    pub edits: Vec<Edit>,
}

/// The edited texts (by file name) and the fixes applied in one round.
fn apply_round(analysis: &Analysis, round: usize) -> (BTreeMap<String, String>, Vec<Applied>) {
    let c = &analysis.compilation;
    let only_inside = has_syntax_errors(c);
    let candidates: Vec<Candidate> = c
        .diagnostics
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let (title, edits) = analysis.fix_edits(d)?;
            Some(Candidate {
                diagnostic: i,
                title,
                edits,
            })
        })
        .filter(|cand| editable(c, cand))
        .filter(|cand| !only_inside || cand.edits.iter().all(|e| inside_a_declaration(c, e)))
        .collect();
    let ends: Vec<usize> = c.sources.iter().map(|s| s.text.len()).collect();
    let chosen = choose(candidates, &ends);
    let mut edited = BTreeMap::new();
    for (id, source) in c.sources.iter().enumerate() {
        let edits: Vec<&Edit> = chosen
            .iter()
            .flat_map(|cand| &cand.edits)
            .filter(|e| e.file.0 as usize == id)
            .collect();
        if !edits.is_empty() {
            edited.insert(source.name.clone(), apply_edits(&source.text, &edits));
        }
    }
    let applied = chosen
        .iter()
        .map(|cand| describe(c, &c.diagnostics[cand.diagnostic], cand, round))
        .collect();
    (edited, applied)
}

/// Whether a candidate's edits lie in one file the user owns (not the
/// standard library) and fall on character boundaries of its text.
fn editable(c: &Compilation, cand: &Candidate) -> bool {
    let Some(first) = cand.edits.first() else {
        return false;
    };
    let Some(source) = c.sources.get(first.file.0 as usize) else {
        return false;
    };
    !source.name.starts_with(crate::STD_PREFIX)
        && cand.edits.iter().all(|e| {
            e.file == first.file
                && e.start <= e.end
                && source.text.is_char_boundary(e.start)
                && source.text.is_char_boundary(e.end)
        })
}

/// Whether `e` changes an existing declaration rather than adding one.
fn inside_a_declaration(c: &Compilation, e: &Edit) -> bool {
    c.files.get(e.file.0 as usize).is_some_and(|f| {
        f.decls
            .iter()
            .any(|d| d.span.start as usize <= e.start && e.end <= d.span.end as usize)
    })
}

fn describe(c: &Compilation, d: &Diagnostic, cand: &Candidate, round: usize) -> Applied {
    let source = c.sources.get(d.span.file.0 as usize);
    let line = source.map_or(1, |s| {
        crate::diagnostics::json::line_col(&s.text, d.span.start as usize).0
    });
    Applied {
        round,
        file: source.map(|s| s.name.clone()).unwrap_or_default(),
        line,
        code: d.code,
        title: cand.title.clone(),
    }
}

/// The candidates to apply now: in file and position order, each one that
/// overlaps none taken before it. A candidate with the very edits of one
/// taken (two links to the same missing page) is dropped, its fix made.
/// `ends` are the files' lengths (by file id): declarations appended at the
/// end of a file do not overlap, they are added in this order.
pub fn choose(mut candidates: Vec<Candidate>, ends: &[usize]) -> Vec<Candidate> {
    let key = |c: &Candidate| {
        let first = c.edits.first();
        (
            first.map(|e| (e.file, e.start, e.end)),
            c.title.clone(),
            c.diagnostic,
        )
    };
    candidates.sort_by_key(key);
    let mut taken: Vec<Candidate> = Vec::new();
    for cand in candidates {
        let clash = taken.iter().any(|t| {
            t.edits == cand.edits
                || t.edits
                    .iter()
                    .any(|a| cand.edits.iter().any(|b| overlaps(a, b, ends)))
        });
        if !clash {
            taken.push(cand);
        }
    }
    taken
}

/// Whether two edits touch the same bytes, or insert at the same place
/// (whose order would be a guess), but for two appends at the end of a file.
fn overlaps(a: &Edit, b: &Edit, ends: &[usize]) -> bool {
    let appends = |e: &Edit| e.start == e.end && ends.get(e.file.0 as usize) == Some(&e.start);
    a.file == b.file
        && !(appends(a) && appends(b))
        && (a.start == b.start || (a.start < b.end && b.start < a.end))
}

/// `text` with non-overlapping `edits` applied (from the last one back, so
/// earlier offsets stay valid); insertions at one place keep their order.
pub fn apply_edits(text: &str, edits: &[&Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().rev().copied().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse((e.start, e.end)));
    let mut out = text.to_string();
    for e in sorted {
        if e.start <= e.end && e.end <= out.len() {
            out.replace_range(e.start..e.end, &e.text);
        }
    }
    out
}

/// A unified diff of one file (three lines of context), empty when equal.
pub fn unified_diff(name: &str, before: &str, after: &str) -> String {
    if before == after {
        return String::new();
    }
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

#[cfg(test)]
mod tests;
