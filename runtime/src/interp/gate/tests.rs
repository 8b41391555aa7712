use super::super::fixture::*;
use super::*;
use crate::ir::{BinaryOp, Expr, InvariantDef, MarkerDef, Program};

const RESTOCK: MarkerId = 0;
const PLAIN: MarkerId = 1;

fn extern_marker(name: &str, writes: Vec<Permission>, is_extern: bool) -> MarkerDef {
    MarkerDef {
        name: name.into(),
        params: vec![],
        reads: vec![],
        writes,
        requires: vec![],
        body: vec![],
        is_extern,
        frame: 0,
    }
}

/// The fixture with `stock >= 0` as an invariant, room for one more Line,
/// an extern marker `restock` (writes Product.stock, Product.status, Line,
/// session.user) and a plain marker.
fn site() -> Program {
    let mut p = program();
    p.invariants.push(InvariantDef {
        name: "stock_nonneg".into(),
        cond: Expr::All(
            over(0, PRODUCT, None),
            Box::new(bin(BinaryOp::Ge, fld(local(0), PRODUCT, STOCK), int(0))),
        ),
        frame: 1,
    });
    p.tables[LINE as usize].capacity = 3;
    let writes = vec![
        Permission::Field(PRODUCT, STOCK),
        Permission::Field(PRODUCT, STATUS),
        Permission::Field(PRODUCT, crate::interp::fixture::RESTOCK),
        Permission::Table(LINE),
        Permission::Session(0),
    ];
    p.markers = vec![
        extern_marker("restock", writes.clone(), true),
        extern_marker("plain", writes, false),
    ];
    p
}

fn line(product: Value, qty: Option<Value>) -> (String, Vec<(String, Value)>) {
    let mut fields = vec![("product".to_string(), product)];
    fields.extend(qty.map(|q| ("qty".to_string(), q)));
    ("Line".into(), fields)
}

fn set(table: &str, id: i64, field: &str, v: Value) -> ProposedDelta {
    ProposedDelta {
        sets: vec![(table.into(), id, field.into(), v)],
        ..ProposedDelta::default()
    }
}

/// Proposes `delta` to `marker`, expecting a violation and an unchanged world.
fn refused(marker: MarkerId, delta: ProposedDelta) -> Violation {
    let p = site();
    let before = World::initial(&p);
    let mut world = before.clone();
    let result = apply_proposed(&p, &mut world, marker, &delta);
    assert_eq!(
        world, before,
        "a refused delta changed the world: {delta:?}"
    );
    match result {
        Err(v) => v,
        Ok(()) => panic!("accepted a hostile delta: {delta:?}"),
    }
}

#[test]
fn writes_outside_the_permissions_are_refused() {
    let v = refused(RESTOCK, set("Product", 42, "price", Value::Money(1)));
    assert_eq!(v.to_string(), "`restock` may not set `Product.price`");
    let insert = ProposedDelta {
        inserts: vec![("Tag".into(), vec![("label".into(), text("x"))])],
        ..ProposedDelta::default()
    };
    assert_eq!(
        refused(RESTOCK, insert).to_string(),
        "`restock` may not insert into `Tag`"
    );
    let delete = ProposedDelta {
        deletes: vec![("Product".into(), 50)],
        ..ProposedDelta::default()
    };
    assert_eq!(
        refused(RESTOCK, delete).to_string(),
        "`restock` may not delete from `Product`"
    );
}

#[test]
fn values_of_the_wrong_type_are_refused() {
    let wrong = |d| matches!(refused(RESTOCK, d), Violation::WrongType { .. });
    assert!(wrong(set("Product", 42, "stock", text("lots"))));
    assert!(wrong(set("Product", 42, "stock", Value::None)));
    assert!(wrong(set("Product", 42, "stock", Value::Money(5))));
    assert!(wrong(set("Product", 42, "status", Value::Enum(3))));
    assert!(wrong(set("Line", 1, "product", Value::Int(42))));
    let missing_qty = ProposedDelta {
        inserts: vec![line(Value::Row(42), None)],
        ..ProposedDelta::default()
    };
    let v = refused(RESTOCK, missing_qty);
    assert_eq!(
        v.to_string(),
        "`Line.qty` of new row #3 must be Int, not none"
    );
    let session = ProposedDelta {
        session: vec![("user".into(), text("root"))],
        ..ProposedDelta::default()
    };
    assert!(wrong(session));
}

