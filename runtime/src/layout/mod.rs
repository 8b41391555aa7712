//! The flat state layout: where every part of an episode state lives in one
//! fixed-size byte buffer.
//!
//! The interpreter keeps a state as Rust structures; the JIT, the batched
//! environments and the prover want one contiguous buffer they can copy, hash and
//! address at constant offsets. This module decides those offsets for a program
//! ([`StateLayout::for_program`]); `codec` converts between the interpreter's
//! state and the bytes, exactly and in both directions, which is the contract
//! every faster engine is tested against.
//!
//! The buffer has three regions, in this order:
//! - the **header** (step, done/success flags, alert): bookkeeping that never
//!   tells two states apart (§5.5);
//! - the **identity** (page and arguments, form variables, session, tables):
//!   the bytes the prover fingerprints;
//! - the **visited set**, fingerprinted only for tasks that ask `visited`.
//!
//! Every value is one little-endian 8-byte word (text as a [`TextPool`] id, a
//! date as its day number, a time as minutes) with a presence byte beside it for
//! `none`. Tables are column-major with room for their capacity; the form
//! variables and the visited set are sorted lists of fixed-width entries, bounded
//! by the horizon because each step adds at most one. Unused bytes are zero, so a
//! state has exactly one encoding and byte equality is state equality.

mod codec;
pub mod text;

pub(crate) use codec::{decode, encode, from_word, to_word, value_ty, word_of};
pub use text::{Derive, PoolMark, TextPool};

use crate::ir::{self, Ty};
use std::fmt;
use std::ops::Range;

/// Bytes of a value word.
pub const WORD: usize = 8;
/// Header offsets: step (u32), flags (u32), alert text id (u32), padding.
pub const STEP_AT: usize = 0;
pub const FLAGS_AT: usize = 4;
pub const ALERT_AT: usize = 8;
pub const HEADER_SIZE: usize = 16;
/// Flag bits.
pub const FLAG_DONE: u32 = 1;
pub const FLAG_SUCCESS: u32 = 2;
pub const FLAG_ALERT: u32 = 4;

/// A page may take at most this many arguments (a visited entry keeps one
/// presence bit per argument in a `u32`).
pub const MAX_ARITY: usize = 32;
/// A state larger than this is refused: a capacity that big is a mistake, and
/// the prover keeps many states.
pub const MAX_STATE_BYTES: usize = 64 << 20;

/// `len` value cells: words at `words + 8·i`, presence bytes at `present + i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cells {
    pub words: usize,
    pub present: usize,
    pub len: usize,
}

impl Cells {
    pub fn word_at(&self, i: usize) -> usize {
        self.words + WORD * i
    }

    pub fn present_at(&self, i: usize) -> usize {
        self.present + i
    }
}

/// A sorted list of fixed-width entries: a `u32` count, then `capacity`
/// entries of `entry_size` bytes, in increasing byte order, zero past `count`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EntryList {
    pub count: usize,
    pub entries: usize,
    pub capacity: usize,
    pub entry_size: usize,
}

impl EntryList {
    pub fn entry_at(&self, i: usize) -> usize {
        self.entries + self.entry_size * i
    }

    fn end(&self) -> usize {
        self.entries + self.entry_size * self.capacity
    }
}

/// One table: a `u32` row count, the highest id ever held, ids in id order,
/// then one column per field.
/// Row `i` of the table is slot `i` of the id array and of every column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableLayout {
    pub count: usize,
    /// The highest id the table has ever held (an i64 word): inserts take
    /// one more, so ids are never reused.
    pub high: usize,
    pub capacity: usize,
    pub ids: usize,
    pub columns: Vec<Cells>,
}

/// A form element's variable: its type and how many loops enclose it (the
/// length of its key's path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormSlot {
    pub ty: Ty,
    pub depth: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateLayout {
    pub size: usize,
    /// The bytes that tell states apart, visited set excluded.
    pub identity: Range<usize>,
    /// The visited set's bytes.
    pub visited_region: Range<usize>,
    /// The current page id (u32).
    pub page: usize,
    pub args: Cells,
    /// Entry: element id (u32), present (u32), the loop path (`form_depth`
    /// words), the value word.
    pub forms: EntryList,
    pub form_depth: usize,
    pub session: Cells,
    pub tables: Vec<TableLayout>,
    /// Entry: page id (u32), presence bits (u32), `MAX arity` argument words.
    pub visited: EntryList,
    pub max_arity: usize,
    /// `form_slots[page][element id]`: the variable of each form element.
    pub form_slots: Vec<Vec<Option<FormSlot>>>,
}

