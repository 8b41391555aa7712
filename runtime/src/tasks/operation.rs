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
    if !effect.typed.iter().all(|t| quotable(t)) {
        return None;
    }
    let steps: Vec<String> = effect
        .clicks
        .iter()
        .map(|c| describe_click(program, initial, &effect.world, c))
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

/// `add to cart Petzl Actik Core (qty 2)`: the marker's name in words and its
/// arguments as a page would show them.
fn describe_click(
    program: &ir::Program,
    initial: &World,
    after: &World,
    click: &super::explore::Click,
) -> Option<String> {
    let marker = program.markers.get(click.marker as usize)?;
    let mut things = Vec::new();
    let mut details = Vec::new();
    for (p, v) in marker.params.iter().zip(&click.args) {
        let db = match v {
            Value::Row(id) if row_exists(initial, &p.ty, *id) => &initial.db,
            _ => &after.db,
        };
        let shown = render(program, db, v, &p.ty);
        // A row without a name renders as `#3`, which tells a person nothing.
        if shown.is_empty() || shown.starts_with('#') || !quotable(&shown) {
            continue;
        }
        match p.ty {
            Ty::Row(_) => things.push(shown),
            _ => details.push(format!("{} {shown}", humanize(&p.name))),
        }
    }
    let mut s = humanize(&marker.name);
    if !things.is_empty() {
        s.push_str(&format!(" for {}", things.join(" and ")));
    }
    if !details.is_empty() {
        s.push_str(&format!(" ({})", details.join(", ")));
    }
    Some(s)
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
                conjuncts.push(format!("not (exists x in {}: x.id == {})", def.name, row.id));
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
    vec![format!("(exists x in {}: {})", def.name, fields.join(" and "))]
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
