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
use crate::layout::{StateLayout, TextPool, WORD};
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

    /// The slot of row `id` in its table (ids are kept in increasing order).
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
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let at = i64_at(self.state, tl.ids + WORD * mid).ok_or_else(|| corrupt("a row id"))?;
            match at.cmp(&id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Some(mid)),
            }
        }
        Ok(None)
    }
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
