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
/// An element is a record of fixed size: its loop path, texts, option texts
/// and handle's value words are spans of lists the page shares
/// ([`PageStructure::paths`], [`PageStructure::texts`],
/// [`PageStructure::options`], [`PageStructure::values`]) rather than
/// strings and lists of its own, and a handle names the fault its
/// arguments met by position in [`PageStructure::faults`], so an element is
/// plain data (`Copy`) and a page's elements copy as one block of bytes.
/// A search renders a page per state it expands and a batch one per step:
/// emptying, refilling and copying a handful of flat lists costs far less
/// than recycling a few small buffers per element.
#[derive(Clone, Debug, Default)]
pub struct PageStructure {
    pub elements: Vec<ElementInstance>,
    /// Every element's loop path, one after another; an element's
    /// [`ElementInstance::path`] is a span of it.
    pub paths: Vec<i64>,
    /// The value words of every handle (link and marker arguments, select
    /// options), one list after another; handles hold spans of it.
    pub values: Vec<Option<i64>>,
    /// The page's text: every element's text, value and option texts, and
    /// the shown values; the rest hold byte spans of it.
    pub texts: String,
    /// Every select's option texts (spans of `texts`), one list after
    /// another; a select's [`ElementInstance::options`] is a span of it.
    pub options: Vec<Span>,
    /// Each option's word hashes (spans of [`PageStructure::words`]),
    /// beside [`PageStructure::options`], when words are rendered (empty
    /// otherwise): a `select` candidate's words, hashed once per render
    /// rather than each time its action row is written.
    pub option_words: Vec<Span>,
    /// Every non-empty interpolated value the labels showed, in document
    /// order (a retrieval task's answer candidates, as `View::shown`), when
    /// texts are rendered: spans of `texts`.
    pub shown: Vec<Span>,
    /// The word hashes of every element's text and value, when words are
    /// rendered; elements hold ranges of it.
    pub words: Vec<u64>,
    /// The faults met evaluating links' and buttons' arguments, which
    /// their handles name by position ([`FaultAt`]): kept aside so that
    /// an element is plain data, copied as bytes.
    pub faults: Vec<ActionFault>,
    /// Where a render without texts put the agent's form values, on a page
    /// whose form variables reach its structure only as whole arguments
    /// (`ir::rendered::form_use`); empty otherwise. A
    /// remembered render is made right for other form values through them
    /// (`jit::render::forms`).
    pub(crate) form_values: FormValues,
    /// What renders compute.
    mode: RenderMode,
    /// The lists a walk uses while it renders, kept so that rendering a
    /// page step after step allocates (almost) nothing.
    pub(crate) spare: Spare,
}

/// Where a render put the agent's form values (see
/// [`PageStructure::form_values`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct FormValues {
    /// The form elements, in document order.
    pub fields: Vec<FormField>,
    /// The arguments that are a form element's variable, in the order
    /// rendered.
    pub args: Vec<FormArg>,
}

/// A form element of a page: its position among the page's elements and
/// its value while the agent has not set it (an input's initial value, a
/// select's first option; a checkbox is off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FormField {
    pub element: u32,
    pub unset: Option<i64>,
}

/// A handle's argument that is a form element's variable: its position in
/// [`PageStructure::values`] and the field (a position in
/// [`FormValues::fields`]) whose value it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FormArg {
    pub value: u32,
    pub field: u32,
}

/// A loop iteration: the binder's value (a word) and the id it is known by.
pub(crate) type LoopItem = (Option<i64>, i64);

#[derive(Clone, Debug, Default)]
pub(crate) struct Spare {
    /// Text waiting for its words to be hashed.
    pub pending: String,
    /// Loop items of earlier walks.
    pub items: Vec<Vec<LoopItem>>,
    /// A walk's frame cells and loop path, and a select's options and a
    /// loop's sort keys while they are built: one of each is in use at a
    /// time, so one buffer each, taken and put back.
    pub cells: Vec<i64>,
    pub path: Vec<i64>,
    pub options: Vec<(Span, Option<i64>)>,
    pub keyed: Vec<(Option<i64>, LoopItem)>,
    /// Per frame slot, the form field (a position in
    /// [`FormValues::fields`]) that bound it last, while form values are
    /// noted.
    pub origins: Vec<u32>,
    /// The texts and words of values lately shown (`jit::label`): kept
    /// across renders, since a page shows many of the values it showed the
    /// step before.
    pub shown_memo: crate::words::ShownMemo,
    /// The words of texts hashed lately ([`PageStructure::hash_words`]),
    /// kept across renders: select options above all.
    pub text_words: crate::words::TextWords,
}

