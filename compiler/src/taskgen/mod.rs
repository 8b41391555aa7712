//! `wsitec tasks --generate`: generated tasks, each proven before it is
//! emitted (issue 18; docs/tasks.md, "Generating tasks").
//!
//! The runtime proposes candidates from the lowered site
//! (`wsite_runtime::tasks`); here each batch of candidates is written as
//! task declarations in one more file of the program ([`GENERATED_FILE`],
//! equivalent to appending them to the site: declarations are global), run
//! through the normal pipeline — check (a candidate with any diagnostic of
//! its own is dropped), lowering, the prover (§5.5) — and kept only when
//! proven feasible and not already true at the start. A kept task gets its
//! key nodes (`wsite_runtime::tasks::keys`, exact) and, for retrieval, the
//! accepted phrasings of its answer (each passing the §5.3 answer rule).
//! [`validate`] re-proves emitted declarations through the full pipeline,
//! which is how the executable and valid shares are measured, not assumed.
//! Pure: no files, no clock.

pub mod figures;
#[cfg(test)]
mod tests;

use crate::{compile_with, Compilation, Loader, Options, Source};
use serde::Serialize;
use std::fmt;
use wsite_runtime::env::{Env, RewardConfig, TaskInstance};
use wsite_runtime::ir;
use wsite_runtime::prove::{self, Verdict, WitnessStep};
use wsite_runtime::tasks::{
    self, emitted_horizon, key_nodes, phrasing, skeleton_id, source, Candidate, Check, Request,
    Skeletons,
};

/// The name the generated declarations are compiled under.
pub const GENERATED_FILE: &str = "generated-tasks.wsite";

/// Distinct states the prover may visit per generated instance; beyond it a
/// candidate is dropped (undecided is not feasible).
pub const PROVE_BUDGET: usize = 200_000;

/// Distinct states per forbidding search behind a key node (one per witness
/// node, and a key node's search must exhaust its space); beyond it the node
/// is left out and counted in `key_nodes_undecided`.
pub const KEY_BUDGET: usize = 50_000;

/// One emitted task, in INTERFACES.md's WebFactory form plus what the
/// figures need.
#[derive(Clone, Debug, Serialize)]
pub struct GeneratedTask {
    /// The task's name in its declaration (what `--task` takes).
    pub task_id: String,
    pub site: String,
    /// `operation` or `retrieval`.
    pub kind: &'static str,
    /// The instruction (`say`).
    pub goal: String,
    pub expected_answers: Vec<String>,
    pub key_nodes: Vec<String>,
    /// Witness nodes whose necessity the search could not decide within
    /// [`KEY_BUDGET`] (not listed as key nodes).
    pub key_nodes_undecided: usize,
    pub horizon: u32,
    pub witness: Vec<WitnessStep>,
    /// The declaration as source.
    pub wsite: String,
    /// `op`, `flow`, `single`, `compare`, `count` or `lookup`.
    pub family: &'static str,
    /// The sentence skeleton (`op.3`).
    pub skeleton: String,
    /// Data complexity, UI depth (the witness's steps), workflow length.
    pub data: u32,
    pub depth: u32,
    pub workflow: u32,
    pub complex: bool,
}

/// What generation did, beside the tasks.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GenerationStats {
    pub requested: usize,
    pub emitted: usize,
    /// Candidates the request allowed.
    pub candidates: usize,
    /// Candidates written and checked.
    pub tried: usize,
    /// Dropped because the check reported something on them.
    pub dropped_by_check: usize,
    /// Dropped because the prover did not find them feasible (or they
    /// held at the start).
    pub dropped_by_prover: usize,
    /// Sentence skeletons shared by two tasks or more (0 unless `requested`
    /// exceeds the skeletons available to the families generated).
    pub skeletons_reused: usize,
}

/// The outcome of generation.
#[derive(Clone, Debug, Serialize)]
pub struct Generated {
    pub tasks: Vec<GeneratedTask>,
    pub stats: GenerationStats,
}

