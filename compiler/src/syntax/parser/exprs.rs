//! Walking expressions. The grammar gives a flat run of operands and infix
//! operators; precedence climbing here folds it into binary nodes (left
//! associative). Quantifiers, aggregates and the task-only forms become their
//! own nodes.

use super::*;

/// A flat run of expression tokens being consumed left to right.
struct Run<'t> {
    items: Vec<P<'t>>,
    at: usize,
}

impl<'t> Run<'t> {
    fn peek(&self, rule: Rule) -> Option<P<'t>> {
        self.items
            .get(self.at)
            .filter(|p| p.as_rule() == rule)
            .cloned()
    }

    fn next(&mut self) -> Option<P<'t>> {
        let p = self.items.get(self.at).cloned();
        self.at += 1;
        p
    }

    /// Consumes every consecutive `rule` token, returning their spans.
    fn take_all(&mut self, rule: Rule, span: impl Fn(&P<'t>) -> Span) -> Vec<Span> {
        let mut out = Vec::new();
        while let Some(p) = self.peek(rule) {
            out.push(span(&p));
            self.at += 1;
        }
        out
    }
}

/// Binding powers: `or` 1, `and` 2, comparisons 4, `+ -` 5, `* / %` 6. `not`
/// takes everything from the comparisons up as its operand.
const NOT_OPERAND_POWER: u8 = 3;

fn infix_power(op: &str) -> u8 {
    match op {
        "or" => 1,
        "and" => 2,
        "+" | "-" => 5,
        "*" | "/" | "%" => 6,
        _ => 4,
    }
}

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
            Rule::expr => {
                let mut run = Run {
                    items: pair.into_inner().collect(),
                    at: 0,
                };
                self.climb(&mut run, 0, span)
            }
            Rule::paren => match pair.into_inner().next() {
                Some(inner) => self.expr(inner),
                None => self.error_expr(span),
            },
            Rule::postfix_expr => self.postfix(pair),
            _ => self.primary(pair),
        }
    }

    /// Precedence climbing over a flat run: operands joined by operators whose
    /// binding power is at least `min_power`, folded to the left.
    fn climb(&mut self, run: &mut Run<'t>, min_power: u8, span: Span) -> Expr {
        let mut lhs = self.operand(run, span);
        while let Some(op) = run.peek(Rule::infix_op) {
            let power = infix_power(op.as_str());
            if power < min_power {
                break;
            }
            run.at += 1;
            let rhs = self.climb(run, power + 1, span);
            let whole = lhs.span.to(rhs.span);
            let kind = if op.as_str() == "in" {
                ExprKind::In(Box::new(lhs), Box::new(rhs))
            } else {
                ExprKind::Binary(binary_op(&op), Box::new(lhs), Box::new(rhs))
            };
            lhs = self.expr_node(kind, whole);
        }
        lhs
    }

    /// `not` … (binds looser than comparisons), `-` … (tighter than `*`), then a
    /// primary with its postfix `.field` and `[index]`. A run of prefixes is
    /// applied in a loop, so `not not … x` costs no recursion per `not`.
    fn operand(&mut self, run: &mut Run<'t>, span: Span) -> Expr {
        let nots = run.take_all(Rule::k_not, |p| self.span(p));
        if !nots.is_empty() {
            let inner = self.climb(run, NOT_OPERAND_POWER, span);
            return self.wrap(nots, UnaryOp::Not, inner);
        }
        let negs = run.take_all(Rule::neg, |p| self.span(p));
        let mut acc = match run.next() {
            Some(p) => self.primary(p),
            None => self.error_expr(span),
        };
        while let Some(p) = run
            .peek(Rule::field_access)
            .or_else(|| run.peek(Rule::index))
        {
            run.at += 1;
            acc = self.apply_postfix(acc, p);
        }
        self.wrap(negs, UnaryOp::Neg, acc)
    }

    /// Wraps `operand` in one unary node per prefix, innermost last.
    fn wrap(&mut self, prefixes: Vec<Span>, op: UnaryOp, operand: Expr) -> Expr {
        let mut acc = operand;
        for at in prefixes.into_iter().rev() {
            let s = at.to(acc.span);
            acc = self.expr_node(ExprKind::Unary(op, Box::new(acc)), s);
        }
        acc
    }

    fn apply_postfix(&mut self, acc: Expr, p: P<'t>) -> Expr {
        let pspan = self.span(&p);
        let whole = acc.span.to(pspan);
        match p.as_rule() {
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
        }
    }

    /// The target of `set`: a primary and its postfix chain.
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
            acc = self.apply_postfix(acc, p);
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
                match parts.next() {
                    Some(args) => ExprKind::Call(name, self.args(args)),
                    None => ExprKind::Name(name),
                }
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
