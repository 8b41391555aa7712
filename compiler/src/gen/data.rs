//! The data of one generated site, drawn before any text is written: its
//! people, the departments and categories its catalog shows, the things of
//! those categories with prices, stock and sizes in the ranges of their kind,
//! and the past activity rows. Categories are drawn first and things from
//! the kinds of their category, so a scarf is never listed under Kitchen;
//! names come from the kind's styles and nouns and never repeat in a site.

use super::plan::{Catalog, Plan};
use super::rng::Rng;
use super::vocab::{Category, Department, Kind, RecordAmount, Rounding, Vocabulary};
use super::vocab::{FIRST_NAMES, SURNAMES};

/// One person of the site.
pub(super) struct Person {
    pub first: &'static str,
    pub last: &'static str,
}

impl Person {
    pub fn name(&self) -> String {
        format!("{} {}", self.first, self.last)
    }
}

/// One category the site's things belong to, with the index of its
/// department in [`Data::departments`] (0 when departments are not shown).
pub(super) struct Group {
    pub category: &'static Category,
    pub department: usize,
}

/// One thing of the site's catalog.
pub(super) struct Thing {
    pub name: String,
    pub kind: &'static Kind,
    /// The style its name starts with.
    pub style: &'static str,
    /// Index into [`Data::groups`].
    pub group: usize,
    pub price_cents: u64,
    pub stock: u64,
    pub capacity: u64,
    /// The value of the domain's extra field (0 when it has none).
    pub extra: u64,
}

/// One row of past activity.
pub(super) struct Record {
    /// 1-based ids.
    pub person: usize,
    pub thing: usize,
    pub amount_cents: u64,
    pub month: u64,
    pub day: u64,
    /// Minutes after midnight, when the domain's activity has a time.
    pub minutes: Option<u64>,
}

/// Everything a site's seed rows say.
pub(super) struct Data {
    pub people: Vec<Person>,
    /// The departments shown (only by the nested catalog).
    pub departments: Vec<&'static Department>,
    /// The categories the things belong to (shown by the categories and
    /// nested catalogs; the others only draw their things from them).
    pub groups: Vec<Group>,
    pub things: Vec<Thing>,
    pub records: Vec<Record>,
}

/// Draws a site's data for its plan from its domain's vocabulary.
pub(super) fn draw(plan: &Plan, v: &'static Vocabulary, rng: &mut Rng) -> Data {
    let people = draw_people(rng.range(2, 5) as usize, rng);
    let record_count = rng.range(20, 200) as usize;
    let (departments, groups, count) = draw_groups(plan, v, rng);
    let things = draw_things(v, &groups, count, rng);
    let records = (0..record_count)
        .map(|_| draw_record(v, &things, people.len(), rng))
        .collect();
    Data {
        people,
        departments,
        groups,
        things,
        records,
    }
}

/// `n` people with distinct first names and surnames.
fn draw_people(n: usize, rng: &mut Rng) -> Vec<Person> {
    let firsts = distinct(&FIRST_NAMES, n, rng);
    let lasts = distinct(&SURNAMES, n, rng);
    firsts
        .into_iter()
        .zip(lasts)
        .map(|(first, last)| Person { first, last })
        .collect()
}

/// `n` distinct items of `items` (all of them when there are fewer), in
/// the order drawn.
fn distinct<T: Copy>(items: &[T], n: usize, rng: &mut Rng) -> Vec<T> {
    let mut left: Vec<T> = items.to_vec();
    let mut out = Vec::new();
    while out.len() < n && !left.is_empty() {
        out.push(left.remove(rng.range(0, left.len() as u64 - 1) as usize));
    }
    out
}

/// The site's departments (nested catalog only), its categories, and how
/// many things it has, to be dealt in turn to the categories.
fn draw_groups(
    plan: &Plan,
    v: &'static Vocabulary,
    rng: &mut Rng,
) -> (Vec<&'static Department>, Vec<Group>, usize) {
    let cap = things_cap(plan);
    let all: Vec<&'static Category> = v.departments.iter().flat_map(|d| d.categories).collect();
    let (count, categories) = match plan.catalog {
        Catalog::Flat | Catalog::Featured => {
            let n = rng.range(8, 16) as usize;
            (n, n.div_ceil(4))
        }
        Catalog::Paged => {
            let n = (rng.range(13, 24) as usize).min(cap);
            (n, n.div_ceil(5))
        }
        Catalog::Categories => {
            let cats = rng.range(3, 5) as usize;
            let per = (rng.range(2, 4) as usize).min(cap / cats);
            (cats * per, cats)
        }
        Catalog::Nested => return draw_nested(v, cap, rng),
    };
    let groups = distinct(&all, categories, rng)
        .into_iter()
        .map(|category| Group {
            category,
            department: 0,
        })
        .collect();
    (Vec::new(), groups, count.min(cap))
}

/// Two or three departments with two of their categories each.
fn draw_nested(
    v: &'static Vocabulary,
    cap: usize,
    rng: &mut Rng,
) -> (Vec<&'static Department>, Vec<Group>, usize) {
    let all: Vec<&'static Department> = v.departments.iter().collect();
    let departments = distinct(&all, rng.range(2, 3) as usize, rng);
    let mut groups = Vec::new();
    for (i, d) in departments.iter().enumerate() {
        let cats: Vec<&'static Category> = d.categories.iter().collect();
        groups.extend(distinct(&cats, 2, rng).into_iter().map(|category| Group {
            category,
            department: i,
        }));
    }
    let per = (rng.range(2, 3) as usize).min(cap / groups.len().max(1));
    let count = groups.len() * per;
    (departments, groups, count)
}

