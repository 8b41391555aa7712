//! Between `wsitec::ide`'s answers (byte spans, our own types) and the
//! protocol's JSON (UTF-16 positions, URIs). Responses are built as JSON
//! values; requests are parsed with lsp-types.

use lsp_types as lsp;
use serde_json::{json, Value};
use wsitec::diagnostics::Severity;
use wsitec::ide::completion::CompletionKind;
use wsitec::ide::lines::{LineIndex, Position};
use wsitec::ide::symbols::{DocumentSymbol, SymbolKind};
use wsitec::ide::Analysis;
use wsitec::syntax::ast::{FileId, Span};

pub fn position(p: lsp::Position) -> Position {
    Position {
        line: p.line,
        character: p.character,
    }
}

fn range_json(a: &Analysis, span: Span) -> Value {
    let r = a
        .lines(span.file)
        .range(span.start as usize, span.end as usize);
    json!({
        "start": { "line": r.start.line, "character": r.start.character },
        "end": { "line": r.end.line, "character": r.end.character },
    })
}

/// Where `span` is, as a protocol location: the root file is `root`; another
/// file when it is a file on disk; inside a standard-library module, the
/// root file's `use` of that module.
fn location(a: &Analysis, span: Span, root: &lsp::Uri) -> Option<Value> {
    let span = a.visible_span(FileId(0), span)?;
    let uri = if span.file == FileId(0) {
        root.as_str().to_string()
    } else {
        let name = &a.compilation.sources.get(span.file.0 as usize)?.name;
        super::location_uri(name)?.as_str().to_string()
    };
    Some(json!({ "uri": uri, "range": range_json(a, span) }))
}

pub fn diagnostics(a: &Analysis, uri: &lsp::Uri) -> Vec<Value> {
    a.compilation
        .diagnostics
        .iter()
        .filter(|d| d.span.file == FileId(0))
        .map(|d| {
            let severity = match d.severity() {
                Severity::Error => 1,
                Severity::Warning => 2,
                _ => 3,
            };
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            let related: Vec<Value> = d
                .related
                .iter()
                .filter_map(|l| {
                    Some(json!({ "location": location(a, l.span, uri)?, "message": l.message }))
                })
                .collect();
            json!({
                "range": range_json(a, d.span),
                "severity": severity,
                "code": d.code.as_str(),
                "source": "wsitec",
                "message": message,
                "relatedInformation": related,
            })
        })
        .collect()
}

pub fn hover(a: &Analysis, offset: usize) -> Value {
    match a.hover(FileId(0), offset) {
        Some(h) => json!({
            "contents": { "kind": "markdown", "value": h.contents },
            "range": range_json(a, h.span),
        }),
        None => Value::Null,
    }
}

pub fn definition(a: &Analysis, offset: usize, root: &lsp::Uri) -> Value {
    a.definition(FileId(0), offset)
        .and_then(|span| location(a, span, root))
        .unwrap_or(Value::Null)
}

pub fn references(a: &Analysis, offset: usize, with_decl: bool, root: &lsp::Uri) -> Value {
    let spans = a.references(FileId(0), offset, with_decl);
    Value::Array(
        spans
            .into_iter()
            .filter_map(|s| location(a, s, root))
            .collect(),
    )
}

pub fn completions(a: &Analysis, text: &str, offset: usize) -> Value {
    // The offset was computed on the analysed text; the current text may
    // differ, so complete against the current one at the same position.
    let items: Vec<Value> = a
        .completions(FileId(0), text, offset)
        .into_iter()
        .map(|c| {
            // The protocol's CompletionItemKind numbers.
            let kind = match c.kind {
                CompletionKind::Keyword => 14,
                CompletionKind::Page => 9,
                CompletionKind::Marker | CompletionKind::Builtin => 3,
                CompletionKind::Table => 7,
                CompletionKind::Field => 5,
                CompletionKind::Enum => 13,
                CompletionKind::Variant => 20,
                CompletionKind::Task => 23,
                CompletionKind::Session => 10,
                CompletionKind::Local => 6,
                CompletionKind::Other => 1,
            };
            json!({ "label": c.label, "kind": kind, "detail": c.detail })
        })
        .collect();
    json!({ "isIncomplete": false, "items": items })
}

