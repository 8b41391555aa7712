//! The abstract values of the static bound (`super`): a set of run-time
//! values that over-approximates what one location (a session variable, one
//! field of one row, the same field of every row inserted after the start)
//! can hold.
//!
//! `Set(∅)` is the bottom: no value at all (a row that does not exist, an
//! evaluation that always fails). A run-time value that an evaluation can
//! produce without failing is always in the abstract value computed for it;
//! operations on abstract values keep that promise and lose precision (towards
//! `Top`) whenever they are unsure. Int and Money values are intervals, so
//! that counters stay finite; everything else is a small explicit set.

use crate::ir::{BinaryOp, Value};

/// The row id that stands for every row inserted after the instance starts:
/// such rows get ids above every id the start held (ids are never reused,
/// `TableState::issue_id`), so they never alias a row the start had.
pub(super) const FRESH: i64 = i64::MIN;

/// Explicit sets larger than this become `Top`.
const MAX_SET: usize = 48;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Abs {
    /// Any value of the expression's type (or `none`, for an optional one).
    Top,
    /// The Int (or Money, in cents) values `lo..=hi`; never `none`.
    Range { money: bool, lo: i64, hi: i64 },
    /// Exactly these values; empty is the bottom.
    Set(Values),
}

/// A small set of values: sorted, without repeats, so that equal sets are
/// equal vectors. Most abstract values hold one or two values; a vector
/// keeps them in one small allocation, where a tree set allocates a node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Values(Vec<Value>);

impl Values {
    fn one(v: Value) -> Values {
        Values(vec![v])
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn contains(&self, v: &Value) -> bool {
        self.0.binary_search(v).is_ok()
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, Value> {
        self.0.iter()
    }

    /// Both sets' values, merged in order.
    fn union(&self, other: &Values) -> Values {
        let (mut a, mut b) = (self.0.iter().peekable(), other.0.iter().peekable());
        let mut out = Vec::with_capacity(self.0.len() + other.0.len());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => match x.cmp(y) {
                    std::cmp::Ordering::Less => a.next(),
                    std::cmp::Ordering::Greater => b.next(),
                    std::cmp::Ordering::Equal => {
                        b.next();
                        a.next()
                    }
                },
                (Some(_), None) => a.next(),
                (None, Some(_)) => b.next(),
                (None, None) => break,
            };
            out.extend(next.cloned());
        }
        Values(out)
    }
}

impl FromIterator<Value> for Values {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Values {
        let mut v: Vec<Value> = iter.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        Values(v)
    }
}

impl<'a> IntoIterator for &'a Values {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// What a Bool-valued abstract value allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Truth {
    pub may_true: bool,
    pub may_false: bool,
}

impl Abs {
    pub(super) fn bottom() -> Abs {
        Abs::Set(Values::default())
    }

    pub(super) fn of(v: &Value) -> Abs {
        match v {
            Value::Int(n) => Abs::Range {
                money: false,
                lo: *n,
                hi: *n,
            },
            Value::Money(n) => Abs::Range {
                money: true,
                lo: *n,
                hi: *n,
            },
            other => Abs::Set(Values::one(other.clone())),
        }
    }

    pub(super) fn row(id: i64) -> Abs {
        Abs::Set(Values::one(Value::Row(id)))
    }

    pub(super) fn truth(t: Truth) -> Abs {
        // In the values' order: `false` before `true`.
        let s = [(t.may_false, false), (t.may_true, true)]
            .into_iter()
            .filter(|&(may, _)| may)
            .map(|(_, b)| Value::Bool(b));
        Abs::Set(Values(s.collect()))
    }

    pub(super) fn is_bottom(&self) -> bool {
        matches!(self, Abs::Set(s) if s.is_empty())
    }

    /// Which truth values a Bool-valued abstract value allows.
    pub(super) fn as_truth(&self) -> Truth {
        match self {
            Abs::Set(s) => Truth {
                may_true: s.contains(&Value::Bool(true)),
                may_false: s.contains(&Value::Bool(false)),
            },
            Abs::Top | Abs::Range { .. } => Truth {
                may_true: true,
                may_false: true,
            },
        }
    }

