//! Lowering: a checked program (AST + what type checking learned) becomes the
//! runtime's IR, with every name replaced by an index.
//!
//! Lowering runs only on programs without errors, so it trusts the checker: a
//! name that fails to resolve here is a compiler bug, reported as an
//! [`LowerError`] rather than a panic. Tables, enums and session variables are
//! numbered in declaration order across files, so the IR of a program is the
//! same on every run.

mod expr;
mod markers;
mod pages;
mod tasks;

use crate::check::semantic::seed_ids;
use crate::check::types::{Resolved, Ty as CheckTy, Typed};
use crate::check::Symbols;
use crate::syntax::ast::{self, DeclKind, Expr, ExprKind, SourceFile, Span, UnaryOp};
use std::collections::BTreeMap;
use wsite_runtime::ir;
use wsite_runtime::value::Date;

/// Lowering found something the checker should have rejected.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    pub span: Span,
    pub message: String,
}

/// The IR of a program plus where each invariant came from, for diagnostics.
pub struct Lowered {
    pub program: ir::Program,
    pub invariant_spans: Vec<Span>,
}

/// Name → index tables shared by every part of lowering.
pub(crate) struct Names<'a> {
    pub tables: BTreeMap<&'a str, ir::TableId>,
    pub fields: BTreeMap<&'a str, Vec<&'a str>>,
    pub enums: BTreeMap<&'a str, (ir::EnumId, Vec<&'a str>)>,
    pub session: BTreeMap<&'a str, ir::SessionId>,
    pub pages: BTreeMap<&'a str, ir::PageId>,
    pub markers: BTreeMap<&'a str, ir::MarkerId>,
}

/// Lowers the data, session and invariants of a checked program.
/// Lowers a checked program. `texts` are the files' source texts (for the
/// line and column in each element's stable key).
pub fn lower(files: &[SourceFile], texts: &[&str], typed: &Typed) -> Result<Lowered, LowerError> {
    let mut scratch = crate::diagnostics::Diagnostics::default();
    let symbols = Symbols::collect(files, &mut scratch);
    let decls: Vec<&ast::Decl> = files.iter().flat_map(|f| &f.decls).collect();
    let names = Names::collect(&decls);
    let mut tables = Vec::new();
    let mut declared_max = Vec::new();
    for decl in &decls {
        if let DeclKind::Table(t) = &decl.kind {
            tables.push(table_def(t, &names)?);
            declared_max.push(t.max.map(|(n, _)| n));
        }
    }
    fill_seeds(&symbols, &names, typed, &mut tables)?;
    // `max N`, or room for the seed rows and 64 more (spec §5.1).
    for (table, max) in tables.iter_mut().zip(declared_max) {
        table.capacity = match max {
            Some(n) => n.clamp(0, i64::from(u32::MAX)) as u32,
            None => (table.seed.len() as u32).saturating_add(64),
        };
    }
    let session = session_defs(&decls, &names, typed)?;
    let (invariants, invariant_spans) = invariants(&decls, &names, typed)?;
    let site = site_info(symbols.site, typed, &names)?;
    let line_col = |span: Span| {
        let text = texts.get(span.file.0 as usize).copied().unwrap_or("");
        let (line, column) = crate::diagnostics::json::line_col(text, span.start as usize);
        ir::SourcePos {
            line: line as u32,
            column: column as u32,
        }
    };
    let mut pages = Vec::new();
    let mut markers = Vec::new();
    let mut tasks = Vec::new();
    for decl in &decls {
        match &decl.kind {
            DeclKind::Page(p) => pages.push(pages::page(p, &names, typed, &line_col)?),
            DeclKind::Marker(mk) => markers.push(markers::marker(mk, &names, typed)?),
            DeclKind::Task(t) => tasks.push(tasks::task(t, &names, typed)?),
            _ => {}
        }
    }
    let enums = decls
        .iter()
        .filter_map(|d| match &d.kind {
            DeclKind::Enum(e) => Some(ir::EnumDef {
                name: e.name.name.clone(),
                variants: e.variants.iter().map(|v| v.name.clone()).collect(),
            }),
            _ => None,
        })
        .collect();
    Ok(Lowered {
        program: ir::Program {
            site,
            enums,
            tables,
            session,
            invariants,
            pages,
            markers,
            tasks,
        },
        invariant_spans,
    })
}

