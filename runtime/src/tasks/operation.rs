//! Operation tasks from marker effects (§2.3, §2.4): the net change from the
//! initial world to a world the exploration reached by committed marker
//! clicks, stated as a database predicate that change makes true — an
//! inserted row as `exists x in T: x.f == v and …` over its fields, an
//! updated field as `T[id].f == v`, a deleted row as
//! `not (exists x in T: x.id == id)`, a session variable as
//! `session.v == v`. A reference to a row inserted by the same change is
//! left out of the predicate: its id depends on the order an agent does
//! things in. One click makes an operation task; several, in order, a
//! workflow whose goal is the conjunction of their effects.

use super::explore::{Effect, Exploration};
use super::phrasing::{humanize, Family, Slots};
use super::retrieval::{label_field, strip};
use super::source::{literal, quotable, Check};
use super::Candidate;
use crate::interp::exec::World;
use crate::interp::render::render;
use crate::ir::{self, Ty, Value};

/// The candidates of every effect the exploration reached, in its order.
pub(super) fn candidates(program: &ir::Program, explored: &Exploration) -> Vec<Candidate> {
    explored
        .effects
        .iter()
        .filter_map(|e| candidate(program, &explored.initial, e))
        .collect()
}

fn candidate(program: &ir::Program, initial: &World, effect: &Effect) -> Option<Candidate> {
    let (conjuncts, rows) = goal_of(program, initial, &effect.world);
    if conjuncts.is_empty() || effect.clicks.is_empty() {
        return None;
    }
    if !effect.typed.iter().all(|t| quotable(t)) || !names_every_row(program, initial, effect) {
        return None;
    }
    let steps: Vec<String> = effect
        .clicks
        .iter()
        .map(|c| describe_click(program, initial, &effect.world, c, &effect.typed))
        .collect::<Option<_>>()?;
    let family = if effect.clicks.len() > 1 {
        Family::Workflow
    } else {
        Family::Operation
    };
    Some(Candidate {
        family,
        slots: Slots {
            steps,
            typed: effect.typed.clone(),
            ..Slots::default()
        },
        check: Check::Goal(conjuncts.join("\n       and ")),
        values: effect.typed.clone(),
        data: rows,
        depth: effect.steps,
        workflow: effect.clicks.len() as u32,
        expected: Vec::new(),
    })
}

/// Whether every seeded row the goal depends on — rows it updates or
/// deletes, rows its inserted rows refer to — is one the instruction names
/// (a clicked marker's argument) or the visitor's own (a session value):
/// otherwise the instruction would not say which row (a recipient chosen in
/// a select, say) and the task could not be done from its words.
fn names_every_row(program: &ir::Program, initial: &World, effect: &Effect) -> bool {
    let named = |t: usize, id: i64| {
        let row = Value::Row(id);
        own_row(program, initial, &Ty::Row(t as ir::TableId), &row)
            || effect.clicks.iter().any(|c| {
                let params = program.markers.get(c.marker as usize).map(|m| &m.params);
                params.into_iter().flatten().zip(&c.args).any(|(p, v)| {
                    *v == row && matches!(strip(&p.ty), Ty::Row(pt) if *pt as usize == t)
                })
            })
    };
    for (t, def) in program.tables.iter().enumerate() {
        let (Some(old), Some(new)) = (
            initial.db.table(t as ir::TableId),
            effect.world.db.table(t as ir::TableId),
        ) else {
            continue;
        };
        for row in new.rows() {
            let prev = old.row(row.id);
            if prev.is_some_and(|p| p != row) && !named(t, row.id) {
                return false;
            }
            if prev.is_some() {
                continue;
            }
            for (f, v) in def.fields.iter().zip(&row.values) {
                if let (Ty::Row(rt), Value::Row(id)) = (strip(&f.ty), v) {
                    let seeded = initial.db.row(*rt, *id).is_some();
                    if seeded && !named(*rt as usize, *id) {
                        return false;
                    }
                }
            }
        }
        if old
            .rows()
            .iter()
            .any(|r| new.row(r.id).is_none() && !named(t, r.id))
        {
            return false;
        }
    }
    true
}

/// `add to cart for "Petzl Actik Core" (qty 2)`: the marker's name in words
/// and its arguments as a person would name them — a row by its name (or,
/// without one, its table and label field: `post "Trail report"`), other
/// values by parameter. The visitor's own row (a session variable's value)
/// and texts the instruction already asks to type are left out. `None`
/// when a row cannot be named: the instruction would not say which.
fn describe_click(
    program: &ir::Program,
    initial: &World,
    after: &World,
    click: &super::explore::Click,
    typed: &[String],
) -> Option<String> {
    let marker = program.markers.get(click.marker as usize)?;
    let mut things = Vec::new();
    let mut details = Vec::new();
    for (p, v) in marker.params.iter().zip(&click.args) {
        if own_row(program, initial, &p.ty, v) {
            continue;
        }
        let world = match v {
            Value::Row(id) if row_exists(initial, &p.ty, *id) => initial,
            _ => after,
        };
        if let (Value::Row(id), Ty::Row(t)) = (v, strip(&p.ty)) {
            things.push(name_row(program, world, *t, *id)?);
            continue;
        }
        let shown = render(program, &world.db, v, &p.ty);
        if shown.is_empty() || !quotable(&shown) || typed.contains(&shown) {
            continue;
        }
        details.push(format!("{} {shown}", humanize(&p.name)));
    }
    let mut s = humanize(&marker.name);
    // `report post "…"`, not `report post for post "…"`.
    let (direct, others): (Vec<_>, Vec<_>) = things
        .into_iter()
        .partition(|(table, _)| table.as_ref().is_some_and(|t| s.ends_with(t.as_str())));
    let direct: Vec<String> = direct.into_iter().map(|(_, label)| label).collect();
    let others: Vec<String> = others
        .into_iter()
        .map(|(table, label)| match table {
            Some(t) => format!("{t} {label}"),
            None => label,
        })
        .collect();
    if !direct.is_empty() {
        s.push_str(&format!(" {}", direct.join(" and ")));
    }
    if !others.is_empty() {
        s.push_str(&format!(" for {}", others.join(" and ")));
    }
    if !details.is_empty() {
        s.push_str(&format!(" ({})", details.join(", ")));
    }
    Some(s)
}

