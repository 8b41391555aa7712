//! `Int` and `Money` answers (§5.3): the one number of a short phrase.
//!
//! An answer of at most [`MAX_PHRASE_WORDS`] words holding exactly one word
//! with a digit, that word being a number: an optional sign, an optional `$`,
//! digits with optional `,` thousands groups (`1,299`; every group after the
//! first exactly three digits), and optional decimals after a `.`. So `3`,
//! `3 payments`, `it costs $12.50`, `1299.00 dollars` and `-$25.00` read; `3 or
//! 4`, `ThinkPad X1 costs $1,299`, `3rd` and the European `1.299,00` do not
//! (docs/DECISIONS.md 52).

/// The most words an `Int` or `Money` answer may have in all.
pub(super) const MAX_PHRASE_WORDS: usize = 4;

/// A number as written in an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Written<'a> {
    negative: bool,
    dollar: bool,
    whole: i64,
    /// The digits after the decimal point (possibly none).
    fraction: &'a str,
}

/// The answer as an `Int`: its one number, integral (`3.0` reads as 3) and
/// without `$`.
pub(super) fn int(answer: &str) -> Option<i64> {
    let n = sole_number(answer)?;
    if n.dollar || !n.fraction.bytes().all(|b| b == b'0') {
        return None;
    }
    Some(if n.negative { -n.whole } else { n.whole })
}

/// The answer as `Money`, in cents: its one number, with or without `$`, at
/// most two significant decimals (`12.5` is $12.50, `12.505` nothing).
pub(super) fn money(answer: &str) -> Option<i64> {
    let n = sole_number(answer)?;
    let digits = n.fraction.as_bytes();
    if digits.iter().skip(2).any(|&b| b != b'0') {
        return None;
    }
    let tenths = i64::from(digits.first().map_or(0, |b| b - b'0'));
    let hundredths = i64::from(digits.get(1).map_or(0, |b| b - b'0'));
    let cents = n
        .whole
        .checked_mul(100)?
        .checked_add(tenths * 10 + hundredths)?;
    Some(if n.negative { -cents } else { cents })
}

/// The one number of a short phrase; `None` for no number, two numbers, a
/// word mixing digits with other things, or too many words.
fn sole_number(answer: &str) -> Option<Written<'_>> {
    let words: Vec<&str> = answer.split_whitespace().collect();
    if words.len() > MAX_PHRASE_WORDS {
        return None;
    }
    let mut found = None;
    for word in words {
        if !word.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some(number(word)?);
    }
    found
}

/// One word as a number: `-$1,299.50`, `$-3`, `(12)`, `12.`; punctuation
/// around it is dropped.
fn number(word: &str) -> Option<Written<'_>> {
    let word = word
        .trim_start_matches(['(', '[', '"', '\''])
        .trim_end_matches([')', ']', '"', '\'', '.', ',', ';', ':', '!', '?']);
    let (sign_before, rest) = strip_sign(word);
    let (dollar, rest) = match rest.strip_prefix('$') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (sign_after, rest) = strip_sign(rest);
    if sign_before && sign_after {
        return None;
    }
    let (whole, fraction) = rest.split_once('.').unwrap_or((rest, ""));
    if rest.contains('.') && fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Written {
        negative: sign_before || sign_after,
        dollar,
        whole: grouped(whole)?,
        fraction,
    })
}

/// A leading `-` (or the minus sign `−`), if any.
fn strip_sign(s: &str) -> (bool, &str) {
    match s.strip_prefix(['-', '−']) {
        Some(rest) => (true, rest),
        None => (false, s),
    }
}

/// Digits with optional `,` thousands groups: `1299`, `1,299`, `12,345,678`.
fn grouped(s: &str) -> Option<i64> {
    let groups: Vec<&str> = s.split(',').collect();
    let well_formed = groups.iter().enumerate().all(|(i, g)| {
        let digits = !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
        let width = match (i, groups.len()) {
            (_, 1) => true,
            (0, _) => g.len() <= 3,
            _ => g.len() == 3,
        };
        digits && width
    });
    if !well_formed {
        return None;
    }
    groups.concat().bytes().try_fold(0i64, |acc, b| {
        acc.checked_mul(10)?.checked_add(i64::from(b - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_in_short_phrases() {
        assert_eq!(int("3"), Some(3));
        assert_eq!(int("3 payments"), Some(3));
        assert_eq!(int("You have 3 payments."), Some(3));
        assert_eq!(int("1,299"), Some(1299));
        assert_eq!(int("-4"), Some(-4));
        assert_eq!(int("−4"), Some(-4));
        assert_eq!(int("3.0"), Some(3));
        assert_eq!(int("3.5"), None);
        assert_eq!(int("$3"), None);
        assert_eq!(int("3 or 4"), None);
        assert_eq!(int("3rd"), None);
        assert_eq!(int("three"), None);
        assert_eq!(int(""), None);
        assert_eq!(int("1,29"), None);
        assert_eq!(int("99999999999999999999"), None);
        assert_eq!(int("there are 3 of them left in stock now"), None);
        assert_eq!(int("New opening hours from month 3."), None);
    }

    #[test]
    fn money_in_short_phrases() {
        assert_eq!(money("$1,299.00"), Some(129_900));
        assert_eq!(money("1299"), Some(129_900));
        assert_eq!(money("1299.00 dollars"), Some(129_900));
        assert_eq!(money("it costs $12.50"), Some(1250));
        assert_eq!(money("12.5"), Some(1250));
        assert_eq!(money("12.500"), Some(1250));
        assert_eq!(money("12.505"), None);
        assert_eq!(money("-$25.00"), Some(-2500));
        assert_eq!(money("$-25"), Some(-2500));
        assert_eq!(money("-$-25"), None);
        assert_eq!(money("1.299,00"), None);
        assert_eq!(money("12,50"), None);
        assert_eq!(money("12."), Some(1200));
        assert_eq!(money("ThinkPad X1 costs $1,299"), None);
        assert_eq!(money("$"), None);
    }
}
