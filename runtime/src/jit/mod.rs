//! The JIT: a site's goals, progress predicates, invariants and
//! marker `requires` compiled with Cranelift to native functions over the flat
//! state (see [`crate::layout`]).
//!
//! One [`JitSite`] owns one `JITModule` for one program: every predicate is
//! lowered from the IR (`codegen`), the module is finalized once, and its code is
//! freed when the site is dropped. A compiled predicate is an
//! `extern "C" fn(state: *const u8, locals: *const i64, ctx: *mut JitCtx) -> i64`
//! that reads the state at constant offsets and returns 1 (true), 0 (false) or a
//! negative fault code; text operations other than equality call the
//! `extern "C"` helpers of `helpers`, which look strings up in (and intern
//! results into) the [`TextPool`] the state was encoded with. The locals
//! are a [`JitFrame`] (`cells`), built from values or from their words.
//!
//! The interpreter (`interp::eval`) stays the definition: every rule here
//! mirrors it, faults included, and the differential tests
//! (`tests/tests/jit.rs`) demand identical results. Text expressions with
//! interpolations call `helpers::text_interp`, which renders the values
//! with `text` (as `interp::render::try_render_text` does) against a
//! template the site keeps. What the JIT does not handle (an IR the checker
//! could not have produced, a frame slot whose type is unknown) is refused
//! per predicate with
//! [`JitError::Unsupported`]; the caller evaluates that predicate with the
//! interpreter instead. Nothing is ever silently approximated.
//!
//! Marker bodies are compiled too (`marker`, `codegen::stmts`):
//! [`JitSite::run_marker`] runs a marker in place on the flat state, writing
//! through helpers that keep an [`UndoLog`], and gives the interpreter's
//! outcome (`interp::exec::run_marker`); a rejection restores the bytes
//! exactly, and [`JitSite::run_marker_alert`] also gives its alert text
//! (`alert`). Markers the JIT cannot run are reported per marker.
//!
//! Pages are compiled too (`render`): each page's element tree becomes a
//! plan whose expressions are native functions, walked over the flat state
//! to write a [`PageStructure`] — handles, paths, roles and options always,
//! and, as its [`RenderMode`] asks, the labels' texts (rendered as the
//! interpreter renders them) and the hashes of their words, literal words
//! hashed when the site is compiled (`label_words`).
//!
//! [`FlatEnv`] (`step`) plays a whole §5.3 step of a task on the flat bytes
//! with all of the above; the interpreter's `Env` stays the reference
//! (`tests/tests/jit_step.rs`, and `tests/tests/observe_tokens.rs` for the
//! observations the batch writes from word hashes).
//!
//! This module owns the generated code and the calls into it; it does not decide
//! when predicates are evaluated (the environments and the prover do).

// The one place in the workspace that needs `unsafe`: calling generated code
// and letting its helpers reach the text pool through a raw context pointer.
// Every unsafe block says why it is sound.
#![allow(unsafe_code)]

mod alert;
mod cells;
mod codegen;
mod frames;
mod helpers;
mod label;
mod label_words;
mod marker;
mod render;
mod step;
mod text;

#[cfg(test)]
pub(crate) use crate::layout::word_of;
pub use cells::JitFrame;
pub(crate) use marker::Held;
pub use marker::{encode_world, MarkerOutcome, MarkerRejection, UndoLog};
pub use render::reads::{FormsApart, ReadWords};
pub use render::{
    ElementInstance, FaultAt, HandleView, HandleWords, PageStructure, RenderMode, Span,
};
pub(crate) use step::memo_slots;
pub use step::{
    FlatAction, FlatEnv, FlatError, FlatStart, MemoCounts, Probe, Recall, RenderMemo, StartPage,
    DEFAULT_RENDER_MEMO,
};

