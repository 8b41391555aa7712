//! The alert of a marker step refused on the flat state, exactly as the
//! interpreter words it (`interp::exec::run_marker`).
//!
//! The author's messages — a `requires … else "…"` and a `reject "…"` — are
//! compiled with their marker into labels whose interpolations are native
//! functions, like a page's labels, and rendered the same way
//! (`label::Calls::label`: each value as the page shows it, a fault as
//! `—`). A `requires` message runs on the untouched state with the
//! arguments' frame; a `reject` message on the state the body left (before
//! the runner rolls it back) with the frame the body had there, which the
//! body snapshots as it does for `go`. The runtime's own words (a false
//! `requires` without a message, a fault, a full table, a faulting `go`)
//! come from `interp::exec::alert`, and the gate's from its
//! `gate::Violation`s, so no wording exists twice.
//!
//! This module owns the compiled messages and their rendering; the runner
//! (`marker`) decides which refusal happened.

use super::label::{self, Calls, Label, NativeFn};
use super::render::Definer;
use super::text::Templates;
use super::{frames, JitError, JitFault, JitSite};
use crate::interp::eval::Fault;
use crate::interp::exec::{alert, Delta};
use crate::interp::gate;
use crate::ir::{self, TextPart};
use crate::layout::{StateLayout, TextPool};
use cranelift_codegen::ir::Signature;
use cranelift_jit::JITModule;
use std::sync::Arc;

/// A marker's messages, defined in the module, before finalization.
pub(crate) struct Defined {
    funcs: Vec<label::DefinedFn>,
    requires: Vec<Option<Label>>,
    rejects: Vec<Label>,
    requires_frame: usize,
    body_frame: usize,
}

/// A marker's messages, compiled.
pub(crate) struct Messages {
    funcs: Vec<NativeFn>,
    /// The text constants of the functions (checked against the pool with
    /// the body's).
    pub texts: Vec<(u32, Arc<str>)>,
    /// Per `requires` clause, its `else` message.
    requires: Vec<Option<Label>>,
    /// Per `reject` of the body, in lowering order (`codegen::Lowered`).
    rejects: Vec<Label>,
    /// The slots the `requires` messages read (the parameters).
    requires_frame: usize,
    /// The slots the `reject` messages read (the body's frame).
    body_frame: usize,
}

/// Defines the messages of marker number `m`: its `requires` messages over
/// the parameters' frame, and `rejects` (the body's `reject` messages, as
/// lowered) over the body's frame. A message that does not compile fails
/// the marker, as any other part of it would.
#[allow(clippy::too_many_arguments)]
pub(crate) fn define(
    module: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    sig: &Signature,
    program: &ir::Program,
    layout: &StateLayout,
    pool: &mut TextPool,
    templates: &Templates,
    m: usize,
    marker: &ir::MarkerDef,
    rejects: &[Vec<TextPart>],
) -> Result<Defined, JitError> {
    let requires_slots = frames::marker_slots(marker);
    let body_slots = frames::marker_body_slots(program, marker);
    let mut d = Definer {
        module,
        ctx,
        sig,
        program,
        layout,
        pool,
        templates,
        slots: &requires_slots,
        symbol: format!("wsite_marker_{m}_requires"),
        funcs: Vec::new(),
        forms: &[],
    };
    let requires = marker
        .requires
        .iter()
        .map(|r| r.message.as_deref().map(|parts| d.label(parts)).transpose())
        .collect::<Result<Vec<_>, _>>()?;
    d.slots = &body_slots;
    d.symbol = format!("wsite_marker_{m}_reject");
    let rejects = rejects
        .iter()
        .map(|parts| d.label(parts))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Defined {
        funcs: d.funcs,
        requires,
        rejects,
        requires_frame: requires_slots.len(),
        body_frame: body_slots.len(),
    })
}

/// The finalized functions of defined messages.
pub(crate) fn resolve(module: &JITModule, d: Defined) -> Messages {
    let (funcs, texts) = label::resolve_fns(module, d.funcs);
    Messages {
        funcs,
        texts,
        requires: d.requires,
        rejects: d.rejects,
        requires_frame: d.requires_frame,
        body_frame: d.body_frame,
    }
}