    /// The one value, when there is exactly one.
    pub(super) fn single(&self) -> Option<Value> {
        match self {
            Abs::Range { money, lo, hi } if lo == hi => Some(if *money {
                Value::Money(*lo)
            } else {
                Value::Int(*lo)
            }),
            Abs::Set(s) if s.len() == 1 => s.iter().next().cloned(),
            _ => None,
        }
    }

    /// The least abstract value holding both.
    pub(super) fn join(&self, other: &Abs) -> Abs {
        match (self.as_range(), other.as_range()) {
            (Some((m, a, b)), Some((n, c, d))) if m == n => Abs::Range {
                money: m,
                lo: a.min(c),
                hi: b.max(d),
            },
            _ => match (self, other) {
                (x, y) if y.is_bottom() => x.clone(),
                (x, y) if x.is_bottom() => y.clone(),
                (Abs::Set(a), Abs::Set(b)) => {
                    let s = a.union(b);
                    if s.len() > MAX_SET {
                        Abs::Top
                    } else {
                        Abs::Set(s)
                    }
                }
                _ => Abs::Top,
            },
        }
    }

    /// `(money, lo, hi)` when every value is an Int, or every one a Money
    /// (a non-empty set of them counts too).
    fn as_range(&self) -> Option<(bool, i64, i64)> {
        match self {
            Abs::Range { money, lo, hi } => Some((*money, *lo, *hi)),
            Abs::Set(s) => {
                let money = matches!(s.iter().next()?, Value::Money(_));
                let mut range: Option<(i64, i64)> = None;
                for v in s {
                    let n = match (v, money) {
                        (Value::Int(n), false) | (Value::Money(n), true) => *n,
                        _ => return None,
                    };
                    range = Some(range.map_or((n, n), |(lo, hi)| (lo.min(n), hi.max(n))));
                }
                range.map(|(lo, hi)| (money, lo, hi))
            }
            Abs::Top => None,
        }
    }

    /// The result of comparing every value of `self` with every value of
    /// `other` by `op` (`==`, `!=`, `<`, `<=`, `>`, `>=`).
    pub(super) fn compare(&self, op: BinaryOp, other: &Abs) -> Abs {
        if self.is_bottom() || other.is_bottom() {
            return Abs::bottom();
        }
        let any = Truth {
            may_true: true,
            may_false: true,
        };
        let t = match (self.as_range(), other.as_range()) {
            (Some((m, a, b)), Some((n, c, d))) if m == n => range_compare(op, (a, b), (c, d)),
            _ => match (self, other, op) {
                (Abs::Set(x), Abs::Set(y), BinaryOp::Eq | BinaryOp::Ne) => {
                    let mut t = Truth {
                        may_true: false,
                        may_false: false,
                    };
                    for a in x {
                        for b in y {
                            // Two rows inserted after the start may be one row or two.
                            let fresh = *a == Value::Row(FRESH) && *b == Value::Row(FRESH);
                            let equal = a == b;
                            t.may_true |= equal;
                            t.may_false |= !equal || fresh;
                        }
                    }
                    if op == BinaryOp::Ne {
                        t = Truth {
                            may_true: t.may_false,
                            may_false: t.may_true,
                        };
                    }
                    t
                }
                _ => any,
            },
        };
        Abs::truth(t)
    }

