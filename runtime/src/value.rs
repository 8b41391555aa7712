//! Scalar values: `Money` in integer cents, calendar `Date`s and `Time`s of day.
//!
//! Parsing here is of the literal *bodies* the grammar already matched (digits in
//! the right places); what it adds is range checking, so that the compiler can say
//! "month 13 does not exist" (malformed) apart from "February has no 30th"
//! (impossible date), and rendering in the one format pages show.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An exact amount of money, in cents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Money(pub i64);

/// A calendar date (proleptic Gregorian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Date {
    pub year: i32,
    pub month: u8,
    pub day: u8,
}

/// A time of day, 24 h, minute precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Time {
    pub hour: u8,
    pub minute: u8,
}

/// Why a literal body was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiteralError {
    /// The text is not a literal of this kind at all (wrong shape, out-of-range
    /// month, hour or minute, too many decimals, overflow).
    Malformed(String),
    /// A well-formed date that names a day the calendar does not have.
    ImpossibleDate(String),
}

impl Money {
    /// Parses the text after `$`: digits with optional `_` separators and at most
    /// two decimals, e.g. `1_299.00`, `14.9`, `0`.
    pub fn parse_body(body: &str) -> Result<Money, LiteralError> {
        let (whole, frac) = match body.split_once('.') {
            Some((w, f)) => (w, f),
            None => (body, ""),
        };
        let whole: String = whole.chars().filter(|c| *c != '_').collect();
        if whole.is_empty() || !whole.chars().all(|c| c.is_ascii_digit()) {
            return Err(LiteralError::Malformed(format!(
                "`${body}` is not an amount of money"
            )));
        }
        if !frac.chars().all(|c| c.is_ascii_digit()) {
            return Err(LiteralError::Malformed(format!(
                "`${body}` is not an amount of money"
            )));
        }
        if frac.len() > 2 {
            return Err(LiteralError::Malformed(format!(
                "`${body}` has {} decimals; money has at most 2",
                frac.len()
            )));
        }
        if body.contains('.') && frac.is_empty() {
            return Err(LiteralError::Malformed(format!(
                "`${body}` ends with a bare `.`"
            )));
        }
        let overflow = || LiteralError::Malformed(format!("`${body}` is too large"));
        let units: i64 = whole.parse().map_err(|_| overflow())?;
        let cents: i64 = match frac.len() {
            0 => 0,
            1 => frac.parse::<i64>().map_err(|_| overflow())? * 10,
            _ => frac.parse().map_err(|_| overflow())?,
        };
        units
            .checked_mul(100)
            .and_then(|c| c.checked_add(cents))
            .map(Money)
            .ok_or_else(overflow)
    }
}

impl fmt::Display for Money {
    /// `$1,299.00`, `-$25.00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.digits().as_str())
    }
}

impl Money {
    /// Appends the text `Display` writes.
    pub fn push_to(self, out: &mut String) {
        out.push_str(self.digits().as_str());
    }

    fn digits(self) -> Digits {
        let abs = self.0.unsigned_abs();
        let mut d = Digits::new();
        d.number(abs % 100, 2);
        d.byte(b'.');
        // The units, grouped by threes.
        let mut units = abs / 100;
        for written in 0.. {
            if written > 0 && written % 3 == 0 {
                d.byte(b',');
            }
            d.byte(b'0' + (units % 10) as u8);
            units /= 10;
            if units == 0 {
                break;
            }
        }
        d.byte(b'$');
        if self.0 < 0 {
            d.byte(b'-');
        }
        d
    }
}

/// Appends `n` in decimal, as `Display` writes it.
pub fn push_int(n: i64, out: &mut String) {
    let mut d = Digits::new();
    d.number(n.unsigned_abs(), 1);
    if n < 0 {
        d.byte(b'-');
    }
    out.push_str(d.as_str());
}

