//! The `extern "C"` functions compiled predicates call for what needs the
//! strings behind text ids: ordering, `len`, `lower`, `upper`, `trim`,
//! `contains`, `starts_with`, `ends_with`, `left`, `right`, `replace`,
//! `to_int`, `to_money` (through `crate::textops`) and text interpolation
//! (`text_interp`). (Text equality needs no helper: one pool gives equal
//! strings one id.)
//!
//! Each helper gets the call's [`JitCtx`], whose `pool` is the `&mut TextPool`
//! the caller of `JitPredicate::eval` lent for the call; results that are new
//! texts are interned into it, so they compare by id like every other text.
//! Helpers never panic (unwinding out of `extern "C"` would abort): an id not
//! in the pool, or a pool that is full, is reported with an out-of-range
//! result the generated code turns into a fault.

use super::code;
use super::text::Template;
use crate::interp::eval::Fault;
use crate::layout::{Derive, TextPool};
use std::cmp::Ordering;
use std::sync::Arc;

/// What compiled code receives as its third argument. `repr(C)`: the code
/// stores the missing row of a `MissingRow` fault at these fields' offsets.
#[repr(C)]
pub(crate) struct JitCtx {
    pub pool: *mut TextPool,
    pub missing_table: i64,
    pub missing_id: i64,
    /// A marker body's `marker::BodyCtx` (null for predicates).
    pub body: *mut std::ffi::c_void,
    /// A helper's second result (the id `marker::body_insert` gave).
    pub out: i64,
}

impl JitCtx {
    /// The context for one call of compiled code: `pool` for texts, and
    /// `body` a marker body's `marker::BodyCtx` (null for predicates and
    /// page code).
    pub(crate) fn new(pool: *mut TextPool, body: *mut std::ffi::c_void) -> JitCtx {
        JitCtx {
            pool,
            missing_table: 0,
            missing_id: 0,
            body,
            out: 0,
        }
    }

    /// The interpreter's fault for fault code `r` of compiled code (a
    /// missing row's table and id read from this context), if `r` is one.
    pub(crate) fn fault(&self, r: i64) -> Option<Fault> {
        Some(match r {
            code::DIVISION_BY_ZERO => Fault::DivisionByZero,
            code::NONE_VALUE => Fault::NoneValue,
            code::MISSING_ROW => Fault::MissingRow {
                table: u32::try_from(self.missing_table).unwrap_or(u32::MAX),
                id: self.missing_id,
            },
            code::OVERFLOW => Fault::Overflow,
            code::OUT_OF_RANGE => Fault::OutOfRange,
            code::TEXT => Fault::TypeConfusion("a text id is not in the pool"),
            _ => return None,
        })
    }
}

/// What `text_cmp` returns for an unknown id (its results are otherwise -1, 0
/// and 1).
pub(crate) const CMP_ERROR: i64 = 2;
/// What the other helpers return for an unknown id or a full pool (their
/// results are otherwise ≥ 0).
pub(crate) const ERROR: i64 = -1;

/// The call's pool.
///
/// # Safety
/// `ctx` must be null or point to a live `JitCtx` whose `pool` is null or
/// points to a `TextPool` nothing else accesses during the call — which
/// `JitPredicate::eval` guarantees for the code it calls.
unsafe fn pool<'a>(ctx: *mut JitCtx) -> Option<&'a mut TextPool> {
    // SAFETY: per this function's contract.
    unsafe { ctx.as_mut().and_then(|c| c.pool.as_mut()) }
}

fn text(pool: &TextPool, id: i64) -> Option<&Arc<str>> {
    pool.get(u32::try_from(id).ok()?)
}

/// The id of `s`, interned if new.
fn id_of(pool: &mut TextPool, s: &str) -> i64 {
    let id = match pool.find(s) {
        Some(id) => Some(id),
        None => pool.intern(&Arc::from(s)),
    };
    id.map_or(ERROR, i64::from)
}

/// The code-point (UTF-8 byte) order of two texts: -1, 0 or 1.
pub(crate) extern "C" fn text_cmp(ctx: *mut JitCtx, a: i64, b: i64) -> i64 {
    // SAFETY: called only by compiled code, with the `ctx` `eval` passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return CMP_ERROR;
    };
    match (text(pool, a), text(pool, b)) {
        (Some(x), Some(y)) => match x.as_bytes().cmp(y.as_bytes()) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        },
        _ => CMP_ERROR,
    }
}

/// `len`: the number of chars (code points), as `interp::eval` counts.
pub(crate) extern "C" fn text_len(ctx: *mut JitCtx, a: i64) -> i64 {
    // SAFETY: called only by compiled code, with the `ctx` `eval` passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return ERROR;
    };
    text(pool, a).map_or(ERROR, |t| i64::try_from(t.chars().count()).unwrap_or(ERROR))
}

