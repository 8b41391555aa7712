//! A rendered page as the fast engines and the tests see it: every element
//! instance in document order with its loop path, role, text, value, option
//! texts, `disabled` flag and handle (values as layout words), plus the
//! values its labels showed.
//!
//! The JIT writes it from the flat state (`jit::render`) and the interpreter
//! builds it from its own view (`env::observe`, for the differential tests);
//! this module owns only the type, so neither depends on the other for it.
//! A render computes what its [`RenderMode`] asks: strings, the hashes of
//! the words (`crate::words`) the trainer's token ids are made of, both, or
//! only the structure a search needs.

use crate::interp::ActionFault;
use crate::ir::{self, PageId};

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
/// Equality compares what the elements hold (their spans resolved) and the
/// shown values.
///
/// An element's loop path and its handle's value words are spans of two
/// lists the page shares ([`PageStructure::paths`], [`PageStructure::values`])
/// rather than lists of its own: a search renders a page per state it
/// expands, and emptying, refilling and copying a handful of flat lists
/// costs far less than recycling two small lists per element.
#[derive(Clone, Debug, Default)]
pub struct PageStructure {
    pub elements: Vec<ElementInstance>,
    /// Every element's loop path, one after another; an element's
    /// [`ElementInstance::path`] is a span of it.
    pub paths: Vec<i64>,
    /// The value words of every handle (link and marker arguments, select
    /// options), one list after another; handles hold spans of it.
    pub values: Vec<Option<i64>>,
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
    pub(crate) spare: Spare,
}

/// A loop iteration: the binder's value (a word) and the id it is known by.
pub(crate) type LoopItem = (Option<i64>, i64);

#[derive(Clone, Debug, Default)]
pub(crate) struct Spare {
    pub texts: Vec<String>,
    pub lists: Vec<Vec<String>>,
    /// Text waiting for its words to be hashed.
    pub pending: String,
    /// Loop items of earlier walks.
    pub items: Vec<Vec<LoopItem>>,
    /// A walk's frame cells and loop path, and a select's options and a
    /// loop's sort keys while they are built: one of each is in use at a
    /// time, so one buffer each, taken and put back.
    pub cells: Vec<i64>,
    pub path: Vec<i64>,
    pub options: Vec<(String, Option<i64>)>,
    pub keyed: Vec<(Option<i64>, LoopItem)>,
}

impl Spare {
    /// Keeps a string for a later text, if it holds memory (an empty one
    /// popped later would grow, allocate, all the same). One push at a
    /// time: a chained, filtered `extend` took the slow path on every
    /// element of every render.
    pub(crate) fn keep_text(&mut self, text: String) {
        if text.capacity() > 0 {
            self.texts.push(text);
        }
    }
}

