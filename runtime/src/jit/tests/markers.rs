//! Marker bodies compiled by the JIT against the interpreter: every kind of
//! write, refusals by permission and invariant, and texts built from
//! interpolations stored in the state. The JIT's bytes after a commit must
//! be the encoding of the interpreter's world, and the originals after a
//! refusal.

use super::texts::{interp, opt};
use super::*;

/// Runs each body as marker 0 (every table and session variable writable
/// unless `writes` says otherwise, `stock >= 0` an invariant) on the fixture
/// state with both engines: same outcome, and the JIT's bytes are the
/// encoding of the interpreter's world (on commit) or the originals.
fn run_bodies(bodies: Vec<(Vec<ir::Stmt>, Option<Vec<ir::Permission>>)>) -> Vec<MarkerOutcome> {
    use crate::interp::exec::{run_marker, Outcome, Rejection};
    let mut out = Vec::new();
    for (body, writes) in bodies {
        let mut program = program(&[], &[]);
        program.tables[TAG as usize].capacity = 2;
        program.invariants.push(ir::InvariantDef {
            name: "stock_nonneg".into(),
            cond: Expr::All(
                over(0, PRODUCT, None),
                Box::new(bin(Ge, fld(local(0), PRODUCT, STOCK), int(0))),
            ),
            frame: 1,
        });
        let all: Vec<ir::Permission> = (0..program.tables.len() as u32)
            .map(ir::Permission::Table)
            .chain((0..program.session.len() as u32).map(ir::Permission::Session))
            .collect();
        program.markers[0].writes = writes.unwrap_or(all);
        program.markers[0].frame = 4;
        program.markers[0].body = body.clone();
        let Compiled {
            layout,
            mut pool,
            site,
            state: s,
            bytes,
        } = compiled(&program);
        assert!(
            site.marker_is_compiled(0),
            "{body:?}: {:?}",
            site.marker_fallback_reason(0)
        );
        let mut world = s.world.clone();
        let interp = run_marker(&program, &mut world, Some(&s.nav), 0, vec![]);
        let mut b = bytes.clone();
        let mut undo = UndoLog::new();
        let jit = site
            .run_marker(0, &mut b, &[], &mut pool, &mut undo)
            .unwrap();
        match (&interp, &jit) {
            (Outcome::Committed { go, .. }, MarkerOutcome::Committed { go: jgo }) => {
                assert_eq!(go, jgo);
                let expected = encode_world(&layout, &program, &bytes, &world, &mut pool).unwrap();
                assert!(b == expected, "{body:?}: committed bytes differ");
            }
            (Outcome::Rejected { cause, .. }, MarkerOutcome::Rejected { cause: jc }) => {
                let invariant = |i: &usize| program.invariants.get(*i).map(|d| d.name.as_str());
                let same = match (cause, jc) {
                    (Rejection::Body, MarkerRejection::Body) => true,
                    (
                        Rejection::Gate(crate::interp::gate::Violation::Invariant { name }),
                        MarkerRejection::Invariant { index },
                    ) => invariant(index) == Some(name.as_str()),
                    (Rejection::Gate(crate::interp::gate::Violation::Invariant { .. }), _) => false,
                    (Rejection::Gate(_), MarkerRejection::Gate) => true,
                    _ => false,
                };
                assert!(same, "{body:?}: interpreter {interp:?}, jit {jit:?}");
                assert!(b == bytes, "{body:?}: a rejection changed the bytes");
            }
            _ => panic!("{body:?}: interpreter {interp:?}, jit {jit:?}"),
        }
        assert!(undo.is_empty());
        out.push(jit);
    }
    out
}

fn set(row: Expr, table: ir::TableId, field: ir::FieldId, value: Expr) -> ir::Stmt {
    ir::Stmt::SetField {
        row,
        table,
        field,
        value,
    }
}

/// Writes of every kind, then `last`.
fn writes_then(last: ir::Stmt) -> Vec<ir::Stmt> {
    vec![
        set(c(Value::Row(42)), PRODUCT, STOCK, int(1)),
        ir::Stmt::Insert {
            slot: None,
            table: LINE,
            fields: vec![(L_PRODUCT, c(Value::Row(42))), (L_QTY, int(1))],
        },
        ir::Stmt::Delete {
            table: PRODUCT,
            row: c(Value::Row(50)),
        },
        ir::Stmt::SetSession(0, int(99)),
        last,
    ]
}

