//! How a site's values live in SQLite columns.
//!
//! Each field gets a column of its type's natural SQL affinity, so that the
//! tables read as ordinary SQL: `Int`, `Money` (in cents), `Bool` (0/1) and
//! row references (the row's id) are `INTEGER`; `Text`, `Date`
//! (`2026-03-03`), `Time` (`17:30`) and enum variants (by name) are `TEXT`;
//! `none` is `NULL`. Reading a column back checks it against the field's type,
//! so a database edited by hand into nonsense is an error, never a wrong value.

use rusqlite::types::Value as Sql;
use std::fmt;
use wsite_runtime::ir::{Program, Ty, Value};
use wsite_runtime::value::{Date, Time};

/// A stored column that does not hold a value of its field's type.
#[derive(Debug, Clone, PartialEq)]
pub struct BadColumn {
    pub expected: String,
    pub found: String,
}

impl fmt::Display for BadColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

impl std::error::Error for BadColumn {}

/// The column type a field of type `ty` is declared with.
pub fn column_type(ty: &Ty) -> &'static str {
    match ty {
        Ty::Int | Ty::Money | Ty::Bool | Ty::Row(_) => "INTEGER",
        Ty::Text | Ty::Date | Ty::Time | Ty::Enum(_) => "TEXT",
        Ty::Optional(inner) => column_type(inner),
    }
}

/// `value` as a column of type `ty`.
pub fn to_sql(program: &Program, value: &Value, ty: &Ty) -> Sql {
    match value {
        Value::None => Sql::Null,
        Value::Int(n) | Value::Money(n) | Value::Row(n) => Sql::Integer(*n),
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Text(t) => Sql::Text(t.to_string()),
        Value::Date(d) => Sql::Text(d.to_string()),
        Value::Time(t) => Sql::Text(t.to_string()),
        Value::Enum(i) => Sql::Text(variant_name(program, ty, *i)),
    }
}

/// A column of type `ty` read back as a value.
pub fn from_sql(program: &Program, sql: Sql, ty: &Ty) -> Result<Value, BadColumn> {
    let bad = |found: &Sql| BadColumn {
        expected: type_name(program, ty),
        found: describe(found),
    };
    let inner = match ty {
        Ty::Optional(inner) => inner.as_ref(),
        other => other,
    };
    match (inner, &sql) {
        (_, Sql::Null) => Ok(Value::None),
        (Ty::Int, Sql::Integer(n)) => Ok(Value::Int(*n)),
        (Ty::Money, Sql::Integer(n)) => Ok(Value::Money(*n)),
        (Ty::Row(_), Sql::Integer(n)) => Ok(Value::Row(*n)),
        (Ty::Bool, Sql::Integer(n @ (0 | 1))) => Ok(Value::Bool(*n == 1)),
        (Ty::Text, Sql::Text(t)) => Ok(Value::Text(t.as_str().into())),
        (Ty::Date, Sql::Text(t)) => Date::parse_body(t).map(Value::Date).map_err(|_| bad(&sql)),
        (Ty::Time, Sql::Text(t)) => Time::parse_body(t).map(Value::Time).map_err(|_| bad(&sql)),
        (Ty::Enum(e), Sql::Text(t)) => program
            .enums
            .get(*e as usize)
            .and_then(|def| def.variants.iter().position(|v| v == t))
            .and_then(|i| u32::try_from(i).ok())
            .map(Value::Enum)
            .ok_or_else(|| bad(&sql)),
        _ => Err(bad(&sql)),
    }
}

fn variant_name(program: &Program, ty: &Ty, variant: u32) -> String {
    let enum_id = match ty {
        Ty::Enum(e) => Some(*e),
        Ty::Optional(inner) => match inner.as_ref() {
            Ty::Enum(e) => Some(*e),
            _ => None,
        },
        _ => None,
    };
    enum_id
        .and_then(|e| program.enums.get(e as usize))
        .and_then(|def| def.variants.get(variant as usize))
        .cloned()
        // Only a value of the wrong type gets here; keep its index visible.
        .unwrap_or_else(|| format!("#{variant}"))
}

fn type_name(program: &Program, ty: &Ty) -> String {
    match ty {
        Ty::Int => "an Int".into(),
        Ty::Money => "Money in cents".into(),
        Ty::Bool => "a Bool (0 or 1)".into(),
        Ty::Text => "a Text".into(),
        Ty::Date => "a Date (YYYY-MM-DD)".into(),
        Ty::Time => "a Time (HH:MM)".into(),
        Ty::Enum(e) => match program.enums.get(*e as usize) {
            Some(def) => format!("a variant of {}", def.name),
            None => "an enum variant".into(),
        },
        Ty::Row(t) => match program.tables.get(*t as usize) {
            Some(def) => format!("the id of a {} row", def.name),
            None => "a row id".into(),
        },
        Ty::Optional(inner) => format!("{} or NULL", type_name(program, inner)),
    }
}

fn describe(sql: &Sql) -> String {
    match sql {
        Sql::Null => "NULL".into(),
        Sql::Integer(n) => format!("the integer {n}"),
        Sql::Real(x) => format!("the real {x}"),
        Sql::Text(t) => format!("the text {t:?}"),
        Sql::Blob(_) => "a blob".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program() -> Program {
        serde_json::from_value(serde_json::json!({
            "site": {"name": "s", "title": "S", "domain": "ecommerce",
                     "today": {"year": 2026, "month": 3, "day": 3},
                     "start": {"page": 0, "args": []}},
            "enums": [{"name": "Status", "variants": ["open", "closed"]}],
            "tables": [], "session": [], "invariants": [], "pages": [],
            "markers": [], "tasks": []
        }))
        .expect("a minimal program")
    }

    #[test]
    fn every_type_round_trips() {
        let p = program();
        let cases = [
            (Value::Int(-7), Ty::Int),
            (Value::Money(129_900), Ty::Money),
            (Value::Bool(true), Ty::Bool),
            (Value::Text("Maya \"O\" Okafor".into()), Ty::Text),
            (
                Value::Date(Date::parse_body("2026-02-28").expect("date")),
                Ty::Date,
            ),
            (
                Value::Time(Time::parse_body("17:30").expect("time")),
                Ty::Time,
            ),
            (Value::Enum(1), Ty::Enum(0)),
            (Value::Row(44), Ty::Row(0)),
            (Value::None, Ty::Optional(Box::new(Ty::Date))),
        ];
        for (value, ty) in cases {
            let sql = to_sql(&p, &value, &ty);
            assert_eq!(from_sql(&p, sql, &ty), Ok(value), "{ty:?}");
        }
        assert_eq!(
            to_sql(&p, &Value::Enum(1), &Ty::Enum(0)),
            Sql::Text("closed".into())
        );
    }

    #[test]
    fn a_column_of_the_wrong_kind_is_an_error() {
        let p = program();
        assert!(from_sql(&p, Sql::Text("3".into()), &Ty::Int).is_err());
        assert!(from_sql(&p, Sql::Integer(2), &Ty::Bool).is_err());
        assert!(from_sql(&p, Sql::Text("2026-02-30".into()), &Ty::Date).is_err());
        assert!(from_sql(&p, Sql::Text("pending".into()), &Ty::Enum(0)).is_err());
        let err = from_sql(&p, Sql::Real(1.5), &Ty::Money).expect_err("a real is not money");
        assert_eq!(
            err.to_string(),
            "expected Money in cents, found the real 1.5"
        );
    }
}