use crate::interp::eval::Fault;
use crate::ir::{self, unique::UniqueKey, Value};
use crate::layout::{StateLayout, TextPool};
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};
use helpers::JitCtx;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// The signature of every compiled predicate.
type PredFn = unsafe extern "C" fn(*const u8, *const i64, *mut JitCtx) -> i64;

/// Return codes of a compiled predicate besides 0 (false) and 1 (true).
pub(crate) mod code {
    pub const DIVISION_BY_ZERO: i64 = -1;
    pub const NONE_VALUE: i64 = -2;
    /// The table and id are in the context's `missing_*` fields.
    pub const MISSING_ROW: i64 = -3;
    pub const OVERFLOW: i64 = -4;
    /// A text id not in the pool, or a pool that is full.
    pub const TEXT: i64 = -5;
    /// A marker body's `reject`, or an insert into a full table.
    pub const REJECTED: i64 = -6;
    /// A body helper met a state it cannot handle (never for states of the
    /// site's layout).
    pub const INTERNAL: i64 = -7;
    /// Date or time arithmetic left the calendar or the day.
    pub const OUT_OF_RANGE: i64 = -8;
}

/// Which predicate of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PredicateRef {
    /// Task `task`'s `goal`.
    Goal(usize),
    /// Task `task`'s progress predicate `index`.
    Progress(usize, usize),
    /// Invariant `index`.
    Invariant(usize),
    /// Marker `marker`'s `requires` clause `index`.
    Requires(usize, usize),
    /// Uniqueness invariant `index`'s check of one row (`ir::unique`): the
    /// gate's, not the program's, so not among [`JitSite::predicates`].
    Alone(usize),
}

/// Why a site or one of its predicates could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JitError {
    /// The predicate uses something the JIT does not lower (a frame slot of
    /// unknown type, an IR the checker could not have produced); the
    /// interpreter evaluates it instead.
    Unsupported(String),
    /// The host has no Cranelift backend, or Cranelift refused its settings.
    Host(String),
    /// Cranelift refused a function or could not finalize the module (a bug
    /// in the lowering, caught by the verifier in debug builds).
    Codegen(String),
    /// The layout is not the program's, or a frame value cannot be encoded.
    Layout(String),
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JitError::Unsupported(what) => write!(f, "not compiled: {what}"),
            JitError::Host(m) => write!(f, "no JIT on this host: {m}"),
            JitError::Codegen(m) => write!(f, "code generation failed: {m}"),
            JitError::Layout(m) => write!(f, "layout mismatch: {m}"),
        }
    }
}

impl std::error::Error for JitError {}

impl JitError {
    /// The same error, its message prefixed by the construct it arose in.
    pub(crate) fn within(self, place: &str) -> JitError {
        let prefix = |m: String| format!("{place}: {m}");
        match self {
            JitError::Unsupported(m) => JitError::Unsupported(prefix(m)),
            JitError::Host(m) => JitError::Host(prefix(m)),
            JitError::Codegen(m) => JitError::Codegen(prefix(m)),
            JitError::Layout(m) => JitError::Layout(prefix(m)),
        }
    }
}

/// Why a compiled evaluation gave no `bool`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JitFault {
    /// The evaluation failed exactly as the interpreter's would.
    Fault(Fault),
    /// The predicate was not compiled; evaluate it with the interpreter.
    NotCompiled,
    /// The state, frame or pool does not fit the compiled code (wrong size, a
    /// frame value of another type than the code was compiled for, a pool that
    /// lacks the code's text constants). Nothing was run; evaluate with the
    /// interpreter.
    Input(String),
}

impl fmt::Display for JitFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JitFault::Fault(fault) => fault.fmt(f),
            JitFault::NotCompiled => f.write_str("the predicate is not compiled"),
            JitFault::Input(m) => f.write_str(m),
        }
    }
}

/// A frame value's kind, checked against what the code was compiled for (a
/// `none` fits every slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tag {
    None,
    Int,
    Money,
    Bool,
    Text,
    Date,
    Time,
    Enum,
    Row,
}

