//! IR expressions and texts written back as `.wsite` source (spec §3), for the
//! knowledge spec and the site map: guards, `disabled when` conditions, loop
//! filters, `requires` clauses and the values a text interpolates.
//!
//! Lowering dropped local names: parameters and loop binders keep theirs (the
//! caller passes them in [`Names`]), other locals (form variables, `let`s)
//! print as `local_N` (their slot), and quantifier binders as `x_N`. Enum
//! constants print by variant name where the other side of a comparison fixes
//! the enum, otherwise as `variant_N`. The text is for reading; nothing parses it back.

use crate::ir::{self, AggKind, Expr, Program, RowScan, Slot, TextPart, Ty, UnaryOp, Value};
use std::collections::BTreeMap;

/// What each named slot of the current frame is called, with its type where
/// known (parameters), so enum constants compared with it print by name.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub slots: BTreeMap<Slot, (String, Option<Ty>)>,
}

impl Names {
    /// The frame's parameters (slots `0..n`).
    pub fn params(params: &[ir::ParamDef]) -> Names {
        let mut names = Names::default();
        for (slot, p) in (0u32..).zip(params) {
            names
                .slots
                .insert(slot, (p.name.clone(), Some(p.ty.clone())));
        }
        names
    }

    /// Adds a loop binder over `table`.
    pub fn bind(&mut self, slot: Slot, name: &str, table: Option<ir::TableId>) {
        self.slots
            .insert(slot, (name.to_string(), table.map(Ty::Row)));
    }
}

/// `e` as source text.
pub fn expr(program: &Program, names: &Names, e: &Expr) -> String {
    Printer { program, names }.expr(e, 0)
}

/// A text's parts as a source string literal body, interpolations in braces:
/// `Cart ({count(CartLine)} items)`.
pub fn text(program: &Program, names: &Names, parts: &[TextPart]) -> String {
    let p = Printer { program, names };
    parts
        .iter()
        .map(|part| match part {
            TextPart::Lit(s) => s.to_string(),
            TextPart::Interp(e, _) => format!("{{{}}}", p.expr(e, 0)),
        })
        .collect()
}

/// The fields a text interpolates, as `Table.field` (in order, no repeats).
pub fn fields_shown(program: &Program, parts: &[TextPart]) -> Vec<String> {
    let mut out = Vec::new();
    ir::for_each_interpolation(parts, &mut |e| {
        e.walk(&mut |sub| {
            if let Expr::Field { table, field, .. } = sub {
                let name = field_name(program, *table, *field);
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        })
    });
    out
}

/// `Table.field`
pub fn field_name(program: &Program, table: ir::TableId, field: ir::FieldId) -> String {
    format!(
        "{}.{}",
        table_name(program, table),
        program
            .tables
            .get(table as usize)
            .and_then(|t| t.fields.get(field as usize))
            .map_or("?", |f| f.name.as_str())
    )
}

pub fn table_name(program: &Program, table: ir::TableId) -> &str {
    program
        .tables
        .get(table as usize)
        .map_or("?", |t| t.name.as_str())
}

pub fn page_name(program: &Program, page: ir::PageId) -> &str {
    program
        .pages
        .get(page as usize)
        .map_or("?", |p| p.name.as_str())
}

struct Printer<'a> {
    program: &'a Program,
    names: &'a Names,
}

/// Binding strength, loosest first (§3): `or`, `and`, `not`, comparisons,
/// `+ -`, `* / %`, unary minus, postfix.
fn strength(e: &Expr) -> u8 {
    use ir::BinaryOp::*;
    match e {
        Expr::Binary(Or, ..) => 1,
        Expr::Binary(And, ..) => 2,
        Expr::Unary(UnaryOp::Not, _) => 3,
        Expr::Binary(Eq | Ne | Lt | Le | Gt | Ge, ..) | Expr::In(..) => 4,
        Expr::Binary(Add | Sub, ..) => 5,
        Expr::Binary(Mul | Div | Rem, ..) => 6,
        Expr::Unary(UnaryOp::Neg, _) => 7,
        // Quantifiers extend as far right as possible: parenthesise them
        // anywhere but at the top.
        Expr::Exists(..) | Expr::All(..) => 0,
        _ => 8,
    }
}

