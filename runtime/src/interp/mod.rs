//! The reference interpreter: evaluating IR expressions over a database state.
//!
//! This is the executable definition of §3 and §5 of the language spec for
//! expressions. It is deliberately plain — a tree walk over `ir::Expr` with no
//! caching — because every faster engine (the JIT, the prover's encodings) is
//! checked against it. `state` holds the tables, `eval` computes values (a run-time
//! failure is a `Fault`, never a panic), `render` turns values into the text a
//! page shows (§2.2), and `guard` decides where a navigation lands (§3, page
//! guards).

mod builtins;
pub mod eval;
pub mod exec;
mod fault;
pub mod gate;
pub mod guard;
pub mod render;
pub mod state;
mod world;

pub use eval::{eval, eval_bool, render_text, Context, Fault};
pub use fault::{ActionFault, NamedFault};
pub use render::render;
pub use state::{Database, TableState};

/// A small hand-built program and expression builders for the tests of this
/// module's files.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::ir::*;
    use crate::value::{Date, Time};

    pub const PRODUCT: TableId = 0;
    pub const LINE: TableId = 1;
    pub const TAG: TableId = 2;
    pub const EMPTY: TableId = 3;
    pub const ALIAS: TableId = 4;
    /// Product's fields.
    pub const NAME: FieldId = 0;
    pub const PRICE: FieldId = 1;
    pub const STOCK: FieldId = 2;
    pub const RESTOCK: FieldId = 3;
    pub const STATUS: FieldId = 4;
    /// Line's fields.
    pub const L_PRODUCT: FieldId = 0;
    pub const L_QTY: FieldId = 1;

    pub fn date(s: &str) -> Date {
        Date::parse_body(s).unwrap()
    }

    pub fn time(s: &str) -> Time {
        Time::parse_body(s).unwrap()
    }

    fn field(name: &str, ty: Ty) -> FieldDef {
        FieldDef {
            name: name.into(),
            ty,
        }
    }

    fn table(name: &str, fields: Vec<FieldDef>, seed: Vec<RowData>) -> TableDef {
        TableDef {
            name: name.into(),
            fields,
            capacity: 64,
            seed,
        }
    }

    fn row(id: i64, values: Vec<Value>) -> RowData {
        RowData { id, values }
    }

    /// Product 42 "ThinkPad X1" $1,299.00 ×5 open; 43 "Logi M185" $14.99 ×0
    /// restock 2026-12-10 confirmed; 50 "Cable" $5.00 ×10 open. Lines 1 (42 ×2)
    /// and 2 (43 ×3). Tag 1 "sale" (no `name` field). Empty has no rows. Alias
    /// 1 and 2 name each other.
    pub fn program() -> Program {
        let product = table(
            "Product",
            vec![
                field("name", Ty::Text),
                field("price", Ty::Money),
                field("stock", Ty::Int),
                field("restock", Ty::Optional(Box::new(Ty::Date))),
                field("status", Ty::Enum(0)),
            ],
            vec![
                row(
                    42,
                    vec![
                        text("ThinkPad X1"),
                        Value::Money(129_900),
                        Value::Int(5),
                        Value::None,
                        Value::Enum(0),
                    ],
                ),
                row(
                    43,
                    vec![
                        text("Logi M185"),
                        Value::Money(1499),
                        Value::Int(0),
                        Value::Date(date("2026-12-10")),
                        Value::Enum(1),
                    ],
                ),
                row(
                    50,
                    vec![
                        text("Cable"),
                        Value::Money(500),
                        Value::Int(10),
                        Value::None,
                        Value::Enum(0),
                    ],
                ),
            ],
        );
        let line = table(
            "Line",
            vec![field("product", Ty::Row(PRODUCT)), field("qty", Ty::Int)],
            vec![
                row(1, vec![Value::Row(42), Value::Int(2)]),
                row(2, vec![Value::Row(43), Value::Int(3)]),
            ],
        );
        let tag = table(
            "Tag",
            vec![field("label", Ty::Text)],
            vec![row(1, vec![text("sale")])],
        );
        let empty = table(
            "Empty",
            vec![field("amount", Ty::Money), field("n", Ty::Int)],
            vec![],
        );
        let alias = table(
            "Alias",
            vec![field("name", Ty::Optional(Box::new(Ty::Row(ALIAS))))],
            vec![row(1, vec![Value::Row(2)]), row(2, vec![Value::Row(1)])],
        );
        Program {
            site: SiteInfo {
                name: "Shop".into(),
                title: "Acme".into(),
                domain: "ecommerce".into(),
                today: date("2026-11-29"),
                start: crate::ir::PageCall {
                    page: 0,
                    args: vec![],
                },
            },
            enums: vec![EnumDef {
                name: "Status".into(),
                variants: vec!["open".into(), "confirmed".into(), "cancelled".into()],
            }],
            tables: vec![product, line, tag, empty, alias],
            session: vec![SessionDef {
                name: "user".into(),
                ty: Ty::Int,
                init: Value::Int(7),
            }],
            invariants: vec![],
            pages: vec![],
            markers: vec![],
            tasks: vec![],
        }
    }

    pub fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    pub fn c(v: Value) -> Expr {
        Expr::Const(v)
    }

    pub fn int(n: i64) -> Expr {
        c(Value::Int(n))
    }

    pub fn money(cents: i64) -> Expr {
        c(Value::Money(cents))
    }

    pub fn bool_(b: bool) -> Expr {
        c(Value::Bool(b))
    }

    pub fn none() -> Expr {
        c(Value::None)
    }

    pub fn local(s: Slot) -> Expr {
        Expr::Local(s)
    }

    pub fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary(op, Box::new(l), Box::new(r))
    }

    pub fn fld(row: Expr, table: TableId, field: FieldId) -> Expr {
        Expr::Field {
            row: Box::new(row),
            table,
            field,
        }
    }

    pub fn at(table: TableId, id: i64) -> Expr {
        Expr::Lookup {
            table,
            id: Box::new(int(id)),
        }
    }

    pub fn over(binder: Slot, table: TableId, filter: Option<Expr>) -> RowScan {
        RowScan {
            binder,
            table,
            filter: filter.map(Box::new),
        }
    }

    /// `1 / 0 == 0`: a condition that always faults.
    pub fn faulty() -> Expr {
        bin(BinaryOp::Eq, bin(BinaryOp::Div, int(1), int(0)), int(0))
    }
}
