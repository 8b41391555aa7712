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

mod guard;

use super::label::resolve_fns;
pub(super) use super::label::{Calls, DefinedFn, FnKind, Label, NativeFn, Part, F};
use super::marker::pool_has;
use super::text::{i64_at, u32_at, Templates, TextCtx};
use super::{codegen, JitError, JitFault, JitSite, Tag};
use crate::interp::eval::Fault;
use crate::ir::{self, ElementKind, Expr, PageId, Slot, Ty, Value};
use crate::layout::{StateLayout, TextPool, WORD};
use cranelift_codegen::ir::{Signature, UserFuncName};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};
use std::cmp::Ordering;
use std::sync::Arc;

/// What a render computes besides the elements' structure (handles, roles,
/// paths, select options, `disabled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderMode {
    /// Each element's text and value as strings, and the values its labels
    /// showed (`shown`): what a person or an answer check reads.
    pub texts: bool,
    /// The hashes of each element's words (`crate::words`), literal words
    /// hashed when the site was compiled: what the trainer's token ids are
    /// made of.
    pub words: bool,
}

impl RenderMode {
    /// Strings only (the default: what the interpreter renders).
    pub const TEXTS: RenderMode = RenderMode {
        texts: true,
        words: false,
    };
    /// Word hashes only.
    pub const WORDS: RenderMode = RenderMode {
        texts: false,
        words: true,
    };
    /// Both.
    pub const ALL: RenderMode = RenderMode {
        texts: true,
        words: true,
    };
    /// Neither: labels are not evaluated at all (a search needs only the
    /// candidates, which handles and option texts give).
    pub const STRUCTURE: RenderMode = RenderMode {
        texts: false,
        words: false,
    };
}

impl Default for RenderMode {
    fn default() -> RenderMode {
        RenderMode::TEXTS
    }
}

/// A page's structure: one entry per observed element, in document order.
/// Equality compares the elements and the shown values.
#[derive(Clone, Debug, Default)]
pub struct PageStructure {
    pub elements: Vec<ElementInstance>,
    /// Every non-empty interpolated value the labels showed, in document
    /// order (a retrieval task's answer candidates, as `View::shown`), when
    /// texts are rendered.
    pub shown: Vec<String>,
    /// The word hashes of every element's text and value, when words are
    /// rendered; elements hold ranges of it.
    pub words: Vec<u64>,
    /// What renders compute.
    mode: RenderMode,
    /// The strings and lists of earlier renders, reused so that rendering
    /// a page step after step allocates (almost) nothing.
    spare: Spare,
}

#[derive(Clone, Debug, Default)]
struct Spare {
    texts: Vec<String>,
    paths: Vec<Vec<i64>>,
    lists: Vec<Vec<String>>,
    /// Text waiting for its words to be hashed.
    pending: String,
    /// Argument and option words of earlier handles.
    words: Vec<Vec<Option<i64>>>,
    /// Loop items of earlier walks.
    items: Vec<Vec<(Option<i64>, i64)>>,
}

impl PartialEq for PageStructure {
    fn eq(&self, other: &PageStructure) -> bool {
        self.elements == other.elements && self.shown == other.shown && self.words == other.words
    }
}

impl Eq for PageStructure {}

impl PageStructure {
    pub fn new(elements: Vec<ElementInstance>, shown: Vec<String>) -> PageStructure {
        PageStructure {
            elements,
            shown,
            ..PageStructure::default()
        }
    }

    /// What renders into this structure compute from now on.
    pub fn set_mode(&mut self, mode: RenderMode) {
        self.mode = mode;
    }

    pub fn mode(&self) -> RenderMode {
        self.mode
    }