    /// `self` narrowed to the values `v` for which `v op other` can hold.
    pub(super) fn narrow(&self, op: BinaryOp, other: &Abs) -> Abs {
        if other.is_bottom() {
            return Abs::bottom();
        }
        if let (Some((m, lo, hi)), Some((n, c, d))) = (self.as_range(), other.as_range()) {
            if m != n {
                return self.clone();
            }
            let (lo, hi) = match op {
                BinaryOp::Lt => (lo, hi.min(d.saturating_sub(1))),
                BinaryOp::Le => (lo, hi.min(d)),
                BinaryOp::Gt => (lo.max(c.saturating_add(1)), hi),
                BinaryOp::Ge => (lo.max(c), hi),
                BinaryOp::Eq => (lo.max(c), hi.min(d)),
                BinaryOp::Ne if c == d && lo == c => (lo.saturating_add(1), hi),
                BinaryOp::Ne if c == d && hi == c => (lo, hi.saturating_sub(1)),
                _ => (lo, hi),
            };
            return if lo > hi {
                Abs::bottom()
            } else {
                Abs::Range { money: m, lo, hi }
            };
        }
        match (self, op) {
            (Abs::Top, BinaryOp::Eq) if other.single().is_some() => other.clone(),
            (Abs::Set(s), BinaryOp::Eq | BinaryOp::Ne) => {
                let keep: Values = s
                    .iter()
                    .filter(|v| Abs::of(v).compare(op, other).as_truth().may_true)
                    .cloned()
                    .collect();
                Abs::Set(keep)
            }
            _ => self.clone(),
        }
    }

    /// `self op other` for `+`, `-` and `*` on Int and Money; `Top` otherwise.
    pub(super) fn arith(&self, op: BinaryOp, other: &Abs) -> Abs {
        if self.is_bottom() || other.is_bottom() {
            return Abs::bottom();
        }
        let (Some((m, a, b)), Some((n, c, d))) = (self.as_range(), other.as_range()) else {
            return Abs::Top;
        };
        let (lo, hi) = match op {
            BinaryOp::Add => (a.saturating_add(c), b.saturating_add(d)),
            BinaryOp::Sub => (a.saturating_sub(d), b.saturating_sub(c)),
            BinaryOp::Mul => {
                let p = [
                    a.saturating_mul(c),
                    a.saturating_mul(d),
                    b.saturating_mul(c),
                    b.saturating_mul(d),
                ];
                let lo = p.iter().copied().min().unwrap_or(i64::MIN);
                let hi = p.iter().copied().max().unwrap_or(i64::MAX);
                (lo, hi)
            }
            _ => return Abs::Top,
        };
        Abs::Range {
            money: m || n,
            lo,
            hi,
        }
    }

    /// `-self`.
    pub(super) fn negate(&self) -> Abs {
        match self.as_range() {
            Some((money, lo, hi)) => Abs::Range {
                money,
                lo: hi.saturating_neg(),
                hi: lo.saturating_neg(),
            },
            None if self.is_bottom() => Abs::bottom(),
            None => Abs::Top,
        }
    }
}

/// Whether `x op y` can hold and can fail to hold for some `x` in `a` and
/// `y` in `b` (inclusive intervals).
fn range_compare(op: BinaryOp, (a, b): (i64, i64), (c, d): (i64, i64)) -> Truth {
    let (may_true, may_false) = match op {
        BinaryOp::Eq => (a <= d && c <= b, !(a == b && c == d && a == c)),
        BinaryOp::Ne => (!(a == b && c == d && a == c), a <= d && c <= b),
        BinaryOp::Lt => (a < d, b >= c),
        BinaryOp::Le => (a <= d, b > c),
        BinaryOp::Gt => (b > c, a <= d),
        BinaryOp::Ge => (b >= c, a < d),
        _ => (true, true),
    };
    Truth {
        may_true,
        may_false,
    }
}

/// The operator that holds exactly when `op` does not.
pub(super) fn negated(op: BinaryOp) -> Option<BinaryOp> {
    Some(match op {
        BinaryOp::Eq => BinaryOp::Ne,
        BinaryOp::Ne => BinaryOp::Eq,
        BinaryOp::Lt => BinaryOp::Ge,
        BinaryOp::Le => BinaryOp::Gt,
        BinaryOp::Gt => BinaryOp::Le,
        BinaryOp::Ge => BinaryOp::Lt,
        _ => return None,
    })
}

/// The operator with its sides swapped (`a < b` is `b > a`).
pub(super) fn mirrored(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        other => other,
    }
}
