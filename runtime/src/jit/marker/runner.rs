//! The runner: [`JitSite::run_marker`] and [`JitSite::run_marker_alert`] —
//! `requires`, the compiled body on the bytes in place, the gate on the
//! bytes, the `go` arguments — giving `interp::exec::run_marker`'s outcome,
//! with the undo log replayed on a rejection.

use super::*;

/// The value a compiled value of kind `tag` stands for.
pub(crate) fn value_of(tag: Tag, word: i64, present: bool, pool: &TextPool) -> Option<Value> {
    if !present {
        return Some(Value::None);
    }
    Some(match tag {
        Tag::None => Value::None,
        Tag::Int => Value::Int(word),
        Tag::Money => Value::Money(word),
        Tag::Bool => Value::Bool(word != 0),
        Tag::Text => Value::Text(pool.get(u32::try_from(word).ok()?)?.clone()),
        Tag::Date => Value::Date(Date::from_day_number(word)?),
        Tag::Time => Value::Time(Time {
            hour: u8::try_from(word / 60).ok()?,
            minute: u8::try_from(word % 60).ok()?,
        }),
        Tag::Enum => Value::Enum(u32::try_from(word).ok()?),
        Tag::Row => Value::Row(word),
    })
}

/// The flat state after a body, for the gate's shared value checks
/// (`gate::check_written`): a cell reads as its presence byte and word, the
/// typed layout ruling out values of another kind.
struct FlatAfter<'a> {
    layout: &'a StateLayout,
    bytes: &'a [u8],
}

impl FlatAfter<'_> {
    fn read(&self, cells: Cells, i: usize, base: &Ty) -> gate::Read {
        let present = self.bytes.get(cells.present_at(i)).is_some_and(|&p| p != 0);
        if !present {
            return gate::Read::None;
        }
        let Some(word) = i64_at(self.bytes, cells.word_at(i)) else {
            return gate::Read::WrongKind;
        };
        match base {
            Ty::Enum(_) => gate::Read::Variant(word),
            Ty::Row(_) => gate::Read::Row(word),
            _ => gate::Read::Fine,
        }
    }
}

impl gate::After for FlatAfter<'_> {
    fn rows(&self, table: ir::TableId) -> Option<usize> {
        row_count(self.bytes, self.layout, idx(table))
    }

    fn has_row(&self, table: ir::TableId, id: i64) -> bool {
        find_row(self.bytes, self.layout, idx(table), id).is_some()
    }

    fn field(&self, table: ir::TableId, id: i64, field: usize, base: &Ty) -> Option<gate::Read> {
        let Some(tl) = self.layout.tables.get(idx(table)) else {
            return Some(gate::Read::WrongKind);
        };
        let at = find_row(self.bytes, self.layout, idx(table), id)?;
        Some(match tl.columns.get(field) {
            Some(cells) => self.read(*cells, at, base),
            None => gate::Read::WrongKind,
        })
    }

    fn session(&self, s: ir::SessionId, base: &Ty) -> Option<gate::Read> {
        let i = idx(s);
        (i < self.layout.session.len).then(|| self.read(self.layout.session, i, base))
    }
}

/// The gate's value checks (`gate::validate_commit` without permissions and
/// invariants) on the bytes after the body: the interpreter's sequence, over
/// the flat state.
pub(crate) fn values_fit(
    program: &ir::Program,
    layout: &StateLayout,
    bytes: &[u8],
    delta: &Delta,
) -> bool {
    gate::check_written(program, &FlatAfter { layout, bytes }, delta).is_ok()
}

impl JitSite {
    /// Whether marker `marker` runs natively.
    pub fn marker_is_compiled(&self, marker: MarkerId) -> bool {
        self.markers
            .get(idx(marker))
            .is_some_and(|m| m.status.is_ok())
    }

    /// Why marker `marker` is not compiled, if it is not.
    pub fn marker_fallback_reason(&self, marker: MarkerId) -> Option<&JitError> {
        self.markers
            .get(idx(marker))
            .and_then(|m| m.status.as_ref().err())
    }

