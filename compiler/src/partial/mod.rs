//! Partial results: a defect in one declaration does not hide the defects
//! of the others. The analyses that run on the lowered program (seed
//! consistency C301/C303, the prover's F401–F406 and the sweep's C302,
//! LANGUAGE.md §4) also run on a program with errors, over a stand-in in
//! which each broken declaration is stubbed ([`stub`]); an invariant the
//! seed data breaks (C301) is left out of the runs the same way.
//!
//! A finding computed over stubs is *provisional* when a stub lies in its
//! footprint ([`footprint`]): it names the stubbed objects in its `after`
//! list, and the JSON report's `depends_on` points at their errors. A finding
//! whose footprint holds no stub is final. The structural lints (S101, S102)
//! run on the AST and follow the same rule in `check::structural`.

pub mod stub;

pub use stub::{Stub, StubKind, Stubbed};

use crate::check::types::Typed;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::SourceFile;
use crate::verify::TaskOutcome;
use crate::Options;
use wsite_runtime::ir::Program;

/// What the analyses on the lowered program give back.
pub struct Analysed {
    /// The lowered program, when the front end found no errors.
    pub program: Option<Program>,
    /// The prover's verdicts, when none of them is provisional.
    pub proofs: Vec<TaskOutcome>,
}

/// Lowers `files` (over stubs when the front end found errors) and runs the
/// consistency checks and, when asked, the prover, marking what they find
/// over stubs as provisional.
pub fn analyse(
    files: &[SourceFile],
    texts: &[&str],
    typed: &Typed,
    options: &Options,
    diags: &mut Diagnostics,
) -> Analysed {
    let nothing = Analysed {
        program: None,
        proofs: Vec::new(),
    };
    let clean = !diags.has_errors();
    let stubbed = if clean {
        None
    } else {
        match stub::stub(files, texts, diags.as_slice()) {
            Some(stubbed) => Some(stubbed),
            None => return nothing,
        }
    };
    let (view, mut stubs) = match &stubbed {
        Some(s) => (s.files.as_slice(), s.stubs.clone()),
        None => (files, Vec::new()),
    };
    let start = diags.len();
    let Some(lowered) = crate::lower_and_run_checks(view, texts, typed, clean, diags) else {
        return nothing;
    };
    mark_provisional(diags, start, &stubs);
    let broken = broken_invariants(diags, start, &lowered);
    let failed_tasks = tasks_with_errors(diags, start);
    let program = lowered.program;
    let proofs = match &options.prove {
        Some(prove) => {
            let runs = without_broken(&program, &broken, &failed_tasks, &mut stubs);
            let start = diags.len();
            let proofs = crate::verify::verify(
                view,
                texts,
                runs.as_ref().unwrap_or(&program),
                *prove,
                options.only_task.as_deref(),
                !options.skip_sweep,
                diags,
            );
            mark_provisional(diags, start, &stubs);
            proofs
        }
        None => Vec::new(),
    };
    let provisional = stubs.iter().any(|s| s.kind != StubKind::Task);
    Analysed {
        program: clean.then_some(program),
        proofs: if provisional { Vec::new() } else { proofs },
    }
}

/// The invariants (by index) that the seed data breaks: a C301 pushed since
/// `start` at the invariant's span.
fn broken_invariants(
    diags: &Diagnostics,
    start: usize,
    lowered: &crate::lower::Lowered,
) -> Vec<usize> {
    let c301: Vec<&Diagnostic> = diags.as_slice()[start..]
        .iter()
        .filter(|d| d.code == Code::C301)
        .collect();
    (0..lowered.invariant_spans.len())
        .filter(|&i| c301.iter().any(|d| d.span == lowered.invariant_spans[i]))
        .collect()
}

/// The tasks an error found on the lowered program is about (an M205 that
/// only running a task's `setup` finds): searching them would only restate
/// that error as an F401.
fn tasks_with_errors(diags: &Diagnostics, start: usize) -> Vec<String> {
    diags.as_slice()[start..]
        .iter()
        .filter(|d| d.is_error())
        .filter_map(|d| d.object.as_deref()?.strip_prefix("task "))
        .map(str::to_string)
        .collect()
}

/// `program` without the `broken` invariants and the `failed` tasks (which
/// join `stubs`), when there are any: with an invariant false from the
/// start, every marker touching it would be refused and every task fail for
/// that one reason; a task with an error is not searched.
fn without_broken(
    program: &Program,
    broken: &[usize],
    failed: &[String],
    stubs: &mut Vec<Stub>,
) -> Option<Program> {
    if broken.is_empty() && failed.is_empty() {
        return None;
    }
    let mut runs = program.clone();
    let mut k = 0;
    runs.invariants.retain(|inv| {
        let keep = !broken.contains(&k);
        k += 1;
        if !keep {
            stubs.push(Stub {
                object: format!("invariant {}", inv.name),
                kind: StubKind::Invariant,
            });
        }
        keep
    });
    runs.tasks.retain(|task| {
        let keep = !failed.contains(&task.name);
        if !keep {
            stubs.push(Stub {
                object: format!("task {}", task.name),
                kind: StubKind::Task,
            });
        }
        keep
    });
    Some(runs)
}

/// Adds to each diagnostic pushed since `start` the stubbed objects in its
/// footprint.
fn mark_provisional(diags: &mut Diagnostics, start: usize, stubs: &[Stub]) {
    if stubs.is_empty() {
        return;
    }
    for d in diags.since_mut(start) {
        for object in footprint(d.code, d.object.as_deref(), stubs) {
            if !d.after.contains(&object) {
                d.after.push(object);
            }
        }
    }
}

/// The stubbed objects a finding with `code` about `object` could change
/// with: what its analysis reads, among what was stubbed. Tasks left out
/// change nothing else; source the parser skipped may have held anything.
pub fn footprint(code: Code, object: Option<&str>, stubs: &[Stub]) -> Vec<String> {
    let reads = |s: &Stub| match code {
        // The seed data (and the invariants it is checked against).
        Code::C301 | Code::F403 => s.kind == StubKind::Seed,
        // The page's own text and the seed data.
        Code::C303 => object == Some(s.object.as_str()) || s.kind == StubKind::Seed,
        // What the markers write, and the seed data.
        Code::F402 => matches!(s.kind, StubKind::Marker | StubKind::Seed),
        // Whole runs: pages, markers, invariants.
        _ => s.kind != StubKind::Task,
    };
    stubs
        .iter()
        .filter(|s| s.kind == StubKind::Unknown || reads(s))
        .map(|s| s.object.clone())
        .collect()
}

#[cfg(test)]
mod tests;
