//! The evaluator's tests: operators, quantifiers, aggregates, built-ins
//! and faults on the hand-built fixture program.

use super::super::fixture::*;
use super::*;
use crate::ir::{AggKind, BinaryOp::*, Builtin, Expr, Program, TextPart, Ty, UnaryOp};

struct World {
    program: Program,
    db: Database,
    session: Vec<Value>,
}

impl World {
    fn new() -> World {
        let program = program();
        let db = Database::from_seed(&program);
        let session = program.session.iter().map(|s| s.init.clone()).collect();
        World {
            program,
            db,
            session,
        }
    }

    fn ctx(&self) -> Context<'_> {
        Context {
            program: &self.program,
            db: &self.db,
            session: &self.session,
            nav: None,
        }
    }

    fn run(&self, e: &Expr) -> Result<Value, Fault> {
        eval(&self.ctx(), &mut Vec::new(), e)
    }
}

fn run(e: &Expr) -> Result<Value, Fault> {
    World::new().run(e)
}

fn neg(e: Expr) -> Expr {
    Expr::Unary(UnaryOp::Neg, Box::new(e))
}

fn call(f: Builtin, args: Vec<Expr>) -> Expr {
    Expr::Call(f, args)
}

fn t(s: &str) -> Expr {
    c(text(s))
}

fn agg(kind: AggKind, value: Expr, s: RowScan) -> Expr {
    Expr::Aggregate {
        kind,
        value: Box::new(value),
        scan: s,
    }
}

/// `p.field` where `p` is the binder in slot 0, of Product.
fn p(field: u32) -> Expr {
    fld(local(0), PRODUCT, field)
}

#[test]
fn int_arithmetic_is_checked() {
    assert_eq!(run(&bin(Add, int(7), int(5))), Ok(Value::Int(12)));
    assert_eq!(run(&bin(Sub, int(7), int(10))), Ok(Value::Int(-3)));
    assert_eq!(run(&bin(Mul, int(6), int(7))), Ok(Value::Int(42)));
    assert_eq!(run(&bin(Div, int(7), int(2))), Ok(Value::Int(3)));
    assert_eq!(run(&bin(Div, int(-7), int(2))), Ok(Value::Int(-3)));
    assert_eq!(run(&bin(Rem, int(7), int(3))), Ok(Value::Int(1)));
    assert_eq!(run(&bin(Rem, int(-7), int(3))), Ok(Value::Int(-1)));
    assert_eq!(run(&bin(Add, int(i64::MAX), int(1))), Err(Fault::Overflow));
    assert_eq!(run(&bin(Sub, int(i64::MIN), int(1))), Err(Fault::Overflow));
    assert_eq!(run(&bin(Mul, int(i64::MAX), int(2))), Err(Fault::Overflow));
    assert_eq!(run(&bin(Div, int(i64::MIN), int(-1))), Err(Fault::Overflow));
    assert_eq!(run(&bin(Rem, int(i64::MIN), int(-1))), Ok(Value::Int(0)));
}

#[test]
fn division_and_remainder_by_zero_fault() {
    assert_eq!(run(&bin(Div, int(1), int(0))), Err(Fault::DivisionByZero));
    assert_eq!(run(&bin(Rem, int(1), int(0))), Err(Fault::DivisionByZero));
    assert_eq!(
        run(&bin(Div, money(100), int(0))),
        Err(Fault::DivisionByZero)
    );
    assert_eq!(
        run(&bin(Div, int(i64::MIN), int(0))),
        Err(Fault::DivisionByZero)
    );
}