    /// Empties the structure, keeping its strings and lists for reuse.
    pub fn clear(&mut self) {
        let spare = &mut self.spare;
        for e in self.elements.drain(..) {
            let ElementInstance {
                path,
                text,
                value,
                mut options,
                handle,
                ..
            } = e;
            match handle {
                HandleWords::Go(Ok((_, words)))
                | HandleWords::Marker(_, Ok(words))
                | HandleWords::Select { options: words, .. } => spare.words.push(words),
                _ => {}
            }
            spare.texts.push(text);
            spare.texts.extend(value);
            spare.texts.append(&mut options);
            spare.lists.push(options);
            spare.paths.push(path);
        }
        spare.texts.append(&mut self.shown);
        self.words.clear();
    }

    /// An empty string, reused when one is spare.
    fn string(&mut self) -> String {
        let mut s = self.spare.texts.pop().unwrap_or_default();
        s.clear();
        s
    }

    /// The hashes in `range` (empty for a range this structure lacks).
    pub fn words_of(&self, range: WordRange) -> &[u64] {
        let (start, end) = (range.start as usize, range.end as usize);
        self.words.get(start..end).unwrap_or_default()
    }
}

/// A stretch of [`PageStructure::words`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WordRange {
    pub start: u32,
    pub end: u32,
}

/// One element instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementInstance {
    /// The element's id in its page.
    pub id: u32,
    /// The row ids (list indices) of the enclosing loops, outermost first.
    pub path: Vec<i64>,
    /// As in `ObsElement`: heading, text, image, link, button, input,
    /// select, checkbox or section.
    pub role: &'static str,
    /// The element's rendered label, as the interpreter shows it (empty
    /// unless texts are rendered).
    pub text: String,
    /// Whether the label's text is non-empty (known in every mode but
    /// `STRUCTURE`).
    pub nonempty: bool,
    /// The label's words, when words are rendered.
    pub text_words: WordRange,
    /// What a form element shows as its value (an empty string unless
    /// texts are rendered).
    pub value: Option<String>,
    /// The value's words, when words are rendered.
    pub value_words: WordRange,
    /// A select's option texts, in order.
    pub options: Vec<String>,
    pub disabled: bool,
    pub handle: HandleWords,
}

/// What acting on an element does, values as layout words (`None`: `none`;
/// texts are ids of the pool the state was encoded with).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandleWords {
    /// Headings, texts, images, sections, disabled links and buttons.
    Inert,
    /// The target page and its arguments, or the fault's alert.
    Go(Result<(PageId, Vec<Option<i64>>), String>),
    /// The marker and its arguments, or the fault's alert.
    Marker(ir::MarkerId, Result<Vec<Option<i64>>, String>),
    /// The input's current value.
    Input {
        value: Option<i64>,
    },
    Checkbox {
        on: bool,
    },
    /// The options' values in order, and the current value.
    Select {
        options: Vec<Option<i64>>,
        value: Option<i64>,
    },
}

/// A value as its layout word (`None` for `none`), texts interned into `pool`.
pub(crate) fn word_of(
    v: &Value,
    pool: &mut TextPool,
) -> Result<Option<i64>, crate::layout::LayoutError> {
    crate::layout::to_word(v, &Tag::of(v).ty(), pool)
}

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
        args: Vec<F>,
        disabled: Option<F>,
    },
    Marker {
        id: u32,
        label: Label,
        marker: ir::MarkerId,
        args: Vec<F>,
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
}

struct PageNative {
    body: Vec<Node>,
    guards: Vec<guard::GuardNode>,
    funcs: Vec<NativeFn>,
    texts: Vec<(u32, Arc<str>)>,
    frame: usize,
}

/// One page: compiled, or why not.
pub(crate) struct JitPage {
    status: Result<PageNative, JitError>,
}

