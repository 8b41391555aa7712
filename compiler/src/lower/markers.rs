//! Lowering markers (permissions, `requires`, statements) and the statements
//! of task `setup` blocks.

use super::expr::ExprLowerer;
use super::{bug, LowerError, Names};
use crate::check::types::{Access, Ty as CheckTy, Typed};
use crate::syntax::ast::{self, ExprKind, StmtKind};
use wsite_runtime::ir;

/// Declares parameters in order, so they take slots `0..n`.
pub(crate) fn params(
    lw: &mut ExprLowerer<'_, '_>,
    params: &[ast::Param],
    names: &Names<'_>,
) -> Result<Vec<ir::ParamDef>, LowerError> {
    params
        .iter()
        .map(|p| {
            lw.declare(&p.name);
            Ok(ir::ParamDef {
                name: p.name.name.clone(),
                ty: names.type_expr(&p.ty)?,
            })
        })
        .collect()
}

pub(crate) fn marker(
    m: &ast::MarkerDecl,
    names: &Names<'_>,
    typed: &Typed,
) -> Result<ir::MarkerDef, LowerError> {
    let mut lw = ExprLowerer::new(names, typed);
    let params = params(&mut lw, &m.params, names)?;
    let reads = permissions(&m.reads, names)?;
    let writes = permissions(&m.writes, names)?;
    let requires = m
        .requires
        .iter()
        .map(|r| {
            let cond = lw.expr(&r.cond)?;
            let message = r.message.as_ref().map(|t| lw.parts(t)).transpose()?;
            Ok(ir::Requirement { cond, message })
        })
        .collect::<Result<Vec<_>, LowerError>>()?;
    let body = stmts(&mut lw, &m.body)?;
    Ok(ir::MarkerDef {
        name: m.name.name.clone(),
        params,
        reads,
        writes,
        requires,
        body,
        is_extern: m.is_extern,
        frame: lw.frame_size(),
    })
}

fn permissions(
    perms: &[ast::Permission],
    names: &Names<'_>,
) -> Result<Vec<ir::Permission>, LowerError> {
    perms
        .iter()
        // `T.id` grants nothing: `id` is read-only and reading it needs no
        // permission (the checker warns, S107).
        .filter(|p| p.field.as_ref().is_none_or(|f| f.name != "id"))
        .map(|p| {
            let base = p.base.name.as_str();
            match &p.field {
                Some(f) if base == "session" && !names.tables.contains_key(base) => names
                    .session
                    .get(f.name.as_str())
                    .map(|s| ir::Permission::Session(*s))
                    .ok_or_else(|| bug(p.span, format!("unknown session variable `{}`", f.name))),
                Some(f) => Ok(ir::Permission::Field(
                    names.table(base, p.span)?,
                    names.field(base, &f.name, p.span)?,
                )),
                None => Ok(ir::Permission::Table(names.table(base, p.span)?)),
            }
        })
        .collect()
}

pub(crate) fn stmts(
    lw: &mut ExprLowerer<'_, '_>,
    body: &[ast::Stmt],
) -> Result<Vec<ir::Stmt>, LowerError> {
    body.iter().map(|s| stmt(lw, s)).collect()
}

fn stmt(lw: &mut ExprLowerer<'_, '_>, s: &ast::Stmt) -> Result<ir::Stmt, LowerError> {
    Ok(match &s.kind {
        StmtKind::Let { name, value } => {
            let value = lw.expr(value)?;
            ir::Stmt::Let(lw.declare(name), value)
        }
        StmtKind::Insert {
            name,
            table,
            fields,
        } => {
            let names = lw.names();
            let tid = names.table(&table.name, table.span)?;
            let fields = fields
                .iter()
                .map(|f| {
                    Ok((
                        names.field(&table.name, &f.name.name, f.name.span)?,
                        lw.expr(&f.value)?,
                    ))
                })
                .collect::<Result<Vec<_>, LowerError>>()?;
            let slot = name.as_ref().map(|n| lw.declare(n));
            ir::Stmt::Insert {
                slot,
                table: tid,
                fields,
            }
        }
        StmtKind::Set { target, value } => set(lw, target, value)?,
        StmtKind::Delete(row) => {
            let table = match lw.typed().ty(row.id).base() {
                CheckTy::Row(t) => lw.names().table(t, row.span)?,
                _ => {
                    return Err(bug(
                        row.span,
                        "`delete` of something that is not a row".into(),
                    ))
                }
            };
            ir::Stmt::Delete {
                table,
                row: lw.expr(row)?,
            }
        }
        StmtKind::DeleteAll {
            binder,
            table,
            filter,
        } => ir::Stmt::DeleteAll(lw.scan(Some(binder), table, filter.as_ref())?),
        StmtKind::For {
            binder,
            table,
            filter,
            body,
        } => {
            let scan = lw.scan(Some(binder), table, filter.as_ref())?;
            ir::Stmt::For(scan, stmts(lw, body)?)
        }
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => ir::Stmt::If(lw.expr(cond)?, stmts(lw, then)?, stmts(lw, otherwise)?),
        StmtKind::Reject(text) => ir::Stmt::Reject(lw.parts(text)?),
        StmtKind::Go(target) => ir::Stmt::Go(lw.page_call(target)?),
    })
}

fn set(
    lw: &mut ExprLowerer<'_, '_>,
    target: &ast::Expr,
    value: &ast::Expr,
) -> Result<ir::Stmt, LowerError> {
    let access = lw.typed().sets.get(&target.id).cloned();
    match (access, &target.kind) {
        (Some(Access::Session(var)), _) => {
            let id = lw
                .names()
                .session
                .get(var.as_str())
                .copied()
                .ok_or_else(|| bug(target.span, format!("unknown session variable `{var}`")))?;
            Ok(ir::Stmt::SetSession(id, lw.expr(value)?))
        }
        (Some(Access::Field { table, field }), ExprKind::Field(row, _)) => {
            let names = lw.names();
            let (tid, fid) = (
                names.table(&table, target.span)?,
                names.field(&table, &field, target.span)?,
            );
            Ok(ir::Stmt::SetField {
                row: lw.expr(row)?,
                table: tid,
                field: fid,
                value: lw.expr(value)?,
            })
        }
        _ => Err(bug(target.span, "an unresolved `set` target".into())),
    }
}
