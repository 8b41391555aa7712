//! Walking expressions: precedence levels fold left into binary nodes;
//! quantifiers, aggregates and the task-only forms become their own nodes.

use super::*;

impl<'t> Walker<'t, '_> {
    pub(super) fn expr_opt(&mut self, pair: Option<P<'t>>, fallback: Span) -> Expr {
        match pair {
            Some(p) => self.expr(p),
            None => self.error_expr(fallback),
        }
    }

    /// Walks any expression-level rule.
    pub(super) fn expr(&mut self, pair: P<'t>) -> Expr {
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
    pub(super) fn left_fold(&mut self, pair: P<'t>, span: Span) -> Expr {
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
    pub(super) fn prefixed(&mut self, pair: P<'t>, span: Span, prefix: Rule, op: UnaryOp) -> Expr {
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

    pub(super) fn comparison(&mut self, pair: P<'t>, span: Span) -> Expr {
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

    pub(super) fn postfix(&mut self, pair: P<'t>) -> Expr {
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

    pub(super) fn primary(&mut self, pair: P<'t>) -> Expr {
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
            Rule::bad_decimal => {
                self.diags.push(
                    Diagnostic::new(
                        Code::E003,
                        span,
                        format!("`{}` is not a number wsite knows", pair.as_str()),
                    )
                    .label("integers have no decimals")
                    .help("write an amount of money with `$`, like `$1.50`, or use a whole number"),
                );
                ExprKind::Error
            }
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
                let name = self.ident_or(parts.next(), span);
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

    pub(super) fn quantifier(&mut self, pair: P<'t>, span: Span) -> ExprKind {
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

    pub(super) fn count(&mut self, pair: P<'t>, span: Span) -> ExprKind {
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

    pub(super) fn aggregate(&mut self, pair: P<'t>, span: Span) -> ExprKind {
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
}

pub(super) fn binary_op(pair: &P<'_>) -> BinaryOp {
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
