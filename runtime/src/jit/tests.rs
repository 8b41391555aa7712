//! Unit tests of the JIT: one per tricky rule of `interp::eval`, each run by
//! both engines on the interpreter's fixture (encoded as a flat state), which
//! must agree; plus the refusals (unsupported expressions, frames of the wrong
//! kind, foreign layouts).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::env::State;
use crate::interp::eval::{eval_bool, Navigation};
use crate::interp::exec::World;
use crate::interp::fixture::*;
use crate::ir::{
    AggKind, BinaryOp::*, Builtin, Expr, MarkerDef, PageCall, PageDef, ParamDef, Program, Ty,
    UnaryOp,
};
use std::collections::{BTreeMap, BTreeSet};

mod guards;

/// The fixture with two pages (`Show(p: Product)` and `Home`), a marker whose
/// `requires` are `conds` (parameters `params`) and a template task over
/// Product (binder in slot 0) whose progress predicates are `conds` too.
fn program(conds: &[Expr], params: &[Ty]) -> Program {
    let mut p = crate::interp::fixture::program();
    let page = |name: &str, params: Vec<ParamDef>| PageDef {
        name: name.into(),
        params,
        route: None,
        guards: Vec::new(),
        title: None,
        body: vec![],
        frame: 1,
    };
    p.pages = vec![
        page(
            "Show",
            vec![ParamDef {
                name: "p".into(),
                ty: Ty::Row(PRODUCT),
            }],
        ),
        page("Home", vec![]),
    ];
    p.markers = vec![MarkerDef {
        name: "m".into(),
        params: params
            .iter()
            .enumerate()
            .map(|(i, ty)| ParamDef {
                name: format!("a{i}"),
                ty: ty.clone(),
            })
            .collect(),
        reads: vec![],
        writes: vec![],
        requires: conds
            .iter()
            .map(|c| ir::Requirement {
                cond: c.clone(),
                message: None,
            })
            .collect(),
        body: vec![],
        is_extern: false,
        frame: u32::try_from(params.len()).unwrap(),
    }];
    p.tasks = vec![ir::TaskDef {
        name: "t".into(),
        template: Some(ir::TaskTemplate {
            scan: over(0, PRODUCT, None),
            binder_name: "p".into(),
            limit: None,
        }),
        say: vec![],
        start: None,
        horizon: 4,
        goal: None,
        answer: None,
        progress: conds.iter().map(|c| (1, c.clone())).collect(),
        key: vec![],
        values: vec![],
        setup: vec![],
        frame: 4,
    }];
    p
}

/// On `Show(Product[43])`, having visited `Home` and `Show(Product[42])`.
fn state(program: &Program) -> State {
    let mut visited = BTreeSet::new();
    visited.insert((1, vec![]));
    visited.insert((0, vec![Value::Row(42)]));
    State {
        world: World::initial(program),
        nav: Navigation {
            page: 0,
            args: vec![Value::Row(43)],
            visited,
        },
        forms: BTreeMap::new(),
        step: 0,
        alert: None,
        done: false,
        success: false,
    }
}

/// A program compiled by the JIT, with the fixture state (`state`) and its
/// bytes.
struct Compiled {
    layout: StateLayout,
    pool: TextPool,
    site: JitSite,
    state: State,
    bytes: Vec<u8>,
}

fn compiled(program: &Program) -> Compiled {
    let layout = StateLayout::for_program(program).unwrap();
    let mut pool = TextPool::for_program(program);
    let site = JitSite::compile(program, &layout, &mut pool).unwrap();
    let state = state(program);
    let bytes = crate::layout::encode(&layout, program, &state, &mut pool).unwrap();
    Compiled {
        layout,
        pool,
        site,
        state,
        bytes,
    }
}

/// Whether an interpreter result and a JIT result are the same (type
/// confusions may differ in their messages).
fn same(i: &Result<bool, Fault>, j: &Result<bool, JitFault>) -> bool {
    match (i, j) {
        (Ok(a), Ok(b)) => a == b,
        (Err(Fault::TypeConfusion(_)), Err(JitFault::Fault(Fault::TypeConfusion(_)))) => true,
        (Err(f), Err(JitFault::Fault(g))) => f == g,
        _ => false,
    }
}

