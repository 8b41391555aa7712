//! Properties of the matching rule, checked over whole ranges of values: every
//! value's page rendering and documented spellings read back to it, and the
//! usual guesses (a part of the value, a neighbour) do not.

use super::*;

fn money_spellings(cents: i64) -> Vec<String> {
    let shown = Money(cents).to_string();
    let plain = shown.replace(['$', ','], "");
    let mut out = vec![
        shown.clone(),
        shown.replace(',', ""),
        plain.clone(),
        format!("{plain} dollars"),
        format!("it costs {shown}"),
    ];
    if cents % 100 == 0 {
        out.push(plain.trim_end_matches(".00").to_string());
    }
    out
}

fn date_spellings(d: Date) -> Vec<String> {
    let month = d.month_name();
    let short = &month[..3];
    vec![
        d.to_string(),
        format!("{month} {}, {}", d.day, d.year),
        format!("{} {month} {}", d.day, d.year),
        format!("{short} {} {}", d.day, d.year),
        format!("{:02}/{:02}/{}", d.month, d.day, d.year),
        format!("{}/{}/{}", d.month, d.day, d.year),
    ]
}

fn time_spellings(t: Time) -> Vec<String> {
    let suffix = if t.hour < 12 { "am" } else { "pm" };
    let h12 = match t.hour % 12 {
        0 => 12,
        h => h,
    };
    let mut out = vec![
        t.to_string(),
        format!("{h12}:{:02} {suffix}", t.minute),
        format!("{h12}:{:02}{suffix}", t.minute),
        format!("{h12}:{:02} {}", t.minute, suffix.to_uppercase()),
    ];
    if t.minute == 0 {
        out.push(format!("{h12} {suffix}"));
    }
    out
}

fn every_date(from: i32, to: i32) -> impl Iterator<Item = Date> {
    let start = Date {
        year: from,
        month: 1,
        day: 1,
    }
    .day_number();
    let end = Date {
        year: to,
        month: 12,
        day: 31,
    }
    .day_number();
    (start..=end).filter_map(Date::from_day_number)
}

fn every_time() -> impl Iterator<Item = Time> {
    (0..24u8).flat_map(|hour| (0..60u8).map(move |minute| Time { hour, minute }))
}

#[test]
fn every_date_reads_back_from_each_spelling_and_no_part_of_it_does() {
    for d in every_date(2024, 2028) {
        let want = Expected::Typed(Typed::Date(d));
        for s in date_spellings(d) {
            assert!(want.matches(&s), "{s} for {d}");
        }
        let next = Date::from_day_number(d.day_number() + 1).map(|n| n.to_string());
        let guesses = [
            d.day.to_string(),
            d.month.to_string(),
            d.month_name().to_string(),
            d.year.to_string(),
            format!("{} {}", d.month_name(), d.year),
            next.unwrap_or_default(),
        ];
        for g in guesses {
            assert!(!want.matches(&g), "{g} for {d}");
        }
    }
}

#[test]
fn every_time_reads_back_from_each_spelling_and_no_part_of_it_does() {
    for t in every_time() {
        let want = Expected::Typed(Typed::Time(t));
        for s in time_spellings(t) {
            assert!(want.matches(&s), "{s} for {t}");
        }
        let other = Time {
            hour: (t.hour + 1) % 24,
            minute: t.minute,
        };
        let guesses = [
            "am".to_string(),
            "pm".to_string(),
            t.hour.to_string(),
            t.minute.to_string(),
            other.to_string(),
        ];
        for g in guesses {
            assert!(!want.matches(&g), "{g} for {t}");
        }
    }
}

#[test]
fn money_reads_back_from_each_spelling_and_neighbours_do_not() {
    let amounts = (-2_000..=2_000)
        .chain((0..200).map(|i| i * 7_919 + 123_456))
        .chain([129_900, 100_000_000, -2_500]);
    for cents in amounts {
        let want = Expected::Typed(Typed::Money(cents));
        for s in money_spellings(cents) {
            assert!(want.matches(&s), "{s} for {cents}");
        }
        for other in [cents + 1, cents - 1, cents * 10 + 1] {
            assert!(
                !want.matches(&Money(other).to_string()),
                "{other} for {cents}"
            );
        }
    }
}

#[test]
fn ints_read_back_alone_and_in_short_phrases() {
    for n in (-1_000..=1_000).chain([1_299, 1_000_000, i64::MAX, i64::MIN + 1]) {
        let want = Expected::Typed(Typed::Int(n));
        for s in [
            n.to_string(),
            format!("{n} payments"),
            format!("it is {n}."),
        ] {
            assert!(want.matches(&s), "{s} for {n}");
        }
        let guesses = [
            format!("{}", n.wrapping_add(1)),
            format!("{n} or 4"),
            "12".into(),
        ];
        for g in guesses.iter().filter(|g| **g != n.to_string()) {
            assert!(!want.matches(g), "{g} for {n}");
        }
    }
    assert!(Expected::Typed(Typed::Int(1_299)).matches("1,299"));
}

#[test]
fn booleans_and_variants_read_by_name() {
    let yes = Expected::Typed(Typed::Bool(true));
    for s in ["yes", "Yes.", "TRUE", "true"] {
        assert!(yes.matches(s), "{s}");
    }
    for s in ["no", "false", "y", "yes no", ""] {
        assert!(!yes.matches(s), "{s}");
    }
    let v = Expected::Typed(Typed::Variant("in_progress".into()));
    for s in ["in_progress", "In progress", "IN_PROGRESS.", "in  progress"] {
        assert!(v.matches(s), "{s}");
    }
    for s in ["progress", "in", "not in progress", ""] {
        assert!(!v.matches(s), "{s}");
    }
}

#[test]
fn texts_keep_token_f1_and_nothing_matches_an_empty_expected_answer() {
    let name = Expected::Texts(vec!["Maya Okafor".into()]);
    assert!(name.matches("maya okafor"));
    assert!(name.matches("Okafor"));
    assert!(!name.matches("the customer is maya really"));
    for e in [
        Expected::Nothing,
        Expected::Empty,
        Expected::Faulted("x".into()),
    ] {
        assert!(!e.matches(""));
        assert!(!e.matches("anything"));
        assert!(!e.buried_in("anything at all"));
        assert!(e.shown().is_empty());
    }
}

#[test]
fn a_value_inside_a_longer_text_is_buried_and_alone_is_not() {
    let due = Expected::Typed(Typed::Date(Date {
        year: 2026,
        month: 3,
        day: 3,
    }));
    assert!(due.buried_in("Due 2026-03-03 (renewable)"));
    assert!(due.buried_in("Due back by March 3, 2026, or pay a fee"));
    assert!(!due.buried_in("2026-03-03"));
    assert!(!due.buried_in("Due 2026-03-04 (renewable)"));
    let price = Expected::Typed(Typed::Money(1_250));
    assert!(!price.buried_in("Price: $12.50"));
    assert!(price.buried_in("2 left at $12.50 each"));
    let room = Expected::Texts(vec!["B-214".into()]);
    assert!(room.buried_in("Room B-214, second floor, east wing, by radiology"));
    assert!(!room.buried_in("B-214"));
    assert_eq!(due.shown(), vec!["2026-03-03".to_string()]);
    assert_eq!(price.shown(), vec!["$12.50".to_string()]);
}
