//! Browser equals simulator: headless Chromium plays the served site.
//!
//! Every witness of every example is played in a real browser — links and
//! buttons clicked, text typed, options picked, answers submitted, each
//! element found by its `data-wsite-key` — while an `Env` takes the same
//! actions. Afterwards the session's SQL rows, episode record (step, return,
//! success, page, session variables) and the page's keyed elements must equal
//! the simulator's exactly. A random walk on every example compares the same
//! after every single step. Each action is one request: a typed value is sent
//! by submitting the page form, options and boxes send it themselves.
//!
//! Chromium comes from `scripts/setup-chromium.sh` (the test command runs it
//! and sets `WSITE_REQUIRE_BROWSER=1`). Without a browser the tests say so and
//! pass, unless a browser is required.

use super::common::{same_as_simulator, Served};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use wsite_runtime::env::{instances, Action, ActionKind, Env, RewardConfig, TaskInstance};
use wsite_runtime::ir::Program;
use wsite_runtime::prove::{self, Options, Verdict};
use wsite_tests::webdriver::{key_selector, Driver};
use wsite_tests::Lcg;

const PAGE_LOAD: Duration = Duration::from_secs(30);

/// A browser, or `None` (with a message) where none is installed and none
/// is required.
fn browser() -> Option<Driver> {
    let find = |var: &str, default: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(default))
    };
    let driver = find("WSITE_CHROMEDRIVER", "/usr/bin/chromedriver");
    let chromium = find("WSITE_CHROMIUM", "/usr/bin/chromium");
    let required = std::env::var_os("WSITE_REQUIRE_BROWSER").is_some();
    if !(driver.exists() && chromium.exists()) {
        assert!(
            !required,
            "WSITE_REQUIRE_BROWSER is set but {} or {} is missing",
            driver.display(),
            chromium.display()
        );
        eprintln!(
            "SKIPPED: no Chromium ({} / {}); run scripts/setup-chromium.sh to install it",
            driver.display(),
            chromium.display()
        );
        return None;
    }
    Some(Driver::start(&driver, &chromium).expect("Chromium starts"))
}

/// One example served, and a browser session on it.
struct Play<'a> {
    driver: &'a Driver,
    served: &'a Served,
    program: &'a Program,
    /// Browser steps taken, for the figures.
    steps: usize,
}

