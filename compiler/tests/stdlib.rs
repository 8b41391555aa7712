//! The standard library: every module checks on its own without a single
//! diagnostic (as a module, with its table parameters), and its sample site in `stdlib/sites/` binds it,
//! checks without errors and proves every task instance feasible.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use std::path::Path;
use wsite_runtime::prove::Verdict;
use wsitec::{compile, compile_with, stdlib, Options, Source};

fn no_files(_: &str, path: &str) -> Result<Source, String> {
    Err(format!("no file `{path}` here"))
}

#[test]
fn every_module_checks_on_its_own() {
    for (name, text) in stdlib::MODULES {
        let c = compile(
            vec![Source {
                name: format!("std::{name}"),
                text: text.to_string(),
            }],
            &mut no_files,
        );
        // Clean, warnings included: authors copy these.
        assert!(
            c.diagnostics.is_empty(),
            "std::{name}: {:#?}",
            c.diagnostics
        );
        assert!(c.files[0].module.is_some(), "std::{name} is a module");
    }
}

#[test]
fn every_module_is_proven_on_its_sample_site() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../stdlib/sites");
    let mut proven = 0;
    for (name, _) in stdlib::MODULES {
        let path = dir.join(format!("{name}_shop.wsite"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("std::{name} needs a sample site at {path:?}: {e}"));
        let options = Options {
            prove: Some(Default::default()),
            only_task: None,
        };
        let c = compile_with(
            vec![Source {
                name: path.display().to_string(),
                text,
            }],
            &mut no_files,
            options,
        );
        let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert!(errors.is_empty(), "std::{name}: {errors:#?}");
        assert!(!c.proofs.is_empty(), "std::{name}: no task was proven");
        for p in &c.proofs {
            assert_eq!(p.verdict, Verdict::Feasible, "std::{name} {}", p.instance);
            proven += 1;
        }
    }
    assert!(proven > 0);
}
