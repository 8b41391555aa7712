//! The current page as a browser shows it (INTERFACES "`wsitec serve`").
//!
//! The observation (§5.2) is a flat list of elements; a web page also needs
//! how sections nest, where each link leads, and what kind of control each
//! form element is. [`Env::page`] reads all of it from the same rendered view
//! the agent acts on, so the HTML a server writes and the observation an agent
//! reads can never disagree about what is on the page.

use super::observe::{self, Handle};
use super::{Env, ObsElement};
use crate::ir::Ty;

/// What acting on an element does, in browser terms.
#[derive(Clone, Debug, PartialEq)]
pub enum Control {
    /// Heading, text, image, section: nothing to act on.
    Static,
    /// An enabled link or navigating button, and the URL it leads to (before
    /// any guard redirects); `None` when its arguments failed to evaluate
    /// (clicking it is then a rejected step).
    Navigate { href: Option<String> },
    /// An enabled button that runs a marker.
    Marker,
    /// A disabled link or button.
    Disabled,
    /// A typed input.
    Input { kind: InputKind },
    /// A select; its options are the element's `options`.
    Select,
    /// A checkbox, and whether it is ticked.
    Checkbox { on: bool },
}

/// The value type of an input, for a browser's input hints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    Text,
    Int,
    Money,
    Date,
    Time,
    Other,
}

/// One element of the page.
#[derive(Clone, Debug)]
pub struct PageElement<'e> {
    pub element: &'e ObsElement,
    /// How many sections enclose it.
    pub depth: u16,
    pub control: Control,
}

impl Env<'_> {
    /// The current page's elements, in document order, with what a browser
    /// needs besides the observation.
    pub fn page(&self) -> Vec<PageElement<'_>> {
        let view = self.view();
        view.elements
            .iter()
            .zip(&view.handles)
            .zip(&view.depths)
            .map(|((element, handle), depth)| PageElement {
                element,
                depth: *depth,
                control: self.control(element, handle),
            })
            .collect()
    }

    fn control(&self, element: &ObsElement, handle: &Handle) -> Control {
        match handle {
            Handle::Inert if element.disabled => Control::Disabled,
            Handle::Inert => Control::Static,
            Handle::Go(Ok((page, args))) => Control::Navigate {
                href: observe::page_url(self.program, self.state(), *page, args),
            },
            Handle::Go(Err(_)) => Control::Navigate { href: None },
            Handle::Marker(..) => Control::Marker,
            Handle::Input { ty, .. } => Control::Input {
                kind: input_kind(ty),
            },
            Handle::Select { .. } => Control::Select,
            Handle::Checkbox { on, .. } => Control::Checkbox { on: *on },
        }
    }
}

fn input_kind(ty: &Ty) -> InputKind {
    match ty {
        Ty::Text => InputKind::Text,
        Ty::Int => InputKind::Int,
        Ty::Money => InputKind::Money,
        Ty::Date => InputKind::Date,
        Ty::Time => InputKind::Time,
        _ => InputKind::Other,
    }
}