impl Printer<'_> {
    /// `e`, in parentheses when it binds looser than `min`.
    fn expr(&self, e: &Expr, min: u8) -> String {
        let s = self.bare(e);
        if strength(e) < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn bare(&self, e: &Expr) -> String {
        let p = self.program;
        match e {
            Expr::Const(v) => self.value(v, None),
            Expr::Local(slot) => self.local(*slot),
            Expr::Session(s) => format!(
                "session.{}",
                p.session.get(*s as usize).map_or("?", |d| d.name.as_str())
            ),
            Expr::Field { row, table, field } => {
                let name = field_name(p, *table, *field);
                let field = name.rsplit('.').next().unwrap_or("?");
                format!("{}.{field}", self.expr(row, 8))
            }
            Expr::RowId(row) => format!("{}.id", self.expr(row, 8)),
            Expr::Lookup { table, id } => {
                format!("{}[{}]", table_name(p, *table), self.expr(id, 0))
            }
            Expr::Unary(UnaryOp::Neg, x) => format!("-{}", self.expr(x, 7)),
            Expr::Unary(UnaryOp::Not, x) => format!("not {}", self.expr(x, 3)),
            Expr::Binary(op, l, r) => self.binary(*op, l, r, strength(e)),
            Expr::In(x, items) => {
                let hint = self.enum_of(x);
                let items: Vec<String> = items.iter().map(|i| self.hinted(i, hint)).collect();
                format!("{} in [{}]", self.expr(x, 5), items.join(", "))
            }
            Expr::Exists(scan, body) | Expr::All(scan, body) => {
                let q = if matches!(e, Expr::Exists(..)) {
                    "exists"
                } else {
                    "all"
                };
                self.in_scope(scan, |inner| {
                    format!(
                        "{q} {}: {}",
                        inner.scan_head(scan, false),
                        inner.expr(body, 0)
                    )
                })
            }
            Expr::Count(scan) => self.in_scope(scan, |inner| {
                format!("count({})", inner.scan_head(scan, true))
            }),
            Expr::Aggregate { kind, value, scan } => {
                let f = match kind {
                    AggKind::Sum | AggKind::SumMoney => "sum",
                    AggKind::Min => "min",
                    AggKind::Max => "max",
                };
                self.in_scope(scan, |inner| {
                    format!(
                        "{f}({} for {})",
                        inner.expr(value, 0),
                        inner.scan_head(scan, false)
                    )
                })
            }
            Expr::Find(scan) => self.in_scope(scan, |inner| {
                format!("find {}", inner.scan_head(scan, false))
            }),
            Expr::Call(b, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a, 0)).collect();
                format!("{}({})", b.name(), args.join(", "))
            }
            Expr::Text(parts) => format!("\"{}\"", text(p, self.names, parts)),
            Expr::Visited(call) => format!("visited {}", self.call(call)),
            Expr::PageIs(call) => format!("page is {}", self.call(call)),
        }
    }

    fn binary(&self, op: ir::BinaryOp, l: &Expr, r: &Expr, own: u8) -> String {
        // Left-associative: the right operand needs parentheses at equal strength.
        let (ls, rs) = match self.enum_of(l).or_else(|| self.enum_of(r)) {
            Some(hint) => (
                self.hinted_at(l, Some(hint), own),
                self.hinted_at(r, Some(hint), own + 1),
            ),
            None => (self.expr(l, own), self.expr(r, own + 1)),
        };
        format!("{ls} {} {rs}", op.symbol())
    }

    fn hinted(&self, e: &Expr, hint: Option<ir::EnumId>) -> String {
        self.hinted_at(e, hint, 0)
    }

    fn hinted_at(&self, e: &Expr, hint: Option<ir::EnumId>, min: u8) -> String {
        match e {
            Expr::Const(v) => self.value(v, hint),
            _ => self.expr(e, min),
        }
    }

    /// The enum an expression's static type names, where it is plain to see.
    fn enum_of(&self, e: &Expr) -> Option<ir::EnumId> {
        let ty = match e {
            Expr::Field { table, field, .. } => self
                .program
                .tables
                .get(*table as usize)?
                .fields
                .get(*field as usize)
                .map(|f| &f.ty),
            Expr::Session(s) => self.program.session.get(*s as usize).map(|d| &d.ty),
            Expr::Local(slot) => self.names.slots.get(slot)?.1.as_ref(),
            _ => None,
        }?;
        match ty {
            Ty::Enum(id) => Some(*id),
            Ty::Optional(inner) => match **inner {
                Ty::Enum(id) => Some(id),
                _ => None,
            },
            _ => None,
        }
    }

    fn local(&self, slot: Slot) -> String {
        self.names
            .slots
            .get(&slot)
            .map_or_else(|| format!("local_{slot}"), |(n, _)| n.clone())
    }

    /// Runs `f` with a printer that knows the scan's binder.
    fn in_scope<R>(&self, scan: &RowScan, f: impl FnOnce(&Printer<'_>) -> R) -> R {
        let names = self.binding(scan);
        f(&Printer {
            program: self.program,
            names: &names,
        })
    }

    /// The names with a quantifier's binder bound (as `x_N`, its slot: lowering
    /// dropped the name).
    fn binding(&self, scan: &RowScan) -> Names {
        let mut names = self.names.clone();
        if !names.slots.contains_key(&scan.binder) {
            names.bind(scan.binder, &format!("x_{}", scan.binder), Some(scan.table));
        }
        names
    }

    /// `x in T where c` (or `T` alone for a bare `count(T)`).
    fn scan_head(&self, scan: &RowScan, bare_ok: bool) -> String {
        let table = table_name(self.program, scan.table);
        let binder = self
            .names
            .slots
            .get(&scan.binder)
            .map_or_else(|| format!("x_{}", scan.binder), |(n, _)| n.clone());
        match &scan.filter {
            None if bare_ok => table.to_string(),
            None => format!("{binder} in {table}"),
            Some(f) => format!("{binder} in {table} where {}", self.expr(f, 0)),
        }
    }

    fn call(&self, call: &ir::PageCall) -> String {
        let name = page_name(self.program, call.page);
        if call.args.is_empty() {
            return name.to_string();
        }
        let args: Vec<String> = call.args.iter().map(|a| self.expr(a, 0)).collect();
        format!("{name}({})", args.join(", "))
    }

    fn value(&self, v: &Value, hint: Option<ir::EnumId>) -> String {
        match v {
            Value::Enum(i) => hint
                .and_then(|e| self.program.enums.get(e as usize))
                .and_then(|e| e.variants.get(*i as usize))
                .cloned()
                .unwrap_or_else(|| format!("variant_{i}")),
            Value::Row(id) => format!("#{id}"),
            plain => crate::tasks::source::plain_literal(plain).unwrap_or_default(),
        }
    }
}

/// A page call as source (`ProductPage(p)`), for callers outside this module.
pub fn page_call(program: &Program, names: &Names, call: &ir::PageCall) -> String {
    Printer { program, names }.call(call)
}
