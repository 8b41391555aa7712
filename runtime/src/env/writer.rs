//! State writers for `extern marker`s (LANGUAGE.md §2.3; INTERFACES.md,
//! "Extern markers at run time").
//!
//! This module owns the hook between a click on an extern marker and whatever
//! outside component proposes its effect: the [`StateWriter`] trait, the
//! request it is given ([`WriteRequest`]), its answer ([`Proposal`], or why
//! there is none: [`WriterError`], [`ProposalError`]) and what that answer
//! does to the step.
//! When an [`Env`](super::Env) has a writer and a click triggers an extern
//! marker whose `requires` hold, the writer is asked first:
//! - a [`Proposal::Delta`] goes through [`apply_proposed`], the same gate as
//!   compiled bodies (§5.3); refused, the step is rejected with the alert
//!   `proposal refused: <reason>`;
//! - [`Proposal::Default`] runs the marker's `default` body as without a writer;
//! - a [`WriterError`] rejects the step: `simulator failed: <reason>` when the
//!   writer broke, `proposal refused: <reason>` when its delta did not read.
//!
//! A rejected step keeps the page, its arguments, the form values, the
//! database and the session as they were, and costs ε = 1, like any other.
//! Without a writer nothing here runs: the prover and the trainer always use
//! the `default` body. How a writer talks to its component (a process, a
//! model in memory) is not this module's business; the JSON forms, including
//! [`WriteRequest::to_json`] and [`WriteRequest::parse_answer`], are in
//! [`super::writer_json`], which depends on this module and not the reverse.

use crate::interp::eval::Navigation;
use crate::interp::exec::{self, Rejection, World};
use crate::interp::gate::{apply_proposed, ProposedDelta, Violation};
use crate::interp::state::idx;
use crate::ir::{self, MarkerId, Permission, Value};
use std::fmt;
use std::sync::{Arc, Mutex};

/// What a writer proposes for one extern marker click.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proposal {
    /// Run the marker's `default` body (`{"default": true}`).
    Default,
    /// This change, to pass the gate (`{"delta": …}`).
    Delta(ProposedDelta),
}

/// Why a writer gave no usable proposal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriterError {
    /// The writer itself failed: it exited, stalled, or answered something
    /// that is not an answer. The alert is `simulator failed: <reason>`.
    Failed(String),
    /// The writer's delta does not read (a wrong type, an impossible date, an
    /// unknown field…). The alert is `proposal refused: <reason>`.
    Malformed(ProposalError),
}

impl fmt::Display for WriterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriterError::Failed(why) => write!(f, "simulator failed: {why}"),
            WriterError::Malformed(why) => write!(f, "proposal refused: {why}"),
        }
    }
}

impl std::error::Error for WriterError {}

/// Why a writer's delta could not be read. Every text is user-facing: it ends
/// up in the alert `proposal refused: …`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProposalError {
    /// A part of the delta is not of the protocol's shape; `at` is its path
    /// (`delta.set[0].id`), `expected` what belongs there.
    Shape { at: String, expected: String },
    /// A value that is not one of its place's type: `place` names the field or
    /// session variable, `why` says what is wrong with the value.
    BadValue { place: String, why: String },
    /// An unknown table, field or session variable, worded as the gate words it.
    Unknown(Violation),
}

impl fmt::Display for ProposalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProposalError::Shape { at, expected } => write!(f, "`{at}` must be {expected}"),
            ProposalError::BadValue { place, why } => write!(f, "{place}: {why}"),
            ProposalError::Unknown(v) => write!(f, "{v}"),
        }
    }
}

impl std::error::Error for ProposalError {}

/// An outside component that proposes the effects of extern markers.
///
/// `Send` so that an environment holding one can still move between threads.
pub trait StateWriter: Send {
    /// Answers one click. Called only for extern markers whose `requires`
    /// hold; whatever it returns, the environment stays consistent.
    fn propose(&mut self, request: &WriteRequest<'_>) -> Result<Proposal, WriterError>;
}

/// A writer shared by every environment of a session (each `reset` of the
/// agent protocol builds a new `Env`; the simulator process outlives them).
#[derive(Clone)]
pub struct SharedWriter(Arc<Mutex<dyn StateWriter>>);

impl SharedWriter {
    pub fn new(writer: impl StateWriter + 'static) -> SharedWriter {
        SharedWriter(Arc::new(Mutex::new(writer)))
    }