    /// `(compiled, fallback)` over the site's markers.
    pub fn marker_stats(&self) -> (usize, usize) {
        let compiled = self.markers.iter().filter(|m| m.status.is_ok()).count();
        (compiled, self.markers.len() - compiled)
    }

    /// Every marker's name and, when it is not compiled, why.
    pub fn marker_fallbacks(&self) -> Vec<(&str, &JitError)> {
        self.markers
            .iter()
            .filter_map(|m| m.status.as_ref().err().map(|e| (m.name.as_str(), e)))
            .collect()
    }

    /// Runs marker `marker` with `args` on `state` (bytes of this site's
    /// layout, encoded with `pool` or a pool grown from it), in place: the
    /// outcome of `interp::exec::run_marker` on the decoded state, and on a
    /// commit the bytes of its new world; on a rejection the bytes are
    /// exactly as they were. `undo` is scratch memory (left empty).
    ///
    /// `Err` means nothing was changed and the interpreter must run the step:
    /// the marker is not compiled ([`JitFault::NotCompiled`]) or the inputs do
    /// not fit the code ([`JitFault::Input`]: a state of another size, an
    /// argument of another kind than its parameter or an enum index out of
    /// range, a pool without the code's text constants).
    pub fn run_marker(
        &self,
        marker: MarkerId,
        state: &mut [u8],
        args: &[Value],
        pool: &mut TextPool,
        undo: &mut UndoLog,
    ) -> Result<MarkerOutcome, JitFault> {
        self.run(
            marker,
            state,
            Args::values(args),
            pool,
            undo,
            None,
            Held::NONE,
        )
    }

    /// [`JitSite::run_marker`], and on a rejection the alert the interpreter
    /// gives (`exec::Outcome::Rejected`'s), written to `alert`; messages
    /// with interpolations intern the texts they compute into `pool`. Which
    /// outcome, and the bytes, are those of `run_marker`.
    pub fn run_marker_alert(
        &self,
        marker: MarkerId,
        state: &mut [u8],
        args: &[Value],
        pool: &mut TextPool,
        undo: &mut UndoLog,
        alert: &mut String,
    ) -> Result<MarkerOutcome, JitFault> {
        alert.clear();
        let args = Args::values(args);
        self.run(marker, state, args, pool, undo, Some(alert), Held::NONE)
    }