type R<T> = Result<T, JitError>;

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
            };
            let guards = d.guards(&page.guards)?;
            let body = d.nodes(&page.body)?;
            let funcs = d.funcs;
            Ok(DefinedPage {
                body,
                guards,
                funcs,
                frame: slots.len(),
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
        };
        let (lowered, kind) = if cond {
            let l = codegen::lower(&site, &mut self.ctx.func, &mut fctx, self.pool, e)
                .map_err(JitError::Unsupported)?;
            (l, FnKind::Cond)
        } else {
            let (l, tag) = codegen::lower_value(&site, &mut self.ctx.func, &mut fctx, self.pool, e)
                .map_err(JitError::Unsupported)?;
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
                args: self.values(&target.args)?,
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
                        args: self.values(&call.args)?,
                        disabled,
                    },
                    ir::Action::Marker { marker, args } => Node::Marker {
                        id,
                        label,
                        marker: *marker,
                        args: self.values(args)?,
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
        PageNative {
            body: d.body,
            guards: d.guards,
            funcs,
            texts,
            frame: d.frame,
        }
    });
    JitPage { status }
}

// ---- the walk ------------------------------------------------------------------

fn corrupt(what: &str) -> JitFault {
    JitFault::Input(format!("the state does not fit the layout: {what}"))
}

/// A text as a render in some mode keeps it.
struct Shown {
    /// The text (empty unless texts are rendered).
    text: String,
    nonempty: bool,
    words: WordRange,
}

fn range(start: usize, end: usize) -> WordRange {
    let at = |k: usize| u32::try_from(k).unwrap_or(u32::MAX);
    WordRange {
        start: at(start),
        end: at(end),
    }
}

struct Walk<'a> {
    program: &'a ir::Program,
    layout: &'a StateLayout,
    state: &'a [u8],
    pool: &'a mut TextPool,
    funcs: &'a [NativeFn],
    /// The frame as cells: `[word₀, present₀, …]`.
    cells: Vec<i64>,
    /// The page's frame slots (`cells` has at least twice as many).
    frame: usize,
    path: Vec<i64>,
    out: &'a mut PageStructure,
}

/// The walk's [`Calls`], borrowing only the fields it needs (so that the
/// pool and the output stay free).
macro_rules! calls {
    ($w:expr) => {
        Calls {
            funcs: $w.funcs,
            program: $w.program,
            layout: $w.layout,
            state: $w.state,
            cells: &$w.cells,
            frame: $w.frame,
        }
    };
}

