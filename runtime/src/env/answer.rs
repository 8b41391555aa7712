//! Retrieval answers (§5.3): the expected texts and the matching rule.
//!
//! The expected answer is evaluated once, in the task's initial state (after
//! `setup`). A typed value adds its usual spellings: money with and without `$`
//! and without `.00`, times as `HH:MM` and `H am`/`H:MM pm`, dates as
//! `YYYY-MM-DD` and `Month D, YYYY`. An answer matches when its token F1
//! against some expected text is at least 0.5, tokens being the lowercased,
//! whitespace-separated words stripped of leading and trailing characters that
//! are not letters, digits or `$`.

use crate::interp::eval::{eval, Context};
use crate::interp::render::render;
use crate::ir::{self, Ty, Value};
use crate::value::{Date, Money, Time};
use std::collections::BTreeMap;

/// The expected texts with their variants, de-duplicated; empty for operation
/// tasks and for an expected value that faults (no answer can then match).
pub(crate) fn expected(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    answer: Option<&ir::Answer>,
) -> Vec<String> {
    let mut out: Vec<String> = match answer {
        None => Vec::new(),
        Some(ir::Answer::Texts(texts)) => texts.clone(),
        Some(ir::Answer::Value(e, ty)) => match eval(ctx, frame, e) {
            Ok(v) => variants(ctx, &v, ty),
            Err(_) => Vec::new(),
        },
    };
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|s| seen.insert(s.clone()));
    out
}

/// A value's page rendering plus its type's usual spellings.
fn variants(ctx: &Context<'_>, v: &Value, ty: &Ty) -> Vec<String> {
    let mut out = vec![render(ctx.program, ctx.db, v, ty)];
    match v {
        Value::Money(c) => out.extend(money_variants(*c)),
        Value::Time(t) => out.extend(time_variants(*t)),
        Value::Date(d) => out.push(date_long(*d)),
        _ => {}
    }
    out
}

/// `$1,299.00` → also `1,299.00`, `$1,299`, `1,299`, and the same without
/// thousands separators.
fn money_variants(cents: i64) -> Vec<String> {
    let full = Money(cents).to_string();
    let mut forms = vec![full.clone(), full.replace(',', "")];
    if cents % 100 == 0 {
        let short: Vec<String> = forms
            .iter()
            .map(|f| f.trim_end_matches(".00").to_string())
            .collect();
        forms.extend(short);
    }
    let bare: Vec<String> = forms.iter().map(|f| f.replacen('$', "", 1)).collect();
    forms.extend(bare);
    forms
}

/// `14:30` → `2:30 pm`; `11:00` → `11 am` and `11:00 am`.
fn time_variants(t: Time) -> Vec<String> {
    let suffix = if t.hour < 12 { "am" } else { "pm" };
    let h12 = match t.hour % 12 {
        0 => 12,
        h => h,
    };
    let mut out = vec![t.to_string(), format!("{h12}:{:02} {suffix}", t.minute)];
    if t.minute == 0 {
        out.push(format!("{h12} {suffix}"));
    }
    out
}

/// `November 29, 2026`.
fn date_long(d: Date) -> String {
    format!("{} {}, {}", d.month_name(), d.day, d.year)
}

/// The tokens of a text: lowercased words, trimmed of anything but letters,
/// digits and `$` at either end; empty ones dropped.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '$'))
                .to_string()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Token F1 of `answer` against `expected` (multiset overlap).
fn f1(answer: &[String], expected: &[String]) -> f64 {
    if answer.is_empty() || expected.is_empty() {
        return 0.0;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for t in expected {
        *counts.entry(t.as_str()).or_default() += 1;
    }
    let mut overlap = 0usize;
    for t in answer {
        if let Some(n) = counts.get_mut(t.as_str()) {
            if *n > 0 {
                *n -= 1;
                overlap += 1;
            }
        }
    }
    if overlap == 0 {
        return 0.0;
    }
    let p = overlap as f64 / answer.len() as f64;
    let r = overlap as f64 / expected.len() as f64;
    2.0 * p * r / (p + r)
}

/// Whether `answer` matches one of `expected` (token F1 ≥ 0.5).
pub fn answer_matches(answer: &str, expected: &[String]) -> bool {
    let got = tokens(answer);
    expected.iter().any(|e| f1(&got, &tokens(e)) >= 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn matching_uses_token_f1() {
        let exp = strings(&["11:00", "11 am"]);
        assert!(answer_matches("It opens at 11 AM.", &exp));
        assert!(answer_matches("11:00", &exp));
        assert!(!answer_matches("12:00", &exp));
        assert!(!answer_matches("", &exp));
        assert!(answer_matches("Maya Okafor", &strings(&["maya okafor"])));
        assert!(!answer_matches(
            "the customer is maya really",
            &strings(&["Maya Okafor"])
        ));
    }

    #[test]
    fn typed_variants() {
        let m = money_variants(129_900);
        for want in ["$1,299.00", "1,299.00", "$1,299", "1299", "$1299.00"] {
            assert!(m.contains(&want.to_string()), "{want} in {m:?}");
        }
        let t = time_variants(Time {
            hour: 14,
            minute: 30,
        });
        assert_eq!(t, strings(&["14:30", "2:30 pm"]));
        let t = time_variants(Time { hour: 0, minute: 0 });
        assert!(t.contains(&"12 am".to_string()));
        let d = Date {
            year: 2026,
            month: 11,
            day: 29,
        };
        assert_eq!(date_long(d), "November 29, 2026");
    }
}