impl Tag {
    /// The tag of the (non-`none`) values of a declared type.
    pub(crate) fn of_ty(ty: &ir::Ty) -> Tag {
        match ty {
            ir::Ty::Int => Tag::Int,
            ir::Ty::Money => Tag::Money,
            ir::Ty::Bool => Tag::Bool,
            ir::Ty::Text => Tag::Text,
            ir::Ty::Date => Tag::Date,
            ir::Ty::Time => Tag::Time,
            ir::Ty::Enum(_) => Tag::Enum,
            ir::Ty::Row(_) => Tag::Row,
            ir::Ty::Optional(inner) => Tag::of_ty(inner),
        }
    }

    fn of(v: &Value) -> Tag {
        match v {
            Value::None => Tag::None,
            Value::Int(_) => Tag::Int,
            Value::Money(_) => Tag::Money,
            Value::Bool(_) => Tag::Bool,
            Value::Text(_) => Tag::Text,
            Value::Date(_) => Tag::Date,
            Value::Time(_) => Tag::Time,
            Value::Enum(_) => Tag::Enum,
            Value::Row(_) => Tag::Row,
        }
    }

    /// A type with this tag's values, for the codec's `to_word` (which checks
    /// a value against a type; enums and rows encode the same whatever the
    /// enum or table).
    fn ty(self) -> ir::Ty {
        match self {
            Tag::None => ir::Ty::Optional(Box::new(ir::Ty::Int)),
            Tag::Int => ir::Ty::Int,
            Tag::Money => ir::Ty::Money,
            Tag::Bool => ir::Ty::Bool,
            Tag::Text => ir::Ty::Text,
            Tag::Date => ir::Ty::Date,
            Tag::Time => ir::Ty::Time,
            Tag::Enum => ir::Ty::Enum(0),
            Tag::Row => ir::Ty::Row(0),
        }
    }
}

/// What a compiled predicate needs besides its code.
struct Native {
    func: PredFn,
    /// Frame slots the code reads, with the kind it expects there.
    reads: Vec<(usize, Tag)>,
    /// Text constants the code compares ids with: the id it was compiled with
    /// and the pool's string at that id then.
    texts: Vec<(u32, Arc<str>)>,
    /// Slots the frame must have.
    locals: usize,
}

/// One predicate of a site: compiled, or the reason it is not.
///
/// Only ever handed out by reference from its [`JitSite`], which owns the
/// code its function pointer points into.
pub struct JitPredicate {
    what: PredicateRef,
    name: String,
    status: Result<Native, JitError>,
    state_size: usize,
}

impl fmt::Debug for JitPredicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitPredicate")
            .field("what", &self.what)
            .field("name", &self.name)
            .field("compiled", &self.status.is_ok())
            .finish()
    }
}

impl JitPredicate {
    pub fn what(&self) -> PredicateRef {
        self.what
    }

    /// `task \`buy\` goal`, `invariant \`stock\``, ….
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn is_compiled(&self) -> bool {
        self.status.is_ok()
    }

    /// Why the predicate was not compiled, if it was not.
    pub fn fallback_reason(&self) -> Option<&JitError> {
        self.status.as_ref().err()
    }