impl Walk<'_> {
    /// `eval_bool`: the condition, or its fault.
    fn cond(&mut self, f: F) -> Result<Result<bool, Fault>, JitFault> {
        calls!(self).cond(f, self.pool)
    }

    /// `eval`: the value's word (`None` for `none`), or its fault.
    fn value(&mut self, f: F) -> Result<Result<Option<i64>, Fault>, JitFault> {
        calls!(self).value(f, self.pool)
    }

    fn tag(&self, f: F) -> Tag {
        calls!(self).tag(f)
    }

    fn get(&self, slot: usize) -> (i64, i64) {
        let w = self.cells.get(2 * slot).copied().unwrap_or(0);
        let p = self.cells.get(2 * slot + 1).copied().unwrap_or(0);
        (w, p)
    }

    fn set(&mut self, slot: usize, v: Option<i64>) {
        self.set_raw(slot, (v.unwrap_or(0), i64::from(v.is_some())));
    }

    fn set_raw(&mut self, slot: usize, (w, p): (i64, i64)) {
        if let Some([cw, cp]) = self.cells.get_mut(2 * slot..2 * slot + 2) {
            *cw = w;
            *cp = p;
        }
    }

    /// How many rows `table` has and where their ids start.
    fn rows_at(&self, table: usize) -> Result<(usize, usize), JitFault> {
        let tl = self
            .layout
            .tables
            .get(table)
            .ok_or_else(|| corrupt("no such table"))?;
        let n = u32_at(self.state, tl.count).ok_or_else(|| corrupt("row count"))?;
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if n > tl.capacity {
            return Err(corrupt("a row count past the capacity"));
        }
        Ok((n, tl.ids))
    }

    /// The id of row `i` of a table whose ids start at `ids`.
    fn row_id(&self, ids: usize, i: usize) -> Result<i64, JitFault> {
        i64_at(self.state, ids + WORD * i).ok_or_else(|| corrupt("row id"))
    }

    /// The agent's value for element `id` at the current path: `Some(word)`
    /// when set (`word` `None` for `none`).
    fn form(&self, id: u32) -> Result<Option<Option<i64>>, JitFault> {
        let list = self.layout.forms;
        let n = u32_at(self.state, list.count).ok_or_else(|| corrupt("form count"))?;
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if n > list.capacity {
            return Err(corrupt("a form count past the capacity"));
        }
        for i in 0..n {
            let at = list.entry_at(i);
            if u32_at(self.state, at) != Some(id) {
                continue;
            }
            let same = self.path.len() <= self.layout.form_depth
                && self
                    .path
                    .iter()
                    .enumerate()
                    .all(|(k, p)| i64_at(self.state, at + WORD * (1 + k)) == Some(*p));
            if !same {
                continue;
            }
            let present = u32_at(self.state, at + 4).ok_or_else(|| corrupt("form entry"))?;
            let word = i64_at(self.state, at + WORD * (1 + self.layout.form_depth))
                .ok_or_else(|| corrupt("form entry"))?;
            return Ok(Some((present != 0).then_some(word)));
        }
        Ok(None)
    }

    fn push(&mut self, id: u32, role: &'static str, text: Shown, handle: HandleWords) {
        self.push_full(id, role, text, None, Vec::new(), false, handle);
    }

    #[allow(clippy::too_many_arguments)]
    fn push_full(
        &mut self,
        id: u32,
        role: &'static str,
        text: Shown,
        value: Option<Shown>,
        options: Vec<String>,
        disabled: bool,
        handle: HandleWords,
    ) {
        let mut path = self.out.spare.paths.pop().unwrap_or_default();
        path.clear();
        path.extend_from_slice(&self.path);
        let (value, value_words) = match value {
            Some(v) => (Some(v.text), v.words),
            None => (None, WordRange::default()),
        };
        self.out.elements.push(ElementInstance {
            id,
            path,
            role,
            text: text.text,
            nonempty: text.nonempty,
            text_words: text.words,
            value,
            value_words,
            options,
            disabled,
            handle,
        });
    }

    fn text_ctx(&self) -> TextCtx<'_> {
        TextCtx {
            program: self.program,
            layout: self.layout,
            state: self.state,
            pool: self.pool,
        }
    }

    /// Renders `value` (a word of kind `tag`, static type `ty`) as text.
    fn render_value(&mut self, value: Option<i64>, tag: Tag, ty: &Ty) -> Result<String, JitFault> {
        let mut out = self.out.string();
        self.text_ctx().render_word(value, tag, ty, &mut out)?;
        Ok(out)
    }

    /// A form element's shown value, in the structure's mode.
    fn shown_value(&mut self, value: Option<i64>, tag: Tag, ty: &Ty) -> Result<Shown, JitFault> {
        let text = self.render_value(value, tag, ty)?;
        Ok(self.shown_literal_text(text))
    }

    /// `text` as a shown text in the structure's mode (its words hashed
    /// when words are rendered; the string kept when texts are).
    fn shown_literal_text(&mut self, mut text: String) -> Shown {
        let words = if self.out.mode.words {
            let start = self.out.words.len();
            let words = &mut self.out.words;
            crate::words::each_hash(&text, |h| words.push(h));
            range(start, self.out.words.len())
        } else {
            WordRange::default()
        };
        let nonempty = !text.is_empty();
        if !self.out.mode.texts {
            text.clear();
        }
        Shown {
            text,
            nonempty,
            words,
        }
    }

    /// A label's text, in the structure's mode; when texts are rendered,
    /// every non-empty interpolated piece is also kept in `shown` (as the
    /// interpreter's renderer keeps it).
    fn label(&mut self, label: &Label) -> Result<Shown, JitFault> {
        let mode = self.out.mode;
        let mut text = self.out.string();
        let mut nonempty = false;
        if mode.texts {
            let kept = &mut *self.out;
            calls!(self).label(label, self.pool, &mut text, |piece| {
                let mut s = kept.string();
                s.push_str(piece);
                kept.shown.push(s);
            })?;
            nonempty = !text.is_empty();
        }
        let mut words = WordRange::default();
        if mode.words {
            let start = self.out.words.len();
            let out = &mut *self.out;
            let hashes = &mut out.words;
            if mode.texts {
                // The text is there: its words are its words.
                crate::words::each_hash(&text, |h| hashes.push(h));
            } else {
                let pending = &mut out.spare.pending;
                nonempty =
                    calls!(self).label_words(label, self.pool, pending, |h| hashes.push(h))?;
            }
            words = range(start, self.out.words.len());
        }
        Ok(Shown {
            text,
            nonempty,
            words,
        })
    }

    /// A select option's text, rendered whatever the mode (candidates are
    /// one per distinct option text); kept in `shown` as a label's pieces
    /// are when texts are rendered.
    fn option_text(&mut self, label: &Label) -> Result<String, JitFault> {
        let keep = self.out.mode.texts;
        let mut text = self.out.string();
        let kept = &mut *self.out;
        calls!(self).label(label, self.pool, &mut text, |piece| {
            if keep {
                let mut s = kept.string();
                s.push_str(piece);
                kept.shown.push(s);
            }
        })?;
        Ok(text)
    }

    fn args(&mut self, args: &[F]) -> Result<Result<Vec<Option<i64>>, String>, JitFault> {
        let mut out = self.out.spare.words.pop().unwrap_or_default();
        out.clear();
        for &a in args {
            match self.value(a)? {
                Ok(w) => out.push(w),
                Err(f) => {
                    return Ok(Err(format!(
                        "this action failed: {}",
                        f.describe(self.program)
                    )))
                }
            }
        }
        Ok(Ok(out))
    }

    fn disabled(&mut self, cond: Option<F>) -> Result<bool, JitFault> {
        Ok(match cond {
            Some(c) => self.cond(c)?.unwrap_or(true),
            None => false,
        })
    }

    fn passes(&mut self, filter: Option<F>) -> Result<bool, JitFault> {
        Ok(match filter {
            Some(f) => self.cond(f)?.unwrap_or(false),
            None => true,
        })
    }

    fn all(&mut self, nodes: &[Node]) -> Result<(), JitFault> {
        nodes.iter().try_for_each(|n| self.node(n))
    }

    fn node(&mut self, n: &Node) -> Result<(), JitFault> {
        match n {
            Node::Show { id, role, label } => {
                let text = self.label(label)?;
                self.push(*id, role, text, HandleWords::Inert);
            }
            Node::Section { id, label, body } => {
                let text = self.label(label)?;
                self.push(*id, "section", text, HandleWords::Inert);
                self.all(body)?;
            }
            Node::Go {
                id,
                role,
                label,
                page,
                args,
                disabled,
            } => {
                let args = self.args(args)?;
                let h = args.map(|a| (*page, a));
                self.clickable(*id, role, label, *disabled, HandleWords::Go(h))?;
            }
            Node::Marker {
                id,
                label,
                marker,
                args,
                disabled,
            } => {
                let args = self.args(args)?;
                let h = HandleWords::Marker(*marker, args);
                self.clickable(*id, "button", label, *disabled, h)?;
            }
            Node::Input {
                id,
                label,
                ty,
                slot,
                init,
            } => {
                let text = self.label(label)?;
                let value = match self.form(*id)? {
                    Some(v) => v,
                    None => match init {
                        Init::Word(w) => Some(*w),
                        Init::None => None,
                        // Found without allocating in every render but the first.
                        Init::EmptyText => Some(
                            self.pool
                                .find("")
                                .or_else(|| self.pool.intern(&Arc::from("")))
                                .map(i64::from)
                                .ok_or_else(|| JitFault::Input("the text pool is full".into()))?,
                        ),
                    },
                };
                let shown = self.shown_value(value, Tag::of_ty(ty), ty)?;
                self.set(*slot, value);
                let h = HandleWords::Input { value };
                self.push_full(*id, "input", text, Some(shown), Vec::new(), false, h);
            }
            Node::Checkbox { id, label, slot } => {
                let text = self.label(label)?;
                let on = matches!(self.form(*id)?, Some(Some(w)) if w != 0);
                self.set(*slot, Some(i64::from(on)));
                let mut shown = self.out.string();
                shown.push_str(if on { "yes" } else { "no" });
                let shown = self.shown_literal_text(shown);
                let h = HandleWords::Checkbox { on };
                self.push_full(*id, "checkbox", text, Some(shown), Vec::new(), false, h);
            }
            Node::SelectList {
                id,
                label,
                ty,
                slot,
                options,
            } => {
                // Options before the label, as the interpreter renders them
                // (the order of `shown`).
                let mut opts = Vec::with_capacity(options.len());
                for &o in options {
                    if let Ok(w) = self.value(o)? {
                        let shown = self.render_value(w, self.tag(o), ty)?;
                        opts.push((shown, w));
                    }
                }
                let text = self.label(label)?;
                self.select(*id, text, ty, *slot, opts)?;
            }
            Node::SelectFrom {
                id,
                label,
                ty,
                slot,
                table,
                binder,
                filter,
                show,
            } => {
                let saved = self.get(*binder);
                let mut opts = Vec::new();
                let (count, ids) = self.rows_at(*table)?;
                for i in 0..count {
                    let row = self.row_id(ids, i)?;
                    self.set(*binder, Some(row));
                    if self.passes(*filter)? {
                        let shown = self.option_text(show)?;
                        opts.push((shown, Some(row)));
                    }
                }
                self.set_raw(*binder, saved);
                let text = self.label(label)?;
                self.select(*id, text, ty, *slot, opts)?;
            }
            Node::Loop {
                source,
                binder,
                filter,
                order,
                limit,
                offset,
                body,
            } => self.for_loop(source, *binder, *filter, *order, [*limit, *offset], body)?,
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                let taken = self.cond(*cond)?.unwrap_or(false);
                self.all(if taken { then } else { otherwise })?;
            }
        }
        Ok(())
    }

    /// A link or button: label, then `disabled when` (a disabled one is
    /// inert).
    fn clickable(
        &mut self,
        id: u32,
        role: &'static str,
        label: &Label,
        disabled: Option<F>,
        handle: HandleWords,
    ) -> Result<(), JitFault> {
        let text = self.label(label)?;
        let off = self.disabled(disabled)?;
        let handle = if off { HandleWords::Inert } else { handle };
        self.push_full(id, role, text, None, Vec::new(), off, handle);
        Ok(())
    }

    /// A select's variable: the agent's choice, else the first option
    /// (`none` without options); shown as its option's text.
    fn select(
        &mut self,
        id: u32,
        text: Shown,
        ty: &Ty,
        slot: usize,
        options: Vec<(String, Option<i64>)>,
    ) -> Result<(), JitFault> {
        let value = match self.form(id)? {
            Some(v) => v,
            None => options.first().and_then(|o| o.1),
        };
        let shown = match options.iter().find(|o| o.1 == value) {
            Some(o) => {
                let mut s = self.out.string();
                s.push_str(&o.0);
                self.shown_literal_text(s)
            }
            None => self.shown_value(value, Tag::of_ty(ty), ty)?,
        };
        self.set(slot, value);
        let mut texts = self.out.spare.lists.pop().unwrap_or_default();
        texts.clear();
        let mut words = self.out.spare.words.pop().unwrap_or_default();
        words.clear();
        for (text, word) in options {
            texts.push(text);
            words.push(word);
        }
        let h = HandleWords::Select {
            options: words,
            value,
        };
        self.push_full(id, "select", text, Some(shown), texts, false, h);
        Ok(())
    }

    /// A loop: its items (with the ids their iterations are known by)
    /// filtered, ordered and limited, the body walked for each with the
    /// binder set, and the binder restored after.
    fn for_loop(
        &mut self,
        source: &Source,
        binder: usize,
        filter: Option<F>,
        order: Option<(F, bool)>,
        [limit, offset]: [Option<F>; 2],
        body: &[Node],
    ) -> Result<(), JitFault> {
        let mut kept = self.out.spare.items.pop().unwrap_or_default();
        kept.clear();
        let r = self.loop_items(source, binder, filter, order, [limit, offset], &mut kept);
        let r = r.and_then(|()| {
            let saved = self.get(binder);
            for &(value, id) in &kept {
                self.set(binder, value);
                self.path.push(id);
                let r = self.all(body);
                self.path.pop();
                r?;
            }
            self.set_raw(binder, saved);
            Ok(())
        });
        self.out.spare.items.push(kept);
        r
    }

    /// A loop's items, filtered, ordered and limited, into `kept` (empty).
    fn loop_items(
        &mut self,
        source: &Source,
        binder: usize,
        filter: Option<F>,
        order: Option<(F, bool)>,
        [limit, offset]: [Option<F>; 2],
        kept: &mut Vec<(Option<i64>, i64)>,
    ) -> Result<(), JitFault> {
        let saved = self.get(binder);
        match source {
            Source::Rows(table) => {
                let (count, ids) = self.rows_at(*table)?;
                for i in 0..count {
                    let row = self.row_id(ids, i)?;
                    self.set(binder, Some(row));
                    if self.passes(filter)? {
                        kept.push((Some(row), row));
                    }
                }
            }
            Source::List(items) => {
                // Every item is evaluated before any filter (the order the
                // interpreter evaluates in, which the texts interned on the
                // way follow). An item that faults is left out; the others
                // keep their index.
                for (i, &f) in items.iter().enumerate() {
                    if let Ok(w) = self.value(f)? {
                        kept.push((w, i64::try_from(i).unwrap_or(i64::MAX)));
                    }
                }
                let mut n = 0;
                for k in 0..kept.len() {
                    let item = kept[k];
                    self.set(binder, item.0);
                    if self.passes(filter)? {
                        kept[n] = item;
                        n += 1;
                    }
                }
                kept.truncate(n);
            }
        }
        if let Some((key, desc)) = order {
            let tag = self.tag(key);
            let mut keyed = Vec::with_capacity(kept.len());
            for &item in kept.iter() {
                self.set(binder, item.0);
                // A key that faults sorts as `none`.
                let k = self.value(key)?.unwrap_or(None);
                keyed.push((k, item));
            }
            let mut bad = false;
            let pool = &*self.pool;
            let mut cmp = |a: &Option<i64>, b: &Option<i64>| -> Ordering {
                match (a, b) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => Ordering::Less,
                    (Some(_), None) => Ordering::Greater,
                    (Some(x), Some(y)) if tag == Tag::Text => {
                        let s = |w: i64| u32::try_from(w).ok().and_then(|i| pool.get(i));
                        match (s(*x), s(*y)) {
                            (Some(x), Some(y)) => x.cmp(y),
                            _ => {
                                bad = true;
                                Ordering::Equal
                            }
                        }
                    }
                    (Some(x), Some(y)) => x.cmp(y),
                }
            };
            keyed.sort_by(|a, b| {
                if desc {
                    cmp(&b.0, &a.0)
                } else {
                    cmp(&a.0, &b.0)
                }
            });
            if bad {
                return Err(JitFault::Input(
                    "a text id is not in the pool (use the pool the state was encoded with)".into(),
                ));
            }
            kept.clear();
            kept.extend(keyed.into_iter().map(|(_, item)| item));
        }
        if let Some(offset) = offset {
            // An offset that faults, or a negative one, skips nothing.
            if self.tag(offset) == Tag::Int {
                if let Ok(Some(k)) = self.value(offset)? {
                    kept.drain(..crate::env::observe::skip_count(k, kept.len()));
                }
            }
        }
        if let Some(limit) = limit {
            // A limit that faults limits nothing.
            if self.tag(limit) == Tag::Int {
                if let Ok(Some(n)) = self.value(limit)? {
                    kept.truncate(usize::try_from(n.max(0)).unwrap_or(usize::MAX));
                }
            }
        }
        self.set_raw(binder, saved);
        Ok(())
    }
}

