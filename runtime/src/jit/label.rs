//! Compiled expression functions of one frame and the labels made of them:
//! what a page's walk (`render`) and a refused marker's alert (`alert`) both
//! run. A function returns a condition or a value (word and kind) computed
//! by native code over the flat state and a frame of cells; a label is text
//! with interpolations, rendered as `interp::render::render_text` renders it
//! (each value as the page shows it, a fault as `—`).
//!
//! This module owns running such functions safely (the sizes they rely on
//! are checked per call) and the one rendering of a label; it does not
//! define them (`render::Definer` does) nor decide when they run.

use super::helpers::JitCtx;
use super::label_words::{run_plan, word_plan, Piece, ValueTo, WordOp};
use super::text::TextCtx;
use super::{JitFault, PredFn, Tag};
use crate::interp::eval::Fault;
use crate::interp::render::FAILED;
use crate::ir::{self, Ty};
use crate::layout::{StateLayout, TextPool};
use crate::words::{ShownMemo, ShownWords, TextWords, ValueMemo};
use cranelift_jit::JITModule;
use cranelift_module::FuncId;
use std::sync::Arc;

/// An expression's function: index into the page's functions.
pub(super) type F = usize;

/// A label: literal pieces and interpolated values (each rendered by its
/// function's tag and the interpolation's static type; a fault shows `—`),
/// with the plan of its words (`label_words`).
#[derive(Debug)]
pub(super) struct Label {
    pub parts: Vec<Part>,
    pub words: Vec<WordOp>,
    /// The label shows literal text whatever its values are (so its text is
    /// never empty).
    pub has_literal_text: bool,
}

impl Label {
    pub fn new(parts: Vec<Part>) -> Label {
        let words = word_plan(parts.iter().map(|p| match p {
            Part::Lit(s) => Piece::Lit(s),
            Part::Interp(..) => Piece::Value,
        }));
        let has_literal_text = parts
            .iter()
            .any(|p| matches!(p, Part::Lit(s) if !s.is_empty()));
        Label {
            parts,
            words,
            has_literal_text,
        }
    }
}

#[derive(Debug)]
pub(super) enum Part {
    Lit(Arc<str>),
    Interp(F, Ty),
}

/// How a function's result reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FnKind {
    /// 0, 1 or a fault.
    Cond,
    /// A fault, 0 (`none`) or 1 (the word in `JitCtx::out`), of this kind.
    Value(Tag),
}

/// A defined function: its id, how its result reads, its text constants.
pub(super) type DefinedFn = (FuncId, FnKind, Vec<(u32, Arc<str>)>);

pub(super) struct NativeFn {
    func: PredFn,
    kind: FnKind,
}

/// The finalized functions of `defined`, and their text constants.
pub(super) fn resolve_fns(
    module: &JITModule,
    defined: Vec<DefinedFn>,
) -> (Vec<NativeFn>, Vec<(u32, Arc<str>)>) {
    let mut texts = Vec::new();
    let funcs = defined
        .into_iter()
        .map(|(id, kind, t)| {
            texts.extend(t);
            let code = module.get_finalized_function(id);
            // SAFETY: `code` is the finalized body of a function declared
            // with the predicate signature (three pointers, an `i64`
            // result, the host's C calling convention), which is `PredFn`.
            let func = unsafe { std::mem::transmute::<*const u8, PredFn>(code) };
            NativeFn { func, kind }
        })
        .collect();
    (funcs, texts)
}

/// One frame's functions ready to run: the functions (defined by a
/// [`Definer`] over `frame` slots), the program and layout, the state and
/// the frame's cells. Shared by the page walk and `alert`.
pub(super) struct Calls<'a> {
    pub funcs: &'a [NativeFn],
    pub program: &'a ir::Program,
    pub layout: &'a StateLayout,
    pub state: &'a [u8],
    /// The frame as cells: `[word₀, present₀, …]`.
    pub cells: &'a [i64],
    /// The slots the functions were defined for (each reads below it).
    pub frame: usize,
}

