//! What a repair loop relies on: the fixes diagnostics carry apply cleanly,
//! and the JSON report lists the root cause before what follows from it.
//!
//! `*_foreign_*` fixtures hold syntax borrowed from other languages; applying
//! every `replace` fix (again, until none is left) must leave a file whose
//! only errors are the ones that had no fix. `E001_no_cascade_*` fixtures must
//! list an E001 first, and every other defect must depend on a syntax error.

#![allow(clippy::expect_used, clippy::panic)]

use wsitec::diagnostics::{json, Category, Diagnostic, Fix};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(wsite_tests::ui_dir().join(name)).expect("fixture")
}

/// The errors of `text`, as (code, message).
fn errors(text: &str) -> Vec<(String, String)> {
    wsitec::compile_str("fixed.wsite", text)
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.code.as_str().to_string(), d.message.clone()))
        .collect()
}

/// The `replace` fixes of `diags`, last first, without overlaps.
fn replacements(diags: &[Diagnostic]) -> Vec<(usize, usize, String)> {
    let mut edits: Vec<(usize, usize, String)> = diags
        .iter()
        .filter_map(|d| match &d.fix {
            Some(Fix::Replace { start, end, text }) => {
                Some((*start as usize, *end as usize, text.clone()))
            }
            _ => None,
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut kept: Vec<(usize, usize, String)> = Vec::new();
    for e in edits {
        if kept.last().is_none_or(|k| e.1 <= k.0) {
            kept.push(e);
        }
    }
    kept
}

#[test]
fn foreign_syntax_fixes_yield_files_that_parse() {
    let foreign: Vec<_> = wsite_tests::fixtures()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("_foreign_"))
        .collect();
    assert!(foreign.len() >= 6, "the foreign fixtures went missing");
    for path in foreign {
        let original = std::fs::read_to_string(&path).expect("fixture");
        let first = wsitec::compile_str("original.wsite", &original);
        let unfixable: Vec<(String, String)> = first
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && !matches!(d.fix, Some(Fix::Replace { .. })))
            .map(|d| (d.code.as_str().to_string(), d.message.clone()))
            .collect();
        let mut text = original.clone();
        let mut applied = 0;
        for _ in 0..10 {
            let edits = replacements(&wsitec::compile_str("fixed.wsite", &text).diagnostics);
            if edits.is_empty() {
                break;
            }
            for (start, end, new) in edits {
                text.replace_range(start..end, &new);
                applied += 1;
            }
        }
        let has_fixes = first
            .diagnostics
            .iter()
            .any(|d| matches!(d.fix, Some(Fix::Replace { .. })));
        assert_eq!(has_fixes, applied > 0, "{}", path.display());
        assert_eq!(
            errors(&text),
            unfixable,
            "{}: after {applied} fixes:\n{text}",
            path.display()
        );
    }
}

#[test]
fn the_fix_for_each_foreign_spelling_is_this_languages_spelling() {
    let fixed = |name: &str| -> Vec<String> {
        let text = fixture(name);
        replacements(&wsitec::compile_str(name, &text).diagnostics)
            .into_iter()
            .map(|(start, end, new)| format!("{} -> {new}", &text[start..end]))
            .collect()
    };
    let logic = fixed("E001_foreign_logic_operators.wsite");
    for want in ["&& -> and", "|| -> or", "! -> not "] {
        assert!(logic.iter().any(|f| f == want), "{want}: {logic:?}");
    }
    let names = fixed("E101_foreign_constants.wsite");
    for want in [
        "null -> none",
        "nil -> none",
        "True -> true",
        "False -> false",
    ] {
        assert!(names.iter().any(|f| f == want), "{want}: {names:?}");
    }
    let sets = fixed("E001_foreign_assignments.wsite");
    assert!(
        sets.iter()
            .any(|f| f == "p.stock -= 1 -> set p.stock = p.stock - 1"),
        "{sets:?}"
    );
}

#[test]
fn a_broken_declaration_is_repaired_before_what_it_caused() {
    let name = "E001_no_cascade_from_broken_headers.wsite";
    let text = fixture(name);
    let c = wsitec::compile_str(name, &text);
    assert!(
        !c.diagnostics.iter().any(|d| d.code.as_str() == "E101"),
        "a header that parsed declares its name: {:?}",
        c.diagnostics
    );
    let report = json::report(name, &c.sources, &c.files, &c.diagnostics);
    let defects = report["defects"].as_array().expect("defects");
    assert_eq!(defects[0]["code"], "E001", "{report:#}");
    let syntax_ids: Vec<&serde_json::Value> = defects
        .iter()
        .filter(|d| d["category"] == Category::Syntax.as_str())
        .map(|d| &d["id"])
        .collect();
    for d in defects
        .iter()
        .filter(|d| d["category"] != Category::Syntax.as_str())
    {
        let deps = d["depends_on"].as_array().expect("depends_on");
        assert!(
            deps.iter().any(|id| syntax_ids.contains(&id)),
            "{} should depend on a syntax error: {report:#}",
            d["code"]
        );
    }
}

#[test]
fn an_unknown_name_depends_on_the_skipped_declaration_of_it() {
    let text = "site S {\n  title \"S\"\n  domain other\n  start Home\n}\n\ntable Maker max {\n  name: Text\n}\n\ntable Product {\n  maker: Maker\n}\n\npage Home {\n  heading \"Hi\"\n}\n";
    let c = wsitec::compile_str("t.wsite", text);
    let report = json::report("t.wsite", &c.sources, &c.files, &c.diagnostics);
    let defects = report["defects"].as_array().expect("defects");
    let syntax = defects
        .iter()
        .find(|d| d["code"] == "E001")
        .expect("the broken table header");
    let unknown: Vec<&serde_json::Value> = defects
        .iter()
        .filter(|d| {
            d["code"] == "E101" && d["message"].as_str().is_some_and(|m| m.contains("`Maker`"))
        })
        .collect();
    assert!(!unknown.is_empty(), "{report:#}");
    for d in unknown {
        assert!(
            d["depends_on"]
                .as_array()
                .is_some_and(|deps| deps.contains(&syntax["id"])),
            "{report:#}"
        );
    }
}
