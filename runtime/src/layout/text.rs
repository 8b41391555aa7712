//! The text pool: every string a flat state refers to, by a dense `u32` id.
//!
//! A flat state has no room for strings, so a text cell holds an id into this
//! pool. The pool only grows, so an id never changes meaning, and equal strings
//! always get the same id: within one pool, equal texts are equal words, which is
//! what makes byte comparison and fingerprints of flat states sound. The seed's
//! and the session's strings are interned first, in program order, so the ids of
//! every initial state are the same from one pool to the next.

use crate::ir::{self, Value};
// Keys are short texts the site and the agent supply; foldhash's seeded
// hasher costs a fraction of SipHash on them, and a typed value is interned
// on every `type` a search probes.
use foldhash::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A pool's texts, ids `0..texts.len()`. Copies of a frozen pool share one
/// of these read-only (see [`TextPool::freeze`]).
#[derive(Debug)]
pub struct TextPool {
    /// The first ids' texts, shared by every copy made after a freeze.
    frozen: Arc<Frozen>,
    /// Names this pool's history since it was made, copied or last forgot
    /// a text ([`PoolMark`]): unique to the process, so two pools with one
    /// lineage hold the same texts under the ids both have.
    lineage: u64,
    /// The texts interned since, ids from `frozen.texts.len()` on.
    texts: Vec<Arc<str>>,
    ids: HashMap<Arc<str>, u32>,
    /// Texts derived from pooled ones ([`TextPool::derive`]), by source id.
    derived: HashMap<(Derive, u32), u32>,
    /// Each later text's word hashes ([`TextPool::word_hashes`]), by id
    /// past the frozen ones, filled when first asked for.
    word_hashes: Vec<Option<Box<[u64]>>>,
    /// Whether an id past the frozen ones was found, derived or interned
    /// since [`TextPool::take_unshared_reach`] last asked (atomic only so
    /// that `find`, which takes `&self`, can note it).
    reached: AtomicBool,
}

/// The read-only part of a pool, its word hashes computed once and laid end
/// to end: a batch's environments read the same seed texts' words step after
/// step, and one shared copy stays in the cache where one copy each did not.
#[derive(Clone, Debug, Default)]
struct Frozen {
    /// Unique to the process for a frozen part that holds texts (0 for the
    /// empty one), so that a [`PoolMark`] can name it.
    id: u64,
    texts: Vec<Arc<str>>,
    ids: HashMap<Arc<str>, u32>,
    derived: HashMap<(Derive, u32), u32>,
    /// Text `i`'s word hashes are `words[ends[i - 1]..ends[i]]` (from 0 for
    /// the first).
    words: Vec<u64>,
    ends: Vec<usize>,
}

impl Frozen {
    fn word_hashes(&self, i: usize) -> Option<&[u64]> {
        let end = *self.ends.get(i)?;
        let start = match i.checked_sub(1) {
            Some(before) => *self.ends.get(before)?,
            None => 0,
        };
        self.words.get(start..end)
    }
}

/// A text made from another by a builtin (`lower`, `upper`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Derive {
    Lower,
    Upper,
}

/// A new process-wide unique name (never 0).
fn fresh_name() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Default for TextPool {
    fn default() -> TextPool {
        TextPool {
            frozen: Arc::default(),
            lineage: fresh_name(),
            texts: Vec::new(),
            ids: HashMap::default(),
            derived: HashMap::default(),
            word_hashes: Vec::new(),
            reached: AtomicBool::new(false),
        }
    }
}

/// A copy starts a lineage of its own: it and its source may each add a
/// different text under the same next id.
impl Clone for TextPool {
    fn clone(&self) -> TextPool {
        TextPool {
            frozen: self.frozen.clone(),
            lineage: fresh_name(),
            texts: self.texts.clone(),
            ids: self.ids.clone(),
            derived: self.derived.clone(),
            word_hashes: self.word_hashes.clone(),
            reached: AtomicBool::new(false),
        }
    }
}