fn symbol_json(a: &Analysis, s: &DocumentSymbol) -> Value {
    // The protocol's SymbolKind numbers.
    let kind = match s.kind {
        SymbolKind::Site => 4,
        SymbolKind::Module => 2,
        SymbolKind::Page => 3,
        SymbolKind::Marker => 12,
        SymbolKind::Table => 23,
        SymbolKind::Field => 8,
        SymbolKind::Enum => 10,
        SymbolKind::Variant => 22,
        SymbolKind::Task => 24,
        SymbolKind::Invariant => 14,
        SymbolKind::Session => 19,
        SymbolKind::Seed => 18,
        SymbolKind::Element => 7,
        SymbolKind::Variable => 13,
    };
    json!({
        "name": s.name,
        "detail": s.detail,
        "kind": kind,
        "range": range_json(a, s.span),
        "selectionRange": range_json(a, s.name_span),
        "children": s.children.iter().map(|c| symbol_json(a, c)).collect::<Vec<_>>(),
    })
}

pub fn symbols(a: &Analysis) -> Value {
    Value::Array(
        a.document_symbols(FileId(0))
            .iter()
            .map(|s| symbol_json(a, s))
            .collect(),
    )
}

pub fn code_actions(a: &Analysis, uri: &lsp::Uri, range: lsp::Range) -> Value {
    let lines = a.lines(FileId(0));
    let start = lines.offset(position(range.start));
    let end = lines.offset(position(range.end));
    let actions: Vec<Value> = a
        .code_actions(FileId(0), start, end)
        .into_iter()
        .map(|action| {
            let edits: Vec<Value> = action
                .edits
                .iter()
                .filter(|e| e.file == FileId(0))
                .map(|e| {
                    let span = Span::new(e.file, e.start, e.end);
                    json!({ "range": range_json(a, span), "newText": e.text })
                })
                .collect();
            let d = &a.compilation.diagnostics[action.diagnostic];
            json!({
                "title": action.title,
                "kind": "quickfix",
                "isPreferred": true,
                "diagnostics": [{
                    "range": range_json(a, d.span),
                    "code": d.code.as_str(),
                    "source": "wsitec",
                    "message": d.message,
                }],
                "edit": { "changes": { uri.as_str(): edits } },
            })
        })
        .collect();
    Value::Array(actions)
}

/// One edit replacing the whole text with its formatted form (none when it
/// is already formatted or does not parse).
pub fn formatting(text: &str) -> Value {
    match wsitec::format::format(text) {
        Ok(formatted) if formatted != text => {
            let lines = LineIndex::new(text);
            let end = lines.position(text.len());
            json!([{
                "range": {
                    "start": { "line": 0, "character": 0 },
                    "end": { "line": end.line, "character": end.character },
                },
                "newText": formatted,
            }])
        }
        _ => json!([]),
    }
}

/// Applies one `didChange` entry: a range edit, or the whole text.
pub fn apply_change(text: &mut String, change: lsp::TextDocumentContentChangeEvent) {
    match change.range {
        Some(r) => {
            let lines = LineIndex::new(text);
            let start = lines.offset(position(r.start));
            let end = lines.offset(position(r.end)).max(start);
            text.replace_range(start..end, &change.text);
        }
        None => *text = change.text,
    }
}

/// The path of a `file:` URI, percent-decoded.
pub fn uri_path(uri: &lsp::Uri) -> Option<String> {
    let scheme = uri.scheme()?.as_str();
    if !scheme.eq_ignore_ascii_case("file") {
        return None;
    }
    let path = uri.path().as_estr().decode().into_string().ok()?;
    Some(path.into_owned())
}

/// The `file:` URI of a path (absolute, percent-encoded).
pub fn file_uri(path: &std::path::Path) -> Option<lsp::Uri> {
    let absolute = std::fs::canonicalize(path).ok()?;
    let mut encoded = String::from("file://");
    for b in absolute.to_str()?.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                encoded.push(b as char);
            }
            other => encoded.push_str(&format!("%{other:02X}")),
        }
    }
    encoded.parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_uris_decode_to_paths_and_others_have_none() {
        let uri = |s: &str| s.parse::<super::lsp::Uri>().expect("uri");
        assert_eq!(
            super::uri_path(&uri("file:///tmp/a%20b.wsite")).as_deref(),
            Some("/tmp/a b.wsite")
        );
        assert_eq!(super::uri_path(&uri("untitled:Untitled-1")), None);
    }
}