    /// Evaluates the predicate on `state` (bytes of this site's layout,
    /// encoded with `pool` or a pool it grew into) with `frame`. Text results
    /// of `lower`, `upper` and `trim` are interned into `pool`.
    pub fn eval(
        &self,
        state: &[u8],
        frame: &JitFrame,
        pool: &mut TextPool,
    ) -> Result<bool, JitFault> {
        let native = self.status.as_ref().map_err(|_| JitFault::NotCompiled)?;
        if state.len() != self.state_size {
            return Err(JitFault::Input(format!(
                "a state of this site has {} bytes, not {}",
                self.state_size,
                state.len()
            )));
        }
        if frame.cells.len() < 2 * native.locals || frame.tags.len() < native.locals {
            return Err(JitFault::Input("the frame is too short".into()));
        }
        for &(slot, tag) in &native.reads {
            let got = frame.tags.get(slot).copied().unwrap_or(Tag::None);
            if got != tag && got != Tag::None {
                return Err(JitFault::Input(format!(
                    "frame slot {slot} holds a {got:?}, the code expects a {tag:?}"
                )));
            }
        }
        for (id, text) in &native.texts {
            match pool.get(*id) {
                Some(s) if Arc::ptr_eq(s, text) || **s == **text => {}
                _ => {
                    return Err(JitFault::Input(
                        "the text pool lacks the code's text constants (use the pool the site was compiled with)".into(),
                    ))
                }
            }
        }
        let mut ctx = JitCtx::new(pool as *mut TextPool, std::ptr::null_mut());
        // SAFETY: `func` was finalized by the module this predicate's site
        // owns, and the site outlives `&self`. The code reads `state` only at
        // offsets below the layout's size (checked equal to `state.len()`
        // above; row and list counts are clamped to their capacities) and
        // `frame.cells` only below `2 * locals` (checked above). It writes
        // only `ctx`, a live local, and its helpers reach `pool` through
        // `ctx.pool`, the `&mut TextPool` borrowed for this call and not used
        // elsewhere meanwhile. The code has no traps (division is guarded).
        let r = unsafe { (native.func)(state.as_ptr(), frame.cells.as_ptr(), &mut ctx) };
        match r {
            0 => Ok(false),
            1 => Ok(true),
            r => Err(JitFault::Fault(ctx.fault(r).unwrap_or(
                Fault::TypeConfusion("compiled code returned an unknown code"),
            ))),
        }
    }
}

/// A program's predicates compiled into one JIT module.
pub struct JitSite {
    /// Unique to the process: whose values a page structure's memory of
    /// shown values holds (`words::memo`, `jit::label`), since enum values
    /// show this program's names.
    id: u64,
    /// `None` only while being dropped. Behind a mutex so the site is `Sync`:
    /// the module itself is never touched after finalization, except to free
    /// its memory on drop.
    module: Mutex<Option<JITModule>>,
    predicates: Vec<JitPredicate>,
    index: BTreeMap<PredicateRef, usize>,
    /// Where each task's goal and first progress predicate, the first
    /// invariant, and each marker's first `requires` sit in `predicates`
    /// (which keeps the order `compile` lowers them in): every step and
    /// marker run looks these up, and the map costs more than their check.
    goals_at: Vec<usize>,
    progress_at: Vec<usize>,
    invariants_at: usize,
    requires_at: Vec<usize>,
    frame_len: usize,
    /// Every marker, compiled or not, in program order.
    markers: Vec<marker::JitMarker>,
    /// What `run_marker`'s gate needs of the program.
    gate: marker::GateInfo,
    /// Every page's structure, compiled or not, by page id.
    pages: Vec<render::JitPage>,
    /// What rendering each page can read of the bytes.
    page_reads: render::reads::PageReads,
    /// By task: which steps can change its goal and progress predicates.
    task_depends: Vec<step::TaskDepends>,
    /// The templates of the code's text expressions with interpolations,
    /// whose addresses the code embeds: kept (and never changed) as long as
    /// the code lives.
    _templates: Vec<Arc<text::Template>>,
}

impl fmt::Debug for JitSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitSite")
            .field("predicates", &self.predicates)
            .finish()
    }
}

