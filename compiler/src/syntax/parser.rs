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
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use pest::iterators::Pair;
use pest::Parser;
use wsite_runtime::value::{Date, LiteralError, Money, Time};

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/wsite.pest"]
struct WsiteParser;

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
    // Track literal tokens in errors too (see `Walker::pest_error`). Set on every
    // call, never cleared, so every parse in the process reports alike.
    pest::set_error_detail(true);
    let mut walker = Walker {
        file,
        text,
        next_expr,
        diags,
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
}

type P<'t> = Pair<'t, Rule>;

impl<'t> Walker<'t, '_> {
    // ------------------------------------------------------------ helpers

    /// The pair's span without the whitespace and comments pest lets a rule
    /// swallow when it ends in an optional part that did not match.
    fn span(&self, pair: &P<'t>) -> Span {
        let s = pair.as_span();
        Span::new(
            self.file,
            s.start(),
            trim_layout_end(self.text, s.start(), s.end()),
        )
    }

    fn ident(&self, pair: &P<'t>) -> Ident {
        Ident {
            name: pair.as_str().to_string(),
            span: self.span(pair),
        }
    }

    fn expr_node(&mut self, kind: ExprKind, span: Span) -> Expr {
        let id = ExprId(*self.next_expr);
        *self.next_expr = self.next_expr.saturating_add(1);
        Expr { id, kind, span }
    }

    fn error_expr(&mut self, span: Span) -> Expr {
        self.expr_node(ExprKind::Error, span)
    }

    /// Doc comment lines (`/// ...`) directly above `offset`.
    fn doc_above(&self, offset: usize) -> Option<String> {
        let before = self.text.get(..offset)?;
        let mut lines: Vec<&str> = Vec::new();
        for line in before.lines().rev().skip(1) {
            let t = line.trim_start();
            match t.strip_prefix("///") {
                Some(rest) => lines.push(rest.strip_prefix(' ').unwrap_or(rest)),
                None => break,
            }
        }
        // The line holding `offset` itself may start with the declaration; the
        // doc lines are the ones above it.
        if lines.is_empty() {
            return None;
        }
        lines.reverse();
        Some(lines.join("\n"))
    }

    // ------------------------------------------------------------ errors

    /// Turns a pest error from a parse that began at `base` into an E001.
    ///
    /// pest's own position is that of the last *rule* it tried, which after a
    /// complete string is the string's insides. With error detail on it also
    /// tracks literal tokens (`:`, `->`, `}`), and the farthest of those is where
    /// the input really went wrong.
    fn pest_error(&self, err: pest::error::Error<Rule>, base: usize) -> Diagnostic {
        use pest::error::{ErrorVariant, InputLocation};
        let rule_pos = match err.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((p, _)) => p,
        };
        let positives: Vec<Rule> = match &err.variant {
            ErrorVariant::ParsingError { positives, .. } => positives.clone(),
            ErrorVariant::CustomError { .. } => Vec::new(),
        };
        let positives: Vec<Rule> = positives
            .into_iter()
            .filter(|r| !is_text_inner(*r))
            .collect();
        let (pos, mut labels) = (rule_pos, describe_rules(&positives));
        let (pos, labels) = match err.parse_attempts() {
            Some(attempts) if attempts.max_position > pos => (
                attempts.max_position,
                token_labels(&attempts.expected_tokens()),
            ),
            Some(attempts) if attempts.max_position == pos => {
                labels.extend(token_labels(&attempts.expected_tokens()));
                (pos, labels)
            }
            _ => (pos, labels),
        };
        self.unexpected_at(base + pos, &join_labels(labels))
    }

    /// E001 "expected X, found Y" pointing at the token at `pos`.
    fn unexpected_at(&self, pos: usize, expected: &str) -> Diagnostic {
        let (start, end, found) = token_at(self.text, pos);
        let message = if expected.is_empty() {
            format!("unexpected {found}")
        } else {
            format!("expected {expected}, found {found}")
        };
        Diagnostic::new(Code::E001, Span::new(self.file, start, end), message)
            .label("unexpected here")
    }

    /// A recovery chunk: re-parse it with `rule` to learn what was expected.
    fn bad_chunk(&mut self, pair: &P<'t>, rule: Option<Rule>, what: &str) {
        let start = pair.as_span().start();
        let sub = self.text.get(start..).unwrap_or("");
        let diag = match rule.map(|r| WsiteParser::parse(r, sub)) {
            Some(Err(err)) => self.pest_error(err, start),
            _ => self.unexpected_at(start, what),
        };
        let diag = if diag.message.starts_with("unexpected") && !what.is_empty() {
            diag.help(format!("this line should be {what}"))
        } else {
            diag
        };
        self.diags.push(diag);
    }

    /// `missing_close`: a block ran into the next declaration or the file's end.
    fn missing_close(&mut self, pair: &P<'t>, closer: &str, owner: &str, owner_span: Span) {
        let pos = pair.as_span().start();
        let (start, end, found) = token_at(self.text, pos);
        self.diags.push(
            Diagnostic::new(
                Code::E001,
                Span::new(self.file, start, end),
                format!("expected `{closer}`, found {found}"),
            )
            .label(format!("`{owner}` is not closed before this"))
            .related(owner_span, format!("`{owner}` starts here"))
            .help(format!("add `{closer}` at the end of `{owner}`")),
        );
    }

    fn check_close(&mut self, pair: &P<'t>, closer: &str, owner: &str, owner_span: Span) {
        if let Some(inner) = pair.clone().into_inner().next() {
            if inner.as_rule() == Rule::missing_close {
                self.missing_close(&inner, closer, owner, owner_span);
            }
        }
    }

    // ------------------------------------------------------------ file

    fn file(&mut self, root: P<'t>) -> SourceFile {
        let mut out = SourceFile {
            file: self.file,
            module: None,
            decls: Vec::new(),
        };
        for pair in root.into_inner() {
            match pair.as_rule() {
                Rule::module_header => out.module = Some(self.module_header(pair)),
                Rule::decl => {
                    if let Some(d) = self.decl(pair) {
                        out.decls.push(d);
                    }
                }
                Rule::bad_top => self.bad_chunk(&pair, Some(Rule::decl_only), "a declaration"),
                _ => {}
            }
        }
        out
    }

    fn module_header(&mut self, pair: P<'t>) -> ModuleHeader {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().filter(|p| p.as_rule() != Rule::k_module);
        let name = inner
            .next()
            .map(|p| self.ident(&p))
            .unwrap_or_else(|| missing_ident(span));
        let params = inner
            .filter(|p| p.as_rule() == Rule::module_param)
            .map(|p| {
                let mut parts = p.into_inner();
                let name = parts
                    .next()
                    .map(|n| self.ident(&n))
                    .unwrap_or_else(|| missing_ident(span));
                let fields = parts
                    .filter(|f| f.as_rule() == Rule::field_decl)
                    .map(|f| self.field_decl(f))
                    .collect();
                ModuleParam { name, fields }
            })
            .collect();
        ModuleHeader { name, params, span }
    }

    fn decl(&mut self, pair: P<'t>) -> Option<Decl> {
        let span = self.span(&pair);
        let doc = self.doc_above(span.start as usize);
        let inner = pair.into_inner().next()?;
        let kind = match inner.as_rule() {
            Rule::use_decl => DeclKind::Use(self.use_decl(inner)),
            Rule::site_decl => DeclKind::Site(self.site_decl(inner)),
            Rule::enum_decl => DeclKind::Enum(self.enum_decl(inner)),
            Rule::table_decl => DeclKind::Table(self.table_decl(inner)),
            Rule::seed_decl => DeclKind::Seed(self.seed_decl(inner)),
            Rule::session_decl => DeclKind::Session(self.session_decl(inner)),
            Rule::invariant_decl => DeclKind::Invariant(self.invariant_decl(inner)),
            Rule::page_decl => DeclKind::Page(self.page_decl(inner)),
            Rule::marker_decl => DeclKind::Marker(self.marker_decl(inner)),
            Rule::task_decl => DeclKind::Task(self.task_decl(inner)),
            _ => return None,
        };
        Some(Decl { doc, kind, span })
    }

    fn use_decl(&mut self, pair: P<'t>) -> UseDecl {
        let mut target = UseTarget::Std(Vec::new());
        let mut bindings = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::std_path => {
                    target = UseTarget::Std(
                        p.into_inner()
                            .filter(|x| x.as_rule() == Rule::ident)
                            .map(|x| self.ident(&x))
                            .collect(),
                    )
                }
                Rule::text_lit => {
                    let lit = self.text_lit(p);
                    target = UseTarget::File(lit.plain(), lit.span);
                }
                Rule::use_binds => {
                    for b in p.into_inner() {
                        let mut parts = b.into_inner();
                        if let (Some(a), Some(t)) = (parts.next(), parts.next()) {
                            bindings.push((self.ident(&a), self.ident(&t)));
                        }
                    }
                }
                _ => {}
            }
        }
        UseDecl { target, bindings }
    }

    fn site_decl(&mut self, pair: P<'t>) -> SiteDecl {
        let body_span = self.span(&pair);
        let mut site = SiteDecl {
            name: missing_ident(body_span),
            title: None,
            domain: None,
            start: None,
            today: None,
            body_span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => site.name = self.ident(&p),
                Rule::site_item => self.site_item(p, &mut site),
                Rule::bad_in_braces => self.bad_chunk(
                    &p,
                    Some(Rule::site_item),
                    "a site item (`title`, `domain`, `start` or `today`)",
                ),
                Rule::close_brace => {
                    let owner = format!("site {}", site.name.name);
                    self.check_close(&p, "}", &owner, site.name.span)
                }
                _ => {}
            }
        }
        for (missing, item) in [
            (site.title.is_none(), "title"),
            (site.domain.is_none(), "domain"),
            (site.start.is_none(), "start"),
        ] {
            if missing {
                self.diags.push(
                    Diagnostic::new(
                        Code::E001,
                        site.name.span,
                        format!("site `{}` has no `{item}`", site.name.name),
                    )
                    .help(format!("add `{item} ...` inside the site's braces")),
                );
            }
        }
        site
    }

    fn site_item(&mut self, pair: P<'t>, site: &mut SiteDecl) {
        let Some(item) = pair.into_inner().next() else {
            return;
        };
        let item_span = self.span(&item);
        let key = item.as_rule();
        let Some(value) = item.into_inner().nth(1) else {
            return;
        };
        let repeated = match key {
            Rule::site_title => site.title.replace(self.text_lit(value)).is_some(),
            Rule::site_domain => site.domain.replace(self.ident(&value)).is_some(),
            Rule::site_start => site.start.replace(self.page_ref(value)).is_some(),
            Rule::site_today => {
                let e = self.expr(value);
                site.today.replace(e).is_some()
            }
            _ => false,
        };
        if repeated {
            self.diags.push(
                Diagnostic::new(Code::E102, item_span, "site item given twice")
                    .label("this replaces an earlier value")
                    .help("keep one of them"),
            );
        }
    }

    fn enum_decl(&mut self, pair: P<'t>) -> EnumDecl {
        let span = self.span(&pair);
        let mut name = missing_ident(span);
        let mut variants = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident if name.name.is_empty() => name = self.ident(&p),
                Rule::ident => variants.push(self.ident(&p)),
                Rule::bad_in_braces => self.bad_chunk(&p, None, "a variant name"),
                Rule::close_brace => {
                    self.check_close(&p, "}", &format!("enum {}", name.name), name.span)
                }
                _ => {}
            }
        }
        EnumDecl { name, variants }
    }

    fn table_decl(&mut self, pair: P<'t>) -> TableDecl {
        let span = self.span(&pair);
        let mut table = TableDecl {
            name: missing_ident(span),
            max: None,
            fields: Vec::new(),
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => table.name = self.ident(&p),
                Rule::table_max => {
                    if let Some(n) = p.into_inner().nth(1) {
                        table.max = self.int_value(&n).map(|v| (v, self.span(&n)));
                    }
                }
                Rule::field_decl => table.fields.push(self.field_decl(p)),
                Rule::bad_in_braces => {
                    self.bad_chunk(&p, Some(Rule::field_decl), "a field like `name: Text`")
                }
                Rule::close_brace => self.check_close(
                    &p,
                    "}",
                    &format!("table {}", table.name.name),
                    table.name.span,
                ),
                _ => {}
            }
        }
        table
    }

    fn field_decl(&mut self, pair: P<'t>) -> FieldDecl {
        let span = self.span(&pair);
        let mut parts = pair.into_inner();
        let name = parts
            .next()
            .map(|p| self.ident(&p))
            .unwrap_or_else(|| missing_ident(span));
        let ty = parts
            .next()
            .map(|p| self.type_expr(p))
            .unwrap_or_else(|| missing_type(span));
        FieldDecl { name, ty }
    }

    fn type_expr(&mut self, pair: P<'t>) -> TypeExpr {
        let span = self.span(&pair);
        let mut parts = pair.into_inner();
        let name = parts
            .next()
            .map(|p| self.ident(&p))
            .unwrap_or_else(|| missing_ident(span));
        TypeExpr {
            name,
            optional: parts.next().is_some(),
            span,
        }
    }

    fn seed_decl(&mut self, pair: P<'t>) -> SeedDecl {
        let span = self.span(&pair);
        let mut seed = SeedDecl {
            table: missing_ident(span),
            rows: Vec::new(),
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => seed.table = self.ident(&p),
                Rule::seed_row => {
                    let row_span = self.span(&p);
                    let fields = p.into_inner().map(|f| self.field_init(f)).collect();
                    seed.rows.push(SeedRow {
                        fields,
                        span: row_span,
                    });
                }
                Rule::bad_in_brackets => {
                    self.bad_chunk(&p, Some(Rule::seed_row), "a row like `{ name: \"...\" }`")
                }
                Rule::close_bracket => self.check_close(
                    &p,
                    "]",
                    &format!("seed {}", seed.table.name),
                    seed.table.span,
                ),
                _ => {}
            }
        }
        seed
    }

    fn field_init(&mut self, pair: P<'t>) -> FieldInit {
        let span = self.span(&pair);
        let mut parts = pair.into_inner();
        let name = parts
            .next()
            .map(|p| self.ident(&p))
            .unwrap_or_else(|| missing_ident(span));
        let value = self.expr_opt(parts.next(), span);
        FieldInit { name, value }
    }

    fn session_decl(&mut self, pair: P<'t>) -> SessionDecl {
        let span = self.span(&pair);
        let mut vars = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::session_var => {
                    let vspan = self.span(&p);
                    let mut parts = p.into_inner();
                    let name = parts
                        .next()
                        .map(|x| self.ident(&x))
                        .unwrap_or_else(|| missing_ident(vspan));
                    let ty = parts
                        .next()
                        .map(|x| self.type_expr(x))
                        .unwrap_or_else(|| missing_type(vspan));
                    let init = self.expr_opt(parts.next(), vspan);
                    vars.push(SessionVar { name, ty, init });
                }
                Rule::bad_in_braces => self.bad_chunk(
                    &p,
                    Some(Rule::session_var),
                    "a variable like `user: User = User[1]`",
                ),
                Rule::close_brace => self.check_close(
                    &p,
                    "}",
                    "session",
                    Span {
                        end: span.start + 7,
                        ..span
                    },
                ),
                _ => {}
            }
        }
        SessionDecl { vars }
    }

    fn invariant_decl(&mut self, pair: P<'t>) -> InvariantDecl {
        let span = self.span(&pair);
        let mut parts = pair.into_inner().skip(1);
        let name = parts
            .next()
            .map(|p| self.ident(&p))
            .unwrap_or_else(|| missing_ident(span));
        let cond = self.expr_opt(parts.next(), span);
        InvariantDecl { name, cond }
    }

    fn params(&mut self, pair: P<'t>) -> Vec<Param> {
        pair.into_inner()
            .map(|p| {
                let span = self.span(&p);
                let mut parts = p.into_inner();
                let name = parts
                    .next()
                    .map(|x| self.ident(&x))
                    .unwrap_or_else(|| missing_ident(span));
                let ty = parts
                    .next()
                    .map(|x| self.type_expr(x))
                    .unwrap_or_else(|| missing_type(span));
                Param { name, ty }
            })
            .collect()
    }

    // ------------------------------------------------------------ pages

    fn page_decl(&mut self, pair: P<'t>) -> PageDecl {
        let span = self.span(&pair);
        let mut page = PageDecl {
            name: missing_ident(span),
            params: Vec::new(),
            route: None,
            titles: Vec::new(),
            body: Vec::new(),
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => page.name = self.ident(&p),
                Rule::param_list => page.params = self.params(p),
                Rule::page_route => page.route = p.into_inner().nth(1).map(|t| self.text_lit(t)),
                Rule::elements => page.body = self.elements(p, &mut page.titles),
                Rule::close_brace => {
                    self.check_close(&p, "}", &format!("page {}", page.name.name), page.name.span)
                }
                _ => {}
            }
        }
        page
    }

    fn elements(&mut self, pair: P<'t>, titles: &mut Vec<TextLit>) -> Vec<Element> {
        let mut out = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::element => {
                    if let Some(el) = self.element(p, titles) {
                        out.push(el);
                    }
                }
                Rule::bad_in_braces => {
                    self.bad_chunk(&p, Some(Rule::element_only), "a page element")
                }
                _ => {}
            }
        }
        out
    }

    fn element(&mut self, pair: P<'t>, titles: &mut Vec<TextLit>) -> Option<Element> {
        let span = self.span(&pair);
        let inner = pair.into_inner().next()?;
        let rule = inner.as_rule();
        let mut name = None;
        let mut texts: Vec<TextLit> = Vec::new();
        let mut idents: Vec<Ident> = Vec::new();
        let mut types: Vec<TypeExpr> = Vec::new();
        let mut exprs: Vec<Expr> = Vec::new();
        let mut target = None;
        let mut disabled = None;
        let mut body = Vec::new();
        let mut otherwise = Vec::new();
        let mut list = None;
        let mut from = None;
        let mut order = None;
        let mut limit = None;
        let mut filter = None;
        let mut closes = Vec::new();
        for p in inner.into_inner() {
            match p.as_rule() {
                Rule::el_name => {
                    let id = self.ident(&p);
                    name = Some(Ident {
                        name: id.name.trim_start_matches('#').to_string(),
                        span: id.span,
                    });
                }
                Rule::text_lit => texts.push(self.text_lit(p)),
                Rule::ident => idents.push(self.ident(&p)),
                Rule::type_expr => types.push(self.type_expr(p)),
                Rule::expr => exprs.push(self.expr(p)),
                Rule::page_ref => target = Some(self.page_ref(p)),
                Rule::disabled_when => disabled = p.into_inner().nth(2).map(|e| self.expr(e)),
                Rule::elements if body.is_empty() && closes.is_empty() => {
                    body = self.elements(p, titles)
                }
                Rule::elements => otherwise = self.elements(p, titles),
                Rule::if_el => {
                    // `else if`: the nested `if` is the whole else branch.
                    let wrapper_span = self.span(&p);
                    let nested = self.element_of(p, wrapper_span, titles);
                    otherwise.extend(nested);
                }
                Rule::list_lit => list = Some(p),
                Rule::select_from => from = Some(p),
                Rule::where_clause => filter = p.into_inner().nth(1).map(|e| self.expr(e)),
                Rule::order_clause => order = Some(self.order_clause(p)),
                Rule::limit_clause => limit = p.into_inner().nth(1).map(|e| self.expr(e)),
                Rule::close_brace => closes.push(p),
                Rule::let_stmt
                | Rule::insert_stmt
                | Rule::set_stmt
                | Rule::delete_all_stmt
                | Rule::delete_stmt => {
                    let stmt = self.stmt_inner(p)?;
                    return Some(Element {
                        name,
                        kind: ElementKind::Stmt(stmt),
                        span,
                    });
                }
                _ => {}
            }
        }
        let owner = rule_owner(rule);
        for c in &closes {
            self.check_close(
                c,
                "}",
                owner,
                Span {
                    end: span.start + owner.len() as u32,
                    ..span
                },
            );
        }
        let label = texts.first().cloned().unwrap_or_else(|| empty_text(span));
        let kind = match rule {
            Rule::title_el => {
                titles.push(label);
                return None;
            }
            Rule::heading_el => ElementKind::Heading(label),
            Rule::text_el => ElementKind::Text(label),
            Rule::image_el => ElementKind::Image(label),
            Rule::link_el => ElementKind::Link {
                label,
                target: target.unwrap_or_else(|| missing_ref(span)),
                disabled,
            },
            Rule::button_el => ElementKind::Button {
                label,
                target: target.unwrap_or_else(|| missing_ref(span)),
                disabled,
            },
            Rule::input_el => ElementKind::Input {
                var: idents
                    .first()
                    .cloned()
                    .unwrap_or_else(|| missing_ident(span)),
                ty: types.pop(),
                label,
            },
            Rule::checkbox_el => ElementKind::Checkbox {
                var: idents
                    .first()
                    .cloned()
                    .unwrap_or_else(|| missing_ident(span)),
                label,
            },
            Rule::select_el => self.select_kind(span, idents, types, label, list, from),
            Rule::section_el => ElementKind::Section { label, body },
            Rule::for_el => {
                let binder = idents
                    .first()
                    .cloned()
                    .unwrap_or_else(|| missing_ident(span));
                let source = match (list, idents.get(1)) {
                    (Some(l), _) => {
                        let lspan = self.span(&l);
                        LoopSource::List(self.list_items(l), lspan)
                    }
                    (None, Some(t)) => LoopSource::Table(t.clone()),
                    (None, None) => LoopSource::Table(missing_ident(span)),
                };
                ElementKind::For(ForElement {
                    binder,
                    source,
                    filter,
                    order,
                    limit,
                    body,
                })
            }
            Rule::if_el => {
                let cond = exprs
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| self.error_expr(span));
                ElementKind::If {
                    cond,
                    then: body,
                    otherwise,
                }
            }
            _ => return None,
        };
        Some(Element { name, kind, span })
    }

    /// Walks an `if_el` pair that appears as an `else if` branch.
    fn element_of(
        &mut self,
        pair: P<'t>,
        span: Span,
        titles: &mut Vec<TextLit>,
    ) -> Option<Element> {
        // Wrap the `if_el` as if it were an `element` so `element` can walk it.
        let text = self.text;
        let sub = text.get(span.range()).unwrap_or("");
        let _ = sub;
        // pest cannot re-wrap a pair, so walk the `if_el` children directly.
        let mut cond = None;
        let mut then = Vec::new();
        let mut otherwise = Vec::new();
        let mut seen_then = false;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => cond = Some(self.expr(p)),
                Rule::elements if !seen_then => {
                    then = self.elements(p, titles);
                    seen_then = true;
                }
                Rule::elements => otherwise = self.elements(p, titles),
                Rule::if_el => otherwise.extend(self.element_of(p.clone(), self.span(&p), titles)),
                Rule::close_brace => self.check_close(
                    &p,
                    "}",
                    "if",
                    Span {
                        end: span.start + 2,
                        ..span
                    },
                ),
                _ => {}
            }
        }
        let cond = cond.unwrap_or_else(|| self.error_expr(span));
        Some(Element {
            name: None,
            kind: ElementKind::If {
                cond,
                then,
                otherwise,
            },
            span,
        })
    }

    fn select_kind(
        &mut self,
        span: Span,
        idents: Vec<Ident>,
        mut types: Vec<TypeExpr>,
        label: TextLit,
        list: Option<P<'t>>,
        from: Option<P<'t>>,
    ) -> ElementKind {
        let var = idents
            .first()
            .cloned()
            .unwrap_or_else(|| missing_ident(span));
        if let Some(from) = from {
            let mut binder = missing_ident(span);
            let mut table = missing_ident(span);
            let mut filter = None;
            let mut show = None;
            let mut seen = 0;
            for p in from.into_inner() {
                match p.as_rule() {
                    Rule::ident if seen == 0 => {
                        binder = self.ident(&p);
                        seen = 1;
                    }
                    Rule::ident => table = self.ident(&p),
                    Rule::where_clause => filter = p.into_inner().nth(1).map(|e| self.expr(e)),
                    Rule::expr => show = Some(self.expr(p)),
                    _ => {}
                }
            }
            // Without `: T`, the option type is the table the options come from.
            let ty = types.pop().unwrap_or(TypeExpr {
                name: table.clone(),
                optional: false,
                span: table.span,
            });
            let show = show.unwrap_or_else(|| self.error_expr(span));
            return ElementKind::SelectFrom {
                var,
                ty,
                label,
                binder,
                table,
                filter,
                show,
            };
        }
        if let Some(ty) = types.pop() {
            if ty.name.name != "Text" || ty.optional {
                self.diags.push(
                    Diagnostic::new(Code::E201, ty.span, format!("a list `select` holds `Text`, not `{}`", ty.name.name))
                        .help("drop the type, or use `select x: T \"label\" from r in T show ...` for rows"),
                );
            }
        }
        let options = list.map(|l| self.list_items(l)).unwrap_or_default();
        ElementKind::SelectList {
            var,
            label,
            options,
        }
    }

    fn order_clause(&mut self, pair: P<'t>) -> OrderBy {
        let span = self.span(&pair);
        let mut key = None;
        let mut descending = false;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => key = Some(self.expr(p)),
                Rule::k_desc => descending = true,
                _ => {}
            }
        }
        let key = key.unwrap_or_else(|| self.error_expr(span));
        OrderBy { key, descending }
    }

    fn page_ref(&mut self, pair: P<'t>) -> PageRef {
        let span = self.span(&pair);
        let mut parts = pair.into_inner();
        let name = parts
            .next()
            .map(|p| self.ident(&p))
            .unwrap_or_else(|| missing_ident(span));
        let (args, has_parens) = match parts.next() {
            Some(list) => (self.args(list), true),
            None => (Vec::new(), false),
        };
        // pest's span for `Cart` (no parentheses) runs on over the whitespace it
        // skipped looking for `(`; the name alone is the reference then.
        let span = if has_parens { span } else { name.span };
        PageRef {
            name,
            args,
            has_parens,
            span,
        }
    }

    fn args(&mut self, pair: P<'t>) -> Vec<Expr> {
        pair.into_inner().map(|e| self.expr(e)).collect()
    }

    fn list_items(&mut self, pair: P<'t>) -> Vec<Expr> {
        pair.into_inner().map(|e| self.expr(e)).collect()
    }

    // ------------------------------------------------------------ markers

    fn marker_decl(&mut self, pair: P<'t>) -> MarkerDecl {
        let span = self.span(&pair);
        let mut m = MarkerDecl {
            name: missing_ident(span),
            params: Vec::new(),
            reads: Vec::new(),
            writes: Vec::new(),
            writes_span: None,
            requires: Vec::new(),
            body: Vec::new(),
            is_extern: false,
        };
        let mut has_default = false;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::k_extern => m.is_extern = true,
                Rule::k_default => has_default = true,
                Rule::ident => m.name = self.ident(&p),
                Rule::param_list => m.params = self.params(p),
                Rule::reads_clause => m.reads.extend(self.permissions(p)),
                Rule::writes_clause => {
                    m.writes_span = m
                        .writes_span
                        .or_else(|| p.clone().into_inner().next().map(|k| self.span(&k)));
                    m.writes.extend(self.permissions(p));
                }
                Rule::requires_clause => m.requires.push(self.requires(p)),
                Rule::stmts => m.body = self.stmts(p),
                Rule::close_brace => {
                    self.check_close(&p, "}", &format!("marker {}", m.name.name), m.name.span)
                }
                _ => {}
            }
        }
        self.marker_shape(&m, has_default);
        m
    }

    /// Clause-level rules the grammar leaves open: `writes` is required, and
    /// `default` belongs to extern markers only.
    fn marker_shape(&mut self, m: &MarkerDecl, has_default: bool) {
        if m.writes_span.is_none() {
            self.diags.push(
                Diagnostic::new(
                    Code::E001,
                    m.name.span,
                    format!("marker `{}` has no `writes` clause", m.name.name),
                )
                .help("list what the marker changes, for example `writes Order, Product.stock`"),
            );
        }
        if m.is_extern && !has_default {
            self.diags.push(
                Diagnostic::new(
                    Code::E001,
                    m.name.span,
                    format!("extern marker `{}` has no `default` body", m.name.name),
                )
                .help("write `default { ... }` with the effect the prover and trainer should use"),
            );
        }
        if !m.is_extern && has_default {
            self.diags.push(
                Diagnostic::new(
                    Code::E001,
                    m.name.span,
                    format!(
                        "`default` on marker `{}`, which is not `extern`",
                        m.name.name
                    ),
                )
                .help("write `extern marker` or drop `default`"),
            );
        }
    }

    fn permissions(&mut self, pair: P<'t>) -> Vec<Permission> {
        pair.into_inner()
            .filter(|p| p.as_rule() == Rule::permission)
            .map(|p| {
                let span = self.span(&p);
                let mut parts = p.into_inner();
                let base = parts
                    .next()
                    .map(|x| self.ident(&x))
                    .unwrap_or_else(|| missing_ident(span));
                let field = parts.next().map(|x| self.ident(&x));
                Permission { base, field, span }
            })
            .collect()
    }

    fn requires(&mut self, pair: P<'t>) -> Requires {
        let span = self.span(&pair);
        let mut cond = None;
        let mut message = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => cond = Some(self.expr(p)),
                Rule::text_lit => message = Some(self.text_lit(p)),
                _ => {}
            }
        }
        let cond = cond.unwrap_or_else(|| self.error_expr(span));
        Requires {
            cond,
            message,
            span,
        }
    }

    fn stmts(&mut self, pair: P<'t>) -> Vec<Stmt> {
        let mut out = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::stmt => {
                    if let Some(s) = p.into_inner().next().and_then(|s| self.stmt_inner(s)) {
                        out.push(s);
                    }
                }
                Rule::bad_in_braces => self.bad_chunk(
                    &p,
                    Some(Rule::stmt_only),
                    "a statement (`let`, `set`, `insert`, `delete`, `for`, `if`, `reject` or `go`)",
                ),
                _ => {}
            }
        }
        out
    }

    fn stmt_inner(&mut self, pair: P<'t>) -> Option<Stmt> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut parts: Vec<P<'t>> = pair.into_inner().collect();
        parts.retain(|p| {
            !matches!(
                p.as_rule(),
                Rule::k_let
                    | Rule::k_set
                    | Rule::k_delete
                    | Rule::k_all
                    | Rule::k_for
                    | Rule::k_in
                    | Rule::k_if
                    | Rule::k_else
                    | Rule::k_reject
                    | Rule::k_go
            )
        });
        let kind = match rule {
            Rule::let_stmt => {
                let mut it = parts.into_iter();
                let name = it
                    .next()
                    .map(|p| self.ident(&p))
                    .unwrap_or_else(|| missing_ident(span));
                match it.next() {
                    Some(v) if v.as_rule() == Rule::insert_expr => {
                        let (table, fields) = self.insert_expr(v);
                        StmtKind::Insert {
                            name: Some(name),
                            table,
                            fields,
                        }
                    }
                    other => StmtKind::Let {
                        name,
                        value: self.expr_opt(other, span),
                    },
                }
            }
            Rule::insert_stmt => {
                let (table, fields) = match parts.into_iter().next() {
                    Some(v) => self.insert_expr(v),
                    None => (missing_ident(span), Vec::new()),
                };
                StmtKind::Insert {
                    name: None,
                    table,
                    fields,
                }
            }
            Rule::set_stmt => {
                let mut it = parts.into_iter();
                let target = match it.next() {
                    Some(t) => self.postfix(t),
                    None => self.error_expr(span),
                };
                let value = self.expr_opt(it.next(), span);
                StmtKind::Set { target, value }
            }
            Rule::delete_stmt => StmtKind::Delete(self.expr_opt(parts.into_iter().next(), span)),
            Rule::delete_all_stmt => {
                let (binder, table, filter) = self.binder_table_filter(parts, span);
                StmtKind::DeleteAll {
                    binder,
                    table,
                    filter,
                }
            }
            Rule::for_stmt => {
                let body = parts.iter().find(|p| p.as_rule() == Rule::stmts).cloned();
                let closes: Vec<P<'t>> = parts
                    .iter()
                    .filter(|p| p.as_rule() == Rule::close_brace)
                    .cloned()
                    .collect();
                let (binder, table, filter) = self.binder_table_filter(parts, span);
                let body = body.map(|b| self.stmts(b)).unwrap_or_default();
                for c in &closes {
                    self.check_close(
                        c,
                        "}",
                        "for",
                        Span {
                            end: span.start + 3,
                            ..span
                        },
                    );
                }
                StmtKind::For {
                    binder,
                    table,
                    filter,
                    body,
                }
            }
            Rule::if_stmt => return Some(self.if_stmt(parts, span)),
            Rule::reject_stmt => StmtKind::Reject(match parts.into_iter().next() {
                Some(t) => self.text_lit(t),
                None => empty_text(span),
            }),
            Rule::go_stmt => StmtKind::Go(match parts.into_iter().next() {
                Some(p) => self.page_ref(p),
                None => missing_ref(span),
            }),
            _ => return None,
        };
        Some(Stmt { kind, span })
    }

    fn if_stmt(&mut self, parts: Vec<P<'t>>, span: Span) -> Stmt {
        let mut cond = None;
        let mut then = None;
        let mut otherwise = Vec::new();
        for p in parts {
            match p.as_rule() {
                Rule::expr => cond = Some(self.expr(p)),
                Rule::stmts if then.is_none() => then = Some(self.stmts(p)),
                Rule::stmts => otherwise = self.stmts(p),
                Rule::if_stmt => {
                    let nested_span = self.span(&p);
                    let nested: Vec<P<'t>> = p
                        .into_inner()
                        .filter(|x| !matches!(x.as_rule(), Rule::k_if | Rule::k_else))
                        .collect();
                    otherwise.push(self.if_stmt(nested, nested_span));
                }
                Rule::close_brace => self.check_close(
                    &p,
                    "}",
                    "if",
                    Span {
                        end: span.start + 2,
                        ..span
                    },
                ),
                _ => {}
            }
        }
        let cond = cond.unwrap_or_else(|| self.error_expr(span));
        Stmt {
            kind: StmtKind::If {
                cond,
                then: then.unwrap_or_default(),
                otherwise,
            },
            span,
        }
    }

    fn binder_table_filter(
        &mut self,
        parts: Vec<P<'t>>,
        span: Span,
    ) -> (Ident, Ident, Option<Expr>) {
        let mut idents = Vec::new();
        let mut filter = None;
        for p in parts {
            match p.as_rule() {
                Rule::ident => idents.push(self.ident(&p)),
                Rule::where_clause => filter = p.into_inner().nth(1).map(|e| self.expr(e)),
                _ => {}
            }
        }
        let mut it = idents.into_iter();
        let binder = it.next().unwrap_or_else(|| missing_ident(span));
        let table = it.next().unwrap_or_else(|| missing_ident(span));
        (binder, table, filter)
    }

    fn insert_expr(&mut self, pair: P<'t>) -> (Ident, Vec<FieldInit>) {
        let span = self.span(&pair);
        let mut table = missing_ident(span);
        let mut fields = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => table = self.ident(&p),
                Rule::field_init => fields.push(self.field_init(p)),
                _ => {}
            }
        }
        (table, fields)
    }

    // ------------------------------------------------------------ tasks

    fn task_decl(&mut self, pair: P<'t>) -> TaskDecl {
        let span = self.span(&pair);
        let mut t = TaskDecl {
            name: missing_ident(span),
            template: None,
            say: None,
            start: None,
            horizon: None,
            goal: None,
            answer: None,
            progress: Vec::new(),
            key: None,
            values: Vec::new(),
            setup: None,
            repeated: Vec::new(),
        };
        let mut seen: Vec<&'static str> = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => t.name = self.ident(&p),
                Rule::task_template => t.template = Some(self.task_template(p, span)),
                Rule::task_item => {
                    if let Some(item) = p.into_inner().next() {
                        self.task_item(item, &mut t, &mut seen);
                    }
                }
                Rule::bad_in_braces => self.bad_chunk(
                    &p,
                    Some(Rule::task_item),
                    "a task item (`say`, `start`, `horizon`, `goal`, `answer`, `progress`, `key`, `values` or `setup`)",
                ),
                Rule::close_brace => self.check_close(&p, "}", &format!("task {}", t.name.name), t.name.span),
                _ => {}
            }
        }
        t
    }

    fn task_template(&mut self, pair: P<'t>, span: Span) -> TaskTemplate {
        let mut idents = Vec::new();
        let mut filter = None;
        let mut limit = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => idents.push(self.ident(&p)),
                Rule::where_clause => filter = p.into_inner().nth(1).map(|e| self.expr(e)),
                Rule::limit_clause => limit = p.into_inner().nth(1).map(|e| self.expr(e)),
                _ => {}
            }
        }
        let mut it = idents.into_iter();
        let binder = it.next().unwrap_or_else(|| missing_ident(span));
        let table = it.next().unwrap_or_else(|| missing_ident(span));
        TaskTemplate {
            binder,
            table,
            filter,
            limit,
        }
    }

    fn task_item(&mut self, item: P<'t>, t: &mut TaskDecl, seen: &mut Vec<&'static str>) {
        let rule = item.as_rule();
        let mut parts = item.into_inner();
        let Some(keyword) = parts.next() else { return };
        let kw = self.ident(&keyword);
        let word = rule_owner(rule);
        if seen.contains(&word) {
            t.repeated.push(kw.clone());
        } else {
            seen.push(word);
        }
        let span = kw.span;
        match rule {
            Rule::say_item => t.say = parts.next().map(|p| self.text_lit(p)),
            Rule::start_item => t.start = parts.next().map(|p| self.page_ref(p)),
            Rule::horizon_item => {
                t.horizon = parts
                    .next()
                    .and_then(|p| self.int_value(&p).map(|v| (v, self.span(&p))))
            }
            Rule::goal_item => t.goal = Some(self.expr_opt(parts.next(), span)),
            Rule::answer_item => t.answer = Some(self.expr_opt(parts.next(), span)),
            Rule::progress_item => {
                for p in parts {
                    match p.as_rule() {
                        Rule::progress_entry => {
                            let pspan = self.span(&p);
                            let mut weight = None;
                            let mut pred = None;
                            for x in p.into_inner() {
                                match x.as_rule() {
                                    Rule::int_lit => {
                                        weight = self.int_value(&x).map(|v| (v, self.span(&x)))
                                    }
                                    Rule::expr => pred = Some(self.expr(x)),
                                    _ => {}
                                }
                            }
                            let pred = pred.unwrap_or_else(|| self.error_expr(pspan));
                            t.progress.push(ProgressItem { weight, pred });
                        }
                        Rule::bad_in_braces => self.bad_chunk(
                            &p,
                            Some(Rule::progress_entry),
                            "a progress predicate like `2: page is Cart`",
                        ),
                        Rule::close_brace => self.check_close(&p, "}", "progress", span),
                        _ => {}
                    }
                }
            }
            Rule::key_item => {
                let nodes = parts
                    .filter_map(|p| p.into_inner().next())
                    .map(|n| match n.as_rule() {
                        Rule::el_name => {
                            let id = self.ident(&n);
                            KeyNode::Element(Ident {
                                name: id.name.trim_start_matches('#').to_string(),
                                span: id.span,
                            })
                        }
                        _ => KeyNode::Page(self.page_ref(n)),
                    })
                    .collect();
                t.key = Some(nodes);
            }
            Rule::values_item => t.values = parts.map(|p| self.text_lit(p)).collect(),
            Rule::setup_item => {
                for p in parts {
                    match p.as_rule() {
                        Rule::stmts => t.setup = Some(self.stmts(p)),
                        Rule::close_brace => self.check_close(&p, "}", "setup", span),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    // ------------------------------------------------------------ expressions

    fn expr_opt(&mut self, pair: Option<P<'t>>, fallback: Span) -> Expr {
        match pair {
            Some(p) => self.expr(p),
            None => self.error_expr(fallback),
        }
    }

    /// Walks any expression-level rule.
    fn expr(&mut self, pair: P<'t>) -> Expr {
        let span = self.span(&pair);
        match pair.as_rule() {
            Rule::expr | Rule::paren => match pair.into_inner().next() {
                Some(inner) => self.expr(inner),
                None => self.error_expr(span),
            },
            Rule::or_expr => self.left_fold(pair, span),
            Rule::and_expr => self.left_fold(pair, span),
            Rule::add_expr | Rule::mul_expr => self.left_fold(pair, span),
            Rule::not_expr => self.prefixed(pair, span, Rule::k_not, UnaryOp::Not),
            Rule::unary_expr => self.prefixed(pair, span, Rule::neg, UnaryOp::Neg),
            Rule::cmp_expr => self.comparison(pair, span),
            Rule::postfix_expr => self.postfix(pair),
            _ => self.primary(pair),
        }
    }

    /// `a op b op c`, folded to the left.
    fn left_fold(&mut self, pair: P<'t>, span: Span) -> Expr {
        let mut inner = pair.into_inner();
        let mut acc = match inner.next() {
            Some(first) => self.expr(first),
            None => return self.error_expr(span),
        };
        while let Some(op) = inner.next() {
            let bop = binary_op(&op);
            let rhs = match inner.next() {
                Some(r) => self.expr(r),
                None => self.error_expr(span),
            };
            let s = acc.span.to(rhs.span);
            acc = self.expr_node(ExprKind::Binary(bop, Box::new(acc), Box::new(rhs)), s);
        }
        acc
    }

    /// `not not x`, `- - x`: prefixes wrap the operand innermost-last.
    fn prefixed(&mut self, pair: P<'t>, span: Span, prefix: Rule, op: UnaryOp) -> Expr {
        let parts: Vec<P<'t>> = pair.into_inner().collect();
        let prefixes: Vec<Span> = parts
            .iter()
            .filter(|p| p.as_rule() == prefix)
            .map(|p| self.span(p))
            .collect();
        let mut operand = match parts.into_iter().find(|p| p.as_rule() != prefix) {
            Some(p) => self.expr(p),
            None => return self.error_expr(span),
        };
        for at in prefixes.into_iter().rev() {
            let s = at.to(operand.span);
            operand = self.expr_node(ExprKind::Unary(op, Box::new(operand)), s);
        }
        operand
    }

    fn comparison(&mut self, pair: P<'t>, span: Span) -> Expr {
        let mut inner = pair.into_inner();
        let lhs = match inner.next() {
            Some(l) => self.expr(l),
            None => return self.error_expr(span),
        };
        let Some(op) = inner.next() else { return lhs };
        let rhs = self.expr_opt(inner.next(), span);
        let s = lhs.span.to(rhs.span);
        let kind = if op.as_rule() == Rule::k_in {
            ExprKind::In(Box::new(lhs), Box::new(rhs))
        } else {
            ExprKind::Binary(binary_op(&op), Box::new(lhs), Box::new(rhs))
        };
        self.expr_node(kind, s)
    }

    fn postfix(&mut self, pair: P<'t>) -> Expr {
        let span = self.span(&pair);
        if pair.as_rule() != Rule::postfix_expr {
            return self.expr(pair);
        }
        let mut inner = pair.into_inner();
        let mut acc = match inner.next() {
            Some(p) => self.primary(p),
            None => return self.error_expr(span),
        };
        for p in inner {
            let pspan = self.span(&p);
            let whole = acc.span.to(pspan);
            acc = match p.as_rule() {
                Rule::field_access => match p.into_inner().next() {
                    Some(f) => {
                        let field = self.ident(&f);
                        self.expr_node(ExprKind::Field(Box::new(acc), field), whole)
                    }
                    None => self.error_expr(whole),
                },
                Rule::index => {
                    let idx = self.expr_opt(p.into_inner().next(), pspan);
                    self.expr_node(ExprKind::Index(Box::new(acc), Box::new(idx)), whole)
                }
                _ => acc,
            };
        }
        acc
    }

    fn primary(&mut self, pair: P<'t>) -> Expr {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::ident => ExprKind::Name(self.ident(&pair)),
            Rule::int_lit => match self.int_value(&pair) {
                Some(v) => ExprKind::Int(v),
                None => ExprKind::Error,
            },
            Rule::money_lit => self.money(&pair),
            Rule::date_lit => self.date(&pair),
            Rule::time_lit => self.time(&pair),
            Rule::bad_at_lit => {
                self.diags.push(
                    Diagnostic::new(
                        Code::E003,
                        span,
                        format!("`{}` is not a date or a time", pair.as_str()),
                    )
                    .help("write a date as `@2026-11-29` or a time as `@14:30`"),
                );
                ExprKind::Error
            }
            Rule::k_true => ExprKind::Bool(true),
            Rule::k_false => ExprKind::Bool(false),
            Rule::k_none => ExprKind::None,
            Rule::text_lit => ExprKind::Text(self.text_lit(pair)),
            Rule::list_lit => ExprKind::List(self.list_items(pair)),
            Rule::paren | Rule::expr => return self.expr(pair),
            Rule::call => {
                let mut parts = pair.into_inner();
                let name = parts
                    .next()
                    .map(|p| self.ident(&p))
                    .unwrap_or_else(|| missing_ident(span));
                let args = parts.next().map(|a| self.args(a)).unwrap_or_default();
                ExprKind::Call(name, args)
            }
            Rule::quantifier => self.quantifier(pair, span),
            Rule::count_expr => self.count(pair, span),
            Rule::agg_expr => self.aggregate(pair, span),
            Rule::find_expr => {
                let parts: Vec<P<'t>> = pair
                    .into_inner()
                    .filter(|p| !matches!(p.as_rule(), Rule::k_find | Rule::k_in))
                    .collect();
                let (binder, table, filter) = self.binder_table_filter(parts, span);
                ExprKind::Find {
                    binder,
                    table,
                    filter: filter.map(Box::new),
                }
            }
            Rule::visited_expr => match pair.into_inner().nth(1) {
                Some(p) => ExprKind::Visited(self.page_ref(p)),
                None => ExprKind::Error,
            },
            Rule::page_is_expr => match pair.into_inner().nth(2) {
                Some(p) => ExprKind::PageIs(self.page_ref(p)),
                None => ExprKind::Error,
            },
            _ => return self.expr(pair),
        };
        self.expr_node(kind, span)
    }

    fn quantifier(&mut self, pair: P<'t>, span: Span) -> ExprKind {
        let mut kind = QuantKind::Exists;
        let mut idents = Vec::new();
        let mut filter = None;
        let mut body = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::k_all => kind = QuantKind::All,
                Rule::ident => idents.push(self.ident(&p)),
                Rule::where_clause => {
                    filter = p.into_inner().nth(1).map(|e| Box::new(self.expr(e)))
                }
                Rule::expr => body = Some(self.expr(p)),
                _ => {}
            }
        }
        let mut it = idents.into_iter();
        let binder = it.next().unwrap_or_else(|| missing_ident(span));
        let table = it.next().unwrap_or_else(|| missing_ident(span));
        let body = Box::new(body.unwrap_or_else(|| self.error_expr(span)));
        ExprKind::Quantifier {
            kind,
            binder,
            table,
            filter,
            body,
        }
    }

    fn count(&mut self, pair: P<'t>, span: Span) -> ExprKind {
        let mut idents = Vec::new();
        let mut filter = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => idents.push(self.ident(&p)),
                Rule::where_clause => {
                    filter = p.into_inner().nth(1).map(|e| Box::new(self.expr(e)))
                }
                _ => {}
            }
        }
        match idents.len() {
            1 => ExprKind::Count {
                binder: None,
                table: idents.remove(0),
                filter: None,
            },
            _ => {
                let mut it = idents.into_iter();
                let binder = it.next();
                let table = it.next().unwrap_or_else(|| missing_ident(span));
                ExprKind::Count {
                    binder,
                    table,
                    filter,
                }
            }
        }
    }

    fn aggregate(&mut self, pair: P<'t>, span: Span) -> ExprKind {
        let mut kind = AggKind::Sum;
        let mut value = None;
        let mut idents = Vec::new();
        let mut filter = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::k_min => kind = AggKind::Min,
                Rule::k_max_agg => kind = AggKind::Max,
                Rule::expr => value = Some(self.expr(p)),
                Rule::ident => idents.push(self.ident(&p)),
                Rule::where_clause => {
                    filter = p.into_inner().nth(1).map(|e| Box::new(self.expr(e)))
                }
                _ => {}
            }
        }
        let mut it = idents.into_iter();
        let binder = it.next().unwrap_or_else(|| missing_ident(span));
        let table = it.next().unwrap_or_else(|| missing_ident(span));
        let value = Box::new(value.unwrap_or_else(|| self.error_expr(span)));
        ExprKind::Aggregate {
            kind,
            value,
            binder,
            table,
            filter,
        }
    }

    // ------------------------------------------------------------ literals

    fn int_value(&mut self, pair: &P<'t>) -> Option<i64> {
        let digits: String = pair.as_str().chars().filter(|c| *c != '_').collect();
        match digits.parse::<i64>() {
            Ok(v) => Some(v),
            Err(_) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::E003,
                        self.span(pair),
                        format!("`{}` does not fit in a 64-bit integer", pair.as_str()),
                    )
                    .help("integers range from -9223372036854775808 to 9223372036854775807"),
                );
                None
            }
        }
    }

    fn money(&mut self, pair: &P<'t>) -> ExprKind {
        match Money::parse_body(pair.as_str().get(1..).unwrap_or("")) {
            Ok(m) => ExprKind::Money(m.0),
            Err(e) => self.literal_error(
                pair,
                e,
                "write money with at most two decimals, like `$14.99`",
            ),
        }
    }

    fn date(&mut self, pair: &P<'t>) -> ExprKind {
        match Date::parse_body(pair.as_str().get(1..).unwrap_or("")) {
            Ok(d) => ExprKind::Date(d),
            Err(e) => self.literal_error(
                pair,
                e,
                "write a date as `@YYYY-MM-DD`, for example `@2026-11-29`",
            ),
        }
    }

    fn time(&mut self, pair: &P<'t>) -> ExprKind {
        match Time::parse_body(pair.as_str().get(1..).unwrap_or("")) {
            Ok(t) => ExprKind::Time(t),
            Err(e) => self.literal_error(
                pair,
                e,
                "write a time of day as `@HH:MM`, from `@00:00` to `@23:59`",
            ),
        }
    }

    fn literal_error(&mut self, pair: &P<'t>, err: LiteralError, help: &str) -> ExprKind {
        let span = self.span(pair);
        let diag = match err {
            LiteralError::Malformed(msg) => {
                Diagnostic::new(Code::E003, span, format!("malformed literal: {msg}")).help(help)
            }
            LiteralError::ImpossibleDate(msg) => {
                Diagnostic::new(Code::M202, span, format!("impossible date: {msg}"))
                    .help("pick a day that exists in that month")
            }
        };
        self.diags.push(diag);
        ExprKind::Error
    }

    fn text_lit(&mut self, pair: P<'t>) -> TextLit {
        let span = self.span(&pair);
        let mut parts: Vec<TextPart> = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::text_chars => push_lit(&mut parts, p.as_str()),
                Rule::escape => {
                    let unescaped = self.escape(&p);
                    push_lit(&mut parts, &unescaped);
                }
                Rule::interp => {
                    let e = self.expr_opt(p.into_inner().next(), span);
                    parts.push(TextPart::Interp(e));
                }
                Rule::unterminated => self.diags.push(
                    Diagnostic::new(Code::E002, span, "unterminated string")
                        .label("this string has no closing `\"` on its line")
                        .help("close the string on the same line; write `\\n` for a line break inside it"),
                ),
                _ => {}
            }
        }
        TextLit { parts, span }
    }

    fn escape(&mut self, pair: &P<'t>) -> String {
        match pair.as_str() {
            "\\\"" => "\"".into(),
            "\\\\" => "\\".into(),
            "\\n" => "\n".into(),
            "\\{" => "{".into(),
            "\\}" => "}".into(),
            other => {
                self.diags.push(
                    Diagnostic::new(
                        Code::E003,
                        self.span(pair),
                        format!("unknown escape `{other}`"),
                    )
                    .help("the escapes are `\\\"`, `\\\\`, `\\n`, `\\{` and `\\}`"),
                );
                other.get(1..).unwrap_or("").to_string()
            }
        }
    }
}

