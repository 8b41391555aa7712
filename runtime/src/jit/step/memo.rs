//! Remembered renders. An agent on a site comes back to the same few pages
//! in the same states again and again (the batch's random policy on the
//! examples sees each state it renders 4–8 times), and a render is half of
//! a batched step. So an environment keeps the last renders it made, keyed
//! by exactly what a render reads, and a step that lands in a state it has
//! rendered before copies that page instead of rendering it again.
//!
//! What a render reads (`JitSite::render_structure`): the identity region
//! of the bytes (page, arguments, form variables, session, tables; never
//! the header, §5.5, nor the visited set, which only task predicates ask
//! about, §4), the text pool behind the text ids in them, and the render
//! mode. Hashing and comparing the identity region itself would cost a
//! third of what a render does (10 KB on the examples, most of it seed
//! rows no step touches). But a batch's environment knows its bytes as the
//! initial bytes of the first instance of its family, with the lines where
//! its own instance's differ and the lines its steps wrote since
//! (`restart.rs`, [`Lines`]). Of those lines, the key holds the words
//! rendering the step's page can read at all (`render/reads.rs`) and that
//! differ from the first instance's, each as its index and bytes, named by
//! the family. Equal keys mean equal bytes wherever the render reads,
//! whichever instance of the family is played, so a page is found again
//! after writes it does not read (a row added to a cart, seen from the
//! home page); equal bytes reached by other writes only miss.
//!
//! The prover knows its bytes another way: a state it expands is the
//! search's initial state with the words where it differs, listed in index
//! order ([`Recall::Differs`]). Its pages are keyed by the same rule: of
//! those words, the ones rendering the page can read, with their values.
//! Either way, the page's own word is read by every page, so the keys of
//! two pages differ, and many distinct states share one page.
//!
//! Without texts (the prover's renders), a page whose structure can be
//! keyed apart from its form variables (`ir::rendered::form_use`) is keyed
//! by the words it reads but the form variable list, and by the values of
//! the few form elements it reads beyond their handles and whole
//! arguments; the page found has the agent's other form values written
//! back in (`render/forms.rs`, DECISIONS 109), and carries no version.
//!
//! A page is taken from the memory only when its key is equal (compared,
//! not only hashed), its mode is the same and the pool still means by
//! every id it held then what it meant ([`TextPool::agrees`]); a render
//! that added a text to the pool is not remembered, since the ids it made
//! may mean other texts after the pool forgets them. Each environment of a
//! batch has a pool of its own, sharing the frozen texts (the seed's, the
//! session's, the instances') and adding what its episodes make. A render
//! that read, looked up and holds no text id past the frozen ones (its
//! code's constants, its key's words, the family's first bytes, the ids
//! its lookups handed out, the words its structure holds) is kept under a
//! mark narrowed to them
//! ([`FlatEnv::mark_to_keep`]), so every environment of the batch finds it,
//! where a full mark served the one pool alone until it forgot a text (on
//! cascade, 44% of the renders were pages another pool had remembered). A
//! word is taken for a text id whatever its type, on the safe side. An environment that
//! does not know its written lines (outside a batch's family of instances,
//! or after a load) renders every page. A debug build renders every
//! remembered page again and demands the same structure.
//!
//! The memory is direct-mapped by the key's hash: a slot holds the last
//! render whose key hashed to it. Engines of one site can share one (a
//! batch gives each thread one for its environments), since the key names
//! the family and the pool check holds for any pool. A batch consults one
//! in [`FlatEnv::step_remembering`], a prover's search its own in its
//! loads (`FlatEnv::show_loaded`, after the load wrote its words with
//! `FlatEnv::unprobe_with`); probes render nothing.

use super::*;
use crate::jit::render::reads::ReadWords;
use crate::layout::{PoolMark, WORD};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Renders a batch's thread remembers for its environments: 2–5 KB each on
/// the examples, so about 8–20 MB a thread.
pub const DEFAULT_RENDER_MEMO: usize = 4096;

