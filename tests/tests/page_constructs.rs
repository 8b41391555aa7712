//! The language 1.1 page constructs end to end on `tests/sites/account.wsite`:
//! a guarded page redirects (the step is not rejected, `visited` records the
//! page shown) until a marker signs in; `offset` pages a catalog, a negative
//! one redirected by a guard; page `let`s show a cart total and per-line
//! subtotals. The prover finds the witness through the redirect, pruned or
//! not, and the flat (JIT) engine agrees with the interpreter step by step on
//! scripted plays.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

use wsite_runtime::env::{self, ActionKind, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::{PageId, Program, Value};
use wsite_runtime::jit::{FlatEnv, JitSite};
use wsite_runtime::layout::{StateLayout, TextPool};
use wsite_runtime::prove::{self, Options, Verdict};

fn program() -> Program {
    let path = wsite_tests::repo_root().join("tests/sites/account.wsite");
    let text = std::fs::read_to_string(&path).unwrap();
    let compiled = wsitec::compile_str(&path.display().to_string(), &text);
    let report = wsitec::diagnostics::human::SourceDb::new(&compiled.sources)
        .render_plain(&compiled.diagnostics);
    assert!(compiled.diagnostics.is_empty(), "{report}");
    compiled.program.expect("the site lowers")
}

fn instance(program: &Program, name: &str) -> TaskInstance {
    env::instances(program)
        .into_iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no task `{name}`"))
}

fn page(program: &Program, name: &str) -> PageId {
    let at = program.pages.iter().position(|p| p.name == name).unwrap();
    PageId::try_from(at).unwrap()
}

/// The index of the click on the element with stable key `key`.
fn click(env: &Env<'_>, key: &str) -> usize {
    env.actions()
        .iter()
        .position(|a| {
            a.kind == ActionKind::Click
                && a.element
                    .and_then(|e| env.elements().get(e - 1))
                    .is_some_and(|el| el.key == key)
        })
        .unwrap_or_else(|| panic!("no click on `{key}` among {:?}", env.elements()))
}

/// Clicks `key` and says the step was taken, not rejected.
fn take(env: &mut Env<'_>, key: &str) {
    let action = env.actions()[click(env, key)].clone();
    let r = env.step(&action).unwrap();
    assert_eq!(r.epsilon, 0, "clicking `{key}` was rejected");
}

fn texts(env: &Env<'_>) -> Vec<String> {
    env.elements()
        .iter()
        .filter(|e| e.role == "text")
        .map(|e| e.text.clone())
        .collect()
}

#[test]
fn a_guarded_page_redirects_until_the_guard_holds() {
    let program = program();
    let (account, sign_in) = (page(&program, "Account"), page(&program, "SignIn"));
    let inst = instance(&program, "reach_account");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    take(&mut env, "#to_account");
    let nav = env.navigation();
    assert_eq!(nav.page, sign_in, "the link to Account lands on SignIn");
    assert!(nav.visited.contains(&(sign_in, vec![])));
    assert!(
        !nav.visited.contains(&(account, vec![])),
        "Account was never shown"
    );
    assert_eq!(env.observation().url, "/sign_in");
    // Signing in goes to Account, whose guard now holds.
    take(&mut env, "#sign_in");
    assert_eq!(env.navigation().page, account);
    assert!(env.done(), "`page is Account` is the goal");
    assert_eq!(texts(&env), ["Signed in as ada"]);
}

#[test]
fn offset_pages_a_loop_and_a_guard_redirects_a_negative_start() {
    let program = program();
    let inst = instance(&program, "third_item");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    take(&mut env, "#to_catalog");
    assert_eq!(texts(&env), ["Anorak ($120.00)", "Boots ($80.00)"]);
    take(&mut env, "#next");
    assert_eq!(env.observation().url, "/catalog/2");
    assert_eq!(texts(&env), ["Cap ($15.00)", "Daypack ($45.00)"]);
    take(&mut env, "#next");
    assert_eq!(texts(&env), ["Gloves ($20.00)"]);
    assert!(env.elements().iter().all(|e| e.key != "#next"));
    take(&mut env, "#back");
    take(&mut env, "#back");
    take(&mut env, "#back");
    // Catalog(-2) fails its guard and lands on Catalog(0).
    let catalog = page(&program, "Catalog");
    assert_eq!(env.navigation().args, vec![Value::Int(0)]);
    assert!(!env
        .navigation()
        .visited
        .contains(&(catalog, vec![Value::Int(-2)])));
    assert_eq!(env.observation().url, "/catalog/0");
}

#[test]
fn page_lets_show_a_total_and_subtotals() {
    let program = program();
    let inst = instance(&program, "more_caps");
    let mut env = Env::new(&program, &inst, RewardConfig::default()).unwrap();
    take(&mut env, "#to_cart");
    assert_eq!(
        texts(&env),
        [
            "1 x Boots: $80.00",
            "2 x Cap: $30.00",
            "Total: $110.00 for 2 lines",
            "Free shipping",
        ]
    );
    take(&mut env, "#add");
    assert!(texts(&env).contains(&"Total: $125.00 for 3 lines".to_string()));
}

#[test]
fn the_prover_finds_the_witness_through_the_redirect() {
    let program = program();
    let inst = instance(&program, "reach_account");
    for prune in [true, false] {
        let options = Options {
            prune,
            ..Options::default()
        };
        let proof = prove::prove_instance(&program, &inst, options).unwrap();
        assert_eq!(proof.verdict, Verdict::Feasible, "prune {prune}");
        let keys: Vec<_> = proof.witness.iter().map(|s| s.key.as_deref()).collect();
        assert_eq!(
            keys,
            [Some("#to_account"), Some("#sign_in")],
            "prune {prune}"
        );
        assert_eq!(prove::replay(&program, &inst, &proof.witness), Ok(true));
    }
}

#[test]
fn the_flat_engine_follows_guards_as_the_interpreter_does() {
    let program = program();
    let layout = StateLayout::for_program(&program).unwrap();
    let mut pool = TextPool::for_program(&program);
    let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
    let config = RewardConfig::default();
    let scripts: [(&str, &[&str]); 3] = [
        ("reach_account", &["#to_account", "#sign_in"]),
        (
            "third_item",
            &[
                "#to_account",
                "#home",
                "#to_catalog",
                "#next",
                "#back",
                "#back",
            ],
        ),
        ("more_caps", &["#to_cart", "#add"]),
    ];
    for (task, keys) in scripts {
        let inst = instance(&program, task);
        let mut env = Env::new(&program, &inst, config).unwrap();
        let mut flat = FlatEnv::new(&site, &inst, config, &mut pool)
            .unwrap_or_else(|e| panic!("{task}: not compiled: {e}"));
        for key in keys {
            let k = click(&env, key);
            let action = env.actions()[k].clone();
            let r1 = env.step(&action).unwrap();
            let r2 = flat.step(k, &mut pool).unwrap();
            assert_eq!((r1.epsilon, r1.done), (r2.epsilon, r2.done), "{task} {key}");
            let want = env.encode_state(&layout, &mut pool).unwrap();
            assert_eq!(flat.state(), &want[..], "{task} {key}: states differ");
            if env.done() {
                break;
            }
            let page = flat.structure();
            let texts: Vec<_> = page.elements.iter().map(|e| page.text_of(e)).collect();
            let want: Vec<_> = env.elements().iter().map(|e| e.text.as_str()).collect();
            assert_eq!(texts, want, "{task} {key}: pages differ");
        }
    }
}
