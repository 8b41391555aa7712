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
        let path = dir.join(format!("{name}.wsite"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("std::{name} needs a sample site at {path:?}: {e}"));
        let options = Options {
            prove: Some(Default::default()),
            only_task: None,
            ..Default::default()
        };
        let c = compile_with(
            vec![Source {
                name: path.display().to_string(),
                text,
            }],
            &mut no_files,
            options,
        );
        // No diagnostic at all: a warning such as F404 (a goal that holds
        // from the start) means a task that tests nothing.
        assert!(
            c.diagnostics.is_empty(),
            "std::{name}: {:#?}",
            c.diagnostics
        );
        assert!(!c.proofs.is_empty(), "std::{name}: no task was proven");
        for p in &c.proofs {
            assert_eq!(p.verdict, Verdict::Feasible, "std::{name} {}", p.instance);
            proven += 1;
        }
    }
    assert!(proven > 0);
}

/// `std::auth` refuses a wrong password with its message and signs in with
/// the right one, played through the environment with texts an agent types.
#[test]
fn auth_refuses_a_wrong_password_and_accepts_the_right_one() {
    use wsite_runtime::env::{instances, Action, ActionKind, Env, RewardConfig};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../stdlib/sites/auth.wsite");
    let c = compile(
        vec![Source {
            name: "auth.wsite".into(),
            text: std::fs::read_to_string(path).unwrap(),
        }],
        &mut no_files,
    );
    let program = c.program.expect("the sample site compiles");
    let inst = instances(&program)
        .into_iter()
        .find(|i| i.name == "sign_in_as[u=1]")
        .expect("an instance for ana");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    let index = |env: &Env, key: &str| {
        env.observation()
            .elements
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.index)
            .unwrap_or_else(|| panic!("no {key}"))
    };
    let act = |env: &mut Env, kind, key: &str, text: Option<&str>| {
        let element = Some(index(env, key));
        let action = Action {
            kind,
            element,
            text: text.map(str::to_string),
        };
        env.step(&action).unwrap()
    };
    act(&mut env, ActionKind::Type, "#username", Some("ana"));
    act(&mut env, ActionKind::Type, "#password", Some("river stone"));
    let refused = act(&mut env, ActionKind::Click, "#sign_in", None);
    assert_eq!(refused.epsilon, 1, "a wrong password is refused");
    assert_eq!(env.observation().alert.as_deref(), Some("Wrong password"));
    act(&mut env, ActionKind::Type, "#password", Some("tulip-42"));
    let signed_in = act(&mut env, ActionKind::Click, "#sign_in", None);
    assert!(signed_in.success && signed_in.done, "{signed_in:?}");
}
