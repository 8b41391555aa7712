//! Rendering the current page into a `View` (§2.2, §5.2).
//!
//! The page's elements are walked in document order with a frame holding the
//! page's arguments in slots `0..n`. `for` loops bind their binder (rows in id
//! order, or by `order by`, then `offset`, then `limit`; list items in order), `if` picks a
//! branch, and each form element loads its variable — the agent's value for
//! this (element, loop rows) if it set one, else the initial value — into its
//! slot, so later expressions see it. Alongside each observed element the view
//! keeps a `Handle`: what clicking, typing or selecting there does, with link
//! and marker arguments already evaluated in this very state (the state the
//! agent acts on), so `step` never re-renders to act.

use super::{FormKey, ObsElement, State};
use crate::interp::eval::{eval, eval_bool, Context};
use crate::interp::render::{render, FAILED};
use crate::interp::state::idx;
use crate::interp::ActionFault;
use crate::ir::{self, ElementKind, Expr, PageCall, Slot, TextPart, Ty, Value};

mod structure;
pub(crate) use structure::structure;

/// A rendered page: what the agent sees, and what each element does.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct View {
    pub url: String,
    pub title: String,
    pub elements: Vec<ObsElement>,
    /// One per element, same order.
    pub handles: Vec<Handle>,
    /// One per element, same order: its id and loop path (for `structure`).
    pub paths: Vec<FormKey>,
    /// One per element, same order: how many sections enclose it (for the
    /// HTML renderer, which nests them).
    pub depths: Vec<u16>,
    /// Every interpolated value shown by an element, in document order
    /// (answer candidates in retrieval tasks).
    pub shown: Vec<String>,
    /// The markers of buttons shown disabled (for the prover's explanations).
    pub disabled_markers: Vec<ir::MarkerId>,
}

/// What acting on an element does. Argument evaluation may have faulted; the
/// fault is kept as the alert of the step that tries it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Handle {
    /// Nothing to do (heading, text, image, section, disabled link or button).
    Inert,
    Go(Result<(ir::PageId, Vec<Value>), ActionFault>),
    Marker(ir::MarkerId, Result<Vec<Value>, ActionFault>),
    Input {
        key: FormKey,
        ty: Ty,
    },
    Select {
        key: FormKey,
        options: Vec<(String, Value)>,
    },
    Checkbox {
        key: FormKey,
        on: bool,
    },
}

/// Frames never grow past this (as in `eval`).
const MAX_SLOTS: usize = 1 << 16;

/// Renders the state's current page.
pub(crate) fn render_page(program: &ir::Program, state: &State) -> View {
    let Some(page) = program.pages.get(idx(state.nav.page)) else {
        // Only a broken IR gets here; show an empty page rather than fail.
        return View {
            url: "/".into(),
            title: program.site.title.clone(),
            ..View::default()
        };
    };
    let ctx = Context {
        program,
        db: &state.world.db,
        session: &state.world.session,
        nav: Some(&state.nav),
    };
    let mut frame = super::blank_frame(page.frame);
    for (i, arg) in state.nav.args.iter().enumerate() {
        set_slot(
            &mut frame,
            u32::try_from(i).unwrap_or(u32::MAX),
            arg.clone(),
        );
    }
    let url = route(&ctx, &mut frame, page);
    let title = match &page.title {
        Some(parts) => plain_text(&ctx, &mut frame, parts),
        None => program.site.title.clone(),
    };
    let mut r = Renderer {
        ctx,
        state,
        page: &page.name,
        loops: Vec::new(),
        depth: 0,
        view: View::default(),
    };
    r.all(&mut frame, &page.body);
    View {
        url,
        title,
        ..r.view
    }
}

/// The URL of `page` called with `args` in `state` (where a link to it
/// leads, before any guard redirects).
pub(crate) fn page_url(
    program: &ir::Program,
    state: &State,
    page: ir::PageId,
    args: &[Value],
) -> Option<String> {
    let def = program.pages.get(idx(page))?;
    let ctx = Context {
        program,
        db: &state.world.db,
        session: &state.world.session,
        nav: Some(&state.nav),
    };
    let mut frame = super::blank_frame(def.frame);
    for (i, arg) in args.iter().enumerate() {
        set_slot(&mut frame, u32::try_from(i).ok()?, arg.clone());
    }
    Some(route(&ctx, &mut frame, def))
}

