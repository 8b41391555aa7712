//! The data half of a generated site: the enum, tables with their seed rows,
//! session variables and invariants, and the source text declaring them.
//! Invariants are drawn so that the seed satisfies them (C301 would make the
//! site an error) while some marker writes can still break them.

use super::rng::Rng;
use std::fmt::Write;

/// The one enum every generated site declares.
pub const TONE_VARIANTS: [&str; 3] = ["red", "green", "blue"];

/// Row names; the seed draws from the first five, renames also from the rest.
pub const NAMES: [&str; 8] = [
    "Alpha", "Bravo", "Cedar", "Delta", "Ember", "Zulu", "Yarrow", "Quill",
];

const TABLE_NAMES: [&str; 3] = ["Item", "Shelf", "Crate"];

/// The type of a value in generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Text,
    Int,
    Bool,
    Tone,
    Money,
    /// A row of table `n`.
    Row(usize),
    /// `T?` for a row of table `n` (what `find` gives).
    OptRow(usize),
}

/// A constant, as it appears in seed rows and session initialisers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lit {
    Text(String),
    Int(i64),
    Bool(bool),
    Tone(usize),
    /// Cents.
    Money(i64),
    /// `Table[id]`.
    Ref(usize, i64),
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
}

#[derive(Clone, Debug)]
pub struct SeedRow {
    pub id: i64,
    /// One value per field, in field order.
    pub values: Vec<Lit>,
    /// Whether the row states its id in the source.
    pub explicit_id: bool,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub name: &'static str,
    /// `name: Text` always comes first, so rows render by name.
    pub fields: Vec<Field>,
    pub rows: Vec<SeedRow>,
    /// `max N`, when stated.
    pub max: Option<usize>,
}

impl Table {
    pub fn ids(&self) -> Vec<i64> {
        self.rows.iter().map(|r| r.id).collect()
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Fields other than references (the ones `reads` must cover).
    pub fn plain_fields(&self) -> Vec<&Field> {
        self.fields
            .iter()
            .filter(|f| !matches!(f.ty, Ty::Row(_)))
            .collect()
    }
}

#[derive(Clone, Debug)]
pub struct SessionVar {
    pub name: String,
    pub ty: Ty,
    pub init: Lit,
}

#[derive(Clone, Debug, Default)]
pub struct Schema {
    pub tables: Vec<Table>,
    pub session: Vec<SessionVar>,
    /// `invariant name: expr`, as source lines.
    pub invariants: Vec<String>,
}

impl Schema {
    pub fn draw(rng: &mut Rng) -> Schema {
        let mut schema = Schema::default();
        let table_count = rng.range(1, 3);
        for t in 0..table_count {
            let table = draw_table(rng, t, &schema.tables);
            schema.tables.push(table);
        }
        schema.session = draw_session(rng, &schema.tables);
        schema.invariants = draw_invariants(rng, &schema);
        schema
    }

    pub fn session_of(&self, ty: Ty) -> Vec<&SessionVar> {
        self.session.iter().filter(|v| v.ty == ty).collect()
    }

    /// `Table[id]` for a seeded row of table `t`.
    pub fn seeded_ref(&self, rng: &mut Rng, t: usize) -> String {
        let table = &self.tables[t];
        let id = rng.pick_or(&table.ids(), 1);
        format!("{}[{id}]", table.name)
    }

