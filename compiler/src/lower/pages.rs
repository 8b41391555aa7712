//! Lowering pages, their guards and their elements. Form variables get frame
//! slots like any local; a page `let` gets none: its uses are its expression
//! (`ExprLowerer::inline`). Each element gets an id (document order within its
//! page) and its source position, which together make its stable key.

use super::expr::ExprLowerer;
use super::{bug, LowerError, Names};
use crate::check::types::Typed;
use crate::syntax::ast::{self, ElementKind, LoopSource};
use wsite_runtime::ir;

/// Lowers one page; `line_col` turns a byte offset into a source position.
pub(crate) fn page(
    p: &ast::PageDecl,
    names: &Names<'_>,
    typed: &Typed,
    line_col: &dyn Fn(ast::Span) -> ir::SourcePos,
) -> Result<ir::PageDef, LowerError> {
    let mut lw = ExprLowerer::new(names, typed);
    let params = super::markers::params(&mut lw, &p.params, names)?;
    let route = p.route.as_ref().map(|r| lw.parts(r)).transpose()?;
    let guards = p
        .guards
        .iter()
        .map(|g| {
            Ok(ir::PageGuard {
                cond: lw.expr(&g.cond)?,
                redirect: lw.page_call(&g.target)?,
            })
        })
        .collect::<Result<Vec<_>, LowerError>>()?;
    let title = p.titles.first().map(|t| lw.parts(t)).transpose()?;
    let mut walker = Elements {
        lw,
        line_col,
        next_id: 0,
    };
    let body = walker.all(&p.body)?;
    Ok(ir::PageDef {
        name: p.name.name.clone(),
        params,
        route,
        guards,
        title,
        body,
        frame: walker.lw.frame_size(),
    })
}

struct Elements<'l, 'n, 'a> {
    lw: ExprLowerer<'n, 'a>,
    line_col: &'l dyn Fn(ast::Span) -> ir::SourcePos,
    next_id: u32,
}

impl Elements<'_, '_, '_> {
    /// A block's elements; a page `let` becomes no element (its uses are its
    /// expression, `ExprLowerer::inline`).
    fn all(&mut self, els: &[ast::Element]) -> Result<Vec<ir::Element>, LowerError> {
        let mut out = Vec::with_capacity(els.len());
        for e in els {
            if let ElementKind::Let { var, value } = &e.kind {
                let value = self.lw.expr(value)?;
                self.lw.inline(var, value);
                continue;
            }
            out.push(self.element(e)?);
        }
        Ok(out)
    }

    fn element(&mut self, e: &ast::Element) -> Result<ir::Element, LowerError> {
        let id = self.next_id;
        self.next_id += 1;
        let kind = self.kind(e)?;
        Ok(ir::Element {
            id,
            name: e.name.as_ref().map(|n| n.name.clone()),
            pos: (self.line_col)(e.span),
            kind,
        })
    }

    fn kind(&mut self, e: &ast::Element) -> Result<ir::ElementKind, LowerError> {
        let lw = &mut self.lw;
        Ok(match &e.kind {
            ElementKind::Heading(t) => ir::ElementKind::Heading(lw.parts(t)?),
            ElementKind::Text(t) => ir::ElementKind::Text(lw.parts(t)?),
            ElementKind::Image(t) => ir::ElementKind::Image(lw.parts(t)?),
            ElementKind::Link {
                label,
                target,
                disabled,
            } => ir::ElementKind::Link {
                label: lw.parts(label)?,
                target: lw.page_call(target)?,
                disabled: lw.opt(disabled.as_ref())?,
            },
            ElementKind::Button {
                label,
                target,
                disabled,
            } => ir::ElementKind::Button {
                label: lw.parts(label)?,
                action: lw.action(target)?,
                disabled: lw.opt(disabled.as_ref())?,
            },
            ElementKind::Input { var, ty, label } => {
                let label = lw.parts(label)?;
                let ty = input_type(ty.as_ref(), lw.names())?;
                ir::ElementKind::Input {
                    slot: lw.declare(var),
                    ty,
                    label,
                }
            }
            ElementKind::SelectList {
                var,
                ty,
                label,
                options,
            } => {
                let label = lw.parts(label)?;
                let options = options
                    .iter()
                    .map(|o| lw.expr(o))
                    .collect::<Result<Vec<_>, _>>()?;
                let ty = match ty {
                    Some(te) => lw.names().type_expr(te)?,
                    None => ir::Ty::Text,
                };
                ir::ElementKind::SelectList {
                    slot: lw.declare(var),
                    ty,
                    label,
                    options,
                }
            }
            ElementKind::SelectFrom {
                var,
                label,
                binder,
                table,
                filter,
                show,
                ..
            } => {
                let label = lw.parts(label)?;
                let scan = lw.scan(Some(binder), table, filter.as_ref())?;
                let show = lw.show_parts(show)?;
                let table = scan.table;
                ir::ElementKind::SelectFrom {
                    slot: lw.declare(var),
                    table,
                    label,
                    scan,
                    show,
                }
            }
            ElementKind::Checkbox { var, label } => {
                let label = lw.parts(label)?;
                ir::ElementKind::Checkbox {
                    slot: lw.declare(var),
                    label,
                }
            }
            ElementKind::Section { label, body } => {
                let label = self.lw.parts(label)?;
                ir::ElementKind::Section {
                    label,
                    body: self.all(body)?,
                }
            }
            ElementKind::For(f) => ir::ElementKind::For(self.for_element(f)?),
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.lw.expr(cond)?;
                ir::ElementKind::If {
                    cond,
                    then: self.all(then)?,
                    otherwise: self.all(otherwise)?,
                }
            }
            ElementKind::Let { var, .. } => {
                return Err(bug(var.span, "a page `let` lowered as an element".into()))
            }
            ElementKind::Stmt(s) => return Err(bug(s.span, "a statement on a page".into())),
        })
    }

    fn for_element(&mut self, f: &ast::ForElement) -> Result<ir::ForElement, LowerError> {
        let source = match &f.source {
            LoopSource::Table(table) => {
                ir::LoopSource::Rows(self.lw.scan(Some(&f.binder), table, f.filter.as_ref())?)
            }
            LoopSource::List(items, _) => {
                let items = items
                    .iter()
                    .map(|i| self.lw.expr(i))
                    .collect::<Result<Vec<_>, _>>()?;
                let slot = self.lw.declare(&f.binder);
                let filter = self.lw.opt(f.filter.as_ref())?.map(Box::new);
                ir::LoopSource::List {
                    slot,
                    items,
                    filter,
                }
            }
        };
        let order = match &f.order {
            Some(o) => Some((self.lw.expr(&o.key)?, o.descending)),
            None => None,
        };
        let limit = self.lw.opt(f.limit.as_ref())?;
        let offset = self.lw.opt(f.offset.as_ref())?;
        Ok(ir::ForElement {
            binder_name: f.binder.name.clone(),
            source,
            order,
            limit,
            offset,
            body: self.all(&f.body)?,
        })
    }
}

/// An input's variable type: `Text` by default; dates and times start empty, so
/// theirs are optional (docs/DECISIONS.md, 10).
fn input_type(ty: Option<&ast::TypeExpr>, names: &Names<'_>) -> Result<ir::Ty, LowerError> {
    let Some(te) = ty else {
        return Ok(ir::Ty::Text);
    };
    Ok(match names.type_expr(te)? {
        t @ (ir::Ty::Date | ir::Ty::Time) => ir::Ty::Optional(Box::new(t)),
        t => t,
    })
}