impl PartialEq for PageStructure {
    fn eq(&self, other: &PageStructure) -> bool {
        self.elements.len() == other.elements.len()
            && self
                .elements
                .iter()
                .zip(&other.elements)
                .all(|(a, b)| self.same_element(a, other, b))
            && self.shown_texts().eq(other.shown_texts())
    }
}

impl Eq for PageStructure {}

impl PageStructure {
    /// What renders into this structure compute from now on.
    pub fn set_mode(&mut self, mode: RenderMode) {
        self.mode = mode;
    }

    pub fn mode(&self) -> RenderMode {
        self.mode
    }

    /// Empties the structure, keeping its lists' memory for reuse.
    pub fn clear(&mut self) {
        self.elements.clear();
        self.paths.clear();
        self.values.clear();
        self.texts.clear();
        self.options.clear();
        self.option_words.clear();
        self.shown.clear();
        self.words.clear();
        self.faults.clear();
        self.form_values.fields.clear();
        self.form_values.args.clear();
    }

    /// Makes this structure equal to `other` (its mode as well), reusing
    /// this one's memory rather than cloning `other`'s. The prover restores
    /// a page per candidate this way, and a batch restarts an episode onto
    /// a kept first page.
    pub fn copy_from(&mut self, other: &PageStructure) {
        self.clear();
        self.mode = other.mode;
        self.elements.extend_from_slice(&other.elements);
        self.paths.extend_from_slice(&other.paths);
        self.values.extend_from_slice(&other.values);
        self.texts.push_str(&other.texts);
        self.options.extend_from_slice(&other.options);
        self.option_words.extend_from_slice(&other.option_words);
        self.shown.extend_from_slice(&other.shown);
        self.words.extend_from_slice(&other.words);
        self.faults.extend_from_slice(&other.faults);
        let (mine, theirs) = (&mut self.form_values, &other.form_values);
        mine.fields.extend_from_slice(&theirs.fields);
        mine.args.extend_from_slice(&theirs.args);
    }

    /// Takes the shared value words back to their first `len` (a handle's
    /// arguments dropped), with the form arguments among them.
    pub(crate) fn truncate_values(&mut self, len: usize) {
        self.values.truncate(len);
        let args = &mut self.form_values.args;
        while args.last().is_some_and(|a| a.value as usize >= len) {
            args.pop();
        }
    }

    /// Keeps `fault` aside for a handle to name.
    pub fn push_fault(&mut self, fault: ActionFault) -> FaultAt {
        self.faults.push(fault);
        FaultAt(u32::try_from(self.faults.len() - 1).unwrap_or(u32::MAX))
    }

    /// The fault a handle names (`None` for a position this structure
    /// lacks, which no render makes).
    pub fn fault(&self, at: FaultAt) -> Option<&ActionFault> {
        self.faults.get(at.0 as usize)
    }

    /// The text in `span` of [`PageStructure::texts`] (empty for a span
    /// this structure lacks).
    pub fn text_at(&self, span: Span) -> &str {
        span.of_text(&self.texts)
    }

    /// Element `e`'s rendered label (empty unless texts are rendered).
    pub fn text_of(&self, e: &ElementInstance) -> &str {
        self.text_at(e.text)
    }

    /// What form element `e` shows as its value (`None` for other
    /// elements; empty unless texts are rendered).
    pub fn value_of(&self, e: &ElementInstance) -> Option<&str> {
        e.value.map(|v| self.text_at(v))
    }

