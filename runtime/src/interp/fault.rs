//! Why an evaluation failed: the run-time faults of §3 (division by zero, a
//! field of `none`, a missing row, overflow, a date or time out of range), a
//! value every engine returns and every caller interprets (a predicate is
//! false, a marker is rejected, text shows `—`).

use super::state::idx;
use crate::ir::{self, TableId};
use std::fmt;

/// Why an evaluation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    DivisionByZero,
    /// A field of `none`, or `none` where a value is needed.
    NoneValue,
    /// A reference to, or a lookup of, a row that does not exist.
    MissingRow {
        table: TableId,
        id: i64,
    },
    /// Int or money arithmetic out of the 64-bit range.
    Overflow,
    /// Date or time arithmetic that leaves the calendar (`@9999-12-31 + 1`)
    /// or the day (`@23:30 + 45`).
    OutOfRange,
    /// The IR is inconsistent (wrong kinds of values for an operator, an unknown
    /// table or field). Never expected from a checked program.
    TypeConfusion(&'static str),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::DivisionByZero => f.write_str("division by zero"),
            Fault::NoneValue => f.write_str("a value is none"),
            Fault::MissingRow { id, .. } => write!(f, "row #{id} does not exist"),
            Fault::Overflow => f.write_str("number out of range"),
            Fault::OutOfRange => f.write_str("date or time out of range"),
            Fault::TypeConfusion(what) => write!(f, "internal error: {what}"),
        }
    }
}

impl Fault {
    /// Like `Display`, but names the table of a missing row (`no Product with id
    /// 7`), which needs the program.
    pub fn describe(&self, program: &ir::Program) -> String {
        match self {
            Fault::MissingRow { table, id } => match program.tables.get(idx(*table)) {
                Some(t) => format!("no {} with id {id}", t.name),
                None => self.to_string(),
            },
            _ => self.to_string(),
        }
    }
}

/// A fault with the names [`Fault::describe`] gives it (a missing row's
/// table), so that it shows without the program: `no Product with id 7`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedFault {
    pub fault: Fault,
    /// For a missing row, its table's name; `None` for other faults, or a
    /// table the program lacks.
    pub table: Option<String>,
}

impl NamedFault {
    /// `fault` in `program`'s terms.
    pub fn new(fault: Fault, program: &ir::Program) -> NamedFault {
        let table = match &fault {
            Fault::MissingRow { table, .. } => {
                program.tables.get(idx(*table)).map(|t| t.name.clone())
            }
            _ => None,
        };
        NamedFault { fault, table }
    }
}

impl fmt::Display for NamedFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.fault, &self.table) {
            (Fault::MissingRow { id, .. }, Some(name)) => write!(f, "no {name} with id {id}"),
            (fault, _) => fault.fmt(f),
        }
    }
}

impl std::error::Error for NamedFault {}

/// A fault in the arguments of a link or a button, found when the page is
/// rendered and kept until a step tries the element: that step is rejected
/// with this as its alert (`this action failed: no Product with id 7`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionFault(pub NamedFault);

impl ActionFault {
    /// `fault` in `program`'s terms.
    pub fn new(fault: Fault, program: &ir::Program) -> ActionFault {
        ActionFault(NamedFault::new(fault, program))
    }
}

impl fmt::Display for ActionFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "this action failed: {}", self.0)
    }
}

impl std::error::Error for ActionFault {}
