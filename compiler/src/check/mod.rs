//! Static analysis of a parsed program: names, types, effects and lints.
//!
//! Each analysis lives in its own file and reads the AST plus the [`Symbols`]
//! table; none stops at the first problem. [`check_program`] runs them in order
//! and returns everything they found. Analyses that need execution (the C and F
//! codes) are not here: they run on the lowered IR ([`crate::consistency`],
//! [`crate::verify`]).
//!
//! What more than one analysis needs to know about a statement's AST lives in
//! `statements`, below them.

pub mod effects;
pub mod semantic;
mod statements;
pub mod structural;
pub mod symbols;
pub mod types;

pub use symbols::Symbols;

use crate::diagnostics::{Code, Diagnostics};
use crate::syntax::ast::{SourceFile, Span};

/// Runs every static analysis over `files`, pushing what it finds into `diags`
/// (which already holds what the parser found).
pub fn check_program(files: &[SourceFile], diags: &mut Diagnostics) -> types::Typed {
    let broken = broken_spans(diags);
    let symbols = Symbols::collect(files, diags);
    let typed = types::check(files, &symbols, diags);
    effects::check(files, &symbols, &typed, &broken, diags);
    structural::check(files, &symbols, &broken, diags);
    semantic::check(files, &symbols, diags);
    typed
}

/// Where the parser skipped source it could not read (E001, E002): the AST
/// lacks whatever was written there, so lints about what is *missing* (links,
/// buttons, elements) must not trust it.
fn broken_spans(diags: &Diagnostics) -> Vec<Span> {
    diags
        .as_slice()
        .iter()
        .filter(|d| matches!(d.code, Code::E001 | Code::E002))
        .map(|d| d.span)
        .collect()
}

/// Whether the declaration at `decl` holds one of the `broken` spans (the
/// parser skipped part of it).
pub(crate) fn is_incomplete(decl: &Span, broken: &[Span]) -> bool {
    broken
        .iter()
        .any(|b| b.file == decl.file && decl.start <= b.start && b.start <= decl.end)
}
