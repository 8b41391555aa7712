//! Lowering expressions: names become slots, variants or session indices using
//! what the type checker resolved; field accesses become table and field indices.

use super::{bug, LowerError, Names};
use crate::check::types::{Access, Resolved, Ty as CheckTy, Typed};
use crate::syntax::ast::{self, AggKind, Expr, ExprKind, QuantKind, Span, TextPart};
use std::collections::BTreeMap;
use wsite_runtime::ir;

/// Lowers the expressions of one frame (an invariant, a marker, a page...),
/// giving each local a slot when its declaration is met.
pub(crate) struct ExprLowerer<'n, 'a> {
    names: &'n Names<'a>,
    typed: &'n Typed,
    /// Locals by the span of their declaring identifier (what `Resolved` names).
    slots: BTreeMap<Span, ir::Slot>,
    /// Page `let`s by the span of their name: each use is their expression.
    inlined: BTreeMap<Span, ir::Expr>,
    next_slot: ir::Slot,
}

type Lowered = Result<ir::Expr, LowerError>;

impl<'n, 'a> ExprLowerer<'n, 'a> {
    pub fn new(names: &'n Names<'a>, typed: &'n Typed) -> Self {
        ExprLowerer {
            names,
            typed,
            slots: BTreeMap::new(),
            inlined: BTreeMap::new(),
            next_slot: 0,
        }
    }

    /// How many slots the frame needs.
    pub fn frame_size(&self) -> u32 {
        self.next_slot
    }

    /// A fresh slot for the local declared by `ident`.
    pub fn declare(&mut self, ident: &ast::Ident) -> ir::Slot {
        let slot = self.next_slot;
        self.next_slot += 1;
        self.slots.insert(ident.span, slot);
        slot
    }

    /// A page `let`: every later use of `ident` lowers to `value` itself.
    /// Rendering a page changes no state and no slot a `let` can see, so
    /// evaluating the expression where it is used gives the value it had
    /// where it was declared (faults included), and every engine that runs
    /// page expressions handles it unchanged (docs/DECISIONS.md 51).
    pub fn inline(&mut self, ident: &ast::Ident, value: ir::Expr) {
        self.inlined.insert(ident.span, value);
    }

    fn fresh(&mut self) -> ir::Slot {
        let slot = self.next_slot;
        self.next_slot += 1;
        slot
    }

    pub fn expr(&mut self, e: &Expr) -> Lowered {
        Ok(match &e.kind {
            ExprKind::Int(v) => ir::Expr::Const(ir::Value::Int(*v)),
            ExprKind::Money(v) => ir::Expr::Const(ir::Value::Money(*v)),
            ExprKind::Bool(b) => ir::Expr::Const(ir::Value::Bool(*b)),
            ExprKind::Date(d) => ir::Expr::Const(ir::Value::Date(*d)),
            ExprKind::Time(t) => ir::Expr::Const(ir::Value::Time(*t)),
            ExprKind::None => ir::Expr::Const(ir::Value::None),
            ExprKind::Text(t) => self.text(t)?,
            ExprKind::Name(_) => self.name(e)?,
            ExprKind::Field(base, _) => self.field(e, base)?,
            ExprKind::Index(base, index) => self.lookup(e, base, index)?,
            ExprKind::Call(name, args) => {
                let builtin = ir::Builtin::from_name(&name.name)
                    .ok_or_else(|| bug(name.span, format!("unknown function `{}`", name.name)))?;
                ir::Expr::Call(builtin, self.all(args)?)
            }
            ExprKind::Unary(op, inner) => ir::Expr::Unary(*op, Box::new(self.expr(inner)?)),
            ExprKind::Binary(op, a, b) => {
                ir::Expr::Binary(*op, Box::new(self.expr(a)?), Box::new(self.expr(b)?))
            }
            ExprKind::In(a, list) => match &list.kind {
                ExprKind::List(items) => ir::Expr::In(Box::new(self.expr(a)?), self.all(items)?),
                _ => return Err(bug(list.span, "`in` needs a literal list".into())),
            },
            ExprKind::Quantifier {
                kind,
                binder,
                table,
                filter,
                body,
            } => {
                let scan = self.scan(Some(binder), table, filter.as_deref())?;
                let body = Box::new(self.expr(body)?);
                match kind {
                    QuantKind::Exists => ir::Expr::Exists(scan, body),
                    QuantKind::All => ir::Expr::All(scan, body),
                }
            }
            ExprKind::Count {
                binder,
                table,
                filter,
            } => ir::Expr::Count(self.scan(binder.as_ref(), table, filter.as_deref())?),
            ExprKind::Aggregate {
                kind,
                value,
                binder,
                table,
                filter,
            } => {
                let scan = self.scan(Some(binder), table, filter.as_deref())?;
                let kind = match kind {
                    AggKind::Sum if matches!(self.typed.ty(value.id).base(), CheckTy::Money) => {
                        ir::AggKind::SumMoney
                    }
                    AggKind::Sum => ir::AggKind::Sum,
                    AggKind::Min => ir::AggKind::Min,
                    AggKind::Max => ir::AggKind::Max,
                };
                ir::Expr::Aggregate {
                    kind,
                    value: Box::new(self.expr(value)?),
                    scan,
                }
            }
            ExprKind::Find {
                binder,
                table,
                filter,
            } => ir::Expr::Find(self.scan(Some(binder), table, filter.as_deref())?),
            ExprKind::List(_) => return Err(bug(e.span, "a list outside `in`".into())),
            ExprKind::Visited(r) => ir::Expr::Visited(self.page_call(r)?),
            ExprKind::PageIs(r) => ir::Expr::PageIs(self.page_call(r)?),
            ExprKind::Error => {
                return Err(bug(
                    e.span,
                    "an expression the parser could not read".into(),
                ))
            }
        })
    }

