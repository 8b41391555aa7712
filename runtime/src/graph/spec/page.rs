//! One page's semantics for the knowledge spec: what it shows (headings,
//! texts with the fields they interpolate, loops over tables with their
//! filters), the forms it affords (inputs, selects, checkboxes) and its actions
//! (links, navigating buttons, marker buttons), each under the element's
//! stable key (spec §2.2). Conditions (`if`) are not modelled: an element in
//! either branch is listed, as it may show.

use crate::graph::expr_text::{self, Names};
use crate::graph::ir_graph::{element_key, visit_elements, Visit};
use crate::ir::{self, ElementKind, LoopSource, Program, Ty};
use serde::Serialize;

/// Something the page shows.
#[derive(Clone, Debug, Serialize)]
pub struct Shown {
    pub element: String,
    /// `heading`, `text`, `image` or `section`.
    pub role: &'static str,
    /// The text as source, interpolations in braces.
    pub text: String,
    /// The `Table.field`s the text interpolates.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<String>,
}

/// A `for` over rows or a literal list.
#[derive(Clone, Debug, Serialize)]
pub struct Loop {
    pub element: String,
    pub binder: String,
    /// The table (or `list` for `for x in [...]`).
    pub over: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}

/// A form element.
#[derive(Clone, Debug, Serialize)]
pub struct Form {
    pub element: String,
    /// `input`, `select` or `checkbox`.
    pub kind: &'static str,
    pub label: String,
    /// The variable's type.
    #[serde(rename = "type")]
    pub ty: String,
    /// A select's options: the listed values, or `x in T where c show e`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<String>,
}

/// A link or button.
#[derive(Clone, Debug, Serialize)]
pub struct Affordance {
    pub element: String,
    /// `link`, `button` (navigating) or `marker`.
    pub kind: &'static str,
    pub label: String,
    /// The page a link or navigating button leads to, as source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The marker call a marker button makes, as source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled_when: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<String>,
}

/// What one page shows and affords, in document order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Semantics {
    pub shows: Vec<Shown>,
    pub loops: Vec<Loop>,
    pub forms: Vec<Form>,
    pub actions: Vec<Affordance>,
}

/// The semantics of `page`.
pub fn semantics(program: &Program, page: &ir::PageDef) -> Semantics {
    let mut out = Semantics::default();
    visit_elements(page, &mut |v| element(program, page, v, &mut out));
    out
}

fn element(program: &Program, page: &ir::PageDef, v: &Visit<'_>, out: &mut Semantics) {
    let key = element_key(page, v.element);
    let loops = v.loops.to_vec();
    let text = |parts: &[ir::TextPart]| expr_text::text(program, v.names, parts);
    let expr = |e: &ir::Expr| expr_text::expr(program, v.names, e);
    let shown = |role, parts: &[ir::TextPart]| Shown {
        element: key.clone(),
        role,
        text: text(parts),
        fields: expr_text::fields_shown(program, parts),
        loops: loops.clone(),
    };
    match &v.element.kind {
        ElementKind::Heading(p) => out.shows.push(shown("heading", p)),
        ElementKind::Text(p) => out.shows.push(shown("text", p)),
        ElementKind::Image(p) => out.shows.push(shown("image", p)),
        ElementKind::Section { label, .. } => out.shows.push(shown("section", label)),
        ElementKind::For(l) => out.loops.push(loop_spec(program, v.names, key, l)),
        ElementKind::Input { ty, label, .. } => out.forms.push(Form {
            element: key,
            kind: "input",
            label: text(label),
            ty: ty_text(program, ty),
            options: Vec::new(),
            loops,
        }),
        ElementKind::SelectList {
            ty, label, options, ..
        } => out.forms.push(Form {
            element: key,
            kind: "select",
            label: text(label),
            ty: ty_text(program, ty),
            options: options.iter().map(&expr).collect(),
            loops,
        }),
        ElementKind::SelectFrom {
            table,
            label,
            scan,
            show,
            ..
        } => {
            let mut names = v.names.clone();
            names.bind(scan.binder, "x", Some(*table));
            let head = match &scan.filter {
                Some(f) => format!(" where {}", expr_text::expr(program, &names, f)),
                None => String::new(),
            };
            out.forms.push(Form {
                element: key,
                kind: "select",
                label: text(label),
                ty: ty_text(program, &Ty::Row(*table)),
                options: vec![format!(
                    "x in {}{head} show \"{}\"",
                    expr_text::table_name(program, *table),
                    expr_text::text(program, &names, show)
                )],
                loops,
            })
        }
        ElementKind::Checkbox { label, .. } => out.forms.push(Form {
            element: key,
            kind: "checkbox",
            label: text(label),
            ty: "Bool".into(),
            options: Vec::new(),
            loops,
        }),
        ElementKind::Link {
            label,
            target,
            disabled,
        } => out.actions.push(Affordance {
            element: key,
            kind: "link",
            label: text(label),
            target: Some(expr_text::page_call(program, v.names, target)),
            marker: None,
            disabled_when: disabled.as_ref().map(&expr),
            loops,
        }),
        ElementKind::Button {
            label,
            action,
            disabled,
        } => {
            let (kind, target, marker) = match action {
                ir::Action::Go(call) => (
                    "button",
                    Some(expr_text::page_call(program, v.names, call)),
                    None,
                ),
                ir::Action::Marker { marker, args } => (
                    "marker",
                    None,
                    Some(marker_call(program, v.names, *marker, args)),
                ),
            };
            out.actions.push(Affordance {
                element: key,
                kind,
                label: text(label),
                target,
                marker,
                disabled_when: disabled.as_ref().map(&expr),
                loops,
            })
        }
        ElementKind::If { .. } => {}
    }
}

/// A loop, its filter and order read with its binder in scope.
fn loop_spec(program: &Program, outer: &Names, element: String, l: &ir::ForElement) -> Loop {
    let mut names = outer.clone();
    let (slot, table, over, filter) = match &l.source {
        LoopSource::Rows(scan) => (
            scan.binder,
            Some(scan.table),
            expr_text::table_name(program, scan.table).to_string(),
            scan.filter.as_deref(),
        ),
        LoopSource::List { slot, filter, .. } => (*slot, None, "list".into(), filter.as_deref()),
    };
    names.bind(slot, &l.binder_name, table);
    let expr = |e: &ir::Expr| expr_text::expr(program, &names, e);
    Loop {
        element,
        binder: l.binder_name.clone(),
        over,
        filter: filter.map(expr),
        order_by: l
            .order
            .as_ref()
            .map(|(e, desc)| format!("{}{}", expr(e), if *desc { " desc" } else { "" })),
        limit: l.limit.as_ref().map(|e| expr_text::expr(program, outer, e)),
    }
}

/// `add_to_cart(session.user, p, qty)`
fn marker_call(
    program: &Program,
    names: &Names,
    marker: ir::MarkerId,
    args: &[ir::Expr],
) -> String {
    let name = program
        .markers
        .get(marker as usize)
        .map_or("?", |m| m.name.as_str());
    let args: Vec<String> = args
        .iter()
        .map(|a| expr_text::expr(program, names, a))
        .collect();
    format!("{name}({})", args.join(", "))
}

/// A type as source: `Int`, `Product`, `OrderStatus?`.
pub fn ty_text(program: &Program, ty: &Ty) -> String {
    crate::interp::gate::ty_name(program, ty)
}
