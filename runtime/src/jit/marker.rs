//! Compiled marker bodies and the runner that gives `interp::exec::run_marker`'s
//! outcome on the flat state, in place.
//!
//! [`JitSite::run_marker`] checks the `requires` with their compiled
//! predicates, runs the compiled body on the state bytes themselves, then
//! applies the gate of `gate::validate_commit` to the bytes: permissions,
//! written values (`none` in a non-optional place, an enum index out of range,
//! a reference to a row that does not exist afterwards) and the invariants
//! whose footprint the delta touches, with the compiled invariant predicates.
//! Capacities need no check afterwards: an insert into a full table already
//! rejects. Finally the `go` arguments are evaluated on the new state.
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

use super::alert;
use super::codegen;
use super::frames;
use super::helpers::JitCtx;
use super::text::{i64_at, u32_at, Templates};
use super::{code, JitError, JitFault, JitSite, PredFn, PredicateRef, Tag};
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

/// The old bytes of every write of a marker run, in order: what a rejection
/// replays backwards. Reusable: the runner clears it at the start and on
/// commit.
#[derive(Clone, Debug, Default)]
pub struct UndoLog {
    /// `(offset, length, old bytes)`; at most 8 bytes per entry.
    entries: Vec<(usize, u8, [u8; WORD])>,
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
    /// The gate refused the delta.
    Gate,
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
}

/// A marker function defined in the module, before finalization.
pub(crate) struct Defined {
    body: (FuncId, codegen::Lowered),
    gos: Vec<(FuncId, codegen::Lowered, Vec<Tag>, PageId)>,
    params: Vec<Tag>,
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
    if !writes.is_empty() {
        for (i, reads) in inv_reads.iter().enumerate() {
            let checked = reads.is_empty() || footprint::touches(&writes, reads);
            if checked && !compiled(PredicateRef::Invariant(i)) {
                return unsupported(format!(
                    "invariant `{}` is not compiled",
                    program.invariants.get(i).map_or("?", |d| d.name.as_str())
                ));
            }
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
    let site = codegen::Site {
        program,
        layout,
        slots: &slots,
        nav: false,
        mutable: true,
        config: module.target_config(),
        templates: Some(templates),
    };
    let body = codegen::lower_body(&site, &mut ctx.func, &mut fctx, pool, marker)
        .map_err(JitError::Unsupported)?;
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
                .map_err(|e| JitError::Unsupported(format!("`go`: {e}")))?;
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

// ---- the body's helpers ----------------------------------------------------------

/// What a running body's helpers reach through `JitCtx::body`.
pub(crate) struct BodyCtx<'a> {
    state: *mut u8,
    len: usize,
    program: &'a ir::Program,
    layout: &'a StateLayout,
    undo: &'a mut UndoLog,
    delta: Delta,
    /// Row-id snapshots of `for` and `delete ... where`, nested.
    snap: Vec<i64>,
    /// The `go` reached last and the frame there (word, presence per slot).
    go: Option<(usize, Vec<i64>)>,
    /// The `reject` that stopped the body and the frame there.
    reject: Option<(usize, Vec<i64>)>,
    /// The table an `insert` found full (which stopped the body).
    full: Option<usize>,
    frame_len: usize,
    /// The values a `go` function produced.
    go_out: Vec<(i64, bool)>,
}

impl BodyCtx<'_> {
    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `state` and `len` are those of the `&mut [u8]` the runner
        // lent for the call, which nothing else accesses while the helper
        // runs (the generated code is suspended in the call).
        unsafe { std::slice::from_raw_parts_mut(self.state, self.len) }
    }

    /// Writes `new` at `at`, logging the old bytes.
    fn write(&mut self, at: usize, new: &[u8]) -> bool {
        let n = new.len();
        if n > WORD {
            return false;
        }
        let mut old = [0u8; WORD];
        let bytes = self.bytes();
        let Some(dst) = at.checked_add(n).and_then(|end| bytes.get_mut(at..end)) else {
            return false;
        };
        let Some(o) = old.get_mut(..n) else {
            return false;
        };
        o.copy_from_slice(dst);
        dst.copy_from_slice(new);
        let Ok(len) = u8::try_from(n) else {
            return false;
        };
        self.undo.entries.push((at, len, old));
        true
    }