/// Why a layout could not be made, or a state not encoded or decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The program needs a state larger than [`MAX_STATE_BYTES`].
    TooLarge(usize),
    /// A page with more than [`MAX_ARITY`] parameters.
    TooManyParams(String),
    /// A value that does not fit its slot's type (a broken IR or a corrupt
    /// buffer).
    Type(String),
    /// More rows, form variables or visited pages than the layout has room for.
    Full(String),
    /// A buffer of the wrong size or with impossible contents.
    Corrupt(String),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::TooLarge(n) => write!(
                f,
                "the site's state needs {n} bytes, more than the {MAX_STATE_BYTES} allowed; lower the tables' `max`"
            ),
            LayoutError::TooManyParams(page) => {
                write!(f, "page `{page}` has more than {MAX_ARITY} parameters")
            }
            LayoutError::Type(m) | LayoutError::Full(m) | LayoutError::Corrupt(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for LayoutError {}

/// Hands out offsets in increasing order, keeping words 8-aligned.
struct Allocator {
    next: usize,
}

impl Allocator {
    fn take(&mut self, bytes: usize) -> Result<usize, LayoutError> {
        let at = self.next;
        let padded = bytes
            .checked_add(WORD - 1)
            .map(|b| b / WORD * WORD)
            .ok_or(LayoutError::TooLarge(usize::MAX))?;
        self.next = at
            .checked_add(padded)
            .filter(|&n| n <= MAX_STATE_BYTES)
            .ok_or(LayoutError::TooLarge(at.saturating_add(padded)))?;
        Ok(at)
    }

    fn cells(&mut self, len: usize) -> Result<Cells, LayoutError> {
        let words = self.take(len.saturating_mul(WORD))?;
        let present = self.take(len)?;
        Ok(Cells {
            words,
            present,
            len,
        })
    }

    fn entries(&mut self, capacity: usize, entry_size: usize) -> Result<EntryList, LayoutError> {
        let count = self.take(WORD)?;
        let entries = self.take(capacity.saturating_mul(entry_size))?;
        Ok(EntryList {
            count,
            entries,
            capacity,
            entry_size,
        })
    }
}

impl StateLayout {
    /// The layout of `program`'s states. Form variables and visited pages get
    /// room for the longest horizon of its tasks.
    pub fn for_program(program: &ir::Program) -> Result<StateLayout, LayoutError> {
        let max_arity = max_arity(program)?;
        let horizon = program
            .tasks
            .iter()
            .map(|t| usize::try_from(t.horizon).unwrap_or(usize::MAX))
            .max()
            .unwrap_or(0);
        let form_slots: Vec<Vec<Option<FormSlot>>> = program
            .pages
            .iter()
            .map(|p| page_form_slots(&p.body))
            .collect();
        let form_depth = form_slots
            .iter()
            .flatten()
            .flatten()
            .map(|s| s.depth)
            .max()
            .unwrap_or(0);

        let mut at = Allocator { next: HEADER_SIZE };
        let page = at.take(WORD)?;
        let args = at.cells(max_arity)?;
        let form_entry = WORD + WORD * form_depth + WORD;
        let forms = at.entries(horizon.max(1), form_entry)?;
        let session = at.cells(program.session.len())?;
        let tables = program
            .tables
            .iter()
            .map(|t| table_layout(&mut at, t))
            .collect::<Result<Vec<_>, _>>()?;
        let identity_end = at.next;
        let visited = at.entries(horizon.saturating_add(1), WORD + WORD * max_arity)?;
        Ok(StateLayout {
            size: at.next,
            identity: page..identity_end,
            visited_region: identity_end..visited.end(),
            page,
            args,
            forms,
            form_depth,
            session,
            tables,
            visited,
            max_arity,
            form_slots,
        })
    }

    /// The page, its arguments and the form variables: the part of the
    /// identity region that is neither session nor tables.
    pub fn navigation(&self) -> Range<usize> {
        self.page..self.session.words
    }

    /// The form variables' bytes: their count, then their entries (a part
    /// of [`StateLayout::navigation`]).
    pub fn forms_region(&self) -> Range<usize> {
        self.forms.count..self.forms.end()
    }

    /// Appends to `out` the bytes that hold `loc` (`ir::reads`): a table's
    /// rows are its count, highest id and ids; a field is its column, words
    /// and presence bytes, with the table's rows, since a row's cells are
    /// found through its id; a session variable is its word and presence
    /// byte. A location the layout lacks (a broken IR) holds no bytes.
    pub fn bytes_of(&self, loc: ir::reads::Loc, out: &mut Vec<Range<usize>>) {
        use ir::reads::Loc;
        let rows = |t: &TableLayout| t.count..t.ids + WORD * t.capacity;
        let cells = |c: &Cells| c.words..c.present + c.len;
        let table = |t: ir::TableId| self.tables.get(usize::try_from(t).ok()?);
        match loc {
            Loc::Rows(t) => out.extend(table(t).map(rows)),
            Loc::Field(t, f) => {
                let Some(t) = table(t) else { return };
                out.push(rows(t));
                let column = t.columns.get(usize::try_from(f).unwrap_or(usize::MAX));
                out.extend(column.map(cells));
            }
            Loc::Session(s) => {
                let s = usize::try_from(s).unwrap_or(usize::MAX);
                if s < self.session.len {
                    let word = self.session.word_at(s);
                    out.push(word..word + WORD);
                    out.push(self.session.present_at(s)..self.session.present_at(s) + 1);
                }
            }
        }
    }

    /// The variable of element `element` of `page`, if it is a form element.
    pub fn form_slot(&self, page: ir::PageId, element: u32) -> Option<&FormSlot> {
        let page = self.form_slots.get(usize::try_from(page).ok()?)?;
        page.get(usize::try_from(element).ok()?)?.as_ref()
    }
}

fn max_arity(program: &ir::Program) -> Result<usize, LayoutError> {
    let mut max = 0;
    for p in &program.pages {
        if p.params.len() > MAX_ARITY {
            return Err(LayoutError::TooManyParams(p.name.clone()));
        }
        max = max.max(p.params.len());
    }
    Ok(max)
}

fn table_layout(at: &mut Allocator, t: &ir::TableDef) -> Result<TableLayout, LayoutError> {
    // The seed may exceed a small `max` only in a broken IR; room for it anyway
    // keeps encoding total.
    let capacity = usize::try_from(t.capacity)
        .unwrap_or(usize::MAX)
        .max(t.seed.len());
    let count = at.take(WORD)?;
    let high = at.take(WORD)?;
    let ids = at.take(capacity.saturating_mul(WORD))?;
    let columns = t
        .fields
        .iter()
        .map(|_| at.cells(capacity))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TableLayout {
        count,
        high,
        capacity,
        ids,
        columns,
    })
}

