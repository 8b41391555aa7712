//! Walking tasks: templates and every task item.

use super::*;

impl<'t> Walker<'t, '_> {
    pub(super) fn task_decl(&mut self, pair: P<'t>) -> TaskDecl {
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

    pub(super) fn task_template(&mut self, pair: P<'t>, span: Span) -> TaskTemplate {
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

    pub(super) fn task_item(
        &mut self,
        item: P<'t>,
        t: &mut TaskDecl,
        seen: &mut Vec<&'static str>,
    ) {
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
}
