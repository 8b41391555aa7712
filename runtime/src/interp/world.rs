//! What statements act on and leave behind: the [`World`] (database and
//! session variables) a marker body or task setup runs against, and the
//! [`Delta`] of what a run wrote, which the gate (`gate`) judges and the
//! executor (`exec`) produces. Shared types only, so that neither of those
//! modules depends on the other for them.

use super::eval::{Context, Navigation};
use super::state::Database;
use crate::ir::{self, Value};

/// The mutable part of an episode the statements touch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct World {
    pub db: Database,
    /// Indexed by `ir::SessionId`.
    pub session: Vec<Value>,
}

impl World {
    /// An evaluation context reading this world (and `nav`, inside a task).
    pub fn context<'a>(
        &'a self,
        program: &'a ir::Program,
        nav: Option<&'a Navigation>,
    ) -> Context<'a> {
        Context {
            program,
            db: &self.db,
            session: &self.session,
            nav,
        }
    }
}

impl World {
    /// The initial world: the seed rows and every session variable's `init`.
    pub fn initial(program: &ir::Program) -> World {
        World {
            db: Database::from_seed(program),
            session: program.session.iter().map(|s| s.init.clone()).collect(),
        }
    }
}

/// Everything a marker run wrote, in the order it happened, for validation (and
/// an undo log's worth of information).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    pub inserted: Vec<(ir::TableId, i64)>,
    pub deleted: Vec<(ir::TableId, i64)>,
    pub set_fields: Vec<(ir::TableId, i64, ir::FieldId)>,
    pub set_session: Vec<ir::SessionId>,
}
