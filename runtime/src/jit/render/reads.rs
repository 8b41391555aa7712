//! What rendering each page can read of a state's bytes, as the 8-byte
//! words that hold them: the navigation part of the identity region (the
//! page, its arguments and the form variables), and the session variables
//! and table rows and columns that `ir::reads::page_reads` lists for the
//! page. Two states equal on a page's words render that page alike, given
//! a pool that means the same by each text id, so a render can be keyed by
//! those words alone (the prover's memory of renders, `step/memo.rs`). A
//! word is counted when any of its bytes is read, so a key may tell apart
//! states a render would not, never the other way.
//!
//! The page's code never reads the header, the visited set (`visited` and
//! `page is` do not compile outside task predicates, `codegen/navigation`)
//! nor locations the analysis does not list, which it lists conservatively
//! (LANGUAGE.md §2.2 on text rendering). What rendering each form
//! element's type reads (a row's existence and name) is counted as well,
//! on the safe side: a form element's value is rendered even when texts
//! are not kept. `tests/tests/page_reads.rs` scrambles every other word of
//! states of random sites and demands the same render.

use crate::ir::{self, reads, PageId};
use crate::layout::{StateLayout, WORD};
use std::ops::Range;

/// Each page's read words, for renders without texts and with them, and,
/// for a page whose structure can be keyed apart from its form variables,
/// for renders without texts but the form variables.
#[derive(Clone, Debug, Default)]
pub(crate) struct PageReads {
    by_page: Vec<[ReadWords; 2]>,
    forms_apart: Vec<Option<FormsApart>>,
}

/// How a render without texts of a page is keyed apart from its form
/// variables (`ir::rendered::form_use`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormsApart {
    /// The words the render reads, the form variables' left out.
    pub reads: ReadWords,
    /// The form elements (ids, outside every loop) whose values the render
    /// reads beyond their handles and whole arguments: the key holds their
    /// values.
    pub keyed: Vec<u32>,
}

/// A set of word indices of the state (word `j` is bytes `8j..8j+8`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadWords {
    bits: Box<[u64]>,
    /// The 64-byte lines holding a word of the set (line `l` is words
    /// `8l..8l+8`), 64 to an item as `step::restart::Lines` lays them: the
    /// items that hold one, each with its index (a page reads a few
    /// stretches of a large state).
    lines: Box<[(usize, u64)]>,
}

impl ReadWords {
    fn of(ranges: &[Range<usize>], state_size: usize) -> ReadWords {
        let words = state_size.div_ceil(WORD);
        let mut bits = vec![0u64; words.div_ceil(64)];
        for r in ranges.iter().filter(|r| !r.is_empty()) {
            for j in r.start / WORD..=(r.end - 1) / WORD {
                if let Some(b) = bits.get_mut(j / 64) {
                    *b |= 1 << (j % 64);
                }
            }
        }
        let mut lines = vec![0u64; bits.len().div_ceil(8)];
        for (k, &b) in bits.iter().enumerate() {
            for i in (0..8).filter(|i| (b >> (8 * i)) & 0xff != 0) {
                let line = 8 * k + i;
                lines[line / 64] |= 1 << (line % 64);
            }
        }
        let lines = (lines.into_iter().enumerate())
            .filter(|&(_, l)| l != 0)
            .collect();
        ReadWords {
            bits: bits.into(),
            lines,
        }
    }

    /// The lines holding a word of the set, 64 to an item: the items that
    /// hold one, with their indices, in order.
    pub(crate) fn lines(&self) -> &[(usize, u64)] {
        &self.lines
    }

    /// Words `j..j + 8` as bits, word `j + i` at bit `i`, for `j` a
    /// multiple of 8 (the words of one 64-byte line).
    pub(crate) fn eight_from(&self, j: usize) -> u8 {
        debug_assert!(j.is_multiple_of(8));
        self.bits.get(j / 64).map_or(0, |b| (b >> (j % 64)) as u8)
    }