/// What a pool's first `len` ids meant at one moment, so that something
/// computed from them then (a remembered render) can be trusted later
/// exactly when those ids still mean the same texts ([`TextPool::agrees`]).
///
/// A pool only appends, except when it forgets texts ([`TextPool::truncate`])
/// or is copied, and either starts a new lineage; so a pool of the same
/// lineage holding at least `len` texts holds the same first `len`. Ids
/// inside a frozen part mean the same texts in every pool sharing that part,
/// whatever their lineage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolMark {
    lineage: u64,
    len: usize,
    frozen: u64,
    frozen_len: usize,
}

impl PoolMark {
    /// How many texts the pool held when the mark was taken.
    pub fn texts(&self) -> usize {
        self.len
    }

    /// How many of them were frozen: ids every pool sharing the frozen
    /// part gives the same texts.
    pub fn frozen_texts(&self) -> usize {
        self.frozen_len
    }

    /// Whether `word`, taken as a text id, names one of the pool's texts
    /// past the frozen ones: an id a pool of another lineage may give
    /// another text, or none.
    pub fn is_unshared(&self, word: i64) -> bool {
        usize::try_from(word).is_ok_and(|id| id >= self.frozen_len && id < self.len)
    }

    /// This mark narrowed to the frozen texts, for what was computed from
    /// none of the ids past them: every pool sharing the frozen part agrees
    /// with it ([`TextPool::agrees`]), the marked pool's lineage as well.
    pub fn frozen_only(self) -> PoolMark {
        PoolMark {
            len: self.len.min(self.frozen_len),
            ..self
        }
    }
}

impl TextPool {
    /// Where this pool's ids stand now.
    pub fn mark(&self) -> PoolMark {
        PoolMark {
            lineage: self.lineage,
            len: self.len(),
            frozen: self.frozen.id,
            frozen_len: self.frozen_len(),
        }
    }

    /// Whether ids `0..mark.len` mean here what they meant when `mark` was
    /// taken (of this pool or another).
    pub fn agrees(&self, mark: &PoolMark) -> bool {
        let same_lineage = self.lineage == mark.lineage && self.len() >= mark.len;
        let within_frozen = mark.len <= mark.frozen_len && self.frozen.id == mark.frozen;
        same_lineage || within_frozen
    }

    /// A pool holding the program's seed and session strings, in program order.
    pub fn for_program(program: &ir::Program) -> TextPool {
        let mut pool = TextPool::default();
        let seeded = program
            .tables
            .iter()
            .flat_map(|t| t.seed.iter().flat_map(|r| r.values.iter()));
        let session = program.session.iter().map(|s| &s.init);
        for value in seeded.chain(session) {
            if let Value::Text(s) = value {
                pool.intern(s);
            }
        }
        pool
    }

    /// Makes every text now held read-only and shared by the copies made
    /// from here on, its word hashes computed now. Ids, texts and answers
    /// are unchanged; only where they are kept changes. A batch freezes the
    /// pool its environments copy, so that they read one copy of the seed's
    /// words instead of a copy each.
    pub fn freeze(&mut self) {
        if self.texts.is_empty() && self.derived.is_empty() {
            return;
        }
        // Frozen parts are never changed in place: other pools share them.
        let mut frozen = Frozen::clone(&self.frozen);
        for text in self.texts.drain(..) {
            let id = u32::try_from(frozen.texts.len()).unwrap_or(u32::MAX);
            frozen.ids.insert(text.clone(), id);
            frozen.texts.push(text);
        }
        frozen.derived.extend(self.derived.drain());
        for text in &frozen.texts[frozen.ends.len()..] {
            frozen.words.extend(crate::words::hashes(text));
            frozen.ends.push(frozen.words.len());
        }
        self.ids.clear();
        self.word_hashes.clear();
        frozen.id = fresh_name();
        self.frozen = Arc::new(frozen);
    }