    /// The runner; with `alert`, a rejection's text is rendered into it (on
    /// the bytes as the refusal found them, before any rollback). `held`:
    /// the invariants known to hold on `state` (`alone.rs`), which a commit
    /// may check row by row.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        marker: MarkerId,
        state: &mut [u8],
        args: Args<'_>,
        pool: &mut TextPool,
        undo: &mut UndoLog,
        alert: Option<&mut String>,
        held: Held,
    ) -> Result<MarkerOutcome, JitFault> {
        let mut frames = std::mem::take(&mut undo.frames);
        let mut scratch = std::mem::take(&mut undo.scratch);
        let lent = Lent {
            frames: &mut frames,
            scratch: &mut scratch,
        };
        let outcome = self.run_in(marker, state, args, pool, undo, alert, held, lent);
        undo.frames = frames;
        undo.scratch = scratch;
        outcome
    }

    /// `run` with its frames' buffers (`[arguments, empty]`) lent out.
    #[allow(clippy::too_many_arguments)]
    fn run_in(
        &self,
        marker: MarkerId,
        state: &mut [u8],
        call: Args<'_>,
        pool: &mut TextPool,
        undo: &mut UndoLog,
        mut alert: Option<&mut String>,
        held: Held,
        lent: Lent<'_>,
    ) -> Result<MarkerOutcome, JitFault> {
        let gi = &self.gate;
        let program = &gi.program;
        let args = call.values;
        let mut say = |text: &dyn Fn() -> String| {
            if let Some(a) = alert.as_deref_mut() {
                a.push_str(&text());
            }
        };
        let (Some(def), Some(jm)) = (
            program.markers.get(idx(marker)),
            self.markers.get(idx(marker)),
        ) else {
            say(&|| exec_alert::unknown_marker(marker));
            return Ok(rejected(MarkerRejection::Call));
        };
        if args.len() != def.params.len() {
            say(&|| exec_alert::arity(def, args.len()));
            return Ok(rejected(MarkerRejection::Call));
        }
        let native = jm.status.as_ref().map_err(|_| JitFault::NotCompiled)?;
        if state.len() != gi.layout.size {
            return Err(JitFault::Input(format!(
                "a state of this site has {} bytes, not {}",
                gi.layout.size,
                state.len()
            )));
        }
        for ((arg, &tag), p) in args.iter().zip(&native.params).zip(&def.params) {
            let got = Tag::of(arg);
            if got != tag && got != Tag::None {
                return Err(JitFault::Input(format!(
                    "an argument {arg:?} for a parameter of type {:?}",
                    p.ty
                )));
            }
        }
        check_enum_args(program, def, args)?;
        let texts_ok = pool.holds_all(&native.texts)
            && pool.holds_all(&native.messages.texts)
            && native.gos.iter().all(|g| pool.holds_all(&g.texts));
        if !texts_ok {
            return Err(JitFault::Input(
                "the text pool lacks the code's text constants (use the pool the site was compiled with)".into(),
            ));
        }
        let [frame, empty] = lent.frames;
        match call.words {
            Some(words) => self.frame_of_words(args, words, pool, frame)?,
            None => self
                .frame_into(args, pool, frame)
                .map_err(|e| JitFault::Input(e.to_string()))?,
        }
        let frame = &*frame;
        for index in 0..def.requires.len() {
            let Some(pred) = self.requires(idx(marker), index) else {
                return Err(JitFault::NotCompiled);
            };
            let fault = match pred.eval(state, frame, pool) {
                Ok(true) => continue,
                Ok(false) => None,
                Err(JitFault::Fault(f)) => Some(f),
                Err(other) => return Err(other),
            };
            if let Some(a) = alert {
                let on = self.on(state);
                a.push_str(&match fault {
                    None => native
                        .messages
                        .requires_false(&on, def, index, &frame.cells, pool)?,
                    Some(f) => exec_alert::rejected(program, def, Some(&f)),
                });
            }
            return Ok(rejected(MarkerRejection::Requires { index }));
        }

        undo.clear();
        let scratch = lent.scratch.emptied();
        let (r, delta, go, fault, stop) = {
            // One pointer for the code and its helpers alike.
            let ptr = state.as_mut_ptr();
            let mut bctx = BodyCtx {
                state: ptr,
                len: state.len(),
                program,
                layout: &gi.layout,
                undo: &mut *undo,
                delta: &mut scratch.delta,
                snap: &mut scratch.snap,
                go: None,
                reject: None,
                full: None,
                frame_len: native.slot_tags.len(),
                go_out: &mut scratch.go_out,
            };
            let mut ctx = JitCtx::new(
                pool as *mut TextPool,
                (&mut bctx as *mut BodyCtx<'_>).cast(),
            );
            // SAFETY: `body` was finalized by this site's module, which
            // outlives `&self`. The code reads the state only below the
            // layout's size (checked equal to `state.len()`), the frame only
            // below its parameters (`frame` is padded to the site's widest
            // frame), and writes nothing itself: its helpers write the state
            // through `bctx.state`, the `&mut [u8]` lent for this call and
            // not touched otherwise until the call returns, and reach `pool`
            // and `bctx` through `ctx`, both borrowed for the call alone.
            let r = unsafe { (native.body)(ptr, frame.cells.as_ptr(), &mut ctx) };
            let fault = ctx.fault(r);
            let stop = (bctx.reject, bctx.full);
            (r, bctx.delta, bctx.go, fault, stop)
        };
        if r != 1 {
            if r == code::REJECTED || fault.is_some() {
                // The message is rendered on the state the body left, as
                // the interpreter renders it on its copy of the world.
                let text = match alert {
                    Some(_) => self.stop_alert(&native.messages, def, state, fault, stop, pool),
                    None => Ok(String::new()),
                };
                undo.rollback(state);
                if let Some(a) = alert {
                    a.push_str(&text?);
                }
                return Ok(rejected(MarkerRejection::Body));
            }
            undo.rollback(state);
            return Err(JitFault::Input(format!(
                "the compiled body of `{}` returned {r}",
                def.name
            )));
        }

        // The gate, in `gate::validate_commit`'s order: permissions, values,
        // invariants (capacities were checked by each insert).
        let refusal = match gate::check_permissions(program, def, delta) {
            Err(v) => Some(Ok(v.to_string())),
            Ok(()) if !values_fit(program, &gi.layout, state, delta) => Some(match alert {
                Some(_) => alert::values_violation(&self.on(state), def, delta, pool),
                None => Ok(String::new()),
            }),
            Ok(()) => None,
        };
        if let Some(text) = refusal {
            undo.rollback(state);
            if let Some(a) = alert {
                a.push_str(&text?);
            }
            return Ok(rejected(MarkerRejection::Gate));
        }
        // The invariants' (empty) frame, only for a marker that may check one.
        // It stays empty between runs (the per-row checks put back what they
        // set), so it is built once.
        let built = empty.cells.len() == 2 * self.frame_len && empty.tags.len() == self.frame_len;
        debug_assert!(!built || empty.cells.iter().all(|&c| c == 0));
        let needs_frame = !native.invariants.is_empty() && !built;
        if let Err(e) = needs_frame
            .then(|| self.frame_into(&[], pool, empty))
            .transpose()
        {
            undo.rollback(state);
            return Err(JitFault::Input(e.to_string()));
        }
        debug_assert!(
            (gi.inv_reads.iter().enumerate())
                .filter(|&(i, _)| !native.invariants.contains(&i))
                .all(|(_, reads)| !gate::invariant_affected_by(delta, reads)),
            "`{}` wrote outside its static footprint",
            def.name
        );
        for &i in &native.invariants {
            let Some(reads) = gi.inv_reads.get(i) else {
                continue;
            };
            if !gate::invariant_affected_by(delta, reads) {
                continue;
            }
            match self.invariant_holds(i, held, state, delta, empty, pool) {
                Ok(true) => {}
                Ok(false) | Err(JitFault::Fault(_)) => {
                    undo.rollback(state);
                    if let Some(a) = alert {
                        let name = program.invariants.get(i).map(|d| d.name.clone());
                        let v = gate::Violation::Invariant {
                            name: name.unwrap_or_default(),
                        };
                        a.push_str(&v.to_string());
                    }
                    return Ok(rejected(MarkerRejection::Invariant { index: i }));
                }
                Err(other) => {
                    undo.rollback(state);
                    return Err(other);
                }
            }
        }

        // `go`, on the new state.
        let go = match go {
            None => None,
            Some((n, cells)) => match self.run_go(native, n, state, &cells, pool) {
                Ok(Ok(target)) => Some(target),
                Ok(Err(f)) => {
                    undo.rollback(state);
                    if let Some(a) = alert {
                        a.push_str(&exec_alert::failed(program, &def.name, &f));
                    }
                    return Ok(rejected(MarkerRejection::Body));
                }
                Err(e) => {
                    undo.rollback(state);
                    return Err(e);
                }
            },
        };
        undo.commit();
        Ok(MarkerOutcome::Committed { go })
    }

    /// Evaluates `go` number `n` in its frame snapshot; `Err` with the fault
    /// when an argument faults.
    fn run_go(
        &self,
        native: &MarkerNative,
        n: usize,
        state: &mut [u8],
        cells: &[i64],
        pool: &mut TextPool,
    ) -> Result<Result<(PageId, Vec<Value>), Fault>, JitFault> {
        let gi = &self.gate;
        let go = native
            .gos
            .get(n)
            .ok_or_else(|| JitFault::Input("an unknown `go`".into()))?;
        let mut undo = UndoLog::new();
        let mut scratch = BodyScratch::default();
        let ptr = state.as_mut_ptr();
        let mut bctx = BodyCtx {
            state: ptr,
            len: state.len(),
            program: &gi.program,
            layout: &gi.layout,
            undo: &mut undo,
            delta: &mut scratch.delta,
            snap: &mut scratch.snap,
            go: None,
            reject: None,
            full: None,
            frame_len: 0,
            go_out: &mut scratch.go_out,
        };
        let mut ctx = JitCtx::new(
            pool as *mut TextPool,
            (&mut bctx as *mut BodyCtx<'_>).cast(),
        );
        // SAFETY: `func` was finalized by this site's module, which outlives
        // `&self`. It reads the state below the layout's size (checked by the
        // caller) and the frame `cells` below the body's frame length (the
        // snapshot has a word and a presence for each of the body's slots,
        // the only slots `go` arguments read); it writes only through its
        // helpers, which reach `bctx` and `pool` through `ctx`, both borrowed
        // for the call alone.
        let r = unsafe { (go.func)(ptr, cells.as_ptr(), &mut ctx) };
        if r != 1 {
            return if let Some(f) = ctx.fault(r) {
                Ok(Err(f))
            } else {
                Err(JitFault::Input(format!("a compiled `go` returned {r}")))
            };
        }
        let out = std::mem::take(bctx.go_out);
        let mut args = Vec::with_capacity(go.tags.len());
        for (i, &tag) in go.tags.iter().enumerate() {
            let (word, present) = out.get(i).copied().unwrap_or((0, false));
            let v = value_of(tag, word, present, pool)
                .ok_or_else(|| JitFault::Input("a `go` argument is not a value".into()))?;
            args.push(v);
        }
        Ok(Ok((go.page, args)))
    }
}

/// A marker's arguments: their values, and, where the caller decoded them
/// from words (`layout::from_word`), those words, which the frame takes as
/// they are (`JitSite::frame_of_words`) instead of encoding the values
/// again.
#[derive(Clone, Copy)]
pub(crate) struct Args<'a> {
    pub(crate) values: &'a [Value],
    pub(crate) words: Option<&'a [Option<i64>]>,
}

