//! Differential tests of row lookups by a constant id inside scans, which
//! the code generator searches once ahead of the scan (`codegen/rows.rs`):
//! a row that is found, one that is missing where the lookup is reached
//! (the fault comes where it is evaluated) and where it is not (no fault),
//! lookups in nested scans, a field read through a searched row, and two
//! tables looked up by the same id. Each condition runs in both engines.

use super::*;

fn line_is(product: Expr) -> Expr {
    bin(Eq, fld(local(1), LINE, L_PRODUCT), product)
}

/// Some line has quantity `qty` and the product `product` (looked up only
/// for lines of that quantity).
fn qty_then(qty: i64, product: Expr) -> Expr {
    Expr::Exists(
        over(1, LINE, None),
        Box::new(bin(
            And,
            bin(Eq, fld(local(1), LINE, L_QTY), int(qty)),
            line_is(product),
        )),
    )
}

/// Some line is scanned while Tag 1's label is `label`, or is of Product
/// 1 (which does not exist).
fn tag_or_product_1(label: &str) -> Expr {
    Expr::Exists(
        over(1, LINE, None),
        Box::new(bin(
            Or,
            bin(Eq, fld(at(TAG, 1), TAG, 0), t(label)),
            line_is(at(PRODUCT, 1)),
        )),
    )
}

#[test]
fn constant_lookups_in_scans_fault_only_where_reached() {
    let missing = fault(Fault::MissingRow {
        table: PRODUCT,
        id: 44,
    });
    let r = plain(&[
        Expr::Exists(over(1, LINE, None), Box::new(line_is(at(PRODUCT, 43)))),
        Expr::Exists(over(1, LINE, None), Box::new(line_is(at(PRODUCT, 44)))),
        // No row to scan, so the missing row is never looked up.
        Expr::Exists(
            over(1, EMPTY, None),
            Box::new(bin(Eq, fld(at(PRODUCT, 44), PRODUCT, STOCK), int(0))),
        ),
        // Rows scanned, the lookup never reached.
        qty_then(99, at(PRODUCT, 44)),
        // Reached at the second line only.
        qty_then(3, at(PRODUCT, 44)),
        // In the filter of a scan nested in another.
        Expr::All(
            over(0, PRODUCT, None),
            Box::new(bin(
                Eq,
                Expr::Count(over(1, LINE, Some(line_is(at(PRODUCT, 42))))),
                int(1),
            )),
        ),
        // A field of the row searched ahead.
        Expr::All(
            over(1, LINE, None),
            Box::new(bin(
                Lt,
                fld(local(1), LINE, L_QTY),
                fld(at(PRODUCT, 50), PRODUCT, STOCK),
            )),
        ),
        // The same id in two tables: Tag 1 exists, Product 1 does not.
        tag_or_product_1("sale"),
        tag_or_product_1("none"),
    ]);
    let missing_1 = fault(Fault::MissingRow {
        table: PRODUCT,
        id: 1,
    });
    assert_eq!(
        r,
        vec![
            Ok(true),
            missing.clone(),
            Ok(false),
            Ok(false),
            missing,
            Ok(true),
            Ok(true),
            Ok(true),
            missing_1,
        ]
    );
}
