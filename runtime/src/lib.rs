//! wsite runtime: everything that happens after a site is checked.
//!
//! `value` is the scalar domain (money, dates, times) every stage shares, and
//! `textops` the text built-ins both engines call, and `words` the one
//! splitting of text into words (answer tokens, token ids); `ir` is
//! the lowered site; `interp` is the reference interpreter (the oracle);
//! `env` plays task episodes (observations, actions, rewards), and `identity`
//! says when two of its states are the same (the fingerprint every search
//! over them uses); `graph` is the
//! navigation graph (petgraph) with its analyses, the knowledge spec and the
//! site map; `layout` gives
//! every state one flat byte encoding for the fast engines; `artifact` reads and
//! writes the `.wsb` file, the only module here that touches the file system
//! (besides `plot`, which writes figures). `report` summarises an experiment's
//! runs (intervals, tables, curves) and `plot` draws figures with an embedded
//! font (feature `plot`). `replay` judges recorded episodes (state replay,
//! key-node coverage, answer check) and records them.

pub mod artifact;
pub mod batch;
pub mod env;
pub mod episode;
pub mod graph;
mod identity;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod layout;
pub mod page;
#[cfg(feature = "plot")]
pub mod plot;
pub mod prm;
pub mod prove;
pub mod replay;
pub mod report;
pub mod tasks;
pub mod textops;
pub mod train;
pub mod value;
pub mod words;