/// Moves `end` back over trailing whitespace and `//` comments (never before
/// `start`). A `//` inside a string on the same line is not a comment.
fn trim_layout_end(text: &str, start: usize, end: usize) -> usize {
    let mut end = end.min(text.len());
    loop {
        let Some(slice) = text.get(start..end) else {
            return end;
        };
        let trimmed = start + slice.trim_end().len();
        let line_start = text
            .get(..trimmed)
            .and_then(|t| t.rfind('\n'))
            .map_or(0, |i| i + 1)
            .max(start);
        match text.get(line_start..trimmed).and_then(comment_start) {
            Some(at) if line_start + at > start => end = line_start + at,
            _ => return trimmed,
        }
    }
}

/// Where a `//` comment starts in one line, skipping strings.
fn comment_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn push_lit(parts: &mut Vec<TextPart>, s: &str) {
    if let Some(TextPart::Lit(last)) = parts.last_mut() {
        last.push_str(s);
    } else {
        parts.push(TextPart::Lit(s.to_string()));
    }
}

fn binary_op(pair: &P<'_>) -> BinaryOp {
    match pair.as_str() {
        "or" => BinaryOp::Or,
        "and" => BinaryOp::And,
        "==" | "is" => BinaryOp::Eq,
        "!=" => BinaryOp::Ne,
        "<" => BinaryOp::Lt,
        "<=" => BinaryOp::Le,
        ">" => BinaryOp::Gt,
        ">=" => BinaryOp::Ge,
        "+" => BinaryOp::Add,
        "-" => BinaryOp::Sub,
        "*" => BinaryOp::Mul,
        "/" => BinaryOp::Div,
        _ => BinaryOp::Rem,
    }
}

