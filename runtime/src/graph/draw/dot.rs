//! The site map as Graphviz DOT text (see [`super`] for what is drawn).

use super::{Map, Mark, Style};
use std::fmt::Write;

/// A DOT string literal's body: quotes and backslashes escaped, line breaks as `\n`.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The map as a `digraph`; node `pN` is the spec's page N.
pub fn dot(map: &Map<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quoted(map.title));
    out.push_str("  node [shape=box, fontname=\"Helvetica\"];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for (i, region) in map.regions.iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_dead_end_{i} {{");
        out.push_str(
            "    label=\"dead-end region\"; style=filled; color=\"#c0392b\"; fillcolor=\"#fdecea\";\n",
        );
        for p in region {
            let _ = writeln!(out, "    p{p};");
        }
        out.push_str("  }\n");
    }
    for (i, page) in map.pages.iter().enumerate() {
        let label = format!("{}\n{}", page.name, page.route);
        let style = match map.marks.get(i) {
            Some(Mark::DeadEnd) => ", style=filled, fillcolor=\"#f5b7b1\"",
            Some(Mark::Unreachable) => ", style=dashed, color=\"#888888\"",
            _ => "",
        };
        let _ = writeln!(out, "  p{i} [label={}{style}];", quoted(&label));
    }
    for a in &map.arrows {
        let style = match a.style {
            Style::Nav => "solid",
            Style::Marker => "dashed",
            Style::Guard => "dotted",
        };
        let label = if a.label.is_empty() {
            String::new()
        } else {
            format!(", label={}", quoted(&a.label))
        };
        let _ = writeln!(out, "  p{} -> p{} [style={style}{label}];", a.from, a.to);
    }
    out.push_str("}\n");
    out
}
