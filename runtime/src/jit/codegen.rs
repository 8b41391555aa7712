//! Lowering one predicate (`ir::Expr`) to a Cranelift function over the flat
//! state, rule for rule as `interp::eval` evaluates it.
//!
//! A value is a word (`i64`, the layout codec's encoding) with a presence flag
//! for `none` and a static kind. Every `none` has word 0 — the codec's
//! canonical form, kept by everything generated here — so two values of one
//! kind are equal exactly when their presences and words are. The kinds come
//! from the program's declarations (fields, session variables, parameters) and
//! `frames` (task frames); anything the checker could not have produced (an
//! operator on the wrong kinds, a missing table or field) is refused with a
//! reason instead of lowered, and the predicate falls back to the interpreter.
//!
//! Faults return their code at once (`super::code`); evaluation order is
//! eval's, so the same fault wins. Nothing emitted can trap: every divisor is
//! replaced by 1 where the guard already faulted, and every state and frame
//! access is at an offset the layout (with counts clamped to capacities) or the
//! frame length bounds. A scan binder is an SSA value carrying the row's slot
//! as well as its id, so `x.field` inside a quantifier is one load; other row
//! references are found by binary search over the table's sorted ids.

use super::code;
use super::helpers::{self, JitCtx};
use super::text::{Template, Templates};
use super::{JitError, Tag};
use crate::interp::state::idx;
use crate::ir::{self, AggKind, BinaryOp, Expr, RowScan, Slot, TableId, Ty, UnaryOp, Value};
use crate::layout::{Cells, StateLayout, TextPool, WORD};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Block, Endianness, Function, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind, Type, Value as CValue,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use std::collections::BTreeMap;
use std::sync::Arc;

mod builtins;
mod navigation;
mod operators;
mod rows;
mod scans;
mod stmts;
pub(crate) use stmts::{lower_body, lower_value, lower_values, BodyHelpers};

/// Frames never have more slots than this (as in `interp::eval`).
const MAX_SLOTS: usize = 1 << 16;

/// What a predicate is compiled against.
pub(crate) struct Site<'a> {
    pub program: &'a ir::Program,
    pub layout: &'a StateLayout,
    /// The frame's slot types (`None`: unknown).
    pub slots: &'a [Option<Ty>],
    /// Whether `visited` and `page is` may be used (task predicates).
    pub nav: bool,
    /// Whether the state may change while the code runs (marker bodies,
    /// whose helpers write it): state loads are then not `readonly`.
    pub mutable: bool,
    pub config: TargetFrontendConfig,
    /// Where text expressions with interpolations register their templates
    /// (`None`: such expressions are refused).
    pub templates: Option<&'a Templates>,
    /// The helpers a marker body calls (`None` outside marker bodies).
    pub body: Option<&'a BodyHelpers>,
}

/// What the caller needs to run the code besides the function.
pub(crate) struct Lowered {
    pub reads: Vec<(usize, Tag)>,
    pub texts: Vec<(u32, Arc<str>)>,
    pub locals: usize,
    /// For a marker body: the `go` statements, numbered in lowering order.
    pub gos: Vec<ir::PageCall>,
    /// For a marker body: the `reject` messages, numbered in lowering order.
    pub rejects: Vec<Vec<ir::TextPart>>,
}

/// Why a predicate or body is not lowered: [`JitError::Unsupported`] for IR
/// the lowering does not cover (the interpreter runs it instead),
/// [`JitError::Codegen`] for a broken invariant of the lowering itself.
type R<T> = Result<T, JitError>;

fn unsupported(what: impl Into<String>) -> JitError {
    JitError::Unsupported(what.into())
}

fn internal(what: &str) -> JitError {
    JitError::Codegen(format!("internal: {what}"))
}

/// Lowers `expr` as a condition (eval_bool) into `func`, whose signature the
/// caller set.
pub(crate) fn lower(
    site: &Site<'_>,
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    pool: &mut TextPool,
    expr: &Expr,
) -> R<Lowered> {
    let mut g = Gen::start(site, func, fctx, pool)?;
    let holds = g.cond(expr)?;
    let result = g.b.ins().uextend(types::I64, holds);
    g.b.ins().return_(&[result]);
    g.b.seal_all_blocks();
    let Gen {
        b, reads, texts, ..
    } = g;
    b.finalize(site.config);
    let locals = reads.keys().next_back().map_or(0, |&s| s + 1);
    Ok(Lowered {
        reads: reads.into_iter().collect(),
        texts,
        locals,
        gos: Vec::new(),
        rejects: Vec::new(),
    })
}

