//! A page over the flat state: every element instance in document order with
//! its loop path, role, rendered text, shown value, option texts, `disabled`
//! flag and handle (as words), plus the values its labels interpolated.
//!
//! Each page's element tree is compiled to a plan whose expressions (`if` and
//! `disabled when` conditions, loop filters, `order by` keys, limits and
//! offsets, link
//! and marker arguments, select options, label interpolations) are native
//! functions lowered exactly as predicates are; the plan is walked over the
//! state bytes, reading rows and form variables at the layout's offsets, with
//! the page's frame kept as encoded cells, and values rendered to text by
//! `text`. Rule for rule this is `env::observe`'s `render_page`; the page's
//! guards are compiled alongside (`guard`); a page using
//! something not handled here (a frame slot of two types, a list loop whose
//! items' type is not evident, an expression the lowering refuses) is
//! reported as not compiled, never approximated.

mod forms;
mod guard;
pub mod reads;
mod walk;

use super::label::resolve_fns;
pub(super) use super::label::{Calls, DefinedFn, FnKind, Label, NativeFn, Part, F};
use super::text::{i64_at, u32_at, Templates, TextCtx};
use super::{codegen, JitError, JitFault, Tag};
use crate::interp::eval::Fault;
use crate::ir::{self, ElementKind, Expr, PageId, Slot, Ty, Value};
use crate::layout::{StateLayout, TextPool, WORD};
pub use crate::page::{
    ElementInstance, FaultAt, HandleView, HandleWords, PageStructure, RenderMode, Span,
};
use cranelift_codegen::ir::{Signature, UserFuncName};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};
use std::cmp::Ordering;
use std::sync::Arc;

/// A form input's value before the agent touches it.
#[derive(Clone, Copy, Debug)]
enum Init {
    Word(i64),
    None,
    EmptyText,
}

#[derive(Debug)]
enum Node {
    Show {
        id: u32,
        role: &'static str,
        label: Label,
    },
    Section {
        id: u32,
        label: Label,
        body: Vec<Node>,
    },
    Go {
        id: u32,
        role: &'static str,
        label: Label,
        page: PageId,
        args: Vec<Arg>,
        disabled: Option<F>,
    },
    Marker {
        id: u32,
        label: Label,
        marker: ir::MarkerId,
        args: Vec<Arg>,
        disabled: Option<F>,
    },
    Input {
        id: u32,
        label: Label,
        ty: Ty,
        slot: usize,
        init: Init,
    },
    Checkbox {
        id: u32,
        label: Label,
        slot: usize,
    },
    SelectList {
        id: u32,
        label: Label,
        ty: Ty,
        slot: usize,
        options: Vec<F>,
    },
    SelectFrom {
        id: u32,
        label: Label,
        ty: Ty,
        slot: usize,
        table: usize,
        binder: usize,
        filter: Option<F>,
        show: Label,
    },
    Loop {
        source: Source,
        binder: usize,
        filter: Option<F>,
        order: Option<(F, bool)>,
        limit: Option<F>,
        offset: Option<F>,
        body: Vec<Node>,
    },
    If {
        cond: F,
        then: Vec<Node>,
        otherwise: Vec<Node>,
    },
}

/// A link's or button's argument.
#[derive(Clone, Copy, Debug)]
struct Arg {
    f: F,
    /// The form variable the argument is, on a page whose structure can
    /// be keyed apart from its form variables (`ir::rendered::form_use`);
    /// `None` otherwise.
    form: Option<usize>,
}

/// What a loop goes over.
#[derive(Debug)]
enum Source {
    /// A table's rows, in id order; each known by its id.
    Rows(usize),
    /// The items' functions; each known by its index in the list.
    List(Vec<F>),
}

/// A page's plan before finalization.
pub(crate) struct DefinedPage {
    body: Vec<Node>,
    guards: Vec<guard::GuardNode>,
    funcs: Vec<DefinedFn>,
    frame: usize,
    /// Whether the page's structure can be keyed apart from its form
    /// variables (`ir::rendered::form_use`; the whole arguments are
    /// [`Arg::form`]).
    forms_apart: bool,
}