    /// Undoes a freeze for this copy alone: every text is its own again.
    fn thaw(&mut self) {
        let frozen = std::mem::take(&mut self.frozen);
        let before = frozen.texts.len();
        let mut texts = frozen.texts.clone();
        texts.append(&mut self.texts);
        self.texts = texts;
        self.ids
            .extend(frozen.ids.iter().map(|(t, &id)| (t.clone(), id)));
        self.derived.extend(frozen.derived.iter());
        let mut hashes: Vec<Option<Box<[u64]>>> = (0..before)
            .map(|i| frozen.word_hashes(i).map(Box::from))
            .collect();
        hashes.append(&mut self.word_hashes);
        self.word_hashes = hashes;
    }

    /// The number of texts shared read-only.
    fn frozen_len(&self) -> usize {
        self.frozen.texts.len()
    }

    /// The id of `text`, adding it when new. `None` only when the pool already
    /// holds 2³² strings.
    pub fn intern(&mut self, text: &Arc<str>) -> Option<u32> {
        if let Some(id) = self.find(text) {
            return Some(id);
        }
        let id = u32::try_from(self.len()).ok()?;
        self.texts.push(text.clone());
        self.ids.insert(text.clone(), id);
        self.note_reach(id);
        Some(id)
    }

    /// The id of `text` if the pool holds it.
    pub fn find(&self, text: &str) -> Option<u32> {
        // An unfrozen pool (the prover's) hashes the text once, not twice.
        let frozen = (self.frozen_len() > 0).then(|| self.frozen.ids.get(text));
        let id = frozen.flatten().or_else(|| self.ids.get(text)).copied();
        id.inspect(|&id| self.note_reach(id))
    }

    /// Notes `id` as handed out by a lookup.
    fn note_reach(&self, id: u32) {
        if id as usize >= self.frozen_len() {
            self.reached.store(true, Ordering::Relaxed);
        }
    }

    /// Whether a lookup ([`TextPool::find`], [`TextPool::intern`],
    /// [`TextPool::derive`]) handed out an id past the frozen ones since
    /// the last call: a render that did needs texts that a pool sharing
    /// only the frozen ones may lack, or hold under other ids.
    pub fn take_unshared_reach(&mut self) -> bool {
        std::mem::take(self.reached.get_mut())
    }

    /// The string with this id.
    pub fn get(&self, id: u32) -> Option<&Arc<str>> {
        let i = usize::try_from(id).ok()?;
        match i.checked_sub(self.frozen_len()) {
            None => self.frozen.texts.get(i),
            Some(later) => self.texts.get(later),
        }
    }

    /// Whether every `(id, text)` of `texts` (kept with compiled code or a
    /// page) names that text in this pool.
    pub fn holds_all(&self, texts: &[(u32, Arc<str>)]) -> bool {
        texts.iter().all(|(id, text)| {
            self.get(*id)
                .is_some_and(|s| Arc::ptr_eq(s, text) || **s == **text)
        })
    }

    /// The texts added after the first `len`, in id order.
    pub fn since(&self, len: usize) -> Vec<Arc<str>> {
        let frozen = self.frozen.texts.get(len..).unwrap_or_default();
        let later = len.saturating_sub(self.frozen_len());
        let later = self.texts.get(later..).unwrap_or_default();
        frozen.iter().chain(later).cloned().collect()
    }

    pub fn len(&self) -> usize {
        self.frozen_len() + self.texts.len()
    }

    /// The hashes of the words of text `id` (`crate::words::hashes`),
    /// computed once per text: a page shows the same names step after step.
    /// `None` for an id the pool lacks.
    pub fn word_hashes(&mut self, id: u32) -> Option<&[u64]> {
        let i = usize::try_from(id).ok()?;
        let Some(later) = i.checked_sub(self.frozen_len()) else {
            return self.frozen.word_hashes(i);
        };
        let text = self.texts.get(later)?;
        if self.word_hashes.len() <= later {
            self.word_hashes.resize(later + 1, None);
        }
        let slot = self.word_hashes.get_mut(later)?;
        if slot.is_none() {
            *slot = Some(crate::words::hashes(text).into_boxed_slice());
        }
        slot.as_deref()
    }

