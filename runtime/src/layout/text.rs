//! The text pool: every string a flat state refers to, by a dense `u32` id.
//!
//! A flat state has no room for strings, so a text cell holds an id into this
//! pool. The pool only grows, so an id never changes meaning, and equal strings
//! always get the same id: within one pool, equal texts are equal words, which is
//! what makes byte comparison and fingerprints of flat states sound. The seed's
//! and the session's strings are interned first, in program order, so the ids of
//! every initial state are the same from one pool to the next.

use crate::ir::{self, Value};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub struct TextPool {
    texts: Vec<Arc<str>>,
    ids: HashMap<Arc<str>, u32>,
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

    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Forgets every text added after the first `len`: an environment that
    /// resets to bytes encoded with the pool as it was at `len` can drop what
    /// its episode interned, so long runs do not grow the pool without bound.
    pub fn truncate(&mut self, len: usize) {
        for text in self.texts.drain(len.min(self.texts.len())..) {
            self.ids.remove(&text);
        }
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
    fn seed_strings_come_first_in_program_order() {
        let program = crate::interp::fixture::program();
        let pool = TextPool::for_program(&program);
        assert_eq!(pool.find("ThinkPad X1"), Some(0));
        assert_eq!(pool.find("Logi M185"), Some(1));
        assert_eq!(pool.find("Cable"), Some(2));
        assert_eq!(pool.find("sale"), Some(3));
    }
}