struct PageNative {
    body: Vec<Node>,
    guards: Vec<guard::GuardNode>,
    funcs: Vec<NativeFn>,
    texts: Vec<(u32, Arc<str>)>,
    /// One past the largest id in `texts` (0 for none).
    texts_end: usize,
    frame: usize,
    forms_apart: bool,
}

/// One page: compiled, or why not.
pub(crate) struct JitPage {
    status: Result<PageNative, JitError>,
}

type R<T> = Result<T, JitError>;

/// A render's failure on bytes that do not fit the layout (the walk's and
/// the form list's reads).
fn corrupt(what: &str) -> JitFault {
    JitFault::Input(format!("the state does not fit the layout: {what}"))
}

fn unsupported<T>(why: impl Into<String>) -> R<T> {
    Err(JitError::Unsupported(why.into()))
}

/// Defines every page's functions in `module`.
pub(crate) fn define_pages(
    module: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    sig: &Signature,
    program: &ir::Program,
    layout: &StateLayout,
    pool: &mut TextPool,
    templates: &Templates,
) -> Vec<R<DefinedPage>> {
    program
        .pages
        .iter()
        .enumerate()
        .map(|(p, page)| {
            let slots = page_slots(program, page)?;
            let forms = ir::rendered::form_use(page);
            let mut d = Definer {
                module: &mut *module,
                ctx: &mut *ctx,
                sig,
                program,
                layout,
                pool: &mut *pool,
                templates,
                slots: &slots,
                symbol: format!("wsite_page_{p}"),
                funcs: Vec::new(),
                forms: forms.as_ref().map_or(&[], |f| f.slots.as_slice()),
            };
            let guards = d.guards(&page.guards)?;
            let body = d.nodes(&page.body)?;
            let funcs = d.funcs;
            Ok(DefinedPage {
                body,
                guards,
                funcs,
                frame: slots.len(),
                forms_apart: forms.is_some(),
            })
        })
        .collect()
}

/// The page frame's slot types: parameters, form variables and binders; a
/// slot given two types fails the page.
fn page_slots(program: &ir::Program, page: &ir::PageDef) -> R<Vec<Option<Ty>>> {
    fn base(ty: &Ty) -> &Ty {
        match ty {
            Ty::Optional(inner) => base(inner),
            t => t,
        }
    }
    fn assign(slots: &mut Vec<Option<Ty>>, slot: Slot, ty: &Ty) -> R<()> {
        let i = usize::try_from(slot).unwrap_or(usize::MAX);
        if i >= 1 << 16 {
            return unsupported(format!("slot {slot} out of range"));
        }
        if slots.len() <= i {
            slots.resize(i + 1, None);
        }
        let ty = base(ty).clone();
        match slots.get_mut(i) {
            Some(cell @ None) => *cell = Some(ty),
            Some(Some(t)) if *t == ty => {}
            _ => return unsupported(format!("frame slot {slot} holds values of two types")),
        }
        Ok(())
    }
    fn walk(program: &ir::Program, slots: &mut Vec<Option<Ty>>, els: &[ir::Element]) -> R<()> {
        for e in els {
            match &e.kind {
                ElementKind::Input { slot, ty, .. } | ElementKind::SelectList { slot, ty, .. } => {
                    assign(slots, *slot, ty)?
                }
                ElementKind::SelectFrom {
                    slot, table, scan, ..
                } => {
                    assign(slots, *slot, &Ty::Row(*table))?;
                    assign(slots, scan.binder, &Ty::Row(scan.table))?;
                }
                ElementKind::Checkbox { slot, .. } => assign(slots, *slot, &Ty::Bool)?,
                ElementKind::Section { body, .. } => walk(program, slots, body)?,
                ElementKind::For(f) => {
                    match &f.source {
                        ir::LoopSource::Rows(scan) => {
                            assign(slots, scan.binder, &Ty::Row(scan.table))?
                        }
                        ir::LoopSource::List { slot, items, .. } => {
                            let ty = list_item_ty(program, slots, items)?;
                            assign(slots, *slot, &ty)?
                        }
                    }
                    walk(program, slots, &f.body)?;
                }
                ElementKind::If {
                    then, otherwise, ..
                } => {
                    walk(program, slots, then)?;
                    walk(program, slots, otherwise)?;
                }
                ElementKind::Heading(_)
                | ElementKind::Text(_)
                | ElementKind::Image(_)
                | ElementKind::Link { .. }
                | ElementKind::Button { .. } => {}
            }
        }
        Ok(())
    }
    let mut slots = Vec::new();
    for (i, p) in page.params.iter().enumerate() {
        assign(&mut slots, Slot::try_from(i).unwrap_or(Slot::MAX), &p.ty)?;
    }
    walk(program, &mut slots, &page.body)?;
    let frame = usize::try_from(page.frame).unwrap_or(0).min(1 << 16);
    if slots.len() < frame {
        slots.resize(frame, None);
    }
    Ok(slots)
}