/// The keyword that opens a construct, for messages about it.
fn rule_owner(rule: Rule) -> &'static str {
    match rule {
        Rule::section_el => "section",
        Rule::for_el => "for",
        Rule::if_el => "if",
        Rule::say_item => "say",
        Rule::start_item => "start",
        Rule::horizon_item => "horizon",
        Rule::goal_item => "goal",
        Rule::answer_item => "answer",
        Rule::progress_item => "progress",
        Rule::key_item => "key",
        Rule::values_item => "values",
        Rule::setup_item => "setup",
        _ => "block",
    }
}

fn missing_ident(span: Span) -> Ident {
    Ident {
        name: String::new(),
        span,
    }
}

fn missing_type(span: Span) -> TypeExpr {
    TypeExpr {
        name: missing_ident(span),
        optional: false,
        span,
    }
}

fn missing_ref(span: Span) -> PageRef {
    PageRef {
        name: missing_ident(span),
        args: Vec::new(),
        has_parens: false,
        span,
    }
}

fn empty_text(span: Span) -> TextLit {
    TextLit {
        parts: Vec::new(),
        span,
    }
}

/// The token at `pos` (after whitespace): its range and a description.
fn token_at(text: &str, pos: usize) -> (usize, usize, String) {
    let rest = text.get(pos..).unwrap_or("");
    let skipped = rest.len() - rest.trim_start().len();
    let start = pos + skipped;
    let rest = rest.trim_start();
    let Some(first) = rest.chars().next() else {
        return (text.len(), text.len(), "end of file".to_string());
    };
    let len = if first.is_alphanumeric() || first == '_' {
        rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    } else if first == '"' {
        return (start, start + 1, "`\"`".to_string());
    } else {
        first.len_utf8()
    };
    let token = rest.get(..len).unwrap_or("");
    (start, start + len, format!("`{token}`"))
}

