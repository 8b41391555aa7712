//! The walk from pest's parse tree into the AST, with error recovery.
//!
//! pest matches the grammar (`grammar/wsite.pest`); this module turns its pairs
//! into [`ast`](super::ast) nodes by hand (prisma's approach), validates literal
//! bodies (money decimals, real dates and times, escapes) and turns the grammar's
//! recovery rules into diagnostics: a `bad_*` chunk becomes one E001 whose message
//! comes from re-parsing that spot with the rule that was expected there, and a
//! `missing_close` becomes "missing `}`". Nothing here panics on any input: an
//! unexpected tree shape yields an `Error` expression, never an unwrap.

use super::ast::*;
use super::lexical::comment_start;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use pest::iterators::Pair;
use pest::Parser;
use wsite_runtime::value::{Date, LiteralError, Money, Time};

mod decls;
mod errors;
mod exprs;
mod layout;
mod literals;
mod markers;
mod pages;
mod tasks;

use errors::*;
pub(crate) use layout::{layout_marks, LayoutMarks};

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/wsite.pest"]
struct WsiteParser;

/// Serialises parses so each controls pest's error-detail switch alone.
static DETAIL_SWITCH: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Bracket nesting deeper than this is refused before parsing: it is never
/// needed, and it would otherwise let hostile input exhaust the stack.
const MAX_NESTING: usize = 200;

/// Parses one file. Always returns a (possibly partial) AST; every problem goes
/// into `diags`. `next_expr` numbers expressions uniquely across files.
pub fn parse_file(
    file: FileId,
    text: &str,
    next_expr: &mut u32,
    diags: &mut Diagnostics,
) -> SourceFile {
    // pest's "error detail" (literal tokens in errors, see `Walker::pest_error`)
    // is one process-wide switch and doubles the cost of a parse. The clean parse
    // runs without it and only the re-parse of a bad chunk turns it on; holding
    // this lock for the whole walk keeps other threads from flipping it between.
    let _detail = DETAIL_SWITCH
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    pest::set_error_detail(false);
    let mut walker = Walker {
        file,
        text,
        first_expr: *next_expr,
        next_expr,
        diags,
        depths: Vec::new(),
        depth_reported: false,
    };
    if let Some(at) = too_deep(text) {
        walker.diags.push(
            Diagnostic::new(
                Code::E001,
                Span::new(file, at, at + 1),
                "brackets nested too deeply",
            )
            .label(format!("more than {MAX_NESTING} levels open here"))
            .help("split the expression or block into smaller pieces"),
        );
        return SourceFile {
            file,
            module: None,
            decls: Vec::new(),
        };
    }
    match WsiteParser::parse(Rule::file, text) {
        Ok(mut pairs) => match pairs.next() {
            Some(root) => walker.file(root),
            None => SourceFile {
                file,
                module: None,
                decls: Vec::new(),
            },
        },
        Err(err) => {
            // `file` accepts any input through `bad_top`; this is a safety net.
            let diag = walker.pest_error(err, 0);
            walker.diags.push(diag);
            SourceFile {
                file,
                module: None,
                decls: Vec::new(),
            }
        }
    }
}

/// The offset where bracket nesting first exceeds [`MAX_NESTING`], if it does.
fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut in_comment = false;
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate() {
        if in_comment {
            in_comment = b != b'\n';
            continue;
        }
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' | b'\n' => in_string = false,
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'/' if text.as_bytes().get(i + 1) == Some(&b'/') => in_comment = true,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if depth > MAX_NESTING {
            return Some(i);
        }
    }
    None
}

struct Walker<'t, 'd> {
    file: FileId,
    text: &'t str,
    next_expr: &'d mut u32,
    diags: &'d mut Diagnostics,
    /// Nesting depth of every expression built so far, by `ExprId` (from this
    /// file's first id), to cap it at [`MAX_EXPR_DEPTH`].
    depths: Vec<u16>,
    first_expr: u32,
    depth_reported: bool,
}

/// Expressions nest deeper than brackets show (`1 + 1 + ...` is a left-deep
/// tree). Later passes recurse over them, so a depth no real program needs is cut
/// off here, as one E001, before it can exhaust a stack.
const MAX_EXPR_DEPTH: u16 = 256;

type P<'t> = Pair<'t, Rule>;

