//! The machine-readable defect report (`check --format json`) for repair loops.
//!
//! Besides the diagnostic itself each defect carries `depends_on` (defects that
//! must be fixed first for this one to mean anything) and a repair `priority`
//! (`λ1·sev + λ2·ln(1 + dep) + λ3·scope − λ4·cost`, λ = 1, 1, 0.5, 0.25). Defects
//! are listed in dependency order, highest priority first among those ready.
//!
//! What counts as a dependency: a diagnostic inside a declaration that has a
//! syntax error (E001–E003) depends on that syntax error, because the parser's
//! recovery may have produced it; and a defect that names objects in its
//! `after` list (a task's F401 names the unreachable page its marker's button
//! is on; a call's E103 names the page or marker it calls) depends on the
//! structural defects about those objects (that page's S101) and on every
//! error about them: syntax errors inside their declarations, and any error
//! that made them stubs (a finding computed over a stub is provisional, see
//! `crate::partial`).
//! An unknown name (E101) depends on the syntax error of a declaration of that
//! name the parser had to skip.
//! `scope` and `cost` are 1 for every defect.
//!
//! The report reads the program's declarations through [`Declarations`],
//! which the syntax tree implements, so diagnostics need not know the tree.

use super::{Category, Diagnostic, Severity};
use crate::span::Span;
use crate::Source;
use serde_json::{json, Value};

const LAMBDA: (f64, f64, f64, f64) = (1.0, 1.0, 0.5, 0.25);

/// Line and column (1-based, columns in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before
        .get(line_start..)
        .map(|s| s.chars().count())
        .unwrap_or(0)
        + 1;
    (line, column)
}

fn span_json(sources: &[Source], span: Span) -> Value {
    let source = sources.get(span.file.0 as usize);
    let (line, column) = source
        .map(|s| line_col(&s.text, span.start as usize))
        .unwrap_or((1, 1));
    json!({
        "file": source.map(|s| s.name.as_str()).unwrap_or(""),
        "line": line, "column": column, "start": span.start, "end": span.end,
    })
}

/// For each diagnostic, the indices of the diagnostics it depends on.
fn dependencies<F: Declarations>(
    diags: &[Diagnostic],
    files: &[F],
    sources: &[Source],
) -> Vec<Vec<usize>> {
    let decl_of = |span: Span| -> Option<Span> {
        files
            .get(span.file.0 as usize)?
            .declaration_spans()
            .find(|d| d.start <= span.start && span.start < d.end.max(d.start + 1))
    };
    let syntax: Vec<(usize, Option<Span>)> = diags
        .iter()
        .enumerate()
        .filter(|(_, d)| d.code.category() == Category::Syntax)
        .map(|(i, d)| (i, decl_of(d.span)))
        .collect();
    // The name each syntax error's skipped declaration would have declared.
    let skipped: Vec<(usize, &str)> = syntax
        .iter()
        .filter_map(|&(j, _)| {
            let span = diags.get(j)?.span;
            let text = &sources.get(span.file.0 as usize)?.text;
            Some((j, skipped_declaration(text, span.start as usize)?))
        })
        .collect();
    let objects: Vec<Option<String>> = diags
        .iter()
        .map(|d| d.object.clone().or_else(|| enclosing_object(files, d.span)))
        .collect();
    diags
        .iter()
        .enumerate()
        .map(|(i, d)| {
            if d.code.category() == Category::Syntax {
                return Vec::new();
            }
            let mut deps: Vec<usize> = match decl_of(d.span) {
                Some(decl) => syntax
                    .iter()
                    .filter(|(j, s)| *j != i && *s == Some(decl))
                    .map(|(j, _)| *j)
                    .collect(),
                None => Vec::new(),
            };
            // An unknown name that a declaration the parser skipped declares.
            if d.code == super::Code::E101 {
                let name = d.message.split('`').nth(1).unwrap_or("");
                for &(j, declared) in &skipped {
                    if declared == name && !deps.contains(&j) {
                        deps.push(j);
                    }
                }
            }
            // Structural defects on the objects this one names as blockers
            // (an unreachable page or an untriggered marker behind a task's
            // F401), and syntax errors inside them (a call's E103 against a
            // page whose parameter list did not parse). Other defects on
            // those objects (an unused permission) are no cause of it.
            for (j, o) in objects.iter().enumerate() {
                // Syntax errors inside a named object block too, and so does
                // any error on it: a finding computed over a stub of that
                // object is provisional (crate::partial).
                let blocks = diags
                    .get(j)
                    .is_some_and(|b| b.code.blocks_dependents() || b.is_error());
                if j != i
                    && blocks
                    && o.as_ref().is_some_and(|o| d.after.contains(o))
                    && !deps.contains(&j)
                {
                    deps.push(j);
                }
            }
            deps
        })
        .collect()
}