impl JitSite {
    /// Whether page `page`'s structure is compiled.
    pub fn page_is_compiled(&self, page: PageId) -> bool {
        self.page(page).is_some_and(|p| p.status.is_ok())
    }

    /// Why page `page`'s structure is not compiled, if it is not.
    pub fn page_fallback_reason(&self, page: PageId) -> Option<&JitError> {
        self.page(page).and_then(|p| p.status.as_ref().err())
    }

    /// `(compiled, fallback)` pages.
    pub fn page_stats(&self) -> (usize, usize) {
        let compiled = self.pages.iter().filter(|p| p.status.is_ok()).count();
        (compiled, self.pages.len() - compiled)
    }

    fn page(&self, page: PageId) -> Option<&JitPage> {
        self.pages.get(usize::try_from(page).ok()?)
    }

    /// Writes the structure of the current page of `state` (which must be
    /// `page`) into `out`, reusing its buffer: every element instance in
    /// document order, as `env::observe` renders it. `state` must be encoded
    /// with `pool` (or a pool it grew into); texts computed on the way are
    /// interned into it.
    pub fn render_structure(
        &self,
        page: PageId,
        state: &[u8],
        pool: &mut TextPool,
        out: &mut PageStructure,
    ) -> Result<(), JitFault> {
        out.clear();
        let native = self
            .page(page)
            .ok_or_else(|| JitFault::Input(format!("no page #{page}")))?
            .status
            .as_ref()
            .map_err(|_| JitFault::NotCompiled)?;
        let layout = &self.gate.layout;
        if state.len() != layout.size {
            return Err(JitFault::Input(format!(
                "a state of this site has {} bytes, not {}",
                layout.size,
                state.len()
            )));
        }
        if u32_at(state, layout.page) != Some(page) {
            return Err(JitFault::Input(format!("the state is not on page #{page}")));
        }
        if !pool_has(pool, &native.texts) {
            return Err(JitFault::Input(
                "the text pool lacks the code's text constants (use the pool the site was compiled with)".into(),
            ));
        }
        let program = &self.gate.program;
        let params = program
            .pages
            .get(usize::try_from(page).unwrap_or(usize::MAX))
            .map_or(0, |p| p.params.len());
        let mut cells = vec![0; 2 * native.frame.max(params)];
        for i in 0..params {
            let w = i64_at(state, layout.args.word_at(i)).ok_or_else(|| corrupt("argument"))?;
            let p = state
                .get(layout.args.present_at(i))
                .ok_or_else(|| corrupt("argument"))?;
            if let Some([cw, cp]) = cells.get_mut(2 * i..2 * i + 2) {
                *cw = if *p != 0 { w } else { 0 };
                *cp = i64::from(*p != 0);
            }
        }
        let mut walk = Walk {
            program,
            layout,
            state,
            pool,
            funcs: &native.funcs,
            cells,
            frame: native.frame,
            path: Vec::new(),
            out,
        };
        walk.all(&native.body)
    }
}