/// Runs each of `conds` as a marker `requires` with `args` (and, when `nav`,
/// as a task progress predicate with `Product[50]` bound) in both engines,
/// demands agreement and that every one compiled, and returns the JIT's
/// results.
fn run(conds: &[Expr], params: &[Ty], args: &[Value], nav: bool) -> Vec<Result<bool, JitFault>> {
    let program = program(conds, params);
    let Compiled {
        mut pool,
        site,
        state: s,
        bytes,
        ..
    } = compiled(&program);
    let mut out = Vec::new();
    for (i, cond) in conds.iter().enumerate() {
        let (pred, values, ctx) = if nav {
            let mut frame = vec![Value::None; 4];
            frame[0] = Value::Row(50);
            let ctx = s.world.context(&program, Some(&s.nav));
            (site.progress(0, i).unwrap(), frame, ctx)
        } else {
            let ctx = s.world.context(&program, Some(&s.nav));
            (site.requires(0, i).unwrap(), args.to_vec(), ctx)
        };
        assert!(
            pred.is_compiled(),
            "{cond:?} not compiled: {:?}",
            pred.fallback_reason()
        );
        let frame = site.frame(&values, &mut pool).unwrap();
        let jit = pred.eval(&bytes, &frame, &mut pool);
        let interp = eval_bool(&ctx, &mut values.clone(), cond);
        assert!(
            same(&interp, &jit),
            "{cond:?}: interpreter {interp:?}, jit {jit:?}"
        );
        out.push(jit);
    }
    out
}

fn plain(conds: &[Expr]) -> Vec<Result<bool, JitFault>> {
    run(conds, &[], &[], false)
}

fn fault(f: Fault) -> Result<bool, JitFault> {
    Err(JitFault::Fault(f))
}

fn t(s: &str) -> Expr {
    c(text(s))
}

fn p(field: u32) -> Expr {
    fld(local(0), PRODUCT, field)
}

fn agg(kind: AggKind, value: Expr, s: ir::RowScan) -> Expr {
    Expr::Aggregate {
        kind,
        value: Box::new(value),
        scan: s,
    }
}

fn call(f: Builtin, args: Vec<Expr>) -> Expr {
    Expr::Call(f, args)
}

#[test]
fn overflow_faults_and_min_rem_minus_one_is_zero() {
    let gt0 = |e| bin(Gt, e, int(0));
    let r = plain(&[
        gt0(bin(Add, int(i64::MAX), int(1))),
        gt0(bin(Sub, int(i64::MIN), int(1))),
        gt0(bin(Mul, int(i64::MAX), int(2))),
        gt0(bin(Div, int(i64::MIN), int(-1))),
        bin(Eq, bin(Rem, int(i64::MIN), int(-1)), int(0)),
        gt0(Expr::Unary(UnaryOp::Neg, Box::new(int(i64::MIN)))),
        gt0(call(Builtin::Abs, vec![int(i64::MIN)])),
        bin(Gt, bin(Mul, money(i64::MAX), int(2)), money(0)),
        bin(Eq, bin(Div, int(-7), int(2)), int(-3)),
        bin(Eq, bin(Rem, int(-7), int(3)), int(-1)),
        bin(Eq, bin(Div, int(7), int(-1)), int(-7)),
        bin(Eq, bin(Div, money(-1000), int(3)), money(-333)),
        bin(Eq, bin(Mul, int(3), money(333)), money(999)),
    ]);
    for (i, r) in r.iter().enumerate().take(4) {
        assert_eq!(*r, fault(Fault::Overflow), "case {i}");
    }
    assert_eq!(r[4], Ok(true));
    assert_eq!(r[5], fault(Fault::Overflow));
    assert_eq!(r[6], fault(Fault::Overflow));
    assert_eq!(r[7], fault(Fault::Overflow));
    assert!(r[8..].iter().all(|r| *r == Ok(true)));
}

#[test]
fn division_by_zero_faults_without_trapping() {
    let r = plain(&[
        bin(Eq, bin(Div, int(1), int(0)), int(0)),
        bin(Eq, bin(Rem, int(1), int(0)), int(0)),
        bin(Eq, bin(Div, money(100), int(0)), money(0)),
        bin(Eq, bin(Div, int(i64::MIN), int(0)), int(0)),
        // The divisor comes from the state: Product 43 has no stock.
        bin(
            Gt,
            bin(Div, int(100), fld(at(PRODUCT, 43), PRODUCT, STOCK)),
            int(0),
        ),
    ]);
    assert!(r.iter().all(|r| *r == fault(Fault::DivisionByZero)));
}

