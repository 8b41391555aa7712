//! Typed expressions for generated code: conditions, values of each type and
//! row expressions over what is in scope (page parameters, loop and form
//! variables, marker parameters, session variables, seeded rows). Every field
//! read is recorded in [`Perms`], from which a marker's `reads` and `writes`
//! clauses are written, so markers never read or write outside their
//! permissions (E301, E302).

use super::rng::Rng;
use super::schema::{money, Schema, Ty, NAMES, TONE_VARIANTS};
use std::collections::BTreeSet;

/// Variables visible at one point, innermost last.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub vars: Vec<(String, Ty)>,
}

impl Scope {
    pub fn with(&self, name: &str, ty: Ty) -> Scope {
        let mut s = self.clone();
        s.vars.push((name.into(), ty));
        s
    }

    pub fn of(&self, ty: Ty) -> Vec<String> {
        self.vars
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// What a marker's code reads and writes, for its permission clauses.
#[derive(Clone, Debug, Default)]
pub struct Perms {
    pub reads: BTreeSet<(usize, &'static str)>,
    pub field_writes: BTreeSet<(usize, &'static str)>,
    pub table_writes: BTreeSet<usize>,
    pub session_writes: BTreeSet<String>,
}

impl Perms {
    /// `reads ... writes ...`; `writes session.trail` when nothing is
    /// written (a marker must declare a write).
    pub fn clauses(&self, schema: &Schema) -> String {
        let name = |t: usize| schema.tables[t].name;
        let mut writes: Vec<String> = self.table_writes.iter().map(|&t| name(t).into()).collect();
        writes.extend(
            self.field_writes
                .iter()
                .filter(|(t, _)| !self.table_writes.contains(t))
                .map(|(t, f)| format!("{}.{f}", name(*t))),
        );
        writes.extend(self.session_writes.iter().map(|v| format!("session.{v}")));
        if writes.is_empty() {
            writes.push("session.trail".into());
        }
        let reads: Vec<String> = self
            .reads
            .iter()
            .filter(|(t, f)| {
                !self.table_writes.contains(t) && !self.field_writes.contains(&(*t, *f))
            })
            .map(|(t, f)| format!("{}.{f}", name(*t)))
            .collect();
        let mut out = String::new();
        if !reads.is_empty() {
            out.push_str(&format!("\n  reads {}", reads.join(", ")));
        }
        out.push_str(&format!("\n  writes {}", writes.join(", ")));
        out
    }
}

/// Draws expressions for one site.
pub struct Exprs<'s> {
    pub schema: &'s Schema,
    /// Counter for fresh binder names (`z0`, `z1`, ...).
    pub fresh: usize,
}

impl<'s> Exprs<'s> {
    pub fn new(schema: &'s Schema) -> Exprs<'s> {
        Exprs { schema, fresh: 0 }
    }

    pub fn binder(&mut self) -> String {
        self.fresh += 1;
        format!("z{}", self.fresh)
    }

    /// `row.field` for a plain (non-reference) field, recording the read.
    fn read(&self, perms: &mut Perms, row: &str, t: usize, field: &'static str) -> String {
        let is_ref = self.schema.tables[t]
            .field(field)
            .is_some_and(|f| matches!(f.ty, Ty::Row(_)));
        if !is_ref {
            perms.reads.insert((t, field));
        }
        format!("{row}.{field}")
    }

    /// An expression for a row of table `t`: a variable, a reference field
    /// followed from one, a session variable or a seeded row.
    pub fn row(&mut self, rng: &mut Rng, scope: &Scope, t: usize) -> String {
        let mut options = scope.of(Ty::Row(t));
        for v in self.schema.session_of(Ty::Row(t)) {
            options.push(format!("session.{}", v.name));
        }
        for (name, ty) in &scope.vars {
            if let Ty::Row(u) = ty {
                for f in &self.schema.tables[*u].fields {
                    if f.ty == Ty::Row(t) {
                        options.push(format!("{name}.{}", f.name));
                    }
                }
            }
        }
        if options.is_empty() || rng.chance(25) {
            return self.schema.seeded_ref(rng, t);
        }
        rng.pick_or(&options, String::new())
    }

    /// A value of type `ty`.
    pub fn value(&mut self, rng: &mut Rng, scope: &Scope, perms: &mut Perms, ty: Ty) -> String {
        match ty {
            Ty::Text => self.text(rng, scope, perms),
            Ty::Int => self.int(rng, scope, perms),
            Ty::Bool => self.cond(rng, scope, perms, 1),
            Ty::Tone => self.tone(rng, scope, perms),
            Ty::Money => self.money(rng, scope, perms),
            Ty::Row(t) => self.row(rng, scope, t),
            Ty::OptRow(t) => {
                if rng.chance(10) {
                    "none".into()
                } else {
                    self.row(rng, scope, t)
                }
            }
        }
    }

    pub fn text(&mut self, rng: &mut Rng, scope: &Scope, perms: &mut Perms) -> String {
        let mut options: Vec<String> = vec![format!("{:?}", rng.pick_or(&NAMES, "Alpha"))];
        options.extend(scope.of(Ty::Text));
        options.extend(
            self.schema
                .session_of(Ty::Text)
                .iter()
                .map(|v| format!("session.{}", v.name)),
        );
        if let Some((row, t)) = self.some_row_var(rng, scope) {
            if rng.chance(50) {
                let field = if self.schema.tables[t].field("code").is_some() && rng.chance(40) {
                    "code"
                } else {
                    "name"
                };
                options.push(self.read(perms, &row, t, field));
            }
        }
        let picked = rng.pick_or(&options, "\"Alpha\"".into());
        match rng.below(20) {
            0 | 1 => format!("upper({picked})"),
            // The 1.1 text built-ins, with counts past either end.
            2 => format!("left({picked}, {})", signed(rng, 4)),
            3 => format!("right({picked}, {})", signed(rng, 4)),
            4 => format!("replace({picked}, \"a\", \"o\")"),
            5 => {
                let n = self.int(rng, scope, perms);
                format!("plural({n}, \"item\", \"items\")")
            }
            _ => picked,
        }
    }

    pub fn int(&mut self, rng: &mut Rng, scope: &Scope, perms: &mut Perms) -> String {
        let mut options: Vec<String> = vec![rng.range(0, 3).to_string()];
        options.extend(scope.of(Ty::Int));
        for v in self.schema.session_of(Ty::Int) {
            if v.name != "trail" {
                options.push(format!("session.{} + 1", v.name));
            }
        }
        if let Some((row, t)) = self.some_row_var(rng, scope) {
            if self.schema.tables[t].field("qty").is_some() {
                let q = self.read(perms, &row, t, "qty");
                options.push(format!("{q} + {}", rng.range(1, 2)));
                options.push(format!("{q} - 1"));
            }
        }
        let t = rng.below(self.schema.tables.len());
        options.push(format!("count({})", self.schema.tables[t].name));
        if rng.chance(15) {
            options.push(self.calendar_int(rng, &options));
        }
        rng.pick_or(&options, "1".into())
    }

    /// An `Int` through the 1.1 calendar arithmetic (`Date ± Int`,
    /// `Date - Date`, `Time ± Int`); near the ends of the calendar and the
    /// day, so some evaluations fault (out of range) in both engines.
    fn calendar_int(&mut self, rng: &mut Rng, ints: &[String]) -> String {
        let n = rng.pick_or(ints, "1".into());
        match rng.below(4) {
            0 => format!("(today() + ({n})) - today()"),
            1 => format!("days_between(today(), @9999-12-30 + ({n}))"),
            2 => format!("(@0000-01-02 - ({n})) - @0000-01-01"),
            _ => format!(
                "days_between(@2026-01-01, @2026-03-01 - {})",
                signed(rng, 40)
            ),
        }
    }

    pub fn money(&mut self, rng: &mut Rng, scope: &Scope, perms: &mut Perms) -> String {
        let mut options: Vec<String> = vec![money(rng.range(0, 6) as i64 * 125)];
        if let Some((row, t)) = self.some_row_var(rng, scope) {
            if self.schema.tables[t].field("price").is_some() {
                let p = self.read(perms, &row, t, "price");
                options.push(format!("{p} + $1.25"));
                options.push(format!("{p} * 2"));
                options.push(format!("{p} / 2"));
            }
        }
        rng.pick_or(&options, "$0.00".into())
    }

    pub fn tone(&mut self, rng: &mut Rng, scope: &Scope, perms: &mut Perms) -> String {
        let mut options: Vec<String> = vec![rng.pick_or(&TONE_VARIANTS, "red").into()];
        options.extend(scope.of(Ty::Tone));
        if let Some((row, t)) = self.some_row_var(rng, scope) {
            if self.schema.tables[t].field("tone").is_some() {
                options.push(self.read(perms, &row, t, "tone"));
            }
        }
        rng.pick_or(&options, "red".into())
    }

    /// A row variable in scope (or a seeded row), with its table.
    fn some_row_var(&mut self, rng: &mut Rng, scope: &Scope) -> Option<(String, usize)> {
        let vars: Vec<(String, usize)> = scope
            .vars
            .iter()
            .filter_map(|(n, t)| match t {
                Ty::Row(t) => Some((n.clone(), *t)),
                _ => None,
            })
            .collect();
        if !vars.is_empty() && rng.chance(75) {
            return rng.pick(&vars).cloned();
        }
        let t = rng.below(self.schema.tables.len());
        Some((self.schema.seeded_ref(rng, t), t))
    }

    /// A comparison on one plain field of `row` (a row of table `t`).
    pub fn field_test(&mut self, rng: &mut Rng, perms: &mut Perms, row: &str, t: usize) -> String {
        let fields: Vec<(&'static str, Ty)> = self.schema.tables[t]
            .plain_fields()
            .iter()
            .map(|f| (f.name, f.ty))
            .collect();
        let (name, ty) = rng.pick_or(&fields, ("name", Ty::Text));
        let read = self.read(perms, row, t, name);
        match ty {
            Ty::Int => {
                let op = rng.pick_or(&[">", ">=", "==", "<"], ">");
                format!("{read} {op} {}", rng.range(0, 3))
            }
            Ty::Bool => {
                if rng.chance(50) {
                    read
                } else {
                    format!("not {read}")
                }
            }
            Ty::Tone => format!("{read} == {}", rng.pick_or(&TONE_VARIANTS, "red")),
            Ty::Money => {
                let op = rng.pick_or(&[">", "<=", "=="], ">");
                format!("{read} {op} {}", money(rng.range(0, 6) as i64 * 125))
            }
            _ => {
                let op = rng.pick_or(&["==", "!="], "==");
                format!("{read} {op} {:?}", rng.pick_or(&NAMES, "Alpha"))
            }
        }
    }

    /// A `Bool` condition; `depth` bounds nesting of `and`/`or`.
    pub fn cond(&mut self, rng: &mut Rng, scope: &Scope, perms: &mut Perms, depth: u32) -> String {
        if depth > 0 && rng.chance(20) {
            let a = self.cond(rng, scope, perms, depth - 1);
            let b = self.cond(rng, scope, perms, depth - 1);
            let op = rng.pick_or(&["and", "or"], "and");
            return format!("({a}) {op} ({b})");
        }
        let mut options: Vec<u8> = vec![0, 1, 2];
        if !scope.of(Ty::Bool).is_empty() {
            options.extend([3, 3]);
        }
        if !scope.of(Ty::Int).is_empty() {
            options.push(4);
        }
        if !scope.of(Ty::Text).is_empty() {
            options.push(5);
        }
        // The 1.1 conversions, times and narrowing.
        options.push(6);
        match rng.pick_or(&options, 0) {
            0 => self.session_test(rng),
            1 => {
                let (row, t) = self
                    .some_row_var(rng, scope)
                    .unwrap_or_else(|| ("Item[1]".into(), 0));
                self.field_test(rng, perms, &row, t)
            }
            2 => {
                let t = rng.below(self.schema.tables.len());
                let table = self.schema.tables[t].name;
                if rng.chance(50) {
                    format!("count({table}) >= {}", rng.range(1, 4))
                } else {
                    let z = self.binder();
                    let test = self.field_test(rng, perms, &z, t);
                    format!("(exists {z} in {table}: {test})")
                }
            }
            3 => {
                let v = rng.pick_or(&scope.of(Ty::Bool), "true".into());
                if rng.chance(70) {
                    v
                } else {
                    format!("not {v}")
                }
            }
            4 => format!(
                "{} > {}",
                rng.pick_or(&scope.of(Ty::Int), "0".into()),
                rng.range(0, 2)
            ),
            6 => self.cond_1_1(rng, scope, perms),
            _ => format!(
                "{} != \"\"",
                rng.pick_or(&scope.of(Ty::Text), "\"\"".into())
            ),
        }
    }

    /// A condition on `to_int`/`to_money` of some text, on a time moved
    /// by some minutes (which may leave the day), or on a field of an
    /// optional row (a parameter or session variable) after `!= none`
    /// narrows it.
    fn cond_1_1(&mut self, rng: &mut Rng, scope: &Scope, perms: &mut Perms) -> String {
        let session = self
            .schema
            .session
            .iter()
            .map(|v| (format!("session.{}", v.name), v.ty));
        let opt_rows: Vec<(String, usize)> = scope
            .vars
            .iter()
            .cloned()
            .chain(session)
            .filter_map(|(name, ty)| match ty {
                Ty::OptRow(t) => Some((name, t)),
                _ => None,
            })
            .collect();
        match rng.below(4) {
            0 => {
                let t = self.text(rng, scope, perms);
                format!("to_int({t}) == {}", rng.range(0, 3))
            }
            1 => {
                let t = self.text(rng, scope, perms);
                let op = rng.pick_or(&["==", "!="], "==");
                format!("to_money({t}) {op} none")
            }
            2 if !opt_rows.is_empty() => {
                let (v, t) = rng.pick_or(&opt_rows, (String::new(), 0));
                let name = self.read(perms, &v, t, "name");
                format!("({v} != none and len({name}) > {})", rng.range(0, 5))
            }
            _ => {
                let n = self.int(rng, scope, perms);
                format!("@23:58 + ({n}) > @12:00")
            }
        }
    }

    /// A test of one session variable.
    pub fn session_test(&mut self, rng: &mut Rng) -> String {
        let vars: Vec<_> = self
            .schema
            .session
            .iter()
            .filter(|v| v.name != "trail")
            .collect();
        let Some(v) = rng.pick(&vars) else {
            return "true".into();
        };
        let name = format!("session.{}", v.name);
        match v.ty {
            Ty::Bool => {
                if rng.chance(70) {
                    name
                } else {
                    format!("not {name}")
                }
            }
            Ty::Int => format!("{name} >= {}", rng.range(1, 2)),
            Ty::Text => {
                if rng.chance(50) {
                    format!("{name} != \"\"")
                } else {
                    format!("{name} == {:?}", rng.pick_or(&NAMES, "Alpha"))
                }
            }
            Ty::Tone => format!("{name} == {}", rng.pick_or(&TONE_VARIANTS, "red")),
            Ty::Money => format!("{name} > $0.00"),
            Ty::Row(t) => format!("{name} == {}", self.schema.seeded_ref(rng, t)),
            Ty::OptRow(_) => "true".into(),
        }
    }
}

/// `n` in `-max..=max`, written as source.
fn signed(rng: &mut Rng, max: usize) -> String {
    let n = rng.range(0, 2 * max);
    if n < max {
        format!("-{}", max - n)
    } else {
        (n - max).to_string()
    }
}