#[test]
fn money_arithmetic() {
    assert_eq!(
        run(&bin(Add, money(1000), money(250))),
        Ok(Value::Money(1250))
    );
    assert_eq!(
        run(&bin(Sub, money(1000), money(1200))),
        Ok(Value::Money(-200))
    );
    assert_eq!(run(&bin(Mul, money(333), int(3))), Ok(Value::Money(999)));
    assert_eq!(run(&bin(Mul, int(3), money(333))), Ok(Value::Money(999)));
    // Truncation toward zero, both signs.
    assert_eq!(run(&bin(Div, money(1000), int(3))), Ok(Value::Money(333)));
    assert_eq!(run(&bin(Div, money(-1000), int(3))), Ok(Value::Money(-333)));
    assert_eq!(
        run(&bin(Mul, money(i64::MAX), int(2))),
        Err(Fault::Overflow)
    );
    // Not defined by §3: the checker refuses these, the interpreter says so.
    assert!(matches!(
        run(&bin(Add, money(1), int(1))),
        Err(Fault::TypeConfusion(_))
    ));
    assert!(matches!(
        run(&bin(Rem, money(1), int(1))),
        Err(Fault::TypeConfusion(_))
    ));
    assert!(matches!(
        run(&bin(Div, int(1), money(1))),
        Err(Fault::TypeConfusion(_))
    ));
    assert_eq!(run(&bin(Add, none(), int(1))), Err(Fault::NoneValue));
}

#[test]
fn unary_minus_and_not() {
    assert_eq!(run(&neg(int(5))), Ok(Value::Int(-5)));
    assert_eq!(run(&neg(money(-2500))), Ok(Value::Money(2500)));
    assert_eq!(run(&neg(int(i64::MIN))), Err(Fault::Overflow));
    assert_eq!(run(&neg(none())), Err(Fault::NoneValue));
    let not = |e| Expr::Unary(UnaryOp::Not, Box::new(e));
    assert_eq!(run(&not(bool_(true))), Ok(Value::Bool(false)));
    assert_eq!(run(&not(faulty())), Err(Fault::DivisionByZero));
}

#[test]
fn and_or_short_circuit_left_to_right() {
    assert_eq!(
        run(&bin(And, bool_(false), faulty())),
        Ok(Value::Bool(false))
    );
    assert_eq!(run(&bin(Or, bool_(true), faulty())), Ok(Value::Bool(true)));
    assert_eq!(
        run(&bin(And, bool_(true), faulty())),
        Err(Fault::DivisionByZero)
    );
    assert_eq!(
        run(&bin(Or, bool_(false), faulty())),
        Err(Fault::DivisionByZero)
    );
    // The left side goes first, so its fault wins even when the right decides.
    assert_eq!(
        run(&bin(And, faulty(), bool_(false))),
        Err(Fault::DivisionByZero)
    );
    assert_eq!(
        run(&bin(Or, bool_(false), bool_(true))),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        run(&bin(And, bool_(true), bool_(true))),
        Ok(Value::Bool(true))
    );
}

#[test]
fn equality_is_structural_and_none_aware() {
    let yes = Ok(Value::Bool(true));
    let no = Ok(Value::Bool(false));
    assert_eq!(run(&bin(Eq, none(), none())), yes);
    assert_eq!(run(&bin(Eq, none(), int(3))), no);
    assert_eq!(run(&bin(Ne, none(), int(3))), yes);
    assert_eq!(run(&bin(Eq, t("abc"), t("abc"))), yes);
    assert_eq!(run(&bin(Eq, c(Value::Row(42)), at(PRODUCT, 42))), yes);
    assert_eq!(run(&bin(Ne, c(Value::Enum(1)), c(Value::Enum(1)))), no);
}

#[test]
fn ordering_covers_ordered_kinds_and_is_false_with_none() {
    let yes = Ok(Value::Bool(true));
    let no = Ok(Value::Bool(false));
    assert_eq!(run(&bin(Lt, int(2), int(3))), yes);
    assert_eq!(run(&bin(Ge, money(300), money(300))), yes);
    assert_eq!(run(&bin(Gt, money(299), money(300))), no);
    let d = |s| c(Value::Date(date(s)));
    assert_eq!(run(&bin(Lt, d("2026-01-31"), d("2026-02-01"))), yes);
    let tm = |s| c(Value::Time(time(s)));
    assert_eq!(run(&bin(Le, tm("9:05"), tm("10:00"))), yes);
    // Code-point order: uppercase before lowercase, accents after ASCII.
    assert_eq!(run(&bin(Lt, t("Z"), t("a"))), yes);
    assert_eq!(run(&bin(Gt, t("é"), t("z"))), yes);
    assert_eq!(run(&bin(Lt, t("ab"), t("abc"))), yes);
    for op in [Lt, Le, Gt, Ge] {
        assert_eq!(run(&bin(op, int(3), none())), no);
        assert_eq!(run(&bin(op, none(), int(3))), no);
        assert_eq!(run(&bin(op, none(), none())), no);
    }
    assert!(matches!(
        run(&bin(Lt, int(1), money(2))),
        Err(Fault::TypeConfusion(_))
    ));
    assert!(matches!(
        run(&bin(Lt, bool_(false), bool_(true))),
        Err(Fault::TypeConfusion(_))
    ));
}

