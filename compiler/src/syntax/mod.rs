//! Syntax: the pest grammar (`grammar/wsite.pest`), the AST, the hand-written
//! walk from pest's pairs into the AST with error recovery, and the visitor
//! ([`visit`]) that the analyses share to walk the AST. Pest types never leave
//! this module. Below the parser and the foreign-spelling hints
//! ([`foreign`]) sits `lexical`, the line-level facts both need. `objects`
//! names what a file declares for the diagnostics report.

pub mod ast;
pub mod foreign;
mod lexical;
mod objects;
pub mod parser;
pub mod visit;

pub use parser::parse_file;