/// A scalar's text, written right to left into a stack buffer without the
/// formatting machinery: pages show prices, dates and counts on every step,
/// and `write!` was a tenth of a compiled render. `Display` and the JIT's
/// renderer both write through it, so they cannot disagree.
struct Digits {
    buf: [u8; 40],
    at: usize,
}

impl Digits {
    fn new() -> Digits {
        Digits {
            buf: [0; 40],
            at: 40,
        }
    }

    /// Writes `b` before what is written. Every caller writes at most 31
    /// bytes (money: a sign, `$`, 20 digits with 6 commas, `.` and two).
    fn byte(&mut self, b: u8) {
        self.at = self.at.saturating_sub(1);
        if let Some(slot) = self.buf.get_mut(self.at) {
            *slot = b;
        }
    }

    /// Writes `n` in decimal with at least `width` digits (zero-padded).
    fn number(&mut self, mut n: u64, width: usize) {
        let end = self.at;
        loop {
            self.byte(b'0' + (n % 10) as u8);
            n /= 10;
            if n == 0 && end - self.at >= width {
                break;
            }
        }
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(self.buf.get(self.at..).unwrap_or_default()).unwrap_or_default()
    }
}

/// Days in `month` of `year`, or `None` for a month that does not exist.
pub fn days_in_month(year: i32, month: u8) -> Option<u8> {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
        4 | 6 | 9 | 11 => Some(30),
        2 => Some(if leap { 29 } else { 28 }),
        _ => None,
    }
}

impl Date {
    /// Parses `YYYY-MM-DD`. A month outside 1..=12 or a day outside 1..=31 is
    /// malformed; a day past the end of its month (`2026-02-30`) is impossible.
    pub fn parse_body(body: &str) -> Result<Date, LiteralError> {
        let malformed = |why: &str| LiteralError::Malformed(format!("`@{body}` {why}"));
        let parts: Vec<&str> = body.split('-').collect();
        let [y, m, d] = parts.as_slice() else {
            return Err(malformed("is not a date; write `@YYYY-MM-DD`"));
        };
        let digits = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_digit());
        if !(digits(y, 4) && digits(m, 2) && digits(d, 2)) {
            return Err(malformed("is not a date; write `@YYYY-MM-DD`"));
        }
        let (year, month, day) = (num(y) as i32, num(m) as u8, num(d) as u8);
        if !(1..=12).contains(&month) {
            return Err(malformed(&format!(
                "has month {month}; months run from 01 to 12"
            )));
        }
        if !(1..=31).contains(&day) {
            return Err(malformed(&format!("has day {day}; days run from 01 to 31")));
        }
        let last = days_in_month(year, month).unwrap_or(31);
        if day > last {
            return Err(LiteralError::ImpossibleDate(format!(
                "`@{body}` does not exist: {} {year} has {last} days",
                MONTH_NAMES[usize::from(month) - 1]
            )));
        }
        Ok(Date { year, month, day })
    }

    /// Whether this names a day the calendar has (`2026-02-31` does not). Dates
    /// built by parsing or by day arithmetic always do; one that arrives by
    /// other means (a proposed delta, a decoded artifact) is checked with this
    /// before it is stored, since no encoding can hold it faithfully.
    pub fn is_valid(self) -> bool {
        days_in_month(self.year, self.month).is_some_and(|last| (1..=last).contains(&self.day))
    }

    /// Days since 0000-03-01 in the proleptic Gregorian calendar; differences of
    /// these give `days_between`.
    pub fn day_number(self) -> i64 {
        let (y, m) = if self.month <= 2 {
            (i64::from(self.year) - 1, i64::from(self.month) + 9)
        } else {
            (i64::from(self.year), i64::from(self.month) - 3)
        };
        365 * y + y.div_euclid(4) - y.div_euclid(100)
            + y.div_euclid(400)
            + (153 * m + 2) / 5
            + i64::from(self.day)
            - 1
    }

    /// The date `day_number` days after 0000-03-01: the inverse of
    /// [`Date::day_number`]; `None` past the range of `i32` years.
    pub fn from_day_number(n: i64) -> Option<Date> {
        let era = n.div_euclid(146_097);
        let doe = n - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = era * 400 + yoe + i64::from(month <= 2);
        Some(Date {
            year: i32::try_from(year).ok()?,
            month: u8::try_from(month).ok()?,
            day: u8::try_from(day).ok()?,
        })
    }

    /// The first day date arithmetic may reach: the first a literal can
    /// write (`@0000-01-01`).
    pub const FIRST: Date = Date {
        year: 0,
        month: 1,
        day: 1,
    };
    /// The last day date arithmetic may reach: the last a literal can write
    /// (`@9999-12-31`).
    pub const LAST: Date = Date {
        year: 9999,
        month: 12,
        day: 31,
    };

    /// The date with day number `n` when it lies in [`Date::FIRST`] ..=
    /// [`Date::LAST`] (spec §3, 1.1: a result outside the calendar range
    /// fails); `None` otherwise. Shared by `Date ± Int` in the interpreter
    /// and by the JIT, which compares day numbers against the same bounds.
    pub fn in_range(n: i64) -> Option<Date> {
        (Date::FIRST.day_number()..=Date::LAST.day_number())
            .contains(&n)
            .then(|| Date::from_day_number(n))
            .flatten()
    }

    /// `self + days` (negative `days` go back); `None` past the range.
    pub fn add_days(self, days: i64) -> Option<Date> {
        Date::in_range(self.day_number().checked_add(days)?)
    }

    /// The English month name, for `Month D, YYYY` renderings.
    pub fn month_name(self) -> &'static str {
        MONTH_NAMES[usize::from(self.month.clamp(1, 12)) - 1]
    }
}

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn num(s: &str) -> u32 {
    s.bytes().fold(0, |acc, b| acc * 10 + u32::from(b - b'0'))
}

