//! The IR: a checked site lowered to indices, ready to run.
//!
//! The compiler lowers its AST here after every check passes; the interpreter
//! (and later the JIT and the prover) read nothing else. Names are gone: tables,
//! fields, enums, session variables and locals are indices, every expression's
//! meaning is fixed (a bare name is already a local, a variant or a table), and
//! each body knows how many local slots it needs. The names stay alongside, for
//! rendering and error messages. Everything is `serde`, so an artifact can carry
//! it.
//!
//! Status: this first part covers the data (enums, tables, seed rows, session),
//! invariants and every expression form. Pages, markers and tasks follow.

use crate::value::{Date, Time};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub type TableId = u32;
pub type FieldId = u32;
pub type EnumId = u32;
pub type SessionId = u32;
/// A slot in the current frame (parameters, `let`s, binders, form variables).
pub type Slot = u32;

/// A value's static type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ty {
    Int,
    Money,
    Bool,
    Text,
    Date,
    Time,
    Enum(EnumId),
    Row(TableId),
    Optional(Box<Ty>),
}

/// A run-time value. A row reference is its id; the table is in its type.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Value {
    None,
    Int(i64),
    /// Cents.
    Money(i64),
    Bool(bool),
    Text(Arc<str>),
    Date(Date),
    Time(Time),
    /// A variant index of the value's enum.
    Enum(u32),
    /// The id of a row of the value's table.
    Row(i64),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Program {
    pub site: SiteInfo,
    pub enums: Vec<EnumDef>,
    pub tables: Vec<TableDef>,
    pub session: Vec<SessionDef>,
    pub invariants: Vec<InvariantDef>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SiteInfo {
    pub name: String,
    pub title: String,
    pub domain: String,
    /// What `today()` returns.
    pub today: Date,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EnumDef {
    pub name: String,
    pub variants: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TableDef {
    pub name: String,
    /// The declared fields, in order (`id` is implicit and not among them).
    pub fields: Vec<FieldDef>,
    /// At most this many rows: `max N`, or the seed rows + 64.
    pub capacity: u32,
    /// The seed rows, in id order.
    pub seed: Vec<RowData>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FieldDef {
    pub name: String,
    pub ty: Ty,
}

/// One row: its id and one value per field, in field order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RowData {
    pub id: i64,
    pub values: Vec<Value>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SessionDef {
    pub name: String,
    pub ty: Ty,
    pub init: Value,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InvariantDef {
    pub name: String,
    pub cond: Expr,
    /// Local slots the condition needs (for its quantifier binders).
    pub frame: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AggKind {
    /// `sum` of `Int` values; `0` over no rows.
    Sum,
    /// `sum` of `Money` values; `$0.00` over no rows. A separate kind because an
    /// empty sum has no value to take its type from.
    SumMoney,
    Min,
    Max,
}

/// The built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Builtin {
    Lower,
    Upper,
    Len,
    Trim,
    Contains,
    StartsWith,
    EndsWith,
    Abs,
    DaysBetween,
    Today,
}

impl Builtin {
    pub fn from_name(name: &str) -> Option<Builtin> {
        Some(match name {
            "lower" => Builtin::Lower,
            "upper" => Builtin::Upper,
            "len" => Builtin::Len,
            "trim" => Builtin::Trim,
            "contains" => Builtin::Contains,
            "starts_with" => Builtin::StartsWith,
            "ends_with" => Builtin::EndsWith,
            "abs" => Builtin::Abs,
            "days_between" => Builtin::DaysBetween,
            "today" => Builtin::Today,
            _ => return None,
        })
    }
}

/// A loop over a table's rows (in id order) binding each to `binder`, keeping
/// those where `filter` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowScan {
    pub binder: Slot,
    pub table: TableId,
    pub filter: Option<Box<Expr>>,
}

/// A piece of text with `{expr}` interpolations, rendered by the value rules.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum TextPart {
    Lit(Arc<str>),
    /// The value and its static type (rendering a row needs its table).
    Interp(Expr, Ty),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Expr {
    Const(Value),
    Local(Slot),
    Session(SessionId),
    /// `row.field`; `row` may be optional (a `none` row fails the evaluation).
    Field {
        row: Box<Expr>,
        table: TableId,
        field: FieldId,
    },
    /// `row.id`
    RowId(Box<Expr>),
    /// `T[id]`: fails when no such row exists.
    Lookup {
        table: TableId,
        id: Box<Expr>,
    },
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `e in [a, b]`
    In(Box<Expr>, Vec<Expr>),
    Exists(RowScan, Box<Expr>),
    All(RowScan, Box<Expr>),
    /// `count(T)` / `count(x in T where p)`
    Count(RowScan),
    Aggregate {
        kind: AggKind,
        value: Box<Expr>,
        scan: RowScan,
    },
    /// The lowest-id row matching, or `none`.
    Find(RowScan),
    Call(Builtin, Vec<Expr>),
    Text(Vec<TextPart>),
}
