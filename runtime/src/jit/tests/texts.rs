//! Texts and loops the JIT renders against the interpreter: list loops in
//! page structures, interpolations of every type, a faulting
//! interpolation, and frame values shown in texts.

use super::*;

#[test]
fn list_loops_render_as_the_interpreter_does() {
    use crate::ir::{Action, Element, ElementKind, ForElement, LoopSource, SourcePos};
    let el = |id: u32, kind: ElementKind| Element {
        id,
        name: None,
        pos: SourcePos {
            line: 1,
            column: id,
        },
        kind,
    };
    let list = |slot: crate::ir::Slot, items: Vec<Expr>, filter: Option<Expr>| LoopSource::List {
        slot,
        items,
        filter: filter.map(Box::new),
    };
    let mut p = program(&[], &[Ty::Text]);
    let t = |s: &str| c(text(s));
    // Texts (one faulting, one `none`), filtered, by text desc, the first
    // skipped, limited.
    let texts = ForElement {
        binder_name: "x".into(),
        source: list(
            1,
            vec![
                t("b"),
                t("a"),
                fld(at(PRODUCT, 999), PRODUCT, NAME),
                none(),
                t("d"),
                t("c"),
            ],
            Some(bin(Ne, local(1), t("c"))),
        ),
        order: Some((local(1), true)),
        limit: Some(int(3)),
        offset: Some(int(1)),
        body: vec![el(
            2,
            ElementKind::Button {
                label: vec![],
                action: Action::Marker {
                    marker: 0,
                    args: vec![local(1)],
                },
                disabled: Some(bin(Eq, local(1), t("a"))),
            },
        )],
    };
    // Ints in list order, an input per kept item (its path an index); a
    // negative offset skips nothing.
    let ints = ForElement {
        binder_name: "n".into(),
        source: list(
            2,
            vec![int(3), int(1), int(2)],
            Some(bin(Gt, local(2), int(1))),
        ),
        order: None,
        limit: Some(faulty()),
        offset: Some(int(-5)),
        body: vec![el(
            4,
            ElementKind::Input {
                slot: 3,
                ty: Ty::Int,
                label: vec![],
            },
        )],
    };
    p.pages[0].body = vec![
        el(1, ElementKind::For(texts)),
        el(3, ElementKind::For(ints)),
    ];
    p.pages[0].frame = 4;
    let Compiled {
        mut pool,
        site,
        state: s,
        bytes,
        ..
    } = compiled(&p);
    assert!(
        site.page_is_compiled(0),
        "{:?}",
        site.page_fallback_reason(0)
    );
    let view = crate::env::observe::render_page(&p, &s);
    let want = crate::env::observe::structure(&view, &s, &mut pool).unwrap();
    let mut got = PageStructure::default();
    site.render_structure(0, &bytes, &mut pool, &mut got)
        .unwrap();
    assert_eq!(got, want);
    let paths: Vec<_> = got
        .elements
        .iter()
        .map(|e| (e.id, got.path_of(e).to_vec()))
        .collect();
    assert_eq!(
        paths,
        vec![
            (2, vec![0]),
            (2, vec![1]),
            (2, vec![3]),
            (4, vec![0]),
            (4, vec![2]),
        ]
    );
}

// ---- text interpolation ----------------------------------------------------------

/// `"{…}…"`: literal pieces and interpolations (`(expr, static type)`).
pub(super) fn interp(parts: Vec<Result<&str, (Expr, Ty)>>) -> Expr {
    Expr::Text(
        parts
            .into_iter()
            .map(|p| match p {
                Ok(l) => ir::TextPart::Lit(l.into()),
                Err((e, ty)) => ir::TextPart::Interp(e, ty),
            })
            .collect(),
    )
}

/// `"{e}" == expected`.
fn shows(e: Expr, ty: Ty, expected: &str) -> Expr {
    bin(Eq, interp(vec![Err((e, ty))]), t(expected))
}

pub(super) fn opt(ty: Ty) -> Ty {
    Ty::Optional(Box::new(ty))
}