/// What rendering a message reads: the program, the layout and the state.
pub(crate) struct On<'a> {
    pub program: &'a ir::Program,
    pub layout: &'a StateLayout,
    pub state: &'a [u8],
}

impl Messages {
    fn render(
        &self,
        on: &On<'_>,
        label: &Label,
        cells: &[i64],
        frame: usize,
        pool: &mut TextPool,
    ) -> Result<String, JitFault> {
        let calls = Calls {
            funcs: &self.funcs,
            program: on.program,
            layout: on.layout,
            state: on.state,
            cells,
            frame,
        };
        let mut out = String::new();
        calls.label(label, pool, None, &mut out, |_| {})?;
        Ok(out)
    }

    /// The alert of `requires` clause `index` of `def` that was false (its
    /// `else` message, or the default), on the state before the body with
    /// the arguments' frame `cells`.
    pub fn requires_false(
        &self,
        on: &On<'_>,
        def: &ir::MarkerDef,
        index: usize,
        cells: &[i64],
        pool: &mut TextPool,
    ) -> Result<String, JitFault> {
        match self.requires.get(index).and_then(Option::as_ref) {
            Some(label) => self.render(on, label, cells, self.requires_frame, pool),
            None => Ok(alert::rejected(on.program, def, None)),
        }
    }

    /// The message of the body's `reject` number `n`, on the state the body
    /// left with the frame `cells` it had there.
    pub fn reject(
        &self,
        on: &On<'_>,
        n: usize,
        cells: &[i64],
        pool: &mut TextPool,
    ) -> Result<String, JitFault> {
        let label = self
            .rejects
            .get(n)
            .ok_or_else(|| JitFault::Input(format!("internal: no `reject` #{n}")))?;
        self.render(on, label, cells, self.body_frame, pool)
    }
}

impl JitSite {
    /// What alert messages read.
    pub(super) fn on<'a>(&'a self, state: &'a [u8]) -> On<'a> {
        On {
            program: &self.gate.program,
            layout: &self.gate.layout,
            state,
        }
    }

    /// The alert of a body that stopped: its fault, the table an insert
    /// found full, or the message of the `reject` it reached.
    pub(super) fn stop_alert(
        &self,
        messages: &Messages,
        def: &ir::MarkerDef,
        state: &[u8],
        fault: Option<Fault>,
        (reject, full): (Option<(usize, Vec<i64>)>, Option<usize>),
        pool: &mut TextPool,
    ) -> Result<String, JitFault> {
        let program = &self.gate.program;
        if let Some(f) = fault {
            return Ok(alert::failed(program, &def.name, &f));
        }
        if let Some(table) = full.and_then(|t| program.tables.get(t)) {
            return Ok(alert::full(table));
        }
        let (n, cells) = reject
            .ok_or_else(|| JitFault::Input("internal: a body rejected without a cause".into()))?;
        messages.reject(&self.on(state), n, &cells, pool)
    }
}

/// The gate's alert for a delta whose written values the runner found not
/// to fit (`none` where not optional, a variant out of range, a reference
/// to no row): the interpreter's gate, run on the decoded state the body
/// left, names the place and the value. Such refusals are rare (the checker
/// proves most values fit), so decoding costs little overall and keeps the
/// gate's wording in one place.
pub(crate) fn values_violation(
    on: &On<'_>,
    def: &ir::MarkerDef,
    delta: &Delta,
    pool: &mut TextPool,
) -> Result<String, JitFault> {
    let decoded = crate::layout::decode(on.layout, on.program, on.state, pool)
        .map_err(|e| JitFault::Input(e.to_string()))?;
    match gate::validate_commit(on.program, def, &decoded.world, delta) {
        Err(v) => Ok(v.to_string()),
        Ok(()) => Err(JitFault::Input(format!(
            "internal: the gate accepts the values `{}` wrote, which the runner refused",
            def.name
        ))),
    }
}
