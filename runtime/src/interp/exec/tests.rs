use super::super::fixture::*;
use super::*;
use crate::ir::{
    BinaryOp::*, Expr, InvariantDef, MarkerDef, ParamDef, Permission, Program, Requirement, Ty,
};

const SHOW: ir::PageId = 3;

fn marker(
    name: &str,
    params: Vec<Ty>,
    writes: Vec<Permission>,
    requires: Vec<Requirement>,
    body: Vec<Stmt>,
) -> MarkerDef {
    MarkerDef {
        name: name.into(),
        params: params
            .into_iter()
            .map(|ty| ParamDef {
                name: "p".into(),
                ty,
            })
            .collect(),
        reads: vec![],
        writes,
        requires,
        body,
        is_extern: false,
        frame: 8,
    }
}

fn lit(s: &str) -> Vec<TextPart> {
    vec![TextPart::Lit(s.into())]
}

fn set(row: Expr, table: TableId, field: ir::FieldId, value: Expr) -> Stmt {
    Stmt::SetField {
        row,
        table,
        field,
        value,
    }
}

fn go(args: Vec<Expr>) -> Stmt {
    Stmt::Go(PageCall { page: SHOW, args })
}

/// The fixture with `stock >= 0` as an invariant and `markers` added.
fn site(markers: Vec<MarkerDef>) -> Program {
    let mut p = program();
    p.invariants.push(InvariantDef {
        name: "stock_nonneg".into(),
        cond: Expr::All(
            over(0, PRODUCT, None),
            Box::new(bin(Ge, fld(local(0), PRODUCT, STOCK), int(0))),
        ),
        frame: 1,
    });
    p.markers = markers;
    p
}

/// Runs marker 0 of a one-marker site on the initial world.
fn run1(m: MarkerDef, args: Vec<Value>) -> (Outcome, World) {
    let p = site(vec![m]);
    let mut world = World::initial(&p);
    let outcome = run_marker(&p, &mut world, None, 0, args);
    (outcome, world)
}