impl<'a> Play<'a> {
    fn new(driver: &'a Driver, served: &'a Served, program: &'a Program) -> Play<'a> {
        Play {
            driver,
            served,
            program,
            steps: 0,
        }
    }

    /// `POST /_wsite/reset` from the page (the browser's own cookie), then
    /// opens the start page.
    fn reset(&self, task: &str) {
        self.driver
            .goto(&format!("{}/_wsite/state", self.served.base))
            .expect("the state endpoint opens");
        let script = "return fetch('/_wsite/reset', {method: 'POST', \
             headers: {'content-type': 'application/json'}, \
             body: JSON.stringify({task: arguments[0]})}).then(r => r.json());";
        let reply = self
            .driver
            .execute(script, vec![json!(task)])
            .expect("reset answers");
        let url = reply["url"]
            .as_str()
            .unwrap_or_else(|| panic!("reset of {task}: {reply}"));
        self.driver
            .goto(&format!("{}{}", self.served.base, url))
            .expect("the start page opens");
    }

    fn session(&self) -> String {
        self.driver
            .cookies()
            .expect("cookies")
            .into_iter()
            .find(|c| c.name == wsite_serve::COOKIE)
            .map(|c| c.value)
            .expect("a session cookie")
    }

    /// Takes `action` (one the simulator offers in `env`) in the browser, as
    /// one request: a typed value is sent at once by submitting the page
    /// form (a person presses Enter); options and boxes send it themselves.
    fn act(&mut self, env: &Env<'_>, action: &Action) {
        self.steps += 1;
        let d = self.driver;
        if action.kind == ActionKind::Answer {
            let field = "form.answer input[name=answer]";
            d.clear(field).expect("the answer field");
            d.send_keys(field, action.text.as_deref().unwrap_or(""))
                .expect("typing the answer");
            d.click_and_wait_for_page("form.answer button", PAGE_LOAD)
                .expect("submitting the answer");
            return;
        }
        let obs = env.observation();
        let element = action
            .element
            .and_then(|i| obs.elements.get(i - 1))
            .expect("the action's element");
        let css = key_selector(&element.key);
        let text = action.text.as_deref().unwrap_or("");
        let done = match (action.kind, element.role) {
            (ActionKind::Click, _) => d.click_and_wait_for_page(&css, PAGE_LOAD),
            (ActionKind::Type, _) => d
                .clear(&css)
                .and_then(|_| d.send_keys(&css, text))
                .and_then(|_| {
                    d.wait_for_page_after(PAGE_LOAD, |d| {
                        d.execute(
                            "document.querySelector('form.page-form').requestSubmit();",
                            vec![],
                        )
                        .map(|_| ())
                    })
                }),
            (ActionKind::Select, _) => {
                let index = element
                    .options
                    .iter()
                    .position(|o| o == text)
                    .expect("the option is offered");
                d.wait_for_page_after(PAGE_LOAD, |d| d.select_option(&css, &index.to_string()))
            }
            (ActionKind::Answer, _) => unreachable!("answered above"),
        };
        done.unwrap_or_else(|e| panic!("{:?} on {}: {e}", action.kind, element.key));
    }

    /// The page's keyed elements must be the observation's, in order.
    fn same_page(&self, env: &Env<'_>) -> Result<(), String> {
        let script = "return Array.from(document.querySelectorAll('[data-wsite-key]'))\
             .map(e => e.getAttribute('data-wsite-key'));";
        let keys = self.driver.execute(script, vec![]).expect("keys read");
        let want: Vec<Json> = env
            .observation()
            .elements
            .iter()
            .map(|e| json!(e.key))
            .collect();
        if keys != Json::Array(want.clone()) {
            return Err(format!("page keys {keys}\nobservation keys {want:?}"));
        }
        let url = self.driver.current_url().expect("url");
        let path = url.strip_prefix(&self.served.base).unwrap_or(&url);
        let path = wsite_serve::decode_path(path).unwrap_or_default();
        if path != env.observation().url {
            return Err(format!(
                "browser at {path}, simulator at {}",
                env.observation().url
            ));
        }
        Ok(())
    }

    fn compare(&self, env: &Env<'_>, total: f64) -> Result<(), String> {
        same_as_simulator(&self.served.db, self.program, &self.session(), env, total)?;
        if env.done() {
            return Ok(()); // the final page may be any page; its keys still match below
        }
        self.same_page(env)
    }
}

fn witnessed(program: &Program) -> Vec<(TaskInstance, Vec<prove::WitnessStep>)> {
    instances(program)
        .into_iter()
        .filter_map(|i| {
            let proof = prove::prove_instance(program, &i, Options::default()).ok()?;
            (proof.verdict == Verdict::Feasible).then_some((i, proof.witness))
        })
        .collect()
}

fn example(path: &Path) -> Program {
    let text = std::fs::read_to_string(path).expect("readable example");
    wsitec::compile_str(&path.display().to_string(), &text)
        .program
        .expect("the example compiles")
}

#[test]
fn every_witness_of_every_example_plays_the_same_in_chromium() {
    let Some(driver) = browser() else { return };
    let mut compared = 0;
    let mut steps = 0;
    for path in wsite_tests::examples() {
        let program = example(&path);
        let served = Served::start(&path, &[]);
        let mut play = Play::new(&driver, &served, &program);
        for (instance, witness) in witnessed(&program) {
            play.reset(&instance.name);
            let mut env = Env::new(&program, &instance, RewardConfig::default()).expect("env");
            let mut total = 0.0;
            for step in &witness {
                let action = prove::resolve_step(&env, step).expect("the witness resolves");
                play.act(&env, &action);
                total += env.step(&action).expect("the witness steps").reward;
            }
            assert!(
                env.state().success,
                "{}: the witness succeeds",
                instance.name
            );
            if let Err(why) = play.compare(&env, total) {
                panic!("{} / {}: {why}", path.display(), instance.name);
            }
            compared += 1;
        }
        steps += play.steps;
    }
    eprintln!("browser witnesses: {compared} task instances, {steps} browser steps compared");
    assert!(compared > 0);
}

#[test]
fn random_walks_match_the_simulator_after_every_step() {
    let Some(driver) = browser() else { return };
    let walk = std::env::var("WSITE_BROWSER_WALK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25usize);
    let mut steps = 0;
    for (n, path) in wsite_tests::examples().into_iter().enumerate() {
        let program = example(&path);
        let served = Served::start(&path, &[]);
        let mut play = Play::new(&driver, &served, &program);
        let instance = instances(&program).into_iter().next().expect("a task");
        play.reset(&instance.name);
        let mut env = Env::new(&program, &instance, RewardConfig::default()).expect("env");
        let mut rng = Lcg(n as u64 * 7919 + 17);
        let mut total = 0.0;
        for i in 0..walk {
            let Some(action) = pick(&env, &mut rng) else {
                break;
            };
            play.act(&env, &action);
            total += env.step(&action).expect("a candidate steps").reward;
            if let Err(why) = play.compare(&env, total) {
                panic!("{} step {i} ({action:?}): {why}", path.display());
            }
            if env.done() {
                break;
            }
        }
        steps += play.steps;
    }
    eprintln!("browser random walks: {steps} steps compared one by one");
}

/// A random candidate action that a browser can take as one request: no
/// answers (they end the walk early), no typing or selecting the value a
/// control already shows (a browser sends no change for those).
fn pick(env: &Env<'_>, rng: &mut Lcg) -> Option<Action> {
    let obs = env.observation();
    let usable: Vec<&Action> = env
        .actions()
        .iter()
        .filter(|a| a.kind != ActionKind::Answer)
        .filter(|a| {
            let shown = a
                .element
                .and_then(|i| obs.elements.get(i - 1))
                .and_then(|e| e.value.as_deref());
            !matches!(a.kind, ActionKind::Type | ActionKind::Select) || shown != a.text.as_deref()
        })
        .collect();
    if usable.is_empty() {
        return None;
    }
    Some(usable[rng.next(usable.len())].clone())
}
