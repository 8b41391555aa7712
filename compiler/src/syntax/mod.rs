//! Syntax: the pest grammar (`grammar/wsite.pest`), the AST, and the hand-written
//! walk from pest's pairs into the AST with error recovery. Pest types never leave
//! this module.

pub mod ast;
pub mod foreign;
pub mod parser;

pub use parser::parse_file;