/// Runs a marker expected to be rejected; checks the world is untouched and
/// returns the alert.
fn rejected(p: &Program, marker: ir::MarkerId, args: Vec<Value>) -> String {
    let before = World::initial(p);
    let mut world = before.clone();
    let outcome = run_marker(p, &mut world, None, marker, args);
    assert_eq!(world, before, "a rejected step changed the world");
    match outcome {
        Outcome::Rejected { alert, .. } => alert,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

fn reject1(m: MarkerDef, args: Vec<Value>) -> String {
    rejected(&site(vec![m]), 0, args)
}

fn stock(world: &World, id: i64) -> Option<Value> {
    world
        .db
        .row(PRODUCT, id)
        .and_then(|r| r.values.get(2).cloned())
}

fn ids(world: &World, t: TableId) -> Vec<i64> {
    world.db.tables[t as usize]
        .rows()
        .iter()
        .map(|r| r.id)
        .collect()
}

/// `add_to_cart(p, qty)` from §2.3, going to `Show(line, p.stock)`.
fn add_to_cart() -> MarkerDef {
    marker(
        "add_to_cart",
        vec![Ty::Row(PRODUCT), Ty::Int],
        vec![Permission::Table(LINE), Permission::Field(PRODUCT, STOCK)],
        vec![
            Requirement {
                cond: bin(Gt, local(1), int(0)),
                message: Some(lit("Choose a quantity")),
            },
            Requirement {
                cond: bin(Ge, fld(local(0), PRODUCT, STOCK), local(1)),
                message: None,
            },
        ],
        vec![
            Stmt::Insert {
                slot: Some(2),
                table: LINE,
                fields: vec![(L_PRODUCT, local(0)), (L_QTY, local(1))],
            },
            set(
                local(0),
                PRODUCT,
                STOCK,
                bin(Sub, fld(local(0), PRODUCT, STOCK), local(1)),
            ),
            go(vec![local(2), fld(local(0), PRODUCT, STOCK)]),
        ],
    )
}

#[test]
fn insert_and_set_commit_and_go_sees_the_committed_state() {
    let (outcome, world) = run1(add_to_cart(), vec![Value::Row(42), Value::Int(2)]);
    let Outcome::Committed { go, delta } = outcome else {
        panic!("rejected: {outcome:?}")
    };
    assert_eq!(go, Some((SHOW, vec![Value::Row(3), Value::Int(3)])));
    assert_eq!(delta.inserted, vec![(LINE, 3)]);
    assert_eq!(delta.set_fields, vec![(PRODUCT, 42, STOCK)]);
    assert_eq!(ids(&world, LINE), vec![1, 2, 3]);
    assert_eq!(
        world.db.row(LINE, 3).map(|r| r.values.clone()),
        Some(vec![Value::Row(42), Value::Int(2)])
    );
    assert_eq!(stock(&world, 42), Some(Value::Int(3)));
}

#[test]
fn insert_into_an_empty_table_gets_id_1_and_missing_fields_are_none() {
    let m = marker(
        "tag",
        vec![],
        vec![Permission::Table(ALIAS), Permission::Table(EMPTY)],
        vec![],
        vec![
            Stmt::Insert {
                slot: None,
                table: EMPTY,
                fields: vec![(0, money(5)), (1, int(1))],
            },
            Stmt::Insert {
                slot: None,
                table: ALIAS,
                fields: vec![],
            },
        ],
    );
    let (outcome, world) = run1(m, vec![]);
    assert!(
        matches!(outcome, Outcome::Committed { go: None, .. }),
        "{outcome:?}"
    );
    assert_eq!(ids(&world, EMPTY), vec![1]);
    assert_eq!(
        world.db.row(ALIAS, 3).map(|r| r.values.clone()),
        Some(vec![Value::None])
    );
}

#[test]
fn a_deleted_rows_id_is_never_issued_again() {
    // Replacing the newest line twice: 2 is deleted and the new line gets
    // 3, then 3 is deleted and the next gets 4. A reference still holding
    // a deleted id points at nothing, never at a newer row.
    let replace = |id: i64| {
        marker(
            "replace_newest",
            vec![],
            vec![Permission::Table(LINE)],
            vec![],
            vec![
                Stmt::Delete {
                    table: LINE,
                    row: at(LINE, id),
                },
                Stmt::Insert {
                    slot: None,
                    table: LINE,
                    fields: vec![(L_PRODUCT, at(PRODUCT, 42)), (L_QTY, int(1))],
                },
            ],
        )
    };
    let p = site(vec![replace(2), replace(3)]);
    let mut world = World::initial(&p);
    let first = run_marker(&p, &mut world, None, 0, vec![]);
    assert!(matches!(first, Outcome::Committed { .. }), "{first:?}");
    assert_eq!(ids(&world, LINE), vec![1, 3]);
    let second = run_marker(&p, &mut world, None, 1, vec![]);
    assert!(matches!(second, Outcome::Committed { .. }), "{second:?}");
    assert_eq!(ids(&world, LINE), vec![1, 4]);
    assert_eq!(world.db.tables[LINE as usize].high(), 4);
}

#[test]
fn delete_and_delete_all_commit() {
    let m = marker(
        "clear",
        vec![],
        vec![Permission::Table(LINE), Permission::Table(PRODUCT)],
        vec![],
        vec![
            Stmt::Delete {
                table: LINE,
                row: at(LINE, 1),
            },
            Stmt::DeleteAll(over(
                0,
                PRODUCT,
                Some(bin(Eq, fld(local(0), PRODUCT, STOCK), int(0))),
            )),
        ],
    );
    let (outcome, world) = run1(m, vec![]);
    let Outcome::Committed { delta, .. } = outcome else {
        panic!("rejected: {outcome:?}")
    };
    assert_eq!(delta.deleted, vec![(LINE, 1), (PRODUCT, 43)]);
    assert_eq!(ids(&world, LINE), vec![2]);
    assert_eq!(ids(&world, PRODUCT), vec![42, 50]);
}

#[test]
fn for_visits_rows_matching_at_the_start_and_skips_deleted_ones() {
    let body = vec![
        set(local(0), PRODUCT, STOCK, int(0)),
        Stmt::Delete {
            table: PRODUCT,
            row: c(Value::Row(50)),
        },
        // Inserted rows are not visited: this runs once.
        Stmt::Insert {
            slot: None,
            table: TAG,
            fields: vec![(0, c(text("x")))],
        },
    ];
    let filter = Some(bin(Gt, fld(local(0), PRODUCT, STOCK), int(0)));
    let m = marker(
        "zero",
        vec![],
        vec![Permission::Table(PRODUCT), Permission::Table(TAG)],
        vec![],
        vec![Stmt::For(over(0, PRODUCT, filter), body)],
    );
    let (outcome, world) = run1(m, vec![]);
    let Outcome::Committed { delta, .. } = outcome else {
        panic!("rejected: {outcome:?}")
    };
    assert_eq!(delta.set_fields, vec![(PRODUCT, 42, STOCK)]);
    assert_eq!(ids(&world, PRODUCT), vec![42, 43]);
    assert_eq!(ids(&world, TAG), vec![1, 2]);
    assert_eq!(stock(&world, 42), Some(Value::Int(0)));
}

#[test]
fn if_let_and_session_commit() {
    let m = marker(
        "login",
        vec![Ty::Int],
        vec![Permission::Session(0)],
        vec![],
        vec![
            Stmt::Let(1, bin(Add, local(0), int(1))),
            Stmt::If(
                bin(Gt, local(1), int(5)),
                vec![Stmt::SetSession(0, local(1))],
                vec![Stmt::Reject(lit("too small"))],
            ),
        ],
    );
    let (outcome, world) = run1(m.clone(), vec![Value::Int(8)]);
    assert!(matches!(outcome, Outcome::Committed { .. }), "{outcome:?}");
    assert_eq!(world.session, vec![Value::Int(9)]);
    assert_eq!(reject1(m, vec![Value::Int(1)]), "too small");
}

#[test]
fn requires_reject_in_order_with_their_messages() {
    assert_eq!(
        reject1(add_to_cart(), vec![Value::Row(42), Value::Int(0)]),
        "Choose a quantity"
    );
    assert_eq!(
        reject1(add_to_cart(), vec![Value::Row(42), Value::Int(6)]),
        "`add_to_cart` was rejected"
    );
    let alert = reject1(add_to_cart(), vec![Value::Row(99), Value::Int(1)]);
    assert_eq!(alert, "`add_to_cart` was rejected: no Product with id 99");
    let faulty_req = Requirement {
        cond: faulty(),
        message: Some(lit("never shown")),
    };
    let m = marker("m", vec![], vec![], vec![faulty_req], vec![]);
    assert_eq!(reject1(m, vec![]), "`m` was rejected: division by zero");
}

/// A body that writes before it stops: the writes must not survive.
fn writes_then(last: Stmt) -> MarkerDef {
    marker(
        "m",
        vec![],
        vec![
            Permission::Table(PRODUCT),
            Permission::Table(LINE),
            Permission::Session(0),
        ],
        vec![],
        vec![
            set(c(Value::Row(42)), PRODUCT, STOCK, int(1)),
            Stmt::Insert {
                slot: None,
                table: LINE,
                fields: vec![(L_PRODUCT, c(Value::Row(42))), (L_QTY, int(1))],
            },
            Stmt::Delete {
                table: PRODUCT,
                row: c(Value::Row(50)),
            },
            Stmt::SetSession(0, int(99)),
            last,
        ],
    )
}

#[test]
fn reject_and_faults_in_the_body_leave_the_world_unchanged() {
    let interp = TextPart::Interp(fld(c(Value::Row(42)), PRODUCT, STOCK), Ty::Int);
    let reject = Stmt::Reject(vec![TextPart::Lit("only ".into()), interp]);
    assert_eq!(reject1(writes_then(reject), vec![]), "only 1");
    let fault = Stmt::Let(0, bin(Div, int(1), int(0)));
    assert_eq!(
        reject1(writes_then(fault), vec![]),
        "`m` failed: division by zero"
    );
    let missing = set(c(Value::Row(999)), PRODUCT, STOCK, int(1));
    assert_eq!(
        reject1(writes_then(missing), vec![]),
        "`m` failed: no Product with id 999"
    );
    let gone = Stmt::Delete {
        table: LINE,
        row: c(Value::Row(999)),
    };
    assert_eq!(
        reject1(writes_then(gone), vec![]),
        "`m` failed: no Line with id 999"
    );
    let of_none = set(none(), PRODUCT, STOCK, int(1));
    assert_eq!(
        reject1(writes_then(of_none), vec![]),
        "`m` failed: a value is none"
    );
    let bad_go = go(vec![bin(Div, int(1), int(0))]);
    assert_eq!(
        reject1(writes_then(bad_go), vec![]),
        "`m` failed: division by zero"
    );
}

#[test]
fn a_full_table_rejects_the_insert() {
    let mut p = site(vec![writes_then(Stmt::Insert {
        slot: None,
        table: TAG,
        fields: vec![],
    })]);
    p.markers[0].writes.push(Permission::Table(TAG));
    p.tables[TAG as usize].capacity = 1;
    assert_eq!(rejected(&p, 0, vec![]), "`Tag` is full");
}

#[test]
fn the_gate_rejects_bad_bodies() {
    let mut outside = writes_then(set(c(Value::Row(42)), PRODUCT, PRICE, money(1)));
    outside.writes = vec![
        Permission::Field(PRODUCT, STOCK),
        Permission::Table(LINE),
        Permission::Session(0),
    ];
    // `Product` (delete of 50) is no longer covered either; the first write found is reported.
    assert_eq!(
        reject1(outside, vec![]),
        "`m` may not delete from `Product`"
    );
    let wrong = writes_then(set(c(Value::Row(42)), PRODUCT, STOCK, c(text("lots"))));
    assert_eq!(
        reject1(wrong, vec![]),
        "`Product.stock` of row #42 must be Int, not Text"
    );
    let dangling = Stmt::Insert {
        slot: None,
        table: LINE,
        fields: vec![(L_PRODUCT, c(Value::Row(999))), (L_QTY, int(1))],
    };
    assert_eq!(
        reject1(writes_then(dangling), vec![]),
        "`Line.product` of new row #4 refers to no Product with id 999"
    );
    let broken = writes_then(set(c(Value::Row(42)), PRODUCT, STOCK, int(-1)));
    assert_eq!(
        reject1(broken, vec![]),
        "invariant `stock_nonneg` would be broken"
    );
    let session = writes_then(Stmt::SetSession(0, none()));
    assert_eq!(
        reject1(session, vec![]),
        "`session.user` must be Int, not none"
    );
}

#[test]
fn bad_calls_are_rejected() {
    let p = site(vec![add_to_cart()]);
    assert_eq!(rejected(&p, 1, vec![]), "unknown marker #1");
    assert_eq!(
        rejected(&p, 0, vec![Value::Row(42)]),
        "`add_to_cart` takes 2 arguments, not 1"
    );
}

#[test]
fn go_in_a_loop_keeps_the_last_target_reached() {
    let m = marker(
        "m",
        vec![],
        vec![],
        vec![],
        vec![Stmt::For(over(0, PRODUCT, None), vec![go(vec![local(0)])])],
    );
    let (outcome, _) = run1(m, vec![]);
    assert!(
        matches!(outcome, Outcome::Committed { go: Some((SHOW, ref args)), .. } if args == &vec![Value::Row(50)])
    );
}

#[test]
fn setup_runs_without_permissions_but_keeps_the_gate() {
    let p = site(vec![]);
    let before = World::initial(&p);
    let mut world = before.clone();
    let mut frame = Vec::new();
    let ok = [
        Stmt::Insert {
            slot: Some(0),
            table: TAG,
            fields: vec![(0, c(text("new")))],
        },
        Stmt::SetSession(0, int(1)),
    ];
    assert_eq!(run_setup(&p, &mut world, &mut frame, &ok), Ok(()));
    assert_eq!(frame, vec![Value::Row(2)]);
    assert_eq!(world.session, vec![Value::Int(1)]);
    for bad in [
        vec![Stmt::SetSession(0, int(3)), Stmt::Let(0, faulty())],
        vec![Stmt::Reject(lit("no"))],
        vec![go(vec![])],
        vec![set(c(Value::Row(42)), PRODUCT, STOCK, int(-5))],
    ] {
        let snapshot = world.clone();
        let mut f = frame.clone();
        assert!(run_setup(&p, &mut world, &mut f, &bad).is_err());
        assert_eq!(world, snapshot);
        assert_eq!(f, frame);
    }
    assert_eq!(
        run_setup(&p, &mut world, &mut frame, &[Stmt::Let(0, faulty())]).map_err(|e| e.to_string()),
        Err("`setup` failed: division by zero".into())
    );
}
