//! The formatter: one canonical layout for `.wsite` source, as a pure function
//! from text to text (`wsitec fmt` and the language server call it).
//!
//! It only ever changes the whitespace between tokens, never a token: [`lex`]
//! cuts the text into tokens as the grammar does, the parser supplies a few
//! structural marks (`syntax::parser::layout_marks`), and [`layout`] decides
//! the line breaks, indentation and spaces (its module documentation lists the
//! rules). Comments, `///` doc comments included, stay where they are relative
//! to the code. A file with syntax errors is refused rather than guessed at,
//! and as a safety net the result is parsed again and must give the same AST
//! (spans aside) as the input, or the input is refused unchanged. The result
//! is stable: formatting it again changes nothing.

mod layout;
mod lex;

use crate::diagnostics::{Category, Diagnostic, Diagnostics};
use crate::syntax::ast::{FileId, SourceFile};
use crate::syntax::parser::{layout_marks, parse_file};
use std::fmt;

/// Why a text could not be formatted. The text should be left as it is.
#[derive(Clone, Debug)]
pub enum FormatError {
    /// The text has syntax errors (E001–E003), listed here with spans into it.
    /// Formatting a broken file could change what it means once fixed.
    Syntax(Vec<Diagnostic>),
    /// The layout would have changed the program (a formatter bug, never
    /// expected): the text is refused rather than altered.
    Unstable,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Syntax(diags) => {
                let first = diags.first().map_or("", |d| d.message.as_str());
                match diags.len() {
                    1 => write!(f, "the file has a syntax error: {first}"),
                    n => write!(f, "the file has {n} syntax errors, the first: {first}"),
                }
            }
            FormatError::Unstable => write!(
                f,
                "the formatter could not lay this file out without changing it (a bug in wsitec)"
            ),
        }
    }
}

impl std::error::Error for FormatError {}

/// Formats one `.wsite` source text in the canonical layout.
///
/// Returns the new text (which may equal the input), or an error when the
/// text does not parse cleanly. Never panics, on any input.
pub fn format(source: &str) -> Result<String, FormatError> {
    let before = parse(source)?;
    let marks = layout_marks(source).ok_or(FormatError::Unstable)?;
    let tokens = lex::tokens(source);
    let out = layout::layout(source, &tokens, &marks);
    if out == source {
        return Ok(out);
    }
    let after = parse(&out).map_err(|_| FormatError::Unstable)?;
    match (shape(&before), shape(&after)) {
        (Some(a), Some(b)) if a == b => Ok(out),
        _ => Err(FormatError::Unstable),
    }
}

/// Parses `text` on its own; syntax errors make it unformattable.
fn parse(text: &str) -> Result<SourceFile, FormatError> {
    let mut diags = Diagnostics::default();
    let mut next_expr = 0;
    let file = parse_file(FileId(0), text, &mut next_expr, &mut diags);
    let syntax: Vec<Diagnostic> = diags
        .into_sorted()
        .into_iter()
        .filter(|d| d.code.category() == Category::Syntax)
        .collect();
    if syntax.is_empty() {
        Ok(file)
    } else {
        Err(FormatError::Syntax(syntax))
    }
}

/// A file's AST with what layout may change taken out: every span, and
/// trailing blanks on doc comment lines.
fn shape(file: &SourceFile) -> Option<serde_json::Value> {
    let mut value = serde_json::to_value(file).ok()?;
    strip_layout(&mut value);
    Some(value)
}

fn strip_layout(value: &mut serde_json::Value) {
    use serde_json::Value;
    // An explicit stack: expressions may nest a few hundred levels deep.
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        let is_span = v.as_object().is_some_and(|map| {
            map.len() == 3
                && ["file", "start", "end"]
                    .iter()
                    .all(|k| map.contains_key(*k))
        });
        if is_span {
            *v = Value::Null;
            continue;
        }
        match v {
            Value::Object(map) => {
                if let Some(Value::String(doc)) = map.get_mut("doc") {
                    *doc = doc
                        .lines()
                        .map(str::trim_end)
                        .collect::<Vec<_>>()
                        .join("\n");
                }
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
