//! Semantic lints (in progress).
use super::Symbols;
use crate::diagnostics::Diagnostics;
use crate::syntax::ast::SourceFile;

pub fn check(_files: &[SourceFile], _symbols: &Symbols<'_>, _diags: &mut Diagnostics) {}
