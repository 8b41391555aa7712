//! The abstract values' operations against the concrete ones: every pair of
//! concrete values drawn from two abstract values must give a result the
//! abstract operation allows. Whole-site behaviour of the bound (what it
//! decides, what it must leave to the search) is tested on compiled sites in
//! `tests/tests/infeasible.rs` and at volume by the soundness campaign.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::value::{mirrored, negated, Abs, Values, FRESH};
use crate::ir::{BinaryOp, Value};
use std::collections::BTreeSet;

fn range(lo: i64, hi: i64) -> Abs {
    Abs::Range {
        money: false,
        lo,
        hi,
    }
}

fn set(values: &[Value]) -> Abs {
    Abs::Set(values.iter().cloned().collect::<Values>())
}

fn holds(op: BinaryOp, a: i64, b: i64) -> bool {
    match op {
        BinaryOp::Eq => a == b,
        BinaryOp::Ne => a != b,
        BinaryOp::Lt => a < b,
        BinaryOp::Le => a <= b,
        BinaryOp::Gt => a > b,
        _ => a >= b,
    }
}

const COMPARISONS: [BinaryOp; 6] = [
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
];

/// Small intervals in -3..=3, every one.
fn intervals() -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for lo in -3..=3 {
        for hi in lo..=3 {
            out.push((lo, hi));
        }
    }
    out
}

#[test]
fn comparisons_allow_every_concrete_outcome_and_no_other() {
    for (a, b) in intervals() {
        for (c, d) in intervals() {
            for op in COMPARISONS {
                let t = range(a, b).compare(op, &range(c, d)).as_truth();
                let outcomes: BTreeSet<bool> = (a..=b)
                    .flat_map(|x| (c..=d).map(move |y| holds(op, x, y)))
                    .collect();
                assert_eq!(
                    t.may_true,
                    outcomes.contains(&true),
                    "{a}..{b} {op:?} {c}..{d}"
                );
                assert_eq!(
                    t.may_false,
                    outcomes.contains(&false),
                    "{a}..{b} {op:?} {c}..{d}"
                );
            }
        }
    }
}

#[test]
fn narrowing_keeps_every_value_that_can_satisfy_the_comparison() {
    for (a, b) in intervals() {
        for (c, d) in intervals() {
            for op in COMPARISONS {
                let narrowed = range(a, b).narrow(op, &range(c, d));
                for x in a..=b {
                    if (c..=d).any(|y| holds(op, x, y)) {
                        let inside = narrowed.compare(BinaryOp::Eq, &range(x, x));
                        assert!(
                            inside.as_truth().may_true,
                            "{x} lost: {a}..{b} {op:?} {c}..{d}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn arithmetic_contains_every_concrete_result() {
    for (a, b) in intervals() {
        for (c, d) in intervals() {
            for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul] {
                let r = range(a, b).arith(op, &range(c, d));
                for x in a..=b {
                    for y in c..=d {
                        let v = match op {
                            BinaryOp::Add => x + y,
                            BinaryOp::Sub => x - y,
                            _ => x * y,
                        };
                        assert!(r.compare(BinaryOp::Eq, &range(v, v)).as_truth().may_true);
                    }
                }
            }
        }
    }
}

#[test]
fn inserted_rows_may_equal_each_other_but_never_a_starting_row() {
    let fresh = Abs::row(FRESH);
    let both = fresh.compare(BinaryOp::Eq, &Abs::row(FRESH)).as_truth();
    assert!(both.may_true && both.may_false);
    let start = fresh.compare(BinaryOp::Eq, &Abs::row(3)).as_truth();
    assert!(!start.may_true && start.may_false);
    // Narrowing a set of rows by `!= FRESH` keeps the inserted rows.
    let rows = set(&[Value::Row(3), Value::Row(FRESH)]);
    assert_eq!(rows.narrow(BinaryOp::Ne, &Abs::row(FRESH)), rows);
    assert_eq!(rows.narrow(BinaryOp::Ne, &Abs::row(3)), Abs::row(FRESH));
}

#[test]
fn joins_widen_to_top_and_bottom_is_neutral() {
    let bools = set(&[Value::Bool(true)]);
    assert_eq!(Abs::bottom().join(&bools), bools);
    assert_eq!(range(1, 2).join(&range(5, 6)), range(1, 6));
    let texts: Vec<Value> = (0..60)
        .map(|i| Value::Text(format!("t{i}").into()))
        .collect();
    assert_eq!(set(&texts[..30]).join(&set(&texts[30..])), Abs::Top);
    // A none beside numbers is not an interval.
    let optional = set(&[Value::None]).join(&range(1, 1));
    assert!(
        optional
            .compare(BinaryOp::Eq, &set(&[Value::None]))
            .as_truth()
            .may_true
    );
}

#[test]
fn negated_and_mirrored_operators_agree_with_the_concrete_ones() {
    for op in COMPARISONS {
        let not = negated(op).unwrap();
        let swapped = mirrored(op);
        for x in -2..=2 {
            for y in -2..=2 {
                assert_eq!(holds(not, x, y), !holds(op, x, y));
                assert_eq!(holds(swapped, y, x), holds(op, x, y));
            }
        }
    }
}

/// The small sets behave as sets: a join holds exactly the values of both
/// sides, built in any order, and equal sets compare equal.
#[test]
fn joined_value_sets_are_the_set_unions() {
    let pool: Vec<Value> = vec![
        Value::None,
        Value::Bool(false),
        Value::Bool(true),
        Value::Text("a".into()),
        Value::Text("b".into()),
        Value::Row(FRESH),
        Value::Row(2),
        Value::Enum(1),
    ];
    // Every pair of subsets of the first six values (bit masks), plus the
    // same sets built backwards.
    for x in 0u32..64 {
        for y in 0u32..64 {
            let pick = |m: u32| -> Vec<Value> {
                (0..6)
                    .filter(|i| m & (1 << i) != 0)
                    .map(|i| pool[i].clone())
                    .collect()
            };
            let (a, b) = (pick(x), pick(y));
            let joined = set(&a).join(&set(&b));
            let union: BTreeSet<Value> = a.iter().chain(&b).cloned().collect();
            let backwards: Vec<Value> = union.iter().rev().cloned().collect();
            match &joined {
                Abs::Set(s) => {
                    assert_eq!(s.iter().cloned().collect::<BTreeSet<_>>(), union);
                    assert!(s.iter().is_sorted(), "{s:?}");
                    assert_eq!(joined, set(&backwards));
                    for v in &pool {
                        assert_eq!(s.contains(v), union.contains(v), "{v:?} in {s:?}");
                    }
                }
                other => panic!("{a:?} ∪ {b:?} gave {other:?}"),
            }
        }
    }
}