/// The page's URL: its `at` route (rows by id), or `/snake_name/{arg}...`.
fn route(ctx: &Context<'_>, frame: &mut Vec<Value>, page: &ir::PageDef) -> String {
    if let Some(parts) = &page.route {
        let mut out = String::new();
        for part in parts {
            match part {
                TextPart::Lit(s) => out.push_str(s),
                TextPart::Interp(e, ty) => match eval(ctx, frame, e) {
                    Ok(v) => out.push_str(&route_value(ctx, &v, ty)),
                    Err(_) => out.push_str(FAILED),
                },
            }
        }
        return out;
    }
    let mut out = format!("/{}", snake_case(&page.name));
    for (arg, param) in frame.iter().zip(&page.params) {
        out.push('/');
        out.push_str(&route_value(ctx, arg, &param.ty));
    }
    out
}

/// A value in a route: a row by its id, anything else as page text.
fn route_value(ctx: &Context<'_>, v: &Value, ty: &Ty) -> String {
    match v {
        Value::Row(id) => id.to_string(),
        _ => render(ctx.program, ctx.db, v, ty),
    }
}

/// `ProductPage` → `product_page`: the first segment of a page's default route
/// (the checker compares routes with it, E102).
pub fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, ch) in name.chars().enumerate() {
        if ch.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(ch.to_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// Text parts rendered, interpolations collected into `shown` when given.
fn text_into(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    parts: &[TextPart],
    mut shown: Option<&mut Vec<String>>,
) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            TextPart::Lit(s) => out.push_str(s),
            TextPart::Interp(e, ty) => {
                let s = match eval(ctx, frame, e) {
                    Ok(v) => render(ctx.program, ctx.db, &v, ty),
                    Err(_) => FAILED.to_string(),
                };
                if let Some(shown) = shown.as_deref_mut() {
                    if !s.is_empty() && s != FAILED {
                        shown.push(s.clone());
                    }
                }
                out.push_str(&s);
            }
        }
    }
    out
}

fn plain_text(ctx: &Context<'_>, frame: &mut Vec<Value>, parts: &[TextPart]) -> String {
    text_into(ctx, frame, parts, None)
}

/// Stores `v` in `slot`, growing the frame as needed (within `MAX_SLOTS`).
pub(crate) fn set_slot(frame: &mut Vec<Value>, slot: Slot, v: Value) {
    let i = idx(slot);
    if i >= MAX_SLOTS {
        return;
    }
    if frame.len() <= i {
        frame.resize(i + 1, Value::None);
    }
    if let Some(s) = frame.get_mut(i) {
        *s = v;
    }
}

/// Binds `slot` to `v` and tells whether `filter` holds (a fault: it does not).
pub(crate) fn bind_passes(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    slot: Slot,
    v: Value,
    filter: Option<&Expr>,
) -> bool {
    set_slot(frame, slot, v);
    filter.is_none_or(|f| eval_bool(ctx, frame, f).unwrap_or(false))
}

/// A page reference evaluated; a fault is kept for the alert.
pub(crate) fn eval_call(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    call: &PageCall,
) -> Result<(ir::PageId, Vec<Value>), ActionFault> {
    eval_args(ctx, frame, &call.args).map(|args| (call.page, args))
}

fn eval_args(
    ctx: &Context<'_>,
    frame: &mut Vec<Value>,
    args: &[Expr],
) -> Result<Vec<Value>, ActionFault> {
    args.iter()
        .map(|a| eval(ctx, frame, a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|f| ActionFault::new(f, ctx.program))
}

/// A form variable's value before the agent touches it.
fn initial(ty: &Ty) -> Value {
    match ty {
        Ty::Text => Value::Text("".into()),
        Ty::Int => Value::Int(0),
        Ty::Money => Value::Money(0),
        Ty::Bool => Value::Bool(false),
        Ty::Enum(_) => Value::Enum(0),
        Ty::Date | Ty::Time | Ty::Row(_) | Ty::Optional(_) => Value::None,
    }
}

/// The walk over a page's elements.
struct Renderer<'a> {
    ctx: Context<'a>,
    state: &'a State,
    page: &'a str,
    /// The enclosing loops: binder name and row id (or list index).
    loops: Vec<(String, i64)>,
    /// The enclosing sections.
    depth: u16,
    view: View,
}