#[test]
fn dangling_references_are_refused() {
    let v = refused(RESTOCK, set("Line", 1, "product", Value::Row(999)));
    assert_eq!(
        v.to_string(),
        "`Line.product` of row #1 refers to no Product with id 999"
    );
    let insert = ProposedDelta {
        inserts: vec![line(Value::Row(7), Some(Value::Int(1)))],
        ..ProposedDelta::default()
    };
    assert!(matches!(
        refused(RESTOCK, insert),
        Violation::DanglingReference { id: 7, .. }
    ));
}

#[test]
fn overflowing_a_table_is_refused() {
    let one = line(Value::Row(42), Some(Value::Int(1)));
    let two = ProposedDelta {
        inserts: vec![one.clone(), one],
        ..ProposedDelta::default()
    };
    assert_eq!(
        refused(RESTOCK, two),
        Violation::TableFull {
            table: "Line".into()
        }
    );
}

#[test]
fn broken_invariants_are_refused() {
    let v = refused(RESTOCK, set("Product", 43, "stock", Value::Int(-1)));
    assert_eq!(
        v,
        Violation::Invariant {
            name: "stock_nonneg".into()
        }
    );
}

#[test]
fn unknown_names_rows_and_markers_are_refused() {
    let nope = ProposedDelta {
        inserts: vec![("Nope".into(), vec![])],
        ..ProposedDelta::default()
    };
    assert_eq!(refused(RESTOCK, nope).to_string(), "unknown table `Nope`");
    let v = refused(RESTOCK, set("Line", 1, "nope", Value::Int(1)));
    assert_eq!(v.to_string(), "`Line` has no field `nope`");
    // `id` is not a field: it cannot be set.
    assert!(matches!(
        refused(RESTOCK, set("Line", 1, "id", Value::Int(9))),
        Violation::UnknownField { .. }
    ));
    let session = ProposedDelta {
        session: vec![("admin".into(), Value::Bool(true))],
        ..ProposedDelta::default()
    };
    assert_eq!(
        refused(RESTOCK, session).to_string(),
        "unknown session variable `admin`"
    );
    let v = refused(RESTOCK, set("Product", 999, "stock", Value::Int(1)));
    assert_eq!(v.to_string(), "no Product with id 999");
    let gone = ProposedDelta {
        deletes: vec![("Line".into(), 999)],
        ..ProposedDelta::default()
    };
    assert!(matches!(
        refused(RESTOCK, gone),
        Violation::MissingRow { id: 999, .. }
    ));
    let ok = set("Product", 42, "stock", Value::Int(1));
    assert_eq!(
        refused(PLAIN, ok.clone()).to_string(),
        "`plain` is not an extern marker"
    );
    assert_eq!(refused(9, ok), Violation::UnknownMarker { marker: 9 });
}

#[test]
fn a_valid_delta_commits() {
    let p = site();
    let mut world = World::initial(&p);
    let delta = ProposedDelta {
        inserts: vec![line(Value::Row(50), Some(Value::Int(1)))],
        // The new row is #3 and may be set in the same delta.
        sets: vec![
            ("Product".into(), 50, "stock".into(), Value::Int(9)),
            ("Line".into(), 3, "qty".into(), Value::Int(2)),
        ],
        deletes: vec![("Line".into(), 2)],
        session: vec![("user".into(), Value::Int(8))],
    };
    assert_eq!(apply_proposed(&p, &mut world, RESTOCK, &delta), Ok(()));
    let lines: Vec<i64> = world.db.tables[LINE as usize]
        .rows()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(lines, vec![1, 3]);
    assert_eq!(
        world.db.row(LINE, 3).map(|r| r.values.clone()),
        Some(vec![Value::Row(50), Value::Int(2)])
    );
    assert_eq!(
        world
            .db
            .row(PRODUCT, 50)
            .and_then(|r| r.values.get(2).cloned()),
        Some(Value::Int(9))
    );
    assert_eq!(world.session, vec![Value::Int(8)]);
}

