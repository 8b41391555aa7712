//! Text rendering of values (§2.2): what a page shows for `{expr}`.
//!
//! `Int` plainly, `Money` as `$1,299.00`, `Date` as `2026-11-29`, `Time` as
//! `11:00`, `Bool` as `yes`/`no`, an enum value by its variant's name, `none` as
//! the empty string, and a row by its `name` field when its table has one,
//! otherwise `#<id>` (also for a row that no longer exists). Rendering never
//! fails; in `eval::render_text` an interpolation whose evaluation faults
//! shows `—`.

use super::state::{idx, Database};
use crate::ir::{self, Ty, Value};
use crate::value::Money;

/// What a failed interpolation shows.
pub const FAILED: &str = "—";

/// A row's `name` may itself be a row whose `name` is a row…; past this depth
/// (only reachable through a cycle of such references) rows render as `#<id>`.
const MAX_NAME_DEPTH: u8 = 8;

/// Renders `value`, of static type `ty`, as page text.
pub fn render(program: &ir::Program, db: &Database, value: &Value, ty: &Ty) -> String {
    render_at(program, db, value, ty, 0)
}

fn render_at(program: &ir::Program, db: &Database, value: &Value, ty: &Ty, depth: u8) -> String {
    let ty = ty.without_optional();
    match value {
        Value::None => String::new(),
        Value::Int(n) => n.to_string(),
        Value::Money(c) => Money(*c).to_string(),
        Value::Bool(b) => (if *b { "yes" } else { "no" }).to_string(),
        Value::Text(t) => t.to_string(),
        Value::Date(d) => d.to_string(),
        Value::Time(t) => t.to_string(),
        Value::Enum(i) => variant_name(program, ty, *i),
        Value::Row(id) => row_name(program, db, ty, *id, depth).unwrap_or_else(|| format!("#{id}")),
    }
}

/// The variant's name; an index its enum lacks (a broken IR) shows as `#<i>`
/// rather than failing.
fn variant_name(program: &ir::Program, ty: &Ty, i: u32) -> String {
    let name = match ty {
        Ty::Enum(e) => program
            .enums
            .get(idx(*e))
            .and_then(|def| def.variants.get(idx(i))),
        _ => None,
    };
    name.cloned().unwrap_or_else(|| format!("#{i}"))
}