    fn propose(&self, request: &WriteRequest<'_>) -> Result<Proposal, WriterError> {
        match self.0.lock() {
            Ok(mut w) => w.propose(request),
            // A writer that panicked mid-request may be in any state; refuse
            // to trust it again rather than panic here too.
            Err(_) => Err(WriterError::Failed(
                "the state writer panicked earlier".into(),
            )),
        }
    }
}

impl fmt::Debug for SharedWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SharedWriter")
    }
}

/// One click on an extern marker, as a writer sees it: the marker, its
/// arguments, its `writes`, and what it may read.
pub struct WriteRequest<'a> {
    pub(super) program: &'a ir::Program,
    pub(super) def: &'a ir::MarkerDef,
    pub(super) args: &'a [Value],
    pub(super) world: &'a World,
}

impl<'a> WriteRequest<'a> {
    /// The marker's name.
    pub fn marker(&self) -> &'a str {
        &self.def.name
    }

    /// The arguments by parameter name, in parameter order.
    pub fn args(&self) -> Vec<(&'a str, &'a Value)> {
        self.def
            .params
            .iter()
            .map(|p| p.name.as_str())
            .zip(self.args.iter())
            .collect()
    }

    /// The marker's `writes`, as the source spells them: `Ticket`,
    /// `Ticket.reply`, `session.user`.
    pub fn writes(&self) -> Vec<String> {
        self.def
            .writes
            .iter()
            .map(|p| permission_name(self.program, p))
            .collect()
    }

    /// The database and session now (before any change).
    pub fn world(&self) -> &'a World {
        self.world
    }

    /// The program the marker belongs to.
    pub fn program(&self) -> &'a ir::Program {
        self.program
    }
}

/// `Ticket`, `Ticket.reply` or `session.user`.
fn permission_name(program: &ir::Program, p: &Permission) -> String {
    let table = |t: ir::TableId| {
        program
            .tables
            .get(idx(t))
            .map_or_else(|| format!("#{t}"), |d| d.name.clone())
    };
    match *p {
        Permission::Table(t) => table(t),
        Permission::Field(t, f) => {
            let field = program
                .tables
                .get(idx(t))
                .and_then(|d| d.fields.get(idx(f)))
                .map_or_else(|| format!("#{f}"), |d| d.name.clone());
            format!("{}.{field}", table(t))
        }
        Permission::Session(s) => {
            let name = program
                .session
                .get(idx(s))
                .map_or_else(|| format!("#{s}"), |d| d.name.clone());
            format!("session.{name}")
        }
    }
}

/// What asking the writer did to a marker step.
pub(crate) enum Asked {
    /// Not asked (not an extern marker), or asked and told to run the
    /// `default` body: the step goes on as without a writer.
    RunBody,
    /// The proposal is committed; the page stays, with its arguments and
    /// form values.
    Committed,
    /// Nothing changed; the alert and, for a gate refusal, its rule.
    Rejected(String, Option<Rejection>),
}

/// Asks `writer` about a click on `marker` with `args`, if it is an extern
/// marker: its `requires` first (a false one rejects the step exactly as
/// without a writer), then the writer, then the gate. `world` changes only
/// when a proposal commits.
pub(crate) fn ask(
    program: &ir::Program,
    world: &mut World,
    nav: &Navigation,
    writer: &SharedWriter,
    marker: MarkerId,
    args: &[Value],
) -> Asked {
    let Some(def) = program.markers.get(idx(marker)).filter(|d| d.is_extern) else {
        return Asked::RunBody;
    };
    if let Err((alert, cause)) =
        exec::check_marker_requires(program, world, Some(nav), marker, args)
    {
        return Asked::Rejected(alert, Some(cause));
    }
    let request = WriteRequest {
        program,
        def,
        args,
        world,
    };
    let delta = match writer.propose(&request) {
        Ok(Proposal::Default) => return Asked::RunBody,
        Ok(Proposal::Delta(delta)) => delta,
        Err(e) => return Asked::Rejected(e.to_string(), None),
    };
    match apply_proposed(program, world, marker, &delta) {
        Ok(()) => Asked::Committed,
        Err(v) => Asked::Rejected(format!("proposal refused: {v}"), Some(Rejection::Gate(v))),
    }
}