impl Drop for JitSite {
    fn drop(&mut self) {
        let module = match self.module.get_mut() {
            Ok(m) => m.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(module) = module {
            // SAFETY: the function pointers into this memory live in
            // `self.predicates`, which are only reachable through `&self`; no
            // call can be running (we hold `&mut self`) and none can follow
            // (the site is being dropped).
            unsafe { module.free_memory() };
        }
    }
}

impl JitSite {
    /// Compiles every task goal, progress predicate, invariant and marker
    /// `requires` of `program`. Text constants are interned into `pool`,
    /// which (or a pool grown from a clone of it) must encode the states the
    /// code runs on. A predicate the JIT does not handle is recorded as not
    /// compiled; only a host without a backend or a broken layout fails the
    /// whole site.
    pub fn compile(
        program: &ir::Program,
        layout: &StateLayout,
        pool: &mut TextPool,
    ) -> Result<JitSite, JitError> {
        check_layout(program, layout)?;
        let mut module = new_module()?;
        let mut jobs: Vec<Job<'_>> = Vec::new();
        for (t, task) in program.tasks.iter().enumerate() {
            let slots = frames::task_slots(program, task);
            if let Some(goal) = &task.goal {
                jobs.push(Job {
                    what: PredicateRef::Goal(t),
                    name: format!("task `{}` goal", task.name),
                    expr: goal,
                    slots: slots.clone(),
                    nav: true,
                });
            }
            for (i, (_, p)) in task.progress.iter().enumerate() {
                jobs.push(Job {
                    what: PredicateRef::Progress(t, i),
                    name: format!("task `{}` progress {}", task.name, i + 1),
                    expr: p,
                    slots: slots.clone(),
                    nav: true,
                });
            }
        }
        let unique: Vec<Option<UniqueKey>> = program.invariants.iter().map(UniqueKey::of).collect();
        for (i, inv) in program.invariants.iter().enumerate() {
            jobs.push(Job {
                what: PredicateRef::Invariant(i),
                name: format!("invariant `{}`", inv.name),
                expr: &inv.cond,
                slots: Vec::new(),
                nav: false,
            });
            if let Some(key) = unique.get(i).and_then(Option::as_ref) {
                jobs.push(Job {
                    what: PredicateRef::Alone(i),
                    name: format!("invariant `{}` for one row", inv.name),
                    expr: &key.alone,
                    slots: frames::alone_slots(key),
                    nav: false,
                });
            }
        }
        for (m, marker) in program.markers.iter().enumerate() {
            let slots = frames::marker_slots(marker);
            for (i, req) in marker.requires.iter().enumerate() {
                jobs.push(Job {
                    what: PredicateRef::Requires(m, i),
                    name: format!("marker `{}` requires {}", marker.name, i + 1),
                    expr: &req.cond,
                    slots: slots.clone(),
                    nav: false,
                });
            }
        }

        let templates = text::Templates::new(program, layout);
        let mut ptr_sig = module.make_signature();
        let ptr = module.target_config().pointer_type();
        for _ in 0..3 {
            ptr_sig.params.push(AbiParam::new(ptr));
        }
        ptr_sig.returns.push(AbiParam::new(types::I64));

        // Lower and define every predicate; collect the ids to resolve after
        // finalization.
        let mut defined = Vec::with_capacity(jobs.len());
        let mut ctx = module.make_context();
        for (n, job) in jobs.into_iter().enumerate() {
            let Job {
                what,
                name,
                expr,
                slots,
                nav,
            } = job;
            module.clear_context(&mut ctx);
            ctx.func.signature = ptr_sig.clone();
            // A fresh builder context each time: an abandoned (unsupported)
            // lowering leaves one half-used.
            let mut fctx = FunctionBuilderContext::new();
            let site = codegen::Site {
                program,
                layout,
                slots: &slots,
                nav,
                mutable: false,
                config: module.target_config(),
                templates: Some(&templates),
                body: None,
            };
            let lowered = codegen::lower(&site, &mut ctx.func, &mut fctx, pool, expr);
            let status = match lowered {
                Err(why) => Err(why),
                Ok(out) => {
                    let symbol = format!("wsite_pred_{n}");
                    module
                        .declare_function(&symbol, Linkage::Local, &ptr_sig)
                        .map_err(|e| JitError::Codegen(e.to_string()))
                        .and_then(|id| {
                            ctx.func.name = UserFuncName::user(0, id.as_u32());
                            module
                                .define_function(id, &mut ctx)
                                .map_err(|e| JitError::Codegen(format!("{name}: {e:?}")))?;
                            Ok((id, out))
                        })
                }
            };
            defined.push((what, name, status));
        }
        let compiled = |what: PredicateRef| {
            defined
                .iter()
                .any(|(w, _, status)| *w == what && status.is_ok())
        };
        let marker_defs = marker::define_markers(
            &mut module,
            &mut ctx,
            &ptr_sig,
            program,
            layout,
            pool,
            &templates,
            &compiled,
        );
        let page_defs = render::define_pages(
            &mut module,
            &mut ctx,
            &ptr_sig,
            program,
            layout,
            pool,
            &templates,
        );
        module.clear_context(&mut ctx);
        module
            .finalize_definitions()
            .map_err(|e| JitError::Codegen(e.to_string()))?;

        let state_size = layout.size;
        let mut predicates = Vec::with_capacity(defined.len());
        let mut alone = Vec::new();
        let mut frame_len = 0;
        for (what, name, status) in defined {
            let status = status.map(|(id, out)| {
                let code = module.get_finalized_function(id);
                // SAFETY: `code` is the finalized body of a function declared
                // with `ptr_sig`: three pointer parameters and an `i64` result
                // in the host's default (C) calling convention, which is
                // `PredFn`.
                let func = unsafe { std::mem::transmute::<*const u8, PredFn>(code) };
                frame_len = frame_len.max(out.locals);
                Native {
                    func,
                    reads: out.reads,
                    texts: out.texts,
                    locals: out.locals,
                }
            });
            let predicate = JitPredicate {
                what,
                name,
                status,
                state_size,
            };
            match what {
                PredicateRef::Alone(_) => alone.push(predicate),
                _ => predicates.push(predicate),
            }
        }
        let first = |what: PredicateRef| {
            (predicates.iter())
                .position(|p| p.what == what)
                .unwrap_or(predicates.len())
        };
        let tasks = 0..program.tasks.len();
        let goals_at = tasks
            .clone()
            .map(|t| first(PredicateRef::Goal(t)))
            .collect();
        let progress_at = tasks.map(|t| first(PredicateRef::Progress(t, 0))).collect();
        let invariants_at = first(PredicateRef::Invariant(0));
        let requires_at = (0..program.markers.len())
            .map(|m| first(PredicateRef::Requires(m, 0)))
            .collect();
        let index = predicates
            .iter()
            .enumerate()
            .map(|(i, p)| (p.what, i))
            .collect();
        let markers = marker_defs
            .into_iter()
            .map(|(name, status)| marker::JitMarker {
                name,
                status: status.map(|d| marker::resolve(&module, d)),
            })
            .collect();
        let pages = page_defs
            .into_iter()
            .map(|d| render::resolve(&module, d))
            .collect();
        static SITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Ok(JitSite {
            id: SITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            module: Mutex::new(Some(module)),
            predicates,
            goals_at,
            progress_at,
            invariants_at,
            requires_at,
            index,
            frame_len,
            markers,
            gate: marker::GateInfo {
                program: program.clone(),
                layout: layout.clone(),
                inv_reads: marker::invariant_reads(program),
                unique: marker::Unique::new(unique, alone),
            },
            pages,
            page_reads: render::reads::PageReads::of(program, layout),
            task_depends: step::TaskDepends::of_program(program),
            _templates: templates.into_list(),
        })
    }

