//! Retrieval tasks from the data (§2.4 `answer`, §5.2, §5.3): single values
//! (a field of a named row), comparisons (the row with the least or greatest
//! value of a field, overall or among rows sharing another field's value),
//! counts (rows with a given value) and filtered lookups (a field of the one
//! row with a given value). The answer is computed from the seed data now; a
//! candidate is kept only when a page the exploration reached shows a text
//! the answer rule (§5.3) accepts for it, and its row's name where it names
//! one — the prover still decides (F405) before anything is emitted.

use super::explore::Exploration;
use super::phrasing::{humanize, plural, Family, Slots};
use super::source::{literal, quotable, Check};
use super::Candidate;
use crate::env::answer::Expected;
use crate::interp::exec::World;
use crate::interp::render::render;
use crate::ir::{self, RowData, Ty, Value};

/// Rows per table a family looks at, at most (seed order), so that a large
/// table does not drown the others.
const ROWS_PER_TABLE: usize = 12;

/// Every retrieval candidate whose answer is shown somewhere reachable.
pub(super) fn candidates(program: &ir::Program, explored: &Exploration) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (t, def) in program.tables.iter().enumerate() {
        let Some(table) = explored.initial.db.table(t as ir::TableId) else {
            continue;
        };
        let rows: Vec<&RowData> = table.rows().iter().take(ROWS_PER_TABLE).collect();
        let ctx = Ctx {
            program,
            explored,
            def,
            rows: &rows,
            label: label_field(def),
        };
        out.extend(ctx.singles());
        out.extend(ctx.comparisons());
        out.extend(ctx.counts_and_lookups());
    }
    out
}

/// The field that names a table's rows: `name`, `title`, else the first text.
pub(super) fn label_field(def: &ir::TableDef) -> Option<usize> {
    let text = |f: &ir::FieldDef| f.ty == Ty::Text;
    ["name", "title"]
        .iter()
        .find_map(|n| def.fields.iter().position(|f| f.name == *n && text(f)))
        .or_else(|| def.fields.iter().position(text))
}

struct Ctx<'a> {
    program: &'a ir::Program,
    explored: &'a Exploration,
    def: &'a ir::TableDef,
    rows: &'a [&'a RowData],
    label: Option<usize>,
}

