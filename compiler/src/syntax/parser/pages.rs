//! Walking pages and their elements, including guards, `let`, `for` (with
//! `offset`), `if`/`else if`, selects and the statements a page must not
//! contain (kept for E303).

use super::*;

impl<'t> Walker<'t, '_> {
    pub(super) fn page_decl(&mut self, pair: P<'t>) -> PageDecl {
        let span = self.span(&pair);
        let mut page = PageDecl {
            name: missing_ident(span),
            params: Vec::new(),
            route: None,
            guards: Vec::new(),
            titles: Vec::new(),
            body: Vec::new(),
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => page.name = self.ident(&p),
                Rule::param_list => page.params = self.params(p),
                Rule::page_route => page.route = p.into_inner().nth(1).map(|t| self.text_lit(t)),
                Rule::page_guard => page.guards.push(self.page_guard(p)),
                Rule::elements => page.body = self.elements(p, &mut page.titles),
                Rule::close_brace => {
                    self.check_close(&p, "}", &format!("page {}", page.name.name), page.name.span)
                }
                _ => {}
            }
        }
        page
    }

    pub(super) fn elements(&mut self, pair: P<'t>, titles: &mut Vec<TextLit>) -> Vec<Element> {
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

    pub(super) fn element(&mut self, pair: P<'t>, titles: &mut Vec<TextLit>) -> Option<Element> {
        let span = self.span(&pair);
        let inner = pair.into_inner().next()?;
        let rule = inner.as_rule();
        if rule == Rule::if_el {
            return self.if_element(inner, span, titles);
        }
        let mut name = None;
        let mut texts: Vec<TextLit> = Vec::new();
        let mut idents: Vec<Ident> = Vec::new();
        let mut types: Vec<TypeExpr> = Vec::new();
        let mut target = None;
        let mut disabled = None;
        let mut body = Vec::new();
        let mut list = None;
        let mut from = None;
        let mut order = None;
        let mut limit = None;
        let mut offset = None;
        let mut value = None;
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
                Rule::page_ref => target = Some(self.page_ref(p)),
                Rule::disabled_when => disabled = p.into_inner().nth(2).map(|e| self.expr(e)),
                Rule::elements => body = self.elements(p, titles),
                Rule::list_lit => list = Some(p),
                Rule::select_from => from = Some(p),
                Rule::where_clause => filter = p.into_inner().nth(1).map(|e| self.expr(e)),
                Rule::order_clause => order = Some(self.order_clause(p)),
                Rule::limit_clause => limit = p.into_inner().nth(1).map(|e| self.expr(e)),
                Rule::offset_clause => offset = p.into_inner().nth(1).map(|e| self.expr(e)),
                Rule::expr => value = Some(self.expr(p)),
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
            Rule::let_el => ElementKind::Let {
                var: idents
                    .first()
                    .cloned()
                    .unwrap_or_else(|| missing_ident(span)),
                value: value.unwrap_or_else(|| self.error_expr(span)),
            },
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
                    offset,
                    body,
                })
            }
            _ => return None,
        };
        Some(Element { name, kind, span })
    }

    /// `guard c else Page(args)`.
    fn page_guard(&mut self, pair: P<'t>) -> PageGuard {
        let span = self.span(&pair);
        let mut cond = None;
        let mut target = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => cond = Some(self.expr(p)),
                Rule::page_ref => target = Some(self.page_ref(p)),
                _ => {}
            }
        }
        PageGuard {
            cond: cond.unwrap_or_else(|| self.error_expr(span)),
            target: target.unwrap_or_else(|| missing_ref(span)),
            span,
        }
    }

    /// `if c { ... } else if d { ... } else { ... }`: an `else if` is the whole
    /// else branch, walked by this same function.
    pub(super) fn if_element(
        &mut self,
        pair: P<'t>,
        span: Span,
        titles: &mut Vec<TextLit>,
    ) -> Option<Element> {
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
                // `else if`: the nested `if` is the whole else branch.
                Rule::if_el => {
                    let nested_span = self.span(&p);
                    otherwise.extend(self.if_element(p, nested_span, titles));
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

    pub(super) fn select_kind(
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
        let options = list.map(|l| self.list_items(l)).unwrap_or_default();
        ElementKind::SelectList {
            var,
            ty: types.pop(),
            label,
            options,
        }
    }

    pub(super) fn order_clause(&mut self, pair: P<'t>) -> OrderBy {
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

    pub(super) fn page_ref(&mut self, pair: P<'t>) -> PageRef {
        let span = self.span(&pair);
        let mut parts = pair.into_inner();
        let name = self.ident_or(parts.next(), span);
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

    pub(super) fn args(&mut self, pair: P<'t>) -> Vec<Expr> {
        pair.into_inner().map(|e| self.expr(e)).collect()
    }

    pub(super) fn list_items(&mut self, pair: P<'t>) -> Vec<Expr> {
        pair.into_inner().map(|e| self.expr(e)).collect()
    }
}
