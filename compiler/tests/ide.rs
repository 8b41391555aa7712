//! The editor features over every example and standard-library site: at
//! every position they answer without a panic, and go to definition and
//! find references agree with each other and with the text.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsitec::ide::index::Key;
use wsitec::ide::Analysis;
use wsitec::syntax::ast::FileId;

fn sites() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["examples", "stdlib/sites"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|x| x == "wsite") {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    assert!(files.len() >= 14, "{files:?}");
    files
}

fn analyse(text: &str) -> Analysis {
    Analysis::new(wsitec::compile_str("site.wsite", text))
}

#[test]
fn every_name_goes_to_a_declaration_of_the_same_name() {
    for path in sites() {
        let text = std::fs::read_to_string(&path).unwrap();
        let a = analyse(&text);
        let mut checked = 0;
        for occ in a
            .index
            .occurrences
            .iter()
            .filter(|o| o.span.file == FileId(0))
        {
            if matches!(occ.key, Key::Site) {
                continue;
            }
            let used = &text[occ.span.range()];
            let offset = occ.span.start as usize;
            let Some(def) = a.definition(FileId(0), offset) else {
                // Declared in an embedded module (`use std::…`).
                continue;
            };
            if def.file != FileId(0) {
                continue;
            }
            assert_eq!(
                &text[def.range()],
                used,
                "{}: `{used}` at byte {offset} goes to {def:?}",
                path.display()
            );
            let refs = a.references(FileId(0), offset, true);
            assert!(
                refs.contains(&occ.span),
                "{}: {occ:?} not among its references",
                path.display()
            );
            assert!(
                refs.contains(&def),
                "{}: declaration of {occ:?} not among references",
                path.display()
            );
            checked += 1;
        }
        assert!(checked > 5, "{}: only {checked} names", path.display());
    }
}

#[test]
fn every_position_of_every_site_gets_an_answer_without_a_panic() {
    for path in sites() {
        let text = std::fs::read_to_string(&path).unwrap();
        // The whole file, and the file cut in half (as while typing).
        for text in [text.as_str(), &text[..text.len() / 2]] {
            let a = analyse(text);
            let _ = a.document_symbols(FileId(0));
            for offset in (0..=text.len() + 2).step_by(5) {
                let _ = a.hover(FileId(0), offset);
                let _ = a.definition(FileId(0), offset);
                let _ = a.references(FileId(0), offset, false);
                let _ = a.completions(FileId(0), text, offset);
                let _ = a.code_actions(FileId(0), offset, offset + 10);
            }
        }
    }
}