impl<'t> Walker<'t, '_> {
    /// The pair's span without the whitespace and comments pest lets a rule
    /// swallow when it ends in an optional part that did not match.
    pub(super) fn span(&self, pair: &P<'t>) -> Span {
        let s = pair.as_span();
        Span::new(
            self.file,
            s.start(),
            trim_layout_end(self.text, s.start(), s.end()),
        )
    }

    /// The identifier in `pair`, or an empty one at `span` when recovery left a
    /// hole (the parser has reported it).
    pub(super) fn ident_or(&self, pair: Option<P<'t>>, span: Span) -> Ident {
        pair.map(|p| self.ident(&p))
            .unwrap_or_else(|| missing_ident(span))
    }

    /// The type in `pair`, or an empty one at `span`.
    pub(super) fn type_or(&mut self, pair: Option<P<'t>>, span: Span) -> TypeExpr {
        pair.map(|p| self.type_expr(p))
            .unwrap_or_else(|| missing_type(span))
    }

    pub(super) fn ident(&self, pair: &P<'t>) -> Ident {
        Ident {
            name: pair.as_str().to_string(),
            span: self.span(pair),
        }
    }

    pub(super) fn expr_node(&mut self, kind: ExprKind, span: Span) -> Expr {
        let depth = 1 + kind
            .children()
            .iter()
            .map(|c| self.depth_of(c.id))
            .max()
            .unwrap_or(0);
        let (kind, depth) = if depth > MAX_EXPR_DEPTH {
            self.too_deep_expr(span);
            (ExprKind::Error, 1)
        } else {
            (kind, depth)
        };
        let id = ExprId(*self.next_expr);
        *self.next_expr = self.next_expr.saturating_add(1);
        self.depths.push(depth);
        Expr { id, kind, span }
    }

    fn depth_of(&self, id: ExprId) -> u16 {
        let index = id.0.wrapping_sub(self.first_expr) as usize;
        self.depths.get(index).copied().unwrap_or(1)
    }

    fn too_deep_expr(&mut self, span: Span) {
        if std::mem::replace(&mut self.depth_reported, true) {
            return;
        }
        self.diags.push(
            Diagnostic::new(Code::E001, span, "expression nested too deeply")
                .label(format!("more than {MAX_EXPR_DEPTH} operators deep"))
                .help("split it with `let` or simplify the condition"),
        );
    }

    pub(super) fn error_expr(&mut self, span: Span) -> Expr {
        self.expr_node(ExprKind::Error, span)
    }

    /// Doc comment lines (`/// ...`) directly above `offset`.
    pub(super) fn doc_above(&self, offset: usize) -> Option<String> {
        let before = self.text.get(..offset)?;
        // The lines above the one holding `offset`, which may start with the
        // declaration (at column 0 `before` ends in the line break) or with
        // blanks.
        let above = before.rfind('\n').map_or("", |at| &before[..at]);
        let mut lines: Vec<&str> = Vec::new();
        for line in above.split('\n').rev() {
            let t = line.trim_start();
            match t.strip_prefix("///") {
                Some(rest) => lines.push(rest.strip_prefix(' ').unwrap_or(rest).trim_end()),
                None => break,
            }
        }
        if lines.is_empty() {
            return None;
        }
        lines.reverse();
        Some(lines.join("\n"))
    }
}

/// Moves `end` back over trailing whitespace and `//` comments (never before
/// `start`). A `//` inside a string on the same line is not a comment.
pub(super) fn trim_layout_end(text: &str, start: usize, end: usize) -> usize {
    let mut end = end.min(text.len());
    loop {
        let Some(slice) = text.get(start..end) else {
            return end;
        };
        let trimmed = start + slice.trim_end().len();
        // Search only the span itself: a long line must not make every span on
        // it cost the whole line.
        let line_start = text
            .get(start..trimmed)
            .and_then(|t| t.rfind('\n'))
            .map_or(start, |i| start + i + 1);
        match text.get(line_start..trimmed).and_then(comment_start) {
            Some(at) if line_start + at > start => end = line_start + at,
            _ => return trimmed,
        }
    }
}

pub(super) fn missing_ident(span: Span) -> Ident {
    Ident {
        name: String::new(),
        span,
    }
}

pub(super) fn missing_type(span: Span) -> TypeExpr {
    TypeExpr {
        name: missing_ident(span),
        optional: false,
        span,
    }
}

