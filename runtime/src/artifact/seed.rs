//! The seed tables: every site table's seed rows stored as a real SQL table,
//! `seed_<Table>`, with a column per field whose SQL type, `CHECK` and
//! `REFERENCES` follow the field's type, so any SQLite client can inspect
//! them. This module turns a table into its DDL, INSERT and rows, and says
//! why one cannot be ([`InvalidArtifact`], [`SeedError`]).

use super::error::{InvalidArtifact, SeedError};
use crate::ir::{Program, TableDef, Ty, Value};
use rusqlite::types::Value as SqlValue;

/// One `seed_<Table>`: its DDL, its INSERT and its rows (id first).
pub(super) struct SeedTable {
    pub(super) create: String,
    pub(super) insert: String,
    pub(super) rows: Vec<Vec<SqlValue>>,
}

/// `"name"`, with quotes doubled: site names are identifiers, but a quoted
/// name can never collide with an SQL keyword.
pub(super) fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

pub(super) fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn seed_name(table: &str) -> String {
    ident(&format!("seed_{table}"))
}

pub(super) fn seed_table(
    program: &Program,
    table: &TableDef,
) -> Result<SeedTable, InvalidArtifact> {
    let mut columns = vec![ident("id")];
    let mut defs = vec![format!("{} INTEGER PRIMARY KEY", ident("id"))];
    for field in &table.fields {
        let (name, def) =
            column(program, &field.name, &field.ty).map_err(|why| InvalidArtifact::Column {
                table: table.name.clone(),
                field: field.name.clone(),
                why,
            })?;
        defs.push(format!("{name} {def}"));
        columns.push(name);
    }
    let rows = table
        .seed
        .iter()
        .map(|row| seed_row(program, table, row))
        .collect::<Result<_, _>>()?;
    let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    Ok(SeedTable {
        create: format!(
            "CREATE TABLE {} (\n    {}\n);",
            seed_name(&table.name),
            defs.join(",\n    ")
        ),
        insert: format!(
            "INSERT INTO {} ({}) VALUES ({})",
            seed_name(&table.name),
            columns.join(", "),
            placeholders.join(", ")
        ),
        rows,
    })
}

/// A field's quoted column name and its declaration: the SQL type, `NOT NULL`
/// unless optional, and a `CHECK` or `REFERENCES` where the type has one.
fn column(program: &Program, field: &str, ty: &Ty) -> Result<(String, String), SeedError> {
    let (ty, optional) = match ty {
        Ty::Optional(inner) => (inner.without_optional(), true),
        other => (other, false),
    };
    let plain = ident(field);
    let null = if optional { "" } else { " NOT NULL" };
    Ok(match ty {
        Ty::Int => (plain, format!("INTEGER{null}")),
        Ty::Money => (ident(&format!("{field}_cents")), format!("INTEGER{null}")),
        Ty::Bool => {
            let check = format!(" CHECK ({plain} IN (0, 1))");
            (plain, format!("INTEGER{null}{check}"))
        }
        Ty::Text | Ty::Date | Ty::Time => (plain, format!("TEXT{null}")),
        Ty::Enum(id) => {
            let variants = &enum_def(program, *id)?.variants;
            let list: Vec<String> = variants.iter().map(|v| literal(v)).collect();
            let check = format!(" CHECK ({plain} IN ({}))", list.join(", "));
            (plain, format!("TEXT{null}{check}"))
        }
        Ty::Row(id) => {
            let target = table_def(program, *id)?;
            let reference = format!(" REFERENCES {}({})", seed_name(&target.name), ident("id"));
            (plain, format!("INTEGER{null}{reference}"))
        }
        Ty::Optional(_) => return Err(SeedError::NestedOptional),
    })
}

fn enum_def(program: &Program, id: u32) -> Result<&crate::ir::EnumDef, SeedError> {
    program.enums.get(id as usize).ok_or(SeedError::NoEnum(id))
}

fn table_def(program: &Program, id: u32) -> Result<&TableDef, SeedError> {
    program
        .tables
        .get(id as usize)
        .ok_or(SeedError::NoTable(id))
}

fn seed_row(
    program: &Program,
    table: &TableDef,
    row: &crate::ir::RowData,
) -> Result<Vec<SqlValue>, InvalidArtifact> {
    if row.values.len() != table.fields.len() {
        return Err(InvalidArtifact::ValueCount {
            table: table.name.clone(),
            row: row.id,
            values: row.values.len(),
            fields: table.fields.len(),
        });
    }
    let mut out = vec![SqlValue::Integer(row.id)];
    for (field, value) in table.fields.iter().zip(&row.values) {
        let v =
            seed_value(program, &field.ty, value).map_err(|why| InvalidArtifact::SeedValue {
                table: table.name.clone(),
                row: row.id,
                field: field.name.clone(),
                why,
            })?;
        out.push(v);
    }
    Ok(out)
}

/// A seed value as its column stores it. The value must fit the field's
/// type: SQLite itself would accept text in an INTEGER column.
fn seed_value(program: &Program, ty: &Ty, value: &Value) -> Result<SqlValue, SeedError> {
    Ok(match (ty, value) {
        (Ty::Optional(_), Value::None) => SqlValue::Null,
        (Ty::Optional(inner), v) => return seed_value(program, inner, v),
        (Ty::Int, Value::Int(n)) | (Ty::Money, Value::Money(n)) | (Ty::Row(_), Value::Row(n)) => {
            SqlValue::Integer(*n)
        }
        (Ty::Bool, Value::Bool(b)) => SqlValue::Integer(i64::from(*b)),
        (Ty::Text, Value::Text(s)) => SqlValue::Text(s.to_string()),
        (Ty::Date, Value::Date(d)) => SqlValue::Text(d.to_string()),
        (Ty::Time, Value::Time(t)) => SqlValue::Text(t.to_string()),
        (Ty::Enum(id), Value::Enum(i)) => {
            let def = enum_def(program, *id)?;
            let name = def
                .variants
                .get(*i as usize)
                .ok_or_else(|| SeedError::NoVariant {
                    enum_name: def.name.clone(),
                    variant: *i,
                })?;
            SqlValue::Text(name.clone())
        }
        (ty, value) => {
            return Err(SeedError::WrongType {
                value: value.clone(),
                ty: ty.clone(),
            })
        }
    })
}