/// The type of a list loop's items (its binder's type), from what each item
/// evidently is: a constant, a text, a frame slot of known type, a field, a
/// row id or a row. A `none` item fits any type; an item of no evident type
/// fails the page.
fn list_item_ty(program: &ir::Program, slots: &[Option<Ty>], items: &[Expr]) -> R<Ty> {
    fn base(ty: Ty) -> Ty {
        match ty {
            Ty::Optional(inner) => base(*inner),
            t => t,
        }
    }
    fn of(program: &ir::Program, slots: &[Option<Ty>], e: &Expr) -> Option<Option<Ty>> {
        Some(Some(match e {
            Expr::Const(Value::None) => return Some(None),
            Expr::Const(Value::Row(_)) => return None,
            Expr::Const(v) => Tag::of(v).ty(),
            Expr::Text(_) => Ty::Text,
            Expr::Local(s) => slots.get(usize::try_from(*s).ok()?)?.clone()?,
            Expr::Field { table, field, .. } => program
                .tables
                .get(usize::try_from(*table).ok()?)?
                .fields
                .get(usize::try_from(*field).ok()?)?
                .ty
                .clone(),
            Expr::RowId(_) | Expr::Count(_) => Ty::Int,
            Expr::Lookup { table, .. } => Ty::Row(*table),
            Expr::Find(scan) => Ty::Row(scan.table),
            _ => return None,
        }))
    }
    let mut found: Option<Ty> = None;
    for e in items {
        let Some(ty) = of(program, slots, e) else {
            return unsupported("a list loop's item of no evident type");
        };
        match (ty.map(base), &found) {
            (None, _) => {}
            (Some(t), None) => found = Some(t),
            (Some(t), Some(f)) if t == *f => {}
            _ => return unsupported("a list loop's items of two types"),
        }
    }
    // All `none`: any type will do.
    Ok(found.unwrap_or(Ty::Int))
}

/// Defines the functions of one frame's expressions (a page's; the messages
/// of a marker, `alert`), each named `{symbol}_{n}`.
pub(super) struct Definer<'a> {
    pub module: &'a mut JITModule,
    pub ctx: &'a mut cranelift_codegen::Context,
    pub sig: &'a Signature,
    pub program: &'a ir::Program,
    pub layout: &'a StateLayout,
    pub pool: &'a mut TextPool,
    /// Where text interpolations register their templates.
    pub templates: &'a Templates,
    pub slots: &'a [Option<Ty>],
    pub symbol: String,
    pub funcs: Vec<DefinedFn>,
    /// The page's form variables when its structure can be keyed apart
    /// from them (`ir::rendered::form_use`), else none.
    pub forms: &'a [Slot],
}

fn slot_index(slot: Slot) -> R<usize> {
    usize::try_from(slot)
        .ok()
        .filter(|&i| i < 1 << 16)
        .map_or_else(|| unsupported(format!("slot {slot} out of range")), Ok)
}

fn table_index(program: &ir::Program, table: ir::TableId) -> R<usize> {
    usize::try_from(table)
        .ok()
        .filter(|&t| t < program.tables.len())
        .map_or_else(|| unsupported(format!("no table #{table}")), Ok)
}