impl PartialEq for PageStructure {
    fn eq(&self, other: &PageStructure) -> bool {
        self.elements.len() == other.elements.len()
            && self
                .elements
                .iter()
                .zip(&other.elements)
                .all(|(a, b)| self.same_element(a, other, b))
            && self.shown == other.shown
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
                text,
                value,
                mut options,
                ..
            } = e;
            // Only buffers that hold memory are worth keeping.
            spare.keep_text(text);
            if let Some(value) = value {
                spare.keep_text(value);
            }
            for option in options.drain(..) {
                spare.keep_text(option);
            }
            if options.capacity() > 0 {
                spare.lists.push(options);
            }
        }
        for shown in self.shown.drain(..) {
            spare.keep_text(shown);
        }
        self.words.clear();
        self.paths.clear();
        self.values.clear();
    }

    /// Makes this structure equal to `other` (its mode as well), reusing
    /// this one's strings and lists rather than cloning `other`'s (a derived
    /// `clone_from` allocates every element's buffers anew). The prover
    /// restores a page per candidate this way, and a batch restarts an
    /// episode onto a kept first page.
    pub fn copy_from(&mut self, other: &PageStructure) {
        self.clear();
        self.mode = other.mode;
        for e in &other.elements {
            let element = self.copy_element(e);
            self.elements.push(element);
        }
        for s in &other.shown {
            let copy = self.copied(s);
            self.shown.push(copy);
        }
        self.words.extend_from_slice(&other.words);
        self.paths.extend_from_slice(&other.paths);
        self.values.extend_from_slice(&other.values);
    }

    /// Copies `e` of a page whose shared lists this page now holds.
    fn copy_element(&mut self, e: &ElementInstance) -> ElementInstance {
        let mut options = Vec::new();
        if !e.options.is_empty() {
            options = self.spare.lists.pop().unwrap_or_default();
            options.clear();
            for o in &e.options {
                let copy = self.copied(o);
                options.push(copy);
            }
        }
        ElementInstance {
            id: e.id,
            path: e.path,
            role: e.role,
            text: self.copied(&e.text),
            nonempty: e.nonempty,
            text_words: e.text_words,
            value: e.value.as_deref().map(|v| self.copied(v)),
            value_words: e.value_words,
            options,
            disabled: e.disabled,
            handle: e.handle.clone(),
        }
    }

    /// `text` in a spare string (an empty text takes none).
    fn copied(&mut self, text: &str) -> String {
        if text.is_empty() {
            return String::new();
        }
        let mut s = self.string();
        s.push_str(text);
        s
    }

    /// An empty string, reused when one is spare.
    pub(crate) fn string(&mut self) -> String {
        let mut s = self.spare.texts.pop().unwrap_or_default();
        s.clear();
        s
    }

    /// The hashes in `span` (empty for a span this structure lacks).
    pub fn words_of(&self, span: Span) -> &[u64] {
        span.of(&self.words)
    }

    /// Element `e`'s loop path (row ids of the enclosing loops, outermost
    /// first).
    pub fn path_of(&self, e: &ElementInstance) -> &[i64] {
        e.path.of(&self.paths)
    }

    /// The value words in `span` (a handle's arguments or options).
    pub fn values_of(&self, span: Span) -> &[Option<i64>] {
        span.of(&self.values)
    }

    /// Appends `path` to the shared paths; its span.
    pub fn push_path(&mut self, path: &[i64]) -> Span {
        let start = self.paths.len();
        self.paths.extend_from_slice(path);
        Span::between(start, self.paths.len())
    }

    /// Appends `values` to the shared value words; their span.
    pub fn push_values(&mut self, values: impl IntoIterator<Item = Option<i64>>) -> Span {
        let start = self.values.len();
        self.values.extend(values);
        Span::between(start, self.values.len())
    }

    /// Whether element `a` of this page holds what element `b` of `other`
    /// does, spans compared by what they cover.
    pub fn same_element(
        &self,
        a: &ElementInstance,
        other: &PageStructure,
        b: &ElementInstance,
    ) -> bool {
        a.id == b.id
            && self.path_of(a) == other.path_of(b)
            && a.role == b.role
            && a.text == b.text
            && a.nonempty == b.nonempty
            && self.words_of(a.text_words) == other.words_of(b.text_words)
            && a.value == b.value
            && self.words_of(a.value_words) == other.words_of(b.value_words)
            && a.options == b.options
            && a.disabled == b.disabled
            && self.handle_values(&a.handle) == other.handle_values(&b.handle)
    }

    /// A handle with its spans resolved, for comparisons.
    pub fn handle_values<'p>(&'p self, handle: &'p HandleWords) -> HandleView<'p> {
        match handle {
            HandleWords::Inert => HandleView::Inert,
            HandleWords::Go(go) => {
                HandleView::Go(go.as_ref().map(|(p, s)| (*p, self.values_of(*s))))
            }
            HandleWords::Marker(m, args) => {
                HandleView::Marker(*m, args.as_ref().map(|&s| self.values_of(s)))
            }
            HandleWords::Input { value } => HandleView::Input { value: *value },
            HandleWords::Checkbox { on } => HandleView::Checkbox { on: *on },
            HandleWords::Select { options, value } => HandleView::Select {
                options: self.values_of(*options),
                value: *value,
            },
        }
    }
}

/// A stretch of one of a page's shared lists ([`PageStructure::words`],
/// [`PageStructure::paths`] or [`PageStructure::values`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// The span `start..end` (clamped to what a `u32` holds: a list that
    /// long does not fit a page).
    pub fn between(start: usize, end: usize) -> Span {
        let at = |k: usize| u32::try_from(k).unwrap_or(u32::MAX);
        Span {
            start: at(start),
            end: at(end),
        }
    }

    /// The part of `list` it covers (empty where `list` lacks it).
    pub fn of<T>(self, list: &[T]) -> &[T] {
        list.get(self.start as usize..self.end as usize)
            .unwrap_or_default()
    }

    pub fn is_empty(self) -> bool {
        self.end <= self.start
    }
}

/// One element instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementInstance {
    /// The element's id in its page.
    pub id: u32,
    /// The row ids (list indices) of the enclosing loops, outermost first:
    /// a span of its page's [`PageStructure::paths`].
    pub path: Span,
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
    pub text_words: Span,
    /// What a form element shows as its value (an empty string unless
    /// texts are rendered).
    pub value: Option<String>,
    /// The value's words, when words are rendered.
    pub value_words: Span,
    /// A select's option texts, in order.
    pub options: Vec<String>,
    pub disabled: bool,
    pub handle: HandleWords,
}

/// What acting on an element does, values as layout words (`None`: `none`;
/// texts are ids of the pool the state was encoded with). Lists of words are
/// spans of the page's [`PageStructure::values`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandleWords {
    /// Headings, texts, images, sections, disabled links and buttons.
    Inert,
    /// The target page and its arguments, or the fault's alert.
    Go(Result<(PageId, Span), ActionFault>),
    /// The marker and its arguments, or the fault's alert.
    Marker(ir::MarkerId, Result<Span, ActionFault>),
    /// The input's current value.
    Input {
        value: Option<i64>,
    },
    Checkbox {
        on: bool,
    },
    /// The options' values in order, and the current value.
    Select {
        options: Span,
        value: Option<i64>,
    },
}