impl fmt::Display for Date {
    /// `2026-03-09`: the year zero-padded to four characters, a sign
    /// included (`-005`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.digits().as_str())
    }
}

impl Date {
    /// Appends the text `Display` writes.
    pub fn push_to(self, out: &mut String) {
        out.push_str(self.digits().as_str());
    }

    fn digits(self) -> Digits {
        let mut d = Digits::new();
        d.number(u64::from(self.day), 2);
        d.byte(b'-');
        d.number(u64::from(self.month), 2);
        d.byte(b'-');
        let year = u64::from(self.year.unsigned_abs());
        if self.year < 0 {
            d.number(year, 3);
            d.byte(b'-');
        } else {
            d.number(year, 4);
        }
        d
    }
}

impl Time {
    /// Whether this is a time of day (`25:00` and `10:60` are not).
    pub fn is_valid(self) -> bool {
        self.hour < 24 && self.minute < 60
    }

    /// Parses `H:MM` or `HH:MM`, hours 0..=23, minutes 0..=59.
    pub fn parse_body(body: &str) -> Result<Time, LiteralError> {
        let malformed = |why: &str| LiteralError::Malformed(format!("`@{body}` {why}"));
        let Some((h, m)) = body.split_once(':') else {
            return Err(malformed("is not a time; write `@HH:MM`"));
        };
        let ok = |s: &str, max: usize| {
            !s.is_empty() && s.len() <= max && s.chars().all(|c| c.is_ascii_digit())
        };
        if !(ok(h, 2) && ok(m, 2) && m.len() == 2) {
            return Err(malformed("is not a time; write `@HH:MM`"));
        }
        let (hour, minute) = (num(h), num(m));
        if hour > 23 {
            return Err(malformed(&format!(
                "has hour {hour}; hours run from 00 to 23"
            )));
        }
        if minute > 59 {
            return Err(malformed(&format!(
                "has minute {minute}; minutes run from 00 to 59"
            )));
        }
        Ok(Time {
            hour: hour as u8,
            minute: minute as u8,
        })
    }
}