/// The name declared by the declaration a syntax error at `offset` lies in,
/// read from the source: the nearest line above (or at) it that starts a
/// declaration (`page Cart ...`, `extern marker pay ...`).
fn skipped_declaration(text: &str, offset: usize) -> Option<&str> {
    let rest = text.get(offset..)?;
    let line_end = offset + rest.find('\n').unwrap_or(rest.len());
    text.get(..line_end)?.lines().rev().find_map(declared_name)
}

/// `Cart` for a line `page Cart(...) {`, `pay` for `extern marker pay`.
fn declared_name(line: &str) -> Option<&str> {
    let mut words = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty());
    let mut keyword = words.next()?;
    if keyword == "extern" {
        keyword = words.next()?;
    }
    let declares = ["page", "marker", "table", "enum", "invariant", "task"].contains(&keyword);
    let first_word = line.trim_start().starts_with(keyword);
    let name = words.next()?;
    (declares && first_word).then_some(name)
}

/// What the report reads of a parsed file without knowing its syntax tree:
/// where its declarations are and which object each one is. The syntax tree
/// implements it (`syntax::ast::SourceFile`, in `syntax::objects`).
pub trait Declarations {
    /// The span of every declaration, in source order.
    fn declaration_spans(&self) -> impl Iterator<Item = Span> + '_;
    /// `page Cart`, `marker buy`, ...: the declaration `span` lies in (or the
    /// one just before it), named as a defect's `object`.
    fn object_at(&self, span: Span) -> Option<String>;
}

/// `page Cart`, `marker buy`, ...: the declaration a span lies in, for defects
/// whose analysis did not name an object itself.
pub fn enclosing_object<F: Declarations>(files: &[F], span: Span) -> Option<String> {
    files.get(span.file.0 as usize)?.object_at(span)
}

fn priority(d: &Diagnostic, dependents: usize) -> f64 {
    let sev = match d.severity() {
        Severity::Error => 3.0,
        Severity::Warning => 2.0,
        Severity::Info => 1.0,
    };
    let (scope, cost) = (1.0, 1.0);
    LAMBDA.0 * sev + LAMBDA.1 * (1.0 + dependents as f64).ln() + LAMBDA.2 * scope - LAMBDA.3 * cost
}

/// Orders defects: dependencies first, then by priority (ties by position).
fn repair_order(deps: &[Vec<usize>], prio: &[f64]) -> Vec<usize> {
    let mut placed = vec![false; deps.len()];
    let mut order = Vec::with_capacity(deps.len());
    while order.len() < deps.len() {
        let ready = (0..deps.len())
            .filter(|&i| !placed[i] && deps[i].iter().all(|&j| placed[j]))
            .max_by(|&a, &b| prio[a].total_cmp(&prio[b]).then(b.cmp(&a)));
        // Dependencies point at syntax errors and at structural defects, which
        // depend on nothing but syntax errors, so something is always ready;
        // the fallback keeps this total anyway.
        let next = ready.or_else(|| (0..deps.len()).find(|&i| !placed[i]));
        let Some(i) = next else { break };
        placed[i] = true;
        order.push(i);
    }
    order
}

/// The report for one program: `{ "file": ..., "defects": [...] }`.
pub fn report<F: Declarations>(
    file_name: &str,
    sources: &[Source],
    files: &[F],
    diags: &[Diagnostic],
) -> Value {
    let deps = dependencies(diags, files, sources);
    let dependents: Vec<usize> = (0..diags.len())
        .map(|i| deps.iter().filter(|d| d.contains(&i)).count())
        .collect();
    let prio: Vec<f64> = diags
        .iter()
        .zip(&dependents)
        .map(|(d, n)| priority(d, *n))
        .collect();
    let order = repair_order(&deps, &prio);
    let mut id_of = vec![0usize; diags.len()];
    for (rank, &i) in order.iter().enumerate() {
        id_of[i] = rank + 1;
    }
    let defects: Vec<Value> = order
        .iter()
        .map(|&i| {
            let d = &diags[i];
            let mut defect = json!({
                "id": id_of[i],
                "code": d.code.as_str(),
                "category": d.code.category().as_str(),
                "severity": d.severity().as_str(),
                "object": d.object.clone().or_else(|| enclosing_object(files, d.span)),
                "message": d.message,
                "span": span_json(sources, d.span),
                "label": d.label,
                "related": d.related.iter().map(|l| json!({"span": span_json(sources, l.span), "message": l.message})).collect::<Vec<_>>(),
                "evidence": d.evidence,
                "help": d.help,
                "confidence": d.confidence,
                "depends_on": deps[i].iter().map(|&j| id_of[j]).collect::<Vec<_>>(),
                "priority": (prio[i] * 1000.0).round() / 1000.0,
            });
            if let Some(fix) = &d.fix {
                defect["fix"] = json!(fix);
            }
            defect
        })
        .collect();
    json!({ "file": file_name, "defects": defects })
}
