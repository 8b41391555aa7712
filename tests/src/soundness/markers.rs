//! Markers for a generated site. Each is drawn with a role that stresses one
//! part of the prover's cone of influence: navigators (a `go`, and writes no
//! goal can see), flag setters that other markers `require`, renamers (row
//! names are what selects and loops show), inserters (rows that loops then
//! show, sometimes followed by `go` to the new row), deleters, updaters, and
//! `go` with computed arguments (`find`, a reference, a new row, a text).

use super::exprs::{Exprs, Perms, Scope};
use super::rng::Rng;
use super::schema::{Ty, NAMES, TONE_VARIANTS};
use super::PageSig;

/// One generated marker.
#[derive(Clone, Debug)]
pub struct Marker {
    pub name: String,
    pub params: Vec<(String, Ty)>,
    pub text: String,
    /// What the generator meant it to exercise (for coverage counts).
    pub features: Vec<&'static str>,
    /// Goal atoms a successful run makes true (`session.flag0`,
    /// `visited Shop`, ...), so tasks can ask for what some marker does.
    pub effects: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Navigate,
    /// Writes what nothing reads and stays on the page: what pruning skips.
    Idle,
    SetFlag,
    Rename,
    Insert,
    Delete,
    Update,
    Mixed,
}

const ROLES: [Role; 9] = [
    Role::Navigate,
    Role::Navigate,
    Role::Idle,
    Role::SetFlag,
    Role::Rename,
    Role::Insert,
    Role::Delete,
    Role::Update,
    Role::Mixed,
];

/// Draws 2–6 markers that may `go` to any of `pages`.
pub fn draw_markers(rng: &mut Rng, ex: &mut Exprs<'_>, pages: &[PageSig]) -> Vec<Marker> {
    let count = rng.range(2, 6);
    let mut markers: Vec<Marker> = Vec::new();
    // Flags set by earlier markers, which later ones may require.
    let mut flags_set: Vec<String> = Vec::new();
    for i in 0..count {
        let role = rng.pick_or(&ROLES, Role::Mixed);
        let m = draw_marker(rng, ex, pages, i, role, &mut flags_set);
        markers.push(m);
    }
    markers
}

/// A marker under construction.
struct Body<'a> {
    scope: Scope,
    perms: Perms,
    lines: Vec<String>,
    features: Vec<&'static str>,
    effects: Vec<String>,
    /// `(variable, table)` of a row inserted by `let`.
    made: Option<(String, usize)>,
    pages: &'a [PageSig],
}