#[test]
fn membership_is_equality_to_any_item_in_order() {
    let within = |x, items| run(&Expr::In(Box::new(x), items));
    assert_eq!(within(int(3), vec![int(1), int(3)]), Ok(Value::Bool(true)));
    assert_eq!(within(int(2), vec![int(1), int(3)]), Ok(Value::Bool(false)));
    assert_eq!(within(int(2), vec![]), Ok(Value::Bool(false)));
    assert_eq!(within(none(), vec![int(1), none()]), Ok(Value::Bool(true)));
    // Like `or`: stops at the first match, faults before one.
    let boom = || bin(Div, int(1), int(0));
    assert_eq!(within(int(1), vec![int(1), boom()]), Ok(Value::Bool(true)));
    assert_eq!(
        within(int(2), vec![int(1), boom()]),
        Err(Fault::DivisionByZero)
    );
}

#[test]
fn fields_lookups_and_ids() {
    let price = fld(at(PRODUCT, 42), PRODUCT, PRICE);
    assert_eq!(run(&price), Ok(Value::Money(129_900)));
    let chain = fld(fld(at(LINE, 2), LINE, L_PRODUCT), PRODUCT, NAME);
    assert_eq!(run(&chain), Ok(text("Logi M185")));
    assert_eq!(
        run(&fld(at(PRODUCT, 42), PRODUCT, RESTOCK)),
        Ok(Value::None)
    );
    assert_eq!(run(&fld(none(), PRODUCT, NAME)), Err(Fault::NoneValue));
    let gone = fld(c(Value::Row(99)), PRODUCT, NAME);
    assert_eq!(
        run(&gone),
        Err(Fault::MissingRow {
            table: PRODUCT,
            id: 99
        })
    );
    assert_eq!(
        run(&at(PRODUCT, 99)),
        Err(Fault::MissingRow {
            table: PRODUCT,
            id: 99
        })
    );
    assert_eq!(run(&at(PRODUCT, 43)), Ok(Value::Row(43)));
    let id = |e| Expr::RowId(Box::new(e));
    assert_eq!(run(&id(at(PRODUCT, 50))), Ok(Value::Int(50)));
    assert_eq!(run(&id(none())), Err(Fault::NoneValue));
    assert!(matches!(
        run(&fld(at(PRODUCT, 42), PRODUCT, 17)),
        Err(Fault::TypeConfusion(_))
    ));
}

#[test]
fn locals_and_session() {
    let w = World::new();
    let mut frame = vec![Value::Int(1), Value::Row(43)];
    let e = fld(local(1), PRODUCT, STOCK);
    assert_eq!(eval(&w.ctx(), &mut frame, &e), Ok(Value::Int(0)));
    // A slot past the frame's end reads as `none`.
    assert_eq!(eval(&w.ctx(), &mut frame, &local(9)), Ok(Value::None));
    assert_eq!(w.run(&Expr::Session(0)), Ok(Value::Int(7)));
    assert!(matches!(
        w.run(&Expr::Session(3)),
        Err(Fault::TypeConfusion(_))
    ));
}

