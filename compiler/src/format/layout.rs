//! The canonical layout: given a file's tokens and its layout marks, decides
//! the whitespace between every two tokens (how many line breaks, how much
//! indentation, how many spaces) and prints the result.
//!
//! Line breaks stay where the author put them; runs of blank lines shrink to
//! one, and blank lines right inside a bracket go. Each line's indentation
//! follows from what its first token is:
//!
//! - a closing bracket: one level less than the items inside it;
//! - the start of an item (a declaration, element, statement, field, row,
//!   enum variant, list element after `,` or an opening bracket, the `else`
//!   of an `if`): the indentation of its block, or 0 at the top level. A
//!   `{ ... }` block is one level (2 spaces) inside the item that owns the
//!   `{`; a `( ... )` or `[ ... ]` one level inside the line that opens it;
//! - a `{` that opens a body on a line of its own (or an extern marker's
//!   `default {`): the indentation of the item it belongs to;
//! - a clause (`reads`, `writes`, `requires`, `where`, `order by`, `limit`,
//!   `offset`, `disabled when`, `from`, `show`, `at`, `guard`, a task's `for`, `max`): one
//!   level deeper than its item; the `where` and `limit` of a
//!   task's `for` template two levels, clear of the task's body;
//! - anything else continues the item or clause above it and keeps its
//!   indentation relative to that line (so hand-made alignment survives), but
//!   at least one level deeper.
//!
//! Within a line, tokens are one space apart except where the grammar's
//! punctuation hugs its neighbour (`f(x)`, `a.b`, `T?`, `x: T`, `a, b`,
//! `-1`, `Book[1]`, `std::cart`); braces are padded (`{ a }`), and items
//! sharing a line without a comma are two spaces apart.
//!
//! A comment on a line of its own takes the indentation of the code line below
//! it (one level inside a closing bracket). A comment after code keeps its
//! column relative to the line's indentation, at least one space after the code.

use super::lex::{Kind, Token};
use crate::syntax::parser::LayoutMarks;

/// One indentation level, in columns.
const INDENT: usize = 2;

/// A line of the output: its tokens and what the source said about it.
struct Line {
    /// Token indices, first to last (a trailing comment included).
    first: usize,
    last: usize,
    /// The width of the source's indentation of this line.
    orig_indent: usize,
    /// A blank line (or several) preceded it in the source.
    blank_before: bool,
}

/// One open bracket, or the top level of the file.
struct Level {
    /// The opening bracket's token index (`None` at the top level).
    opener: Option<usize>,
    /// The indentation of the items inside.
    inner: usize,
    /// The line where the current item of this level started, as (source
    /// indentation, new indentation).
    item: Option<(usize, usize)>,
    /// The line where the current item or clause of this level started.
    lead: Option<(usize, usize)>,
}

/// Display width of a stretch of one line; a tab counts as one level.
fn width(s: &str) -> usize {
    s.chars().map(|c| if c == '\t' { INDENT } else { 1 }).sum()
}

/// What the layout reads from the tokens and marks.
struct Ctx<'a> {
    src: &'a str,
    toks: &'a [Token],
    marks: &'a LayoutMarks,
}

impl Ctx<'_> {
    fn text(&self, i: usize) -> &str {
        let t = self.toks[i];
        self.src.get(t.start..t.end).unwrap_or("")
    }
    fn is_punct(&self, i: usize, p: &str) -> bool {
        self.toks[i].kind == Kind::Punct && self.text(i) == p
    }
    fn is_opener(&self, i: usize) -> bool {
        ["(", "[", "{"].iter().any(|p| self.is_punct(i, p))
    }
    fn is_closer(&self, i: usize) -> bool {
        [")", "]", "}"].iter().any(|p| self.is_punct(i, p))
    }
    fn is_comment(&self, i: usize) -> bool {
        self.toks[i].kind == Kind::Comment
    }
    /// Whether token `i` starts an item of the innermost level, given the code
    /// token before it.
    fn is_item(&self, i: usize, prev: Option<usize>, top: &Level) -> bool {
        if self.marks.items.contains(&self.toks[i].start) {
            return true;
        }
        // A list element, argument or field right after `,` or the bracket.
        top.opener.is_some() && prev.is_some_and(|p| Some(p) == top.opener || self.is_punct(p, ","))
    }
    fn is_clause(&self, i: usize) -> bool {
        self.marks.clauses.contains_key(&self.toks[i].start)
    }
    /// How many levels deeper than its item clause `i` goes.
    fn clause_depth(&self, i: usize) -> usize {
        self.marks
            .clauses
            .get(&self.toks[i].start)
            .copied()
            .unwrap_or(1)
    }

    /// The spaces between tokens `a` and `b` on one line (`b` not a comment).
    fn gap(&self, a: usize, b: usize) -> &'static str {
        let (ta, tb) = (self.text(a), self.text(b));
        let (pa, pb) = (
            self.toks[a].kind == Kind::Punct,
            self.toks[b].kind == Kind::Punct,
        );
        if self.marks.spaced.contains(&self.toks[b].start)
            && !(pa && matches!(ta, "," | "(" | "[" | "{"))
        {
            // Two items sharing a line with no comma between them.
            return "  ";
        }
        match (pa.then_some(ta), pb.then_some(tb)) {
            (Some("["), Some("{")) | (Some("}"), Some("]")) => " ",
            (Some("(" | "["), _) | (_, Some(")" | "]")) => "",
            (Some("{"), Some("}")) => "",
            (Some("{"), _) | (_, Some("}")) => " ",
            (_, Some("," | ":" | "?" | "::")) | (Some("::" | "."), _) => "",
            (Some("," | ":"), _) => " ",
            // `$5 .x` must not become the amount `$5.` and a stray `x`.
            (_, Some(".")) if self.toks[a].kind == Kind::Money => " ",
            (_, Some(".")) => "",
            (Some("-"), _) if self.marks.negs.contains(&self.toks[a].start) => "",
            (_, Some("(")) if !self.marks.parens.contains(&self.toks[b].start) => "",
            (_, Some("[")) if self.marks.indexes.contains(&self.toks[b].start) => "",
            _ => " ",
        }
    }
}

