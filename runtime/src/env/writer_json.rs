//! Values and proposals in the state-writer protocol's JSON (INTERFACES.md,
//! "Extern markers at run time").
//!
//! This module owns the two directions of that protocol: the request line
//! ([`WriteRequest::to_json`]), with run-time `Value`s as JSON (money
//! `"$12.50"`, dates `"2026-03-03"`, times `"17:30"`, references as row ids,
//! enums by variant name, `none` as `null`), and a writer's answer line read
//! back into a typed [`Proposal`] ([`parse_answer`]). Reading is strict
//! about shape and value: a value of the wrong JSON kind, an impossible date or
//! time, an unknown table, field or session variable is a [`ProposalError`], so
//! nothing half-typed ever reaches the gate. What the gate itself judges
//! (permissions, `none` in a required field, dangling references, capacities,
//! invariants) is left to the gate, so the same rule gives the same alert for
//! compiled bodies and proposals alike.

use super::writer::{Proposal, ProposalError, WriteRequest, WriterError};
use crate::interp::gate::{ProposedDelta, Violation};
use crate::interp::state::idx;
use crate::ir::{self, Permission, Ty, Value};
use crate::value::{Date, LiteralError, Money, Time};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

// ---- values to JSON ----------------------------------------------------------------

/// `value`, of type `ty`, in the protocol's JSON form. An enum index outside
/// its enum (never produced by the runtime) is written as its number.
pub fn value_to_json(program: &ir::Program, ty: &Ty, value: &Value) -> Json {
    match value {
        Value::None => Json::Null,
        Value::Int(n) => Json::from(*n),
        Value::Money(cents) => Json::from(Money(*cents).to_string()),
        Value::Bool(b) => Json::Bool(*b),
        Value::Text(t) => Json::from(t.as_ref()),
        Value::Date(d) => Json::from(d.to_string()),
        Value::Time(t) => Json::from(t.to_string()),
        Value::Enum(i) => match variant_name(program, ty, *i) {
            Some(name) => Json::from(name),
            None => Json::from(*i),
        },
        Value::Row(id) => Json::from(*id),
    }
}

fn variant_name<'p>(program: &'p ir::Program, ty: &Ty, i: u32) -> Option<&'p str> {
    match ty {
        Ty::Enum(e) => program
            .enums
            .get(idx(*e))?
            .variants
            .get(idx(i))
            .map(String::as_str),
        Ty::Optional(inner) => variant_name(program, inner, i),
        _ => None,
    }
}

// ---- the request line --------------------------------------------------------------

impl WriteRequest<'_> {
    /// Reads a writer's answer line in the protocol's JSON (see
    /// [`parse_answer`]).
    pub fn parse_answer(&self, line: &str) -> Result<Proposal, WriterError> {
        parse_answer(self.program, line)
    }

    /// The request line of the protocol:
    /// `{"marker", "args", "writes", "reads": {"Table": [rows], "session": {…}}}`.
    ///
    /// `reads` holds every row of each table a `reads` or `writes` permission
    /// names, with `id` and the fields those permissions cover, and every
    /// session variable: reading session variables needs no permission
    /// (§2.3), so a marker may read them all.
    pub fn to_json(&self) -> Json {
        let program = self.program;
        let mut args = Map::new();
        for (p, v) in self.def.params.iter().zip(self.args) {
            args.insert(p.name.clone(), value_to_json(program, &p.ty, v));
        }
        let mut reads = Map::new();
        for (t, fields) in self.readable_fields() {
            let Some(def) = program.tables.get(idx(t)) else {
                continue;
            };
            let rows = self.world.db.table(t).map_or(&[][..], |s| s.rows());
            let rows: Vec<Json> = rows
                .iter()
                .map(|row| {
                    let mut o = Map::new();
                    o.insert("id".into(), Json::from(row.id));
                    for &f in &fields {
                        if let Some(field) = def.fields.get(idx(f)) {
                            let v = row.values.get(idx(f)).unwrap_or(&Value::None);
                            o.insert(field.name.clone(), value_to_json(program, &field.ty, v));
                        }
                    }
                    Json::Object(o)
                })
                .collect();
            reads.insert(def.name.clone(), Json::Array(rows));
        }
        let mut session = Map::new();
        for (def, v) in program.session.iter().zip(&self.world.session) {
            session.insert(def.name.clone(), value_to_json(program, &def.ty, v));
        }
        reads.insert("session".into(), Json::Object(session));
        json!({
            "marker": self.def.name,
            "args": args,
            "writes": self.writes(),
            "reads": reads,
        })
    }

    /// Per table a `reads` or `writes` permission names, the fields they
    /// cover, in table and field order.
    fn readable_fields(&self) -> BTreeMap<ir::TableId, Vec<ir::FieldId>> {
        let mut out: BTreeMap<ir::TableId, Vec<ir::FieldId>> = BTreeMap::new();
        for p in self.def.reads.iter().chain(&self.def.writes) {
            match *p {
                Permission::Table(t) => {
                    let n = self
                        .program
                        .tables
                        .get(idx(t))
                        .map_or(0, |d| d.fields.len());
                    let all = (0..n).filter_map(|f| ir::FieldId::try_from(f).ok());
                    out.entry(t).or_default().extend(all);
                }
                Permission::Field(t, f) => out.entry(t).or_default().push(f),
                Permission::Session(_) => {}
            }
        }
        for fields in out.values_mut() {
            fields.sort_unstable();
            fields.dedup();
        }
        out
    }
}