/// The rendering of the row's `name` field, when its table has one and the row
/// exists; `None` means "show `#<id>`".
fn row_name(program: &ir::Program, db: &Database, ty: &Ty, id: i64, depth: u8) -> Option<String> {
    let Ty::Row(table) = ty else { return None };
    if depth >= MAX_NAME_DEPTH {
        return None;
    }
    let def = program.tables.get(idx(*table))?;
    let at = def.fields.iter().position(|f| f.name == "name")?;
    let field = def.fields.get(at)?;
    let value = db.row(*table, id)?.values.get(at)?;
    Some(render_at(program, db, value, &field.ty, depth + 1))
}

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use super::*;
    use crate::interp::eval::{render_text, try_render_text, Context, Fault};
    use crate::ir::{BinaryOp, Expr, TextPart};

    fn show(value: Value, ty: Ty) -> String {
        let program = program();
        let db = Database::from_seed(&program);
        render(&program, &db, &value, &ty)
    }

    #[test]
    fn scalars_render_by_the_spec() {
        assert_eq!(show(Value::Int(1299), Ty::Int), "1299");
        assert_eq!(show(Value::Int(-3), Ty::Int), "-3");
        assert_eq!(show(Value::Money(129_900), Ty::Money), "$1,299.00");
        assert_eq!(show(Value::Money(-2500), Ty::Money), "-$25.00");
        assert_eq!(
            show(Value::Date(date("2026-11-29")), Ty::Date),
            "2026-11-29"
        );
        assert_eq!(show(Value::Time(time("11:00")), Ty::Time), "11:00");
        assert_eq!(show(Value::Time(time("9:05")), Ty::Time), "09:05");
        assert_eq!(show(Value::Bool(true), Ty::Bool), "yes");
        assert_eq!(show(Value::Bool(false), Ty::Bool), "no");
        assert_eq!(show(text("hi there"), Ty::Text), "hi there");
    }

    #[test]
    fn none_and_optionals() {
        let opt = |t| Ty::Optional(Box::new(t));
        assert_eq!(show(Value::None, opt(Ty::Money)), "");
        assert_eq!(show(Value::Money(500), opt(Ty::Money)), "$5.00");
        assert_eq!(show(Value::Row(42), opt(Ty::Row(PRODUCT))), "ThinkPad X1");
        assert_eq!(show(Value::None, opt(Ty::Row(PRODUCT))), "");
    }

    #[test]
    fn enums_render_by_variant_name() {
        assert_eq!(show(Value::Enum(1), Ty::Enum(0)), "confirmed");
        assert_eq!(show(Value::Enum(2), Ty::Enum(0)), "cancelled");
        // A broken IR still renders something rather than failing.
        assert_eq!(show(Value::Enum(9), Ty::Enum(0)), "#9");
    }

    #[test]
    fn rows_render_by_name_or_id() {
        assert_eq!(show(Value::Row(43), Ty::Row(PRODUCT)), "Logi M185");
        // No `name` field.
        assert_eq!(show(Value::Row(1), Ty::Row(LINE)), "#1");
        assert_eq!(show(Value::Row(1), Ty::Row(TAG)), "#1");
        // A row that no longer exists.
        assert_eq!(show(Value::Row(99), Ty::Row(PRODUCT)), "#99");
        // `name` is itself a reference, here in a cycle: rendering still ends.
        let cyclic = show(Value::Row(1), Ty::Row(ALIAS));
        assert_eq!(cyclic, "#1");
    }

    #[test]
    fn a_name_that_is_a_reference_renders_through_it() {
        let mut program = program();
        // Break the cycle: Alias 2's name becomes none.
        if let Some(t) = program.tables.get_mut(ALIAS as usize) {
            t.seed[1].values[0] = Value::None;
        }
        let db = Database::from_seed(&program);
        // Alias 1's name is Alias 2, whose name is none: renders "".
        assert_eq!(render(&program, &db, &Value::Row(1), &Ty::Row(ALIAS)), "");
    }

    #[test]
    fn text_parts_render_and_failures_show_a_dash() {
        let program = program();
        let db = Database::from_seed(&program);
        let ctx = Context {
            program: &program,
            db: &db,
            session: &[],
            nav: None,
        };
        let parts = vec![
            TextPart::Lit("Buy ".into()),
            TextPart::Interp(at(PRODUCT, 42), Ty::Row(PRODUCT)),
            TextPart::Lit(" for ".into()),
            TextPart::Interp(fld(at(PRODUCT, 42), PRODUCT, PRICE), Ty::Money),
            TextPart::Lit(", ratio ".into()),
            TextPart::Interp(bin(BinaryOp::Div, int(1), int(0)), Ty::Int),
            TextPart::Lit(", restock ".into()),
            TextPart::Interp(
                fld(at(PRODUCT, 42), PRODUCT, RESTOCK),
                Ty::Optional(Box::new(Ty::Date)),
            ),
            TextPart::Lit(".".into()),
        ];
        let mut frame = Vec::new();
        assert_eq!(
            render_text(&ctx, &mut frame, &parts),
            "Buy ThinkPad X1 for $1,299.00, ratio —, restock ."
        );
        assert_eq!(
            try_render_text(&ctx, &mut frame, &parts),
            Err(Fault::DivisionByZero)
        );
        let status = vec![TextPart::Interp(
            fld(Expr::Local(0), PRODUCT, STATUS),
            Ty::Enum(0),
        )];
        let mut frame = vec![Value::Row(43)];
        assert_eq!(render_text(&ctx, &mut frame, &status), "confirmed");
    }
}
