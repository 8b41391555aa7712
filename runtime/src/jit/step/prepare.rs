//! Preparing a task instance for the flat engine: what every episode of it
//! starts from ([`FlatStart`]), built once from a fresh interpreter
//! environment of the instance, after checking that everything its steps
//! run is compiled.

use super::{FlatError, FlatStart, TypedInputs, R};
use crate::env::{Env, RewardConfig, TaskInstance};
use crate::ir;
use crate::jit::{JitError, JitSite};
use crate::layout::TextPool;
use std::sync::Arc;

impl FlatStart {
    /// Prepares `instance` of the program `site` was compiled for. Refused
    /// (play it with `Env`): an instance whose goal, progress predicates,
    /// pages or markers are not all compiled.
    pub fn new(site: &JitSite, instance: &TaskInstance, pool: &mut TextPool) -> R<Arc<FlatStart>> {
        task_compiled(site, instance)?;
        let program = &site.gate.program;
        let env =
            Env::new(program, instance, RewardConfig::default()).map_err(FlatError::Instance)?;
        prepare(site, &env, pool)
    }

    /// [`FlatStart::new`] for the instance `env` plays, from `env` itself,
    /// which must be fresh (as `Env::new` made it) and play the program
    /// `site` was compiled for: the prover has one already, and a second
    /// would run the instance's setup and render its first page again.
    pub(crate) fn of_env(site: &JitSite, env: &Env<'_>, pool: &mut TextPool) -> R<Arc<FlatStart>> {
        task_compiled(site, env.instance())?;
        prepare(site, env, pool)
    }

    /// The instance's name (`buy_x1[p=2]`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether an engine playing `other` offers, on every page, the
    /// candidates an engine playing this instance offers: the same values
    /// to type, and answers alike (both of retrieval tasks, or neither).
    /// `program` is the one both were prepared for.
    pub fn offers_as(&self, other: &FlatStart, program: &ir::Program) -> bool {
        let answers = |s: &FlatStart| program.tasks.get(s.task_index).map(|t| t.answer.is_some());
        self.typeable == other.typeable && answers(self) == answers(other)
    }
}

/// Whether the task `instance` plays exists and everything its steps run
/// is compiled.
fn task_compiled(site: &JitSite, instance: &TaskInstance) -> R<()> {
    let task_index = instance.task;
    let task = (site.gate.program.tasks.get(task_index)).ok_or(FlatError::NoTask(task_index))?;
    check_compiled(site, task_index, task, &instance.name)
}

fn prepare(site: &JitSite, env: &Env<'_>, pool: &mut TextPool) -> R<Arc<FlatStart>> {
    let program = &site.gate.program;
    let instance = env.instance();
    let name = &instance.name;
    let initial = env
        .encode_state(&site.gate.layout, pool)
        .map_err(|e| FlatError::Encoding {
            task: name.clone(),
            error: JitError::Layout(e.to_string()),
        })?;
    let frame = site
        .frame(env.task_frame(), pool)
        .map_err(|error| FlatError::Encoding {
            task: name.clone(),
            error,
        })?;
    let held = site.invariants_held(&initial, pool);
    let depends = (site.task_depends(instance.task)).ok_or(FlatError::NoTask(instance.task))?;
    Ok(Arc::new(FlatStart {
        held,
        task_index: instance.task,
        name: name.clone(),
        frame,
        typeable: env.typeable_values().to_vec(),
        typed: TypedInputs::new(program, &site.gate.layout, env.typeable_values(), pool),
        typeable_words: env
            .typeable_values()
            .iter()
            .map(|t| crate::words::hashes(t))
            .collect(),
        expected: env.expected_answer().clone(),
        instruction: env.instruction().to_string(),
        instruction_words: crate::words::hashes(env.instruction()),
        initial,
        texts: pool.len(),
        goal_depends: depends.goal.clone(),
        progress_depends: depends.progress.clone(),
        family: std::sync::OnceLock::new(),
    }))
}

/// Everything an instance's steps run must be compiled.
fn check_compiled(site: &JitSite, task_index: usize, task: &ir::TaskDef, name: &str) -> R<()> {
    let program = &site.gate.program;
    if task.goal.is_some() && !site.goal(task_index).is_some_and(|p| p.is_compiled()) {
        return Err(not_compiled(name, "the goal".into()));
    }
    for i in 0..task.progress.len() {
        if !site
            .progress(task_index, i)
            .is_some_and(|p| p.is_compiled())
        {
            return Err(not_compiled(name, format!("progress predicate {}", i + 1)));
        }
    }
    for (p, page) in program.pages.iter().enumerate() {
        let compiled = ir::PageId::try_from(p).is_ok_and(|id| site.page_is_compiled(id));
        if !compiled {
            return Err(not_compiled("", format!("page `{}`", page.name)));
        }
    }
    for (m, marker) in program.markers.iter().enumerate() {
        let compiled = ir::MarkerId::try_from(m).is_ok_and(|id| site.marker_is_compiled(id));
        if !compiled {
            return Err(not_compiled("", format!("marker `{}`", marker.name)));
        }
    }
    Ok(())
}

fn not_compiled(task: &str, what: String) -> FlatError {
    FlatError::NotCompiled {
        task: task.to_string(),
        what,
    }
}