/// A value's static kind. Rows remember their table when known (a constant
/// row reference does not say it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The literal `none`.
    Null,
    Int,
    Money,
    Bool,
    Text,
    Date,
    Time,
    Enum,
    Row(Option<TableId>),
}

impl Kind {
    fn of_ty(ty: &Ty) -> Kind {
        match ty {
            Ty::Int => Kind::Int,
            Ty::Money => Kind::Money,
            Ty::Bool => Kind::Bool,
            Ty::Text => Kind::Text,
            Ty::Date => Kind::Date,
            Ty::Time => Kind::Time,
            Ty::Enum(_) => Kind::Enum,
            Ty::Row(t) => Kind::Row(Some(*t)),
            Ty::Optional(inner) => Kind::of_ty(inner),
        }
    }

    /// Values of kinds with one class compare as `Value`s do (`Value::Row`
    /// has no table, so rows of any table are one class).
    fn class(self) -> Kind {
        match self {
            Kind::Row(_) => Kind::Row(None),
            k => k,
        }
    }

    /// The kinds `interp::eval`'s `order` accepts.
    fn ordered(self) -> bool {
        matches!(
            self,
            Kind::Int | Kind::Money | Kind::Date | Kind::Time | Kind::Text
        )
    }

    fn tag(self) -> Tag {
        match self {
            Kind::Null => Tag::None,
            Kind::Int => Tag::Int,
            Kind::Money => Tag::Money,
            Kind::Bool => Tag::Bool,
            Kind::Text => Tag::Text,
            Kind::Date => Tag::Date,
            Kind::Time => Tag::Time,
            Kind::Enum => Tag::Enum,
            Kind::Row(_) => Tag::Row,
        }
    }
}

/// Whether a value is present (not `none`).
#[derive(Clone, Copy, Debug)]
enum Pres {
    Yes,
    No,
    /// An `i8`, 0 or 1.
    Dyn(CValue),
}

/// A lowered value.
#[derive(Clone, Copy, Debug)]
struct Val {
    kind: Kind,
    /// An `i64`; 0 when the value is `none`.
    word: CValue,
    present: Pres,
    /// For a row: its slot in the table's columns, when known (valid whenever
    /// the value is present).
    slot: Option<CValue>,
}

/// A helper and its arity (besides the context).
#[derive(Clone, Copy)]
enum Helper {
    Unary(extern "C" fn(*mut JitCtx, i64) -> i64),
    Binary(extern "C" fn(*mut JitCtx, i64, i64) -> i64),
    Ternary(extern "C" fn(*mut JitCtx, i64, i64, i64) -> i64),
}

struct Gen<'a, 'f> {
    b: FunctionBuilder<'f>,
    site: &'a Site<'a>,
    pool: &'a mut TextPool,
    ptr: Type,
    state: CValue,
    locals: CValue,
    ctx: CValue,
    /// Scan binders in scope, innermost last.
    scope: Vec<(Slot, Val)>,
    reads: BTreeMap<usize, Tag>,
    texts: Vec<(u32, Arc<str>)>,
    /// In a marker body: each frame slot of known type as variables (word,
    /// presence as an `i8`) and its kind; empty for predicates, which read
    /// the frame from memory.
    vars: Vec<Option<(Variable, Variable, Kind)>>,
    /// In a marker body: the `go` statements met so far.
    gos: Vec<ir::PageCall>,
    /// In a marker body: the `reject` messages met so far.
    rejects: Vec<Vec<ir::TextPart>>,
    /// Row lookups by a constant id searched before the scan being
    /// lowered, innermost last (`rows.rs`).
    hoisted: Vec<rows::Hoisted>,
}