/// A [`HandleWords`] with its spans resolved: what two pages' handles are
/// compared by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandleView<'p> {
    Inert,
    Go(Result<(PageId, &'p [Option<i64>]), &'p ActionFault>),
    Marker(ir::MarkerId, Result<&'p [Option<i64>], &'p ActionFault>),
    Input {
        value: Option<i64>,
    },
    Checkbox {
        on: bool,
    },
    Select {
        options: &'p [Option<i64>],
        value: Option<i64>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a test element's handle is, before its words are placed.
    enum Kind {
        Go(Vec<Option<i64>>),
        Marker(Vec<Option<i64>>),
        Select(Vec<Option<i64>>),
        Checkbox,
    }

    /// Appends element `id` to `page`, its path and handle words placed in
    /// the page's shared lists.
    fn push(page: &mut PageStructure, id: u32, text: &str, kind: Kind) {
        let path = page.push_path(&[i64::from(id), 7]);
        let handle = match kind {
            Kind::Go(args) => HandleWords::Go(Ok((2, page.push_values(args)))),
            Kind::Marker(args) => HandleWords::Marker(0, Ok(page.push_values(args))),
            Kind::Select(options) => HandleWords::Select {
                options: page.push_values(options),
                value: Some(2),
            },
            Kind::Checkbox => HandleWords::Checkbox { on: true },
        };
        page.elements.push(ElementInstance {
            id,
            path,
            role: "button",
            text: text.to_string(),
            nonempty: !text.is_empty(),
            text_words: Span { start: 0, end: 2 },
            value: id.is_multiple_of(2).then(|| format!("v{id}")),
            value_words: Span::default(),
            options: vec!["a".into(), String::new(), "b".into()],
            disabled: id == 3,
            handle,
        });
    }

    fn sample() -> PageStructure {
        let mut page = PageStructure::new(vec![], vec!["Wool scarf".into(), "$12.00".into()]);
        push(&mut page, 1, "Add", Kind::Go(vec![Some(4), None]));
        push(&mut page, 2, "", Kind::Marker(vec![Some(9)]));
        push(&mut page, 3, "Pick", Kind::Select(vec![Some(1), Some(2)]));
        push(&mut page, 4, "Tick", Kind::Checkbox);
        page.words = vec![11, 12, 13];
        page
    }

    #[test]
    fn a_copy_equals_its_source_and_takes_its_mode() {
        let mut source = sample();
        source.set_mode(RenderMode {
            texts: true,
            words: true,
        });
        // A target holding another page first: its buffers are reused.
        let mut copy = PageStructure::default();
        push(&mut copy, 9, "old", Kind::Marker(vec![Some(5), Some(6)]));
        copy.words = vec![99];
        copy.copy_from(&source);
        assert_eq!(copy, source);
        assert_eq!(copy.mode(), source.mode());
        assert_eq!(copy.values, source.values);
        // Copying again over the copy gives the same page.
        copy.copy_from(&source);
        assert_eq!(copy, source);
        let empty = PageStructure::default();
        copy.copy_from(&empty);
        assert_eq!(copy, empty);
        assert!(copy.words.is_empty() && copy.shown.is_empty());
        assert!(copy.paths.is_empty() && copy.values.is_empty());
    }

    #[test]
    fn pages_are_equal_by_what_their_spans_cover_not_where_they_lie() {
        let page = sample();
        // The same elements with unused words before each list: every span
        // lies elsewhere, and the pages are still equal.
        let mut shifted = PageStructure::new(vec![], page.shown.clone());
        shifted.words = page.words.clone();
        for (id, text, kind) in [
            (1, "Add", Kind::Go(vec![Some(4), None])),
            (2, "", Kind::Marker(vec![Some(9)])),
            (3, "Pick", Kind::Select(vec![Some(1), Some(2)])),
            (4, "Tick", Kind::Checkbox),
        ] {
            shifted.push_path(&[-1]);
            shifted.push_values([Some(-1)]);
            push(&mut shifted, id, text, kind);
        }
        assert_ne!(shifted.values, page.values);
        assert_eq!(shifted, page);
        // A different argument, option or path is a different page.
        let mut other = sample();
        other.values[0] = Some(5);
        assert_ne!(other, page);
        let mut other = sample();
        let last = other.values.len() - 1;
        other.values[last] = None;
        assert_ne!(other, page);
        let mut other = sample();
        other.paths[1] = 8;
        assert_ne!(other, page);
        assert_eq!(page.path_of(&page.elements[2]), [3, 7]);
        assert_eq!(
            page.handle_values(&page.elements[0].handle),
            HandleView::Go(Ok((2, &[Some(4), None][..])))
        );
    }
}