    fn write_cell(&mut self, cells: Cells, i: usize, word: i64, present: bool) -> bool {
        i < cells.len
            && self.write(cells.word_at(i), &word.to_le_bytes())
            && self.write(cells.present_at(i), &[u8::from(present)])
    }

    fn view(&mut self) -> &[u8] {
        self.bytes()
    }
}

// Reading tables in flat bytes.

/// A table's row count, clamped to its capacity.
fn row_count(bytes: &[u8], layout: &StateLayout, table: usize) -> Option<usize> {
    let tl = layout.tables.get(table)?;
    let n = usize::try_from(u32_at(bytes, tl.count)?).ok()?;
    Some(n.min(tl.capacity))
}

/// The slot of row `id` (binary search over the sorted ids).
fn find_row(bytes: &[u8], layout: &StateLayout, table: usize, id: i64) -> Option<usize> {
    let tl = layout.tables.get(table)?;
    let n = row_count(bytes, layout, table)?;
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let v = i64_at(bytes, tl.ids + WORD * mid)?;
        match v.cmp(&id) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(mid),
        }
    }
    None
}

/// The running body's context.
///
/// # Safety
/// `ctx` must be the `JitCtx` `JitSite::run_marker` passes to a body, whose
/// `body` points to a live `BodyCtx` nothing else accesses during the call.
unsafe fn body<'a>(ctx: *mut JitCtx) -> Option<(&'a mut JitCtx, &'a mut BodyCtx<'a>)> {
    // SAFETY: per this function's contract.
    unsafe {
        let c = ctx.as_mut()?;
        let b = c.body.cast::<BodyCtx<'a>>().as_mut()?;
        Some((c, b))
    }
}

fn table_index(table: i64) -> Option<usize> {
    usize::try_from(table).ok()
}

/// `set row.field = value`: `MissingRow` when there is no such row.
pub(crate) extern "C" fn body_set_field(
    ctx: *mut JitCtx,
    table: i64,
    field: i64,
    id: i64,
    word: i64,
    present: i64,
) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((c, b)) = (unsafe { body(ctx) }) else {
        return code::INTERNAL;
    };
    let (Some(t), Ok(f)) = (table_index(table), usize::try_from(field)) else {
        return code::INTERNAL;
    };
    let layout = b.layout;
    let Some(at) = find_row(b.view(), layout, t, id) else {
        c.missing_table = table;
        c.missing_id = id;
        return code::MISSING_ROW;
    };
    let Some(cells) = layout
        .tables
        .get(t)
        .and_then(|tl| tl.columns.get(f))
        .copied()
    else {
        return code::INTERNAL;
    };
    if !b.write_cell(cells, at, word, present != 0) {
        return code::INTERNAL;
    }
    let (Ok(t), Ok(f)) = (u32::try_from(table), u32::try_from(field)) else {
        return code::INTERNAL;
    };
    b.delta.set_fields.push((t, id, f));
    0
}

/// `session.s = value`.
pub(crate) extern "C" fn body_set_session(
    ctx: *mut JitCtx,
    s: i64,
    word: i64,
    present: i64,
) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return code::INTERNAL;
    };
    let (Ok(i), Ok(sid)) = (usize::try_from(s), u32::try_from(s)) else {
        return code::INTERNAL;
    };
    let cells = b.layout.session;
    if !b.write_cell(cells, i, word, present != 0) {
        return code::INTERNAL;
    }
    b.delta.set_session.push(sid);
    0
}