const MAX_ELEMENT_ID: usize = 1 << 20;

/// Every form element of a page body by element id, with its loop depth.
fn page_form_slots(body: &[ir::Element]) -> Vec<Option<FormSlot>> {
    let mut slots = Vec::new();
    collect_form_slots(body, 0, &mut slots);
    slots
}

fn collect_form_slots(body: &[ir::Element], depth: usize, out: &mut Vec<Option<FormSlot>>) {
    use ir::ElementKind as K;
    for e in body {
        let ty = match &e.kind {
            K::Input { ty, .. } | K::SelectList { ty, .. } => Some(ty.clone()),
            K::SelectFrom { table, .. } => Some(Ty::Row(*table)),
            K::Checkbox { .. } => Some(Ty::Bool),
            K::Section { body, .. } => {
                collect_form_slots(body, depth, out);
                None
            }
            K::For(f) => {
                collect_form_slots(&f.body, depth + 1, out);
                None
            }
            K::If {
                then, otherwise, ..
            } => {
                collect_form_slots(then, depth, out);
                collect_form_slots(otherwise, depth, out);
                None
            }
            K::Heading(_) | K::Text(_) | K::Image(_) | K::Link { .. } | K::Button { .. } => None,
        };
        if let (Some(ty), Ok(id)) = (ty, usize::try_from(e.id)) {
            // Element ids are dense from lowering; a wild one is a broken IR,
            // left without a slot (encoding its variable then fails cleanly).
            if id > MAX_ELEMENT_ID {
                continue;
            }
            if out.len() <= id {
                out.resize(id + 1, None);
            }
            out[id] = Some(FormSlot { ty, depth });
        }
    }
}