/// Lays out `toks` (the tokens of `src`) canonically.
pub(super) fn layout(src: &str, toks: &[Token], marks: &LayoutMarks) -> String {
    let cx = Ctx { src, toks, marks };
    let lines = split_lines(src, toks);
    let indents = indentation(&cx, &lines);
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    for (n, line) in lines.iter().enumerate() {
        let prev_opens = n > 0 && {
            let prev = &lines[n - 1];
            let last_code = (prev.first..=prev.last).rev().find(|&i| !cx.is_comment(i));
            last_code.is_some_and(|i| cx.is_opener(i))
        };
        if line.blank_before && n > 0 && !prev_opens && !cx.is_closer(line.first) {
            out.push('\n');
        }
        let indent = indents[n];
        let line_start = out.len();
        out.extend(std::iter::repeat_n(' ', indent));
        for i in line.first..=line.last {
            let text = cx.text(i);
            if i > line.first {
                if cx.is_comment(i) {
                    out.push_str(&comment_gap(&cx, i, line, indent, &out[line_start..]));
                } else {
                    out.push_str(cx.gap(i - 1, i));
                }
            }
            if cx.is_comment(i) {
                out.push_str(text.trim_end());
            } else {
                out.push_str(text);
            }
        }
        out.push('\n');
    }
    out
}

/// The spaces before trailing comment `i`: it keeps its source column,
/// shifted with its line's indentation, at least one space after the code.
fn comment_gap(cx: &Ctx<'_>, i: usize, line: &Line, indent: usize, so_far: &str) -> String {
    let start = cx.toks[i].start;
    let line_start = cx.src[..start].rfind('\n').map_or(0, |p| p + 1);
    let orig_col = width(&cx.src[line_start..start]);
    let wanted = (orig_col + indent).saturating_sub(line.orig_indent);
    let now = width(so_far.rsplit('\n').next().unwrap_or(so_far));
    " ".repeat(wanted.max(now + 1) - now)
}

/// Groups tokens into lines: a token starts a line when a line break precedes it.
fn split_lines(src: &str, toks: &[Token]) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut prev_end = 0;
    for (i, t) in toks.iter().enumerate() {
        let gap = src.get(prev_end..t.start).unwrap_or("");
        let breaks = gap.matches('\n').count();
        prev_end = t.end;
        match lines.last_mut() {
            Some(line) if breaks == 0 => line.last = i,
            _ => {
                let indent = gap.rsplit('\n').next().unwrap_or(gap);
                lines.push(Line {
                    first: i,
                    last: i,
                    orig_indent: width(&indent.replace('\r', "")),
                    blank_before: breaks >= 2,
                })
            }
        }
    }
    lines
}

/// The new indentation of every line (see the module's rules).
fn indentation(cx: &Ctx<'_>, lines: &[Line]) -> Vec<usize> {
    let mut levels = vec![Level {
        opener: None,
        inner: 0,
        item: None,
        lead: None,
    }];
    let mut out = vec![0; lines.len()];
    // Comment-only lines wait for the code line below them.
    let mut waiting: Vec<usize> = Vec::new();
    let mut prev: Option<usize> = None;
    for (n, line) in lines.iter().enumerate() {
        let first = line.first;
        if cx.is_comment(first) {
            waiting.push(n);
            continue;
        }
        let Some(top) = levels.last() else { break };
        let indent = if cx.is_closer(first) && top.opener.is_some() {
            top.inner.saturating_sub(INDENT)
        } else if cx.is_item(first, prev, top) {
            top.inner
        } else if cx.is_punct(first, "{") || cx.marks.bodies.contains(&cx.toks[first].start) {
            top.item.map_or(top.inner, |(_, new)| new)
        } else if cx.is_clause(first) {
            top.item.map_or(top.inner, |(_, new)| new) + INDENT * cx.clause_depth(first)
        } else {
            match top.lead.or(top.item) {
                Some((orig, new)) => new + line.orig_indent.saturating_sub(orig).max(INDENT),
                None => top.inner,
            }
        };
        let comment_indent = if cx.is_closer(first) {
            top.inner
        } else {
            indent
        };
        for w in waiting.drain(..) {
            out[w] = comment_indent;
        }
        out[n] = indent;
        let here = (line.orig_indent, indent);
        for i in line.first..=line.last {
            if cx.is_comment(i) {
                continue;
            }
            if cx.is_closer(i) && levels.len() > 1 {
                levels.pop();
            }
            if let Some(top) = levels.last_mut() {
                if cx.is_item(i, prev, top) {
                    top.item = Some(here);
                    top.lead = Some(here);
                } else if cx.is_clause(i) {
                    top.lead = Some(here);
                }
            }
            if cx.is_opener(i) {
                // A body's items sit one level inside the item that owns the
                // `{`, even when a continuation line holds it; a list's or an
                // argument's one level inside the line that opens it.
                let base = match levels.last() {
                    Some(top) if cx.is_punct(i, "{") => top.item.map_or(indent, |(_, new)| new),
                    _ => indent,
                };
                levels.push(Level {
                    opener: Some(i),
                    inner: base + INDENT,
                    item: None,
                    lead: None,
                });
            }
            prev = Some(i);
        }
    }
    let rest = levels.last().map_or(0, |l| l.inner);
    for w in waiting {
        out[w] = rest;
    }
    out
}