    /// Select `e`'s option texts, in order (none for other elements).
    pub fn options_of<'p>(
        &'p self,
        e: &ElementInstance,
    ) -> impl ExactSizeIterator<Item = &'p str> + Clone + 'p {
        e.options.of(&self.options).iter().map(|&o| self.text_at(o))
    }

    /// Option `i` of select `e`.
    pub fn option_of(&self, e: &ElementInstance, i: usize) -> Option<&str> {
        e.options.of(&self.options).get(i).map(|&o| self.text_at(o))
    }

    /// Select `e`'s options' word hashes, in order, when words are
    /// rendered (none otherwise).
    pub fn option_words<'p>(
        &'p self,
        e: &ElementInstance,
    ) -> impl ExactSizeIterator<Item = &'p [u64]> + Clone + 'p {
        e.options
            .of(&self.option_words)
            .iter()
            .map(|&w| self.words_of(w))
    }

    /// The word hashes of option `i` of select `e`, when words are
    /// rendered (`None` otherwise).
    pub fn option_words_of(&self, e: &ElementInstance, i: usize) -> Option<&[u64]> {
        self.option_words(e).nth(i)
    }

    /// The shown values, in order.
    pub fn shown_texts(&self) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        self.shown.iter().map(|&s| self.text_at(s))
    }

    /// Appends `text` to the page's text; its span.
    pub fn push_text(&mut self, text: &str) -> Span {
        let start = self.texts.len();
        self.texts.push_str(text);
        Span::between(start, self.texts.len())
    }

    /// Appends option texts to the page's option lists; their span.
    pub fn push_options(&mut self, texts: impl IntoIterator<Item = Span>) -> Span {
        let start = self.options.len();
        self.options.extend(texts);
        Span::between(start, self.options.len())
    }

    /// Hashes the words of the page's text at `text` onto
    /// [`PageStructure::words`]; their span.
    pub fn hash_words(&mut self, text: Span) -> Span {
        let start = self.words.len();
        let PageStructure {
            texts,
            words,
            spare,
            ..
        } = self;
        let memo = &mut spare.text_words;
        memo.each_hash(text.of_text(texts), |h| words.push(h));
        Span::between(start, self.words.len())
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

    /// Every layout word the structure holds: its handles' argument and
    /// option values and current values, its loop paths and its form
    /// fields' values while unset. A text among them is an id of the pool
    /// the page was rendered with.
    pub(crate) fn held_words(&self) -> impl Iterator<Item = i64> + '_ {
        let current = self.elements.iter().filter_map(|e| match e.handle {
            HandleWords::Input { value } | HandleWords::Select { value, .. } => value,
            _ => None,
        });
        let unset = self.form_values.fields.iter().filter_map(|f| f.unset);
        (self.values.iter().flatten().copied())
            .chain(self.paths.iter().copied())
            .chain(current)
            .chain(unset)
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
            && self.text_of(a) == other.text_of(b)
            && a.nonempty == b.nonempty
            && self.words_of(a.text_words) == other.words_of(b.text_words)
            && self.value_of(a) == other.value_of(b)
            && self.words_of(a.value_words) == other.words_of(b.value_words)
            && self.options_of(a).eq(other.options_of(b))
            && self.option_words(a).eq(other.option_words(b))
            && a.disabled == b.disabled
            && self.handle_values(&a.handle) == other.handle_values(&b.handle)
    }

    /// A handle with its spans resolved, for comparisons.
    pub fn handle_values<'p>(&'p self, handle: &'p HandleWords) -> HandleView<'p> {
        match handle {
            HandleWords::Inert => HandleView::Inert,
            HandleWords::Go(go) => {
                let go = go.as_ref().map_err(|&at| self.fault(at));
                HandleView::Go(go.map(|(p, s)| (*p, self.values_of(*s))))
            }
            HandleWords::Marker(m, args) => {
                let args = args.as_ref().map_err(|&at| self.fault(at));
                HandleView::Marker(*m, args.map(|&s| self.values_of(s)))
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
/// [`PageStructure::paths`], [`PageStructure::values`],
/// [`PageStructure::options`]) or of its text (in bytes).
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

    /// The part of `text` it covers, in bytes (empty where `text` lacks
    /// it).
    pub fn of_text(self, text: &str) -> &str {
        text.get(self.start as usize..self.end as usize)
            .unwrap_or_default()
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

/// One element instance: a fixed-size record whose lists and texts are spans
/// of its page's (read them through the page: [`PageStructure::text_of`],
/// [`PageStructure::path_of`], …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// unless texts are rendered): a span of the page's text.
    pub text: Span,
    /// Whether the label's text is non-empty (known in every mode but
    /// `STRUCTURE`).
    pub nonempty: bool,
    /// The label's words, when words are rendered.
    pub text_words: Span,
    /// What a form element shows as its value (an empty text unless texts
    /// are rendered): a span of the page's text.
    pub value: Option<Span>,
    /// The value's words, when words are rendered.
    pub value_words: Span,
    /// A select's option texts, in order: a span of the page's
    /// [`PageStructure::options`].
    pub options: Span,
    pub disabled: bool,
    pub handle: HandleWords,
}

/// What acting on an element does, values as layout words (`None`: `none`;
/// texts are ids of the pool the state was encoded with). Lists of words are
/// spans of the page's [`PageStructure::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleWords {
    /// Headings, texts, images, sections, disabled links and buttons.
    Inert,
    /// The target page and its arguments, or the fault's alert.
    Go(Result<(PageId, Span), FaultAt>),
    /// The marker and its arguments, or the fault's alert.
    Marker(ir::MarkerId, Result<Span, FaultAt>),
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

/// Which of its page's [`PageStructure::faults`] a handle's arguments met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultAt(u32);

/// A [`HandleWords`] with its spans and faults resolved: what two pages'
/// handles are compared by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandleView<'p> {
    Inert,
    Go(Result<(PageId, &'p [Option<i64>]), Option<&'p ActionFault>>),
    Marker(
        ir::MarkerId,
        Result<&'p [Option<i64>], Option<&'p ActionFault>>,
    ),
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
        let text = page.push_text(text);
        let value = id
            .is_multiple_of(2)
            .then(|| page.push_text(&format!("v{id}")));
        let texts = ["a", "", "b"].map(|o| page.push_text(o));
        let options = page.push_options(texts);
        page.elements.push(ElementInstance {
            id,
            path,
            role: "button",
            text,
            nonempty: !text.is_empty(),
            text_words: Span { start: 0, end: 2 },
            value,
            value_words: Span::default(),
            options,
            disabled: id == 3,
            handle,
        });
    }

    /// A page with `shown` values first.
    fn with_shown(shown: &[&str]) -> PageStructure {
        let mut page = PageStructure::default();
        for s in shown {
            let at = page.push_text(s);
            page.shown.push(at);
        }
        page
    }

    fn sample() -> PageStructure {
        let mut page = with_shown(&["Wool scarf", "$12.00"]);
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
        let mut shifted = with_shown(&["", "Wool scarf", "", "$12.00"]);
        shifted.shown.retain(|s| !s.is_empty());
        shifted.words = page.words.clone();
        for (id, text, kind) in [
            (1, "Add", Kind::Go(vec![Some(4), None])),
            (2, "", Kind::Marker(vec![Some(9)])),
            (3, "Pick", Kind::Select(vec![Some(1), Some(2)])),
            (4, "Tick", Kind::Checkbox),
        ] {
            shifted.push_path(&[-1]);
            shifted.push_values([Some(-1)]);
            shifted.push_text("unused");
            let unused = shifted.push_text("x");
            shifted.push_options([unused]);
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
        // So is a different text, value, option or shown value.
        for (at, by) in [("Add", "Adx"), ("v2", "v3"), ("b", "c"), ("$12", "$13")] {
            let mut other = sample();
            let from = other.texts.find(at).unwrap_or(0);
            other.texts.replace_range(from..from + at.len(), by);
            assert_ne!(other, page, "{at} changed to {by}");
        }
        assert_eq!(page.path_of(&page.elements[2]), [3, 7]);
        let select = &page.elements[2];
        assert_eq!(page.text_of(select), "Pick");
        assert_eq!(page.value_of(select), None);
        assert_eq!(page.value_of(&page.elements[1]), Some("v2"));
        assert_eq!(page.options_of(select).collect::<Vec<_>>(), ["a", "", "b"]);
        assert_eq!(page.option_of(select, 2), Some("b"));
        assert_eq!(page.option_of(select, 3), None);
        assert_eq!(
            page.shown_texts().collect::<Vec<_>>(),
            ["Wool scarf", "$12.00"]
        );
        assert_eq!(
            page.handle_values(&page.elements[0].handle),
            HandleView::Go(Ok((2, &[Some(4), None][..])))
        );
    }
}
