//! Generated data read back from the written sites: every thing is of a kind
//! its category (and department) holds, priced and sized in its kind's range,
//! named without suffixes and once per site; past activity falls on plausible
//! days and hours.

use super::*;
use crate::gen::vocab::vocabulary;
use crate::gen::{generate, DOMAINS};
use std::collections::BTreeSet;

/// Sites per domain read back.
const SITES: usize = 300;

/// The rows of `seed TABLE [ … ]` in `text`.
fn seed_rows<'a>(text: &'a str, table: &str) -> Vec<&'a str> {
    let open = format!("\nseed {table} [\n");
    let Some(start) = text.find(&open) else {
        return Vec::new();
    };
    text[start + open.len()..]
        .lines()
        .take_while(|l| *l != "]")
        .collect()
}

/// The value of `field: …` in a seed row, up to the next `,` or ` }`.
fn field<'a>(row: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}: ");
    let at = row.find(&key)? + key.len();
    let rest = &row[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next();
    }
    rest.split([',', ' ']).next()
}

/// `Category[3]` → 3.
fn index(reference: &str) -> usize {
    reference
        .trim_end_matches(']')
        .rsplit('[')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// `$1,299.00`-free seed money (`$24.99`) in cents.
fn cents(money: &str) -> u64 {
    let (dollars, cents) = money.trim_start_matches('$').split_once('.').unwrap();
    dollars.parse::<u64>().unwrap() * 100 + cents.parse::<u64>().unwrap()
}

/// The kind, its style, category and department a thing's name belongs to.
fn find_kind(v: &'static Vocabulary, name: &str) -> Option<(&'static Kind, Found)> {
    v.departments.iter().find_map(|d| {
        d.categories.iter().find_map(|c| {
            c.kinds.iter().find_map(|k| {
                let (style, _) = k.names().find(|(_, n)| n == name)?;
                Some((k, (style, c.name, d.name)))
            })
        })
    })
}

/// A name's style, category and department.
type Found = (&'static str, &'static str, &'static str);

#[test]
fn every_thing_fits_its_category_and_its_kind_s_ranges() {
    for domain in DOMAINS {
        let v = vocabulary(domain);
        let mut all_names = BTreeSet::new();
        for site in generate(domain, 17, SITES).unwrap() {
            let departments: Vec<&str> = seed_rows(&site.text, "Department")
                .iter()
                .filter_map(|r| field(r, "name"))
                .collect();
            let categories: Vec<(&str, Option<usize>)> = seed_rows(&site.text, "Category")
                .iter()
                .filter_map(|r| Some((field(r, "name")?, field(r, "department").map(index))))
                .collect();
            let rows = seed_rows(&site.text, v.things_table);
            assert!(rows.len() >= 4, "{}: {rows:?}", site.file_name);
            let mut names = BTreeSet::new();
            let mut styles = BTreeSet::new();
            for row in rows {
                let name = field(row, "name").unwrap();
                assert!(names.insert(name), "{}: {name} twice", site.file_name);
                let last = name.rsplit(' ').next().unwrap();
                assert!(
                    last != "Plus" && !last.chars().all(|c| c.is_ascii_digit()),
                    "{name}"
                );
                let (kind, (style, category, department)) = find_kind(v, name)
                    .unwrap_or_else(|| panic!("{}: `{name}` is of no kind", site.file_name));
                // No "Hepatitis A vaccine" beside a "Hepatitis A vaccination".
                let styled = (std::ptr::from_ref(kind), style);
                assert!(styles.insert(styled), "{}: {name}", site.file_name);
                if let Some(c) = field(row, "category") {
                    let (shown, dep) = categories[index(c) - 1];
                    assert_eq!(shown, category, "{}: {name}", site.file_name);
                    if let Some(dep) = dep {
                        assert_eq!(departments[dep - 1], department, "{name}");
                    }
                }
                let price = cents(field(row, "price").unwrap());
                let (lo, hi) = kind.price;
                assert!(
                    lo * 100 <= price && price <= hi * 100,
                    "{name}: {price} not in {lo}–{hi}"
                );
                if let Some(x) = &v.extra {
                    let value: u64 = field(row, x.field).unwrap().parse().unwrap();
                    assert!(
                        kind.extra.0 <= value && value <= kind.extra.1,
                        "{name}: {value}"
                    );
                    assert_eq!(value % x.step, 0, "{name}: {value}");
                }
                let stock: u64 = field(row, "stock").unwrap().parse().unwrap();
                assert!(
                    v.stock.0 <= stock && stock <= v.stock.1,
                    "{name}: stock {stock}"
                );
                all_names.insert(name.to_string());
            }
        }
        // 300 sites of a domain do not repeat the same few things.
        assert!(
            all_names.len() >= 120,
            "{domain}: {} names",
            all_names.len()
        );
    }
}

#[test]
fn past_activity_falls_on_plausible_days_hours_and_amounts() {
    for domain in DOMAINS {
        let v = vocabulary(domain);
        for site in generate(domain, 5, 40).unwrap() {
            let prices: Vec<u64> = seed_rows(&site.text, v.things_table)
                .iter()
                .map(|r| cents(field(r, "price").unwrap()))
                .collect();
            for row in seed_rows(&site.text, v.record_table) {
                let day = field(row, "day").unwrap().trim_start_matches('@');
                let (m, d) = (&day[5..7], &day[8..10]);
                let (m, d): (u64, u64) = (m.parse().unwrap(), d.parse().unwrap());
                assert!(
                    (1..=11).contains(&m) && d <= MONTH_DAYS[m as usize - 1],
                    "{day}"
                );
                let day_of_year: u64 = MONTH_DAYS[..m as usize - 1].iter().sum::<u64>() + d - 1;
                if v.weekdays_only {
                    assert!((day_of_year + 3) % 7 < 5, "{domain}: {day} is a weekend");
                }
                match (v.record_hours, field(row, "time")) {
                    (Some((open, close)), Some(t)) => {
                        let (h, min) = t.trim_start_matches('@').split_once(':').unwrap();
                        let at = h.parse::<u64>().unwrap() * 60 + min.parse::<u64>().unwrap();
                        assert!(open <= at && at <= close && at % 15 == 0, "{domain}: {t}");
                    }
                    (None, None) => {}
                    other => panic!("{domain}: time {other:?} in {row}"),
                }
                let amount = cents(field(row, "amount").unwrap());
                let thing = index(field(row, "thing").unwrap());
                match v.record_amount {
                    RecordAmount::PriceTimes(most) => {
                        let price = prices[thing - 1];
                        assert!(
                            amount.is_multiple_of(price) && amount / price <= most,
                            "{row}"
                        );
                    }
                    RecordAmount::Payment(lo, hi) => {
                        assert!(lo * 100 <= amount && amount <= hi * 100, "{row}");
                    }
                }
            }
        }
    }
}

#[test]
fn prices_are_rounded_the_way_shops_and_offices_round() {
    let mut rng = Rng(3);
    for _ in 0..500 {
        let p = price(Rounding::Retail, (2, 6), &mut rng);
        assert!((200..=599).contains(&p), "{p}");
        assert!([99, 50, 0, 95].contains(&(p % 100)), "{p}");
        // From a hundred dollars up: a multiple of five, or a cent under one.
        let p = price(Rounding::Retail, (120, 300), &mut rng);
        assert!((12_000..=29_999).contains(&p), "{p}");
        assert!(p.is_multiple_of(500) || (p + 1).is_multiple_of(500), "{p}");
        let p = price(Rounding::Whole(10), (300, 905), &mut rng);
        assert!(
            p.is_multiple_of(1000) && (30_000..=90_000).contains(&p),
            "{p}"
        );
    }
    // 8 to 17 in steps of 5: 10 or 15, and both occur.
    let drawn: BTreeSet<u64> = (0..50).map(|_| multiple_in(8, 17, 5, &mut rng)).collect();
    assert_eq!(drawn, BTreeSet::from([10, 15]));
}

#[test]
fn days_of_the_year_map_to_calendar_dates() {
    assert_eq!(month_and_day(0), (1, 1));
    assert_eq!(month_and_day(31), (2, 1));
    assert_eq!(month_and_day(58), (2, 28));
    assert_eq!(month_and_day(59), (3, 1));
    assert_eq!(month_and_day(ACTIVE_DAYS), (11, 28));
}

#[test]
fn people_and_titles_vary_across_sites() {
    let sites = generate("ecommerce", 9, 100).unwrap();
    let titles: BTreeSet<&str> = sites
        .iter()
        .filter_map(|s| s.text.lines().find_map(|l| l.strip_prefix("  title ")))
        .collect();
    assert!(titles.len() >= 20, "{titles:?}");
    let people: BTreeSet<&str> = sites
        .iter()
        .flat_map(|s| seed_rows(&s.text, "Customer"))
        .filter_map(|r| field(r, "name"))
        .collect();
    assert!(people.len() >= 100, "{} people", people.len());
}