/// Appends a row of `none`s with the next id (in `ctx.out`); a full table
/// rejects, an id overflow faults.
pub(crate) extern "C" fn body_insert(ctx: *mut JitCtx, table: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((c, b)) = (unsafe { body(ctx) }) else {
        return code::INTERNAL;
    };
    let (Some(t), Ok(tid)) = (table_index(table), u32::try_from(table)) else {
        return code::INTERNAL;
    };
    let layout = b.layout;
    let (Some(def), Some(tl)) = (b.program.tables.get(t), layout.tables.get(t)) else {
        return code::INTERNAL;
    };
    let Some(n) = row_count(b.view(), layout, t) else {
        return code::INTERNAL;
    };
    if !gate::fits_capacity(n.saturating_add(1), def.capacity) || n >= tl.capacity {
        b.full = Some(t);
        return code::REJECTED;
    }
    // One past the highest id ever held (`TableState::issue_id`).
    let Some(high) = i64_at(b.view(), tl.high) else {
        return code::INTERNAL;
    };
    let Some(id) = high.checked_add(1) else {
        return code::OVERFLOW;
    };
    let Ok(count) = u32::try_from(n + 1) else {
        return code::INTERNAL;
    };
    // The slot's cells are zero (`none`) already: the encoding keeps unused
    // slots zero.
    if !b.write(tl.ids + WORD * n, &id.to_le_bytes())
        || !b.write(tl.count, &count.to_le_bytes())
        || !b.write(tl.high, &id.to_le_bytes())
    {
        return code::INTERNAL;
    }
    b.delta.inserted.push((tid, id));
    c.out = id;
    0
}

/// Sets field `field` of the row `body_insert` just appended.
pub(crate) extern "C" fn body_insert_cell(
    ctx: *mut JitCtx,
    table: i64,
    field: i64,
    word: i64,
    present: i64,
) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return code::INTERNAL;
    };
    let (Some(t), Ok(f)) = (table_index(table), usize::try_from(field)) else {
        return code::INTERNAL;
    };
    let layout = b.layout;
    let Some(n) = row_count(b.view(), layout, t).filter(|&n| n > 0) else {
        return code::INTERNAL;
    };
    let Some(cells) = layout
        .tables
        .get(t)
        .and_then(|tl| tl.columns.get(f))
        .copied()
    else {
        return code::INTERNAL;
    };
    if !b.write_cell(cells, n - 1, word, present != 0) {
        return code::INTERNAL;
    }
    0
}

/// `delete row`: the rows above shift down, the freed slot is zeroed.
pub(crate) extern "C" fn body_delete(ctx: *mut JitCtx, table: i64, id: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((c, b)) = (unsafe { body(ctx) }) else {
        return code::INTERNAL;
    };
    let (Some(t), Ok(tid)) = (table_index(table), u32::try_from(table)) else {
        return code::INTERNAL;
    };
    let layout = b.layout;
    let Some(tl) = layout.tables.get(t) else {
        return code::INTERNAL;
    };
    let Some(at) = find_row(b.view(), layout, t, id) else {
        c.missing_table = table;
        c.missing_id = id;
        return code::MISSING_ROW;
    };
    let Some(n) = row_count(b.view(), layout, t) else {
        return code::INTERNAL;
    };
    let mut ok = true;
    for j in at..n {
        // Slot j takes slot j + 1's row; the last slot becomes zero.
        let from = j + 1;
        let id = if from < n {
            i64_at(b.view(), tl.ids + WORD * from).unwrap_or(0)
        } else {
            0
        };
        ok &= b.write(tl.ids + WORD * j, &id.to_le_bytes());
        for cells in &tl.columns {
            let (word, present) = if from < n {
                let v = b.view();
                (
                    i64_at(v, cells.word_at(from)).unwrap_or(0),
                    v.get(cells.present_at(from)).copied().unwrap_or(0),
                )
            } else {
                (0, 0)
            };
            ok &= b.write(cells.word_at(j), &word.to_le_bytes());
            ok &= b.write(cells.present_at(j), &[present]);
        }
    }
    let count = u32::try_from(n.saturating_sub(1)).unwrap_or(0);
    ok &= b.write(tl.count, &count.to_le_bytes());
    if !ok {
        return code::INTERNAL;
    }
    b.delta.deleted.push((tid, id));
    0
}

/// Whether row `id` of `table` exists: 1 or 0.
pub(crate) extern "C" fn row_exists(ctx: *mut JitCtx, table: i64, id: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return 0;
    };
    let layout = b.layout;
    let found = table_index(table).and_then(|t| find_row(b.view(), layout, t, id));
    i64::from(found.is_some())
}

pub(crate) extern "C" fn snap_len(ctx: *mut JitCtx) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return 0;
    };
    i64::try_from(b.snap.len()).unwrap_or(0)
}