// ---- JSON to values ----------------------------------------------------------------

/// Reads `json` as a value of type `ty` stored at `place` (for messages).
/// `null` is `none` whatever the type: whether `none` may be stored there is
/// the gate's question, answered with the gate's wording.
pub fn value_from_json(
    program: &ir::Program,
    ty: &Ty,
    json: &Json,
    place: &str,
) -> Result<Value, ProposalError> {
    if json.is_null() {
        return Ok(Value::None);
    }
    let bad = |why: String| ProposalError::BadValue {
        place: place.to_string(),
        why,
    };
    let wrong = || {
        bad(format!(
            "expected {}, found {}",
            expected(program, ty),
            kind(json)
        ))
    };
    // Not `null`: an optional type's value is read as its inner type's.
    let inner = match ty {
        Ty::Optional(inner) => inner.as_ref(),
        ty => ty,
    };
    match inner {
        // `T??` is no type the checker produces.
        Ty::Optional(_) => Err(wrong()),
        Ty::Int => json.as_i64().map(Value::Int).ok_or_else(wrong),
        Ty::Bool => json.as_bool().map(Value::Bool).ok_or_else(wrong),
        Ty::Text => json
            .as_str()
            .map(|s| Value::Text(s.into()))
            .ok_or_else(wrong),
        Ty::Money => {
            let s = json.as_str().ok_or_else(wrong)?;
            parse_money(s)
                .map(Value::Money)
                .ok_or_else(|| bad(format!("{json} is not an amount of money like \"$12.50\"")))
        }
        Ty::Date => {
            let s = json.as_str().ok_or_else(wrong)?;
            Date::parse_body(s)
                .map(Value::Date)
                .map_err(|e| bad(literal_why(json, "a date like \"2026-03-03\"", e)))
        }
        Ty::Time => {
            let s = json.as_str().ok_or_else(wrong)?;
            Time::parse_body(s)
                .map(Value::Time)
                .map_err(|e| bad(literal_why(json, "a time like \"17:30\"", e)))
        }
        Ty::Enum(e) => {
            let s = json.as_str().ok_or_else(wrong)?;
            let def = program.enums.get(idx(*e)).ok_or_else(wrong)?;
            let at = def.variants.iter().position(|v| v == s).ok_or_else(|| {
                bad(format!(
                    "{json} is not a variant of `{}` ({})",
                    def.name,
                    def.variants.join(", ")
                ))
            })?;
            u32::try_from(at).map(Value::Enum).map_err(|_| wrong())
        }
        // Whether the row exists is the gate's check (a dangling reference).
        Ty::Row(_) => json.as_i64().map(Value::Row).ok_or_else(wrong),
    }
}

/// `"$12.50"`, `"$1,299.00"` (as pages show money), `"-$3.00"`; the `$` is
/// required so that a number written as a string is not read as money by
/// accident.
fn parse_money(s: &str) -> Option<i64> {
    let (negative, rest) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let body = rest.strip_prefix('$')?;
    // Commas only as thousands separators before the decimal point.
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    let groups: Vec<&str> = whole.split(',').collect();
    let grouped_ok = groups.len() == 1
        || groups
            .iter()
            .enumerate()
            .all(|(i, g)| (i == 0 && (1..=3).contains(&g.len())) || (i > 0 && g.len() == 3));
    if !grouped_ok || body.contains('_') {
        return None;
    }
    let plain = if body.contains('.') {
        format!("{}.{frac}", groups.concat())
    } else {
        groups.concat()
    };
    let Money(cents) = Money::parse_body(&plain).ok()?;
    if negative {
        cents.checked_neg()
    } else {
        Some(cents)
    }
}