    /// The declarations: site, enum, tables, seeds, session, invariants.
    pub fn write(&self, out: &mut String, site: &str, start: &str) {
        let _ = writeln!(
            out,
            "site {site} {{\n  title \"{site}\"\n  domain other\n  start {start}\n}}\n"
        );
        let _ = writeln!(out, "enum Tone {{ {} }}\n", TONE_VARIANTS.join(", "));
        for table in &self.tables {
            let max = table.max.map(|m| format!(" max {m}")).unwrap_or_default();
            let _ = writeln!(out, "table {}{max} {{", table.name);
            for f in &table.fields {
                let _ = writeln!(out, "  {}: {}", f.name, self.ty_name(f.ty));
            }
            let _ = writeln!(out, "}}\n");
            let _ = writeln!(out, "seed {} [", table.name);
            for row in &table.rows {
                let mut cells = Vec::new();
                if row.explicit_id {
                    cells.push(format!("id: {}", row.id));
                }
                for (f, v) in table.fields.iter().zip(&row.values) {
                    cells.push(format!("{}: {}", f.name, self.lit(v)));
                }
                let _ = writeln!(out, "  {{ {} }},", cells.join(", "));
            }
            let _ = writeln!(out, "]\n");
        }
        if !self.session.is_empty() {
            let _ = writeln!(out, "session {{");
            for v in &self.session {
                let _ = writeln!(
                    out,
                    "  {}: {} = {}",
                    v.name,
                    self.ty_name(v.ty),
                    self.lit(&v.init)
                );
            }
            let _ = writeln!(out, "}}\n");
        }
        for inv in &self.invariants {
            let _ = writeln!(out, "{inv}");
        }
        if !self.invariants.is_empty() {
            out.push('\n');
        }
    }

    pub fn ty_name(&self, ty: Ty) -> String {
        match ty {
            Ty::Text => "Text".into(),
            Ty::Int => "Int".into(),
            Ty::Bool => "Bool".into(),
            Ty::Tone => "Tone".into(),
            Ty::Money => "Money".into(),
            Ty::Row(t) => self.tables[t].name.into(),
            Ty::OptRow(t) => format!("{}?", self.tables[t].name),
        }
    }

    pub fn lit(&self, lit: &Lit) -> String {
        match lit {
            Lit::Text(s) => format!("{s:?}"),
            Lit::Int(n) => n.to_string(),
            Lit::Bool(b) => b.to_string(),
            Lit::Tone(v) => TONE_VARIANTS[*v].into(),
            Lit::Money(cents) => money(*cents),
            Lit::Ref(t, id) => format!("{}[{id}]", self.tables[*t].name),
        }
    }
}

/// `$1.25` for 125 cents (non-negative amounts only).
pub fn money(cents: i64) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}

fn draw_table(rng: &mut Rng, index: usize, earlier: &[Table]) -> Table {
    let mut fields = vec![Field {
        name: "name",
        ty: Ty::Text,
    }];
    let mut extras: Vec<(&'static str, Ty)> = vec![
        ("qty", Ty::Int),
        ("flag", Ty::Bool),
        ("tone", Ty::Tone),
        ("code", Ty::Text),
        ("price", Ty::Money),
    ];
    if !earlier.is_empty() {
        extras.push(("owner", Ty::Row(rng.below(earlier.len()))));
    }
    for (name, ty) in extras {
        if rng.chance(55) {
            fields.push(Field { name, ty });
        }
    }
    let row_count = rng.range(1, 4);
    let mut rows = Vec::new();
    let mut next_id = 1;
    for r in 0..row_count {
        let explicit_id = r == 0 && rng.chance(30);
        if explicit_id {
            next_id = rng.pick_or(&[2, 5, 10], 1);
        }
        let id = next_id;
        next_id += 1;
        let values = fields
            .iter()
            .map(|f| seed_value(rng, f, index, id, earlier))
            .collect();
        rows.push(SeedRow {
            id,
            values,
            explicit_id,
        });
    }
    let max = rng.chance(30).then(|| row_count + rng.below(3));
    Table {
        name: TABLE_NAMES[index],
        fields,
        rows,
        max,
    }
}

fn seed_value(rng: &mut Rng, field: &Field, table: usize, id: i64, earlier: &[Table]) -> Lit {
    match (field.name, field.ty) {
        ("name", _) => Lit::Text(NAMES[rng.below(5)].into()),
        ("code", _) => Lit::Text(format!("K{table}{id}")),
        (_, Ty::Int) => Lit::Int(rng.range(0, 3) as i64),
        (_, Ty::Bool) => Lit::Bool(rng.chance(40)),
        (_, Ty::Tone) => Lit::Tone(rng.below(TONE_VARIANTS.len())),
        (_, Ty::Money) => Lit::Money(rng.range(0, 6) as i64 * 125),
        (_, Ty::Row(t)) => Lit::Ref(t, rng.pick_or(&earlier[t].ids(), 1)),
        _ => Lit::Text(NAMES[0].into()),
    }
}

