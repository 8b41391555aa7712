//! The tables and seed rows of a generated site, written from its drawn
//! [`Data`]: people, departments, categories, things, the workflow's table,
//! the past activity, and the rows the bound modules start with.

use super::Writer;
use crate::gen::data::Data;

/// `$24.99` from cents.
fn money(cents: u64) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}

impl Writer<'_> {
    /// Every table and its seed rows; returns the number of rows written.
    pub(super) fn tables(&mut self, d: &Data, rng: &mut crate::gen::rng::Rng) -> usize {
        let mut rows = self.people(d, rng);
        if !d.departments.is_empty() {
            self.line("\ntable Department {\n  name: Text\n}\n\nseed Department [");
            for dep in &d.departments {
                self.line(&format!("  {{ name: \"{}\" }},", dep.name));
                rows += 1;
            }
            self.line("]");
        }
        if self.has_categories() {
            let nested = !d.departments.is_empty();
            let dep_field = if nested {
                "\n  department: Department"
            } else {
                ""
            };
            self.line(&format!(
                "\ntable Category {{\n  name: Text{dep_field}\n}}\n\nseed Category ["
            ));
            for g in &d.groups {
                let dep = if nested {
                    format!(", department: Department[{}]", g.department + 1)
                } else {
                    String::new()
                };
                self.line(&format!("  {{ name: \"{}\"{dep} }},", g.category.name));
                rows += 1;
            }
            self.line("]");
        }
        rows += self.things(d);
        rows += self.activity_tables(d);
        rows + self.module_seeds(d)
    }

    fn people(&mut self, d: &Data, rng: &mut crate::gen::rng::Rng) -> usize {
        let p = self.person();
        self.line(&format!(
            "\ntable {p} {{\n  name: Text\n  password: Text\n  email: Text\n  newsletter: Bool\n}}\n\nseed {p} ["
        ));
        for (i, person) in d.people.iter().enumerate() {
            let first = person.first.to_lowercase();
            let last = person.last.to_lowercase();
            let password = format!("{first}-{}", rng.range(10, 99));
            // The first person never has the newsletter, so `subscribe` has work.
            let newsletter = i > 0 && rng.next().is_multiple_of(2);
            self.line(&format!(
                "  {{ name: \"{}\", password: \"{password}\", email: \"{first}.{last}@mail.example\", newsletter: {newsletter} }},",
                person.name()
            ));
        }
        self.line("]");
        d.people.len()
    }

    /// The things' table, its stock invariant and its rows.
    fn things(&mut self, d: &Data) -> usize {
        let t = self.thing();
        let cat_field = if self.has_categories() {
            "\n  category: Category"
        } else {
            ""
        };
        let extra_field = match &self.v.extra {
            Some(x) => format!("\n  {}: Int", x.field),
            None => String::new(),
        };
        self.line(&format!(
            "\ntable {t} {{\n  name: Text\n  price: Money\n  stock: Int\n  capacity: Int{extra_field}{cat_field}\n}}\n\ninvariant stock_never_negative: all x in {t}: x.stock >= 0\n\nseed {t} ["
        ));
        for thing in &d.things {
            let extra = match &self.v.extra {
                Some(x) => format!(", {}: {}", x.field, thing.extra),
                None => String::new(),
            };
            let cat = if self.has_categories() {
                format!(", category: Category[{}]", thing.group + 1)
            } else {
                String::new()
            };
            self.line(&format!(
                "  {{ name: \"{}\", price: {}, stock: {}, capacity: {}{extra}{cat} }},",
                thing.name,
                money(thing.price_cents),
                thing.stock,
                thing.capacity
            ));
        }
        self.line("]");
        d.things.len()
    }

    /// The workflow's table (one request of the first person waiting) and the
    /// past-activity table with its tens to hundreds of rows.
    fn activity_tables(&mut self, d: &Data) -> usize {
        let (p, t) = (self.person(), self.thing());
        let (req, rec) = (self.v.request_table, self.v.record_table);
        self.line(&format!(
            "\ntable {req} max 12 {{\n  thing: {t}\n  person: {p}\n  choice: Text\n  qty: Int\n}}\n\nseed {req} [\n  {{ thing: {t}[3], person: {p}[1], choice: \"{}\", qty: 1 }},\n]",
            self.v.options[0]
        ));
        let time_field = if self.v.record_hours.is_some() {
            "\n  time: Time"
        } else {
            ""
        };
        self.line(&format!(
            "\ntable {rec} {{\n  person: {p}\n  thing: {t}\n  amount: Money\n  day: Date{time_field}\n}}\n\nseed {rec} ["
        ));
        for r in &d.records {
            let time = match r.minutes {
                Some(m) => format!(", time: @{:02}:{:02}", m / 60, m % 60),
                None => String::new(),
            };
            self.line(&format!(
                "  {{ person: {p}[{}], thing: {t}[{}], amount: {}, day: @2026-{:02}-{:02}{time} }},",
                r.person,
                r.thing,
                money(r.amount_cents),
                r.month,
                r.day
            ));
        }
        self.line("]");
        1 + d.records.len()
    }

    /// Rows the modules' own tables start with, so that their tasks have
    /// instances: a message waiting, a booking and a draft of the first person.
    fn module_seeds(&mut self, d: &Data) -> usize {
        let (p, t) = (self.person(), self.thing());
        let mut rows = 0;
        for m in &self.plan.modules {
            let seed = match m.name {
                "messaging" => format!(
                    "\nseed Message [\n  {{ sender: {p}[2], recipient: {p}[1], body: \"Are you coming on Friday?\", reply_to: none }},\n]"
                ),
                "booking" => format!("\nseed Booking [\n  {{ slot: {t}[1], client: {p}[1] }},\n]"),
                "application" => format!(
                    "\nseed Application [\n  {{ applicant: {p}[1], purpose: \"{}\", amount: {}, status: draft }},\n]",
                    d.things.first().map_or("", |x| x.name.as_str()),
                    money(d.things.first().map_or(25_000, |x| x.price_cents))
                ),
                _ => continue,
            };
            self.out.push_str(&seed);
            self.out.push('\n');
            rows += 1;
        }
        rows
    }
}