    pub fn names(&self) -> &'n Names<'a> {
        self.names
    }

    pub fn typed(&self) -> &'n Typed {
        self.typed
    }

    pub fn opt(&mut self, e: Option<&Expr>) -> Result<Option<ir::Expr>, LowerError> {
        e.map(|e| self.expr(e)).transpose()
    }

    /// A text literal's parts.
    pub fn parts(&mut self, t: &ast::TextLit) -> Result<Vec<ir::TextPart>, LowerError> {
        match self.text(t)? {
            ir::Expr::Text(parts) => Ok(parts),
            _ => Ok(Vec::new()),
        }
    }

    /// A select's `show` expression as text: a literal's parts, or the value.
    pub fn show_parts(&mut self, e: &Expr) -> Result<Vec<ir::TextPart>, LowerError> {
        if let ExprKind::Text(t) = &e.kind {
            return self.parts(t);
        }
        let ty = self.names.ty(self.typed.ty(e.id), e.span)?;
        Ok(vec![ir::TextPart::Interp(self.expr(e)?, ty)])
    }

    pub fn page_call(&mut self, r: &ast::PageRef) -> Result<ir::PageCall, LowerError> {
        let page = self
            .names
            .pages
            .get(r.name.name.as_str())
            .copied()
            .ok_or_else(|| bug(r.span, format!("unknown page `{}`", r.name.name)))?;
        Ok(ir::PageCall {
            page,
            args: self.all(&r.args)?,
        })
    }

    /// A button's target: a marker to run, or a page to open.
    pub fn action(&mut self, r: &ast::PageRef) -> Result<ir::Action, LowerError> {
        match self.names.markers.get(r.name.name.as_str()) {
            Some(&marker) => Ok(ir::Action::Marker {
                marker,
                args: self.all(&r.args)?,
            }),
            None => Ok(ir::Action::Go(self.page_call(r)?)),
        }
    }

    fn all(&mut self, items: &[Expr]) -> Result<Vec<ir::Expr>, LowerError> {
        items.iter().map(|i| self.expr(i)).collect()
    }

    fn name(&mut self, e: &Expr) -> Lowered {
        match self.typed.names.get(&e.id) {
            Some(Resolved::Local { span, .. }) => match self.slots.get(span) {
                Some(slot) => Ok(ir::Expr::Local(*slot)),
                None => match self.inlined.get(span) {
                    Some(value) => Ok(value.clone()),
                    None => Err(bug(
                        e.span,
                        "a local used before its declaration was lowered".into(),
                    )),
                },
            },
            Some(Resolved::Variant { enum_name, variant }) => Ok(ir::Expr::Const(ir::Value::Enum(
                self.names.variant(enum_name, variant, e.span)?.1,
            ))),
            _ => Err(bug(e.span, "a name that is not a value".into())),
        }
    }

    fn field(&mut self, e: &Expr, base: &Expr) -> Lowered {
        match self.typed.fields.get(&e.id) {
            Some(Access::Session(var)) => {
                let id = self
                    .names
                    .session
                    .get(var.as_str())
                    .ok_or_else(|| bug(e.span, format!("unknown session variable `{var}`")))?;
                Ok(ir::Expr::Session(*id))
            }
            Some(Access::Field { field, .. }) if field == "id" => {
                Ok(ir::Expr::RowId(Box::new(self.expr(base)?)))
            }
            Some(Access::Field { table, field }) => Ok(ir::Expr::Field {
                row: Box::new(self.expr(base)?),
                table: self.names.table(table, e.span)?,
                field: self.names.field(table, field, e.span)?,
            }),
            None => Err(bug(e.span, "an unresolved field access".into())),
        }
    }

    fn lookup(&mut self, e: &Expr, base: &Expr, index: &Expr) -> Lowered {
        match self.typed.names.get(&base.id) {
            Some(Resolved::Table(t)) => Ok(ir::Expr::Lookup {
                table: self.names.table(t, e.span)?,
                id: Box::new(self.expr(index)?),
            }),
            _ => Err(bug(
                e.span,
                "`[...]` after something that is not a table".into(),
            )),
        }
    }

    pub fn scan(
        &mut self,
        binder: Option<&ast::Ident>,
        table: &ast::Ident,
        filter: Option<&Expr>,
    ) -> Result<ir::RowScan, LowerError> {
        let slot = match binder {
            Some(b) => self.declare(b),
            None => self.fresh(),
        };
        let filter = filter.map(|f| self.expr(f).map(Box::new)).transpose()?;
        Ok(ir::RowScan {
            binder: slot,
            table: self.names.table(&table.name, table.span)?,
            filter,
        })
    }

    pub fn text(&mut self, t: &ast::TextLit) -> Lowered {
        let mut parts = Vec::with_capacity(t.parts.len());
        for part in &t.parts {
            parts.push(match part {
                TextPart::Lit(s) => ir::TextPart::Lit(s.as_str().into()),
                TextPart::Interp(e) => {
                    ir::TextPart::Interp(self.expr(e)?, self.names.ty(self.typed.ty(e.id), e.span)?)
                }
            });
        }
        Ok(ir::Expr::Text(parts))
    }
}