impl Ctx<'_> {
    fn world(&self) -> &World {
        &self.explored.initial
    }

    fn table_words(&self) -> (String, String) {
        let one = humanize(&self.def.name);
        let many = plural(&one);
        (one, many)
    }

    /// The row's name, when it has a quotable one.
    fn label_of(&self, row: &RowData) -> Option<String> {
        match row.values.get(self.label?)? {
            Value::Text(t) if quotable(t) => Some(t.to_string()),
            _ => None,
        }
    }

    fn render(&self, ty: &Ty, v: &Value) -> String {
        render(self.program, &self.world().db, v, ty)
    }

    fn expected(&self, ty: &Ty, v: &Value) -> Expected {
        let ctx = self.world().context(self.program, None);
        Expected::of_value(&ctx, v, ty)
    }

    /// The fewest steps to a page showing a text `expected` accepts.
    fn steps_to_see(&self, expected: &Expected) -> Option<u32> {
        self.explored
            .shown
            .iter()
            .filter(|(text, _)| expected.matches(text))
            .map(|(_, d)| *d)
            .min()
    }

    /// Fields a question may ask about: shown values of a plain type.
    fn asked_fields(&self) -> impl Iterator<Item = (usize, &ir::FieldDef)> {
        self.def
            .fields
            .iter()
            .enumerate()
            .filter(move |(i, f)| Some(*i) != self.label && askable(&f.ty))
    }

    /// The asked fields of `row` (but `except`) holding a value some
    /// reached page shows, each with the answer rule for its value and the
    /// fewest steps to see it.
    fn shown_fields<'r>(
        &'r self,
        row: &'r RowData,
        except: Option<usize>,
    ) -> impl Iterator<Item = (&'r ir::FieldDef, Expected, u32)> + 'r {
        self.asked_fields()
            .filter(move |(i, _)| Some(*i) != except)
            .filter_map(move |(i, f)| {
                let v = row.values.get(i).filter(|v| **v != Value::None)?;
                let expected = self.expected(&f.ty, v);
                let seen = self.steps_to_see(&expected)?;
                Some((f, expected, seen))
            })
    }

    fn candidate(
        &self,
        family: Family,
        slots: Slots,
        check: Check,
        data: u32,
        depth: u32,
        expected: Vec<String>,
    ) -> Candidate {
        Candidate {
            family,
            slots,
            check,
            values: Vec::new(),
            data,
            depth,
            workflow: 0,
            expected,
        }
    }

    fn singles(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        let (table, _) = self.table_words();
        for row in self.rows {
            let Some(label) = self.label_of(row) else {
                continue;
            };
            let Some(label_seen) = self.steps_to_see(&Expected::Texts(vec![label.clone()])) else {
                continue;
            };
            for (f, expected, seen) in self.shown_fields(row, None) {
                let slots = Slots {
                    field: humanize(&f.name),
                    label: label.clone(),
                    table: table.clone(),
                    ..Slots::default()
                };
                let check = Check::Answer(format!("{}[{}].{}", self.def.name, row.id, f.name));
                let depth = seen.max(label_seen) + 1;
                out.push(self.candidate(
                    Family::Single,
                    slots,
                    check,
                    1,
                    depth,
                    phrasings(&expected),
                ));
            }
        }
        out
    }

    fn comparisons(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        let (table, tables) = self.table_words();
        for (i, f) in self.asked_fields().filter(|(_, f)| ordered(&f.ty)) {
            for group in self.groups() {
                let rows: Vec<&RowData> = self
                    .rows
                    .iter()
                    .copied()
                    .filter(|r| {
                        group
                            .as_ref()
                            .is_none_or(|(g, v, _)| r.values.get(*g) == Some(v))
                    })
                    .filter(|r| r.values.get(i).is_some_and(|v| *v != Value::None))
                    .collect();
                if rows.len() < 3 {
                    continue;
                }
                for greatest in [false, true] {
                    let Some(winner) = extreme(&rows, i, greatest) else {
                        continue;
                    };
                    let Some(label) = self.label_of(winner) else {
                        continue;
                    };
                    let expected = Expected::Texts(vec![label.clone()]);
                    let Some(seen) = self.steps_to_see(&expected) else {
                        continue;
                    };
                    let slots = Slots {
                        field: humanize(&f.name),
                        table: table.clone(),
                        tables: tables.clone(),
                        extreme: extreme_word(&f.ty, greatest).into(),
                        cond: group
                            .as_ref()
                            .map(|(_, _, c)| c.clone())
                            .unwrap_or_default(),
                        ..Slots::default()
                    };
                    let data = 2 + u32::from(group.is_some());
                    let check = Check::Texts(vec![label.clone()]);
                    out.push(self.candidate(
                        Family::Comparison,
                        slots,
                        check,
                        data,
                        seen + 1,
                        vec![label],
                    ));
                }
            }
        }
        out
    }

    /// No group, then each (field, value) a condition can name.
    fn groups(&self) -> Vec<Option<(usize, Value, String)>> {
        let mut out = vec![None];
        out.extend(
            self.conditions()
                .into_iter()
                .map(|(g, v, c, _)| Some((g, v, c))),
        );
        out
    }

    /// `(field, value, words, literal)` for values of enum, reference and
    /// short text fields that two or more rows share or one row has.
    fn conditions(&self) -> Vec<(usize, Value, String, String)> {
        let mut out = Vec::new();
        for (g, f) in self.def.fields.iter().enumerate() {
            if !matches!(strip(&f.ty), Ty::Enum(_) | Ty::Row(_) | Ty::Text) || Some(g) == self.label
            {
                continue;
            }
            let mut values: Vec<&Value> = Vec::new();
            for r in self.rows {
                if let Some(v) = r
                    .values
                    .get(g)
                    .filter(|v| **v != Value::None && !values.contains(v))
                {
                    values.push(v);
                }
            }
            for v in values {
                let shown = self.render(&f.ty, v);
                let Some(lit) = literal(self.program, &f.ty, v) else {
                    continue;
                };
                if !quotable(&shown) || shown.len() > 40 {
                    continue;
                }
                let words = format!("{} \"{shown}\"", humanize(&f.name));
                out.push((g, v.clone(), words, lit));
            }
        }
        out
    }

    fn counts_and_lookups(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        let (table, tables) = self.table_words();
        for (g, v, cond, lit) in self.conditions() {
            let Some(gname) = self.def.fields.get(g).map(|f| f.name.clone()) else {
                continue;
            };
            let matching: Vec<&RowData> = self
                .explored
                .initial
                .db
                .table(self.table_id())
                .map(|t| {
                    t.rows()
                        .iter()
                        .filter(|r| r.values.get(g) == Some(&v))
                        .collect()
                })
                .unwrap_or_default();
            let n = matching.len() as i64;
            let count = Expected::Typed(crate::env::answer::Typed::Int(n));
            // A count of one, or over a text field, asks little; counts are
            // over enum and reference values that several rows share.
            let groups = self
                .def
                .fields
                .get(g)
                .is_some_and(|f| !matches!(strip(&f.ty), Ty::Text));
            if let Some(seen) = self.steps_to_see(&count).filter(|_| n >= 2 && groups) {
                let slots = Slots {
                    table: table.clone(),
                    tables: tables.clone(),
                    cond: cond.clone(),
                    ..Slots::default()
                };
                let check = Check::Answer(format!(
                    "count(x in {} where x.{gname} == {lit})",
                    self.def.name
                ));
                out.push(self.candidate(
                    Family::Count,
                    slots,
                    check,
                    2,
                    seen + 1,
                    phrasings(&count),
                ));
            }
            let [row] = matching.as_slice() else {
                continue;
            };
            for (f, expected, seen) in self.shown_fields(row, Some(g)) {
                let slots = Slots {
                    field: humanize(&f.name),
                    table: table.clone(),
                    cond: cond.clone(),
                    ..Slots::default()
                };
                let check = Check::Answer(format!("{}[{}].{}", self.def.name, row.id, f.name));
                out.push(self.candidate(
                    Family::Lookup,
                    slots,
                    check,
                    2,
                    seen + 1,
                    phrasings(&expected),
                ));
            }
        }
        out
    }

    fn table_id(&self) -> ir::TableId {
        self.program
            .tables
            .iter()
            .position(|t| t.name == self.def.name)
            .unwrap_or(usize::MAX) as ir::TableId
    }
}