/// Key hashes noted per remembered render (a power of two).
const SEEN_PER_SLOT: usize = 4;

/// Lookups per measuring window; when fewer than [`WORTH_IT`] of a
/// window's find their page, the memory rests for [`REST`] steps (they
/// render, and nothing is remembered), then measures again. Below about a
/// third of pages found, looking up and remembering cost more than the
/// renders they save (threadline, whose space is large, finds a fifth).
const WINDOW: u32 = 1024;
const WORTH_IT: u32 = WINDOW * 3 / 10;
const REST: u32 = 16 * WINDOW;

/// What a batch's memory must find in a window: half. A batch's remembered
/// step copies a page and its rows besides, from a memory that outgrows
/// the caches, and the wall clock tells what the instruction counts do
/// not: on threadline, finding 52% of its pages, a batch stepped at 165k
/// steps/s against 222k rendering every page, where finding 73–91% gained
/// up to 60% (cascade, northfield, riverbend) or broke even (marlow,
/// trailhead).
const BATCH_WORTH_IT: u32 = WINDOW / 2;

/// The slots of a direct-mapped memory of `capacity` entries: a power of
/// two at least as large, or none for 0.
pub(crate) fn memo_slots(capacity: usize) -> usize {
    if capacity == 0 {
        0
    } else {
        capacity.next_power_of_two()
    }
}

/// A page version no page has had yet in this process.
pub(super) fn new_version() -> u64 {
    static VERSIONS: AtomicU64 = AtomicU64::new(1);
    VERSIONS.fetch_add(1, Ordering::Relaxed)
}

// A line's words are the eight bits `ReadWords::eight_from` gives.
const _: () = assert!(super::restart::LINE == 8 * WORD);

/// `state`'s bytes at `bytes` inside `identity`, when they differ from
/// `first`'s there (bytes past either's end count as the same).
fn changed<'s>(
    state: &'s [u8],
    first: &[u8],
    bytes: Range<usize>,
    identity: &Range<usize>,
) -> Option<&'s [u8]> {
    let inside = bytes.start.max(identity.start)..bytes.end.min(identity.end);
    let (now, then) = (state.get(inside.clone())?, first.get(inside)?);
    (!same_bytes(now, then)).then_some(now)
}

/// The bytes of one line of the state.
type Line = [u8; super::restart::LINE];

/// Bytes of one entry of a key: a word's index (or a form value's tag),
/// then the word.
const ENTRY: usize = 8 + WORD;
const _: () = assert!(WORD == 8, "a key's words are read back as i64");

/// `a == b`, with a whole word or line compared as a fixed-size array
/// (inline, where a slice comparison calls `memcmp`).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    fn fixed<const N: usize>(a: &[u8], b: &[u8]) -> Option<bool> {
        Some(<&[u8; N]>::try_from(a).ok()? == <&[u8; N]>::try_from(b).ok()?)
    }
    fixed::<WORD>(a, b)
        .or_else(|| fixed::<{ super::restart::LINE }>(a, b))
        .unwrap_or_else(|| a == b)
}

/// How often the memory had a step's page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoCounts {
    /// Pages copied from the memory.
    pub hits: u64,
    /// Pages rendered (and remembered, when they could be).
    pub misses: u64,
    /// Observations whose element and action rows a batch copied from
    /// rows it wrote for the same remembered page (`batch::views`).
    pub rows: u64,
}

impl MemoCounts {
    /// Lookups made: pages found and pages rendered.
    pub fn lookups(&self) -> u64 {
        self.hits + self.misses
    }

    /// The share of lookups that found their page (0 with none made).
    pub fn found_share(&self) -> f64 {
        self.hits as f64 / self.lookups().max(1) as f64
    }

    /// The share of lookups whose observation rows were copied.
    pub fn rows_share(&self) -> f64 {
        self.rows as f64 / self.lookups().max(1) as f64
    }
}

impl std::ops::AddAssign for MemoCounts {
    fn add_assign(&mut self, other: MemoCounts) {
        self.hits += other.hits;
        self.misses += other.misses;
        self.rows += other.rows;
    }
}