pub(crate) extern "C" fn snap_push(ctx: *mut JitCtx, id: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return code::INTERNAL;
    };
    b.snap.push(id);
    0
}

pub(crate) extern "C" fn snap_get(ctx: *mut JitCtx, i: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return 0;
    };
    usize::try_from(i)
        .ok()
        .and_then(|i| b.snap.get(i).copied())
        .unwrap_or(0)
}

pub(crate) extern "C" fn snap_truncate(ctx: *mut JitCtx, n: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return 0;
    };
    b.snap.truncate(usize::try_from(n).unwrap_or(0));
    0
}

/// `go` number `n` was reached; the frame follows (`frame_save`).
pub(crate) extern "C" fn go_begin(ctx: *mut JitCtx, n: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return 0;
    };
    let cells = vec![0; 2 * b.frame_len];
    b.go = usize::try_from(n).ok().map(|n| (n, cells));
    0
}

/// `reject` number `n` was reached; the frame follows (`frame_save`), for
/// rendering its message, and then the body returns `code::REJECTED`.
pub(crate) extern "C" fn reject_begin(ctx: *mut JitCtx, n: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return 0;
    };
    let cells = vec![0; 2 * b.frame_len];
    b.reject = usize::try_from(n).ok().map(|n| (n, cells));
    0
}

/// One frame slot of the snapshot being taken: a `reject`'s when one was
/// begun (it ends the body, so it is always the last), else the `go`'s.
pub(crate) extern "C" fn frame_save(ctx: *mut JitCtx, slot: i64, word: i64, present: i64) -> i64 {
    // SAFETY: called only by a compiled body, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return 0;
    };
    let snapshot = if b.reject.is_some() {
        &mut b.reject
    } else {
        &mut b.go
    };
    if let (Some((_, cells)), Ok(i)) = (snapshot, usize::try_from(slot)) {
        if let Some([w, p]) = cells.get_mut(2 * i..2 * i + 2) {
            *w = word;
            *p = present;
        }
    }
    0
}

/// Argument `i` of a `go`, as the `go` function computed it.
pub(crate) extern "C" fn go_out(ctx: *mut JitCtx, i: i64, word: i64, present: i64) -> i64 {
    // SAFETY: called only by a `go` function, with the `ctx` the runner passed.
    let Some((_, b)) = (unsafe { body(ctx) }) else {
        return 0;
    };
    if let Ok(i) = usize::try_from(i) {
        if b.go_out.len() <= i {
            b.go_out.resize(i + 1, (0, false));
        }
        if let Some(cell) = b.go_out.get_mut(i) {
            *cell = (word, present != 0);
        }
    }
    0
}

// ---- the runner ------------------------------------------------------------------

/// A fault code of compiled code as the interpreter's fault.
pub(crate) fn fault_of(r: i64, ctx: &JitCtx) -> Option<Fault> {
    Some(match r {
        code::DIVISION_BY_ZERO => Fault::DivisionByZero,
        code::NONE_VALUE => Fault::NoneValue,
        code::MISSING_ROW => Fault::MissingRow {
            table: u32::try_from(ctx.missing_table).unwrap_or(u32::MAX),
            id: ctx.missing_id,
        },
        code::OVERFLOW => Fault::Overflow,
        code::OUT_OF_RANGE => Fault::OutOfRange,
        code::TEXT => Fault::TypeConfusion("a text id is not in the pool"),
        _ => return None,
    })
}

/// The value a compiled value of kind `tag` stands for.
fn value_of(tag: Tag, word: i64, present: bool, pool: &TextPool) -> Option<Value> {
    if !present {
        return Some(Value::None);
    }
    Some(match tag {
        Tag::None => Value::None,
        Tag::Int => Value::Int(word),
        Tag::Money => Value::Money(word),
        Tag::Bool => Value::Bool(word != 0),
        Tag::Text => Value::Text(pool.get(u32::try_from(word).ok()?)?.clone()),
        Tag::Date => Value::Date(Date::from_day_number(word)?),
        Tag::Time => Value::Time(Time {
            hour: u8::try_from(word / 60).ok()?,
            minute: u8::try_from(word % 60).ok()?,
        }),
        Tag::Enum => Value::Enum(u32::try_from(word).ok()?),
        Tag::Row => Value::Row(word),
    })
}

