//! Compiled marker bodies and the runner that gives `interp::exec::run_marker`'s
//! outcome on the flat state, in place.
//!
//! [`JitSite::run_marker`] checks the `requires` with their compiled
//! predicates, runs the compiled body on the state bytes themselves, then
//! applies the gate of `gate::validate_commit` to the bytes: permissions,
//! written values (the interpreter's own sequence, `gate::check_written`, read
//! through the flat state: `none` in a non-optional place, an enum index out
//! of range, a reference to a row that does not exist afterwards) and the
//! invariants whose footprint the delta touches, with the compiled invariant
//! predicates. An insert into a full table already rejects, so the sequence's
//! capacity check never fires here. Finally the `go` arguments are evaluated
//! on the new state.
//!
//! Every write of the body goes through the `extern "C"` helpers here, which
//! record the old bytes in an [`UndoLog`] (and the writes in a `Delta`, for
//! the gate). A rejection replays the log backwards, restoring the state bit
//! for bit; a commit clears it. The log is the caller's, so its memory is
//! reused from one step to the next.
//!
//! What is not compiled: a marker whose body uses something the expression
//! lowering refuses (a slot of changing type, an IR the checker could not
//! have produced),
//! whose `requires` are not all compiled, whose `requires`/`reject`
//! messages do not compile, or whose writes could touch an invariant that
//! is not compiled. Those are reported per marker
//! ([`JitSite::marker_fallback_reason`]) and must be run by the interpreter.
//! A rejection reports its cause ([`MarkerRejection`]), and with
//! [`JitSite::run_marker_alert`] the interpreter's alert text, which `alert`
//! renders before the log is rolled back (a `reject` message reads the
//! state the body left).

mod alone;
mod body;
mod runner;

pub use alone::Held;
pub(crate) use alone::Unique;
pub(crate) use body::*;
pub use runner::encode_world;
pub(crate) use runner::*;

use super::alert;
use super::codegen;
use super::frames;
use super::helpers::JitCtx;
use super::text::{i64_at, row_slot, u32_at, Templates};
use super::{code, JitError, JitFault, JitFrame, JitPredicate, JitSite, PredFn, PredicateRef, Tag};
use crate::interp::eval::Fault;
use crate::interp::exec::{alert as exec_alert, Delta};
use crate::interp::gate;
use crate::interp::state::idx;
use crate::ir::reads::{self as footprint, Locs};
use crate::ir::{self, MarkerId, PageId, Ty, Value};
use crate::layout::{Cells, LayoutError, StateLayout, TextPool, WORD};
use crate::value::{Date, Time};
use cranelift_codegen::ir::{Signature, UserFuncName};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module};
use std::sync::Arc;

/// The body helpers' addresses, for the lowering of marker bodies.
fn body_helpers() -> codegen::BodyHelpers {
    codegen::BodyHelpers {
        snap_len: body::snap_len as *const () as usize,
        snap_push: body::snap_push as *const () as usize,
        snap_get: body::snap_get as *const () as usize,
        snap_truncate: body::snap_truncate as *const () as usize,
        body_insert: body::body_insert as *const () as usize,
        body_insert_cell: body::body_insert_cell as *const () as usize,
        body_set_field: body::body_set_field as *const () as usize,
        body_set_session: body::body_set_session as *const () as usize,
        body_delete: body::body_delete as *const () as usize,
        row_exists: body::row_exists as *const () as usize,
        reject_begin: body::reject_begin as *const () as usize,
        go_begin: body::go_begin as *const () as usize,
        frame_save: body::frame_save as *const () as usize,
        go_out: body::go_out as *const () as usize,
    }
}

/// The old bytes of every write of a marker run, in order: what a rejection
/// replays backwards. Reusable: the runner clears it at the start and on
/// commit. While [`UndoLog::record_writes`] is on it also keeps where the
/// committed runs wrote, which a search uses to put back and fingerprint
/// only those bytes.
#[derive(Clone, Debug, Default)]
pub struct UndoLog {
    /// `(offset, length, old bytes)`; at most 8 bytes per entry.
    entries: Vec<(usize, u8, [u8; WORD])>,
    /// `(offset, length)` of each write of the runs committed since
    /// recording was last switched on.
    written: Vec<(usize, u8)>,
    recording: bool,
    /// The run's argument frame and the invariants' empty one, kept so
    /// that a click allocates nothing.
    pub(crate) frames: [JitFrame; 2],
    /// The body's delta and snapshots, kept for the same reason.
    pub(crate) scratch: BodyScratch,
}

