//! Effect checking (in progress).
use super::{types::Typed, Symbols};
use crate::diagnostics::Diagnostics;
use crate::syntax::ast::SourceFile;

pub fn check(_files: &[SourceFile], _symbols: &Symbols<'_>, _typed: &Typed, _diags: &mut Diagnostics) {}