/// A row's label in quotes, with its table in words when the label is not
/// a `name` (`post`, `"Trail report"`).
fn name_row(
    program: &ir::Program,
    world: &World,
    table: ir::TableId,
    id: i64,
) -> Option<(Option<String>, String)> {
    let def = program.tables.get(table as usize)?;
    let row = world.db.row(table, id)?;
    let at = label_field(def)?;
    let Value::Text(label) = row.values.get(at)? else {
        return None;
    };
    if !quotable(label) {
        return None;
    }
    let named = def.fields.get(at).is_some_and(|f| f.name == "name");
    Some((
        (!named).then(|| humanize(&def.name)),
        format!("\"{label}\""),
    ))
}

/// Whether `v` is the visitor's own row: the value of a session variable
/// of the same table.
fn own_row(program: &ir::Program, initial: &World, ty: &Ty, v: &Value) -> bool {
    let Ty::Row(t) = strip(ty) else {
        return false;
    };
    program
        .session
        .iter()
        .zip(&initial.session)
        .any(|(d, s)| s == v && matches!(strip(&d.ty), Ty::Row(st) if st == t))
}

fn row_exists(world: &World, ty: &Ty, id: i64) -> bool {
    match ty {
        Ty::Row(t) => world.db.row(*t, id).is_some(),
        Ty::Optional(inner) => row_exists(world, inner, id),
        _ => false,
    }
}

/// The conjuncts that state the change from `before` to `after`, and how
/// many rows and session variables it touches (the task's data complexity).
pub(crate) fn goal_of(program: &ir::Program, before: &World, after: &World) -> (Vec<String>, u32) {
    let mut conjuncts = Vec::new();
    let mut touched = 0;
    for (t, def) in program.tables.iter().enumerate() {
        let (Some(old), Some(new)) = (
            before.db.table(t as ir::TableId),
            after.db.table(t as ir::TableId),
        ) else {
            continue;
        };
        for row in new.rows() {
            let found = match old.row(row.id) {
                None => inserted(program, before, def, row),
                Some(prev) => updated(program, before, def, prev, row),
            };
            touched += u32::from(!found.is_empty());
            conjuncts.extend(found);
        }
        for row in old.rows() {
            if new.row(row.id).is_none() {
                conjuncts.push(format!(
                    "not (exists x in {}: x.id == {})",
                    def.name, row.id
                ));
                touched += 1;
            }
        }
    }
    for (s, def) in program.session.iter().enumerate() {
        let (old, new) = (before.session.get(s), after.session.get(s));
        if old == new {
            continue;
        }
        if let Some(lit) = new.and_then(|v| stable_literal(program, before, &def.ty, v)) {
            conjuncts.push(format!("session.{} == {lit}", def.name));
            touched += 1;
        }
    }
    (conjuncts, touched)
}

/// `exists x in T: x.f == v and …` over the fields of an inserted row.
fn inserted(
    program: &ir::Program,
    before: &World,
    def: &ir::TableDef,
    row: &ir::RowData,
) -> Vec<String> {
    let fields: Vec<String> = def
        .fields
        .iter()
        .zip(&row.values)
        .filter(|(_, v)| **v != Value::None)
        .filter_map(|(f, v)| {
            let lit = stable_literal(program, before, &f.ty, v)?;
            Some(format!("x.{} == {lit}", f.name))
        })
        .collect();
    if fields.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "(exists x in {}: {})",
        def.name,
        fields.join(" and ")
    )]
}

/// `T[id].f == v` for each field that changed.
fn updated(
    program: &ir::Program,
    before: &World,
    def: &ir::TableDef,
    prev: &ir::RowData,
    row: &ir::RowData,
) -> Vec<String> {
    def.fields
        .iter()
        .zip(prev.values.iter().zip(&row.values))
        .filter(|(_, (a, b))| a != b)
        .filter_map(|(f, (_, v))| {
            let lit = stable_literal(program, before, &f.ty, v)?;
            Some(format!("{}[{}].{} == {lit}", def.name, row.id, f.name))
        })
        .collect()
}

/// A value's literal, unless it refers to a row the initial world lacks.
fn stable_literal(program: &ir::Program, before: &World, ty: &Ty, v: &Value) -> Option<String> {
    if let Value::Row(id) = v {
        if !row_exists(before, ty, *id) {
            return None;
        }
    }
    literal(program, ty, v)
}