/// Labels for pest's expected rules, without repeats.
fn describe_rules(rules: &[Rule]) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for rule in rules {
        let label = describe_rule(*rule);
        if !label.is_empty() && !labels.iter().any(|l| l == label) {
            labels.push(label.to_string());
        }
    }
    labels
}

/// Labels for literal tokens pest expected (`:`, `->`), skipping layout and
/// character ranges (pest does not export its token type, only its `Display`).
fn token_labels<T: std::fmt::Display>(tokens: &[T]) -> Vec<String> {
    tokens
        .iter()
        .map(|t| t.to_string())
        .filter(|t| {
            !t.trim().is_empty()
                && t != "//"
                && !t.contains("..")
                && t.chars().all(|c| !c.is_alphanumeric())
        })
        .map(|t| format!("`{t}`"))
        .collect()
}

/// "`}`, a name or an expression".
fn join_labels(mut labels: Vec<String>) -> String {
    let mut seen = Vec::new();
    labels.retain(|l| {
        let new = !seen.contains(l);
        seen.push(l.clone());
        new
    });
    match labels.len() {
        0 => String::new(),
        1 => labels.remove(0),
        n if n > 6 => format!("{}, or another item", labels[..5].join(", ")),
        n => format!("{} or {}", labels[..n - 1].join(", "), labels[n - 1]),
    }
}