/// A text made from another, interned (and remembered by the pool).
fn derive_text(ctx: *mut JitCtx, a: i64, how: Derive) -> i64 {
    // SAFETY: called only by compiled code, with the `ctx` `eval` passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return ERROR;
    };
    u32::try_from(a)
        .ok()
        .and_then(|id| pool.derive(how, id))
        .map_or(ERROR, i64::from)
}

pub(crate) extern "C" fn text_lower(ctx: *mut JitCtx, a: i64) -> i64 {
    derive_text(ctx, a, Derive::Lower)
}

pub(crate) extern "C" fn text_upper(ctx: *mut JitCtx, a: i64) -> i64 {
    derive_text(ctx, a, Derive::Upper)
}

pub(crate) extern "C" fn text_trim(ctx: *mut JitCtx, a: i64) -> i64 {
    // SAFETY: called only by compiled code, with the `ctx` `eval` passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return ERROR;
    };
    let Some(t) = text(pool, a) else {
        return ERROR;
    };
    if t.trim().len() == t.len() {
        return a;
    }
    let trimmed = t.trim().to_string();
    id_of(pool, &trimmed)
}

/// A test of two texts: 1 or 0.
fn test_texts(ctx: *mut JitCtx, a: i64, b: i64, f: fn(&str, &str) -> bool) -> i64 {
    // SAFETY: called only by compiled code, with the `ctx` `eval` passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return ERROR;
    };
    match (text(pool, a), text(pool, b)) {
        (Some(x), Some(y)) => i64::from(f(x, y)),
        _ => ERROR,
    }
}

pub(crate) extern "C" fn text_contains(ctx: *mut JitCtx, a: i64, b: i64) -> i64 {
    test_texts(ctx, a, b, |t, p| t.contains(p))
}

pub(crate) extern "C" fn text_starts_with(ctx: *mut JitCtx, a: i64, b: i64) -> i64 {
    test_texts(ctx, a, b, |t, p| t.starts_with(p))
}

pub(crate) extern "C" fn text_ends_with(ctx: *mut JitCtx, a: i64, b: i64) -> i64 {
    test_texts(ctx, a, b, |t, p| t.ends_with(p))
}

/// `left(t, n)` and `right(t, n)`: a prefix or suffix of `t` (`textops`).
fn cut_text(ctx: *mut JitCtx, a: i64, n: i64, f: fn(&str, i64) -> &str) -> i64 {
    // SAFETY: called only by compiled code, with the `ctx` `eval` passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return ERROR;
    };
    let Some(t) = text(pool, a) else {
        return ERROR;
    };
    let cut = f(t, n);
    if cut.len() == t.len() {
        return a;
    }
    let cut = cut.to_string();
    id_of(pool, &cut)
}

pub(crate) extern "C" fn text_left(ctx: *mut JitCtx, a: i64, n: i64) -> i64 {
    cut_text(ctx, a, n, crate::textops::left)
}

pub(crate) extern "C" fn text_right(ctx: *mut JitCtx, a: i64, n: i64) -> i64 {
    cut_text(ctx, a, n, crate::textops::right)
}

/// `replace(t, old, new)`.
pub(crate) extern "C" fn text_replace(ctx: *mut JitCtx, a: i64, old: i64, new: i64) -> i64 {
    // SAFETY: called only by compiled code, with the `ctx` `eval` passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return ERROR;
    };
    let (Some(t), Some(old), Some(new)) = (text(pool, a), text(pool, old), text(pool, new)) else {
        return ERROR;
    };
    let replaced = crate::textops::replace(t, old, new);
    id_of(pool, &replaced)
}

/// `to_int` and `to_money`: 1 with the number in `ctx.out`, 0 (and 0 in
/// `ctx.out`, the word of `none`) when the text is not a number.
fn parse_text(ctx: *mut JitCtx, a: i64, f: fn(&str) -> Option<i64>) -> i64 {
    // SAFETY: called only by compiled code, with the `ctx` `eval` passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return ERROR;
    };
    let Some(parsed) = text(pool, a).map(|t| f(t)) else {
        return ERROR;
    };
    // SAFETY: as above; the pool borrow does not alias the context.
    let Some(c) = (unsafe { ctx.as_mut() }) else {
        return ERROR;
    };
    c.out = parsed.unwrap_or(0);
    i64::from(parsed.is_some())
}

pub(crate) extern "C" fn text_to_int(ctx: *mut JitCtx, a: i64) -> i64 {
    parse_text(ctx, a, crate::textops::to_int)
}

pub(crate) extern "C" fn text_to_money(ctx: *mut JitCtx, a: i64) -> i64 {
    parse_text(ctx, a, crate::textops::to_money)
}