impl<'a> Args<'a> {
    pub(crate) fn values(values: &'a [Value]) -> Args<'a> {
        Args {
            values,
            words: None,
        }
    }
}

/// What `run` lends `run_in` of the log: the frames (`[arguments, the
/// invariants' empty one]`) and the body's buffers.
struct Lent<'a> {
    frames: &'a mut [JitFrame; 2],
    scratch: &'a mut BodyScratch,
}

pub(crate) fn rejected(cause: MarkerRejection) -> MarkerOutcome {
    MarkerOutcome::Rejected { cause }
}

/// Enum arguments must be variants of their parameter's enum (the code
/// assumes every enum word it reads is one).
pub(crate) fn check_enum_args(
    program: &ir::Program,
    def: &ir::MarkerDef,
    args: &[Value],
) -> Result<(), JitFault> {
    for (arg, p) in args.iter().zip(&def.params) {
        let base = match &p.ty {
            Ty::Optional(inner) => &**inner,
            other => other,
        };
        if let (Value::Enum(v), Ty::Enum(e)) = (arg, base) {
            let variants = program.enums.get(idx(*e)).map_or(0, |d| d.variants.len());
            if idx(*v) >= variants {
                return Err(JitFault::Input(format!(
                    "variant #{v} of a {}-variant enum",
                    variants
                )));
            }
        }
    }
    Ok(())
}

/// `bytes` with the world replaced by `world` (the rest decoded from them and
/// encoded back): the bytes the interpreter's new world has, for comparing
/// engines. `pool` must be the pool `bytes` were encoded with.
pub fn encode_world(
    layout: &StateLayout,
    program: &ir::Program,
    bytes: &[u8],
    world: &crate::interp::exec::World,
    pool: &mut TextPool,
) -> Result<Vec<u8>, LayoutError> {
    let mut state = crate::layout::decode(layout, program, bytes, pool)?;
    state.world = world.clone();
    crate::layout::encode(layout, program, &state, pool)
}