#[test]
fn impossible_dates_and_times_are_refused_not_stored() {
    use crate::value::{Date, Time};
    let feb_31 = Value::Date(Date {
        year: 2026,
        month: 2,
        day: 31,
    });
    let v = refused(RESTOCK, set("Product", 42, "restock", feb_31));
    assert_eq!(
        v.to_string(),
        "`Product.restock` of row #42 must be Date?, not the impossible date 2026-02-31"
    );
    let leap_day = Value::Date(Date {
        year: 2028,
        month: 2,
        day: 29,
    });
    let p = site();
    let mut world = World::initial(&p);
    let ok = apply_proposed(
        &p,
        &mut world,
        RESTOCK,
        &set("Product", 42, "restock", leap_day),
    );
    assert_eq!(ok, Ok(()));
    let late = Time {
        hour: 25,
        minute: 0,
    };
    assert!(!late.is_valid());
    assert!(Time {
        hour: 23,
        minute: 59
    }
    .is_valid());
}

#[test]
fn a_faulting_invariant_counts_as_broken() {
    let mut p = site();
    p.invariants.push(InvariantDef {
        name: "faulty".into(),
        cond: faulty(),
        frame: 0,
    });
    let world = World::initial(&p);
    let v = validate(&p, &p.markers[0], &world, &Delta::default());
    assert_eq!(
        v,
        Err(Violation::Invariant {
            name: "faulty".into()
        })
    );
}

#[test]
fn unknown_ids_in_a_delta_are_violations_not_panics() {
    let p = site();
    let world = World::initial(&p);
    let marker = &p.markers[0];
    let cases = [
        Delta {
            inserted: vec![(77, 1)],
            ..Delta::default()
        },
        Delta {
            set_fields: vec![(PRODUCT, 42, 99)],
            ..Delta::default()
        },
        Delta {
            set_session: vec![5],
            ..Delta::default()
        },
    ];
    for delta in cases {
        assert!(validate(&p, marker, &world, &delta).is_err(), "{delta:?}");
    }
}

/// The commit-time rule without the written set, and the rule over it
/// (`invariant_affected` of `written_locs`), both equal the rule written out
/// plainly (a table's rows touch every read of the table; anything else
/// touches itself), on random deltas and read sets over the fixture's
/// tables (fields past a table's end included).
#[test]
fn an_invariant_is_affected_by_a_delta_as_by_its_written_set() {
    use footprint::{Loc, Locs};
    // A small xorshift of its own: borrowing the task generator's would
    // make `interp` depend on `tasks`, which depends on `interp`.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n.max(1) as u64) as usize
        }
    }
    let p = site();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let tables = u32::try_from(p.tables.len()).unwrap();
    let table = |rng: &mut Rng| rng.below(tables as usize + 1) as u32;
    let (mut affected, mut spared) = (0, 0);
    for _ in 0..20_000 {
        let mut delta = Delta::default();
        for _ in 0..rng.below(2) {
            delta.inserted.push((table(&mut rng), 1));
        }
        for _ in 0..rng.below(2) {
            delta.deleted.push((table(&mut rng), 1));
        }
        for _ in 0..rng.below(3) {
            delta
                .set_fields
                .push((table(&mut rng), 1, rng.below(5) as u32));
        }
        for _ in 0..rng.below(2) {
            delta.set_session.push(rng.below(3) as u32);
        }
        let mut reads = Locs::new();
        for _ in 0..rng.below(4) {
            reads.insert(match rng.below(3) {
                0 => Loc::Rows(table(&mut rng)),
                1 => Loc::Field(table(&mut rng), rng.below(5) as u32),
                _ => Loc::Session(rng.below(3) as u32),
            });
        }
        let touches = |w: &Loc| match w {
            Loc::Rows(t) => reads
                .iter()
                .any(|r| matches!(r, Loc::Rows(u) | Loc::Field(u, _) if u == t)),
            other => reads.contains(other),
        };
        let written = written_locs(&p, &delta);
        let expected = reads.is_empty() || written.iter().any(touches);
        assert_eq!(
            invariant_affected(&written, &reads),
            expected,
            "{delta:?} {reads:?}"
        );
        assert_eq!(
            invariant_affected_by(&delta, &reads),
            expected,
            "{delta:?} {reads:?}"
        );
        if expected {
            affected += 1;
        } else {
            spared += 1;
        }
    }
    // Both answers are common, so each side of the rule was exercised.
    assert!(affected > 2_000 && spared > 2_000, "{affected} {spared}");
}