pub(crate) fn pool_has(pool: &TextPool, texts: &[(u32, Arc<str>)]) -> bool {
    texts.iter().all(|(id, text)| {
        pool.get(*id)
            .is_some_and(|s| Arc::ptr_eq(s, text) || **s == **text)
    })
}

/// Whether the cell may hold what it holds after a write: `none` only where
/// optional, an enum index in range, a reference to an existing row.
fn cell_fits(
    program: &ir::Program,
    layout: &StateLayout,
    bytes: &[u8],
    cells: Cells,
    i: usize,
    ty: &Ty,
) -> bool {
    let present = bytes.get(cells.present_at(i)).is_some_and(|&p| p != 0);
    let base = match ty {
        Ty::Optional(inner) => {
            if !present {
                return true;
            }
            &**inner
        }
        other => other,
    };
    if !present {
        return false;
    }
    let Some(word) = i64_at(bytes, cells.word_at(i)) else {
        return false;
    };
    match base {
        Ty::Enum(e) => {
            let variants = program.enums.get(idx(*e)).map_or(0, |d| d.variants.len());
            usize::try_from(word).is_ok_and(|w| w < variants)
        }
        Ty::Row(t) => find_row(bytes, layout, idx(*t), word).is_some(),
        _ => true,
    }
}

/// The gate's value checks (`gate::validate_commit` without permissions and
/// invariants) on the bytes after the body.
fn values_fit(program: &ir::Program, layout: &StateLayout, bytes: &[u8], delta: &Delta) -> bool {
    for &(t, id) in &delta.inserted {
        let (Some(def), Some(tl)) = (program.tables.get(idx(t)), layout.tables.get(idx(t))) else {
            return false;
        };
        let Some(at) = find_row(bytes, layout, idx(t), id) else {
            continue;
        };
        for (field, cells) in def.fields.iter().zip(&tl.columns) {
            if !cell_fits(program, layout, bytes, *cells, at, &field.ty) {
                return false;
            }
        }
    }
    for &(t, id, f) in &delta.set_fields {
        let ty = program
            .tables
            .get(idx(t))
            .and_then(|d| d.fields.get(idx(f)));
        let cells = layout
            .tables
            .get(idx(t))
            .and_then(|tl| tl.columns.get(idx(f)));
        let (Some(field), Some(cells)) = (ty, cells) else {
            return false;
        };
        let Some(at) = find_row(bytes, layout, idx(t), id) else {
            continue;
        };
        if !cell_fits(program, layout, bytes, *cells, at, &field.ty) {
            return false;
        }
    }
    for &s in &delta.set_session {
        let Some(def) = program.session.get(idx(s)) else {
            return false;
        };
        if !cell_fits(program, layout, bytes, layout.session, idx(s), &def.ty) {
            return false;
        }
    }
    true
}

impl JitSite {
    /// Whether marker `marker` runs natively.
    pub fn marker_is_compiled(&self, marker: MarkerId) -> bool {
        self.markers
            .get(idx(marker))
            .is_some_and(|m| m.status.is_ok())
    }

    /// Why marker `marker` is not compiled, if it is not.
    pub fn marker_fallback_reason(&self, marker: MarkerId) -> Option<&JitError> {
        self.markers
            .get(idx(marker))
            .and_then(|m| m.status.as_ref().err())
    }

    /// `(compiled, fallback)` over the site's markers.
    pub fn marker_stats(&self) -> (usize, usize) {
        let compiled = self.markers.iter().filter(|m| m.status.is_ok()).count();
        (compiled, self.markers.len() - compiled)
    }

    /// Every marker's name and, when it is not compiled, why.
    pub fn marker_fallbacks(&self) -> Vec<(&str, &JitError)> {
        self.markers
            .iter()
            .filter_map(|m| m.status.as_ref().err().map(|e| (m.name.as_str(), e)))
            .collect()
    }