/// A date's or time's refusal in the protocol's terms: the literal errors
/// speak of the language's `@` literals, which the protocol does not use.
fn literal_why(json: &Json, form: &str, e: LiteralError) -> String {
    match e {
        LiteralError::ImpossibleDate(why) => why.replacen("`@", "`", 1),
        LiteralError::Malformed(_) => format!("{json} is not {form}"),
    }
}

/// What a type's JSON looks like, for messages.
fn expected(program: &ir::Program, ty: &Ty) -> String {
    match ty {
        Ty::Int => "an integer".into(),
        Ty::Money => "money as a string like \"$12.50\"".into(),
        Ty::Bool => "true or false".into(),
        Ty::Text => "a string".into(),
        Ty::Date => "a date as a string like \"2026-03-03\"".into(),
        Ty::Time => "a time as a string like \"17:30\"".into(),
        Ty::Enum(e) => program.enums.get(idx(*e)).map_or_else(
            || "a variant name".into(),
            |d| format!("a variant of `{}` as a string", d.name),
        ),
        Ty::Row(t) => program.tables.get(idx(*t)).map_or_else(
            || "a row id".into(),
            |d| format!("the id of a `{}` row", d.name),
        ),
        Ty::Optional(inner) => format!("{} or null", expected(program, inner)),
    }
}

/// A JSON value's kind, shown after "found".
fn kind(json: &Json) -> String {
    match json {
        Json::Null => "null".into(),
        Json::Bool(b) => b.to_string(),
        Json::Number(n) => format!("the number {n}"),
        Json::String(s) => format!("the string {}", Json::from(s.as_str())),
        Json::Array(_) => "an array".into(),
        Json::Object(_) => "an object".into(),
    }
}

// ---- answers -----------------------------------------------------------------------

/// Longest stretch of a bad answer quoted back in a failure.
const QUOTE: usize = 80;

/// Reads a writer's answer line: `{"default": true}` or `{"delta": {...}}`.
///
/// A line that is not JSON, or JSON that is neither answer, means the writer
/// itself is broken ([`WriterError::Failed`]: it gets restarted); a `delta`
/// that does not read is a proposal refused ([`WriterError::Malformed`]).
pub fn parse_answer(program: &ir::Program, line: &str) -> Result<Proposal, WriterError> {
    let json: Json = serde_json::from_str(line.trim()).map_err(|_| {
        WriterError::Failed(format!("answered `{}`, which is not JSON", quote(line)))
    })?;
    let not_an_answer = || {
        WriterError::Failed(format!(
            "answered `{}`, which is neither {{\"delta\": …}} nor {{\"default\": true}}",
            quote(line)
        ))
    };
    let object = json.as_object().ok_or_else(not_an_answer)?;
    if let Some(delta) = object.get("delta") {
        return parse_delta(program, delta)
            .map(Proposal::Delta)
            .map_err(WriterError::Malformed);
    }
    match object.get("default") {
        Some(Json::Bool(true)) => Ok(Proposal::Default),
        _ => Err(not_an_answer()),
    }
}

/// The first `QUOTE` characters of `line`, on one line.
fn quote(line: &str) -> String {
    let line = line.trim();
    let mut out: String = line.chars().take(QUOTE).collect();
    if line.chars().nth(QUOTE).is_some() {
        out.push('…');
    }
    out.replace(['\n', '\r'], " ")
}

/// The parts of a delta, each optional: `set`, `insert`, `delete`, `session`.
pub fn parse_delta(program: &ir::Program, delta: &Json) -> Result<ProposedDelta, ProposalError> {
    let parts = object(delta, "delta", "an object")?;
    if let Some(other) = parts
        .keys()
        .find(|k| !["set", "insert", "delete", "session"].contains(&k.as_str()))
    {
        return Err(shape(
            &format!("delta.{other}"),
            "absent: a delta has only set, insert, delete and session",
        ));
    }
    let mut out = ProposedDelta::default();
    for (i, item) in array(parts.get("set"), "delta.set")?.iter().enumerate() {
        out.sets
            .push(parse_set(program, item, &format!("delta.set[{i}]"))?);
    }
    for (i, item) in array(parts.get("insert"), "delta.insert")?
        .iter()
        .enumerate()
    {
        out.inserts
            .push(parse_insert(program, item, &format!("delta.insert[{i}]"))?);
    }
    for (i, item) in array(parts.get("delete"), "delta.delete")?
        .iter()
        .enumerate()
    {
        out.deletes
            .push(parse_delete(program, item, &format!("delta.delete[{i}]"))?);
    }
    if let Some(session) = parts.get("session") {
        let vars = object(session, "delta.session", "an object of session variables")?;
        for (name, value) in vars {
            let def = program
                .session
                .iter()
                .find(|s| &s.name == name)
                .ok_or_else(|| {
                    ProposalError::Unknown(Violation::UnknownSession { name: name.clone() })
                })?;
            let place = format!("`session.{name}`");
            out.session.push((
                name.clone(),
                value_from_json(program, &def.ty, value, &place)?,
            ));
        }
    }
    Ok(out)
}