#[test]
fn text_interpolations_render_as_the_interpreter_does() {
    let conds = [
        shows(int(-1234), Ty::Int, "-1234"),
        shows(fld(at(PRODUCT, 42), PRODUCT, PRICE), Ty::Money, "$1,299.00"),
        shows(money(-5), Ty::Money, "-$0.05"),
        shows(bool_(true), Ty::Bool, "yes"),
        shows(bool_(false), Ty::Bool, "no"),
        shows(fld(at(PRODUCT, 43), PRODUCT, NAME), Ty::Text, "Logi M185"),
        shows(
            fld(at(PRODUCT, 43), PRODUCT, RESTOCK),
            opt(Ty::Date),
            "2026-12-10",
        ),
        shows(c(Value::Time(time("09:05"))), Ty::Time, "09:05"),
        shows(
            fld(at(PRODUCT, 43), PRODUCT, STATUS),
            Ty::Enum(0),
            "confirmed",
        ),
        // A row by its table's `name`; a table without one, or a missing
        // row, as `#<id>`; a cycle of names stops at the depth limit.
        shows(
            fld(at(LINE, 1), LINE, L_PRODUCT),
            Ty::Row(PRODUCT),
            "ThinkPad X1",
        ),
        shows(c(Value::Row(42)), opt(Ty::Row(PRODUCT)), "ThinkPad X1"),
        shows(at(LINE, 2), Ty::Row(LINE), "#2"),
        shows(c(Value::Row(99)), Ty::Row(PRODUCT), "#99"),
        shows(c(Value::Row(1)), Ty::Row(ALIAS), "#1"),
        // `none`: nothing.
        shows(fld(at(PRODUCT, 42), PRODUCT, RESTOCK), opt(Ty::Date), ""),
        shows(none(), opt(Ty::Int), ""),
        // Several parts; the result is an interned text like any other.
        bin(
            Eq,
            interp(vec![
                Ok("<"),
                Err((fld(at(PRODUCT, 50), PRODUCT, NAME), Ty::Text)),
                Ok("> costs "),
                Err((fld(at(PRODUCT, 50), PRODUCT, PRICE), Ty::Money)),
                Err((fld(at(PRODUCT, 50), PRODUCT, STOCK), Ty::Int)),
                Ok(""),
            ]),
            t("<Cable> costs $5.0010"),
        ),
        bin(
            Eq,
            call(
                Builtin::Len,
                vec![interp(vec![Err((int(12345), Ty::Int)), Ok("é")])],
            ),
            int(6),
        ),
        bin(
            Lt,
            interp(vec![Ok("a"), Err((int(1), Ty::Int))]),
            interp(vec![Ok("a"), Err((int(2), Ty::Int))]),
        ),
    ];
    let results = plain(&conds);
    for (cond, r) in conds.iter().zip(&results) {
        assert_eq!(r, &Ok(true), "{cond:?}");
    }
    // The alias cycle, whatever the interpreter shows for it.
    plain(&[shows(c(Value::Row(1)), Ty::Row(ALIAS), "impossible")]);
}

#[test]
fn a_faulting_interpolation_faults_the_whole_text() {
    let missing = fld(at(PRODUCT, 7), PRODUCT, NAME);
    let conds = [
        shows(bin(Div, int(1), int(0)), Ty::Int, ""),
        // The first fault wins.
        bin(
            Eq,
            interp(vec![
                Ok("x"),
                Err((int(1), Ty::Int)),
                Err((missing.clone(), Ty::Text)),
                Err((bin(Div, int(1), int(0)), Ty::Int)),
            ]),
            t("x1"),
        ),
        // A `none` used where a value is needed, inside an interpolation.
        shows(call(Builtin::Len, vec![none()]), Ty::Int, ""),
        // Short-circuits keep their order around a text.
        bin(Or, bool_(true), shows(missing, Ty::Text, "")),
    ];
    assert_eq!(
        plain(&conds),
        vec![
            fault(Fault::DivisionByZero),
            fault(Fault::MissingRow {
                table: PRODUCT,
                id: 7
            }),
            fault(Fault::NoneValue),
            Ok(true),
        ]
    );
}

#[test]
fn text_interpolations_of_frame_values() {
    // Parameters (a text not in the pool before, a `none`, a row).
    let conds = [bin(
        Eq,
        interp(vec![
            Err((local(0), Ty::Text)),
            Ok("|"),
            Err((local(1), opt(Ty::Int))),
            Ok("|"),
            Err((local(2), Ty::Row(PRODUCT))),
        ]),
        t("brand new||Cable"),
    )];
    let r = run(
        &conds,
        &[Ty::Text, opt(Ty::Int), Ty::Row(PRODUCT)],
        &[text("brand new"), Value::None, Value::Row(50)],
        false,
    );
    assert_eq!(r, vec![Ok(true)]);
    // A task binder (`Product[50]`), in a progress predicate.
    let conds = [
        shows(local(0), Ty::Row(PRODUCT), "Cable"),
        bin(
            Eq,
            interp(vec![
                Err((fld(local(0), PRODUCT, PRICE), Ty::Money)),
                Ok(" "),
                Err((fld(local(0), PRODUCT, STATUS), Ty::Enum(0))),
            ]),
            t("$5.00 open"),
        ),
    ];
    assert_eq!(run(&conds, &[], &[], true), vec![Ok(true), Ok(true)]);
}
