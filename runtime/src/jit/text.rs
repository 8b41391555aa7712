//! Page text over the flat state: a value word rendered the way
//! `interp::render` renders the value it encodes (§2.2), rows by their `name`
//! field read straight from the table's column.
//!
//! The page walk (`render`) calls [`render_word`] for every interpolation in
//! a label, so observations carry the interpreter's exact texts without ever
//! decoding the state. The value's kind comes from the compiled function's
//! [`Tag`] (as the interpreter renders by the value's own variant); the
//! static type is consulted only where the value alone cannot say what to
//! show: an enum's variant names and a row's table.

use super::{JitFault, Tag};
use crate::interp::state::idx;
use crate::ir::{self, Ty};
use crate::layout::{StateLayout, TableLayout, TextPool, WORD};
use crate::value::{Date, Money, Time};
use std::cell::RefCell;
use std::fmt::Write;
use std::sync::Arc;

/// A row's `name` may name a row whose `name` names a row…; past this depth
/// (a cycle) rows show as `#<id>`, as in the interpreter.
const MAX_NAME_DEPTH: u8 = 8;

/// What renders a word: the program, its layout, the state and its pool.
pub(super) struct TextCtx<'a> {
    pub program: &'a ir::Program,
    pub layout: &'a StateLayout,
    pub state: &'a [u8],
    pub pool: &'a TextPool,
}

fn corrupt(what: &str) -> JitFault {
    JitFault::Input(format!("the state does not fit the layout: {what}"))
}

impl TextCtx<'_> {
    /// Appends the text of `word` (`None`: `none`, which shows nothing),
    /// a value of kind `tag` and static type `ty`.
    pub fn render_word(
        &self,
        word: Option<i64>,
        tag: Tag,
        ty: &Ty,
        out: &mut String,
    ) -> Result<(), JitFault> {
        self.render_at(word, tag, ty, out, 0)
    }

    fn render_at(
        &self,
        word: Option<i64>,
        tag: Tag,
        ty: &Ty,
        out: &mut String,
        depth: u8,
    ) -> Result<(), JitFault> {
        let Some(w) = word else { return Ok(()) };
        let ty = ty.without_optional();
        // `write!` into a `String` cannot fail.
        let _ = match tag {
            Tag::None => Ok(()),
            Tag::Int => {
                crate::value::push_int(w, out);
                Ok(())
            }
            Tag::Money => {
                Money(w).push_to(out);
                Ok(())
            }
            Tag::Bool => {
                out.push_str(if w != 0 { "yes" } else { "no" });
                Ok(())
            }
            Tag::Text => {
                let text = u32::try_from(w)
                    .ok()
                    .and_then(|id| self.pool.get(id))
                    .ok_or_else(|| JitFault::Input(format!("text id {w} is not in the pool")))?;
                out.push_str(text);
                Ok(())
            }
            Tag::Date => {
                let d = Date::from_day_number(w).ok_or_else(|| corrupt("a date"))?;
                d.push_to(out);
                Ok(())
            }
            Tag::Time => {
                let t = u8::try_from(w.div_euclid(60))
                    .ok()
                    .zip(u8::try_from(w.rem_euclid(60)).ok())
                    .filter(|_| (0..24 * 60).contains(&w))
                    .map(|(hour, minute)| Time { hour, minute })
                    .ok_or_else(|| corrupt("a time"))?;
                t.push_to(out);
                Ok(())
            }
            Tag::Enum => {
                let name =
                    match ty {
                        Ty::Enum(e) => self.program.enums.get(idx(*e)).and_then(|def| {
                            usize::try_from(w).ok().and_then(|i| def.variants.get(i))
                        }),
                        _ => None,
                    };
                match name {
                    Some(n) => {
                        out.push_str(n);
                        Ok(())
                    }
                    None => write!(out, "#{w}"),
                }
            }
            Tag::Row => {
                if !self.row_name(ty, w, out, depth)? {
                    let _ = write!(out, "#{w}");
                }
                Ok(())
            }
        };
        Ok(())
    }

    /// Appends the row's `name` field when its table has one and the row
    /// exists; `false` means "show `#<id>`".
    fn row_name(&self, ty: &Ty, id: i64, out: &mut String, depth: u8) -> Result<bool, JitFault> {
        let Ty::Row(table) = ty else { return Ok(false) };
        if depth >= MAX_NAME_DEPTH {
            return Ok(false);
        }
        let Some(def) = self.program.tables.get(idx(*table)) else {
            return Ok(false);
        };
        let Some(at) = def.fields.iter().position(|f| f.name == "name") else {
            return Ok(false);
        };
        let (Some(field), Some(tl)) = (def.fields.get(at), self.layout.tables.get(idx(*table)))
        else {
            return Ok(false);
        };
        let Some(row) = self.row_index(tl, id)? else {
            return Ok(false);
        };
        let cells = tl.columns.get(at).ok_or_else(|| corrupt("a column"))?;
        let present = *self
            .state
            .get(cells.present_at(row))
            .ok_or_else(|| corrupt("a presence byte"))?;
        let word = i64_at(self.state, cells.word_at(row)).ok_or_else(|| corrupt("a cell"))?;
        let word = (present != 0).then_some(word);
        self.render_at(word, Tag::of_ty(&field.ty), &field.ty, out, depth + 1)?;
        Ok(true)
    }

    /// The slot of row `id` in its table ([`row_slot`]), after checking the
    /// row count.
    fn row_index(
        &self,
        tl: &crate::layout::TableLayout,
        id: i64,
    ) -> Result<Option<usize>, JitFault> {
        let n = u32_at(self.state, tl.count).ok_or_else(|| corrupt("a row count"))?;
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if n > tl.capacity {
            return Err(corrupt("a row count past the capacity"));
        }
        // The state has the layout's size (checked where the render
        // starts), so every id slot below the capacity can be read.
        Ok(row_slot(self.state, tl, n, id))
    }
}