fn parse_set(
    program: &ir::Program,
    item: &Json,
    at: &str,
) -> Result<(String, i64, String, Value), ProposalError> {
    let o = object(item, at, "{\"table\", \"id\", \"field\", \"value\"}")?;
    let table = table(program, o, at)?;
    let id = row_id(o, at)?;
    let field_name = string(o.get("field"), &format!("{at}.field"))?;
    let field = field(table, field_name)?;
    let value = o
        .get("value")
        .ok_or_else(|| shape(&format!("{at}.value"), "present (null for none)"))?;
    let place = format!("`{}.{}`", table.name, field.name);
    let value = value_from_json(program, &field.ty, value, &place)?;
    Ok((table.name.clone(), id, field.name.clone(), value))
}

fn parse_insert(
    program: &ir::Program,
    item: &Json,
    at: &str,
) -> Result<(String, Vec<(String, Value)>), ProposalError> {
    let o = object(item, at, "{\"table\", \"values\"}")?;
    let table = table(program, o, at)?;
    let values = match o.get("values") {
        Some(v) => object(v, &format!("{at}.values"), "an object of field values")?,
        None => return Err(shape(&format!("{at}.values"), "an object of field values")),
    };
    let mut fields = Vec::with_capacity(values.len());
    for (name, value) in values {
        let field = field(table, name)?;
        let place = format!("`{}.{}`", table.name, field.name);
        fields.push((
            field.name.clone(),
            value_from_json(program, &field.ty, value, &place)?,
        ));
    }
    Ok((table.name.clone(), fields))
}

fn parse_delete(
    program: &ir::Program,
    item: &Json,
    at: &str,
) -> Result<(String, i64), ProposalError> {
    let o = object(item, at, "{\"table\", \"id\"}")?;
    let table = table(program, o, at)?;
    Ok((table.name.clone(), row_id(o, at)?))
}

// ---- shape helpers -----------------------------------------------------------------

fn shape(at: &str, expected: &str) -> ProposalError {
    ProposalError::Shape {
        at: at.to_string(),
        expected: expected.to_string(),
    }
}

fn object<'j>(
    json: &'j Json,
    at: &str,
    expected: &str,
) -> Result<&'j Map<String, Json>, ProposalError> {
    json.as_object().ok_or_else(|| shape(at, expected))
}

/// A list part: absent means empty.
fn array<'j>(json: Option<&'j Json>, at: &str) -> Result<&'j [Json], ProposalError> {
    match json {
        None => Ok(&[]),
        Some(j) => j
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| shape(at, "an array")),
    }
}

fn string<'j>(json: Option<&'j Json>, at: &str) -> Result<&'j str, ProposalError> {
    json.and_then(Json::as_str)
        .ok_or_else(|| shape(at, "a string"))
}

fn row_id(o: &Map<String, Json>, at: &str) -> Result<i64, ProposalError> {
    o.get("id")
        .and_then(Json::as_i64)
        .ok_or_else(|| shape(&format!("{at}.id"), "an integer row id"))
}

fn table<'p>(
    program: &'p ir::Program,
    o: &Map<String, Json>,
    at: &str,
) -> Result<&'p ir::TableDef, ProposalError> {
    let name = string(o.get("table"), &format!("{at}.table"))?;
    program
        .tables
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| ProposalError::Unknown(Violation::UnknownTable { name: name.into() }))
}

