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
            // Only buffers that hold memory are worth keeping: an empty one
            // popped later would grow (allocate) all the same.
            spare.keep_handle(handle);
            let held = |s: &String| s.capacity() > 0;
            spare
                .texts
                .extend(Some(text).into_iter().chain(value).filter(held));
            spare.texts.extend(options.drain(..).filter(held));
            if options.capacity() > 0 {
                spare.lists.push(options);
            }
            if path.capacity() > 0 {
                spare.paths.push(path);
            }
        }
        spare
            .texts
            .extend(self.shown.drain(..).filter(|s| s.capacity() > 0));
        self.words.clear();
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