fn draw_marker(
    rng: &mut Rng,
    ex: &mut Exprs<'_>,
    pages: &[PageSig],
    index: usize,
    role: Role,
    flags_set: &mut Vec<String>,
) -> Marker {
    let tables = ex.schema.tables.len();
    let mut params: Vec<(String, Ty)> = Vec::new();
    let row_param = rng.below(tables);
    let wants_row = matches!(role, Role::Rename | Role::Delete | Role::Update) || rng.chance(40);
    if wants_row {
        params.push(("p".into(), Ty::Row(row_param)));
    }
    if role == Role::Rename && rng.chance(50) || rng.chance(15) {
        params.push(("t".into(), Ty::Text));
    }
    if rng.chance(25) {
        params.push(("n".into(), Ty::Int));
    }
    if rng.chance(15) {
        params.push(("b".into(), Ty::Bool));
    }
    let mut body = Body {
        scope: Scope {
            vars: params.clone(),
        },
        perms: Perms::default(),
        lines: Vec::new(),
        features: Vec::new(),
        effects: Vec::new(),
        made: None,
        pages,
    };
    let mut requires = Vec::new();
    if !flags_set.is_empty() && rng.chance(45) {
        let flag = rng.pick_or(flags_set, "flag0".into());
        requires.push(format!(
            "requires session.{flag} else \"Do the first step\""
        ));
        body.features.push("requires-chain");
    }
    if rng.chance(30) {
        let c = ex.cond(rng, &body.scope, &mut body.perms, 1);
        requires.push(format!("requires {c} else \"Not now\""));
        body.features.push("requires");
    }
    match role {
        Role::Navigate => body.features.push("navigate-only"),
        Role::Idle => body.features.push("idle-marker"),
        Role::SetFlag => {
            let flag = pick_flag(rng, ex);
            body.set_session(&flag, "true");
            body.effects.push(format!("session.{flag}"));
            flags_set.push(flag);
        }
        Role::Rename => rename(rng, ex, &mut body, row_param),
        Role::Insert => insert(rng, ex, &mut body),
        Role::Delete => delete(rng, ex, &mut body, row_param),
        Role::Update => update(rng, ex, &mut body, row_param),
        Role::Mixed => {
            for _ in 0..rng.range(1, 3) {
                mixed_stmt(rng, ex, &mut body, 1);
            }
        }
    }
    if body.lines.is_empty() || rng.chance(15) {
        body.set_session("trail", "session.trail + 1");
    }
    let go_chance = match role {
        Role::Navigate => 100,
        Role::Idle => 0,
        _ => 55,
    };
    if rng.chance(go_chance) {
        go(rng, ex, &mut body);
    }
    let name = format!("m{index}");
    let clauses = body.perms.clauses(ex.schema);
    let extern_marker = rng.chance(8);
    let sig: Vec<String> = params
        .iter()
        .map(|(n, t)| format!("{n}: {}", ex.schema.ty_name(*t)))
        .collect();
    let mut text = format!(
        "{}marker {name}({}){clauses}",
        if extern_marker { "extern " } else { "" },
        sig.join(", ")
    );
    for r in &requires {
        text.push_str(&format!("\n  {r}"));
    }
    text.push_str(if extern_marker {
        "\ndefault {\n"
    } else {
        "\n{\n"
    });
    for l in &body.lines {
        text.push_str(&format!("  {l}\n"));
    }
    text.push_str("}\n");
    if extern_marker {
        body.features.push("extern");
    }
    Marker {
        name,
        params,
        text,
        features: body.features,
        effects: body.effects,
    }
}

impl Body<'_> {
    fn set_session(&mut self, var: &str, value: &str) {
        self.lines.push(format!("set session.{var} = {value}"));
        self.perms.session_writes.insert(var.into());
    }
}

/// A Bool session variable to set (`flag0` when the site has none, which
/// the schema always declares).
fn pick_flag(rng: &mut Rng, ex: &Exprs<'_>) -> String {
    let flags: Vec<String> = ex
        .schema
        .session_of(Ty::Bool)
        .iter()
        .map(|v| v.name.clone())
        .collect();
    rng.pick_or(&flags, "flag0".into())
}

fn rename(rng: &mut Rng, ex: &mut Exprs<'_>, body: &mut Body<'_>, t: usize) {
    let value = match body.scope.of(Ty::Text).first() {
        Some(v) if rng.chance(60) => v.clone(),
        _ => format!("{:?}", rng.pick_or(&NAMES[3..], "Zulu")),
    };
    let has_p = body
        .scope
        .vars
        .iter()
        .any(|(n, ty)| n == "p" && *ty == Ty::Row(t));
    let row = if has_p && rng.chance(75) {
        "p".to_string()
    } else {
        ex.schema.seeded_ref(rng, t)
    };
    body.lines.push(format!("set {row}.name = {value}"));
    if value.starts_with('"') {
        let table = ex.schema.tables[t].name;
        body.effects
            .push(format!("(exists e in {table}: e.name == {value})"));
    }
    if rng.chance(30) {
        body.perms.table_writes.insert(t);
    } else {
        body.perms.field_writes.insert((t, "name"));
    }
    body.features.push("rename");
}