#[test]
fn marker_bodies_agree_with_the_interpreter() {
    use ir::Stmt;
    let committed = |o: &MarkerOutcome| matches!(o, MarkerOutcome::Committed { .. });
    let show = |e: Expr| {
        Stmt::Go(PageCall {
            page: 0,
            args: vec![e],
        })
    };
    let outcomes = run_bodies(vec![
        // `for` over a snapshot: deleted rows skipped, inserted ones not visited.
        (
            vec![Stmt::For(
                over(
                    0,
                    PRODUCT,
                    Some(bin(Gt, fld(local(0), PRODUCT, STOCK), int(0))),
                ),
                vec![
                    set(local(0), PRODUCT, STOCK, int(0)),
                    Stmt::Delete {
                        table: PRODUCT,
                        row: c(Value::Row(50)),
                    },
                    Stmt::Insert {
                        slot: Some(1),
                        table: TAG,
                        fields: vec![(0, c(text("x")))],
                    },
                ],
            )],
            None,
        ),
        // `delete ... where` and `delete`.
        (
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
            None,
        ),
        // `go` in a loop: the last reached, with its frame, on the new state.
        (
            vec![
                Stmt::Let(2, int(7)),
                Stmt::For(over(0, PRODUCT, None), vec![show(local(0))]),
                set(c(Value::Row(50)), PRODUCT, STOCK, local(2)),
            ],
            None,
        ),
        (
            vec![
                Stmt::Let(1, bin(Add, int(1), int(2))),
                Stmt::If(
                    bin(Gt, local(1), int(2)),
                    vec![Stmt::SetSession(0, local(1))],
                    vec![Stmt::Reject(vec![])],
                ),
            ],
            None,
        ),
        (writes_then(Stmt::Reject(vec![])), None),
        (writes_then(Stmt::Let(1, bin(Div, int(1), int(0)))), None),
        (
            writes_then(set(c(Value::Row(999)), PRODUCT, STOCK, int(1))),
            None,
        ),
        (writes_then(set(none(), PRODUCT, STOCK, int(1))), None),
        (writes_then(show(at(PRODUCT, 999))), None),
        // The gate: an invariant, a dangling reference, `none` where not
        // optional, a full table, a write outside `writes`.
        (
            writes_then(set(c(Value::Row(42)), PRODUCT, STOCK, int(-1))),
            None,
        ),
        (
            writes_then(Stmt::Insert {
                slot: None,
                table: LINE,
                fields: vec![(L_PRODUCT, c(Value::Row(50))), (L_QTY, int(1))],
            }),
            None,
        ),
        (writes_then(Stmt::SetSession(0, none())), None),
        (
            writes_then(Stmt::For(
                over(0, PRODUCT, None),
                vec![Stmt::Insert {
                    slot: None,
                    table: TAG,
                    fields: vec![],
                }],
            )),
            None,
        ),
        (
            writes_then(Stmt::SetSession(0, int(1))),
            Some(vec![ir::Permission::Table(PRODUCT)]),
        ),
        (writes_then(Stmt::SetSession(0, int(1))), None),
    ]);
    let n_committed = outcomes.iter().filter(|o| committed(o)).count();
    assert!(n_committed >= 4, "{outcomes:?}");
    assert!(outcomes.len() - n_committed >= 8, "{outcomes:?}");
}

#[test]
fn marker_bodies_store_interpolated_texts() {
    use ir::Stmt;
    let label = |e: Expr| set(c(Value::Row(1)), TAG, 0, e);
    let outcomes = run_bodies(vec![
        // Every kind, into a text field.
        (
            vec![label(interp(vec![
                Ok("i="),
                Err((int(7), Ty::Int)),
                Ok(" m="),
                Err((fld(at(PRODUCT, 43), PRODUCT, PRICE), Ty::Money)),
                Ok(" b="),
                Err((bool_(false), Ty::Bool)),
                Ok(" t="),
                Err((fld(at(TAG, 1), TAG, 0), Ty::Text)),
                Ok(" d="),
                Err((fld(at(PRODUCT, 43), PRODUCT, RESTOCK), opt(Ty::Date))),
                Ok(" h="),
                Err((c(Value::Time(time("23:59"))), Ty::Time)),
                Ok(" e="),
                Err((fld(at(PRODUCT, 42), PRODUCT, STATUS), Ty::Enum(0))),
                Ok(" r="),
                Err((fld(at(LINE, 2), LINE, L_PRODUCT), Ty::Row(PRODUCT))),
                Ok(" l="),
                Err((at(LINE, 1), Ty::Row(LINE))),
                Ok(" x="),
                Err((c(Value::Row(77)), Ty::Row(PRODUCT))),
                Ok(" a="),
                Err((c(Value::Row(2)), Ty::Row(ALIAS))),
                Ok(" n="),
                Err((none(), opt(Ty::Text))),
            ]))],
            None,
        ),
        // Row names are read from the state as the body left it, and a
        // `let` holds an interpolated text.
        (
            vec![
                set(c(Value::Row(42)), PRODUCT, NAME, c(text("Renamed"))),
                Stmt::Delete {
                    table: PRODUCT,
                    row: c(Value::Row(43)),
                },
                Stmt::Let(
                    0,
                    interp(vec![
                        Err((c(Value::Row(42)), Ty::Row(PRODUCT))),
                        Ok(" & "),
                        Err((c(Value::Row(43)), Ty::Row(PRODUCT))),
                    ]),
                ),
                Stmt::Insert {
                    slot: Some(1),
                    table: TAG,
                    fields: vec![(0, interp(vec![Ok("<"), Err((local(0), Ty::Text)), Ok(">")]))],
                },
                Stmt::If(
                    bin(Eq, local(0), t("Renamed & #43")),
                    vec![],
                    vec![Stmt::Reject(vec![])],
                ),
            ],
            None,
        ),
        // A fault in an interpolation rejects the marker, bytes restored.
        (
            vec![
                set(c(Value::Row(42)), PRODUCT, STOCK, int(1)),
                label(interp(vec![
                    Ok("x"),
                    Err((fld(at(PRODUCT, 9), PRODUCT, NAME), Ty::Text)),
                ])),
            ],
            None,
        ),
        (
            vec![label(interp(vec![Err((
                bin(Div, int(1), int(0)),
                Ty::Int,
            ))]))],
            None,
        ),
    ]);
    let committed: Vec<bool> = outcomes
        .iter()
        .map(|o| matches!(o, MarkerOutcome::Committed { .. }))
        .collect();
    assert_eq!(committed, vec![true, true, false, false]);
}