#[test]
fn none_values() {
    let restock = |id| fld(at(PRODUCT, id), PRODUCT, RESTOCK);
    let d = c(Value::Date(date("2026-01-01")));
    let r = plain(&[
        bin(Eq, fld(none(), PRODUCT, NAME), t("x")),
        bin(Gt, restock(42), d.clone()),
        bin(Lt, none(), int(3)),
        bin(Eq, restock(42), none()),
        bin(Ne, restock(43), none()),
        bin(Eq, none(), none()),
        bin(Gt, bin(Add, none(), int(1)), int(0)),
        bin(
            Gt,
            call(Builtin::DaysBetween, vec![restock(42), d.clone()]),
            int(0),
        ),
        bin(And, none(), bool_(true)),
        Expr::Unary(UnaryOp::Not, Box::new(none())),
        bin(Eq, fld(c(Value::Row(99)), PRODUCT, NAME), t("x")),
        bin(Eq, Expr::RowId(Box::new(at(PRODUCT, 99))), int(99)),
        bin(Eq, Expr::RowId(Box::new(c(Value::Row(99)))), int(99)),
        // Alias 1 names Alias 2, which names Alias 1.
        bin(
            Eq,
            fld(fld(at(ALIAS, 1), ALIAS, 0), ALIAS, 0),
            c(Value::Row(1)),
        ),
        bin(Eq, Expr::RowId(Box::new(none())), int(1)),
    ]);
    let none_value = fault(Fault::NoneValue);
    let missing = fault(Fault::MissingRow {
        table: PRODUCT,
        id: 99,
    });
    assert_eq!(
        r,
        vec![
            none_value.clone(),
            Ok(false),
            Ok(false),
            Ok(true),
            Ok(true),
            Ok(true),
            none_value.clone(),
            none_value.clone(),
            none_value.clone(),
            none_value.clone(),
            missing.clone(),
            missing,
            Ok(true),
            Ok(true),
            none_value,
        ]
    );
}

#[test]
fn logic_short_circuits_left_to_right() {
    let r = plain(&[
        bin(And, bool_(false), faulty()),
        bin(Or, bool_(true), faulty()),
        bin(And, bool_(true), faulty()),
        bin(Or, bool_(false), faulty()),
        bin(And, faulty(), bool_(false)),
        Expr::Unary(UnaryOp::Not, Box::new(faulty())),
    ]);
    let dz = fault(Fault::DivisionByZero);
    assert_eq!(
        r,
        vec![Ok(false), Ok(true), dz.clone(), dz.clone(), dz.clone(), dz]
    );
}

#[test]
fn membership_stops_at_the_first_match() {
    let within = |x, items| Expr::In(Box::new(x), items);
    let boom = || bin(Div, int(1), int(0));
    let r = plain(&[
        within(int(3), vec![int(1), int(3)]),
        within(int(2), vec![int(1), int(3)]),
        within(int(2), vec![]),
        within(none(), vec![int(1), none()]),
        within(int(1), vec![int(1), boom()]),
        within(int(2), vec![int(1), boom()]),
        within(t("sale"), vec![t("x"), fld(at(TAG, 1), TAG, 0)]),
    ]);
    assert_eq!(
        r,
        vec![
            Ok(true),
            Ok(false),
            Ok(false),
            Ok(true),
            Ok(true),
            fault(Fault::DivisionByZero),
            Ok(true)
        ]
    );
}