impl<'a, 'f> Gen<'a, 'f> {
    /// A fresh generator over `func`'s entry block, whose parameters are the
    /// state, the locals and the context (every compiled function's shape).
    fn start(
        site: &'a Site<'a>,
        func: &'f mut Function,
        fctx: &'f mut FunctionBuilderContext,
        pool: &'a mut TextPool,
    ) -> R<Gen<'a, 'f>> {
        let mut b = FunctionBuilder::new(func, fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let &[state, locals, ctx] = params.as_slice() else {
            return Err(internal("the function signature has the wrong arity"));
        };
        Ok(Gen {
            b,
            site,
            pool,
            ptr: site.config.pointer_type(),
            state,
            locals,
            ctx,
            scope: Vec::new(),
            reads: BTreeMap::new(),
            texts: Vec::new(),
            vars: Vec::new(),
            gos: Vec::new(),
            rejects: Vec::new(),
            hoisted: Vec::new(),
        })
    }
}

/// Loads from the state: never trapping (offsets are in bounds), read-only
/// during the call, little-endian as the layout says.
fn state_flags() -> MemFlagsData {
    MemFlagsData::new()
        .with_notrap()
        .with_readonly()
        .with_endianness(Endianness::Little)
}

/// Loads from the frame: native `i64`s.
fn frame_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap().with_readonly()
}

fn offset(at: usize) -> R<i32> {
    i32::try_from(at).map_err(|_| unsupported(format!("offset {at} out of range")))
}

fn at_slot(slot: Slot) -> R<usize> {
    let i = idx(slot);
    if i >= MAX_SLOTS {
        return Err(unsupported(format!("local slot {slot} out of range")));
    }
    Ok(i)
}

impl Gen<'_, '_> {
    // ---- small pieces ---------------------------------------------------------

    /// Flags of state loads: `readonly` unless the code's helpers write the
    /// state (marker bodies), so no load is moved across a write.
    fn sflags(&self) -> MemFlagsData {
        if self.site.mutable {
            MemFlagsData::new()
                .with_notrap()
                .with_endianness(Endianness::Little)
        } else {
            state_flags()
        }
    }

    fn iconst(&mut self, ty: Type, n: i64) -> CValue {
        self.b.ins().iconst(ty, n)
    }

    fn word(&mut self, n: i64) -> CValue {
        self.iconst(types::I64, n)
    }

    /// An `i8` 0/1 for a presence.
    fn pres(&mut self, p: Pres) -> CValue {
        match p {
            Pres::Yes => self.iconst(types::I8, 1),
            Pres::No => self.iconst(types::I8, 0),
            Pres::Dyn(v) => v,
        }
    }

    fn bool_val(&mut self, b: CValue) -> Val {
        let word = self.b.ins().uextend(types::I64, b);
        Val {
            kind: Kind::Bool,
            word,
            present: Pres::Yes,
            slot: None,
        }
    }

    /// The value code after an unconditional fault produces (never used at
    /// run time, but the lowering goes on).
    fn dead(&mut self, kind: Kind) -> Val {
        let word = self.word(0);
        Val {
            kind,
            word,
            present: Pres::No,
            slot: None,
        }
    }

    /// Returns `code` when `cond` (an `i8`) is non-zero; continues otherwise.
    fn fault_if(&mut self, cond: CValue, code: i64) {
        let fault = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(fault);
        self.b.ins().brif(cond, fault, &[], cont, &[]);
        self.b.switch_to_block(fault);
        let c = self.word(code);
        self.b.ins().return_(&[c]);
        self.b.switch_to_block(cont);
    }

    fn fault(&mut self, code: i64) {
        let yes = self.iconst(types::I8, 1);
        self.fault_if(yes, code);
    }

    /// Faults with `NoneValue` unless `v` is present.
    fn require(&mut self, v: &Val) {
        match v.present {
            Pres::Yes => {}
            Pres::No => self.fault(code::NONE_VALUE),
            Pres::Dyn(p) => {
                let absent = self.b.ins().icmp_imm_s(IntCC::Equal, p, 0);
                self.fault_if(absent, code::NONE_VALUE);
            }
        }
    }

    /// Faults with `NoneValue` unless every value is present.
    fn require_all(&mut self, vs: &[Val]) {
        if vs.iter().any(|v| matches!(v.present, Pres::No)) {
            self.fault(code::NONE_VALUE);
            return;
        }
        for v in vs {
            self.require(v);
        }
    }

    fn state_word(&mut self, base: CValue, at: usize) -> R<CValue> {
        let at = offset(at)?;
        let flags = self.sflags();
        Ok(self.b.ins().load(types::I64, flags, base, at))
    }