fn is_text_inner(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::text_chars | Rule::escape | Rule::interp | Rule::unterminated
    )
}

fn describe_rule(rule: Rule) -> &'static str {
    use Rule::*;
    match rule {
        ident => "a name",
        el_name => "`#name`",
        int_lit => "an integer",
        text_lit => "a string",
        expr | or_expr | and_expr | not_expr | cmp_expr | add_expr | mul_expr | unary_expr
        | postfix_expr | paren => "an expression",
        money_lit | date_lit | time_lit | bad_at_lit | k_true | k_false | k_none | list_lit
        | quantifier | count_expr | agg_expr | find_expr | visited_expr | page_is_expr | call => {
            "an expression"
        }
        type_expr => "a type",
        page_ref => "a page",
        arg_list | param_list => "`(`",
        cmp_op => "an operator",
        add_op | mul_op => "an operator",
        field_access => "`.`",
        index => "`[`",
        arrow => "`->`",
        opt_mark => "`?`",
        close_brace => "`}`",
        close_bracket => "`]`",
        element | element_only | title_el | heading_el | text_el | image_el | link_el
        | button_el | input_el | select_el | checkbox_el | section_el | for_el | if_el
        | stmt_el => "an element (`text`, `link`, `button`, ...)",
        stmt | stmt_only | let_stmt | insert_stmt | set_stmt | delete_all_stmt | delete_stmt
        | for_stmt | if_stmt | reject_stmt | go_stmt => "a statement",
        decl | decl_only | use_decl | site_decl | enum_decl | table_decl | seed_decl
        | session_decl | invariant_decl | page_decl | marker_decl | task_decl => {
            "a declaration (`site`, `table`, `page`, `marker`, `task`, ...)"
        }
        module_header => "`module`",
        task_item | say_item | start_item | horizon_item | goal_item | answer_item
        | progress_item | key_item | values_item | setup_item => "a task item",
        site_item | site_title | site_domain | site_start | site_today => "a site item",
        field_decl => "a field",
        field_init => "a field like `name: value`",
        seed_row => "a row `{ ... }`",
        session_var => "a session variable",
        permission => "a permission like `Table` or `Table.field`",
        reads_clause => "`reads`",
        writes_clause => "`writes`",
        requires_clause => "`requires`",
        disabled_when => "`disabled when`",
        where_clause => "`where`",
        order_clause => "`order by`",
        limit_clause => "`limit`",
        select_from => "`from`",
        page_route => "`at`",
        table_max => "`max`",
        progress_entry => "a progress predicate",
        key_node => "a key node",
        task_template => "`for`",
        use_binds | use_bind => "`(`",
        std_path => "`std::...`",
        module_param => "a module parameter",
        stmts | elements => "",
        EOI => "end of file",
        k_and => "`and`",
        k_or => "`or`",
        k_not => "`not`",
        k_in => "`in`",
        k_is => "`is`",
        k_exists => "`exists`",
        k_all => "`all`",
        k_if => "`if`",
        k_else => "`else`",
        k_for => "`for`",
        k_where => "`where`",
        k_let => "`let`",
        k_set => "`set`",
        k_insert => "`insert`",
        k_delete => "`delete`",
        k_go => "`go`",
        k_title => "`title`",
        k_domain => "`domain`",
        k_start => "`start`",
        k_today => "`today`",
        k_table => "`table`",
        k_max | k_max_agg => "`max`",
        k_at => "`at`",
        k_from => "`from`",
        k_show => "`show`",
        k_order => "`order`",
        k_by => "`by`",
        k_desc => "`desc`",
        k_limit => "`limit`",
        k_disabled => "`disabled`",
        k_when => "`when`",
        k_marker => "`marker`",
        k_reads => "`reads`",
        k_writes => "`writes`",
        k_requires => "`requires`",
        k_default => "`default`",
        k_reject => "`reject`",
        k_std => "`std`",
        k_visited => "`visited`",
        _ => "",
    }
}

#[cfg(test)]
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
    fn deep_nesting_is_refused_without_overflow() {
        let text = format!("invariant i: {}1{}\n", "(".repeat(5000), ")".repeat(5000));
        let (_, diags) = parse(&text);
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.contains("nested too deeply"));
    }
}
