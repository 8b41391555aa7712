//! How the flat search stores and tells apart states, on states written
//! straight into a layout (random words in the used prefixes, zero
//! elsewhere, so the tests do not depend on the codec): a state stored as
//! its differences from the initial one comes back whole, and fingerprints
//! ignore the header, and the visited set unless the task reads it.
//! `tests/tests/prove_jit.rs` checks the search against the interpreter's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::layout::{EntryList, TableLayout, HEADER_SIZE, WORD};
use std::ops::Range;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % (n as u64 + 1)) as usize
    }
}

fn layout() -> StateLayout {
    let mut program = crate::interp::fixture::program();
    // A horizon gives the form and visited lists room for several entries.
    program.tasks.push(ir::TaskDef {
        name: "t".into(),
        template: None,
        say: Vec::new(),
        start: None,
        horizon: 6,
        goal: None,
        answer: None,
        progress: Vec::new(),
        key: Vec::new(),
        values: Vec::new(),
        setup: Vec::new(),
        frame: 0,
    });
    StateLayout::for_program(&program).unwrap()
}

fn fill(state: &mut [u8], at: usize, len: usize, rng: &mut Rng) {
    for b in &mut state[at..at + len] {
        *b = (rng.next() as u8) | 1;
    }
}

fn fill_list(state: &mut [u8], list: EntryList, rng: &mut Rng) {
    let n = rng.below(list.capacity);
    state[list.count..list.count + 4].copy_from_slice(&(n as u32).to_le_bytes());
    fill(state, list.entries, n * list.entry_size, rng);
}

fn fill_table(state: &mut [u8], t: &TableLayout, rng: &mut Rng) {
    let n = rng.below(t.capacity);
    state[t.count..t.count + 4].copy_from_slice(&(n as u32).to_le_bytes());
    fill(state, t.high, WORD, rng);
    fill(state, t.ids, n * WORD, rng);
    for c in &t.columns {
        fill(state, c.words, n * WORD, rng);
        fill(state, c.present, n, rng);
    }
}

/// A state with random contents where the layout allows any, zero elsewhere.
fn random_state(layout: &StateLayout, rng: &mut Rng) -> Vec<u8> {
    let mut state = vec![0u8; layout.size];
    fill(&mut state, 0, HEADER_SIZE, rng);
    fill(&mut state, layout.page, 4, rng);
    fill(&mut state, layout.args.words, layout.args.len * WORD, rng);
    fill(
        &mut state,
        layout.session.words,
        layout.session.len * WORD,
        rng,
    );
    fill(&mut state, layout.session.present, layout.session.len, rng);
    fill_list(&mut state, layout.forms, rng);
    fill_list(&mut state, layout.visited, rng);
    for t in &layout.tables {
        fill_table(&mut state, t, rng);
    }
    state
}

/// `state` with a few random words changed (never the header), and
/// ranges that hold them (overlapping, and wider, as probes name them).
fn step(layout: &StateLayout, state: &[u8], rng: &mut Rng) -> (Vec<u8>, Vec<Range<usize>>) {
    let mut next = state.to_vec();
    let mut ranges = Vec::new();
    for _ in 0..rng.below(6) {
        let at = HEADER_SIZE + rng.below(layout.size - HEADER_SIZE - 1);
        let end = (at + 1 + rng.below(11)).min(layout.size);
        for b in &mut next[at..end] {
            *b = if rng.below(3) == 0 {
                0
            } else {
                rng.next() as u8
            };
        }
        ranges.push(at..end);
        ranges.push(at.saturating_sub(3).max(HEADER_SIZE)..end);
    }
    (next, ranges)
}

/// Every word where `state` differs from `root`, as a level stores it.
fn differences(root: &[u8], state: &[u8]) -> Vec<(usize, u64)> {
    (0..root.len().div_ceil(WORD))
        .filter(|&j| word_at(root, j) != word_at(state, j))
        .map(|j| (j, word_at(state, j)))
        .collect()
}

#[test]
fn states_stored_as_steps_are_rebuilt_whole() {
    let layout = layout();
    let mut rng = Rng(7);
    let mut changes = Changes::default();
    for _ in 0..100 {
        let mut root = random_state(&layout, &mut rng);
        root[..HEADER_SIZE].fill(0);
        // Level 0 holds the root alone, stored as the search stores it.
        let mut states = vec![root.clone()];
        let mut level = Level::default();
        level.push(NO_PARENT, std::iter::empty(), 0).unwrap();
        let mut rebuilt = Rebuilt::default();
        for depth in 0..6 {
            let (mut next, mut reached) = (Level::default(), Vec::new());
            for (i, state) in states.iter().enumerate() {
                let words: Vec<(usize, u64)> = rebuilt.rebuild(&level, i, &root).unwrap().collect();
                assert_eq!(words, differences(&root, state), "depth {depth}, state {i}");
                let mut back = root.clone();
                for &(j, w) in &words {
                    set_word(&mut back, j, w);
                }
                assert_eq!(&back, state, "depth {depth}, state {i}");
                // Zero to two children each, so that parents are skipped
                // and shared.
                for _ in 0..rng.below(3) {
                    let (child, ranges) = step(&layout, state, &mut rng);
                    changes.collect(state, &child, &ranges);
                    let step = changes.in_order().iter().map(|&(j, _, after)| (j, after));
                    next.push(u32::try_from(i).unwrap(), step, 0).unwrap();
                    reached.push(child);
                }
            }
            // A state out of order is refused, not rebuilt from another's.
            if next.parents.len() > 1 {
                let mut other = Rebuilt::default();
                assert!(other.rebuild(&next, 1, &root).is_none());
            }
            (states, level) = (reached, next);
        }
    }
}

#[test]
fn fingerprints_follow_the_identity_and_leave_the_header_out() {
    let layout = layout();
    let identity = Fingerprint::new(layout.identity.clone());
    let with_visited = Fingerprint::new(layout.identity.start..layout.visited_region.end);
    let mut rng = Rng(11);
    for _ in 0..200 {
        let state = random_state(&layout, &mut rng);
        let mut other = state.clone();
        fill(&mut other, 0, HEADER_SIZE, &mut rng);
        other[layout.visited_region.clone()].fill(0);
        fill_list(&mut other, layout.visited, &mut rng);
        assert_eq!(identity.of(&state), identity.of(&other));
        let same_visited =
            state[layout.visited_region.clone()] == other[layout.visited_region.clone()];
        assert_eq!(
            with_visited.of(&state) == with_visited.of(&other),
            same_visited
        );
        // A change in the identity region tells the states apart.
        let at = layout.identity.start + rng.below(layout.identity.len() - 1);
        other[at] ^= 1 + (rng.next() as u8 & 0x7f);
        assert_ne!(identity.of(&state), identity.of(&other));
    }
}

#[test]
fn updated_fingerprints_equal_recomputed_ones_on_layout_states() {
    let layout = layout();
    let mut f = Fingerprint::new(layout.identity.start..layout.visited_region.end);
    let mut rng = Rng(13);
    let mut changes = Changes::default();
    for _ in 0..500 {
        let state = random_state(&layout, &mut rng);
        let (next, ranges) = step(&layout, &state, &mut rng);
        changes.collect(&state, &next, &ranges);
        let parent = f.of(&state);
        assert_eq!(f.after(parent, &changes.words), f.of(&next));
    }
}