    /// Runs marker `marker` with `args` on `state` (bytes of this site's
    /// layout, encoded with `pool` or a pool grown from it), in place: the
    /// outcome of `interp::exec::run_marker` on the decoded state, and on a
    /// commit the bytes of its new world; on a rejection the bytes are
    /// exactly as they were. `undo` is scratch memory (left empty).
    ///
    /// `Err` means nothing was changed and the interpreter must run the step:
    /// the marker is not compiled ([`JitFault::NotCompiled`]) or the inputs do
    /// not fit the code ([`JitFault::Input`]: a state of another size, an
    /// argument of another kind than its parameter or an enum index out of
    /// range, a pool without the code's text constants).
    pub fn run_marker(
        &self,
        marker: MarkerId,
        state: &mut [u8],
        args: &[Value],
        pool: &mut TextPool,
        undo: &mut UndoLog,
    ) -> Result<MarkerOutcome, JitFault> {
        self.run(marker, state, args, pool, undo, None)
    }

    /// [`JitSite::run_marker`], and on a rejection the alert the interpreter
    /// gives (`exec::Outcome::Rejected`'s), written to `alert`; messages
    /// with interpolations intern the texts they compute into `pool`. Which
    /// outcome, and the bytes, are those of `run_marker`.
    pub fn run_marker_alert(
        &self,
        marker: MarkerId,
        state: &mut [u8],
        args: &[Value],
        pool: &mut TextPool,
        undo: &mut UndoLog,
        alert: &mut String,
    ) -> Result<MarkerOutcome, JitFault> {
        alert.clear();
        self.run(marker, state, args, pool, undo, Some(alert))
    }

