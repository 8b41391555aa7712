//! Walking markers: permissions, `requires` clauses and statements.

use super::*;

impl<'t> Walker<'t, '_> {
    pub(super) fn marker_decl(&mut self, pair: P<'t>) -> MarkerDecl {
        let (m, has_default) = self.marker_parts(pair);
        self.marker_shape(&m, has_default);
        m
    }

    /// The marker in `pair` (a whole declaration or only its header), and
    /// whether it has a `default` body.
    pub(super) fn marker_parts(&mut self, pair: P<'t>) -> (MarkerDecl, bool) {
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
        (m, has_default)
    }

    /// Clause-level rules the grammar leaves open: `writes` is required, and
    /// `default` belongs to extern markers only.
    pub(super) fn marker_shape(&mut self, m: &MarkerDecl, has_default: bool) {
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

    pub(super) fn permissions(&mut self, pair: P<'t>) -> Vec<Permission> {
        pair.into_inner()
            .filter(|p| p.as_rule() == Rule::permission)
            .map(|p| {
                let span = self.span(&p);
                let mut parts = p.into_inner();
                let base = self.ident_or(parts.next(), span);
                let field = parts.next().map(|x| self.ident(&x));
                Permission { base, field, span }
            })
            .collect()
    }

    pub(super) fn requires(&mut self, pair: P<'t>) -> Requires {
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

    pub(super) fn stmts(&mut self, pair: P<'t>) -> Vec<Stmt> {
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

    pub(super) fn stmt_inner(&mut self, pair: P<'t>) -> Option<Stmt> {
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
                let name = self.ident_or(it.next(), span);
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

    pub(super) fn if_stmt(&mut self, parts: Vec<P<'t>>, span: Span) -> Stmt {
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

    pub(super) fn binder_table_filter(
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

    pub(super) fn insert_expr(&mut self, pair: P<'t>) -> (Ident, Vec<FieldInit>) {
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
}