    /// Whether word `j` is in the set.
    pub fn contains(&self, j: usize) -> bool {
        self.bits
            .get(j / 64)
            .is_some_and(|b| b & (1 << (j % 64)) != 0)
    }
}

impl PageReads {
    pub(crate) fn of(program: &ir::Program, layout: &StateLayout) -> PageReads {
        let by_page = program
            .pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                [false, true].map(|texts| {
                    ReadWords::of(&ranges(program, layout, i, page, texts), layout.size)
                })
            })
            .collect();
        let forms_apart = program
            .pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                let uses = ir::rendered::form_use(page)?;
                let mut ranges = ranges(program, layout, i, page, false);
                let forms = layout.forms_region();
                let navigation = ranges.first_mut()?;
                if forms.start < navigation.start || forms.end > navigation.end {
                    return None;
                }
                let after = forms.end..navigation.end;
                navigation.end = forms.start;
                ranges.push(after);
                Some(FormsApart {
                    reads: ReadWords::of(&ranges, layout.size),
                    keyed: uses.keyed,
                })
            })
            .collect();
        PageReads {
            by_page,
            forms_apart,
        }
    }

    /// The words rendering `page` reads, with texts kept (or their words
    /// hashed) or not.
    pub(crate) fn get(&self, page: PageId, texts: bool) -> Option<&ReadWords> {
        let both = self.by_page.get(usize::try_from(page).ok()?)?;
        Some(&both[usize::from(texts)])
    }

    /// How a render of `page` without texts is keyed apart from its form
    /// variables (`None` for a page whose structure cannot be).
    pub(crate) fn forms_apart(&self, page: PageId) -> Option<&FormsApart> {
        self.forms_apart.get(usize::try_from(page).ok()?)?.as_ref()
    }
}

impl crate::jit::JitSite {
    /// The words rendering `page` can read (see the module header), with
    /// texts kept or their words hashed, or neither: a render of the page
    /// gives the same structure whatever the other words hold.
    pub fn page_reads(&self, page: PageId, texts: bool) -> Option<&ReadWords> {
        self.page_reads.get(page, texts)
    }

    /// For a page whose structure can be keyed apart from its form
    /// variables (`ir::rendered::form_use`), the words a render without
    /// texts reads but the form variables, and the form elements whose
    /// values it reads beyond their handles and whole arguments: two
    /// states equal on those words and in those values render the page
    /// alike but for the other form values, which `refill_forms` writes
    /// in (`render/forms.rs`). `None` for other pages.
    pub fn page_reads_forms_apart(&self, page: PageId) -> Option<&FormsApart> {
        self.page_reads.forms_apart(page)
    }

    /// One past the largest text id `page`'s code holds as a constant (0
    /// for none; `None` for a page not compiled): a render reads the pool
    /// at those ids besides the ids its words hold.
    pub(crate) fn page_texts_end(&self, page: PageId) -> Option<usize> {
        let native = self.page(page)?.status.as_ref().ok()?;
        Some(native.texts_end)
    }
}

fn ranges(
    program: &ir::Program,
    layout: &StateLayout,
    index: usize,
    page: &ir::PageDef,
    texts: bool,
) -> Vec<Range<usize>> {
    let mut locs = reads::Locs::new();
    reads::page_reads(program, page, texts, &mut locs);
    let slots = layout.form_slots.get(index).into_iter().flatten().flatten();
    for slot in slots {
        reads::render_reads(program, &slot.ty, &mut locs);
    }
    let mut out = vec![layout.navigation()];
    for loc in locs {
        layout.bytes_of(loc, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_read_when_any_of_its_bytes_is() {
        let words = ReadWords::of(&[9..10, 16..24, 30..30, 200..209], 256);
        let read: Vec<usize> = (0..40).filter(|&j| words.contains(j)).collect();
        assert_eq!(read, [1, 2, 25, 26]);
    }
}
