//! Layout marks: the few structural facts the formatter (`crate::format`)
//! cannot see in a flat token stream, read off pest's parse tree.
//!
//! The formatter only ever changes whitespace between tokens. To indent a line
//! it must know whether the line starts a new item of its block (an element, a
//! statement, a field, a declaration), a clause of the item above it (`writes`,
//! `where`, `order by`), or continues an expression; to space a line it must
//! know which `(` opens a parenthesised expression rather than an argument list,
//! which `[` indexes and which `-` negates. Every mark is the byte offset where
//! the construct starts, which is always the start of one of its tokens.

use super::{Rule, WsiteParser, DETAIL_SWITCH};
use pest::Parser;
use std::collections::{HashMap, HashSet};

/// Byte offsets of the constructs the formatter lays out specially.
#[derive(Debug, Default)]
pub(crate) struct LayoutMarks {
    /// Constructs that begin a line at their block's indentation: declarations,
    /// block items, fields, rows, parameters, enum variants, `else` of an `if`.
    pub items: HashSet<usize>,
    /// The items that are set two spaces apart when several share a line
    /// without a comma between them (`{ name: Text  email: Text }`).
    pub spaced: HashSet<usize>,
    /// Clauses that continue the item above them, with how many levels deeper
    /// than the item they go: a marker's `reads`, `writes` and `requires`,
    /// `where`, `order by`, `limit`, `offset`, a select's `from` and `show`, a
    /// page's `at` and `guard`s, a task's `for` template, a table's `max` (one level); the
    /// `where` and `limit` of a task's template (two, clear of the task body).
    pub clauses: HashMap<usize, usize>,
    /// Words that open a body, like a `{` on a line of its own: an extern
    /// marker's `default`.
    pub bodies: HashSet<usize>,
    /// `(` that opens a parenthesised expression; every other `(` hugs the
    /// name before it (`f(x)`, `count(b in Book)`, `marker m(x: T)`).
    pub parens: HashSet<usize>,
    /// `[` that indexes (`Book[1]`); every other `[` opens a list.
    pub indexes: HashSet<usize>,
    /// `-` that negates (`-1`); every other `-` subtracts.
    pub negs: HashSet<usize>,
}

/// The layout marks of `text`, or `None` when pest cannot parse it at all.
/// Call it only on text the parser accepted: its nesting has been checked.
pub(crate) fn layout_marks(text: &str) -> Option<LayoutMarks> {
    let pairs = {
        let _detail = DETAIL_SWITCH
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        pest::set_error_detail(false);
        WsiteParser::parse(Rule::file, text).ok()?
    };
    let mut marks = LayoutMarks::default();
    // (pair, its parent's rule, whether it is an enum variant, the clause
    // depth of the clauses around it within its item)
    let mut stack: Vec<_> = pairs.map(|p| (p, Rule::file, false, 0)).collect();
    while let Some((pair, parent, variant, depth)) = stack.pop() {
        let at = pair.as_span().start();
        let rule = pair.as_rule();
        let mut inner_depth = depth;
        match rule {
            Rule::decl
            | Rule::module_header
            | Rule::site_item
            | Rule::field_decl
            | Rule::seed_row
            | Rule::field_init
            | Rule::session_var
            | Rule::element
            | Rule::stmt
            | Rule::task_item
            | Rule::progress_entry => {
                marks.items.insert(at);
                marks.spaced.insert(at);
                inner_depth = 0;
            }
            Rule::module_param | Rule::param | Rule::use_bind | Rule::key_node => {
                marks.items.insert(at);
                inner_depth = 0;
            }
            Rule::ident if variant => {
                marks.items.insert(at);
            }
            Rule::k_else if matches!(parent, Rule::if_el | Rule::if_stmt) => {
                marks.items.insert(at);
            }
            Rule::reads_clause
            | Rule::writes_clause
            | Rule::requires_clause
            | Rule::where_clause
            | Rule::order_clause
            | Rule::limit_clause
            | Rule::offset_clause
            | Rule::page_guard
            | Rule::disabled_when
            | Rule::select_from
            | Rule::page_route
            | Rule::table_max => {
                marks.clauses.insert(at, depth + 1);
            }
            Rule::task_template => {
                marks.clauses.insert(at, depth + 1);
                inner_depth = depth + 1;
            }
            Rule::k_default if parent == Rule::marker_decl => {
                marks.bodies.insert(at);
            }
            Rule::k_show if parent == Rule::select_from => {
                marks.clauses.insert(at, depth + 1);
            }
            Rule::paren
            | Rule::arg_list
            | Rule::list_lit
            | Rule::index
            | Rule::count_expr
            | Rule::agg_expr => {
                inner_depth = 0;
                match rule {
                    Rule::paren => {
                        marks.parens.insert(at);
                    }
                    Rule::index => {
                        marks.indexes.insert(at);
                    }
                    _ => {}
                }
            }
            Rule::neg => {
                marks.negs.insert(at);
            }
            _ => {}
        }
        // An enum's children are its keyword, its name, then the variants.
        for (i, child) in pair.into_inner().enumerate() {
            let variant = rule == Rule::enum_decl && i >= 2;
            stack.push((child, rule, variant, inner_depth));
        }
    }
    Some(marks)
}
