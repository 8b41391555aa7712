//! The walk of a compiled page plan over the flat state (see the parent
//! module): every node's expressions run as native functions, loops read row
//! ids and form variables at the layout's offsets, and each element is
//! written into a [`PageStructure`] in the structure's [`RenderMode`].

use super::*;
use crate::interp::ActionFault;
use crate::jit::JitSite;
use crate::page::{FaultAt, FormArg, FormField};

/// A text as a render in some mode keeps it.
#[derive(Clone, Copy)]
struct Shown {
    /// The text's span of the page's text (empty unless texts are
    /// rendered).
    text: Span,
    nonempty: bool,
    words: Span,
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
    /// Whether the render notes where form values went
    /// ([`PageStructure::form_values`], `forms.rs`): without texts, on a
    /// page whose structure can be keyed apart from its form variables
    /// (`ir::rendered::form_use`).
    note_forms: bool,
    /// Per frame slot, the field that bound it last ([`NO_FIELD`]: none),
    /// while noting.
    origins: Vec<u32>,
}

/// No form field bound the slot.
const NO_FIELD: u32 = u32::MAX;

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
        super::forms::form_entry(self.layout, self.state, id, &self.path)
    }

    /// Notes form element `field` (the next element pushed), unset
    /// `unset`, as what binds `slot` from now on, when form values are
    /// noted.
    fn note_field(&mut self, slot: usize, unset: Option<i64>) {
        if !self.note_forms {
            return;
        }
        let fields = &mut self.out.form_values.fields;
        let at = u32::try_from(fields.len()).unwrap_or(NO_FIELD);
        fields.push(FormField {
            element: u32::try_from(self.out.elements.len()).unwrap_or(u32::MAX),
            unset,
        });
        if let Some(o) = self.origins.get_mut(slot) {
            *o = at;
        }
    }

    fn push(&mut self, id: u32, role: &'static str, text: Shown, handle: HandleWords) {
        self.push_full(id, role, text, None, Span::default(), false, handle);
    }

    #[allow(clippy::too_many_arguments)]
    fn push_full(
        &mut self,
        id: u32,
        role: &'static str,
        text: Shown,
        value: Option<Shown>,
        options: Span,
        disabled: bool,
        handle: HandleWords,
    ) {
        let path = self.out.push_path(&self.path);
        let (value, value_words) = match value {
            Some(v) => (Some(v.text), v.words),
            None => (None, Span::default()),
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

    /// Renders `value` (a word of kind `tag`, static type `ty`) onto the
    /// page's text; its span.
    fn render_value(&mut self, value: Option<i64>, tag: Tag, ty: &Ty) -> Result<Span, JitFault> {
        let text = TextCtx {
            program: self.program,
            layout: self.layout,
            state: self.state,
            pool: self.pool,
        };
        let start = self.out.texts.len();
        text.render_word(value, tag, ty, &mut self.out.texts)?;
        Ok(Span::between(start, self.out.texts.len()))
    }

    /// A form element's shown value, in the structure's mode.
    fn shown_value(&mut self, value: Option<i64>, tag: Tag, ty: &Ty) -> Result<Shown, JitFault> {
        let text = self.render_value(value, tag, ty)?;
        Ok(self.shown_literal_text(text))
    }

    /// The text at `span` of the page's text, in the structure's mode: its
    /// words hashed when words are rendered, and taken off the page's text
    /// again when texts are not (it must then be the last text written).
    fn shown_literal_text(&mut self, span: Span) -> Shown {
        let shown = self.shown_at(span);
        if !self.out.mode().texts {
            self.out.texts.truncate(span.start as usize);
        }
        shown
    }

    /// The text at `span` of the page's text (which stays there) as a
    /// shown text in the structure's mode: an empty span unless texts are
    /// rendered, its words hashed when words are.
    fn shown_at(&mut self, span: Span) -> Shown {
        let out = &mut *self.out;
        let nonempty = !span.of_text(&out.texts).is_empty();
        let mut words = Span::default();
        if out.mode().words {
            words = out.hash_words(span);
        }
        Shown {
            text: if out.mode().texts {
                span
            } else {
                Span::default()
            },
            nonempty,
            words,
        }
    }

    /// A label's text, in the structure's mode; when texts are rendered,
    /// every non-empty interpolated piece is also kept in `shown` (as the
    /// interpreter's renderer keeps it).
    fn label(&mut self, label: &Label) -> Result<Shown, JitFault> {
        let mode = self.out.mode();
        let start = self.out.texts.len();
        let mut nonempty = false;
        if mode.texts {
            self.label_text(label, true)?;
            nonempty = self.out.texts.len() > start;
        }
        let text = Span::between(start, self.out.texts.len());
        let mut words = Span::default();
        if mode.words && mode.texts {
            // The text is there: its words are its words.
            words = self.out.hash_words(text);
        } else if mode.words {
            let begin = self.out.words.len();
            let out = &mut *self.out;
            let hashes = &mut out.words;
            let spare = &mut out.spare;
            let scratch = (&mut spare.pending, &mut spare.text_words);
            let memo = &mut spare.shown_memo;
            nonempty = calls!(self).label_words(label, self.pool, scratch, memo, hashes)?;
            words = Span::between(begin, self.out.words.len());
        }
        Ok(Shown {
            text,
            nonempty,
            words,
        })
    }

    /// A select option's text, rendered onto the page's text whatever the
    /// mode (candidates are one per distinct option text); kept in `shown`
    /// as a label's pieces are when texts are rendered.
    fn option_text(&mut self, label: &Label) -> Result<Span, JitFault> {
        let keep = self.out.mode().texts;
        self.label_text(label, keep)
    }

    /// `label`'s text, appended to the page's text (values taken from and
    /// put in the structure's memory of shown texts); its non-empty
    /// interpolated pieces kept in `shown` when `keep_shown`. Always
    /// inlined (see `Calls::render_value`).
    #[inline(always)]
    fn label_text(&mut self, label: &Label, keep_shown: bool) -> Result<Span, JitFault> {
        let start = self.out.texts.len();
        let PageStructure {
            texts,
            shown,
            spare,
            ..
        } = &mut *self.out;
        let memo = Some(&mut spare.shown_memo.texts);
        calls!(self).label(label, self.pool, memo, texts, |piece| {
            if keep_shown {
                shown.push(Span::between(piece.start, piece.end));
            }
        })?;
        Ok(Span::between(start, self.out.texts.len()))
    }

    /// The arguments' words, appended to the page's shared values (none
    /// are left there when one faults).
    fn args(&mut self, args: &[Arg]) -> Result<Result<Span, FaultAt>, JitFault> {
        let start = self.out.values.len();
        for a in args {
            match self.value(a.f)? {
                Ok(w) => {
                    let field = a.form.and_then(|s| self.origins.get(s));
                    if let Some(&field) = field.filter(|&&f| f != NO_FIELD) {
                        let value = u32::try_from(self.out.values.len()).unwrap_or(u32::MAX);
                        self.out.form_values.args.push(FormArg { value, field });
                    }
                    self.out.values.push(w);
                }
                Err(f) => {
                    self.out.truncate_values(start);
                    return Ok(Err(self.out.push_fault(ActionFault::new(f, self.program))));
                }
            }
        }
        Ok(Ok(Span::between(start, self.out.values.len())))
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
                let entry = self.form(*id)?;
                let unset = match (entry, self.note_forms) {
                    (Some(_), false) => None,
                    _ => match init {
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
                let value = entry.unwrap_or(unset);
                let shown = self.shown_value(value, Tag::of_ty(ty), ty)?;
                self.set(*slot, value);
                self.note_field(*slot, unset);
                let h = HandleWords::Input { value };
                let none = Span::default();
                self.push_full(*id, "input", text, Some(shown), none, false, h);
            }
            Node::Checkbox { id, label, slot } => {
                let text = self.label(label)?;
                let on = matches!(self.form(*id)?, Some(Some(w)) if w != 0);
                self.set(*slot, Some(i64::from(on)));
                self.note_field(*slot, None);
                let shown = self.out.push_text(if on { "yes" } else { "no" });
                let shown = self.shown_literal_text(shown);
                let h = HandleWords::Checkbox { on };
                let none = Span::default();
                self.push_full(*id, "checkbox", text, Some(shown), none, false, h);
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
                let mut opts = std::mem::take(&mut self.out.spare.options);
                opts.clear();
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
                let mut opts = std::mem::take(&mut self.out.spare.options);
                opts.clear();
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
        let handle = if off {
            // Its arguments, the last values written, are no longer needed.
            if let HandleWords::Go(Ok((_, args))) | HandleWords::Marker(_, Ok(args)) = handle {
                if args.end as usize == self.out.values.len() {
                    self.out.truncate_values(args.start as usize);
                }
            }
            HandleWords::Inert
        } else {
            handle
        };
        self.push_full(id, role, text, None, Span::default(), off, handle);
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
        mut options: Vec<(Span, Option<i64>)>,
    ) -> Result<(), JitFault> {
        let unset = options.first().and_then(|o| o.1);
        let value = self.form(id)?.unwrap_or(unset);
        let shown = match options.iter().find(|o| o.1 == value) {
            // The chosen option's text is the value's.
            Some(&(at, _)) => self.shown_at(at),
            None => self.shown_value(value, Tag::of_ty(ty), ty)?,
        };
        self.set(slot, value);
        self.note_field(slot, unset);
        let texts = self.out.push_options(options.iter().map(|o| o.0));
        if self.out.mode().words {
            for o in &options {
                let words = self.out.hash_words(o.0);
                self.out.option_words.push(words);
            }
        }
        let words = self.out.push_values(options.iter().map(|o| o.1));
        options.clear();
        self.out.spare.options = options;
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
            let mut keyed = std::mem::take(&mut self.out.spare.keyed);
            keyed.clear();
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
            kept.extend(keyed.drain(..).map(|(_, item)| item));
            self.out.spare.keyed = keyed;
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

    pub(in crate::jit) fn page(&self, page: PageId) -> Option<&JitPage> {
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
        if !pool.holds_all(&native.texts) {
            return Err(JitFault::Input(
                "the text pool lacks the code's text constants (use the pool the site was compiled with)".into(),
            ));
        }
        let program = &self.gate.program;
        let params = program
            .pages
            .get(usize::try_from(page).unwrap_or(usize::MAX))
            .map_or(0, |p| p.params.len());
        let mut cells = std::mem::take(&mut out.spare.cells);
        cells.clear();
        cells.resize(2 * native.frame.max(params), 0);
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
        out.spare.shown_memo.serve(self.id);
        let note_forms = native.forms_apart && out.mode() == RenderMode::STRUCTURE;
        let mut origins = std::mem::take(&mut out.spare.origins);
        origins.clear();
        if note_forms {
            origins.resize(native.frame, NO_FIELD);
        }
        let mut walk = Walk {
            program,
            layout,
            state,
            pool,
            funcs: &native.funcs,
            cells,
            frame: native.frame,
            path: std::mem::take(&mut out.spare.path),
            out,
            note_forms,
            origins,
        };
        walk.path.clear();
        let walked = walk.all(&native.body);
        let Walk {
            cells,
            path,
            out,
            origins,
            ..
        } = walk;
        out.spare.cells = cells;
        out.spare.path = path;
        out.spare.origins = origins;
        walked
    }
}