    /// The runner; with `alert`, a rejection's text is rendered into it (on
    /// the bytes as the refusal found them, before any rollback).
    fn run(
        &self,
        marker: MarkerId,
        state: &mut [u8],
        args: &[Value],
        pool: &mut TextPool,
        undo: &mut UndoLog,
        mut alert: Option<&mut String>,
    ) -> Result<MarkerOutcome, JitFault> {
        let gi = &self.gate;
        let program = &gi.program;
        let mut say = |text: &dyn Fn() -> String| {
            if let Some(a) = alert.as_deref_mut() {
                a.push_str(&text());
            }
        };
        let (Some(def), Some(jm)) = (
            program.markers.get(idx(marker)),
            self.markers.get(idx(marker)),
        ) else {
            say(&|| exec_alert::unknown_marker(marker));
            return Ok(rejected(MarkerRejection::Call));
        };
        if args.len() != def.params.len() {
            say(&|| exec_alert::arity(def, args.len()));
            return Ok(rejected(MarkerRejection::Call));
        }
        let native = jm.status.as_ref().map_err(|_| JitFault::NotCompiled)?;
        if state.len() != gi.layout.size {
            return Err(JitFault::Input(format!(
                "a state of this site has {} bytes, not {}",
                gi.layout.size,
                state.len()
            )));
        }
        for ((arg, &tag), p) in args.iter().zip(&native.params).zip(&def.params) {
            let got = Tag::of(arg);
            if got != tag && got != Tag::None {
                return Err(JitFault::Input(format!(
                    "an argument {arg:?} for a parameter of type {:?}",
                    p.ty
                )));
            }
        }
        check_enum_args(program, def, args)?;
        let texts_ok = pool_has(pool, &native.texts)
            && pool_has(pool, &native.messages.texts)
            && native.gos.iter().all(|g| pool_has(pool, &g.texts));
        if !texts_ok {
            return Err(JitFault::Input(
                "the text pool lacks the code's text constants (use the pool the site was compiled with)".into(),
            ));
        }
        let frame = self
            .frame(args, pool)
            .map_err(|e| JitFault::Input(e.to_string()))?;
        for index in 0..def.requires.len() {
            let pred = self
                .requires(idx(marker), index)
                .ok_or(JitFault::NotCompiled)?;
            let fault = match pred.eval(state, &frame, pool) {
                Ok(true) => continue,
                Ok(false) => None,
                Err(JitFault::Fault(f)) => Some(f),
                Err(other) => return Err(other),
            };
            if let Some(a) = alert {
                let on = self.on(state);
                a.push_str(&match fault {
                    None => native
                        .messages
                        .requires_false(&on, def, index, &frame.cells, pool)?,
                    Some(f) => exec_alert::rejected(program, def, Some(&f)),
                });
            }
            return Ok(rejected(MarkerRejection::Requires { index }));
        }

        undo.clear();
        let (r, delta, go, fault, stop) = {
            // One pointer for the code and its helpers alike.
            let ptr = state.as_mut_ptr();
            let mut bctx = BodyCtx {
                state: ptr,
                len: state.len(),
                program,
                layout: &gi.layout,
                undo: &mut *undo,
                delta: Delta::default(),
                snap: Vec::new(),
                go: None,
                reject: None,
                full: None,
                frame_len: native.slot_tags.len(),
                go_out: Vec::new(),
            };
            let mut ctx = JitCtx::new(
                pool as *mut TextPool,
                (&mut bctx as *mut BodyCtx<'_>).cast(),
            );
            // SAFETY: `body` was finalized by this site's module, which
            // outlives `&self`. The code reads the state only below the
            // layout's size (checked equal to `state.len()`), the frame only
            // below its parameters (`frame` is padded to the site's widest
            // frame), and writes nothing itself: its helpers write the state
            // through `bctx.state`, the `&mut [u8]` lent for this call and
            // not touched otherwise until the call returns, and reach `pool`
            // and `bctx` through `ctx`, both borrowed for the call alone.
            let r = unsafe { (native.body)(ptr, frame.cells.as_ptr(), &mut ctx) };
            let fault = fault_of(r, &ctx);
            let stop = (bctx.reject, bctx.full);
            (r, bctx.delta, bctx.go, fault, stop)
        };
        if r != 1 {
            if r == code::REJECTED || fault.is_some() {
                // The message is rendered on the state the body left, as
                // the interpreter renders it on its copy of the world.
                let text = match alert {
                    Some(_) => self.stop_alert(&native.messages, def, state, fault, stop, pool),
                    None => Ok(String::new()),
                };
                undo.rollback(state);
                if let Some(a) = alert {
                    a.push_str(&text?);
                }
                return Ok(rejected(MarkerRejection::Body));
            }
            undo.rollback(state);
            return Err(JitFault::Input(format!(
                "the compiled body of `{}` returned {r}",
                def.name
            )));
        }

        // The gate, in `gate::validate_commit`'s order: permissions, values,
        // invariants (capacities were checked by each insert).
        let refusal = match gate::check_permissions(program, def, &delta) {
            Err(v) => Some(Ok(v.to_string())),
            Ok(()) if !values_fit(program, &gi.layout, state, &delta) => Some(match alert {
                Some(_) => alert::values_violation(&self.on(state), def, &delta, pool),
                None => Ok(String::new()),
            }),
            Ok(()) => None,
        };
        if let Some(text) = refusal {
            undo.rollback(state);
            if let Some(a) = alert {
                a.push_str(&text?);
            }
            return Ok(rejected(MarkerRejection::Gate));
        }
        let written = gate::written_locs(program, &delta);
        let empty = self
            .frame(&[], pool)
            .map_err(|e| JitFault::Input(e.to_string()));
        let empty = match empty {
            Ok(f) => f,
            Err(e) => {
                undo.rollback(state);
                return Err(e);
            }
        };
        for (i, reads) in gi.inv_reads.iter().enumerate() {
            if !(reads.is_empty() || footprint::touches(&written, reads)) {
                continue;
            }
            let result = match self.invariant(i) {
                Some(pred) => pred.eval(state, &empty, pool),
                None => Err(JitFault::NotCompiled),
            };
            match result {
                Ok(true) => {}
                Ok(false) | Err(JitFault::Fault(_)) => {
                    undo.rollback(state);
                    if let Some(a) = alert {
                        let name = program.invariants.get(i).map(|d| d.name.clone());
                        let v = gate::Violation::Invariant {
                            name: name.unwrap_or_default(),
                        };
                        a.push_str(&v.to_string());
                    }
                    return Ok(rejected(MarkerRejection::Gate));
                }
                Err(other) => {
                    undo.rollback(state);
                    return Err(other);
                }
            }
        }

        // `go`, on the new state.
        let go = match go {
            None => None,
            Some((n, cells)) => match self.run_go(native, n, state, &cells, pool) {
                Ok(Ok(target)) => Some(target),
                Ok(Err(f)) => {
                    undo.rollback(state);
                    if let Some(a) = alert {
                        a.push_str(&exec_alert::failed(program, &def.name, &f));
                    }
                    return Ok(rejected(MarkerRejection::Body));
                }
                Err(e) => {
                    undo.rollback(state);
                    return Err(e);
                }
            },
        };
        undo.clear();
        Ok(MarkerOutcome::Committed { go })
    }

    /// Evaluates `go` number `n` in its frame snapshot; `Err` with the fault
    /// when an argument faults.
    fn run_go(
        &self,
        native: &MarkerNative,
        n: usize,
        state: &mut [u8],
        cells: &[i64],
        pool: &mut TextPool,
    ) -> Result<Result<(PageId, Vec<Value>), Fault>, JitFault> {
        let gi = &self.gate;
        let go = native
            .gos
            .get(n)
            .ok_or_else(|| JitFault::Input("an unknown `go`".into()))?;
        let mut undo = UndoLog::new();
        let ptr = state.as_mut_ptr();
        let mut bctx = BodyCtx {
            state: ptr,
            len: state.len(),
            program: &gi.program,
            layout: &gi.layout,
            undo: &mut undo,
            delta: Delta::default(),
            snap: Vec::new(),
            go: None,
            reject: None,
            full: None,
            frame_len: 0,
            go_out: Vec::new(),
        };
        let mut ctx = JitCtx::new(
            pool as *mut TextPool,
            (&mut bctx as *mut BodyCtx<'_>).cast(),
        );
        // SAFETY: `func` was finalized by this site's module, which outlives
        // `&self`. It reads the state below the layout's size (checked by the
        // caller) and the frame `cells` below the body's frame length (the
        // snapshot has a word and a presence for each of the body's slots,
        // the only slots `go` arguments read); it writes only through its
        // helpers, which reach `bctx` and `pool` through `ctx`, both borrowed
        // for the call alone.
        let r = unsafe { (go.func)(ptr, cells.as_ptr(), &mut ctx) };
        if r != 1 {
            return if let Some(f) = fault_of(r, &ctx) {
                Ok(Err(f))
            } else {
                Err(JitFault::Input(format!("a compiled `go` returned {r}")))
            };
        }
        let out = std::mem::take(&mut bctx.go_out);
        let mut args = Vec::with_capacity(go.tags.len());
        for (i, &tag) in go.tags.iter().enumerate() {
            let (word, present) = out.get(i).copied().unwrap_or((0, false));
            let v = value_of(tag, word, present, pool)
                .ok_or_else(|| JitFault::Input("a `go` argument is not a value".into()))?;
            args.push(v);
        }
        Ok(Ok((go.page, args)))
    }
}

fn rejected(cause: MarkerRejection) -> MarkerOutcome {
    MarkerOutcome::Rejected { cause }
}

/// Enum arguments must be variants of their parameter's enum (the code
/// assumes every enum word it reads is one).
fn check_enum_args(
    program: &ir::Program,
    def: &ir::MarkerDef,
    args: &[Value],
) -> Result<(), JitFault> {
    for (arg, p) in args.iter().zip(&def.params) {
        let base = match &p.ty {
            Ty::Optional(inner) => &**inner,
            other => other,
        };
        if let (Value::Enum(v), Ty::Enum(e)) = (arg, base) {
            let variants = program.enums.get(idx(*e)).map_or(0, |d| d.variants.len());
            if idx(*v) >= variants {
                return Err(JitFault::Input(format!(
                    "variant #{v} of a {}-variant enum",
                    variants
                )));
            }
        }
    }
    Ok(())
}

/// `bytes` with the world replaced by `world` (the rest decoded from them and
/// encoded back): the bytes the interpreter's new world has, for comparing
/// engines. `pool` must be the pool `bytes` were encoded with.
pub fn encode_world(
    layout: &StateLayout,
    program: &ir::Program,
    bytes: &[u8],
    world: &crate::interp::exec::World,
    pool: &mut TextPool,
) -> Result<Vec<u8>, LayoutError> {
    let mut state = crate::layout::decode(layout, program, bytes, pool)?;
    state.world = world.clone();
    crate::layout::encode(layout, program, &state, pool)
}
