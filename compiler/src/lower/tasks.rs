//! Lowering tasks: templates, instructions, goals or answers, progress, key
//! nodes, typeable values and `setup`.

use super::expr::ExprLowerer;
use super::{markers, LowerError, Names};
use crate::check::types::Typed;
use crate::syntax::ast::{self, ExprKind, KeyNode};
use wsite_runtime::ir;

/// Tasks run for 40 steps unless they say otherwise.
const DEFAULT_HORIZON: u32 = 40;

pub(crate) fn task(
    t: &ast::TaskDecl,
    names: &Names<'_>,
    typed: &Typed,
) -> Result<ir::TaskDef, LowerError> {
    let mut lw = ExprLowerer::new(names, typed);
    let template = match &t.template {
        Some(tp) => {
            let scan = lw.scan(Some(&tp.binder), &tp.table, tp.filter.as_ref())?;
            Some(ir::TaskTemplate {
                scan,
                binder_name: tp.binder.name.clone(),
                limit: lw.opt(tp.limit.as_ref())?,
            })
        }
        None => None,
    };
    // `setup` runs first, so its `let`s are in scope for nothing else; lowering
    // it first keeps slot numbering in execution order.
    let setup = match &t.setup {
        Some(stmts) => markers::stmts(&mut lw, stmts)?,
        None => Vec::new(),
    };
    let say = t
        .say
        .as_ref()
        .map(|s| lw.parts(s))
        .transpose()?
        .unwrap_or_default();
    let start = t.start.as_ref().map(|s| lw.page_call(s)).transpose()?;
    let goal = lw.opt(t.goal.as_ref())?;
    let answer = t.answer.as_ref().map(|a| answer(&mut lw, a)).transpose()?;
    let progress = t
        .progress
        .iter()
        .map(|p| Ok((p.weight.map_or(1, |(w, _)| w), lw.expr(&p.pred)?)))
        .collect::<Result<Vec<_>, LowerError>>()?;
    let key = t
        .key
        .iter()
        .flatten()
        .map(|k| match k {
            KeyNode::Page(r) => lw.page_call(r).map(ir::KeyNode::Page),
            KeyNode::Element(n) => Ok(ir::KeyNode::Element(n.name.clone())),
        })
        .collect::<Result<Vec<_>, LowerError>>()?;
    Ok(ir::TaskDef {
        name: t.name.name.clone(),
        template,
        say,
        start,
        horizon: t.horizon.map_or(DEFAULT_HORIZON, |(h, _)| {
            h.clamp(0, i64::from(u32::MAX)) as u32
        }),
        goal,
        answer,
        progress,
        key,
        values: t.values.iter().map(|v| v.plain()).collect(),
        setup,
        frame: lw.frame_size(),
    })
}

/// `answer ["a", "b"]` lists equivalent texts; any other expression is one
/// expected value, matched with its type's usual variants.
fn answer(lw: &mut ExprLowerer<'_, '_>, a: &ast::Expr) -> Result<ir::Answer, LowerError> {
    if let ExprKind::List(items) = &a.kind {
        let texts = items
            .iter()
            .filter_map(|i| match &i.kind {
                ExprKind::Text(t) => Some(t.plain()),
                _ => None,
            })
            .collect();
        return Ok(ir::Answer::Texts(texts));
    }
    let ty = lw.names().ty(lw.typed().ty(a.id), a.span)?;
    Ok(ir::Answer::Value(lw.expr(a)?, ty))
}