fn insert(rng: &mut Rng, ex: &mut Exprs<'_>, body: &mut Body<'_>) {
    let t = rng.below(ex.schema.tables.len());
    let table = &ex.schema.tables[t];
    let mut cells = Vec::new();
    for f in table.fields.clone() {
        let v = match (f.name, f.ty) {
            ("name", _) if rng.chance(60) => format!("{:?}", rng.pick_or(&NAMES, "Zulu")),
            ("code", _) => format!("\"N{t}\""),
            (_, ty) => ex.value(rng, &body.scope, &mut body.perms, ty),
        };
        cells.push(format!("{}: {v}", f.name));
    }
    let table_name = ex.schema.tables[t].name;
    if body.made.is_none() && rng.chance(50) {
        body.lines.push(format!(
            "let made = insert {table_name} {{ {} }}",
            cells.join(", ")
        ));
        body.made = Some(("made".into(), t));
    } else {
        body.lines
            .push(format!("insert {table_name} {{ {} }}", cells.join(", ")));
    }
    body.perms.table_writes.insert(t);
    body.effects.push(format!(
        "count({table_name}) == {}",
        ex.schema.tables[t].rows.len() + 1
    ));
    if let Some(name) = cells.first().and_then(|c| c.strip_prefix("name: ")) {
        if name.starts_with('"') {
            body.effects
                .push(format!("(exists e in {table_name}: e.name == {name})"));
        }
    }
    body.features.push("insert");
}

fn delete(rng: &mut Rng, ex: &mut Exprs<'_>, body: &mut Body<'_>, t: usize) {
    if rng.chance(65) {
        body.lines.push("delete p".into());
        let table = &ex.schema.tables[t];
        body.effects
            .push(format!("count({}) == {}", table.name, table.rows.len() - 1));
    } else {
        let z = ex.binder();
        let test = ex.field_test(rng, &mut body.perms, &z, t);
        body.lines.push(format!(
            "delete all {z} in {} where {test}",
            ex.schema.tables[t].name
        ));
    }
    body.perms.table_writes.insert(t);
    body.features.push("delete");
}