fn draw_session(rng: &mut Rng, tables: &[Table]) -> Vec<SessionVar> {
    let mut out = Vec::new();
    let flags = rng.range(1, 3);
    for i in 0..flags {
        out.push(SessionVar {
            name: format!("flag{i}"),
            ty: Ty::Bool,
            init: Lit::Bool(false),
        });
    }
    if rng.chance(60) {
        out.push(SessionVar {
            name: "count".into(),
            ty: Ty::Int,
            init: Lit::Int(rng.range(0, 1) as i64),
        });
    }
    if rng.chance(40) {
        out.push(SessionVar {
            name: "note".into(),
            ty: Ty::Text,
            init: Lit::Text(String::new()),
        });
    }
    if rng.chance(40) {
        out.push(SessionVar {
            name: "mood".into(),
            ty: Ty::Tone,
            init: Lit::Tone(0),
        });
    }
    if rng.chance(30) {
        let t = rng.below(tables.len());
        out.push(SessionVar {
            name: "current".into(),
            ty: Ty::Row(t),
            init: Lit::Ref(t, rng.pick_or(&tables[t].ids(), 1)),
        });
    }
    // Written by markers that only navigate, and read by nothing.
    out.push(SessionVar {
        name: "trail".into(),
        ty: Ty::Int,
        init: Lit::Int(0),
    });
    out
}

/// Uniqueness invariants over `table` (`ir::unique` checks a commit that
/// adds rows one added row at a time): on names, which seeds and inserts
/// often share, with another field or alone, written either way round;
/// none when the seed rows already share a key.
fn unique_keys(rng: &mut Rng, table: &Table) -> Vec<String> {
    let t = table.name;
    let mut keys = vec!["name"];
    for extra in ["qty", "tone", "owner", "code", "flag"] {
        if table.field(extra).is_some() && rng.chance(50) {
            keys.push(extra);
        }
    }
    // The seed must satisfy every invariant (C301): no key on two rows.
    let at: Vec<usize> = (keys.iter())
        .filter_map(|k| table.fields.iter().position(|f| f.name == *k))
        .collect();
    let key_of = |row: &SeedRow| {
        at.iter()
            .map(|&i| row.values[i].clone())
            .collect::<Vec<_>>()
    };
    let mut seen = Vec::new();
    for row in &table.rows {
        let key = key_of(row);
        if seen.contains(&key) {
            return Vec::new();
        }
        seen.push(key);
    }
    let filter: Vec<String> = keys
        .iter()
        .map(|k| match rng.chance(50) {
            true => format!("y.{k} == z.{k}"),
            false => format!("z.{k} == y.{k}"),
        })
        .collect();
    let count = format!("count(y in {t} where {})", filter.join(" and "));
    let mut out = vec![format!("all z in {t}: {count} == 1")];
    if rng.chance(30) {
        out.push(format!("all z in {t}: 1 == {count}"));
    }
    out
}

fn draw_invariants(rng: &mut Rng, schema: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    let count = rng.range(0, 2);
    for i in 0..count {
        let t = rng.below(schema.tables.len());
        let table = &schema.tables[t];
        let mut options: Vec<String> = vec![format!(
            "count({}) <= {}",
            table.name,
            table.rows.len() + rng.below(2)
        )];
        if table.field("qty").is_some() {
            options.push(format!("all z in {}: z.qty >= 0", table.name));
            options.push(format!("all z in {}: z.qty <= 4", table.name));
        }
        if table.field("flag").is_some() && table.field("qty").is_some() {
            options.push(format!("all z in {}: not z.flag or z.qty < 5", table.name));
        }
        // Seed names come from the first five; "Zulu" only from renames.
        options.push(format!("all z in {}: z.name != \"Zulu\"", table.name));
        options.extend(unique_keys(rng, table));
        if schema.session_of(Ty::Int).iter().any(|v| v.name == "count") {
            options.push("session.count <= 2".into());
        }
        let body = rng.pick_or(&options, "true".into());
        out.push(format!("invariant rule{i}: {body}"));
    }
    out
}
