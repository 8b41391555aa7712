//! SARIF 2.1.0 output (`check --format sarif`), so code-scanning tools can show
//! wsite diagnostics next to the source: one run per program, one rule per code.

use super::json::line_col;
use super::{Code, Diagnostic, Severity};
use crate::span::Span;
use crate::Source;
use serde_json::{json, Value};

fn region(sources: &[Source], span: Span) -> Value {
    let text = sources
        .get(span.file.0 as usize)
        .map(|s| s.text.as_str())
        .unwrap_or("");
    let (start_line, start_column) = line_col(text, span.start as usize);
    let (end_line, end_column) = line_col(text, span.end as usize);
    json!({ "startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column })
}

fn location(sources: &[Source], span: Span, message: Option<&str>) -> Value {
    let uri = sources
        .get(span.file.0 as usize)
        .map(|s| s.name.as_str())
        .unwrap_or("");
    let mut loc = json!({
        "physicalLocation": { "artifactLocation": { "uri": uri }, "region": region(sources, span) }
    });
    if let Some(m) = message {
        loc["message"] = json!({ "text": m });
    }
    loc
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn result(sources: &[Source], d: &Diagnostic) -> Value {
    let text = match &d.help {
        Some(help) => format!("{}\nhelp: {help}", d.message),
        None => d.message.clone(),
    };
    json!({
        "ruleId": d.code.as_str(),
        "level": level(d.severity()),
        "message": { "text": text },
        "locations": [location(sources, d.span, None)],
        "relatedLocations": d.related.iter().map(|l| location(sources, l.span, Some(&l.message))).collect::<Vec<_>>(),
    })
}

/// The SARIF log for one program's diagnostics.
pub fn report(sources: &[Source], diags: &[Diagnostic]) -> Value {
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|c| {
            json!({
                "id": c.as_str(),
                "shortDescription": { "text": c.summary() },
                "properties": { "category": c.category().as_str() },
                "defaultConfiguration": { "level": level(c.severity()) },
            })
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": { "driver": { "name": "wsitec", "version": env!("CARGO_PKG_VERSION"), "rules": rules } },
            "results": diags.iter().map(|d| result(sources, d)).collect::<Vec<_>>(),
        }],
    })
}
