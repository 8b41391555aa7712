//! Page guards in the JIT (`render::guard`) against the interpreter
//! (`interp::guard`) on the fixture: the same landing page and arguments.

use super::*;

#[test]
fn guards_land_where_the_interpreter_lands() {
    use crate::ir::PageGuard;
    let mut p = program(&[], &[]);
    let show = |arg: Expr| PageCall {
        page: 0,
        args: vec![arg],
    };
    // Show(p): in stock (a missing row faults: false) else Home.
    p.pages[0].guards = vec![PageGuard {
        cond: bin(Gt, fld(local(0), PRODUCT, STOCK), int(0)),
        redirect: PageCall {
            page: 1,
            args: vec![],
        },
    }];
    // Home: a condition that faults, so always on to Show(Product[50]).
    p.pages[1].guards = vec![PageGuard {
        cond: bin(
            Gt,
            bin(Div, fld(at(PRODUCT, 42), PRODUCT, STOCK), int(0)),
            int(0),
        ),
        redirect: show(at(PRODUCT, 50)),
    }];
    let Compiled {
        mut pool,
        site,
        state: s,
        bytes,
        ..
    } = compiled(&p);
    let ctx = s.world.context(&p, Some(&s.nav));
    let mut redirected = 0;
    for (page, args) in [
        (0, vec![Value::Row(42)]),
        (0, vec![Value::Row(43)]),
        (0, vec![Value::Row(999)]),
        (1, vec![]),
    ] {
        let want = crate::interp::guard::land(&ctx, page, args.clone());
        let words: Vec<_> = args
            .iter()
            .map(|v| word_of(v, &mut pool).unwrap())
            .collect();
        let landed = site.land(page, &words, &bytes, &mut pool).unwrap();
        let got = landed.unwrap_or((page, words));
        let want_words: Vec<_> = want
            .1
            .iter()
            .map(|v| word_of(v, &mut pool).unwrap())
            .collect();
        assert_eq!(got, (want.0, want_words), "navigating to {page} {args:?}");
        redirected += usize::from(want.0 != page || want.1 != args);
    }
    assert_eq!(redirected, 3, "Show(43), Show(999) and Home redirect");
}
