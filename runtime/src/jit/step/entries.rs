//! The flat state's byte-level edits that keep the layout's canonical
//! encoding: sorted entry lists (insert in byte order, remove, clear, the
//! freed bytes zero) and a reset that copies only the rows in use.

use super::*;

pub(super) fn count_of(state: &[u8], list: EntryList) -> R<usize> {
    let n = idx(u32_at(state, list.count)?);
    if n > list.capacity {
        return Err(FlatError::malformed(format!(
            "a count of {n} where {} fit",
            list.capacity
        )));
    }
    Ok(n)
}

/// Inserts `entry` at its place in byte order; with `set`, an equal entry
/// already there is kept instead. The byte offset where the list's entries
/// changed (bytes from there to the end of the used entries, and the count,
/// were written), or `None` when nothing was.
pub(super) fn insert_sorted(
    state: &mut [u8],
    list: EntryList,
    entry: &[u8],
    set: bool,
    what: &'static str,
) -> R<Option<usize>> {
    let n = count_of(state, list)?;
    let size = list.entry_size;
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let at = list.entry_at(mid);
        let e = state
            .get(at..at + size)
            .ok_or_else(|| FlatError::malformed("an entry is outside the state"))?;
        match e.cmp(entry) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Equal if set => return Ok(None),
            _ => hi = mid,
        }
    }
    if n >= list.capacity {
        return Err(FlatError::Capacity {
            what,
            needed: n + 1,
            capacity: list.capacity,
        });
    }
    let from = list.entry_at(lo);
    let end = list.entry_at(n);
    if end + size > state.len() {
        return Err(FlatError::malformed("an entry is outside the state"));
    }
    state.copy_within(from..end, from + size);
    put(state, from, entry)?;
    put_u32(state, list.count, u32::try_from(n + 1).unwrap_or(u32::MAX))?;
    Ok(Some(from))
}

/// The byte offset of the first entry `matches` accepts, if any.
pub(super) fn find_where(
    state: &[u8],
    list: EntryList,
    matches: impl Fn(&[u8]) -> bool,
) -> R<Option<usize>> {
    let n = count_of(state, list)?;
    let size = list.entry_size;
    for i in 0..n {
        let at = list.entry_at(i);
        let e = state
            .get(at..at + size)
            .ok_or_else(|| FlatError::malformed("an entry is outside the state"))?;
        if matches(e) {
            return Ok(Some(at));
        }
    }
    Ok(None)
}

/// Removes the entry at byte offset `at` (one `find_where` gave), keeping
/// the rest in order and the freed bytes zero.
pub(super) fn remove_at(state: &mut [u8], list: EntryList, at: usize) -> R<()> {
    let n = count_of(state, list)?;
    let size = list.entry_size;
    let end = list.entry_at(n);
    if n == 0 || at < list.entry_at(0) || at + size > end || end > state.len() {
        return Err(FlatError::malformed("an entry is outside the state"));
    }
    state.copy_within(at + size..end, at);
    state[end - size..end].fill(0);
    put_u32(state, list.count, u32::try_from(n - 1).unwrap_or(0))
}

/// Empties a list, zeroing its entries.
pub(super) fn clear_list(state: &mut [u8], list: EntryList) -> R<()> {
    let n = count_of(state, list)?;
    state
        .get_mut(list.entry_at(0)..list.entry_at(n))
        .ok_or_else(|| FlatError::malformed("an entry is outside the state"))?
        .fill(0);
    put_u32(state, list.count, 0)
}

/// A run of capacity past a count: `capacity` units of `unit` bytes at
/// `base`, of which the first `count` (the `u32` at `count_at`) are used.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tail {
    base: usize,
    unit: usize,
    capacity: usize,
    count_at: usize,
}

/// Every table's id array and columns and the visited list, in byte order.
pub(super) fn tails_of(layout: &StateLayout) -> Vec<Tail> {
    let mut tails = Vec::new();
    for t in &layout.tables {
        let tail = |base, unit| Tail {
            base,
            unit,
            capacity: t.capacity,
            count_at: t.count,
        };
        tails.push(tail(t.ids, WORD));
        for c in &t.columns {
            tails.push(tail(c.words, WORD));
            tails.push(tail(c.present, 1));
        }
    }
    let v = layout.visited;
    tails.push(Tail {
        base: v.entries,
        unit: v.entry_size,
        capacity: v.capacity,
        count_at: v.count,
    });
    tails.sort_by_key(|t| t.base);
    tails
}

/// Makes `dst` equal to `src`, both canonical states of one layout, copying
/// only what may differ: past the larger of the two counts both are zero,
/// so a reset costs the rows in use rather than the whole capacity.
pub(super) fn copy_used(
    dst: &mut [u8],
    src: &[u8],
    tails: &[Tail],
    used: &mut Vec<usize>,
) -> R<()> {
    if dst.len() != src.len() {
        return Err(FlatError::StateSize {
            expected: dst.len(),
            got: src.len(),
        });
    }
    // Every count is read before any is overwritten (a table's count lies
    // in the stretch copied before its first tail).
    used.clear();
    for t in tails {
        let n = u32_at(dst, t.count_at)?.max(u32_at(src, t.count_at)?);
        used.push(idx(n).min(t.capacity));
    }
    let mut at = 0;
    for (t, &n) in tails.iter().zip(used.iter()) {
        let end = t.base + t.unit * n;
        if t.base < at || end > dst.len() {
            return Err(FlatError::malformed("overlapping layout regions"));
        }
        dst[at..end].copy_from_slice(&src[at..end]);
        at = t.base + t.unit * t.capacity;
    }
    let rest = at.min(dst.len());
    dst[rest..].copy_from_slice(&src[rest..]);
    Ok(())
}