    fn state_u32(&mut self, at: usize) -> R<CValue> {
        let at = offset(at)?;
        let flags = self.sflags();
        Ok(self.b.ins().uload32(flags, self.state, at))
    }

    /// A presence byte as an `i8` 0/1 (any non-zero byte is present, as the
    /// codec reads it).
    fn state_present(&mut self, base: CValue, at: usize) -> R<CValue> {
        let at = offset(at)?;
        let flags = self.sflags();
        let byte = self.b.ins().load(types::I8, flags, base, at);
        Ok(self.b.ins().icmp_imm_s(IntCC::NotEqual, byte, 0))
    }

    /// Cell `i` (an `i64` value) of `cells`, `i` known to be below its length.
    fn cell_at(&mut self, cells: Cells, i: CValue, kind: Kind) -> R<Val> {
        let words = self.b.ins().ishl_imm_u(i, 3);
        let words = self.b.ins().iadd(self.state, words);
        let word = self.state_word(words, cells.words)?;
        let bytes = self.b.ins().iadd(self.state, i);
        let present = self.state_present(bytes, cells.present)?;
        Ok(Val {
            kind,
            word,
            present: Pres::Dyn(present),
            slot: None,
        })
    }

    /// Cell `i` (a constant) of `cells`.
    fn cell(&mut self, cells: Cells, i: usize, kind: Kind) -> R<Val> {
        if i >= cells.len {
            return Err(unsupported(format!("cell {i} of {}", cells.len)));
        }
        let word = self.state_word(self.state, cells.word_at(i))?;
        let present = self.state_present(self.state, cells.present_at(i))?;
        Ok(Val {
            kind,
            word,
            present: Pres::Dyn(present),
            slot: None,
        })
    }

    /// A `u32` count in the state, clamped to `capacity` so that a corrupt
    /// count cannot lead reads past the room the layout reserved.
    fn count(&mut self, at: usize, capacity: usize) -> R<CValue> {
        let n = self.state_u32(at)?;
        let cap = i64::try_from(capacity).map_err(|_| unsupported("capacity out of range"))?;
        let cap = self.word(cap);
        Ok(self.b.ins().umin(n, cap))
    }

    fn table_layout(&self, table: TableId) -> R<&crate::layout::TableLayout> {
        self.site
            .layout
            .tables
            .get(idx(table))
            .ok_or_else(|| unsupported(format!("unknown table #{table}")))
    }

    /// Calls helper `f` with the context and `args`; its `i64` result.
    fn call(&mut self, f: Helper, args: &[CValue]) -> R<CValue> {
        let (addr, arity) = match f {
            Helper::Unary(f) => (f as *const () as usize, 1),
            Helper::Binary(f) => (f as *const () as usize, 2),
            Helper::Ternary(f) => (f as *const () as usize, 3),
        };
        if args.len() != arity {
            return Err(internal("a helper called with the wrong arity"));
        }
        self.call_addr(addr, args)
    }

    /// Calls the `extern "C"` function at `addr` with the context and `args`
    /// (all `i64`); its `i64` result.
    fn call_addr(&mut self, addr: usize, args: &[CValue]) -> R<CValue> {
        let mut sig = cranelift_codegen::ir::Signature::new(self.site.config.default_call_conv);
        sig.params.push(AbiParam::new(self.ptr));
        for _ in args {
            sig.params.push(AbiParam::new(types::I64));
        }
        sig.returns.push(AbiParam::new(types::I64));
        let sig = self.b.import_signature(sig);
        let addr = i64::try_from(addr).map_err(|_| unsupported("helper address out of range"))?;
        let callee = self.iconst(self.ptr, addr);
        let mut all = vec![self.ctx];
        all.extend_from_slice(args);
        let call = self.b.ins().call_indirect(sig, callee, &all);
        self.b
            .inst_results(call)
            .first()
            .copied()
            .ok_or_else(|| internal("a helper call without a result"))
    }

    // ---- conditions and values ------------------------------------------------

    /// `eval_bool`: an `i8` 0/1; `none` faults.
    fn cond(&mut self, e: &Expr) -> R<CValue> {
        let v = self.expr(e)?;
        match v.kind {
            Kind::Bool => {
                self.require(&v);
                Ok(self.b.ins().icmp_imm_s(IntCC::NotEqual, v.word, 0))
            }
            Kind::Null => {
                self.fault(code::NONE_VALUE);
                Ok(self.iconst(types::I8, 0))
            }
            k => Err(unsupported(format!("a condition of kind {k:?}"))),
        }
    }