impl<'a> Names<'a> {
    fn collect(decls: &[&'a ast::Decl]) -> Names<'a> {
        let mut names = Names {
            tables: BTreeMap::new(),
            fields: BTreeMap::new(),
            enums: BTreeMap::new(),
            session: BTreeMap::new(),
            pages: BTreeMap::new(),
            markers: BTreeMap::new(),
        };
        for decl in decls {
            match &decl.kind {
                DeclKind::Table(t) => {
                    let id = names.tables.len() as ir::TableId;
                    names.tables.insert(&t.name.name, id);
                    names.fields.insert(
                        &t.name.name,
                        t.fields.iter().map(|f| f.name.name.as_str()).collect(),
                    );
                }
                DeclKind::Enum(e) => {
                    let id = names.enums.len() as ir::EnumId;
                    names.enums.insert(
                        &e.name.name,
                        (id, e.variants.iter().map(|v| v.name.as_str()).collect()),
                    );
                }
                DeclKind::Page(p) => {
                    let id = names.pages.len() as ir::PageId;
                    names.pages.insert(&p.name.name, id);
                }
                DeclKind::Marker(mk) => {
                    let id = names.markers.len() as ir::MarkerId;
                    names.markers.insert(&mk.name.name, id);
                }
                DeclKind::Session(s) => {
                    for var in &s.vars {
                        let id = names.session.len() as ir::SessionId;
                        names.session.insert(&var.name.name, id);
                    }
                }
                _ => {}
            }
        }
        names
    }

    pub fn table(&self, name: &str, span: Span) -> Result<ir::TableId, LowerError> {
        self.tables
            .get(name)
            .copied()
            .ok_or_else(|| bug(span, format!("unknown table `{name}`")))
    }

    pub fn field(&self, table: &str, field: &str, span: Span) -> Result<ir::FieldId, LowerError> {
        self.fields
            .get(table)
            .and_then(|fs| fs.iter().position(|f| *f == field))
            .map(|i| i as ir::FieldId)
            .ok_or_else(|| bug(span, format!("unknown field `{table}.{field}`")))
    }

    pub fn variant(
        &self,
        enum_name: &str,
        variant: &str,
        span: Span,
    ) -> Result<(ir::EnumId, u32), LowerError> {
        let (id, variants) = self
            .enums
            .get(enum_name)
            .ok_or_else(|| bug(span, format!("unknown enum `{enum_name}`")))?;
        let index = variants
            .iter()
            .position(|v| *v == variant)
            .ok_or_else(|| bug(span, format!("unknown variant `{variant}`")))?;
        Ok((*id, index as u32))
    }

    /// A checker type as an IR type.
    pub fn ty(&self, ty: &CheckTy, span: Span) -> Result<ir::Ty, LowerError> {
        Ok(match ty {
            CheckTy::Int => ir::Ty::Int,
            CheckTy::Money => ir::Ty::Money,
            CheckTy::Bool => ir::Ty::Bool,
            CheckTy::Text => ir::Ty::Text,
            CheckTy::Date => ir::Ty::Date,
            CheckTy::Time => ir::Ty::Time,
            CheckTy::Enum(e) => ir::Ty::Enum(
                self.enums
                    .get(e.as_str())
                    .map(|(id, _)| *id)
                    .ok_or_else(|| bug(span, format!("unknown enum `{e}`")))?,
            ),
            CheckTy::Row(t) => ir::Ty::Row(self.table(t, span)?),
            CheckTy::Optional(inner) => ir::Ty::Optional(Box::new(self.ty(inner, span)?)),
            // `none` with no context renders as the empty string whatever it is.
            CheckTy::None => ir::Ty::Optional(Box::new(ir::Ty::Text)),
            CheckTy::List(_) | CheckTy::Error => {
                return Err(bug(span, format!("no run-time type for `{ty}`")))
            }
        })
    }

    /// A written type (`Product`, `Date?`) as an IR type.
    fn type_expr(&self, te: &ast::TypeExpr) -> Result<ir::Ty, LowerError> {
        let base = match te.name.name.as_str() {
            "Int" => ir::Ty::Int,
            "Money" => ir::Ty::Money,
            "Bool" => ir::Ty::Bool,
            "Text" => ir::Ty::Text,
            "Date" => ir::Ty::Date,
            "Time" => ir::Ty::Time,
            other => match (self.enums.get(other), self.tables.get(other)) {
                (Some((id, _)), _) => ir::Ty::Enum(*id),
                (None, Some(id)) => ir::Ty::Row(*id),
                (None, None) => return Err(bug(te.span, format!("unknown type `{other}`"))),
            },
        };
        Ok(if te.optional {
            ir::Ty::Optional(Box::new(base))
        } else {
            base
        })
    }
}

pub(crate) fn bug(span: Span, message: String) -> LowerError {
    LowerError { span, message }
}

fn table_def(t: &ast::TableDecl, names: &Names<'_>) -> Result<ir::TableDef, LowerError> {
    let fields = t
        .fields
        .iter()
        .map(|f| {
            Ok(ir::FieldDef {
                name: f.name.name.clone(),
                ty: names.type_expr(&f.ty)?,
            })
        })
        .collect::<Result<Vec<_>, LowerError>>()?;
    Ok(ir::TableDef {
        name: t.name.name.clone(),
        fields,
        capacity: 0,
        seed: Vec::new(),
    })
}

/// Seed rows in id order; a table without `max` holds its seed rows + 64.
fn fill_seeds(
    symbols: &Symbols<'_>,
    names: &Names<'_>,
    typed: &Typed,
    tables: &mut [ir::TableDef],
) -> Result<(), LowerError> {
    for (table_name, rows) in seed_ids(symbols) {
        let Some(&tid) = names.tables.get(table_name) else {
            continue;
        };
        let Some(table) = tables.get_mut(tid as usize) else {
            continue;
        };
        for seed in rows {
            let mut values = Vec::with_capacity(table.fields.len());
            for field in &table.fields {
                let given = seed.row.fields.iter().find(|f| f.name.name == field.name);
                values.push(match given {
                    Some(init) => constant(&init.value, names, typed)?,
                    None => ir::Value::None,
                });
            }
            table.seed.push(ir::RowData {
                id: seed.id,
                values,
            });
        }
        table.seed.sort_by_key(|r| r.id);
    }
    Ok(())
}

/// A constant expression (seed values, session initial values): a literal, `-`
/// before a number or money, `none`, an enum variant or `T[id]`.
pub(crate) fn constant(
    e: &Expr,
    names: &Names<'_>,
    typed: &Typed,
) -> Result<ir::Value, LowerError> {
    Ok(match &e.kind {
        ExprKind::Int(v) => ir::Value::Int(*v),
        ExprKind::Money(v) => ir::Value::Money(*v),
        ExprKind::Bool(b) => ir::Value::Bool(*b),
        ExprKind::Text(t) => ir::Value::Text(t.plain().into()),
        ExprKind::Date(d) => ir::Value::Date(*d),
        ExprKind::Time(t) => ir::Value::Time(*t),
        ExprKind::None => ir::Value::None,
        ExprKind::Unary(UnaryOp::Neg, inner) => match constant(inner, names, typed)? {
            ir::Value::Int(v) => ir::Value::Int(
                v.checked_neg()
                    .ok_or_else(|| bug(e.span, "integer overflow".into()))?,
            ),
            ir::Value::Money(v) => ir::Value::Money(
                v.checked_neg()
                    .ok_or_else(|| bug(e.span, "money overflow".into()))?,
            ),
            _ => return Err(bug(e.span, "`-` before a non-number".into())),
        },
        ExprKind::Name(_) => match typed.names.get(&e.id) {
            Some(Resolved::Variant { enum_name, variant }) => {
                ir::Value::Enum(names.variant(enum_name, variant, e.span)?.1)
            }
            _ => {
                return Err(bug(
                    e.span,
                    "a constant name must be an enum variant".into(),
                ))
            }
        },
        ExprKind::Index(_, index) => match constant(index, names, typed)? {
            ir::Value::Int(id) => ir::Value::Row(id),
            _ => return Err(bug(e.span, "a row id must be an integer".into())),
        },
        _ => return Err(bug(e.span, "not a constant expression".into())),
    })
}

fn session_defs(
    decls: &[&ast::Decl],
    names: &Names<'_>,
    typed: &Typed,
) -> Result<Vec<ir::SessionDef>, LowerError> {
    let mut out = Vec::new();
    for decl in decls {
        if let DeclKind::Session(s) = &decl.kind {
            for var in &s.vars {
                out.push(ir::SessionDef {
                    name: var.name.name.clone(),
                    ty: names.type_expr(&var.ty)?,
                    init: constant(&var.init, names, typed)?,
                });
            }
        }
    }
    Ok(out)
}

fn invariants(
    decls: &[&ast::Decl],
    names: &Names<'_>,
    typed: &Typed,
) -> Result<(Vec<ir::InvariantDef>, Vec<Span>), LowerError> {
    let mut defs = Vec::new();
    let mut spans = Vec::new();
    for decl in decls {
        if let DeclKind::Invariant(inv) = &decl.kind {
            let mut lowerer = expr::ExprLowerer::new(names, typed);
            let cond = lowerer.expr(&inv.cond)?;
            defs.push(ir::InvariantDef {
                name: inv.name.name.clone(),
                cond,
                frame: lowerer.frame_size(),
            });
            spans.push(inv.name.span);
        }
    }
    Ok((defs, spans))
}

fn site_info(
    site: Option<&ast::SiteDecl>,
    typed: &Typed,
    names: &Names<'_>,
) -> Result<ir::SiteInfo, LowerError> {
    let Some(site) = site else {
        return Err(bug(Span::default(), "no site".into()));
    };
    let today = match &site.today {
        Some(e) => match constant(e, names, typed)? {
            ir::Value::Date(d) => d,
            _ => return Err(bug(e.span, "`today` must be a date".into())),
        },
        None => Date {
            year: 2026,
            month: 1,
            day: 1,
        },
    };
    let start = match &site.start {
        Some(r) => {
            let mut lw = expr::ExprLowerer::new(names, typed);
            lw.page_call(r)?
        }
        None => return Err(bug(site.name.span, "a site without `start`".into())),
    };
    Ok(ir::SiteInfo {
        name: site.name.name.clone(),
        title: site.title.as_ref().map(|t| t.plain()).unwrap_or_default(),
        domain: site
            .domain
            .as_ref()
            .map(|d| d.name.clone())
            .unwrap_or_default(),
        today,
        start,
    })
}