/// One remembered render.
#[derive(Clone, Debug)]
struct Remembered {
    /// Names this page: unique to the process, new each time a slot is
    /// written.
    version: u64,
    family: u64,
    hash: u64,
    key: Vec<u8>,
    mode: RenderMode,
    pool: PoolMark,
    page: PageStructure,
    /// The page's candidates for an instance of this many typeable values
    /// (`None`: not listed yet), which depend on nothing else.
    actions: Vec<FlatAction>,
    actions_for: Option<usize>,
}

/// The family keys made of a search's differing words are named with
/// (families are numbered from 1).
const SEARCH: u64 = 0;

/// Remembered renders, for the engines of one site.
#[derive(Clone, Debug, Default)]
pub struct RenderMemo {
    /// The bytes that tell states apart (the layout's identity region).
    identity: Range<usize>,
    /// A power of two many (none: remember nothing).
    slots: Vec<Option<Box<Remembered>>>,
    /// The hashes of keys met once, [`SEEN_PER_SLOT`] per slot: a render
    /// is remembered the second time its key is met, so states met once
    /// (most of them, on a site with a large space) cost no copy; unless
    /// the memory remembers at first ([`RenderMemo::remembering_at_first`]).
    seen: Vec<u64>,
    /// The key of the state last looked up, and its hash.
    key: Vec<u8>,
    /// Whether every entry of `key` holds a whole word (one clipped by the
    /// identity region's end, or by a short state, does not).
    whole: bool,
    family: u64,
    hash: u64,
    counts: MemoCounts,
    /// This window's lookups and pages found, and the steps left to rest.
    looked: u32,
    found: u32,
    resting: u32,
    /// Whether a render is remembered the first time its key is met.
    at_first: bool,
    /// The pages a window must find for the memory to stay consulted.
    worth: u32,
}

impl RenderMemo {
    /// A memory of `capacity` renders (rounded up to a power of two; 0
    /// remembers nothing) for states of `layout`.
    pub fn new(layout: &StateLayout, capacity: usize) -> RenderMemo {
        RenderMemo::of_identity(layout.identity.clone(), capacity, false, WORTH_IT)
    }

    /// A memory like [`RenderMemo::new`]'s that remembers a render the
    /// first time its key is met rather than the second (so it notes no
    /// keys met once).
    pub fn remembering_at_first(layout: &StateLayout, capacity: usize) -> RenderMemo {
        RenderMemo::of_identity(layout.identity.clone(), capacity, true, WORTH_IT)
    }

    /// A batch thread's memory: remembering at first, since its
    /// environments find each other's pages (a state one met once is often
    /// met next by another), and resting unless half of a window's pages
    /// are found ([`BATCH_WORTH_IT`]).
    pub fn for_batch(layout: &StateLayout, capacity: usize) -> RenderMemo {
        RenderMemo::of_identity(layout.identity.clone(), capacity, true, BATCH_WORTH_IT)
    }

    fn of_identity(
        identity: Range<usize>,
        capacity: usize,
        at_first: bool,
        worth: u32,
    ) -> RenderMemo {
        let slots = memo_slots(capacity);
        let seen = if at_first { 0 } else { slots * SEEN_PER_SLOT };
        RenderMemo {
            identity,
            slots: (0..slots).map(|_| None).collect(),
            seen: vec![0; seen],
            at_first,
            worth,
            ..RenderMemo::default()
        }
    }

    pub fn is_on(&self) -> bool {
        !self.slots.is_empty()
    }

    /// Whether the next step should look its page up: `false` while the
    /// memory rests (the step is counted as a page rendered).
    pub(super) fn consult(&mut self) -> bool {
        if self.resting == 0 {
            return true;
        }
        self.resting -= 1;
        self.counts.misses += 1;
        false
    }