    fn expr(&mut self, e: &Expr) -> R<Val> {
        match e {
            Expr::Const(v) => self.constant(v),
            Expr::Local(slot) => self.local(*slot),
            Expr::Session(s) => {
                let def = self
                    .site
                    .program
                    .session
                    .get(idx(*s))
                    .ok_or_else(|| unsupported(format!("unknown session variable #{s}")))?;
                let kind = Kind::of_ty(&def.ty);
                self.cell(self.site.layout.session, idx(*s), kind)
            }
            Expr::Field { row, table, field } => {
                let r = self.expr(row)?;
                self.field(r, *table, *field)
            }
            Expr::RowId(row) => {
                let r = self.expr(row)?;
                match r.kind {
                    Kind::Row(_) => {
                        self.require(&r);
                        Ok(Val {
                            kind: Kind::Int,
                            word: r.word,
                            present: Pres::Yes,
                            slot: None,
                        })
                    }
                    Kind::Null => {
                        self.fault(code::NONE_VALUE);
                        Ok(self.dead(Kind::Int))
                    }
                    k => Err(unsupported(format!("`.id` of a {k:?}"))),
                }
            }
            Expr::Lookup { table, id } => self.lookup(*table, id),
            Expr::Unary(op, e) => {
                let v = self.expr(e)?;
                self.unary(*op, v)
            }
            Expr::Binary(op, l, r) => self.binary(*op, l, r),
            Expr::In(x, items) => self.member(x, items),
            Expr::Exists(scan, body) => {
                self.hoisting_lookups(e, |g| g.quantifier(scan, body, true))
            }
            Expr::All(scan, body) => self.hoisting_lookups(e, |g| g.quantifier(scan, body, false)),
            Expr::Count(scan) => self.hoisting_lookups(e, |g| g.count_rows(scan)),
            Expr::Aggregate { kind, value, scan } => self.hoisting_lookups(e, |g| match kind {
                AggKind::Sum => g.sum(value, scan, Kind::Int),
                AggKind::SumMoney => g.sum(value, scan, Kind::Money),
                AggKind::Min => g.extremum(value, scan, true),
                AggKind::Max => g.extremum(value, scan, false),
            }),
            Expr::Find(scan) => self.hoisting_lookups(e, |g| g.find(scan)),
            Expr::Call(f, args) => self.builtin(*f, args),
            Expr::Text(parts) => self.text(parts),
            Expr::Visited(call) => self.visited(call),
            Expr::PageIs(call) => self.page_is(call),
        }
    }

    fn constant(&mut self, v: &Value) -> R<Val> {
        let (kind, word) = match v {
            Value::None => return Ok(self.dead(Kind::Null)),
            Value::Int(n) => (Kind::Int, *n),
            Value::Money(c) => (Kind::Money, *c),
            Value::Bool(b) => (Kind::Bool, i64::from(*b)),
            Value::Text(s) => {
                let id = self
                    .pool
                    .intern(s)
                    .ok_or_else(|| unsupported("the text pool is full"))?;
                if let Some(held) = self.pool.get(id) {
                    self.texts.push((id, held.clone()));
                }
                (Kind::Text, i64::from(id))
            }
            Value::Date(d) => (Kind::Date, d.day_number()),
            Value::Time(t) => (Kind::Time, i64::from(t.hour) * 60 + i64::from(t.minute)),
            Value::Enum(e) => (Kind::Enum, i64::from(*e)),
            Value::Row(id) => (Kind::Row(None), *id),
        };
        let word = self.word(word);
        Ok(Val {
            kind,
            word,
            present: Pres::Yes,
            slot: None,
        })
    }