/// The slot of row `id` among the first `n` rows of the table laid out as
/// `tl`, `None` when none holds it (or the bytes end first).
///
/// Rows are given ids 1, 2, 3… in order (`TableState::issue_id`, and seed
/// rows from 1), so a row with no deleted row before it sits at slot
/// `id - 1`: that slot is tried first, then a binary search over the
/// sorted ids. Ids are distinct, so a slot holding `id` is its slot however
/// it was found. The compiled lookup (`codegen/rows.rs`) guesses the same
/// way.
pub(super) fn row_slot(bytes: &[u8], tl: &TableLayout, n: usize, id: i64) -> Option<usize> {
    let guess = id.checked_sub(1).and_then(|g| usize::try_from(g).ok());
    if let Some(g) = guess.filter(|&g| g < n) {
        if i64_at(bytes, tl.ids + WORD * g) == Some(id) {
            return Some(g);
        }
    }
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let v = i64_at(bytes, tl.ids + WORD * mid)?;
        match v.cmp(&id) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(mid),
        }
    }
    None
}

/// The little-endian `u32` at `at`, if the bytes reach that far.
pub(super) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(b.try_into().ok()?))
}

/// The little-endian `i64` at `at`, if the bytes reach that far.
pub(super) fn i64_at(bytes: &[u8], at: usize) -> Option<i64> {
    let b = bytes.get(at..at.checked_add(WORD)?)?;
    Some(i64::from_le_bytes(b.try_into().ok()?))
}

/// What a text expression's helper (`helpers::text_interp`) needs besides
/// the state and the pool: the program and its layout, shared by every
/// template of a site.
pub(crate) struct TextEnv {
    pub program: ir::Program,
    pub layout: StateLayout,
}

/// A text expression with interpolations (`Expr::Text` used as a value),
/// compiled: the literal pieces around the interpolations and, per
/// interpolation, the kind of the value the code computes and the static
/// type it is rendered by. `lits` has one more piece than `interps`:
/// `lits[0] interp₀ lits[1] interp₁ … lits[n]`.
pub(crate) struct Template {
    pub env: Arc<TextEnv>,
    pub lits: Vec<String>,
    pub interps: Vec<(Tag, Ty)>,
}

