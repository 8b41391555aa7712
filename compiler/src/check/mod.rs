//! Static analysis of a parsed program: names, types, effects and lints.
//!
//! Each analysis lives in its own file and reads the AST plus the [`Symbols`]
//! table; none stops at the first problem. [`check_program`] runs them in order
//! and returns everything they found. Analyses that need execution (the C and F
//! codes) are not here: they run on the IR in the runtime.

pub mod effects;
pub mod semantic;
pub mod structural;
pub mod symbols;
pub mod types;

pub use symbols::Symbols;

use crate::diagnostics::Diagnostics;
use crate::syntax::ast::SourceFile;

/// Runs every static analysis over `files`, pushing what it finds into `diags`.
pub fn check_program(files: &[SourceFile], diags: &mut Diagnostics) {
    let symbols = Symbols::collect(files, diags);
    let typed = types::check(files, &symbols, diags);
    effects::check(files, &symbols, &typed, diags);
    structural::check(files, &symbols, diags);
    semantic::check(files, &symbols, diags);
}