impl Renderer<'_> {
    fn all(&mut self, frame: &mut Vec<Value>, els: &[ir::Element]) {
        for e in els {
            self.element(frame, e);
        }
    }

    /// `#name` or `Page:line:column`, plus `[x=id,...]` inside loops (so that
    /// named elements repeated by a loop stay distinct too).
    fn key(&self, e: &ir::Element) -> String {
        let mut key = match &e.name {
            Some(n) => format!("#{n}"),
            None => format!("{}:{}:{}", self.page, e.pos.line, e.pos.column),
        };
        if !self.loops.is_empty() {
            let binds: Vec<String> = self
                .loops
                .iter()
                .map(|(b, id)| format!("{b}={id}"))
                .collect();
            key.push_str(&format!("[{}]", binds.join(",")));
        }
        key
    }

    fn form_key(&self, e: &ir::Element) -> FormKey {
        (e.id, self.loops.iter().map(|(_, id)| *id).collect())
    }

    fn text(&mut self, frame: &mut Vec<Value>, parts: &[TextPart]) -> String {
        text_into(&self.ctx, frame, parts, Some(&mut self.view.shown))
    }

    fn push(&mut self, e: &ir::Element, role: &'static str, text: String, handle: Handle) {
        self.push_full(e, role, text, None, Vec::new(), false, handle);
    }

    #[allow(clippy::too_many_arguments)]
    fn push_full(
        &mut self,
        e: &ir::Element,
        role: &'static str,
        text: String,
        value: Option<String>,
        options: Vec<String>,
        disabled: bool,
        handle: Handle,
    ) {
        let index = self.view.elements.len() + 1;
        let key = self.key(e);
        self.view.elements.push(ObsElement {
            index,
            key,
            role,
            text,
            value,
            options,
            disabled,
        });
        self.view.handles.push(handle);
        self.view.paths.push(self.form_key(e));
        self.view.depths.push(self.depth);
    }

    /// `disabled when c`; a condition that faults disables (acting on an element
    /// whose state cannot be computed would only fail).
    fn disabled(&self, frame: &mut Vec<Value>, cond: Option<&Expr>) -> bool {
        cond.is_some_and(|c| eval_bool(&self.ctx, frame, c).unwrap_or(true))
    }

    fn element(&mut self, frame: &mut Vec<Value>, e: &ir::Element) {
        match &e.kind {
            ElementKind::Heading(p) => self.show(frame, e, "heading", p),
            ElementKind::Text(p) => self.show(frame, e, "text", p),
            ElementKind::Image(p) => self.show(frame, e, "image", p),
            ElementKind::Link {
                label,
                target,
                disabled,
            } => {
                let go = Handle::Go(eval_call(&self.ctx, frame, target));
                self.clickable(frame, e, "link", label, disabled.as_ref(), go);
            }
            ElementKind::Button {
                label,
                action,
                disabled,
            } => {
                let h = match action {
                    ir::Action::Go(call) => Handle::Go(eval_call(&self.ctx, frame, call)),
                    ir::Action::Marker { marker, args } => {
                        Handle::Marker(*marker, eval_args(&self.ctx, frame, args))
                    }
                };
                self.clickable(frame, e, "button", label, disabled.as_ref(), h);
            }
            ElementKind::Input { slot, ty, label } => self.input(frame, e, *slot, ty, label),
            ElementKind::SelectList {
                slot,
                ty,
                label,
                options,
            } => {
                let opts = self.list_options(frame, ty, options);
                self.select(frame, e, *slot, ty, label, opts);
            }
            ElementKind::SelectFrom {
                slot,
                table,
                label,
                scan,
                show,
            } => {
                let opts = self.row_options(frame, scan, show);
                self.select(frame, e, *slot, &Ty::Row(*table), label, opts);
            }
            ElementKind::Checkbox { slot, label } => self.checkbox(frame, e, *slot, label),
            ElementKind::Section { label, body } => {
                let text = self.text(frame, label);
                self.push(e, "section", text, Handle::Inert);
                self.depth = self.depth.saturating_add(1);
                self.all(frame, body);
                self.depth = self.depth.saturating_sub(1);
            }
            ElementKind::For(f) => self.for_loop(frame, f),
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                // A condition that faults shows the `else` branch, as if false.
                let taken = eval_bool(&self.ctx, frame, cond).unwrap_or(false);
                self.all(frame, if taken { then } else { otherwise });
            }
        }
    }

    fn show(
        &mut self,
        frame: &mut Vec<Value>,
        e: &ir::Element,
        role: &'static str,
        parts: &[TextPart],
    ) {
        let text = self.text(frame, parts);
        self.push(e, role, text, Handle::Inert);
    }

    fn clickable(
        &mut self,
        frame: &mut Vec<Value>,
        e: &ir::Element,
        role: &'static str,
        label: &[TextPart],
        disabled: Option<&Expr>,
        handle: Handle,
    ) {
        let text = self.text(frame, label);
        let off = self.disabled(frame, disabled);
        if let (true, Handle::Marker(m, _)) = (off, &handle) {
            self.view.disabled_markers.push(*m);
        }
        let handle = if off { Handle::Inert } else { handle };
        self.push_full(e, role, text, None, Vec::new(), off, handle);
    }

    fn input(
        &mut self,
        frame: &mut Vec<Value>,
        e: &ir::Element,
        slot: Slot,
        ty: &Ty,
        label: &[TextPart],
    ) {
        let text = self.text(frame, label);
        let key = self.form_key(e);
        let value = self
            .state
            .forms
            .get(&key)
            .cloned()
            .unwrap_or_else(|| initial(ty));
        let shown = render(self.ctx.program, self.ctx.db, &value, ty);
        set_slot(frame, slot, value);
        let handle = Handle::Input {
            key,
            ty: ty.clone(),
        };
        self.push_full(e, "input", text, Some(shown), Vec::new(), false, handle);
    }

    fn checkbox(
        &mut self,
        frame: &mut Vec<Value>,
        e: &ir::Element,
        slot: Slot,
        label: &[TextPart],
    ) {
        let text = self.text(frame, label);
        let key = self.form_key(e);
        let on = matches!(self.state.forms.get(&key), Some(Value::Bool(true)));
        set_slot(frame, slot, Value::Bool(on));
        let shown = if on { "yes" } else { "no" }.to_string();
        self.push_full(
            e,
            "checkbox",
            text,
            Some(shown),
            Vec::new(),
            false,
            Handle::Checkbox { key, on },
        );
    }

    /// A select's variable: the agent's choice, else the first option (`none`
    /// without options); shown as its option's text.
    fn select(
        &mut self,
        frame: &mut Vec<Value>,
        e: &ir::Element,
        slot: Slot,
        ty: &Ty,
        label: &[TextPart],
        options: Vec<(String, Value)>,
    ) {
        let text = self.text(frame, label);
        let key = self.form_key(e);
        let value = match self.state.forms.get(&key) {
            Some(v) => v.clone(),
            None => options.first().map_or(Value::None, |o| o.1.clone()),
        };
        let shown = match options.iter().find(|o| o.1 == value) {
            Some(o) => o.0.clone(),
            None => render(self.ctx.program, self.ctx.db, &value, ty),
        };
        set_slot(frame, slot, value);
        let texts = options.iter().map(|o| o.0.clone()).collect();
        self.push_full(
            e,
            "select",
            text,
            Some(shown),
            texts,
            false,
            Handle::Select { key, options },
        );
    }

    /// `["a", "b"]` options; one that faults is left out.
    fn list_options(
        &mut self,
        frame: &mut Vec<Value>,
        ty: &Ty,
        options: &[Expr],
    ) -> Vec<(String, Value)> {
        options
            .iter()
            .filter_map(|o| eval(&self.ctx, frame, o).ok())
            .map(|v| (render(self.ctx.program, self.ctx.db, &v, ty), v))
            .collect()
    }

    /// `from x in T where c show "..."` options: matching rows in id order.
    fn row_options(
        &mut self,
        frame: &mut Vec<Value>,
        scan: &ir::RowScan,
        show: &[TextPart],
    ) -> Vec<(String, Value)> {
        let saved = frame.get(idx(scan.binder)).cloned().unwrap_or(Value::None);
        let ids: Vec<i64> = self
            .ctx
            .db
            .table(scan.table)
            .map(|t| t.rows().iter().map(|r| r.id).collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        for id in ids {
            if bind_passes(
                &self.ctx,
                frame,
                scan.binder,
                Value::Row(id),
                scan.filter.as_deref(),
            ) {
                let text = self.text(frame, show);
                out.push((text, Value::Row(id)));
            }
        }
        set_slot(frame, scan.binder, saved);
        out
    }

    fn for_loop(&mut self, frame: &mut Vec<Value>, f: &ir::ForElement) {
        let (slot, items) = self.loop_items(frame, f);
        let saved = frame.get(idx(slot)).cloned().unwrap_or(Value::None);
        for (value, id) in items {
            set_slot(frame, slot, value);
            self.loops.push((f.binder_name.clone(), id));
            self.all(frame, &f.body);
            self.loops.pop();
        }
        set_slot(frame, slot, saved);
    }

    /// The loop's binder slot and its items in the order shown: each with the
    /// id its iteration is known by (a row's id, a list item's index).
    fn loop_items(&self, frame: &mut Vec<Value>, f: &ir::ForElement) -> (Slot, Vec<(Value, i64)>) {
        let (slot, candidates, filter) = match &f.source {
            ir::LoopSource::Rows(scan) => {
                let rows = self
                    .ctx
                    .db
                    .table(scan.table)
                    .map(|t| t.rows())
                    .unwrap_or(&[]);
                let items = rows
                    .iter()
                    .map(|r| (Value::Row(r.id), r.id))
                    .collect::<Vec<_>>();
                (scan.binder, items, scan.filter.as_deref())
            }
            ir::LoopSource::List {
                slot,
                items,
                filter,
            } => {
                let items = items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, e)| {
                        Some((eval(&self.ctx, frame, e).ok()?, i64::try_from(i).ok()?))
                    })
                    .collect::<Vec<_>>();
                (*slot, items, filter.as_deref())
            }
        };
        let mut kept: Vec<(Value, i64)> = candidates
            .into_iter()
            .filter(|(v, _)| bind_passes(&self.ctx, frame, slot, v.clone(), filter))
            .collect();
        if let Some((key, desc)) = &f.order {
            self.sort(frame, slot, &mut kept, key, *desc);
        }
        if let Some(offset) = &f.offset {
            // An offset that faults, or a negative one, skips nothing.
            if let Ok(Value::Int(k)) = eval(&self.ctx, frame, offset) {
                kept.drain(..skip_count(k, kept.len()));
            }
        }
        if let Some(limit) = &f.limit {
            // A limit that faults limits nothing.
            if let Ok(Value::Int(n)) = eval(&self.ctx, frame, limit) {
                kept.truncate(usize::try_from(n.max(0)).unwrap_or(usize::MAX));
            }
        }
        (slot, kept)
    }

    /// `order by key [desc]`, stable so ties keep id order; a key that faults
    /// sorts as `none`.
    fn sort(
        &self,
        frame: &mut Vec<Value>,
        slot: Slot,
        items: &mut Vec<(Value, i64)>,
        key: &Expr,
        desc: bool,
    ) {
        let mut keyed: Vec<(Value, (Value, i64))> = items
            .drain(..)
            .map(|item| {
                set_slot(frame, slot, item.0.clone());
                (eval(&self.ctx, frame, key).unwrap_or(Value::None), item)
            })
            .collect();
        keyed.sort_by(|a, b| if desc { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) });
        items.extend(keyed.into_iter().map(|(_, item)| item));
    }
}

