//! The compact form of flat states: expanding a compact state gives back the
//! state's bytes (header zeroed), and the identity part ignores the visited
//! set. States here are written straight into the layout (random words in
//! the used prefixes, zero elsewhere), so the test does not depend on the
//! codec; `tests/tests/prove_jit.rs` checks states reached by real play.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::layout::{EntryList, TableLayout};

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

#[test]
fn expanding_a_compact_state_gives_its_bytes_back() {
    let layout = layout();
    assert!(!layout.tables.is_empty());
    let shape = Shape::of(&layout).unwrap();
    let mut rng = Rng(7);
    for _ in 0..500 {
        let state = random_state(&layout, &mut rng);
        let mut compact = Vec::new();
        let identity = shape.compact(&state, &mut compact).unwrap();
        assert!(identity <= compact.len());
        assert!(compact.len() < state.len());
        let mut back = vec![0xAA; layout.size];
        shape.expand(&compact, &mut back).unwrap();
        assert_eq!(back[..HEADER_SIZE], [0; HEADER_SIZE]);
        assert_eq!(back[HEADER_SIZE..], state[HEADER_SIZE..]);
    }
}

#[test]
fn the_identity_part_leaves_the_visited_set_out() {
    let layout = layout();
    let shape = Shape::of(&layout).unwrap();
    let mut rng = Rng(11);
    let state = random_state(&layout, &mut rng);
    let mut other = state.clone();
    let visited = layout.visited_region.clone();
    other[visited.clone()].fill(0);
    fill_list(&mut other, layout.visited, &mut rng);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let ia = shape.compact(&state, &mut a).unwrap();
    let ib = shape.compact(&other, &mut b).unwrap();
    assert_eq!(a[..ia], b[..ib]);
}

#[test]
fn a_count_beyond_capacity_or_a_short_buffer_is_an_error() {
    let layout = layout();
    let shape = Shape::of(&layout).unwrap();
    let mut state = vec![0u8; layout.size];
    let at = layout.forms.count;
    state[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(shape.compact(&state, &mut Vec::new()).is_err());
    assert!(shape.compact(&state[1..], &mut Vec::new()).is_err());
    let mut compact = Vec::new();
    shape
        .compact(&vec![0u8; layout.size], &mut compact)
        .unwrap();
    let mut back = vec![0u8; layout.size];
    assert!(shape.expand(&compact[1..], &mut back).is_err());
    compact.push(0);
    assert!(shape.expand(&compact, &mut back).is_err());
}