impl UndoLog {
    pub fn new() -> UndoLog {
        UndoLog::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Switches the record of committed writes on or off, and empties it.
    pub fn record_writes(&mut self, on: bool) {
        self.recording = on;
        self.written.clear();
    }

    /// Where the runs committed since [`UndoLog::record_writes`] wrote:
    /// `(offset, length)` per write, in order (empty when not recording).
    pub fn written(&self) -> &[(usize, u8)] {
        &self.written
    }

    /// A run committed: its writes stay (recorded, when recording), and
    /// nothing is left to roll back.
    pub(crate) fn commit(&mut self) {
        if self.recording {
            let writes = self.entries.iter().map(|&(at, len, _)| (at, len));
            self.written.extend(writes);
        }
        self.entries.clear();
    }

    /// Restores every logged write, newest first, and empties the log.
    pub fn rollback(&mut self, state: &mut [u8]) {
        while let Some((at, len, old)) = self.entries.pop() {
            let len = usize::from(len);
            if let (Some(dst), Some(src)) = (
                at.checked_add(len).and_then(|end| state.get_mut(at..end)),
                old.get(..len),
            ) {
                dst.copy_from_slice(src);
            }
        }
    }
}

/// Why a compiled marker run was rejected (the interpreter's
/// `exec::Rejection`, without the alert texts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerRejection {
    /// `requires` clause `index` was false or faulted.
    Requires { index: usize },
    /// `reject`, a run-time fault, a full table, a faulting `go` argument.
    Body,
    /// The gate refused the delta's permissions or values.
    Gate,
    /// The gate refused the delta: invariant `index` would not hold.
    Invariant { index: usize },
    /// An unknown marker or the wrong number of arguments.
    Call,
}

/// How a compiled marker run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkerOutcome {
    /// The state bytes hold the new state.
    Committed { go: Option<(PageId, Vec<Value>)> },
    /// The state bytes are exactly as they were.
    Rejected { cause: MarkerRejection },
}

/// A compiled `go`.
pub(crate) struct GoNative {
    func: PredFn,
    page: PageId,
    tags: Vec<Tag>,
    texts: Vec<(u32, Arc<str>)>,
}

pub(crate) struct MarkerNative {
    body: PredFn,
    /// The parameters' kinds.
    params: Vec<Tag>,
    /// The invariants whose reads the body's writes can touch, in order
    /// (`gate::invariant_affected` on its static footprint): a commit
    /// tests only these with the delta it wrote.
    invariants: Vec<usize>,
    texts: Vec<(u32, Arc<str>)>,
    gos: Vec<GoNative>,
    /// The body's frame slots (for the `go` snapshot) and their kinds.
    slot_tags: Vec<Tag>,
    /// The `requires` and `reject` messages, for the alert of a refusal.
    messages: alert::Messages,
}

/// One marker of a site: compiled, or why not.
pub(crate) struct JitMarker {
    pub name: String,
    pub status: Result<MarkerNative, JitError>,
}

/// What the runner's gate needs of the program, kept by the site.
pub(crate) struct GateInfo {
    pub program: ir::Program,
    pub layout: StateLayout,
    /// Each invariant's footprint (`footprint::expr_reads`).
    pub inv_reads: Vec<Locs>,
    /// The uniqueness invariants' per-row checks (`alone.rs`).
    pub unique: Unique,
}

/// A marker function defined in the module, before finalization.
pub(crate) struct Defined {
    body: (FuncId, codegen::Lowered),
    gos: Vec<(FuncId, codegen::Lowered, Vec<Tag>, PageId)>,
    params: Vec<Tag>,
    invariants: Vec<usize>,
    slot_tags: Vec<Tag>,
    messages: alert::Defined,
}

/// Lowers and defines every marker's body and `go`s; `compiled` says which
/// predicates compiled.
#[allow(clippy::too_many_arguments)]
pub(crate) fn define_markers(
    module: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    sig: &Signature,
    program: &ir::Program,
    layout: &StateLayout,
    pool: &mut TextPool,
    templates: &Templates,
    compiled: &dyn Fn(PredicateRef) -> bool,
) -> Vec<(String, Result<Defined, JitError>)> {
    let inv_reads = invariant_reads(program);
    let mut out = Vec::with_capacity(program.markers.len());
    for (m, marker) in program.markers.iter().enumerate() {
        let status = define_marker(
            module, ctx, sig, program, layout, pool, templates, compiled, &inv_reads, m, marker,
        );
        out.push((marker.name.clone(), status));
    }
    out
}