    /// The program the site was compiled from.
    pub fn program(&self) -> &ir::Program {
        &self.gate.program
    }

    /// The layout of the states the code reads and writes.
    pub fn layout(&self) -> &StateLayout {
        &self.gate.layout
    }

    /// Every predicate, compiled or not, in program order (goals and progress
    /// per task, invariants, `requires` per marker).
    pub fn predicates(&self) -> &[JitPredicate] {
        &self.predicates
    }

    pub fn predicate(&self, what: PredicateRef) -> Option<&JitPredicate> {
        match what {
            PredicateRef::Alone(i) => self.gate.unique.check(i),
            _ => self.index.get(&what).and_then(|&i| self.predicates.get(i)),
        }
    }

    /// Which steps can change task `task`'s goal and progress predicates.
    pub(crate) fn task_depends(&self, task: usize) -> Option<&step::TaskDepends> {
        self.task_depends.get(task)
    }

    pub fn goal(&self, task: usize) -> Option<&JitPredicate> {
        let first = self.goals_at.get(task).copied().unwrap_or(usize::MAX);
        self.at(first, 0, PredicateRef::Goal(task))
    }

    pub fn progress(&self, task: usize, index: usize) -> Option<&JitPredicate> {
        let first = self.progress_at.get(task).copied().unwrap_or(usize::MAX);
        self.at(first, index, PredicateRef::Progress(task, index))
    }