impl Definer<'_> {
    /// Lowers and defines one expression's function.
    fn func(&mut self, e: &Expr, cond: bool) -> R<F> {
        self.module.clear_context(self.ctx);
        self.ctx.func.signature = self.sig.clone();
        let mut fctx = FunctionBuilderContext::new();
        let site = codegen::Site {
            program: self.program,
            layout: self.layout,
            slots: self.slots,
            nav: false,
            mutable: false,
            config: self.module.target_config(),
            templates: Some(self.templates),
            body: None,
        };
        let (lowered, kind) = if cond {
            let l = codegen::lower(&site, &mut self.ctx.func, &mut fctx, self.pool, e)?;
            (l, FnKind::Cond)
        } else {
            let (l, tag) =
                codegen::lower_value(&site, &mut self.ctx.func, &mut fctx, self.pool, e)?;
            (l, FnKind::Value(tag))
        };
        if lowered.locals > self.slots.len() {
            return unsupported("an expression reads past the page's frame");
        }
        let n = self.funcs.len();
        let symbol = format!("{}_{n}", self.symbol);
        let id = self
            .module
            .declare_function(&symbol, Linkage::Local, self.sig)
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        self.ctx.func.name = UserFuncName::user(0, id.as_u32());
        self.module
            .define_function(id, self.ctx)
            .map_err(|e| JitError::Codegen(format!("{}: {e:?}", self.symbol)))?;
        self.module.clear_context(self.ctx);
        self.funcs.push((id, kind, lowered.texts));
        Ok(n)
    }

    fn opt(&mut self, e: Option<&Expr>, cond: bool) -> R<Option<F>> {
        e.map(|e| self.func(e, cond)).transpose()
    }

    fn nodes(&mut self, els: &[ir::Element]) -> R<Vec<Node>> {
        els.iter().map(|e| self.node(e)).collect()
    }

    fn node(&mut self, e: &ir::Element) -> R<Node> {
        let id = e.id;
        Ok(match &e.kind {
            ElementKind::Heading(p) => self.show(id, "heading", p)?,
            ElementKind::Text(p) => self.show(id, "text", p)?,
            ElementKind::Image(p) => self.show(id, "image", p)?,
            ElementKind::Section { body, label } => Node::Section {
                id,
                label: self.label(label)?,
                body: self.nodes(body)?,
            },
            ElementKind::Link {
                target,
                disabled,
                label,
            } => Node::Go {
                id,
                role: "link",
                label: self.label(label)?,
                page: target.page,
                args: self.arguments(&target.args)?,
                disabled: self.opt(disabled.as_ref(), true)?,
            },
            ElementKind::Button {
                action,
                disabled,
                label,
            } => {
                let label = self.label(label)?;
                let disabled = self.opt(disabled.as_ref(), true)?;
                match action {
                    ir::Action::Go(call) => Node::Go {
                        id,
                        role: "button",
                        label,
                        page: call.page,
                        args: self.arguments(&call.args)?,
                        disabled,
                    },
                    ir::Action::Marker { marker, args } => Node::Marker {
                        id,
                        label,
                        marker: *marker,
                        args: self.arguments(args)?,
                        disabled,
                    },
                }
            }
            ElementKind::Input { slot, ty, label } => Node::Input {
                id,
                label: self.label(label)?,
                ty: ty.clone(),
                slot: slot_index(*slot)?,
                init: match ty {
                    Ty::Text => Init::EmptyText,
                    Ty::Int | Ty::Money | Ty::Bool | Ty::Enum(_) => Init::Word(0),
                    Ty::Date | Ty::Time | Ty::Row(_) | Ty::Optional(_) => Init::None,
                },
            },
            ElementKind::Checkbox { slot, label } => Node::Checkbox {
                id,
                label: self.label(label)?,
                slot: slot_index(*slot)?,
            },
            ElementKind::SelectList {
                slot,
                options,
                label,
                ty,
            } => Node::SelectList {
                id,
                label: self.label(label)?,
                ty: ty.clone(),
                slot: slot_index(*slot)?,
                options: self.values(options)?,
            },
            ElementKind::SelectFrom {
                slot,
                scan,
                label,
                table,
                show,
            } => Node::SelectFrom {
                id,
                label: self.label(label)?,
                ty: Ty::Row(*table),
                slot: slot_index(*slot)?,
                table: table_index(self.program, scan.table)?,
                binder: slot_index(scan.binder)?,
                filter: self.opt(scan.filter.as_deref(), true)?,
                show: self.label(show)?,
            },
            ElementKind::For(f) => {
                // Items first, then filter, order key, limit and body, in the
                // order the functions are defined for row loops.
                let (source, binder, filter) = match &f.source {
                    ir::LoopSource::Rows(scan) => (
                        Source::Rows(table_index(self.program, scan.table)?),
                        slot_index(scan.binder)?,
                        scan.filter.as_deref(),
                    ),
                    ir::LoopSource::List {
                        slot,
                        items,
                        filter,
                    } => {
                        let binder = slot_index(*slot)?;
                        let want = match self.slots.get(binder) {
                            Some(Some(ty)) => Tag::of_ty(ty),
                            _ => return unsupported("a list loop's binder of unknown type"),
                        };
                        let items = self.values(items)?;
                        for &i in &items {
                            match self.funcs.get(i).map(|d| d.1) {
                                Some(FnKind::Value(t)) if t == want || t == Tag::None => {}
                                _ => return unsupported("a list loop's items of two types"),
                            }
                        }
                        (Source::List(items), binder, filter.as_deref())
                    }
                };
                let filter = self.opt(filter, true)?;
                let order = match &f.order {
                    Some((key, desc)) => Some((self.func(key, false)?, *desc)),
                    None => None,
                };
                Node::Loop {
                    source,
                    binder,
                    filter,
                    order,
                    limit: self.opt(f.limit.as_ref(), false)?,
                    offset: self.opt(f.offset.as_ref(), false)?,
                    body: self.nodes(&f.body)?,
                }
            }
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => Node::If {
                cond: self.func(cond, true)?,
                then: self.nodes(then)?,
                otherwise: self.nodes(otherwise)?,
            },
        })
    }

    fn arguments(&mut self, es: &[Expr]) -> R<Vec<Arg>> {
        es.iter()
            .map(|e| {
                let form = match e {
                    Expr::Local(s) if self.forms.contains(s) => Some(slot_index(*s)?),
                    _ => None,
                };
                Ok(Arg {
                    f: self.func(e, false)?,
                    form,
                })
            })
            .collect()
    }

    fn values(&mut self, es: &[Expr]) -> R<Vec<F>> {
        es.iter().map(|e| self.func(e, false)).collect()
    }

    pub(super) fn label(&mut self, parts: &[ir::TextPart]) -> R<Label> {
        parts
            .iter()
            .map(|p| {
                Ok(match p {
                    ir::TextPart::Lit(s) => Part::Lit(s.clone()),
                    ir::TextPart::Interp(e, ty) => Part::Interp(self.func(e, false)?, ty.clone()),
                })
            })
            .collect::<R<Vec<_>>>()
            .map(Label::new)
    }

    fn show(&mut self, id: u32, role: &'static str, parts: &[ir::TextPart]) -> R<Node> {
        Ok(Node::Show {
            id,
            role,
            label: self.label(parts)?,
        })
    }
}

/// The finalized functions of a defined page.
pub(crate) fn resolve(module: &JITModule, d: R<DefinedPage>) -> JitPage {
    let status = d.map(|d| {
        let (funcs, texts) = resolve_fns(module, d.funcs);
        let ends = texts.iter().map(|&(id, _)| id as usize + 1);
        PageNative {
            body: d.body,
            guards: d.guards,
            funcs,
            texts_end: ends.max().unwrap_or(0),
            texts,
            frame: d.frame,
            forms_apart: d.forms_apart,
        }
    });
    JitPage { status }
}