pub(super) fn strip(ty: &Ty) -> &Ty {
    match ty {
        Ty::Optional(inner) => strip(inner),
        t => t,
    }
}

/// A field worth asking about: a plain value, an enum or a named reference.
fn askable(ty: &Ty) -> bool {
    !matches!(strip(ty), Ty::Bool)
}

fn ordered(ty: &Ty) -> bool {
    matches!(strip(ty), Ty::Int | Ty::Money | Ty::Date | Ty::Time)
}

/// The row with the least (greatest) value of field `i`; `None` on a tie.
fn extreme<'a>(rows: &[&'a RowData], i: usize, greatest: bool) -> Option<&'a RowData> {
    let mut sorted: Vec<&RowData> = rows.to_vec();
    sorted.sort_by(|a, b| a.values.get(i).cmp(&b.values.get(i)));
    if greatest {
        sorted.reverse();
    }
    let (first, second) = (sorted.first()?, sorted.get(1)?);
    (first.values.get(i) != second.values.get(i)).then_some(*first)
}

fn extreme_word(ty: &Ty, greatest: bool) -> &'static str {
    match (strip(ty), greatest) {
        (Ty::Date | Ty::Time, false) => "earliest",
        (Ty::Date | Ty::Time, true) => "latest",
        (_, false) => "lowest",
        (_, true) => "highest",
    }
}

/// The canonical rendering of an expected answer and equivalent phrasings
/// (§5.3's lenient formats); the caller keeps those the answer rule accepts.
pub fn phrasings(expected: &Expected) -> Vec<String> {
    use crate::env::answer::Typed;
    let mut out = expected.shown();
    if let Expected::Typed(t) = expected {
        match t {
            Typed::Money(c) => {
                let (units, cents) = (c / 100, (c % 100).abs());
                out.push(format!("{units}.{cents:02}"));
                out.push(format!("{units}.{cents:02} dollars"));
            }
            Typed::Time(t) => {
                let (h, m) = (t.hour, t.minute);
                let half = if h < 12 { "am" } else { "pm" };
                let h12 = if h % 12 == 0 { 12 } else { h % 12 };
                out.push(if m == 0 {
                    format!("{h12} {half}")
                } else {
                    format!("{h12}:{m:02} {half}")
                });
            }
            Typed::Date(d) => {
                out.push(format!("{} {}, {}", d.month_name(), d.day, d.year));
                out.push(format!("{:02}/{:02}/{}", d.month, d.day, d.year));
            }
            Typed::Int(n) => out.push(format!("{n} in total")),
            Typed::Bool(b) => out.push(if *b { "true" } else { "false" }.into()),
            Typed::Variant(v) => out.push(v.replace('_', " ")),
        }
    }
    out.dedup();
    out.retain(|p| expected.matches(p));
    out
}