fn update(rng: &mut Rng, ex: &mut Exprs<'_>, body: &mut Body<'_>, t: usize) {
    let fields: Vec<(&'static str, Ty)> = ex.schema.tables[t]
        .fields
        .iter()
        .filter(|f| f.name != "name")
        .map(|f| (f.name, f.ty))
        .collect();
    let Some(&(field, ty)) = rng.pick(&fields) else {
        rename(rng, ex, body, t);
        return;
    };
    let value = match ty {
        Ty::Int if rng.chance(50) => {
            body.perms.reads.insert((t, "qty"));
            format!("p.{field} + {}", rng.range(1, 2))
        }
        Ty::Bool if rng.chance(40) => "true".into(),
        Ty::Tone => rng.pick_or(&TONE_VARIANTS, "green").into(),
        Ty::Money if rng.chance(60) => {
            body.perms.reads.insert((t, "price"));
            format!("p.{field} + $1.25")
        }
        _ => ex.value(rng, &body.scope, &mut body.perms, ty),
    };
    body.lines.push(format!("set p.{field} = {value}"));
    if ty == Ty::Tone || value == "true" {
        let table = ex.schema.tables[t].name;
        let test = if ty == Ty::Tone {
            format!("e.{field} == {value}")
        } else {
            format!("e.{field}")
        };
        body.effects.push(format!("(exists e in {table}: {test})"));
    }
    body.perms.field_writes.insert((t, field));
    body.features.push("update");
}

/// One statement of any kind (for markers without a single role).
fn mixed_stmt(rng: &mut Rng, ex: &mut Exprs<'_>, body: &mut Body<'_>, depth: u32) {
    match rng.below(7) {
        0 => {
            let vars: Vec<(String, Ty)> = ex
                .schema
                .session
                .iter()
                .map(|v| (v.name.clone(), v.ty))
                .collect();
            let (var, ty) = rng.pick_or(&vars, ("trail".into(), Ty::Int));
            let value = ex.value(rng, &body.scope, &mut body.perms, ty);
            body.set_session(&var, &value);
        }
        1 => {
            let t = rng.below(ex.schema.tables.len());
            let row = ex.row(rng, &body.scope, t);
            let fields: Vec<(&'static str, Ty)> = ex.schema.tables[t]
                .fields
                .iter()
                .map(|f| (f.name, f.ty))
                .collect();
            let (field, ty) = rng.pick_or(&fields, ("name", Ty::Text));
            let value = ex.value(rng, &body.scope, &mut body.perms, ty);
            body.lines.push(format!("set {row}.{field} = {value}"));
            body.perms.field_writes.insert((t, field));
            if field == "name" {
                body.features.push("rename");
            }
        }
        2 if depth > 0 => {
            let c = ex.cond(rng, &body.scope, &mut body.perms, 1);
            if rng.chance(40) {
                body.lines.push(format!("if {c} {{ reject \"Refused\" }}"));
                body.features.push("reject");
            } else {
                let (before, made) = (body.lines.len(), body.made.clone());
                mixed_stmt(rng, ex, body, depth - 1);
                // A row made inside the branch is out of scope after it.
                body.made = made;
                let inner: Vec<String> = body.lines.drain(before..).collect();
                body.lines.push(format!("if {c} {{ {} }}", inner.join(" ")));
            }
        }
        3 => {
            let t = rng.below(ex.schema.tables.len());
            if ex.schema.tables[t].field("qty").is_some() {
                let z = ex.binder();
                let test = ex.field_test(rng, &mut body.perms, &z, t);
                body.lines.push(format!(
                    "for {z} in {} where {test} {{ set {z}.qty = {z}.qty + 1 }}",
                    ex.schema.tables[t].name
                ));
                body.perms.field_writes.insert((t, "qty"));
                body.features.push("for-stmt");
            } else {
                insert(rng, ex, body);
            }
        }
        4 if body.made.is_none() => insert(rng, ex, body),
        5 => match body.scope.of(Ty::Row(0)).first() {
            Some(_) => delete(rng, ex, body, 0),
            None => rename(rng, ex, body, 0),
        },
        _ => {
            let flag = pick_flag(rng, ex);
            let value = if rng.chance(75) { "true" } else { "false" };
            body.set_session(&flag, value);
        }
    }
}

/// Appends `go Page(args)`, the argument computed in one of several ways.
fn go(rng: &mut Rng, ex: &mut Exprs<'_>, body: &mut Body<'_>) {
    // After `let made = insert T`, often open a page that shows that row.
    if let Some((var, t)) = body.made.clone() {
        let takes_row: Vec<&PageSig> = body
            .pages
            .iter()
            .filter(|p| matches!(p.param, Some((_, Ty::Row(u) | Ty::OptRow(u))) if u == t))
            .collect();
        if let Some(page) = rng.pick(&takes_row) {
            if rng.chance(70) {
                body.lines.push(format!("go {}({var})", page.name));
                body.features.push("go-new-row");
                return;
            }
        }
    }
    let Some(page) = rng.pick(body.pages).cloned() else {
        return;
    };
    let Some((_, ty)) = page.param else {
        body.lines.push(format!("go {}", page.name));
        body.effects.push(format!("visited {}", page.name));
        body.effects.push(format!("page is {}", page.name));
        body.features.push("go");
        return;
    };
    match ty {
        Ty::Row(t) | Ty::OptRow(t) => {
            let made = body.made.clone().filter(|(_, u)| *u == t);
            let optional = matches!(ty, Ty::OptRow(_));
            let way = rng.below(4);
            if let (Some((var, _)), true) = (made, way == 0) {
                body.lines.push(format!("go {}({var})", page.name));
                body.features.push("go-new-row");
            } else if optional && way <= 2 {
                // A `T?` parameter takes `find` (no narrowing is needed).
                let z = ex.binder();
                let test = ex.field_test(rng, &mut body.perms, &z, t);
                let table = ex.schema.tables[t].name;
                body.lines.push(format!(
                    "go {}(find {z} in {table} where {test})",
                    page.name
                ));
                body.features.push("go-find");
            } else {
                let row = ex.row(rng, &body.scope, t);
                body.lines.push(format!("go {}({row})", page.name));
                if row.ends_with(']') {
                    body.effects.push(format!("visited {}({row})", page.name));
                }
                body.features.push("go-computed");
            }
        }
        ty => {
            let v = ex.value(rng, &body.scope, &mut body.perms, ty);
            body.lines.push(format!("go {}({v})", page.name));
            body.features.push("go-computed");
        }
    }
}