pub(crate) fn invariant_reads(program: &ir::Program) -> Vec<Locs> {
    program
        .invariants
        .iter()
        .map(|inv| {
            let mut reads = Locs::new();
            footprint::expr_reads(program, &inv.cond, &mut reads);
            reads
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn define_marker(
    module: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    sig: &Signature,
    program: &ir::Program,
    layout: &StateLayout,
    pool: &mut TextPool,
    templates: &Templates,
    compiled: &dyn Fn(PredicateRef) -> bool,
    inv_reads: &[Locs],
    m: usize,
    marker: &ir::MarkerDef,
) -> Result<Defined, JitError> {
    let unsupported = |why: String| Err(JitError::Unsupported(why));
    if let Some(i) = (0..marker.requires.len()).find(|&i| !compiled(PredicateRef::Requires(m, i))) {
        return unsupported(format!("`requires` {} is not compiled", i + 1));
    }
    let writes = footprint::Effects::of_block(program, &marker.body).writes;
    // The invariants a commit of this marker can have to check: the rest
    // read only what its body never writes (the analysis is conservative),
    // so the gate's test for each commit cannot pick them.
    let invariants: Vec<usize> = (inv_reads.iter().enumerate())
        .filter(|(_, reads)| gate::invariant_affected(&writes, reads))
        .map(|(i, _)| i)
        .collect();
    if !writes.is_empty() {
        if let Some(&i) = invariants
            .iter()
            .find(|&&i| !compiled(PredicateRef::Invariant(i)))
        {
            return unsupported(format!(
                "invariant `{}` is not compiled",
                program.invariants.get(i).map_or("?", |d| d.name.as_str())
            ));
        }
    }
    let slots = frames::marker_body_slots(program, marker);
    let define = |module: &mut JITModule,
                  ctx: &mut cranelift_codegen::Context,
                  symbol: String|
     -> Result<FuncId, JitError> {
        let id = module
            .declare_function(&symbol, Linkage::Local, sig)
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        module
            .define_function(id, ctx)
            .map_err(|e| JitError::Codegen(format!("marker `{}`: {e:?}", marker.name)))?;
        Ok(id)
    };

    module.clear_context(ctx);
    ctx.func.signature = sig.clone();
    let mut fctx = FunctionBuilderContext::new();
    let helpers = body_helpers();
    let site = codegen::Site {
        program,
        layout,
        slots: &slots,
        nav: false,
        mutable: true,
        config: module.target_config(),
        templates: Some(templates),
        body: Some(&helpers),
    };
    let body = codegen::lower_body(&site, &mut ctx.func, &mut fctx, pool, marker)?;
    let body_id = define(module, ctx, format!("wsite_marker_{m}"))?;

    let mut gos = Vec::with_capacity(body.gos.len());
    for (n, call) in body.gos.iter().enumerate() {
        module.clear_context(ctx);
        ctx.func.signature = sig.clone();
        let mut fctx = FunctionBuilderContext::new();
        let site = codegen::Site {
            mutable: false,
            ..site
        };
        let (lowered, tags) =
            codegen::lower_values(&site, &mut ctx.func, &mut fctx, pool, &call.args)
                .map_err(|e| e.within("`go`"))?;
        let id = define(module, ctx, format!("wsite_marker_{m}_go_{n}"))?;
        gos.push((id, lowered, tags, call.page));
    }
    module.clear_context(ctx);
    let messages = alert::define(
        module,
        ctx,
        sig,
        program,
        layout,
        pool,
        templates,
        m,
        marker,
        &body.rejects,
    )?;
    Ok(Defined {
        body: (body_id, body),
        gos,
        messages,
        params: marker.params.iter().map(|p| Tag::of_ty(&p.ty)).collect(),
        invariants,
        slot_tags: slots
            .iter()
            .map(|t| t.as_ref().map_or(Tag::None, Tag::of_ty))
            .collect(),
    })
}

/// The finalized functions of a defined marker.
pub(crate) fn resolve(module: &JITModule, d: Defined) -> MarkerNative {
    let func = |id: FuncId| {
        let code = module.get_finalized_function(id);
        // SAFETY: `code` is the finalized body of a function declared with
        // the predicate signature (three pointers, an `i64` result, the
        // host's C calling convention), which is `PredFn`.
        unsafe { std::mem::transmute::<*const u8, PredFn>(code) }
    };
    let (body_id, body) = d.body;
    MarkerNative {
        body: func(body_id),
        params: d.params,
        invariants: d.invariants,
        texts: body.texts,
        gos: d
            .gos
            .into_iter()
            .map(|(id, lowered, tags, page)| GoNative {
                func: func(id),
                page,
                tags,
                texts: lowered.texts,
            })
            .collect(),
        slot_tags: d.slot_tags,
        messages: alert::resolve(module, d.messages),
    }
}
