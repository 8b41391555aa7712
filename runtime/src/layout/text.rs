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
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub struct TextPool {
    texts: Vec<Arc<str>>,
    ids: HashMap<Arc<str>, u32>,
    /// Texts derived from pooled ones ([`TextPool::derive`]), by source id.
    derived: HashMap<(Derive, u32), u32>,
    /// Each text's word hashes ([`TextPool::word_hashes`]), by id, filled
    /// when first asked for.
    word_hashes: Vec<Option<Box<[u64]>>>,
}

/// A text made from another by a builtin (`lower`, `upper`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Derive {
    Lower,
    Upper,
}

impl TextPool {
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

    /// The id of `text`, adding it when new. `None` only when the pool already
    /// holds 2³² strings.
    pub fn intern(&mut self, text: &Arc<str>) -> Option<u32> {
        if let Some(&id) = self.ids.get(text) {
            return Some(id);
        }
        let id = u32::try_from(self.texts.len()).ok()?;
        self.texts.push(text.clone());
        self.ids.insert(text.clone(), id);
        Some(id)
    }

    /// The id of `text` if the pool holds it.
    pub fn find(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// The string with this id.
    pub fn get(&self, id: u32) -> Option<&Arc<str>> {
        self.texts.get(usize::try_from(id).ok()?)
    }

    /// The texts added after the first `len`, in id order.
    pub fn since(&self, len: usize) -> &[Arc<str>] {
        self.texts.get(len..).unwrap_or_default()
    }

    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// The hashes of the words of text `id` (`crate::words::hashes`),
    /// computed once per text: a page shows the same names step after step.
    /// `None` for an id the pool lacks.
    pub fn word_hashes(&mut self, id: u32) -> Option<&[u64]> {
        let i = usize::try_from(id).ok()?;
        let text = self.texts.get(i)?;
        if self.word_hashes.len() <= i {
            self.word_hashes.resize(i + 1, None);
        }
        let slot = self.word_hashes.get_mut(i)?;
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
        if let Some(&made) = self.derived.get(&(how, id)) {
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
    pub fn truncate(&mut self, len: usize) {
        for text in self.texts.drain(len.min(self.texts.len())..) {
            self.ids.remove(&text);
        }
        self.word_hashes.truncate(len);
        let kept = |id: u32| (id as usize) < len;
        self.derived
            .retain(|&(_, from), &mut to| kept(from) && kept(to));
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