#[test]
fn aggregates_and_their_empty_cases() {
    let none_rows = || over(0, EMPTY, None);
    let all = || over(0, PRODUCT, None);
    let is = |e, v: Value| bin(Eq, e, c(v));
    let r = plain(&[
        is(
            agg(AggKind::Sum, fld(local(0), EMPTY, 1), none_rows()),
            Value::Int(0),
        ),
        is(
            agg(AggKind::SumMoney, fld(local(0), EMPTY, 0), none_rows()),
            Value::Money(0),
        ),
        is(
            agg(AggKind::Min, fld(local(0), EMPTY, 1), none_rows()),
            Value::None,
        ),
        is(
            agg(AggKind::Max, fld(local(0), EMPTY, 1), none_rows()),
            Value::None,
        ),
        is(Expr::Count(none_rows()), Value::Int(0)),
        is(Expr::Find(none_rows()), Value::None),
        Expr::Unary(
            UnaryOp::Not,
            Box::new(Expr::Exists(none_rows(), Box::new(bool_(true)))),
        ),
        Expr::All(none_rows(), Box::new(bool_(false))),
        is(
            agg(AggKind::SumMoney, p(PRICE), all()),
            Value::Money(129_900 + 1499 + 500),
        ),
        is(agg(AggKind::Min, p(PRICE), all()), Value::Money(500)),
        is(agg(AggKind::Max, p(NAME), all()), text("ThinkPad X1")),
        is(agg(AggKind::Min, p(NAME), all()), text("Cable")),
        is(
            agg(AggKind::Min, p(RESTOCK), all()),
            Value::Date(date("2026-12-10")),
        ),
        is(agg(AggKind::Sum, int(i64::MAX), all()), Value::Int(0)),
        is(agg(AggKind::Sum, none(), all()), Value::Int(0)),
        is(
            Expr::Count(over(0, PRODUCT, Some(bin(Gt, p(STOCK), int(0))))),
            Value::Int(2),
        ),
        is(
            Expr::Find(over(0, PRODUCT, Some(bin(Lt, p(PRICE), money(10_000))))),
            Value::Row(43),
        ),
    ]);
    assert!(r[..13].iter().all(|r| *r == Ok(true)), "{r:?}");
    assert_eq!(r[13], fault(Fault::Overflow));
    assert_eq!(r[14], fault(Fault::NoneValue));
    assert_eq!(r[15..], [Ok(true), Ok(true)]);
}

#[test]
fn quantifiers_go_in_id_order_and_stop_once_decided() {
    let ratio = bin(Gt, bin(Div, int(100), p(STOCK)), int(0));
    let inner = Expr::Exists(
        over(
            1,
            LINE,
            Some(bin(Eq, fld(local(1), LINE, L_PRODUCT), local(0))),
        ),
        Box::new(bin(Eq, fld(local(1), LINE, L_QTY), int(3))),
    );
    let r = plain(&[
        Expr::Exists(over(0, PRODUCT, None), Box::new(ratio.clone())),
        Expr::All(over(0, PRODUCT, None), Box::new(ratio)),
        Expr::Exists(over(0, PRODUCT, Some(faulty())), Box::new(bool_(true))),
        bin(
            Eq,
            Expr::Find(over(0, PRODUCT, Some(inner))),
            at(PRODUCT, 43),
        ),
        // The binder's old value is back after the scan: slot 0 is a
        // Product in the outer scan and a Line in the inner one.
        Expr::Exists(
            over(0, PRODUCT, None),
            Box::new(bin(
                And,
                Expr::Exists(over(0, LINE, None), Box::new(bool_(true))),
                bin(Eq, p(STOCK), int(10)),
            )),
        ),
    ]);
    assert_eq!(
        r,
        vec![
            Ok(true),
            fault(Fault::DivisionByZero),
            fault(Fault::DivisionByZero),
            Ok(true),
            Ok(true)
        ]
    );
}

#[test]
fn texts_order_by_code_point_and_builtins_intern_their_results() {
    let r = plain(&[
        bin(Lt, t("Z"), t("a")),
        bin(Gt, t("é"), t("z")),
        bin(Lt, t("ab"), t("abc")),
        bin(Ge, t("abc"), t("abc")),
        bin(Eq, call(Builtin::Lower, vec![t("ÀbC")]), t("àbc")),
        bin(Eq, call(Builtin::Upper, vec![t("straße")]), t("STRASSE")),
        bin(Eq, call(Builtin::Trim, vec![t("  a b \n")]), t("a b")),
        bin(Eq, call(Builtin::Len, vec![t("héllo")]), int(5)),
        call(Builtin::Contains, vec![t("ThinkPad"), t("kPa")]),
        call(Builtin::StartsWith, vec![t("ThinkPad"), t("Pad")]),
        call(Builtin::EndsWith, vec![t("ThinkPad"), t("Pad")]),
        call(Builtin::Contains, vec![t("x"), t("")]),
        // A result no constant or state holds yet: interned, then compared.
        bin(Lt, call(Builtin::Upper, vec![t("zz")]), t("a")),
        bin(Eq, call(Builtin::Lower, vec![none()]), t("a")),
        bin(
            Lt,
            fld(at(PRODUCT, 42), PRODUCT, NAME),
            fld(at(PRODUCT, 50), PRODUCT, NAME),
        ),
    ]);
    assert_eq!(
        r,
        vec![
            Ok(true),
            Ok(true),
            Ok(true),
            Ok(true),
            Ok(true),
            Ok(true),
            Ok(true),
            Ok(true),
            Ok(true),
            Ok(false),
            Ok(true),
            Ok(true),
            Ok(true),
            fault(Fault::NoneValue),
            Ok(false),
        ]
    );
}