#[test]
fn exists_and_all() {
    let out_of_stock = bin(Eq, p(STOCK), int(0));
    let exists = |f, body| Expr::Exists(over(0, PRODUCT, f), Box::new(body));
    let all = |f, body| Expr::All(over(0, PRODUCT, f), Box::new(body));
    assert_eq!(
        run(&exists(None, out_of_stock.clone())),
        Ok(Value::Bool(true))
    );
    let cheap = bin(Lt, p(PRICE), money(10_000));
    assert_eq!(
        run(&exists(Some(cheap.clone()), bin(Gt, p(STOCK), int(9)))),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        run(&all(None, bin(Ge, p(STOCK), int(0)))),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        run(&all(None, bin(Gt, p(STOCK), int(0)))),
        Ok(Value::Bool(false))
    );
    assert_eq!(
        run(&all(Some(cheap), bin(Lt, p(STOCK), int(20)))),
        Ok(Value::Bool(true))
    );
    let none_rows = Expr::All(over(0, EMPTY, None), Box::new(bool_(false)));
    assert_eq!(run(&none_rows), Ok(Value::Bool(true)));
    let none_rows = Expr::Exists(over(0, EMPTY, None), Box::new(bool_(true)));
    assert_eq!(run(&none_rows), Ok(Value::Bool(false)));
    // Rows go in id order and the scan stops once decided: 100 / stock is
    // fine for 42 (stock 5) and faults for 43 (stock 0).
    let ratio = bin(Gt, bin(Div, int(100), p(STOCK)), int(0));
    assert_eq!(run(&exists(None, ratio.clone())), Ok(Value::Bool(true)));
    assert_eq!(run(&all(None, ratio)), Err(Fault::DivisionByZero));
    // A faulting filter faults the quantifier.
    assert_eq!(
        run(&exists(Some(faulty()), bool_(true))),
        Err(Fault::DivisionByZero)
    );
}

#[test]
fn nested_scans_see_both_binders() {
    // exists p in Product: exists l in Line: l.product == p and l.qty == 3
    let inner = Expr::Exists(
        over(
            1,
            LINE,
            Some(bin(Eq, fld(local(1), LINE, L_PRODUCT), local(0))),
        ),
        Box::new(bin(Eq, fld(local(1), LINE, L_QTY), int(3))),
    );
    let found = Expr::Find(over(0, PRODUCT, Some(inner)));
    assert_eq!(run(&found), Ok(Value::Row(43)));
}

#[test]
fn scans_grow_the_frame_and_restore_binders() {
    let w = World::new();
    let mut frame = vec![Value::Int(9)];
    let e = Expr::Count(over(3, PRODUCT, None));
    assert_eq!(eval(&w.ctx(), &mut frame, &e), Ok(Value::Int(3)));
    assert_eq!(
        frame,
        vec![Value::Int(9), Value::None, Value::None, Value::None]
    );
    let mut frame = vec![text("kept")];
    let e = Expr::Find(over(0, PRODUCT, Some(faulty())));
    assert_eq!(eval(&w.ctx(), &mut frame, &e), Err(Fault::DivisionByZero));
    assert_eq!(frame, vec![text("kept")]);
    let huge = Expr::Count(over(u32::MAX, PRODUCT, None));
    assert!(matches!(w.run(&huge), Err(Fault::TypeConfusion(_))));
}

#[test]
fn count_and_find() {
    assert_eq!(run(&Expr::Count(over(0, PRODUCT, None))), Ok(Value::Int(3)));
    assert_eq!(run(&Expr::Count(over(0, EMPTY, None))), Ok(Value::Int(0)));
    let stocked = bin(Gt, p(STOCK), int(0));
    assert_eq!(
        run(&Expr::Count(over(0, PRODUCT, Some(stocked)))),
        Ok(Value::Int(2))
    );
    // Lowest id among 43 and 50.
    let cheap = bin(Lt, p(PRICE), money(10_000));
    assert_eq!(
        run(&Expr::Find(over(0, PRODUCT, Some(cheap)))),
        Ok(Value::Row(43))
    );
    let nothing = bin(Gt, p(STOCK), int(100));
    assert_eq!(
        run(&Expr::Find(over(0, PRODUCT, Some(nothing)))),
        Ok(Value::None)
    );
    assert_eq!(run(&Expr::Find(over(0, EMPTY, None))), Ok(Value::None));
}

