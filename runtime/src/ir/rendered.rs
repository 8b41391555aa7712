//! What rendering a page evaluates, as one walk two analyses share: the
//! locations a render reads (`reads::page_reads`, LANGUAGE.md §2.2 on text
//! rendering) and how the page's form variables reach its structure
//! ([`form_use`]).
//!
//! A render without texts (the prover's) evaluates a page's guards, its
//! `if` conditions, loops (sources, filters, `order by` keys, limits and
//! offsets), `disabled when` conditions, link and button arguments, select
//! options and the texts that name them; with texts, every label, the
//! title and the route as well. Form elements evaluate nothing: they bind
//! their variable to the agent's value.

use super::{
    Element, ElementKind, Expr, ForElement, LoopSource, PageDef, RowScan, Slot, TextPart, Ty,
};

/// One thing a render evaluates or binds.
#[derive(Clone, Copy, Debug)]
pub enum Evaluated<'p> {
    /// A condition, a loop's item, key or count, a select's option, a
    /// guard's condition or redirect argument.
    Expr(&'p Expr),
    /// A link's or button's argument: a value its handle carries.
    Argument(&'p Expr),
    /// A text shown (a label, or a select option's name).
    Text(&'p [TextPart]),
    /// Rows a loop or a select goes over (the scan's binder bound to each).
    Scan(&'p RowScan),
    /// A value of this type rendered as text (a select list's options).
    Rendered(&'p Ty),
    /// A form element's variable, bound to the agent's value.
    FormVariable(FormBinding),
    /// A list loop's binder.
    LoopBinder(Slot),
}

/// A form element binding its variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormBinding {
    pub slot: Slot,
    /// The element's id.
    pub element: u32,
    /// Whether a loop encloses the element (its value is then one per
    /// iteration).
    pub looped: bool,
}

/// Calls `f` on what rendering `page` evaluates, in document order (guards
/// first), labels, title and route only with `texts`.
pub fn page_evaluates(page: &PageDef, texts: bool, f: &mut dyn FnMut(Evaluated<'_>)) {
    // Destructured without `..`: a new part of a page fails to compile here
    // until it is placed. (A page `let` is inlined where it is used.)
    let PageDef {
        name: _,
        params: _,
        route,
        guards,
        title,
        body,
        frame: _,
    } = page;
    for super::PageGuard { cond, redirect } in guards {
        f(Evaluated::Expr(cond));
        redirect.args.iter().for_each(|a| f(Evaluated::Expr(a)));
    }
    if texts {
        for parts in route.iter().chain(title.iter()) {
            f(Evaluated::Text(parts));
        }
    }
    elements_evaluate(body, texts, false, f);
}

fn elements_evaluate(
    body: &[Element],
    texts: bool,
    looped: bool,
    f: &mut dyn FnMut(Evaluated<'_>),
) {
    for e in body {
        let bind = |slot: Slot| {
            Evaluated::FormVariable(FormBinding {
                slot,
                element: e.id,
                looped,
            })
        };
        let label = match &e.kind {
            ElementKind::Heading(p) | ElementKind::Text(p) | ElementKind::Image(p) => p,
            ElementKind::Link {
                label,
                target,
                disabled,
            } => {
                target.args.iter().for_each(|a| f(Evaluated::Argument(a)));
                disabled.iter().for_each(|c| f(Evaluated::Expr(c)));
                label
            }
            ElementKind::Button {
                label,
                action,
                disabled,
            } => {
                let args = match action {
                    super::Action::Go(call) => &call.args,
                    super::Action::Marker { args, .. } => args,
                };
                args.iter().for_each(|a| f(Evaluated::Argument(a)));
                disabled.iter().for_each(|c| f(Evaluated::Expr(c)));
                label
            }
            ElementKind::Input { label, slot, .. } | ElementKind::Checkbox { label, slot } => {
                f(bind(*slot));
                label
            }
            ElementKind::SelectList {
                label,
                options,
                ty,
                slot,
            } => {
                // Options are chosen by their text, which renders each value.
                options.iter().for_each(|o| f(Evaluated::Expr(o)));
                f(Evaluated::Rendered(ty));
                f(bind(*slot));
                label
            }
            ElementKind::SelectFrom {
                label,
                scan,
                show,
                slot,
                ..
            } => {
                f(Evaluated::Scan(scan));
                // The options' texts are how a `select` names its choice.
                f(Evaluated::Text(show));
                f(bind(*slot));
                label
            }
            ElementKind::Section { label, body } => {
                elements_evaluate(body, texts, looped, f);
                label
            }
            ElementKind::For(each) => {
                loop_evaluates(each, texts, f);
                continue;
            }
            ElementKind::If {
                cond,
                then,
                otherwise,
            } => {
                f(Evaluated::Expr(cond));
                elements_evaluate(then, texts, looped, f);
                elements_evaluate(otherwise, texts, looped, f);
                continue;
            }
        };
        if texts {
            f(Evaluated::Text(label));
        }
    }
}

fn loop_evaluates(each: &ForElement, texts: bool, f: &mut dyn FnMut(Evaluated<'_>)) {
    let ForElement {
        binder_name: _,
        source,
        order,
        limit,
        offset,
        body,
    } = each;
    match source {
        LoopSource::Rows(scan) => f(Evaluated::Scan(scan)),
        LoopSource::List {
            slot,
            items,
            filter,
        } => {
            f(Evaluated::LoopBinder(*slot));
            items.iter().for_each(|i| f(Evaluated::Expr(i)));
            filter.iter().for_each(|c| f(Evaluated::Expr(c)));
        }
    }
    let counts = limit.iter().chain(offset.iter());
    order
        .iter()
        .map(|(k, _)| k)
        .chain(counts)
        .for_each(|x| f(Evaluated::Expr(x)));
    elements_evaluate(body, texts, true, f);
}

/// How a page's form variables reach a render without texts, when the
/// structure it gives can be keyed apart from them ([`form_use`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FormUse {
    /// Every form variable of the page, in document order.
    pub slots: Vec<Slot>,
    /// The elements (ids) whose variables the render reads other than as a
    /// whole argument (a condition, a loop, a select's options, a part of
    /// an argument): their values are part of a key, each element outside
    /// every loop, so one value per page.
    pub keyed: Vec<u32>,
}

/// How `page`'s form variables reach a render without texts (`None` when
/// the page has none, when the structure cannot be keyed apart from them,
/// or when every one of them would be keyed).
///
/// A form variable read only as a whole link or button argument (the
/// argument is the variable itself, `-> transfer(source, amount)`) reaches
/// the structure in two places: its element's handle and that argument.
/// One read anywhere else (a condition, a loop, a select's options, a part
/// of an argument, a guard) can change anything after it, so its value
/// must be part of the key ([`FormUse::keyed`]); that needs one value per
/// page, so the element must stand outside every loop, or the page is not
/// keyed apart. So that the variable an argument names is the form
/// element's and nothing else's, each form variable must be bound by one
/// form element only, and be no parameter, loop binder or scan binder
/// anywhere on the page (labels included).
///
/// What the prover's memory of renders relies on (`jit/step/memo.rs`): two
/// states equal but for the form variables, and equal in the keyed ones,
/// render the page alike but for the form elements' handles and the whole
/// arguments, which the agent's values are written into.
pub fn form_use(page: &PageDef) -> Option<FormUse> {
    let mut forms: Vec<FormBinding> = Vec::new();
    let mut binders: Vec<Slot> = (0..page.params.len())
        .map(|i| Slot::try_from(i).unwrap_or(Slot::MAX))
        .collect();
    page_evaluates(page, true, &mut |e| match e {
        Evaluated::FormVariable(b) => forms.push(b),
        Evaluated::LoopBinder(s) => binders.push(s),
        Evaluated::Scan(scan) => {
            binders.push(scan.binder);
            scan.for_each_child(&mut |x| scan_binders(x, &mut binders));
        }
        Evaluated::Expr(x) | Evaluated::Argument(x) => scan_binders(x, &mut binders),
        Evaluated::Text(parts) => {
            super::for_each_interpolation(parts, &mut |x| scan_binders(x, &mut binders))
        }
        Evaluated::Rendered(_) => {}
    });
    let slots: Vec<Slot> = forms.iter().map(|b| b.slot).collect();
    let mut distinct = slots.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if slots.is_empty() || distinct.len() != slots.len() {
        return None;
    }
    if binders.iter().any(|b| distinct.binary_search(b).is_ok()) {
        return None;
    }
    // The form variables read other than as a whole argument.
    let mut read = Vec::new();
    let mut reads_of = |x: &Expr| {
        x.walk(&mut |e| {
            if let Expr::Local(s) = e {
                if distinct.binary_search(s).is_ok() {
                    read.push(*s);
                }
            }
        })
    };
    page_evaluates(page, false, &mut |e| match e {
        Evaluated::Argument(Expr::Local(_)) => {}
        Evaluated::Expr(x) | Evaluated::Argument(x) => reads_of(x),
        Evaluated::Text(parts) => super::for_each_interpolation(parts, &mut reads_of),
        Evaluated::Scan(scan) => scan.for_each_child(&mut reads_of),
        Evaluated::Rendered(_) | Evaluated::FormVariable(_) | Evaluated::LoopBinder(_) => {}
    });
    let keyed: Vec<&FormBinding> = forms.iter().filter(|b| read.contains(&b.slot)).collect();
    // With every variable keyed, the key would say what the variable list
    // says, at more cost.
    if keyed.len() == forms.len() || keyed.iter().any(|b| b.looped) {
        return None;
    }
    let keyed = keyed.iter().map(|b| b.element).collect();
    Some(FormUse { slots, keyed })
}

/// Pushes the binder of every scan in `expr` (`exists`, `all`, `count`,
/// aggregates, `find`).
fn scan_binders(expr: &Expr, out: &mut Vec<Slot>) {
    expr.walk(&mut |e| match e {
        Expr::Exists(scan, _)
        | Expr::All(scan, _)
        | Expr::Count(scan)
        | Expr::Find(scan)
        | Expr::Aggregate { scan, .. } => out.push(scan.binder),
        _ => {}
    });
}