impl Calls<'_> {
    /// Runs function `f`: its raw result and `JitCtx::out`.
    #[inline]
    fn call(&self, f: F, pool: &mut TextPool) -> Result<(i64, JitCtx), JitFault> {
        let native = self
            .funcs
            .get(f)
            .ok_or_else(|| JitFault::Input("internal: no such function".into()))?;
        if self.state.len() != self.layout.size || self.cells.len() < 2 * self.frame {
            return Err(JitFault::Input(
                "internal: a state or frame of the wrong size".into(),
            ));
        }
        let mut ctx = JitCtx::new(pool as *mut TextPool, std::ptr::null_mut());
        // SAFETY: `func` was finalized by the module the site owns, which
        // outlives this call. It reads `state` (whose length is checked
        // equal to the layout's size above) only below that size, and the
        // frame cells only below `2 * frame` (checked above; every function's
        // reads were checked to be within the frame when it was compiled).
        // Its helpers reach the pool through `ctx.pool`, borrowed from
        // `pool` for this call alone. It writes only `ctx`.
        let r = unsafe { (native.func)(self.state.as_ptr(), self.cells.as_ptr(), &mut ctx) };
        Ok((r, ctx))
    }

    fn fault(r: i64, ctx: &JitCtx) -> Fault {
        ctx.fault(r).unwrap_or(Fault::TypeConfusion(
            "compiled code returned an unknown code",
        ))
    }

    /// `eval_bool`: the condition, or its fault.
    #[inline]
    pub fn cond(&self, f: F, pool: &mut TextPool) -> Result<Result<bool, Fault>, JitFault> {
        let (r, ctx) = self.call(f, pool)?;
        Ok(match r {
            0 => Ok(false),
            1 => Ok(true),
            r => Err(Self::fault(r, &ctx)),
        })
    }

    /// `eval`: the value's word (`None` for `none`), or its fault.
    #[inline]
    pub fn value(&self, f: F, pool: &mut TextPool) -> Result<Result<Option<i64>, Fault>, JitFault> {
        let (r, ctx) = self.call(f, pool)?;
        Ok(match r {
            0 => Ok(None),
            1 => Ok(Some(ctx.out)),
            r => Err(Self::fault(r, &ctx)),
        })
    }

    #[inline]
    pub fn tag(&self, f: F) -> Tag {
        match self.funcs.get(f).map(|n| n.kind) {
            Some(FnKind::Value(t)) => t,
            _ => Tag::None,
        }
    }

    /// Appends the text of interpolation `f` (static type `ty`) as the
    /// page shows it: its value, or `—` when its evaluation faults. A value
    /// whose text is a function of its word and the site (`memo_kind`) is
    /// taken from `memo` when it holds it, and put there otherwise.
    fn render_interp(
        &self,
        f: F,
        ty: &Ty,
        pool: &mut TextPool,
        memo: Option<&mut ValueMemo<String>>,
        out: &mut String,
    ) -> Result<(), JitFault> {
        let w = match self.value(f, pool)? {
            Ok(w) => w,
            Err(_) => {
                out.push_str(FAILED);
                return Ok(());
            }
        };
        self.render_value(w, self.tag(f), ty, pool, memo, out)
    }

    /// Appends the text of value `w` (kind `tag`, static type `ty`): from
    /// `memo` when its kind's text is a function of its word and the site
    /// (`memo_kind`) and the memory holds it, rendered and put there
    /// otherwise. Always inlined, as are `label` and the walk's
    /// `label_text`: rustc left these three as calls once they had two
    /// callers each, which cost 6–7% of a whole step with texts
    /// (callgrind, cascade and trailhead).
    #[inline(always)]
    fn render_value(
        &self,
        w: Option<i64>,
        tag: Tag,
        ty: &Ty,
        pool: &mut TextPool,
        memo: Option<&mut ValueMemo<String>>,
        out: &mut String,
    ) -> Result<(), JitFault> {
        let key = w.zip(memo_kind(tag, ty));
        if let (Some((w, kind)), Some(memo)) = (key, memo.as_deref()) {
            if let Some(text) = memo.get(kind, w) {
                out.push_str(text);
                return Ok(());
            }
        }
        let start = out.len();
        let text = TextCtx {
            program: self.program,
            layout: self.layout,
            state: self.state,
            pool,
        };
        text.render_word(w, tag, ty, out)?;
        if let (Some((w, kind)), Some(memo)) = (key, memo) {
            if let Some(kept) = memo.put(kind, w) {
                kept.clear();
                kept.push_str(out.get(start..).unwrap_or_default());
            }
        }
        Ok(())
    }

    /// Appends `label`'s text as `interp::render::render_text` renders it:
    /// each interpolation by its value's kind and static type, one whose
    /// evaluation faults as `—`. `shown` gets every other non-empty
    /// interpolated piece (what the interpreter's page renderer keeps).
    /// `memo`, when given, holds the texts of values shown lately. Always
    /// inlined (see `render_value`).
    #[inline(always)]
    pub fn label(
        &self,
        label: &Label,
        pool: &mut TextPool,
        mut memo: Option<&mut ValueMemo<String>>,
        out: &mut String,
        mut shown: impl FnMut(std::ops::Range<usize>),
    ) -> Result<(), JitFault> {
        for part in &label.parts {
            match part {
                Part::Lit(s) => out.push_str(s),
                Part::Interp(f, ty) => {
                    let start = out.len();
                    self.render_interp(*f, ty, pool, memo.as_deref_mut(), out)?;
                    let piece = out.get(start..).unwrap_or_default();
                    if !piece.is_empty() && piece != FAILED {
                        shown(start..out.len());
                    }
                }
            }
        }
        Ok(())
    }

    /// For an interpolation `f` standing alone between white space (or glue
    /// the words' trim drops, `label_words::glue`): appends
    /// its words' hashes to `out` without rendering its text where it can,
    /// and says whether that text is non-empty. A text value's words are
    /// the pool's (computed once per text); a value whose text is its word's
    /// and the site's alone (`memo_kind`) is rendered (or its text found)
    /// and hashed once, and then found in `memo`. `None` for a value of
    /// another kind, or a fault: render it as text instead.
    fn alone_words(
        &self,
        f: F,
        ty: &Ty,
        pool: &mut TextPool,
        memo: &mut ShownMemo,
        scratch: &mut String,
        out: &mut Vec<u64>,
    ) -> Result<Option<bool>, JitFault> {
        let tag = self.tag(f);
        let Some(kind) = memo_kind(tag, ty) else {
            return self.pooled_words(f, pool, out);
        };
        let w = match self.value(f, pool)? {
            // `none` shows nothing.
            Ok(None) => return Ok(Some(false)),
            Ok(Some(w)) => w,
            Err(_) => return Ok(None),
        };
        if let Some(found) = memo.words.get(kind, w) {
            out.extend_from_slice(found.hashes());
            return Ok(Some(found.nonempty));
        }
        scratch.clear();
        self.render_value(Some(w), tag, ty, pool, Some(&mut memo.texts), scratch)?;
        let nonempty = !scratch.is_empty();
        if let Some(words) = ShownWords::hashing(scratch, nonempty, |h| out.push(h)) {
            if let Some(slot) = memo.words.put(kind, w) {
                *slot = words;
            }
        }
        // The scratch is the label's pending text, which must stay empty.
        scratch.clear();
        Ok(Some(nonempty))
    }

    /// For a text-valued interpolation `f`: appends its words' hashes (the
    /// pool's, computed once per text) to `out`, and whether its text is
    /// non-empty. `None` for a value of another kind, or a fault: render it
    /// as text instead.
    fn pooled_words(
        &self,
        f: F,
        pool: &mut TextPool,
        out: &mut Vec<u64>,
    ) -> Result<Option<bool>, JitFault> {
        if self.tag(f) != Tag::Text {
            return Ok(None);
        }
        let id = match self.value(f, pool)? {
            // `none` shows nothing.
            Ok(None) => return Ok(Some(false)),
            Ok(Some(w)) => u32::try_from(w).ok(),
            Err(_) => return Ok(None),
        };
        let Some(id) = id else { return Ok(None) };
        let nonempty = pool.get(id).is_some_and(|t| !t.is_empty());
        let Some(hashes) = pool.word_hashes(id) else {
            return Ok(None);
        };
        out.extend_from_slice(hashes);
        Ok(Some(nonempty))
    }

    /// Appends the hash of each word of `label`'s text to `out`, hashing only
    /// what its interpolations touch (`label_words`); `scratch` is the pending
    /// text and the memory of pending texts' words.
    /// Whether the text is non-empty.
    pub fn label_words(
        &self,
        label: &Label,
        pool: &mut TextPool,
        scratch: (&mut String, &mut TextWords),
        memo: &mut ShownMemo,
        out: &mut Vec<u64>,
    ) -> Result<bool, JitFault> {
        let mut nonempty = label.has_literal_text;
        run_plan(
            &label.words,
            scratch,
            |i, to| {
                let Some(Part::Interp(f, ty)) = label.parts.get(i) else {
                    return Err(JitFault::Input("internal: a word plan out of step".into()));
                };
                let p = match to {
                    ValueTo::Pending(p) => p,
                    ValueTo::Alone(p, out) => match self.alone_words(*f, ty, pool, memo, p, out)? {
                        Some(shown) => {
                            nonempty |= shown;
                            return Ok(());
                        }
                        None => p,
                    },
                };
                let start = p.len();
                self.render_interp(*f, ty, pool, Some(&mut memo.texts), p)?;
                nonempty |= p.len() > start;
                Ok(())
            },
            out,
        )?;
        Ok(nonempty)
    }
}

/// The memory's kind for values of `tag` (static type `ty`) whose text is a
/// function of their word and the site alone (`words::memo`): the tags
/// whose text is the word's, and each enum type, whose variant names are
/// the program's. `None` for the others: a text (whose words the pool
/// keeps), a row (shown by its `name`, which the state holds), an enum
/// value of another static type (shown as its number), `none`, and enums
/// past the kinds a byte holds.
fn memo_kind(tag: Tag, ty: &Ty) -> Option<u8> {
    /// Kinds from here on are enum types, by id.
    const FIRST_ENUM: u8 = 16;
    match tag {
        Tag::Int => Some(1),
        Tag::Money => Some(2),
        Tag::Bool => Some(3),
        Tag::Date => Some(4),
        Tag::Time => Some(5),
        Tag::Enum => match ty.without_optional() {
            Ty::Enum(e) => u8::try_from(*e).ok()?.checked_add(FIRST_ENUM),
            _ => None,
        },
        Tag::None | Tag::Text | Tag::Row => None,
    }
}
