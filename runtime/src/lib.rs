//! wsite runtime: the values every stage agrees on.
//!
//! This crate owns the run-time side of wsite. Today it holds the scalar value
//! domain (money, calendar dates, times of day) shared by the compiler's checks and
//! the later interpreter, so that "is this a real date" and "how is money rendered"
//! have exactly one answer. The IR, interpreter, environments and prover land here
//! as they are built (see the issue tracker); nothing in this crate does I/O.

pub mod env;
pub mod interp;
pub mod ir;
pub mod layout;
pub mod value;