/// A field by name; `id` is not among a table's fields, so it cannot be written.
fn field<'p>(table: &'p ir::TableDef, name: &str) -> Result<&'p ir::FieldDef, ProposalError> {
    table.fields.iter().find(|f| f.name == name).ok_or_else(|| {
        ProposalError::Unknown(Violation::UnknownField {
            table: table.name.clone(),
            field: name.into(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::fixture::{date, program, time};
    use serde_json::json;

    fn opt(ty: Ty) -> Ty {
        Ty::Optional(Box::new(ty))
    }

    #[test]
    fn every_kind_of_value_goes_out_and_comes_back() {
        let p = program();
        let cases = [
            (Ty::Int, Value::Int(-3), json!(-3)),
            (Ty::Money, Value::Money(129_900), json!("$1,299.00")),
            (Ty::Money, Value::Money(-5), json!("-$0.05")),
            (Ty::Bool, Value::Bool(true), json!(true)),
            (Ty::Text, Value::Text("a \"b\"".into()), json!("a \"b\"")),
            (
                Ty::Date,
                Value::Date(date("2028-02-29")),
                json!("2028-02-29"),
            ),
            (Ty::Time, Value::Time(time("07:05")), json!("07:05")),
            (Ty::Enum(0), Value::Enum(2), json!("cancelled")),
            (Ty::Row(0), Value::Row(42), json!(42)),
            (opt(Ty::Date), Value::None, Json::Null),
            (opt(Ty::Enum(0)), Value::Enum(1), json!("confirmed")),
        ];
        for (ty, value, form) in cases {
            assert_eq!(value_to_json(&p, &ty, &value), form, "{value:?}");
            assert_eq!(value_from_json(&p, &ty, &form, "x"), Ok(value), "{form}");
        }
    }

    #[test]
    fn values_of_the_wrong_kind_or_impossible_ones_are_refused() {
        let p = program();
        let cases = [
            (
                Ty::Int,
                json!("3"),
                "x: expected an integer, found the string \"3\"",
            ),
            (
                Ty::Int,
                json!(3.5),
                "x: expected an integer, found the number 3.5",
            ),
            (
                Ty::Money,
                json!(12),
                "x: expected money as a string like \"$12.50\", found the number 12",
            ),
            (
                Ty::Money,
                json!("$1.234"),
                "x: \"$1.234\" is not an amount of money like \"$12.50\"",
            ),
            (
                Ty::Bool,
                json!("yes"),
                "x: expected true or false, found the string \"yes\"",
            ),
            (
                Ty::Text,
                json!(["a"]),
                "x: expected a string, found an array",
            ),
            (
                Ty::Date,
                json!("2026-02-31"),
                "x: `2026-02-31` does not exist: February 2026 has 28 days",
            ),
            (
                Ty::Date,
                json!("2026-2-3"),
                "x: \"2026-2-3\" is not a date like \"2026-03-03\"",
            ),
            (
                Ty::Time,
                json!("25:00"),
                "x: \"25:00\" is not a time like \"17:30\"",
            ),
            (
                Ty::Time,
                json!("12:60"),
                "x: \"12:60\" is not a time like \"17:30\"",
            ),
            (
                Ty::Enum(0),
                json!("Open"),
                "x: \"Open\" is not a variant of `Status` (open, confirmed, cancelled)",
            ),
            (
                Ty::Row(0),
                json!({"id": 42}),
                "x: expected the id of a `Product` row, found an object",
            ),
            (
                opt(Ty::Int),
                json!(true),
                "x: expected an integer or null, found true",
            ),
        ];
        for (ty, form, why) in cases {
            let got = value_from_json(&p, &ty, &form, "x").map_err(|e| e.to_string());
            assert_eq!(got, Err(why.to_string()), "{form}");
        }
    }

    #[test]
    fn answers_are_a_delta_or_default_and_anything_else_is_a_failure() {
        let p = program();
        assert_eq!(
            parse_answer(&p, "{\"default\": true}\n"),
            Ok(Proposal::Default)
        );
        let delta = parse_answer(
            &p,
            r#"{"delta": {"insert": [{"table": "Tag", "values": {"label": "new"}}],
                "session": {"user": 9}}}"#,
        );
        let expected = ProposedDelta {
            inserts: vec![(
                "Tag".into(),
                vec![("label".into(), Value::Text("new".into()))],
            )],
            session: vec![("user".into(), Value::Int(9))],
            ..ProposedDelta::default()
        };
        assert_eq!(delta, Ok(Proposal::Delta(expected)));
        for broken in [
            "",
            "nope",
            "{\"default\": 1}",
            "{}",
            "null",
            "[{\"default\": true}]",
        ] {
            assert!(
                matches!(parse_answer(&p, broken), Err(WriterError::Failed(_))),
                "{broken}"
            );
        }
        let long = "x".repeat(500);
        let Err(WriterError::Failed(why)) = parse_answer(&p, &long) else {
            panic!("a long garbage line was read");
        };
        assert!(why.len() < 200, "{why}");
        assert!(matches!(
            parse_answer(
                &p,
                r#"{"delta": {"delete": [{"table": "Tag", "id": "1"}]}}"#
            ),
            Err(WriterError::Malformed(ProposalError::Shape { .. }))
        ));
    }
}
