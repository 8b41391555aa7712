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
    pub(crate) spare: Spare,
}

/// A loop iteration: the binder's value (a word) and the id it is known by.
pub(crate) type LoopItem = (Option<i64>, i64);

#[derive(Clone, Debug, Default)]
pub(crate) struct Spare {
    pub texts: Vec<String>,
    pub paths: Vec<Vec<i64>>,
    pub lists: Vec<Vec<String>>,
    /// Text waiting for its words to be hashed.
    pub pending: String,
    /// Argument and option words of earlier handles.
    pub words: Vec<Vec<Option<i64>>>,
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

    /// Keeps the word list a handle holds, if any, for a later handle.
    pub(crate) fn keep_handle(&mut self, handle: HandleWords) {
        match handle {
            HandleWords::Go(Ok((_, words)))
            | HandleWords::Marker(_, Ok(words))
            | HandleWords::Select { options: words, .. }
                if words.capacity() > 0 =>
            {
                self.words.push(words)
            }
            _ => {}
        }
    }
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
            // Only buffers that hold memory are worth keeping.
            spare.keep_handle(handle);
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
            if path.capacity() > 0 {
                spare.paths.push(path);
            }
        }
        for shown in self.shown.drain(..) {
            spare.keep_text(shown);
        }
        self.words.clear();
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
    }

    fn copy_element(&mut self, e: &ElementInstance) -> ElementInstance {
        let mut path = self.spare.paths.pop().unwrap_or_default();
        path.clear();
        path.extend_from_slice(&e.path);
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
            path,
            role: e.role,
            text: self.copied(&e.text),
            nonempty: e.nonempty,
            text_words: e.text_words,
            value: e.value.as_deref().map(|v| self.copied(v)),
            value_words: e.value_words,
            options,
            disabled: e.disabled,
            handle: self.copy_handle(&e.handle),
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

    fn copy_handle(&mut self, handle: &HandleWords) -> HandleWords {
        let mut words = |from: &[Option<i64>]| {
            let mut list = self.spare.words.pop().unwrap_or_default();
            list.clear();
            list.extend_from_slice(from);
            list
        };
        match handle {
            HandleWords::Go(Ok((page, args))) => HandleWords::Go(Ok((*page, words(args)))),
            HandleWords::Marker(m, Ok(args)) => HandleWords::Marker(*m, Ok(words(args))),
            HandleWords::Select { options, value } => HandleWords::Select {
                options: words(options),
                value: *value,
            },
            other => other.clone(),
        }
    }

    /// An empty string, reused when one is spare.
    pub(crate) fn string(&mut self) -> String {
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
    Go(Result<(PageId, Vec<Option<i64>>), ActionFault>),
    /// The marker and its arguments, or the fault's alert.
    Marker(ir::MarkerId, Result<Vec<Option<i64>>, ActionFault>),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn element(id: u32, text: &str, handle: HandleWords) -> ElementInstance {
        ElementInstance {
            id,
            path: vec![i64::from(id), 7],
            role: "button",
            text: text.to_string(),
            nonempty: !text.is_empty(),
            text_words: WordRange { start: 0, end: 2 },
            value: id.is_multiple_of(2).then(|| format!("v{id}")),
            value_words: WordRange::default(),
            options: vec!["a".into(), String::new(), "b".into()],
            disabled: id == 3,
            handle,
        }
    }

    #[test]
    fn a_copy_equals_its_source_and_takes_its_mode() {
        let mut source = PageStructure::new(
            vec![
                element(1, "Add", HandleWords::Go(Ok((2, vec![Some(4), None])))),
                element(2, "", HandleWords::Marker(0, Ok(vec![Some(9)]))),
                element(
                    3,
                    "Pick",
                    HandleWords::Select {
                        options: vec![Some(1), Some(2)],
                        value: Some(2),
                    },
                ),
                element(4, "Tick", HandleWords::Checkbox { on: true }),
            ],
            vec!["Wool scarf".into(), "$12.00".into()],
        );
        source.words = vec![11, 12, 13];
        source.set_mode(RenderMode {
            texts: true,
            words: true,
        });
        // A target holding another page first: its buffers are reused.
        let mut copy = PageStructure::new(vec![element(9, "old", HandleWords::Inert)], vec![]);
        copy.words = vec![99];
        copy.copy_from(&source);
        assert_eq!(copy, source);
        assert_eq!(copy.mode(), source.mode());
        // Copying again over the copy gives the same page.
        copy.copy_from(&source);
        assert_eq!(copy, source);
        let empty = PageStructure::default();
        copy.copy_from(&empty);
        assert_eq!(copy, empty);
        assert!(copy.words.is_empty() && copy.shown.is_empty());
    }
}