#[test]
fn sums() {
    let qty = fld(local(0), LINE, L_QTY);
    assert_eq!(
        run(&agg(AggKind::Sum, qty, over(0, LINE, None))),
        Ok(Value::Int(5))
    );
    let all = agg(AggKind::SumMoney, p(PRICE), over(0, PRODUCT, None));
    assert_eq!(run(&all), Ok(Value::Money(129_900 + 1499 + 500)));
    let open = bin(Eq, p(STATUS), c(Value::Enum(0)));
    let filtered = agg(AggKind::SumMoney, p(PRICE), over(0, PRODUCT, Some(open)));
    assert_eq!(run(&filtered), Ok(Value::Money(130_400)));
    // Over no rows: `0` and `$0.00`.
    let n = fld(local(0), EMPTY, 1);
    let amount = fld(local(0), EMPTY, 0);
    assert_eq!(
        run(&agg(AggKind::Sum, n, over(0, EMPTY, None))),
        Ok(Value::Int(0))
    );
    let zero = agg(AggKind::SumMoney, amount, over(0, EMPTY, None));
    assert_eq!(run(&zero), Ok(Value::Money(0)));
    // Lowering a money sum as `Sum` is an IR bug, not a silent result.
    let wrong = agg(AggKind::Sum, p(PRICE), over(0, PRODUCT, None));
    assert!(matches!(run(&wrong), Err(Fault::TypeConfusion(_))));
    let big = agg(AggKind::Sum, int(i64::MAX), over(0, PRODUCT, None));
    assert_eq!(run(&big), Err(Fault::Overflow));
    let holes = agg(AggKind::Sum, none(), over(0, PRODUCT, None));
    assert_eq!(run(&holes), Err(Fault::NoneValue));
}

#[test]
fn min_and_max() {
    let all = || over(0, PRODUCT, None);
    assert_eq!(
        run(&agg(AggKind::Min, p(PRICE), all())),
        Ok(Value::Money(500))
    );
    assert_eq!(
        run(&agg(AggKind::Max, p(PRICE), all())),
        Ok(Value::Money(129_900))
    );
    assert_eq!(run(&agg(AggKind::Min, p(NAME), all())), Ok(text("Cable")));
    assert_eq!(
        run(&agg(AggKind::Max, p(NAME), all())),
        Ok(text("ThinkPad X1"))
    );
    // `none` values are skipped; only 43 has a restock date.
    let restock = Ok(Value::Date(date("2026-12-10")));
    assert_eq!(run(&agg(AggKind::Min, p(RESTOCK), all())), restock);
    assert_eq!(run(&agg(AggKind::Max, p(RESTOCK), all())), restock);
    let open = bin(Eq, p(STATUS), c(Value::Enum(0)));
    let filtered = agg(AggKind::Min, p(STOCK), over(0, PRODUCT, Some(open)));
    assert_eq!(run(&filtered), Ok(Value::Int(5)));
    let n = fld(local(0), EMPTY, 1);
    assert_eq!(
        run(&agg(AggKind::Min, n.clone(), over(0, EMPTY, None))),
        Ok(Value::None)
    );
    assert_eq!(
        run(&agg(AggKind::Max, n, over(0, EMPTY, None))),
        Ok(Value::None)
    );
}

#[test]
fn text_builtins() {
    assert_eq!(run(&call(Builtin::Lower, vec![t("ÀbC")])), Ok(text("àbc")));
    assert_eq!(
        run(&call(Builtin::Upper, vec![t("straße")])),
        Ok(text("STRASSE"))
    );
    assert_eq!(
        run(&call(Builtin::Trim, vec![t("  a b \n")])),
        Ok(text("a b"))
    );
    assert_eq!(
        run(&call(Builtin::Len, vec![t("héllo")])),
        Ok(Value::Int(5))
    );
    assert_eq!(run(&call(Builtin::Len, vec![t("")])), Ok(Value::Int(0)));
    let yes = Ok(Value::Bool(true));
    let no = Ok(Value::Bool(false));
    assert_eq!(
        run(&call(Builtin::Contains, vec![t("ThinkPad"), t("kPa")])),
        yes
    );
    assert_eq!(
        run(&call(Builtin::Contains, vec![t("ThinkPad"), t("pad")])),
        no
    );
    assert_eq!(
        run(&call(Builtin::StartsWith, vec![t("ThinkPad"), t("Think")])),
        yes
    );
    assert_eq!(
        run(&call(Builtin::StartsWith, vec![t("ThinkPad"), t("Pad")])),
        no
    );
    assert_eq!(
        run(&call(Builtin::EndsWith, vec![t("ThinkPad"), t("Pad")])),
        yes
    );
    assert_eq!(run(&call(Builtin::Contains, vec![t("x"), t("")])), yes);
    assert_eq!(
        run(&call(Builtin::Lower, vec![none()])),
        Err(Fault::NoneValue)
    );
    assert!(matches!(
        run(&call(Builtin::Lower, vec![])),
        Err(Fault::TypeConfusion(_))
    ));
}