/// The most things a site may have. Modules that list every thing with a
/// button that writes (the cart's shelf, the booking slots) multiply the
/// states a proof explores by the number of things, so those sites keep to
/// a dozen.
fn things_cap(plan: &Plan) -> usize {
    if plan
        .modules
        .iter()
        .any(|m| matches!(m.name, "cart" | "booking"))
    {
        12
    } else {
        24
    }
}

/// `count` things dealt in turn to `groups`, each of a kind its category
/// holds, with a name no other thing of the site has.
fn draw_things(v: &Vocabulary, groups: &[Group], count: usize, rng: &mut Rng) -> Vec<Thing> {
    let mut things: Vec<Thing> = Vec::new();
    for i in 0..count {
        let group = i % groups.len().max(1);
        let Some(g) = groups.get(group) else {
            break;
        };
        let Some((kind, style, name)) = fresh_name(g.category, &things, rng) else {
            continue;
        };
        // The first three always have stock, so the workflow has work.
        let stock_floor = if i < 3 { v.stock.0.max(2) } else { v.stock.0 };
        things.push(Thing {
            name,
            kind,
            style,
            group,
            price_cents: price(v.rounding, kind.price, rng),
            stock: rng.range(stock_floor, v.stock.1),
            capacity: rng.range(1, 4),
            extra: v
                .extra
                .as_ref()
                .map_or(0, |x| multiple_in(kind.extra.0, kind.extra.1, x.step, rng)),
        });
    }
    things
}

/// A name of `category` that no thing of the site has: a random one, or
/// the next after it in the category's fixed order; one of a style not yet
/// used for its kind if there is one, so that a site does not list both a
/// "Hepatitis A vaccine" and a "Hepatitis A vaccination".
fn fresh_name(
    category: &'static Category,
    things: &[Thing],
    rng: &mut Rng,
) -> Option<(&'static Kind, &'static str, String)> {
    let names: Vec<(&'static Kind, &'static str, String)> = category
        .kinds
        .iter()
        .flat_map(|k| k.names().map(move |(s, n)| (k, s, n)))
        .collect();
    let start = rng.range(0, names.len().max(1) as u64 - 1) as usize;
    let in_turn = || (0..names.len()).map(|i| &names[(start + i) % names.len()]);
    let new_style = |(k, s, _): &&(&Kind, &str, String)| {
        !things
            .iter()
            .any(|t| std::ptr::eq(t.kind, *k) && t.style == *s)
    };
    let new_name = |(_, _, n): &&(&Kind, &str, String)| !things.iter().any(|t| t.name == *n);
    in_turn()
        .find(new_style)
        .or_else(|| in_turn().find(new_name))
        .cloned()
}

/// A price in `dollars` (inclusive), in cents, rounded as the domain rounds.
pub(super) fn price(rounding: Rounding, dollars: (u64, u64), rng: &mut Rng) -> u64 {
    match rounding {
        Rounding::Retail => {
            // Shops price at a round figure or just under one: $155.00 or
            // $154.99 from a hundred dollars up, $24.99, $24.50 or $24.00
            // below.
            let top = dollars.1.saturating_sub(1).max(dollars.0);
            let whole = rng.range(dollars.0, top);
            if whole < 100 {
                return whole * 100 + *rng.pick(&[99, 99, 50, 0, 95]);
            }
            let round = (whole - whole % 5).max(dollars.0);
            if round > dollars.0 && rng.next().is_multiple_of(2) {
                round * 100 - 1
            } else {
                round * 100
            }
        }
        Rounding::Whole(step) => multiple_in(dollars.0, dollars.1, step, rng) * 100,
    }
}

/// A multiple of `step` in `lo..=hi` (`lo` rounded up when none is).
fn multiple_in(lo: u64, hi: u64, step: u64, rng: &mut Rng) -> u64 {
    let step = step.max(1);
    let first = lo.div_ceil(step);
    let last = (hi / step).max(first);
    rng.range(first, last) * step
}

/// Days in each month of 2026, the generated sites' year.
const MONTH_DAYS: [u64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// Days from 1 January to 28 November 2026, the last day past activity has
/// (sites say today is 30 November).
const ACTIVE_DAYS: u64 = 331;

/// One row of past activity: by a person, about a thing, on a day of the
/// year before today (a weekday for offices and clinics), within opening
/// hours where it has a time.
fn draw_record(v: &Vocabulary, things: &[Thing], people: usize, rng: &mut Rng) -> Record {
    let person = rng.range(1, people as u64) as usize;
    let thing = rng.range(1, things.len().max(1) as u64) as usize;
    let price = things.get(thing - 1).map_or(0, |t| t.price_cents);
    let amount_cents = match v.record_amount {
        RecordAmount::PriceTimes(most) => price * rng.range(1, most),
        RecordAmount::Payment(lo, hi) => rng.range(lo * 100, hi * 100),
    };
    let mut day_of_year = rng.range(0, ACTIVE_DAYS);
    // 1 January 2026 is a Thursday: day 2 is a Saturday, day 3 a Sunday.
    let weekday = (day_of_year + 3) % 7; // 0 = Monday
    if v.weekdays_only && weekday >= 5 {
        day_of_year -= weekday - 4; // back to the Friday before
    }
    let (month, day) = month_and_day(day_of_year);
    let minutes = v
        .record_hours
        .map(|(open, close)| multiple_in(open, close, 15, rng));
    Record {
        person,
        thing,
        amount_cents,
        month,
        day,
        minutes,
    }
}

/// 1-based month and day of a 0-based day of 2026.
fn month_and_day(mut day_of_year: u64) -> (u64, u64) {
    for (m, &len) in MONTH_DAYS.iter().enumerate() {
        if day_of_year < len {
            return (m as u64 + 1, day_of_year + 1);
        }
        day_of_year -= len;
    }
    (12, 31)
}

#[cfg(test)]
mod tests;