impl Template {
    /// The text of the interpolations' values `values`
    /// (`[word₀, present₀, word₁, present₁, …]`), rendered as
    /// `interp::render::try_render_text` renders them, on `state` (bytes of
    /// `env.layout`) whose texts are in `pool`.
    pub fn render(
        &self,
        state: &[u8],
        pool: &TextPool,
        values: &[i64],
    ) -> Result<String, JitFault> {
        let ctx = TextCtx {
            program: &self.env.program,
            layout: &self.env.layout,
            state,
            pool,
        };
        let mut out = String::new();
        let mut lits = self.lits.iter();
        if let Some(first) = lits.next() {
            out.push_str(first);
        }
        for (i, ((tag, ty), lit)) in self.interps.iter().zip(lits).enumerate() {
            let word = values.get(2 * i).copied();
            let present = values.get(2 * i + 1).copied();
            let (Some(word), Some(present)) = (word, present) else {
                return Err(JitFault::Input("too few interpolated values".into()));
            };
            ctx.render_word((present != 0).then_some(word), *tag, ty, &mut out)?;
            out.push_str(lit);
        }
        Ok(out)
    }
}

/// The templates a site's code refers to, collected while it is lowered.
/// Each is behind an `Arc` whose address the code embeds; the site keeps
/// them (`into_list`) for as long as its code lives.
pub(crate) struct Templates {
    env: Arc<TextEnv>,
    list: RefCell<Vec<Arc<Template>>>,
}

impl Templates {
    pub fn new(program: &ir::Program, layout: &StateLayout) -> Templates {
        Templates {
            env: Arc::new(TextEnv {
                program: program.clone(),
                layout: layout.clone(),
            }),
            list: RefCell::new(Vec::new()),
        }
    }

    /// Registers a template; its address, valid as long as the list
    /// `into_list` returns is kept.
    pub fn add(&self, lits: Vec<String>, interps: Vec<(Tag, Ty)>) -> *const Template {
        let t = Arc::new(Template {
            env: self.env.clone(),
            lits,
            interps,
        });
        let at = Arc::as_ptr(&t);
        self.list.borrow_mut().push(t);
        at
    }

    pub fn into_list(self) -> Vec<Arc<Template>> {
        self.list.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `row_slot` against a scan of every slot: tables whose ids start at
    /// 1 and run without gaps (the guess hits), with rows deleted before,
    /// between and after, starting past 1, and ids that are no row's.
    #[test]
    fn a_row_is_found_at_its_slot_whether_the_guess_hits_or_not() {
        let tl = TableLayout {
            count: 0,
            high: 8,
            capacity: 8,
            ids: 16,
            columns: Vec::new(),
        };
        let tables: [&[i64]; 6] = [
            &[],
            &[1, 2, 3, 4, 5],
            &[2, 3, 4],
            &[1, 3, 4, 7],
            &[1, 2, 3, 9, 10, 11, 12, 13],
            &[-4, 0, 2],
        ];
        let (mut hits, mut searched) = (0, 0);
        for ids in tables {
            let mut bytes = vec![0u8; 16 + WORD * 8];
            for (slot, id) in ids.iter().enumerate() {
                let at = 16 + WORD * slot;
                bytes[at..at + WORD].copy_from_slice(&id.to_le_bytes());
            }
            for id in -5..16 {
                let want = ids.iter().position(|&x| x == id);
                assert_eq!(
                    row_slot(&bytes, &tl, ids.len(), id),
                    want,
                    "{id} in {ids:?}"
                );
                match want {
                    Some(slot) if i64::try_from(slot + 1) == Ok(id) => hits += 1,
                    Some(_) => searched += 1,
                    None => {}
                }
            }
            // A slot past the rows is never read as one.
            assert_eq!(row_slot(&bytes, &tl, 0, 1), None);
        }
        // Both ways of finding a row were taken.
        assert!(hits > 5 && searched > 5, "{hits} {searched}");
    }
}