impl Time {
    /// Minutes since midnight (the layout codec's word for a time).
    pub fn minutes(self) -> i64 {
        i64::from(self.hour) * 60 + i64::from(self.minute)
    }

    /// The time `n` minutes after midnight when `n` is in 0..=1439 (00:00 to
    /// 23:59); `None` otherwise.
    pub fn from_minutes(n: i64) -> Option<Time> {
        if !(0..MINUTES_PER_DAY).contains(&n) {
            return None;
        }
        Some(Time {
            hour: u8::try_from(n / 60).ok()?,
            minute: u8::try_from(n % 60).ok()?,
        })
    }

    /// `self + minutes` (negative go back); `None` when the result leaves
    /// the day (spec §3, 1.1: it fails like a division by zero, it does not
    /// wrap around midnight).
    pub fn add_minutes(self, minutes: i64) -> Option<Time> {
        Time::from_minutes(self.minutes().checked_add(minutes)?)
    }
}

/// Minutes in a day: a time's minute count is below this.
pub const MINUTES_PER_DAY: i64 = 24 * 60;

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.digits().as_str())
    }
}

impl Time {
    /// Appends the text `Display` writes (`09:05`).
    pub fn push_to(self, out: &mut String) {
        out.push_str(self.digits().as_str());
    }

