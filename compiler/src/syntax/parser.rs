//! Walks pest's parse tree into the AST (in progress).
use super::ast::*;
use crate::diagnostics::Diagnostics;

pub fn parse_file(file: FileId, _text: &str, _next_expr: &mut u32, _diags: &mut Diagnostics) -> SourceFile {
    SourceFile { file, module: None, decls: Vec::new() }
}
