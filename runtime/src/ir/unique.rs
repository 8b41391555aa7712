//! Uniqueness invariants, recognised so the gate can check a commit that only
//! adds rows one added row at a time.
//!
//! The shape is `all v in T: count(w in T where w.a == v.a and … ) == 1`
//! (either side of the `==`, and of each key equality): no row of `T` shares
//! its key — the fields `a, …` — with another. Checking it on every row of a
//! table costs the square of its rows. When the invariant held before a
//! commit, the commit changed no key field of a row it kept, and the rows it
//! added are `N`, the invariant holds after it exactly when each row `r` of
//! `N` is alone with its key (`count(w in T where K(w, r)) == 1`):
//!
//! - A kept row `v` matched only itself before (`K` is reflexive: equality
//!   is, `none == none` included; LANGUAGE.md §3), and deleted rows match it
//!   no longer, so the only rows that can now match it are added ones.
//! - If an added row `r` matched `v`, then `v` matches `r` (equality is
//!   symmetric), and `r` matches itself, so `r`'s count is at least 2.
//!
//! Key equalities compare plain fields of the two binders, so evaluating them
//! cannot fail (no `none` row, no division), and the per-row count reads
//! nothing the whole invariant does not. The runner in `jit::marker` takes
//! this path only for an invariant known to hold on the state the commit
//! starts from; anything else is checked whole.

use super::{BinaryOp, Expr, FieldId, InvariantDef, RowScan, Slot, TableId, Value};

/// A uniqueness invariant, taken apart.
#[derive(Clone, Debug)]
pub struct UniqueKey {
    /// The table whose rows must have distinct keys.
    pub table: TableId,
    /// The outer binder `v`: the per-row check reads the row it tests here.
    pub row: Slot,
    /// The key fields, each once, in the order met.
    pub fields: Vec<FieldId>,
    /// `count(w in T where …) == 1` with `v` free: row `v` is alone with its
    /// key.
    pub alone: Expr,
}

impl UniqueKey {
    /// The key of `inv`, when it has the uniqueness shape.
    pub fn of(inv: &InvariantDef) -> Option<UniqueKey> {
        let Expr::All(outer, body) = &inv.cond else {
            return None;
        };
        if outer.filter.is_some() {
            return None;
        }
        let inner = counted_once(body)?;
        if inner.table != outer.table || inner.binder == outer.binder {
            return None;
        }
        let mut fields = Vec::new();
        key_fields(inner.filter.as_deref()?, outer, inner.binder, &mut fields)?;
        Some(UniqueKey {
            table: outer.table,
            row: outer.binder,
            fields,
            alone: (**body).clone(),
        })
    }

    /// Whether a change to field `field` of the table can change a key.
    pub fn is_key(&self, field: FieldId) -> bool {
        self.fields.contains(&field)
    }
}

/// The scan of `count(scan) == 1` (or `1 == count(scan)`).
fn counted_once(body: &Expr) -> Option<&RowScan> {
    let Expr::Binary(BinaryOp::Eq, l, r) = body else {
        return None;
    };
    match (&**l, &**r) {
        (Expr::Count(scan), Expr::Const(Value::Int(1)))
        | (Expr::Const(Value::Int(1)), Expr::Count(scan)) => Some(scan),
        _ => None,
    }
}

/// Collects the key fields of `filter`, a conjunction of `w.f == v.f`; `None`
/// when any conjunct has another shape.
fn key_fields(filter: &Expr, outer: &RowScan, inner: Slot, out: &mut Vec<FieldId>) -> Option<()> {
    let Expr::Binary(op, l, r) = filter else {
        return None;
    };
    match op {
        BinaryOp::And => {
            key_fields(l, outer, inner, out)?;
            key_fields(r, outer, inner, out)
        }
        BinaryOp::Eq => {
            let (a, fa) = plain_field(l, outer.table)?;
            let (b, fb) = plain_field(r, outer.table)?;
            let binders = (a == outer.binder && b == inner) || (a == inner && b == outer.binder);
            if !binders || fa != fb {
                return None;
            }
            if !out.contains(&fa) {
                out.push(fa);
            }
            Some(())
        }
        _ => None,
    }
}

/// `x.f` for a local `x` and a field `f` of `table`.
fn plain_field(e: &Expr, table: TableId) -> Option<(Slot, FieldId)> {
    match e {
        Expr::Field {
            row,
            table: t,
            field,
        } if *t == table => match &**row {
            Expr::Local(slot) => Some((*slot, *field)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(slot: Slot, f: FieldId) -> Expr {
        Expr::Field {
            row: Box::new(Expr::Local(slot)),
            table: 3,
            field: f,
        }
    }

    fn eq(l: Expr, r: Expr) -> Expr {
        Expr::Binary(BinaryOp::Eq, Box::new(l), Box::new(r))
    }

    fn and(l: Expr, r: Expr) -> Expr {
        Expr::Binary(BinaryOp::And, Box::new(l), Box::new(r))
    }

    fn scan(binder: Slot, table: TableId, filter: Option<Expr>) -> RowScan {
        RowScan {
            binder,
            table,
            filter: filter.map(Box::new),
        }
    }

    fn invariant(filter: Expr, once: Expr) -> InvariantDef {
        let count = Expr::Count(scan(1, 3, Some(filter)));
        InvariantDef {
            name: "unique".into(),
            cond: Expr::All(scan(0, 3, None), Box::new(eq(count, once))),
            frame: 2,
        }
    }

    fn one() -> Expr {
        Expr::Const(Value::Int(1))
    }

    #[test]
    fn two_key_fields_either_way_round() {
        let filter = and(eq(field(1, 4), field(0, 4)), eq(field(0, 2), field(1, 2)));
        let key = UniqueKey::of(&invariant(filter, one())).expect("the shape");
        assert_eq!((key.table, key.row, key.fields.clone()), (3, 0, vec![4, 2]));
        assert!(key.is_key(2) && !key.is_key(5));
    }

    #[test]
    fn other_shapes_are_checked_whole() {
        // Different fields on the two sides.
        assert!(UniqueKey::of(&invariant(eq(field(1, 4), field(0, 2)), one())).is_none());
        // A count of 2, or an `or`.
        let two = Expr::Const(Value::Int(2));
        assert!(UniqueKey::of(&invariant(eq(field(1, 4), field(0, 4)), two)).is_none());
        let either = Expr::Binary(
            BinaryOp::Or,
            Box::new(eq(field(1, 4), field(0, 4))),
            Box::new(eq(field(1, 2), field(0, 2))),
        );
        assert!(UniqueKey::of(&invariant(either, one())).is_none());
        // Both sides the same binder: true of every row, not a key.
        assert!(UniqueKey::of(&invariant(eq(field(1, 4), field(1, 4)), one())).is_none());
        // A `!=`.
        let ne = Expr::Binary(BinaryOp::Ne, Box::new(field(1, 4)), Box::new(field(0, 4)));
        assert!(UniqueKey::of(&invariant(ne, one())).is_none());
    }

    #[test]
    fn a_filtered_outer_scan_or_another_table_is_checked_whole() {
        let mut inv = invariant(eq(field(1, 4), field(0, 4)), one());
        if let Expr::All(outer, _) = &mut inv.cond {
            outer.filter = Some(Box::new(Expr::Const(Value::Bool(true))));
        }
        assert!(UniqueKey::of(&inv).is_none());
        let mut inv = invariant(eq(field(1, 4), field(0, 4)), one());
        if let Expr::All(outer, _) = &mut inv.cond {
            outer.table = 4;
        }
        assert!(UniqueKey::of(&inv).is_none());
    }
}