    pub fn invariant(&self, index: usize) -> Option<&JitPredicate> {
        self.at(self.invariants_at, index, PredicateRef::Invariant(index))
    }

    pub fn requires(&self, marker: usize, index: usize) -> Option<&JitPredicate> {
        let first = self.requires_at.get(marker).copied().unwrap_or(usize::MAX);
        self.at(first, index, PredicateRef::Requires(marker, index))
    }

    /// Predicate `what`, looked for `offset` places after `first` before the
    /// map is asked.
    fn at(&self, first: usize, offset: usize, what: PredicateRef) -> Option<&JitPredicate> {
        let there = first
            .checked_add(offset)
            .and_then(|i| self.predicates.get(i));
        match there {
            Some(p) if p.what == what => Some(p),
            _ => self.predicate(what),
        }
    }

    /// `(compiled, fallback)`: how many predicates run natively and how many
    /// the interpreter must evaluate.
    pub fn compile_stats(&self) -> (usize, usize) {
        let compiled = self.predicates.iter().filter(|p| p.is_compiled()).count();
        (compiled, self.predicates.len() - compiled)
    }
}

/// One predicate to compile.
struct Job<'p> {
    what: PredicateRef,
    name: String,
    expr: &'p ir::Expr,
    /// The frame's slot types.
    slots: Vec<Option<ir::Ty>>,
    /// Whether `visited` and `page is` may occur (task predicates).
    nav: bool,
}

/// A module for the host, with the verifier on in debug builds.
fn new_module() -> Result<JITModule, JitError> {
    let host = |e: &dyn fmt::Display| JitError::Host(e.to_string());
    let mut flags = settings::builder();
    let verifier = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    for (name, value) in [
        ("opt_level", "speed"),
        ("enable_verifier", verifier),
        // cranelift-jit requires non-PIC code and long-range libcalls.
        ("is_pic", "false"),
        ("use_colocated_libcalls", "false"),
    ] {
        flags.set(name, value).map_err(|e| host(&e))?;
    }
    let isa = cranelift_native::builder()
        .map_err(|e| host(&e))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| host(&e))?;
    Ok(JITModule::new(JITBuilder::with_isa(
        isa,
        default_libcall_names(),
    )))
}

/// The layout must be the program's: the lowering trusts its offsets.
/// The generated code reads at the layout's offsets without bounds checks
/// (only the buffer's total size is checked per call), so a layout made any
/// other way than `for_program` — with offsets past its size, say — is refused.
fn check_layout(program: &ir::Program, layout: &StateLayout) -> Result<(), JitError> {
    let own = StateLayout::for_program(program).map_err(|e| JitError::Layout(e.to_string()))?;
    if own != *layout {
        return Err(JitError::Layout(
            "the layout is not the program's (`StateLayout::for_program`)".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
