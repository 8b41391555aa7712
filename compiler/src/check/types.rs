//! Name resolution and type checking (in progress).
use super::Symbols;
use crate::diagnostics::Diagnostics;
use crate::syntax::ast::SourceFile;

/// What type checking learned, for later passes.
#[derive(Default)]
pub struct Typed {}

pub fn check(_files: &[SourceFile], _symbols: &Symbols<'_>, _diags: &mut Diagnostics) -> Typed {
    Typed {}
}
