//! `Date` and `Time` answers (§5.3): the whole answer read as a calendar date
//! or a time of day, lenient about the format, strict about the value.
//!
//! Dates: `2026-03-03` (also `2026-3-3`), `03/03/2026` (month first),
//! `March 3, 2026`, `Mar 3 2026`, `Mar. 3rd, 2026`, `3 March 2026`; the year
//! has four digits and the day must exist. Times: `17:30`, `5:30 pm`,
//! `5:30pm`, `5:30 p.m.`, `5 pm`, `noon`, `midnight`; with `am`/`pm` the hour
//! runs 1–12 (`12:30 am` is 00:30, `12 pm` is noon), without it the minutes
//! are required (`17` is not a time). Case, a trailing period and commas are
//! ignored; other words are not (docs/DECISIONS.md 52).

use crate::value::{days_in_month, Date, Time};

/// The answer as a date, if it is one.
pub(super) fn date(answer: &str) -> Option<Date> {
    let lower = answer.to_lowercase().replace(',', " ");
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_end_matches('.'))
        .collect();
    let (year, month, day) = match words.as_slice() {
        [one] => iso(one).or_else(|| month_first(one))?,
        [m, d, y] if month(m).is_some() => (year(y)?, month(m)?, day(d)?),
        [d, m, y] => (year(y)?, month(m)?, day(d)?),
        _ => return None,
    };
    let last = days_in_month(year, month)?;
    (1..=last)
        .contains(&day)
        .then_some(Date { year, month, day })
}

/// `2026-03-03` or `2026-3-3`.
fn iso(word: &str) -> Option<(i32, u8, u8)> {
    let mut parts = word.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    Some((year(y)?, small(m)?, small(d)?))
}

/// `03/03/2026` or `3/3/2026`, month first.
fn month_first(word: &str) -> Option<(i32, u8, u8)> {
    let mut parts = word.split('/');
    let (m, d, y) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    Some((year(y)?, small(m)?, small(d)?))
}

/// A four-digit year.
fn year(word: &str) -> Option<i32> {
    (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
}

/// One or two digits.
fn small(word: &str) -> Option<u8> {
    (!word.is_empty() && word.len() <= 2 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
}

/// A day of the month, optionally with an ordinal suffix (`3rd`).
fn day(word: &str) -> Option<u8> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| word.strip_suffix(s))
        .unwrap_or(word);
    small(digits)
}

/// A month by its English name or its first three letters (`sept` too),
/// lowercased.
fn month(word: &str) -> Option<u8> {
    (1..=12u8).find(|&m| {
        let name = Date {
            year: 2000,
            month: m,
            day: 1,
        }
        .month_name()
        .to_lowercase();
        word == name || (word.len() == 3 && name.starts_with(word)) || (m == 9 && word == "sept")
    })
}

/// The answer as a time of day, if it is one.
pub(super) fn time(answer: &str) -> Option<Time> {
    let lower = answer
        .trim()
        .to_lowercase()
        .replace("a.m.", "am")
        .replace("p.m.", "pm");
    let text = lower.trim_end_matches('.').trim();
    match text {
        "noon" => {
            return Some(Time {
                hour: 12,
                minute: 0,
            })
        }
        "midnight" => return Some(Time { hour: 0, minute: 0 }),
        _ => {}
    }
    let (clock, afternoon) = match (text.strip_suffix("am"), text.strip_suffix("pm")) {
        (Some(c), _) => (c.trim_end(), Some(false)),
        (_, Some(c)) => (c.trim_end(), Some(true)),
        _ => (text, None),
    };
    let (h, m) = match clock.split_once(':') {
        Some((h, m)) if m.len() == 2 => (small(h)?, Some(small(m)?)),
        Some(_) => return None,
        None => (small(clock)?, None),
    };
    let (hour, minute) = match (afternoon, m) {
        (Some(pm), m) if (1..=12).contains(&h) => {
            (h % 12 + if pm { 12 } else { 0 }, m.unwrap_or(0))
        }
        (None, Some(m)) => (h, m),
        _ => return None,
    };
    let t = Time { hour, minute };
    t.is_valid().then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(year: i32, month: u8, day: u8) -> Option<Date> {
        Some(Date { year, month, day })
    }

    fn t(hour: u8, minute: u8) -> Option<Time> {
        Some(Time { hour, minute })
    }

    #[test]
    fn dates_in_their_usual_spellings() {
        for s in [
            "2026-03-03",
            "2026-3-3",
            "March 3, 2026",
            "march 3 2026",
            "3 March 2026",
            "Mar 3 2026",
            "Mar. 3rd, 2026",
            "03/03/2026",
            "3/3/2026",
            " March 3, 2026. ",
        ] {
            assert_eq!(date(s), d(2026, 3, 3), "{s}");
        }
        assert_eq!(date("Sept 30, 2026"), d(2026, 9, 30));
        assert_eq!(date("12/01/2026"), d(2026, 12, 1));
    }

    #[test]
    fn dates_refuse_guesses_and_impossible_days() {
        for s in [
            "3",
            "March",
            "2026",
            "March 2026",
            "2026-02-30",
            "02/30/2026",
            "13/01/2026",
            "Ma 3 2026",
            "March 3, 26",
            "due March 3, 2026",
            "2026-03-03-01",
            "",
        ] {
            assert_eq!(date(s), None, "{s}");
        }
    }

    #[test]
    fn times_in_their_usual_spellings() {
        for s in [
            "17:30",
            "5:30 pm",
            "5:30pm",
            "5:30 PM",
            "5:30 p.m.",
            "17:30.",
        ] {
            assert_eq!(time(s), t(17, 30), "{s}");
        }
        assert_eq!(time("5 pm"), t(17, 0));
        assert_eq!(time("5pm"), t(17, 0));
        assert_eq!(time("9:05"), t(9, 5));
        assert_eq!(time("12:30 am"), t(0, 30));
        assert_eq!(time("12 pm"), t(12, 0));
        assert_eq!(time("noon"), t(12, 0));
        assert_eq!(time("midnight"), t(0, 0));
    }

    #[test]
    fn times_refuse_guesses() {
        for s in [
            "pm", "17", "5", "12", "17:30 pm", "0:30 am", "24:00", "10:60", "5:3", "at 5 pm", "",
        ] {
            assert_eq!(time(s), None, "{s}");
        }
    }
}