    /// The id of the text `how` makes of text `id`, interned if new, and
    /// remembered: compiled code evaluates `lower(x)` on every step, and
    /// asking again must not build the string again. `None` for an id the
    /// pool lacks (or a full pool).
    pub fn derive(&mut self, how: Derive, id: u32) -> Option<u32> {
        let known = self.frozen.derived.get(&(how, id));
        if let Some(&made) = known.or_else(|| self.derived.get(&(how, id))) {
            self.note_reach(made);
            return Some(made);
        }
        let text = self.get(id)?;
        let made = match how {
            Derive::Lower => text.to_lowercase(),
            Derive::Upper => text.to_uppercase(),
        };
        let made = match self.find(&made) {
            Some(found) => found,
            None => self.intern(&Arc::from(made))?,
        };
        self.derived.insert((how, id), made);
        Some(made)
    }

    /// Forgets every text added after the first `len`: an environment that
    /// resets to bytes encoded with the pool as it was at `len` can drop what
    /// its episode interned, so long runs do not grow the pool without bound.
    /// Truncating into the frozen texts makes this copy's texts its own again.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.lineage = fresh_name();
        }
        if len < self.frozen_len() {
            self.thaw();
        }
        let later = len - self.frozen_len();
        for text in self.texts.drain(later.min(self.texts.len())..) {
            self.ids.remove(&text);
        }
        self.word_hashes.truncate(later);
        let kept = |id: u32| (id as usize) < len;
        self.derived
            .retain(|&(_, from), &mut to| kept(from) && kept(to));
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_holds_kept_texts_only_under_their_own_ids() {
        let text = |t: &str| Arc::<str>::from(t);
        let mut pool = TextPool::default();
        let (a, b) = (text("alpha"), text("beta"));
        let (ia, ib) = (pool.intern(&a).unwrap(), pool.intern(&b).unwrap());
        assert!(pool.holds_all(&[]));
        // An equal string in another allocation is held too.
        assert!(pool.holds_all(&[(ia, a.clone()), (ib, text("beta"))]));
        assert!(!pool.holds_all(&[(ia, b.clone())]), "another id's text");
        assert!(!pool.holds_all(&[(ib + 1, a)]), "an id past the pool");
    }

    #[test]
    fn a_mark_holds_while_its_ids_mean_what_they_meant() {
        let text = |t: &str| Arc::<str>::from(t);
        let mut pool = TextPool::default();
        pool.intern(&text("seed"));
        pool.freeze();
        let frozen = pool.mark();
        pool.intern(&text("ann"));
        let grown = pool.mark();
        assert_eq!((frozen.texts(), grown.texts()), (1, 2));
        // Appending keeps every earlier mark.
        pool.intern(&text("more"));
        assert!(pool.agrees(&frozen) && pool.agrees(&grown));
        // A copy may add another text under id 1; the frozen id still holds.
        let mut copy = pool.clone();
        assert!(copy.agrees(&frozen) && !copy.agrees(&grown));
        // Forgetting texts starts another history, even when the same text
        // comes back under the same id.
        pool.truncate(1);
        assert!(pool.agrees(&frozen) && !pool.agrees(&grown));
        pool.intern(&text("ann"));
        assert!(!pool.agrees(&grown));
        // Truncating to what is held forgets nothing and keeps the history.
        let now = copy.mark();
        copy.truncate(copy.len());
        assert!(copy.agrees(&now));
        // Another frozen part: only its own marks hold.
        let mut other = TextPool::default();
        other.intern(&text("seed"));
        other.freeze();
        assert!(!other.agrees(&frozen));
    }

    #[test]
    fn a_mark_narrowed_to_the_frozen_texts_holds_for_every_copy_sharing_them() {
        let text = |t: &str| Arc::<str>::from(t);
        let mut pool = TextPool::default();
        pool.intern(&text("seed"));
        pool.intern(&text("more"));
        pool.freeze();
        let mut a = pool.clone();
        a.intern(&text("ann"));
        let mark = a.mark();
        assert_eq!((mark.frozen_texts(), mark.texts()), (2, 3));
        // Only the ids past the frozen ones and below the pool's end are
        // another pool's guess.
        let unshared: Vec<i64> = (-1..5).filter(|&w| mark.is_unshared(w)).collect();
        assert_eq!(unshared, [2]);
        // A copy of another lineage agrees with the narrowed mark only.
        let mut b = pool.clone();
        b.intern(&text("bob"));
        let narrowed = mark.frozen_only();
        assert_eq!(narrowed.texts(), 2);
        assert!(!b.agrees(&mark) && b.agrees(&narrowed) && a.agrees(&narrowed));
        // Forgetting frozen texts, or another frozen part, breaks it.
        b.truncate(1);
        assert!(!b.agrees(&narrowed));
        let mut other = TextPool::default();
        other.intern(&text("seed"));
        other.intern(&text("more"));
        other.freeze();
        assert!(!other.agrees(&narrowed));
    }

    #[test]
    fn equal_strings_share_an_id_and_ids_never_move() {
        let mut pool = TextPool::default();
        let a = pool.intern(&Arc::from("alpha"));
        let b = pool.intern(&Arc::from("beta"));
        assert_ne!(a, b);
        assert_eq!(pool.intern(&Arc::from("alpha")), a);
        assert_eq!(pool.get(a.unwrap()).map(|s| &**s), Some("alpha"));
        assert_eq!(pool.find("beta"), b);
        assert_eq!(pool.find("gamma"), None);
        assert_eq!(pool.len(), 2);
    }

    #[test]
    fn truncating_forgets_later_texts_and_reuses_their_ids() {
        let mut pool = TextPool::default();
        let a = pool.intern(&Arc::from("kept"));
        let b = pool.intern(&Arc::from("dropped"));
        pool.truncate(1);
        assert_eq!(pool.len(), 1);
        assert_eq!(pool.find("dropped"), None);
        assert_eq!(pool.find("kept"), a);
        assert_eq!(pool.intern(&Arc::from("new")), b, "the freed id is reused");
        pool.truncate(10);
        assert_eq!(pool.len(), 2, "truncating past the end keeps everything");
    }

    #[test]
    fn derived_texts_are_remembered_and_forgotten_with_their_ids() {
        let mut pool = TextPool::default();
        let a = pool.intern(&Arc::from("Straße")).unwrap();
        let upper = pool.derive(Derive::Upper, a).unwrap();
        assert_eq!(pool.get(upper).map(|s| &**s), Some("STRASSE"));
        assert_eq!(pool.derive(Derive::Upper, a), Some(upper));
        assert_eq!(pool.derive(Derive::Lower, upper), pool.find("strasse"));
        let lower = pool.intern(&Arc::from("straße")).unwrap();
        assert_eq!(
            pool.derive(Derive::Lower, lower),
            Some(lower),
            "already lower case"
        );
        assert_eq!(pool.derive(Derive::Lower, 99), None);
        pool.truncate(1);
        let other = pool.intern(&Arc::from("other")).unwrap();
        assert_eq!(other, upper, "the freed id is reused");
        assert_eq!(
            pool.derive(Derive::Lower, other),
            Some(other),
            "not the old memo"
        );
        let again = pool.derive(Derive::Upper, a).unwrap();
        assert_eq!(pool.get(again).map(|s| &**s), Some("STRASSE"));
    }

    #[test]
    fn word_hashes_are_the_texts_and_forgotten_with_their_ids() {
        let mut pool = TextPool::default();
        let a = pool.intern(&Arc::from("Intro to  Databases")).unwrap();
        let b = pool.intern(&Arc::from("old")).unwrap();
        assert_eq!(
            pool.word_hashes(a).map(<[u64]>::to_vec),
            Some(crate::words::hashes("Intro to  Databases"))
        );
        assert_eq!(
            pool.word_hashes(b).map(<[u64]>::to_vec),
            Some(crate::words::hashes("old"))
        );
        assert_eq!(pool.word_hashes(7), None);
        pool.truncate(1);
        let c = pool.intern(&Arc::from("new words")).unwrap();
        assert_eq!(c, b, "the freed id is reused");
        assert_eq!(
            pool.word_hashes(c).map(<[u64]>::to_vec),
            Some(crate::words::hashes("new words")),
            "not the old text's hashes"
        );
    }

    #[test]
    fn seed_strings_come_first_in_program_order() {
        let program = crate::interp::fixture::program();
        let pool = TextPool::for_program(&program);
        assert_eq!(pool.find("ThinkPad X1"), Some(0));
        assert_eq!(pool.find("Logi M185"), Some(1));
        assert_eq!(pool.find("Cable"), Some(2));
        assert_eq!(pool.find("sale"), Some(3));
    }

    /// A text, its id, its words.
    type Answer = (Option<String>, Option<u32>, Option<Vec<u64>>);

    /// Everything a pool answers about ids `0..len + 2`, and about `texts`.
    fn answers(pool: &mut TextPool, texts: &[&str]) -> Vec<Answer> {
        let ids = 0..u32::try_from(pool.len() + 2).unwrap();
        let by_id: Vec<_> = ids
            .map(|id| {
                let text = pool.get(id).map(|t| t.to_string());
                (text, Some(id), pool.word_hashes(id).map(<[u64]>::to_vec))
            })
            .collect();
        let by_text = texts
            .iter()
            .map(|t| (Some(t.to_string()), pool.find(t), None));
        by_id.into_iter().chain(by_text).collect()
    }

    #[test]
    fn a_frozen_pool_answers_as_before_and_its_copies_share_the_texts() {
        let texts = [
            "Intro to Databases",
            "ALPHA",
            "alpha",
            "beta gamma",
            "absent",
        ];
        let mut plain = TextPool::default();
        for t in &texts[..4] {
            plain.intern(&Arc::from(*t));
        }
        let mut frozen = plain.clone();
        frozen.freeze();
        assert_eq!(frozen.len(), plain.len());
        assert!(frozen.texts.is_empty(), "nothing is left to this copy");
        assert_eq!(answers(&mut frozen, &texts), answers(&mut plain, &texts));
        let copy = frozen.clone();
        assert!(Arc::ptr_eq(&copy.frozen, &frozen.frozen));
        // Later texts, derived texts and truncation behave as in a plain pool,
        // before and inside the frozen part.
        for pool in [&mut plain, &mut frozen] {
            assert_eq!(pool.intern(&Arc::from("delta")), Some(4));
            assert_eq!(pool.derive(Derive::Lower, 1), Some(2));
            assert_eq!(pool.derive(Derive::Upper, 3), Some(5));
            assert_eq!(pool.derive(Derive::Upper, 3), Some(5));
            assert_eq!(pool.since(3).len(), 3);
        }
        let more = ["delta", "BETA GAMMA", "absent"];
        assert_eq!(answers(&mut frozen, &more), answers(&mut plain, &more));
        for len in [5, 2, 0] {
            let (mut p, mut f) = (plain.clone(), frozen.clone());
            p.truncate(len);
            f.truncate(len);
            assert_eq!(answers(&mut f, &texts), answers(&mut p, &texts), "at {len}");
            assert_eq!(f.intern(&Arc::from("new")), p.intern(&Arc::from("new")));
            assert_eq!(f.derive(Derive::Upper, 0), p.derive(Derive::Upper, 0));
        }
        // A second freeze keeps the first one's texts and adds the later ones.
        frozen.freeze();
        assert_eq!(frozen.frozen.texts.len(), 6);
        assert_eq!(answers(&mut frozen, &more), answers(&mut plain, &more));
        assert!(Arc::ptr_eq(&copy.frozen, &copy.clone().frozen));
        assert_eq!(copy.len(), 4, "a copy made before is unchanged");
    }
}
