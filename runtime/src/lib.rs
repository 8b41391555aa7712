//! wsite runtime: everything that happens after a site is checked.
//!
//! `value` is the scalar domain (money, dates, times) every stage shares, and
//! `textops` the text built-ins both engines call; `ir` is
//! the lowered site; `interp` is the reference interpreter (the oracle);
//! `env` plays task episodes (observations, actions, rewards); `layout` gives
//! every state one flat byte encoding for the fast engines; `artifact` reads and
//! writes the `.wsb` file, the only module here that touches the file system
//! (besides `plot`, which writes figures). `report` summarises an experiment's
//! runs (intervals, tables, curves) and `plot` draws figures with an embedded
//! font (feature `plot`).

pub mod artifact;
pub mod batch;
pub mod env;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod layout;
#[cfg(feature = "plot")]
pub mod plot;
pub mod prove;
pub mod report;
pub mod tasks;
pub mod textops;
pub mod train;
pub mod value;