#[test]
fn numeric_and_date_builtins() {
    assert_eq!(run(&call(Builtin::Abs, vec![int(-4)])), Ok(Value::Int(4)));
    assert_eq!(
        run(&call(Builtin::Abs, vec![money(-2500)])),
        Ok(Value::Money(2500))
    );
    assert_eq!(
        run(&call(Builtin::Abs, vec![int(i64::MIN)])),
        Err(Fault::Overflow)
    );
    assert_eq!(
        run(&call(Builtin::Abs, vec![money(i64::MIN)])),
        Err(Fault::Overflow)
    );
    let d = |s| c(Value::Date(date(s)));
    let between = |a, b| run(&call(Builtin::DaysBetween, vec![d(a), d(b)]));
    assert_eq!(between("2026-11-29", "2026-12-10"), Ok(Value::Int(11)));
    assert_eq!(between("2026-12-10", "2026-11-29"), Ok(Value::Int(-11)));
    assert_eq!(between("2024-02-28", "2024-03-01"), Ok(Value::Int(2)));
    assert_eq!(
        run(&call(Builtin::Today, vec![])),
        Ok(Value::Date(date("2026-11-29")))
    );
    let from_today = call(
        Builtin::DaysBetween,
        vec![call(Builtin::Today, vec![]), d("2026-12-01")],
    );
    assert_eq!(run(&from_today), Ok(Value::Int(2)));
}

#[test]
fn text_expressions_render_and_propagate_faults() {
    let price = fld(at(PRODUCT, 42), PRODUCT, PRICE);
    let e = Expr::Text(vec![
        TextPart::Lit("Price: ".into()),
        TextPart::Interp(price, Ty::Money),
    ]);
    assert_eq!(run(&e), Ok(text("Price: $1,299.00")));
    let bad = Expr::Text(vec![TextPart::Interp(bin(Div, int(1), int(0)), Ty::Int)]);
    assert_eq!(run(&bad), Err(Fault::DivisionByZero));
}

#[test]
fn conditions_must_be_bools() {
    let w = World::new();
    assert_eq!(eval_bool(&w.ctx(), &mut Vec::new(), &bool_(true)), Ok(true));
    assert_eq!(
        eval_bool(&w.ctx(), &mut Vec::new(), &none()),
        Err(Fault::NoneValue)
    );
    assert!(matches!(
        eval_bool(&w.ctx(), &mut Vec::new(), &int(1)),
        Err(Fault::TypeConfusion(_))
    ));
    assert_eq!(
        eval_bool(&w.ctx(), &mut Vec::new(), &faulty()),
        Err(Fault::DivisionByZero)
    );
}

#[test]
fn faults_read_as_lowercase_messages() {
    let w = World::new();
    assert_eq!(Fault::DivisionByZero.to_string(), "division by zero");
    assert_eq!(Fault::NoneValue.to_string(), "a value is none");
    assert_eq!(Fault::Overflow.to_string(), "number out of range");
    let gone = Fault::MissingRow {
        table: PRODUCT,
        id: 7,
    };
    assert_eq!(gone.to_string(), "row #7 does not exist");
    assert_eq!(gone.describe(&w.program), "no Product with id 7");
    assert_eq!(Fault::TypeConfusion("x").to_string(), "internal error: x");
}