    /// Counts a lookup, and starts a rest when a window found too little.
    fn measure(&mut self, found: bool) {
        self.looked += 1;
        self.found += u32::from(found);
        if self.looked == WINDOW {
            if self.found < self.worth {
                self.resting = REST;
            }
            (self.looked, self.found) = (0, 0);
        }
    }

    /// How often steps found their page here.
    pub fn counts(&self) -> MemoCounts {
        self.counts
    }

    fn slot(&self) -> usize {
        // `slots.len()` is a power of two (or 0, and nothing is remembered).
        (self.hash as usize) & self.slots.len().saturating_sub(1)
    }

    /// Starts the key of the bytes `state`, which are the initial ones of
    /// `family`'s first instance but for the lines `family.differs` and
    /// `written`: the words of those lines that rendering its page can read
    /// (`reads`). Gives the family that names it, for [`RenderMemo::find`].
    fn key_written(
        &mut self,
        (family, written, state): (&Family, &Lines, &[u8]),
        reads: &ReadWords,
    ) -> u64 {
        self.clear_key();
        let identity = self.identity.clone();
        for (_, line) in Lines::each([written, &family.differs], reads.lines()) {
            let at = line.start / WORD;
            let read = reads.eight_from(at);
            if read == 0 {
                continue;
            }
            // A word back to the first's bytes is left out, as an unwritten
            // one is: states equal wherever the page reads have equal keys
            // (the page's own word among them, so two pages' keys differ,
            // as in `recall_differing`).
            let inside = identity.start <= line.start && line.end <= identity.end;
            let now = state
                .get(line.clone())
                .and_then(|b| <&Line>::try_from(b).ok());
            let then = (family.first.get(line.clone())).and_then(|b| <&Line>::try_from(b).ok());
            if let (true, Some(now), Some(then)) = (inside, now, then) {
                self.push_changed_words(at, read, now, then);
                continue;
            }
            if changed(state, &family.first, line, &identity).is_none() {
                continue;
            }
            for j in (0..8).filter(|i| read & (1 << i) != 0).map(|i| at + i) {
                let word = j * WORD..(j + 1) * WORD;
                if let Some(now) = changed(state, &family.first, word, &identity) {
                    self.push_word(j, now);
                }
            }
        }
        family.id
    }

    /// Starts the key of a state that differs from the search's root at
    /// words `differs` (in index order) of `state`: those rendering its
    /// page can read (`reads`). The memory must serve one root only.
    fn key_differing(&mut self, (differs, state): (&[usize], &[u8]), reads: &ReadWords) -> u64 {
        self.clear_key();
        // The page is read: keys of two pages differ (or both pages are
        // the root's, and so is every word either reads).
        for &j in differs.iter().filter(|&&j| reads.contains(j)) {
            let word = state.get(j * WORD..(j + 1) * WORD).unwrap_or_default();
            self.push_word(j, word);
        }
        SEARCH
    }

