//! The `extern "C"` helpers a compiled marker body calls for every write
//! (set a field or a session variable, insert, delete) and for `go`,
//! `reject` and loop snapshots: each checks its arguments against the
//! layout, records the old bytes in the run's [`UndoLog`] and the write in
//! its `Delta`, and returns a code the body branches on.

use super::*;

/// What a running body's helpers reach through `JitCtx::body`.
pub(crate) struct BodyCtx<'a> {
    pub(crate) state: *mut u8,
    pub(crate) len: usize,
    pub(crate) program: &'a ir::Program,
    pub(crate) layout: &'a StateLayout,
    pub(crate) undo: &'a mut UndoLog,
    pub(crate) delta: &'a mut Delta,
    /// Row-id snapshots of `for` and `delete ... where`, nested.
    pub(crate) snap: &'a mut Vec<i64>,
    /// The `go` reached last and the frame there (word, presence per slot).
    pub(crate) go: Option<(usize, Vec<i64>)>,
    /// The `reject` that stopped the body and the frame there.
    pub(crate) reject: Option<(usize, Vec<i64>)>,
    /// The table an `insert` found full (which stopped the body).
    pub(crate) full: Option<usize>,
    pub(crate) frame_len: usize,
    /// The values a `go` function produced.
    pub(crate) go_out: &'a mut Vec<(i64, bool)>,
}

/// The buffers a body fills, lent to each run (empty) so that a run reuses
/// the last one's memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyScratch {
    pub(crate) delta: Delta,
    pub(crate) snap: Vec<i64>,
    pub(crate) go_out: Vec<(i64, bool)>,
}

impl BodyScratch {
    pub(crate) fn emptied(&mut self) -> &mut BodyScratch {
        let Delta {
            inserted,
            deleted,
            set_fields,
            set_session,
        } = &mut self.delta;
        inserted.clear();
        deleted.clear();
        set_fields.clear();
        set_session.clear();
        self.snap.clear();
        self.go_out.clear();
        self
    }
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
pub(crate) fn row_count(bytes: &[u8], layout: &StateLayout, table: usize) -> Option<usize> {
    let tl = layout.tables.get(table)?;
    let n = usize::try_from(u32_at(bytes, tl.count)?).ok()?;
    Some(n.min(tl.capacity))
}

/// The slot of row `id` ([`row_slot`] among the table's rows).
pub(crate) fn find_row(bytes: &[u8], layout: &StateLayout, table: usize, id: i64) -> Option<usize> {
    let tl = layout.tables.get(table)?;
    row_slot(bytes, tl, row_count(bytes, layout, table)?, id)
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

pub(crate) fn table_index(table: i64) -> Option<usize> {
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
