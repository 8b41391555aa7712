//! The episode state of §5.1 as data: the world, where the episode is and
//! has been, the agent's form values, the step count, the alert and the
//! flags. `env` plays episodes over it and `layout` encodes it as flat
//! bytes; this module holds only the type, so neither depends on the other
//! for it.

use crate::interp::eval::Navigation;
use crate::interp::exec::World;
use crate::ir::Value;
use std::collections::BTreeMap;

/// A form variable's identity: its element and the ids (or list indices) bound
/// by its enclosing loops, so each loop iteration has its own.
pub type FormKey = (u32, Vec<i64>);

/// The episode state s (§5.1). A server keeps it between requests and hands
/// it back with `env::Env::load`.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub world: World,
    pub nav: Navigation,
    /// Only values set by the agent; others show their initial value.
    pub forms: BTreeMap<FormKey, Value>,
    pub step: u32,
    pub alert: Option<String>,
    pub done: bool,
    pub success: bool,
}