/// A text expression with interpolations: `template`'s literal pieces and
/// the rendered values of `values` (`[word₀, present₀, …]`, one pair per
/// interpolation), read against `state`, interned. `ERROR` for a text id not
/// in the pool, a state that does not fit the layout, or a full pool.
pub(crate) extern "C" fn text_interp(
    ctx: *mut JitCtx,
    state: *const u8,
    template: *const Template,
    values: *const i64,
) -> i64 {
    // SAFETY: compiled code passes the address of a template its site keeps
    // alive (and never mutates) as long as the code exists.
    let Some(t) = (unsafe { template.as_ref() }) else {
        return ERROR;
    };
    if state.is_null() || values.is_null() {
        return ERROR;
    }
    // SAFETY: compiled code passes the state it was called with, which every
    // caller of compiled code checks to have the layout's size, and which
    // nothing writes during this call (the marker body's writes are helper
    // calls of their own).
    let state = unsafe { std::slice::from_raw_parts(state, t.env.layout.size) };
    // SAFETY: compiled code passes a stack array of one word and one presence
    // per interpolation of this template.
    let values = unsafe { std::slice::from_raw_parts(values, 2 * t.interps.len()) };
    // SAFETY: called only by compiled code, with the `ctx` its caller passed.
    let Some(pool) = (unsafe { pool(ctx) }) else {
        return ERROR;
    };
    match t.render(state, pool, values) {
        Ok(s) => id_of(pool, &s),
        Err(_) => ERROR,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_pool<T>(texts: &[&str], f: impl FnOnce(*mut JitCtx, &[i64]) -> T) -> T {
        let mut pool = TextPool::default();
        let ids: Vec<i64> = texts
            .iter()
            .map(|t| i64::from(pool.intern(&Arc::from(*t)).unwrap()))
            .collect();
        let mut ctx = JitCtx::new(&mut pool, std::ptr::null_mut());
        f(&mut ctx, &ids)
    }

    #[test]
    fn helpers_follow_the_interpreter() {
        with_pool(&["Z", "a", "é", "  a b \n", "ÀbC", "a b"], |ctx, ids| {
            assert_eq!(text_cmp(ctx, ids[0], ids[1]), -1);
            assert_eq!(text_cmp(ctx, ids[2], ids[1]), 1);
            assert_eq!(text_cmp(ctx, ids[1], ids[1]), 0);
            assert_eq!(text_cmp(ctx, ids[1], 99), CMP_ERROR);
            assert_eq!(text_len(ctx, ids[2]), 1);
            assert_eq!(text_trim(ctx, ids[3]), ids[5], "interned once");
            assert_eq!(text_trim(ctx, ids[5]), ids[5]);
            let lower = text_lower(ctx, ids[4]);
            assert_eq!(text_lower(ctx, ids[4]), lower);
            assert_eq!(text_contains(ctx, ids[5], ids[1]), 1);
            assert_eq!(text_starts_with(ctx, ids[5], ids[0]), 0);
            assert_eq!(text_ends_with(ctx, -3, ids[0]), ERROR);
            assert_eq!(text_len(std::ptr::null_mut(), ids[0]), ERROR);
        });
    }

    #[test]
    fn text_builtins_intern_their_results() {
        with_pool(
            &["héllo", "hé", "l", "L", " 1,234 ", "$5.5", "x"],
            |ctx, ids| {
                assert_eq!(text_left(ctx, ids[0], 2), ids[1]);
                assert_eq!(text_left(ctx, ids[0], 99), ids[0]);
                assert_eq!(text_right(ctx, ids[0], 0), text_left(ctx, ids[0], -1));
                let replaced = text_replace(ctx, ids[0], ids[2], ids[3]);
                assert!(replaced >= 0 && replaced != ids[0]);
                assert_eq!(text_left(ctx, replaced, 2), ids[1]);
                assert_eq!(
                    text_replace(ctx, ids[0], ids[3], ids[2]),
                    ids[0],
                    "nothing to replace"
                );
                assert_eq!(text_to_int(ctx, ids[4]), 1);
                // SAFETY: `ctx` is the live context `with_pool` made.
                assert_eq!(unsafe { (*ctx).out }, 1234);
                assert_eq!(text_to_money(ctx, ids[5]), 1);
                // SAFETY: as above.
                assert_eq!(unsafe { (*ctx).out }, 550);
                assert_eq!(text_to_int(ctx, ids[6]), 0);
                // SAFETY: as above.
                assert_eq!(unsafe { (*ctx).out }, 0);
                assert_eq!(text_to_int(ctx, 99), ERROR);
                assert_eq!(text_replace(ctx, ids[0], 99, ids[1]), ERROR);
            },
        );
    }
}