pub(super) fn missing_ref(span: Span) -> PageRef {
    PageRef {
        name: missing_ident(span),
        args: Vec::new(),
        has_parens: false,
        span,
    }
}

pub(super) fn empty_text(span: Span) -> TextLit {
    TextLit {
        parts: Vec::new(),
        span,
    }
}
#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (SourceFile, Vec<crate::diagnostics::Diagnostic>) {
        let mut diags = Diagnostics::default();
        let mut next = 0;
        let file = parse_file(FileId(0), text, &mut next, &mut diags);
        (file, diags.into_sorted())
    }

    #[test]
    fn parses_a_page_with_elements() {
        let (file, diags) = parse(
            "page ProductPage(p: Product) at \"/product/{p.id}\" {\n  title \"{p.name}\"\n  button #add \"Add\" -> add_to_cart(p, 1) disabled when p.stock == 0\n  link \"Cart\" -> Cart\n}\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        let DeclKind::Page(page) = &file.decls[0].kind else {
            panic!("not a page")
        };
        assert_eq!(page.name.name, "ProductPage");
        assert_eq!(page.titles.len(), 1);
        assert_eq!(page.body.len(), 2);
        let ElementKind::Button {
            target, disabled, ..
        } = &page.body[0].kind
        else {
            panic!("not a button")
        };
        assert_eq!(target.name.name, "add_to_cart");
        assert_eq!(target.args.len(), 2);
        assert!(disabled.is_some());
        assert_eq!(
            page.body[0].name.as_ref().map(|n| n.name.as_str()),
            Some("add")
        );
    }

    #[test]
    fn precedence_binds_and_tighter_than_or() {
        let (file, diags) = parse("invariant i: a or b and not c == 1 + 2 * 3\n");
        assert!(diags.is_empty(), "{diags:?}");
        let DeclKind::Invariant(inv) = &file.decls[0].kind else {
            panic!()
        };
        let ExprKind::Binary(BinaryOp::Or, _, rhs) = &inv.cond.kind else {
            panic!("{:?}", inv.cond.kind)
        };
        let ExprKind::Binary(BinaryOp::And, _, not) = &rhs.kind else {
            panic!()
        };
        let ExprKind::Unary(UnaryOp::Not, cmp) = &not.kind else {
            panic!()
        };
        let ExprKind::Binary(BinaryOp::Eq, _, sum) = &cmp.kind else {
            panic!()
        };
        let ExprKind::Binary(BinaryOp::Add, _, prod) = &sum.kind else {
            panic!()
        };
        assert!(matches!(prod.kind, ExprKind::Binary(BinaryOp::Mul, _, _)));
    }

    /// Renders an expression tree fully parenthesised, to compare shapes.
    fn shape(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Binary(op, a, b) => format!("({} {} {})", shape(a), op.symbol(), shape(b)),
            ExprKind::In(a, b) => format!("({} in {})", shape(a), shape(b)),
            ExprKind::Unary(UnaryOp::Not, a) => format!("(not {})", shape(a)),
            ExprKind::Unary(UnaryOp::Neg, a) => format!("(-{})", shape(a)),
            ExprKind::Field(a, f) => format!("{}.{}", shape(a), f.name),
            ExprKind::Name(n) => n.name.clone(),
            ExprKind::Int(v) => v.to_string(),
            ExprKind::List(items) => format!(
                "[{}]",
                items.iter().map(shape).collect::<Vec<_>>().join(", ")
            ),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn else_if_chains_nest_in_the_else_branch() {
        let (file, diags) = parse(
            "page A {\n  if a { text \"1\" } else if b { text \"2\" } else { text \"3\" text \"4\" }\n}\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        let DeclKind::Page(page) = &file.decls[0].kind else {
            panic!()
        };
        let ElementKind::If {
            then, otherwise, ..
        } = &page.body[0].kind
        else {
            panic!()
        };
        assert_eq!(then.len(), 1);
        assert_eq!(otherwise.len(), 1);
        let ElementKind::If {
            then, otherwise, ..
        } = &otherwise[0].kind
        else {
            panic!()
        };
        assert_eq!((then.len(), otherwise.len()), (1, 2));
    }

    #[test]
    fn precedence_and_associativity() {
        let cases = [
            ("a - b - c", "((a - b) - c)"),
            ("-a * b", "((-a) * b)"),
            ("- a.b", "(-a.b)"),
            ("not a == b and c", "((not (a == b)) and c)"),
            ("not not a or b", "((not (not a)) or b)"),
            ("x in [1, 2] and y is z", "((x in [1, 2]) and (y == z))"),
            ("a % b * c + d / e", "(((a % b) * c) + (d / e))"),
            ("a < b == c", "((a < b) == c)"),
        ];
        for (src, want) in cases {
            let (file, diags) = parse(&format!("invariant i: {src}\n"));
            assert!(diags.is_empty(), "{src}: {diags:?}");
            let DeclKind::Invariant(inv) = &file.decls[0].kind else {
                panic!()
            };
            assert_eq!(shape(&inv.cond), want, "{src}");
        }
    }

    #[test]
    fn one_bad_line_gives_one_diagnostic_and_the_rest_parses() {
        let (file, diags) = parse("page A {\n  text \"ok\"\n  link \"x\" => B\n  text \"still here\"\n}\npage B { link \"a\" -> A }\n");
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].code, Code::E001);
        assert_eq!(file.decls.len(), 2);
        let DeclKind::Page(a) = &file.decls[0].kind else {
            panic!()
        };
        assert_eq!(a.body.len(), 2);
    }

    #[test]
    fn missing_brace_is_reported_and_the_next_declaration_survives() {
        let (file, diags) = parse("page A {\n  text \"ok\"\n\npage B { link \"a\" -> A }\n");
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(diags[0].message.contains("`}`"), "{}", diags[0].message);
        assert_eq!(file.decls.len(), 2);
    }

    #[test]
    fn literals_are_validated() {
        let (_, diags) =
            parse("invariant i: $1.999 == $2 and @2026-13-01 == @2026-02-30 and @25:00 == @x\n");
        let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            vec![Code::E003, Code::E003, Code::M202, Code::E003, Code::E003],
            "{diags:?}"
        );
    }

    #[test]
    fn unterminated_string_is_e002_and_parsing_continues() {
        let (file, diags) = parse("page A {\n  text \"oops\n  link \"a\" -> A\n}\n");
        assert_eq!(
            diags.iter().map(|d| d.code).collect::<Vec<_>>(),
            vec![Code::E002],
            "{diags:?}"
        );
        let DeclKind::Page(a) = &file.decls[0].kind else {
            panic!()
        };
        assert_eq!(a.body.len(), 2);
    }

    #[test]
    fn interpolations_and_escapes() {
        let (file, diags) = parse("invariant i: \"a \\\"b\\\" {x.y} \\{c\\}\" == \"\"\n");
        assert!(diags.is_empty(), "{diags:?}");
        let DeclKind::Invariant(inv) = &file.decls[0].kind else {
            panic!()
        };
        let ExprKind::Binary(_, lhs, _) = &inv.cond.kind else {
            panic!()
        };
        let ExprKind::Text(t) = &lhs.kind else {
            panic!()
        };
        assert_eq!(t.plain(), "a \"b\"  {c}");
        assert_eq!(t.interpolations().count(), 1);
    }

    #[test]
    fn spans_do_not_swallow_trailing_layout() {
        let text = "marker m() writes T.f   // why\n  { delete x   // gone\n }\n";
        let (file, _) = parse(text);
        let DeclKind::Marker(m) = &file.decls[0].kind else {
            panic!()
        };
        assert_eq!(&text[m.writes[0].span.range()], "T.f");
        assert_eq!(&text[m.body[0].span.range()], "delete x");
        assert_eq!(trim_layout_end("a \"//x\" // c\n", 0, 13), 7);
    }

    #[test]
    fn doc_comments_attach_at_any_indentation() {
        for text in [
            "/// A shop.\n/// Second line.  \nenum E { a }\n",
            "/// A shop.\r\n/// Second line.\r\n  enum E { a }\n",
        ] {
            let (file, diags) = parse(text);
            assert!(diags.is_empty(), "{diags:?}");
            assert_eq!(
                file.decls[0].doc.as_deref(),
                Some("A shop.\nSecond line."),
                "{text:?}"
            );
        }
        let (file, _) = parse("/// Not this one.\n\nenum E { a }\n");
        assert_eq!(file.decls[0].doc, None);
    }

    #[test]
    fn deep_nesting_is_refused_without_overflow() {
        let text = format!("invariant i: {}1{}\n", "(".repeat(5000), ")".repeat(5000));
        let (_, diags) = parse(&text);
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.contains("nested too deeply"));
    }
}