    /// A text expression. Every text literal is one (`"abc"` is
    /// `Text([Lit("abc")])`); without interpolations it is a constant,
    /// interned now. With interpolations (`try_render_text`): each is
    /// evaluated in order, the first fault failing the whole expression; then
    /// `helpers::text_interp` renders the values (by their kinds and the
    /// parts' static types) between the literal pieces and interns the text.
    fn text(&mut self, parts: &[ir::TextPart]) -> R<Val> {
        let mut lits = vec![String::new()];
        let mut vals: Vec<(Val, Ty)> = Vec::new();
        for part in parts {
            match part {
                ir::TextPart::Lit(l) => {
                    if let Some(last) = lits.last_mut() {
                        last.push_str(l);
                    }
                }
                ir::TextPart::Interp(e, ty) => {
                    if self.site.templates.is_none() {
                        return Err(unsupported("text interpolation"));
                    }
                    let v = self.expr(e)?;
                    vals.push((v, ty.clone()));
                    lits.push(String::new());
                }
            }
        }
        let Some(templates) = self.site.templates.filter(|_| !vals.is_empty()) else {
            return self.constant(&Value::Text(lits.concat().into()));
        };
        // The values, as `[word₀, present₀, …]` on the stack.
        let size = vals
            .len()
            .checked_mul(2 * WORD)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| unsupported("too many interpolations"))?;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size,
            3,
        ));
        for (i, (v, _)) in vals.iter().enumerate() {
            let at = offset(2 * WORD * i)?;
            self.b.ins().stack_store(self.ptr, v.word, slot, at);
            let p = self.pres(v.present);
            let p = self.b.ins().uextend(types::I64, p);
            let at = offset(2 * WORD * i + WORD)?;
            self.b.ins().stack_store(self.ptr, p, slot, at);
        }
        let values = self.b.ins().stack_addr(self.ptr, slot, 0);
        let interps = vals.into_iter().map(|(v, ty)| (v.kind.tag(), ty)).collect();
        let template = templates.add(lits, interps);
        let template = i64::try_from(template as usize)
            .map_err(|_| unsupported("template address out of range"))?;
        let template = self.iconst(self.ptr, template);

        let mut sig = cranelift_codegen::ir::Signature::new(self.site.config.default_call_conv);
        for _ in 0..4 {
            sig.params.push(AbiParam::new(self.ptr));
        }
        sig.returns.push(AbiParam::new(types::I64));
        let sig = self.b.import_signature(sig);
        let helper: extern "C" fn(*mut JitCtx, *const u8, *const Template, *const i64) -> i64 =
            helpers::text_interp;
        let addr = i64::try_from(helper as *const () as usize)
            .map_err(|_| unsupported("helper address out of range"))?;
        let callee = self.iconst(self.ptr, addr);
        let call =
            self.b
                .ins()
                .call_indirect(sig, callee, &[self.ctx, self.state, template, values]);
        let r = self
            .b
            .inst_results(call)
            .first()
            .copied()
            .ok_or_else(|| internal("a helper call without a result"))?;
        let bad = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, 0);
        self.fault_if(bad, code::TEXT);
        Ok(Val {
            kind: Kind::Text,
            word: r,
            present: Pres::Yes,
            slot: None,
        })
    }

    /// A scan binder in scope, else a frame slot of known type.
    fn local(&mut self, slot: Slot) -> R<Val> {
        if let Some((_, v)) = self.scope.iter().rev().find(|(s, _)| *s == slot) {
            return Ok(*v);
        }
        let i = at_slot(slot)?;
        if !self.vars.is_empty() {
            let Some(Some((w, p, kind))) = self.vars.get(i).copied() else {
                return Err(unsupported(format!("local slot {slot} of unknown type")));
            };
            let word = self.b.use_var(w);
            let present = self.b.use_var(p);
            return Ok(Val {
                kind,
                word,
                present: Pres::Dyn(present),
                slot: None,
            });
        }
        let kind = match self.site.slots.get(i) {
            Some(Some(ty)) => Kind::of_ty(ty),
            _ => return Err(unsupported(format!("local slot {slot} of unknown type"))),
        };
        self.reads.insert(i, kind.tag());
        let at = offset(i * 2 * WORD)?;
        let word = self
            .b
            .ins()
            .load(types::I64, frame_flags(), self.locals, at);
        let at = offset(i * 2 * WORD + WORD)?;
        let present = self
            .b
            .ins()
            .load(types::I64, frame_flags(), self.locals, at);
        let present = self.b.ins().icmp_imm_s(IntCC::NotEqual, present, 0);
        // A `none` in the frame is encoded with word 0 (`JitSite::frame`).
        Ok(Val {
            kind,
            word,
            present: Pres::Dyn(present),
            slot: None,
        })
    }
}