/// How many of `len` items `offset k` skips: `k` clamped to `0..=len`.
pub(crate) fn skip_count(k: i64, len: usize) -> usize {
    usize::try_from(k.max(0)).unwrap_or(usize::MAX).min(len)
}

/// The text form: one line per element, `[7] link "ThinkPad X1"`, with the
/// value, options and `disabled` where they apply.
pub fn axtree(elements: &[ObsElement]) -> String {
    let lines: Vec<String> = elements.iter().map(ax_line).collect();
    lines.join("\n")
}

fn ax_line(e: &ObsElement) -> String {
    let mut line = format!("[{}] {} {}", e.index, e.role, quote(&e.text));
    if let Some(v) = &e.value {
        line.push_str(&format!(" value={}", quote(v)));
    }
    if !e.options.is_empty() {
        let opts: Vec<String> = e.options.iter().map(|o| quote(o)).collect();
        line.push_str(&format!(" options=[{}]", opts.join(", ")));
    }
    if e.disabled {
        line.push_str(" disabled");
    }
    line
}

/// A string in double quotes, with `"`, `\` and line breaks escaped so that a
/// line stays one line.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_snake_case() {
        assert_eq!(snake_case("ProductPage"), "product_page");
        assert_eq!(snake_case("Home"), "home");
    }

    #[test]
    fn axtree_lines_escape_and_show_state() {
        let e = ObsElement {
            index: 3,
            key: "#q".into(),
            role: "select",
            text: "Sort \"by\"".into(),
            value: Some("a".into()),
            options: vec!["a".into(), "b".into()],
            disabled: true,
        };
        assert_eq!(
            axtree(&[e]),
            "[3] select \"Sort \\\"by\\\"\" value=\"a\" options=[\"a\", \"b\"] disabled"
        );
    }
}