    /// Appends the words of one line of the identity region (the eight
    /// from word `at`) that `read` holds and whose bytes in `now` differ
    /// from `then`'s: what the general loop of [`RenderMemo::key_written`]
    /// adds for such a line, with no clipping to the region.
    fn push_changed_words(&mut self, at: usize, read: u8, now: &Line, then: &Line) {
        if now == then {
            return;
        }
        let word = |line: &Line, i: usize| {
            let mut w = [0u8; WORD];
            w.copy_from_slice(&line[i * WORD..(i + 1) * WORD]);
            w
        };
        let mut rest = read;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let w = word(now, i);
            if w != word(then, i) {
                self.push_word(at + i, &w);
            }
        }
    }

    fn clear_key(&mut self) {
        self.key.clear();
        self.whole = true;
    }

    /// Appends word `j`, holding `bytes`, to the key: a whole word as
    /// one entry, in one copy.
    fn push_word(&mut self, j: usize, bytes: &[u8]) {
        let index = (j as u64).to_le_bytes();
        match <[u8; WORD]>::try_from(bytes) {
            Ok(word) => {
                let mut entry = [0u8; ENTRY];
                entry[..8].copy_from_slice(&index);
                entry[8..].copy_from_slice(&word);
                self.key.extend_from_slice(&entry);
            }
            Err(_) => {
                self.whole = false;
                self.key.extend_from_slice(&index);
                self.key.extend_from_slice(bytes);
            }
        }
    }

    /// The words of the key just built (`None` when an entry is not a
    /// whole word): a text among them is an id of the pool the state was
    /// encoded with.
    fn key_words(&self) -> Option<impl Iterator<Item = i64> + '_> {
        let word = |entry: &[u8]| {
            let bytes = entry
                .get(8..ENTRY)
                .and_then(|w| <[u8; 8]>::try_from(w).ok());
            i64::from_le_bytes(bytes.unwrap_or_default())
        };
        self.whole.then(|| self.key.chunks_exact(ENTRY).map(word))
    }

    /// Adds to the key the agent's value `entry` for form element
    /// `element` (outside every loop): whether it is set, and to what. A
    /// word index never has the top bit, so these entries stand apart
    /// from the words'.
    fn key_form_value(&mut self, element: u32, entry: Option<Option<i64>>) {
        let (kind, word) = match entry {
            None => (0, 0),
            Some(None) => (1, 0),
            Some(Some(w)) => (2, w),
        };
        let tag = (1 << 63) | (u64::from(element) << 2) | kind;
        self.key.extend_from_slice(&tag.to_le_bytes());
        self.key.extend_from_slice(&word.to_le_bytes());
    }

    /// Copies into `out` the page remembered under the key just built,
    /// named by `family`, in `mode`, if any, and gives its version;
    /// otherwise keeps the key for [`RenderMemo::remember`].
    fn find(
        &mut self,
        family: u64,
        mode: RenderMode,
        pool: &TextPool,
        out: &mut PageStructure,
    ) -> Option<u64> {
        self.family = family;
        self.hash = xxh3_64_with_seed(&self.key, family);
        let found = self.slots.get(self.slot()).and_then(|s| s.as_deref());
        let found = found.filter(|r| {
            r.hash == self.hash
                && r.family == family
                && r.mode == mode
                && r.key == self.key
                && pool.agrees(&r.pool)
        });
        let version = found.map(|r| {
            out.copy_from(&r.page);
            r.version
        });
        match version {
            Some(_) => self.counts.hits += 1,
            None => self.counts.misses += 1,
        }
        self.measure(version.is_some());
        version
    }

    /// The entry of the last lookup's slot, if it holds page `version`.
    fn holding(&mut self, version: u64) -> Option<&mut Remembered> {
        let at = self.slot();
        let r = self.slots.get_mut(at)?.as_deref_mut()?;
        (r.version == version).then_some(r)
    }

    /// The candidates kept with page `version` (the last found or
    /// remembered) for an instance of `typeable` values, if any.
    pub(super) fn actions_of(&mut self, version: u64, typeable: usize) -> Option<&[FlatAction]> {
        let r = self.holding(version)?;
        (r.actions_for == Some(typeable)).then_some(r.actions.as_slice())
    }

    /// Keeps `actions`, listed on page `version` (the last found or
    /// remembered) for an instance of `typeable` values.
    pub(super) fn keep_actions(&mut self, version: u64, typeable: usize, actions: &[FlatAction]) {
        if let Some(r) = self.holding(version) {
            r.actions.clear();
            r.actions.extend_from_slice(actions);
            r.actions_for = Some(typeable);
        }
    }

    /// Whether the key the last lookup missed was met
    /// before, since its slot of `seen` last held another; it is noted as
    /// met either way.
    pub(super) fn met_before(&mut self) -> bool {
        if self.at_first {
            return true;
        }
        let at = (self.hash as usize) & self.seen.len().saturating_sub(1);
        match self.seen.get_mut(at) {
            Some(seen) if *seen == self.hash => true,
            Some(seen) => {
                *seen = self.hash;
                false
            }
            None => false,
        }
    }

    /// Remembers `page`, rendered in `mode` from the state the last
    /// [`RenderMemo::recall`] missed, with the pool as `pool` marks it; the
    /// version it is remembered under (`None` for a memory of no slots).
    pub(super) fn remember(
        &mut self,
        mode: RenderMode,
        pool: PoolMark,
        page: &PageStructure,
    ) -> Option<u64> {
        let version = new_version();
        let at = self.slot();
        let slot = self.slots.get_mut(at)?;
        match slot {
            Some(r) => {
                r.version = version;
                r.family = self.family;
                r.hash = self.hash;
                r.key.clone_from(&self.key);
                r.mode = mode;
                r.pool = pool;
                r.page.copy_from(page);
                r.actions_for = None;
            }
            None => {
                // Copied, not cloned: a clone would take the render's
                // scratch lists along.
                let mut copy = PageStructure::default();
                copy.copy_from(page);
                *slot = Some(Box::new(Remembered {
                    version,
                    family: self.family,
                    hash: self.hash,
                    key: self.key.clone(),
                    mode,
                    pool,
                    page: copy,
                    actions: Vec::new(),
                    actions_for: None,
                }));
            }
        }
        Some(version)
    }
}

