//! The text built-ins of spec §3 (1.1) — `left`, `right`, `replace`,
//! `to_int`, `to_money` and `plural` — defined once, on plain strings, for
//! the interpreter (`interp::eval`) and the JIT's helpers (`jit::helpers`) to
//! share, so that the two engines cannot disagree on an edge case.
//!
//! The edge cases (docs/language.md, "Text built-ins"):
//! - `left(t, n)` / `right(t, n)` count characters (code points), not bytes;
//!   `n <= 0` gives `""` and `n` past the length gives all of `t`.
//! - `replace(t, old, new)` replaces every non-overlapping `old`, left to
//!   right; an empty `old` leaves `t` as it is.
//! - `to_int(t)`: surrounding white space, then an optional `+` or `-`, then
//!   digits, optionally grouped by thousands with commas (`1,234`, never
//!   `12,34`). Anything else, or a number outside the 64-bit range, is `none`.
//! - `to_money(t)`: surrounding white space, then an optional sign and an
//!   optional `$` in either order (`-$5`, `$-5`), then a whole number as for
//!   `to_int` and at most two decimals (`$1,299.5` is $1,299.50; `1.999` is
//!   `none`, nothing is rounded).
//! - `plural(n, one, many)` is `one` when `n` is 1 or -1 and `many` otherwise
//!   (`0 items`); it gives the word only, so `"{n} {plural(n, "item", "items")}"`.

/// The first `n` characters of `t`.
pub fn left(t: &str, n: i64) -> &str {
    &t[..char_boundary(t, n)]
}

/// The last `n` characters of `t`.
pub fn right(t: &str, n: i64) -> &str {
    let total = t.chars().count();
    let keep = usize::try_from(n.max(0)).unwrap_or(usize::MAX).min(total);
    let skip = i64::try_from(total - keep).unwrap_or(i64::MAX);
    &t[char_boundary(t, skip)..]
}

/// The byte offset after the first `n` characters of `t` (0 for `n <= 0`,
/// the length past the end).
fn char_boundary(t: &str, n: i64) -> usize {
    let Ok(n) = usize::try_from(n) else {
        return 0;
    };
    t.char_indices().nth(n).map_or(t.len(), |(at, _)| at)
}

/// `t` with every `old` replaced by `new`; `t` itself for an empty `old`.
pub fn replace(t: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        return t.to_string();
    }
    t.replace(old, new)
}

/// The `Int` a text spells, or `None`.
pub fn to_int(t: &str) -> Option<i64> {
    let (negative, rest) = sign(t.trim());
    let magnitude = whole_number(rest)?;
    signed(negative, magnitude)
}

/// The amount (in cents) a text spells, or `None`.
pub fn to_money(t: &str) -> Option<i64> {
    let t = t.trim();
    let (negative, rest) = match t.strip_prefix('$') {
        Some(after) => sign(after),
        None => {
            let (negative, after) = sign(t);
            (negative, after.strip_prefix('$').unwrap_or(after))
        }
    };
    let (whole, cents) = match rest.split_once('.') {
        Some((whole, frac)) => (whole, decimals(frac)?),
        None => (rest, 0),
    };
    let magnitude = whole_number(whole)?.checked_mul(100)?.checked_add(cents)?;
    signed(negative, magnitude)
}

/// `one` for 1 and -1, `many` for every other count.
pub fn plural<'t>(n: i64, one: &'t str, many: &'t str) -> &'t str {
    if n == 1 || n == -1 {
        one
    } else {
        many
    }
}

/// An optional leading `+` or `-`: whether it was `-`, and the rest.
fn sign(t: &str) -> (bool, &str) {
    if let Some(rest) = t.strip_prefix('-') {
        (true, rest)
    } else {
        (false, t.strip_prefix('+').unwrap_or(t))
    }
}

/// `magnitude` with its sign; `None` when it does not fit.
fn signed(negative: bool, magnitude: u64) -> Option<i64> {
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Digits, plain (`1234`) or grouped by thousands (`1,234`).
fn whole_number(t: &str) -> Option<u64> {
    let mut groups = t.split(',');
    let first = groups.next()?;
    let grouped = t.contains(',');
    if !all_digits(first) || (grouped && first.len() > 3) {
        return None;
    }
    let mut value: u64 = first.parse().ok()?;
    for group in groups {
        if group.len() != 3 || !all_digits(group) {
            return None;
        }
        value = value.checked_mul(1000)?.checked_add(group.parse().ok()?)?;
    }
    Some(value)
}

/// One or two decimals as cents (`5` is 50, `05` is 5).
fn decimals(frac: &str) -> Option<u64> {
    if !all_digits(frac) || frac.len() > 2 {
        return None;
    }
    let n: u64 = frac.parse().ok()?;
    Some(if frac.len() == 1 { n * 10 } else { n })
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Money;

    #[test]
    fn left_and_right_count_characters_and_clamp() {
        assert_eq!(left("héllo", 2), "hé");
        assert_eq!(right("héllo", 4), "éllo");
        assert_eq!(left("abc", 0), "");
        assert_eq!(left("abc", -3), "");
        assert_eq!(right("abc", -1), "");
        assert_eq!(left("abc", 10), "abc");
        assert_eq!(right("abc", i64::MAX), "abc");
        assert_eq!(left("", 2), "");
    }

    #[test]
    fn replace_is_global_and_ignores_an_empty_pattern() {
        assert_eq!(replace("a-b-c", "-", "+"), "a+b+c");
        assert_eq!(replace("aaa", "aa", "b"), "ba");
        assert_eq!(replace("abc", "", "x"), "abc");
        assert_eq!(replace("abc", "z", "x"), "abc");
    }

    #[test]
    fn to_int_accepts_signs_spaces_and_thousands() {
        assert_eq!(to_int(" 42 "), Some(42));
        assert_eq!(to_int("-7"), Some(-7));
        assert_eq!(to_int("+7"), Some(7));
        assert_eq!(to_int("1,234,567"), Some(1_234_567));
        assert_eq!(to_int("-9223372036854775808"), Some(i64::MIN));
        for bad in [
            "",
            "-",
            "12,34",
            "1234,567",
            "1,2345",
            ",123",
            "4.0",
            "4 2",
            "x1",
            "--1",
            "9223372036854775808",
            "٣",
        ] {
            assert_eq!(to_int(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn to_money_reads_what_money_renders() {
        assert_eq!(to_money("$1,299.00"), Some(129_900));
        assert_eq!(to_money(" 14.9 "), Some(1490));
        assert_eq!(to_money("5"), Some(500));
        assert_eq!(to_money("-$25.05"), Some(-2505));
        assert_eq!(to_money("$-25"), Some(-2500));
        for cents in [0, 5, -5, 129_900, -2_500, i64::MAX, i64::MIN + 1] {
            assert_eq!(to_money(&Money(cents).to_string()), Some(cents));
        }
        for bad in [
            "", "$", "1.999", "1.", ".5", "$$5", "5$", "-$-5", "1,23.00", "$ 5",
        ] {
            assert_eq!(to_money(bad), None, "{bad:?}");
        }
        assert_eq!(to_money("92233720368547758.08"), None);
    }

    #[test]
    fn plural_picks_the_singular_for_one_only() {
        assert_eq!(plural(1, "item", "items"), "item");
        assert_eq!(plural(-1, "item", "items"), "item");
        assert_eq!(plural(0, "item", "items"), "items");
        assert_eq!(plural(2, "item", "items"), "items");
    }
}