impl Generated {
    /// Every declaration, ready to append to the site.
    pub fn wsite(&self) -> String {
        self.tasks
            .iter()
            .map(|t| t.wsite.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Why nothing could be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenerateError {
    /// `--generate 0`.
    NothingRequested,
    /// The site has errors (how many); fix them first.
    SiteHasErrors(usize),
    /// The site did not lower (a library, a module with parameters).
    NotASite,
    Unplayable(String),
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::NothingRequested => {
                f.write_str("nothing to generate: give a count of 1 or more")
            }
            GenerateError::SiteHasErrors(n) => write!(
                f,
                "the site has {n} error(s); run `wsitec check` and fix them first"
            ),
            GenerateError::NotASite => f.write_str(
                "not a runnable site (no `site` declaration, or a module with parameters)",
            ),
            GenerateError::Unplayable(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for GenerateError {}

/// Generates up to `count` proven tasks for the program `roots` (and the files
/// they `use`, through `loader`) makes, named `site` in the output.
pub fn generate(
    roots: &[Source],
    loader: &mut Loader<'_>,
    site: &str,
    count: usize,
    request: &Request,
) -> Result<Generated, GenerateError> {
    if count == 0 {
        return Err(GenerateError::NothingRequested);
    }
    let base = compile_with(roots.to_vec(), loader, Options::default());
    if base.has_errors() {
        let n = base.diagnostics.iter().filter(|d| d.is_error()).count();
        return Err(GenerateError::SiteHasErrors(n));
    }
    let program = base.program.as_ref().ok_or(GenerateError::NotASite)?;
    let candidates = tasks::candidates(program, request)
        .map_err(|e| GenerateError::Unplayable(e.to_string()))?;
    let mut run = Run {
        site,
        taken: program.tasks.iter().map(|t| t.name.clone()).collect(),
        skeletons: Skeletons::new(request.seed),
        stats: GenerationStats {
            requested: count,
            candidates: candidates.len(),
            ..GenerationStats::default()
        },
        tasks: Vec::new(),
    };
    let mut queue = candidates.into_iter();
    while run.tasks.len() < count {
        let want = (count - run.tasks.len()).max(2) * 2;
        let batch: Vec<Candidate> = queue.by_ref().take(want).collect();
        if batch.is_empty() {
            break;
        }
        run.try_batch(roots, loader, batch, count);
    }
    run.stats.emitted = run.tasks.len();
    run.stats.skeletons_reused = run.skeletons.reused();
    Ok(Generated {
        tasks: run.tasks,
        stats: run.stats,
    })
}

/// One candidate written as a declaration.
struct Draft {
    candidate: Candidate,
    name: String,
    skeleton: usize,
    say: String,
}

impl Draft {
    fn declaration(&self, horizon: u32, key: &[String]) -> String {
        let mut text = source::declaration(
            &self.name,
            &self.say,
            &self.candidate.values,
            horizon,
            &self.candidate.check,
        );
        // The declaration ends with `}\n`; the key list goes before it.
        if !key.is_empty() && text.ends_with("}\n") {
            let at = text.len() - 2;
            text.insert_str(at, &format!("  key [{}]\n", key.join(", ")));
        }
        text
    }
}

struct Run<'a> {
    site: &'a str,
    taken: Vec<String>,
    skeletons: Skeletons,
    stats: GenerationStats,
    tasks: Vec<GeneratedTask>,
}

impl Run<'_> {
    fn draft(&mut self, candidate: Candidate) -> Draft {
        let family = candidate.family;
        let skeleton = self.skeletons.take(family);
        let say = phrasing::fill(
            family
                .skeletons()
                .get(skeleton)
                .copied()
                .unwrap_or("{step}"),
            &candidate.slots,
        );
        let mut k = self.taken.len() + 1;
        let mut name = format!("gen_{}_{k}", family.name());
        while self.taken.contains(&name) {
            k += 1;
            name = format!("gen_{}_{k}", family.name());
        }
        self.taken.push(name.clone());
        Draft {
            candidate,
            name,
            skeleton,
            say,
        }
    }

    fn drop_draft(&mut self, d: &Draft) {
        self.skeletons.release(d.candidate.family, d.skeleton);
    }

    /// Checks, lowers and proves one batch; keeps what is proven, up to
    /// `count` tasks in all.
    fn try_batch(
        &mut self,
        roots: &[Source],
        loader: &mut Loader<'_>,
        batch: Vec<Candidate>,
        count: usize,
    ) {
        self.stats.tried += batch.len();
        let mut drafts: Vec<Draft> = batch.into_iter().map(|c| self.draft(c)).collect();
        // Each round drops the drafts the check reports on; a clean round
        // lowers (an error elsewhere would keep every draft from lowering).
        let compiled = loop {
            let texts: Vec<String> = drafts
                .iter()
                .map(|d| d.declaration(d.candidate.horizon(), &[]))
                .collect();
            let c = compile_with(with_generated(roots, &texts), loader, Options::default());
            let flagged = flagged_drafts(&c, roots.len(), &texts);
            if flagged.is_empty() {
                break c;
            }
            self.stats.dropped_by_check += flagged.len();
            let mut kept = Vec::new();
            for (i, d) in drafts.into_iter().enumerate() {
                if flagged.contains(&i) {
                    self.drop_draft(&d);
                } else {
                    kept.push(d);
                }
            }
            drafts = kept;
            if drafts.is_empty() {
                return;
            }
        };
        let Some(program) = compiled.program.as_ref() else {
            drafts.iter().for_each(|d| self.drop_draft(d));
            return;
        };
        for d in drafts {
            if self.tasks.len() >= count {
                self.drop_draft(&d);
                continue;
            }
            match self.prove_draft(program, &d) {
                Some(task) => self.tasks.push(task),
                None => {
                    self.stats.dropped_by_prover += 1;
                    self.drop_draft(&d);
                }
            }
        }
    }

    /// The emitted task, when the draft is proven feasible and not true at
    /// the start.
    fn prove_draft(&self, program: &ir::Program, d: &Draft) -> Option<GeneratedTask> {
        let instance = instance_named(program, &d.name)?;
        let options = prove::Options {
            budget: PROVE_BUDGET,
            explain: false,
            ..prove::Options::default()
        };
        let proof = prove::prove_instance(program, &instance, options).ok()?;
        if proof.verdict != Verdict::Feasible || proof.initially_true {
            return None;
        }
        // The emitted horizon is no longer than the one proven, and the
        // witness fits it; key nodes are decided within it.
        let horizon = emitted_horizon(proof.witness.len()).min(d.candidate.horizon());
        let within = prove::Options {
            horizon: Some(horizon),
            budget: KEY_BUDGET,
            ..options
        };
        let keys = key_nodes(program, &instance, &proof.witness, within).ok()?;
        let expected = accepted_answers(program, &instance, &d.candidate)?;
        let key_source: Vec<String> = keys.nodes.iter().filter_map(|k| k.source.clone()).collect();
        let c = &d.candidate;
        Some(GeneratedTask {
            task_id: d.name.clone(),
            site: self.site.to_string(),
            kind: c.kind().name(),
            goal: d.say.clone(),
            expected_answers: expected,
            key_nodes: keys.nodes.into_iter().map(|k| k.name).collect(),
            key_nodes_undecided: keys.undecided,
            horizon,
            depth: proof.witness.len() as u32,
            witness: proof.witness,
            wsite: d.declaration(horizon, &key_source),
            family: c.family.name(),
            skeleton: skeleton_id(c.family, d.skeleton),
            data: c.data,
            workflow: c.workflow,
            complex: c.is_complex(),
        })
    }
}

/// The candidate's phrasings the instance's answer rule accepts (§5.3); an
/// operation task has none. `None` when a retrieval task would list none.
fn accepted_answers(
    program: &ir::Program,
    instance: &TaskInstance,
    candidate: &Candidate,
) -> Option<Vec<String>> {
    if !candidate.family.is_retrieval() {
        return Some(Vec::new());
    }
    let env = Env::new(program, instance, RewardConfig::default()).ok()?;
    let expected = env.expected_answer();
    let mut out: Vec<String> = match &candidate.check {
        Check::Texts(texts) => texts.clone(),
        _ => candidate.expected.clone(),
    };
    out.retain(|a| expected.matches(a));
    (!out.is_empty()).then_some(out)
}

fn instance_named(program: &ir::Program, name: &str) -> Option<TaskInstance> {
    wsite_runtime::env::instances(program)
        .into_iter()
        .find(|i| i.name == name)
}

/// `roots` plus the generated declarations as one more file.
fn with_generated(roots: &[Source], declarations: &[String]) -> Vec<Source> {
    let mut all = roots.to_vec();
    all.push(Source {
        name: GENERATED_FILE.into(),
        text: declarations.join("\n"),
    });
    all
}

/// The indices of the declarations a diagnostic points into. A diagnostic
/// that points nowhere among them but is new in an otherwise clean site
/// would flag them all; the site was checked clean before.
fn flagged_drafts(c: &Compilation, file: usize, texts: &[String]) -> Vec<usize> {
    let mut ranges = Vec::new();
    let mut at = 0u32;
    for t in texts {
        let len = t.len() as u32;
        ranges.push(at..at + len);
        at += len + 1;
    }
    let mut flagged: Vec<usize> = Vec::new();
    let mut stray = false;
    for d in &c.diagnostics {
        if d.span.file.0 as usize != file {
            stray |= d.is_error();
            continue;
        }
        match ranges.iter().position(|r| r.contains(&d.span.start)) {
            Some(i) if !flagged.contains(&i) => flagged.push(i),
            Some(_) => {}
            None => stray = true,
        }
    }
    if stray && flagged.is_empty() {
        flagged = (0..texts.len()).collect();
    }
    flagged.sort_unstable();
    flagged
}

/// What re-proving emitted declarations through the full pipeline found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Validation {
    /// Generated task instances in the compiled program.
    pub declared: usize,
    /// Diagnostics the check reported on the generated declarations.
    pub diagnostics: usize,
    /// Instances the build's prover found feasible.
    pub feasible: usize,
    /// Feasible instances whose witness replays to success on a fresh
    /// environment.
    pub executable: usize,
}

/// Appends `declarations` to the program and runs the full pipeline (check,
/// lowering, the prover on every task) as `wsitec build` does, then replays
/// each generated task's witness.
pub fn validate(roots: &[Source], loader: &mut Loader<'_>, declarations: &str) -> Validation {
    let options = Options {
        prove: Some(prove::Options::default()),
        only_task: None,
        skip_sweep: true,
    };
    let c = compile_with(
        with_generated(roots, &[declarations.to_string()]),
        loader,
        options,
    );
    let file = roots.len();
    let generated: Vec<String> = c.files.get(file).map(task_names).unwrap_or_default();
    let mut v = Validation {
        diagnostics: c
            .diagnostics
            .iter()
            .filter(|d| d.span.file.0 as usize == file)
            .count(),
        ..Validation::default()
    };
    let Some(program) = &c.program else {
        return v;
    };
    for outcome in c.proofs.iter().filter(|p| generated.contains(&p.task)) {
        v.declared += 1;
        if outcome.verdict != Verdict::Feasible {
            continue;
        }
        v.feasible += 1;
        let replays = instance_named(program, &outcome.instance)
            .and_then(|i| prove::replay(program, &i, &outcome.witness).ok())
            .unwrap_or(false);
        v.executable += usize::from(replays);
    }
    v
}

fn task_names(file: &crate::syntax::ast::SourceFile) -> Vec<String> {
    file.decls
        .iter()
        .filter_map(|d| match &d.kind {
            crate::syntax::ast::DeclKind::Task(t) => Some(t.name.name.clone()),
            _ => None,
        })
        .collect()
}