    fn digits(self) -> Digits {
        let mut d = Digits::new();
        d.number(u64::from(self.minute), 2);
        d.byte(b':');
        d.number(u64::from(self.hour), 2);
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_show_as_the_format_strings_say() {
        // The formats written plainly, against the stack writer.
        let money = |c: i64| {
            let units = c.unsigned_abs() / 100;
            let digits = units.to_string();
            let mut grouped = String::new();
            for (i, ch) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i).is_multiple_of(3) {
                    grouped.push(',');
                }
                grouped.push(ch);
            }
            let sign = if c < 0 { "-" } else { "" };
            format!("{sign}${grouped}.{:02}", c.unsigned_abs() % 100)
        };
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut amounts = vec![0, 1, -1, 99, 100, -100, 99_999, 100_000, 123_456_789];
        amounts.extend([i64::MAX, i64::MIN, i64::MIN + 1, -99_999_999]);
        for _ in 0..5_000 {
            let n = next();
            amounts.push((n >> (n % 64)) as i64);
            amounts.push(n as i64);
        }
        for c in amounts {
            assert_eq!(Money(c).to_string(), money(c));
            let mut out = String::from("x");
            Money(c).push_to(&mut out);
            assert_eq!(out, format!("x{}", money(c)));
            let mut int = String::new();
            push_int(c, &mut int);
            assert_eq!(int, format!("{c}"));
        }
        let mut years = vec![0, 1, -1, 5, -5, 999, 1000, 9999, 10_000, -999, -1000, 2026];
        years.extend([i32::MAX, i32::MIN, -12_345]);
        for year in years {
            for (month, day) in [(1, 1), (12, 31), (0, 0), (255, 255), (7, 9)] {
                let d = Date { year, month, day };
                assert_eq!(d.to_string(), format!("{year:04}-{month:02}-{day:02}"));
            }
        }
        for hour in 0..=255u8 {
            for minute in 0..=255u8 {
                let t = Time { hour, minute };
                let mut out = String::new();
                t.push_to(&mut out);
                assert_eq!(out, format!("{hour:02}:{minute:02}"));
            }
        }
    }

    #[test]
    fn day_numbers_round_trip_over_four_centuries_and_far_years() {
        let mut n = Date::parse_body("1900-01-01").unwrap().day_number();
        let end = Date::parse_body("2300-12-31").unwrap().day_number();
        let mut previous: Option<Date> = None;
        while n <= end {
            let d = Date::from_day_number(n).unwrap();
            assert_eq!(d.day_number(), n, "{d}");
            assert!(days_in_month(d.year, d.month).is_some_and(|last| d.day <= last));
            if let Some(p) = previous {
                assert!(p < d);
            }
            previous = Some(d);
            n += 1;
        }
        for s in ["0001-01-01", "0000-03-01", "9999-12-31", "2000-02-29"] {
            let d = Date::parse_body(s).unwrap();
            assert_eq!(Date::from_day_number(d.day_number()), Some(d));
        }
        assert_eq!(Date::from_day_number(i64::MAX / 2), None);
    }

    #[test]
    fn money_parses_and_renders_with_grouping() {
        assert_eq!(Money::parse_body("1_299.00"), Ok(Money(129_900)));
        assert_eq!(Money::parse_body("14.9"), Ok(Money(1490)));
        assert_eq!(Money(129_900).to_string(), "$1,299.00");
        assert_eq!(Money(-2500).to_string(), "-$25.00");
        assert_eq!(Money(5).to_string(), "$0.05");
        assert_eq!(Money(100_000).to_string(), "$1,000.00");
        assert_eq!(Money(99_999).to_string(), "$999.99");
        assert_eq!(Money(i64::MIN).to_string(), "-$92,233,720,368,547,758.08");
        assert_eq!(Money(i64::MAX).to_string(), "$92,233,720,368,547,758.07");
        assert!(matches!(
            Money::parse_body("1.999"),
            Err(LiteralError::Malformed(_))
        ));
        assert!(matches!(
            Money::parse_body("99999999999999999999"),
            Err(LiteralError::Malformed(_))
        ));
    }

    #[test]
    fn dates_tell_malformed_from_impossible() {
        assert_eq!(
            Date::parse_body("2026-11-29").map(|d| d.to_string()),
            Ok("2026-11-29".into())
        );
        assert!(matches!(
            Date::parse_body("2026-13-01"),
            Err(LiteralError::Malformed(_))
        ));
        assert!(matches!(
            Date::parse_body("2026-02-30"),
            Err(LiteralError::ImpossibleDate(_))
        ));
        assert!(Date::parse_body("2024-02-29").is_ok());
        assert!(matches!(
            Date::parse_body("2100-02-29"),
            Err(LiteralError::ImpossibleDate(_))
        ));
    }

    #[test]
    fn day_numbers_count_real_days() {
        let d = |s| {
            Date::parse_body(s)
                .unwrap_or(Date {
                    year: 0,
                    month: 1,
                    day: 1,
                })
                .day_number()
        };
        assert_eq!(d("2026-03-01") - d("2026-02-28"), 1);
        assert_eq!(d("2025-01-01") - d("2024-01-01"), 366);
    }

    #[test]
    fn date_and_time_arithmetic_stays_in_range() {
        let d = |s| Date::parse_body(s).unwrap();
        assert_eq!(d("2026-12-10").add_days(21), Some(d("2026-12-31")));
        assert_eq!(d("2026-12-31").add_days(1), Some(d("2027-01-01")));
        assert_eq!(d("2024-03-01").add_days(-1), Some(d("2024-02-29")));
        assert_eq!(d("9999-12-31").add_days(1), None);
        assert_eq!(d("0000-01-01").add_days(-1), None);
        assert_eq!(d("2026-01-01").add_days(i64::MAX), None);
        let t = |s| Time::parse_body(s).unwrap();
        assert_eq!(t("10:30").add_minutes(90), Some(t("12:00")));
        assert_eq!(t("00:10").add_minutes(-10), Some(t("00:00")));
        assert_eq!(t("23:59").add_minutes(1), None);
        assert_eq!(t("00:00").add_minutes(-1), None);
        assert_eq!(t("12:00").add_minutes(i64::MIN), None);
        assert_eq!(Time::from_minutes(t("17:45").minutes()), Some(t("17:45")));
    }

    #[test]
    fn times_are_range_checked() {
        assert_eq!(Time::parse_body("9:05"), Ok(Time { hour: 9, minute: 5 }));
        assert!(Time::parse_body("25:00").is_err());
        assert!(Time::parse_body("12:60").is_err());
    }
}