#[test]
fn dates_times_enums_and_rows() {
    let d = |s| c(Value::Date(date(s)));
    let tm = |s| c(Value::Time(time(s)));
    let between = |a, b| call(Builtin::DaysBetween, vec![a, b]);
    let r = plain(&[
        bin(Eq, between(d("2024-02-28"), d("2024-03-01")), int(2)),
        bin(Eq, between(d("2026-12-10"), d("2026-11-29")), int(-11)),
        bin(
            Eq,
            between(call(Builtin::Today, vec![]), d("2026-12-01")),
            int(2),
        ),
        bin(Lt, d("2026-01-31"), d("2026-02-01")),
        bin(Le, tm("9:05"), tm("10:00")),
        bin(Eq, fld(at(PRODUCT, 43), PRODUCT, STATUS), c(Value::Enum(1))),
        bin(Ne, c(Value::Enum(1)), c(Value::Enum(1))),
        bin(Eq, c(Value::Row(42)), at(PRODUCT, 42)),
        // Rows of different tables with one id are equal `Value`s.
        bin(Eq, at(LINE, 1), at(TAG, 1)),
        // Values of different kinds never are.
        bin(Eq, c(Value::Int(42)), c(Value::Row(42))),
        bin(Eq, call(Builtin::Abs, vec![money(-2500)]), money(2500)),
    ]);
    let expected = [
        true, true, true, true, true, true, false, true, true, false, true,
    ];
    assert_eq!(r, expected.iter().map(|b| Ok(*b)).collect::<Vec<_>>());
}

#[test]
fn frames_hold_parameters_and_none() {
    let params = [
        Ty::Int,
        Ty::Row(PRODUCT),
        Ty::Optional(Box::new(Ty::Text)),
        Ty::Optional(Box::new(Ty::Row(LINE))),
    ];
    let conds = [
        bin(Gt, fld(local(1), PRODUCT, PRICE), money(1000)),
        bin(
            Le,
            bin(Add, local(0), int(1)),
            fld(local(1), PRODUCT, STOCK),
        ),
        bin(Eq, local(2), none()),
        bin(Eq, fld(local(3), LINE, L_QTY), int(2)),
        bin(Eq, local(9), none()),
    ];
    let args = [Value::Int(4), Value::Row(42), Value::None, Value::None];
    let r = run(&conds[..4], &params, &args, false);
    assert_eq!(
        r,
        vec![Ok(true), Ok(true), Ok(true), fault(Fault::NoneValue)]
    );
    let args = [
        Value::Int(5),
        Value::Row(43),
        Value::Text("Cable".into()),
        Value::Row(1),
    ];
    let r = run(&conds[..4], &params, &args, false);
    assert_eq!(r, vec![Ok(true), Ok(false), Ok(false), Ok(true)]);
    // A row deleted since it was bound.
    let args = [Value::Int(0), Value::Row(44), Value::None, Value::Row(9)];
    let r = run(&conds[..4], &params, &args, false);
    let missing = |table, id| fault(Fault::MissingRow { table, id });
    assert_eq!(
        r,
        vec![
            missing(PRODUCT, 44),
            missing(PRODUCT, 44),
            Ok(true),
            missing(LINE, 9)
        ]
    );
    // A slot past the parameters has no known type: not compiled.
    let program = program(&conds, &params);
    let layout = StateLayout::for_program(&program).unwrap();
    let mut pool = TextPool::for_program(&program);
    let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
    let unknown = site.requires(0, 4).unwrap();
    assert!(matches!(
        unknown.fallback_reason(),
        Some(JitError::Unsupported(_))
    ));
    // A frame value of another kind than compiled for is refused, not run.
    let bytes = crate::layout::encode(&layout, &program, &state(&program), &mut pool).unwrap();
    let wrong = site
        .frame(&[Value::Text("4".into()), Value::Row(42)], &mut pool)
        .unwrap();
    let pred = site.requires(0, 1).unwrap();
    assert!(matches!(
        pred.eval(&bytes, &wrong, &mut pool),
        Err(JitFault::Input(_))
    ));
    assert!(matches!(
        pred.eval(&bytes[1..], &wrong, &mut pool),
        Err(JitFault::Input(_))
    ));
    assert_eq!(
        unknown.eval(&bytes, &wrong, &mut pool),
        Err(JitFault::NotCompiled)
    );
}

