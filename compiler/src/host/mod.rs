//! The library's one edge with the disk: reading a program to check or run
//! from a `.wsite` file, a directory of them, or a built `.wsb` artifact
//! ([`load`]), and opening it ready to run ([`site`]); and with processes:
//! a `--simulator` command that proposes extern markers' effects
//! ([`simulator`], over [`process`]). The CLI and the Python binding
//! (`python/`) both go through here, so a path or a simulator command means
//! the same thing to both.

pub mod load;
pub mod process;
pub mod simulator;
pub mod site;