/// Where a memory of renders finds the key of the bytes a step or a load
/// leaves.
pub enum Recall<'m> {
    /// The lines the environment's steps wrote since its restart, over its
    /// family's first instance (a batch's environments).
    Written(&'m mut RenderMemo),
    /// The words where the bytes differ from the search's root, in index
    /// order (the prover's loads; one memory per root).
    Differs(&'m mut RenderMemo, &'m [usize]),
}

/// A page found in a memory of renders.
#[derive(Clone, Copy, Debug)]
pub(super) struct Found {
    /// The version that names the page ([`FlatEnv::page_version`]), unless
    /// the agent's form values were written into it: pages of one version
    /// may then differ.
    pub version: Option<u64>,
}

impl FlatEnv<'_> {
    /// Looks the page of the bytes (`page`, rendered in `mode`) up and
    /// copies it into the structure when found. Gives the memory a render
    /// may then be remembered in (none when no lookup was made) and what
    /// was found.
    ///
    /// Without texts, a page whose structure can be keyed apart from its
    /// form variables (`ir::rendered::form_use`) is keyed without their
    /// list but with the values of its keyed elements, and the agent's form
    /// values are written into the page found (`render/forms.rs`): a
    /// search's states often differ in what was typed alone.
    pub(super) fn recall<'m>(
        &mut self,
        page: crate::ir::PageId,
        mode: RenderMode,
        pool: &TextPool,
        recall: Option<Recall<'m>>,
    ) -> R<(Option<&'m mut RenderMemo>, Option<Found>)> {
        let Some(recall) = recall else {
            return Ok((None, None));
        };
        let apart = match mode == RenderMode::STRUCTURE {
            true => self.site.page_reads_forms_apart(page),
            false => None,
        };
        let reads = apart.map(|a| &a.reads);
        let Some(reads) = reads.or_else(|| self.site.page_reads(page, mode.texts || mode.words))
        else {
            return Ok((None, None));
        };
        let (memo, family) = match recall {
            Recall::Written(memo) => {
                let known = (&self.written, self.start.family.get());
                let (Some(written), Some(family)) = known else {
                    return Ok((None, None));
                };
                if !(memo.is_on() && memo.consult()) {
                    return Ok((None, None));
                }
                let family = memo.key_written((family, written, self.state.as_slice()), reads);
                (memo, family)
            }
            Recall::Differs(memo, differs) => {
                if !(memo.is_on() && memo.consult()) {
                    return Ok((None, None));
                }
                let family = memo.key_differing((differs, self.state.as_slice()), reads);
                (memo, family)
            }
        };
        for &element in apart.map_or(&[][..], |a| &a.keyed) {
            let entry = self.site.form_value(&self.state, element, &[])?;
            memo.key_form_value(element, entry);
        }
        let Some(version) = memo.find(family, mode, pool, &mut self.structure) else {
            return Ok((Some(memo), None));
        };
        if apart.is_none() || self.structure.form_values.fields.is_empty() {
            let version = Some(version);
            return Ok((Some(memo), Some(Found { version })));
        }
        self.site.refill_forms(&self.state, &mut self.structure)?;
        Ok((Some(memo), Some(Found { version: None })))
    }

    /// The pool mark to remember the page just rendered under, `mark`
    /// taken before the render (which added no text, and `reached` an id
    /// past the frozen ones or not): narrowed to the frozen texts when the
    /// render read, looked up and holds none past them, so that every
    /// environment whose pool shares those finds it, not only this one
    /// until its pool forgets a text.
    ///
    /// The render read the pool at the ids its code holds as constants, at
    /// the text ids of the words it read, and at the ids its lookups handed
    /// out (derived and interpolated texts; one past the frozen ones would
    /// be missing from another pool, which rendering would then grow, so
    /// taking the page would number its later texts otherwise). Of the
    /// words read, the key holds the ones that differ from the family's
    /// first instance's initial bytes; the others are those bytes, whose
    /// ids are below `first_texts` (in a pool grown from the one they were
    /// encoded with, as `FlatStart` requires). The structure holds words as
    /// handle values, loop paths and form values. None may name a text
    /// past the frozen ones (a word is taken for a text id whatever its
    /// type, on the safe side). A search's memory (keyed from its root's
    /// bytes) keeps `mark`.
    pub(super) fn mark_to_keep(
        &self,
        page: crate::ir::PageId,
        (mark, reached): (PoolMark, bool),
        memo: &RenderMemo,
    ) -> PoolMark {
        if reached {
            return mark;
        }
        let frozen = mark.frozen_texts();
        let family = self.start.family.get();
        let first_shared = family.is_some_and(|f| f.id == memo.family && f.first_texts <= frozen);
        let code_shared = self
            .site
            .page_texts_end(page)
            .is_some_and(|end| end <= frozen);
        let (Some(mut key), true, true) = (memo.key_words(), first_shared, code_shared) else {
            return mark;
        };
        let unshared = |w: i64| mark.is_unshared(w);
        if key.any(unshared) || self.structure.held_words().any(unshared) {
            return mark;
        }
        mark.frozen_only()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_that_finds_too_little_rests_then_measures_again() {
        for worth in [WORTH_IT, BATCH_WORTH_IT] {
            let mut memo = RenderMemo::of_identity(0..0, 0, true, worth);
            for _ in 0..WINDOW {
                assert!(memo.consult());
                memo.measure(false);
            }
            for _ in 0..REST {
                assert!(!memo.consult(), "a rest ended early");
            }
            assert!(memo.consult(), "a rest did not end");
            assert_eq!(memo.counts().misses, u64::from(REST));
            // A window that finds just enough keeps the memory consulted.
            for i in 0..WINDOW {
                memo.measure(i < worth);
            }
            assert!(memo.consult());
            for i in 0..WINDOW {
                memo.measure(i + 1 < worth);
            }
            assert!(!memo.consult(), "a window that found too little");
        }
        assert_eq!(BATCH_WORTH_IT, WINDOW / 2);
    }

    #[test]
    fn a_render_is_remembered_the_second_time_its_key_is_met_or_the_first_when_asked() {
        let page = PageStructure::default();
        let pool = TextPool::default();
        let mut out = PageStructure::default();
        for (at_first, misses) in [(false, 2), (true, 1)] {
            let mut memo = RenderMemo::of_identity(0..0, 4, at_first, WORTH_IT);
            let mut missed = 0;
            for _ in 0..3 {
                memo.clear_key();
                memo.push_word(7, &[1; WORD]);
                if memo
                    .find(SEARCH, RenderMode::STRUCTURE, &pool, &mut out)
                    .is_none()
                {
                    missed += 1;
                    if memo.met_before() {
                        memo.remember(RenderMode::STRUCTURE, pool.mark(), &page);
                    }
                }
            }
            assert_eq!(missed, misses, "remembering at first: {at_first}");
        }
    }
}