#[test]
fn navigation_in_task_predicates() {
    let show = |e| PageCall {
        page: 0,
        args: vec![e],
    };
    let home = PageCall {
        page: 1,
        args: vec![],
    };
    let r = run(
        &[
            Expr::PageIs(show(at(PRODUCT, 43))),
            Expr::PageIs(show(at(PRODUCT, 42))),
            Expr::PageIs(home.clone()),
            Expr::Visited(home),
            Expr::Visited(show(at(PRODUCT, 42))),
            Expr::Visited(show(local(0))),
            Expr::Visited(show(none())),
            Expr::Visited(show(at(PRODUCT, 7))),
            // The template binder (Product 50) in the frame.
            bin(Eq, fld(local(0), PRODUCT, NAME), t("Cable")),
        ],
        &[],
        &[],
        true,
    );
    assert_eq!(
        r,
        vec![
            Ok(true),
            Ok(false),
            Ok(false),
            Ok(true),
            Ok(true),
            Ok(false),
            Ok(false),
            fault(Fault::MissingRow {
                table: PRODUCT,
                id: 7
            }),
            Ok(true),
        ]
    );
}

#[test]
fn unsupported_expressions_fall_back_and_are_counted() {
    let conds = [
        bin(Lt, int(1), money(2)),
        bin(Eq, at(99, 1), none()),
        bool_(true),
    ];
    let program = program(&conds, &[]);
    let layout = StateLayout::for_program(&program).unwrap();
    let mut pool = TextPool::for_program(&program);
    let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
    // Each twice: as a `requires` and as a progress predicate.
    assert_eq!(site.compile_stats(), (2, 4));
    assert!(matches!(
        site.requires(0, 0).unwrap().fallback_reason(),
        Some(JitError::Unsupported(_))
    ));
    // `page is` outside a task.
    let mut p = program.clone();
    p.invariants.push(ir::InvariantDef {
        name: "nav".into(),
        cond: Expr::PageIs(PageCall {
            page: 1,
            args: vec![],
        }),
        frame: 0,
    });
    let site = JitSite::compile(&p, &StateLayout::for_program(&p).unwrap(), &mut pool).unwrap();
    assert!(!site.invariant(0).unwrap().is_compiled());
}

#[test]
fn a_foreign_layout_is_refused() {
    let program = program(&[], &[]);
    let mut other = program.clone();
    other.tables[0].capacity += 1;
    let layout = StateLayout::for_program(&other).unwrap();
    let mut pool = TextPool::for_program(&program);
    assert!(matches!(
        JitSite::compile(&program, &layout, &mut pool),
        Err(JitError::Layout(_))
    ));
}

#[test]
fn text_constants_need_the_compile_time_pool() {
    let conds = [bin(Eq, fld(at(TAG, 1), TAG, 0), t("a brand new constant"))];
    let program = program(&conds, &[]);
    let layout = StateLayout::for_program(&program).unwrap();
    let mut pool = TextPool::for_program(&program);
    let site = JitSite::compile(&program, &layout, &mut pool).unwrap();
    let mut fresh = TextPool::for_program(&program);
    let bytes = crate::layout::encode(&layout, &program, &state(&program), &mut fresh).unwrap();
    let frame = site.frame(&[], &mut fresh).unwrap();
    let pred = site.requires(0, 0).unwrap();
    assert!(matches!(
        pred.eval(&bytes, &frame, &mut fresh),
        Err(JitFault::Input(_))
    ));
    let mut grown = pool.clone();
    assert_eq!(pred.eval(&bytes, &frame, &mut grown), Ok(false));
}

#[test]
fn sites_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<JitSite>();
}

mod calendar_and_text;
mod lookups;
mod markers;
mod texts;
