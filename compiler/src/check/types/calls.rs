//! Calls: page references (links, `go`, `start`, `key`, `visited`), button
//! targets (a marker or a page), their arguments against the parameters (E101,
//! E103, E201), and the built-in functions of spec §3.

use super::suggest::did_you_mean;
use super::{plural, Checker, Ty};
use crate::check::effects;
use crate::diagnostics::{Code, Diagnostic, Fix};
use crate::syntax::ast::*;

/// The built-in functions, by the shape of their signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    /// `lower upper trim`: `Text -> Text`
    TextToText,
    /// `len`: `Text -> Int`
    Len,
    /// `contains starts_with ends_with`: `(Text, Text) -> Bool`
    TextPredicate,
    /// `days_between`: `(Date, Date) -> Int`
    DaysBetween,
    /// `today`: `() -> Date`
    Today,
    /// `abs`: `Int -> Int`, `Money -> Money`
    Abs,
}

const BUILTINS: &[(&str, Builtin)] = &[
    ("abs", Builtin::Abs),
    ("contains", Builtin::TextPredicate),
    ("days_between", Builtin::DaysBetween),
    ("ends_with", Builtin::TextPredicate),
    ("len", Builtin::Len),
    ("lower", Builtin::TextToText),
    ("starts_with", Builtin::TextPredicate),
    ("today", Builtin::Today),
    ("trim", Builtin::TextToText),
    ("upper", Builtin::TextToText),
];

impl Builtin {
    /// Parameter types (`abs` is checked by hand) and the result type.
    fn signature(self) -> (&'static [Ty], Ty) {
        match self {
            Builtin::TextToText => (&[Ty::Text], Ty::Text),
            Builtin::Len => (&[Ty::Text], Ty::Int),
            Builtin::TextPredicate => (&[Ty::Text, Ty::Text], Ty::Bool),
            Builtin::DaysBetween => (&[Ty::Date, Ty::Date], Ty::Int),
            Builtin::Today => (&[], Ty::Date),
            Builtin::Abs => (&[Ty::Error], Ty::Error),
        }
    }

    /// How a call of `name` is written, for help texts.
    fn usage(self, name: &str) -> String {
        let params = match (self, name) {
            (Builtin::TextToText | Builtin::Len, _) => "text",
            (Builtin::TextPredicate, "starts_with") => "text, prefix",
            (Builtin::TextPredicate, "ends_with") => "text, suffix",
            (Builtin::TextPredicate, _) => "text, part",
            (Builtin::DaysBetween, _) => "from_date, to_date",
            (Builtin::Today, _) => "",
            (Builtin::Abs, _) => "number",
        };
        format!("`{name}({params})`")
    }
}

impl<'a> Checker<'a, '_> {
    /// A reference to a page: `Cart`, `ProductPage(p)`.
    pub(super) fn page_ref(&mut self, r: &'a PageRef) {
        if let Some(&page) = self.syms.pages.get(r.name.name.as_str()) {
            self.arguments(r, &page.params, "page", page.name.span);
            return;
        }
        self.infer_all(&r.args);
        let name = r.name.name.as_str();
        let d = if self.syms.markers.contains_key(name) {
            Diagnostic::new(
                Code::E101,
                r.name.span,
                format!("expected a page, found marker `{name}`"),
            )
            .label("a marker, not a page")
            .help(format!(
                "only a `button` triggers a marker: `button \"...\" -> {name}(...)`"
            ))
        } else {
            let d = Diagnostic::new(Code::E101, r.name.span, format!("unknown page `{name}`"))
                .label("no such page")
                .fix(Fix::CreatePage { name: name.into() });
            match did_you_mean(name, self.syms.pages.keys().copied()) {
                Some(help) => d.help(help),
                None => d.help(format!(
                    "declare `page {name} {{ ... }}` or link to an existing page"
                )),
            }
        };
        self.report(d);
    }

    /// A button's target: a marker to trigger or a page to navigate to.
    pub(super) fn button_target(&mut self, r: &'a PageRef) {
        let name = r.name.name.as_str();
        if let Some(&marker) = self.syms.markers.get(name) {
            self.arguments(r, &marker.params, "marker", marker.name.span);
        } else if self.syms.pages.contains_key(name) {
            self.page_ref(r);
        } else {
            self.infer_all(&r.args);
            let candidates = self
                .syms
                .markers
                .keys()
                .chain(self.syms.pages.keys())
                .copied();
            let mut d = Diagnostic::new(
                Code::E101,
                r.name.span,
                format!("unknown marker or page `{name}`"),
            )
            .label("no such marker or page");
            if let Some(help) = did_you_mean(name, candidates) {
                d = d.help(help);
            }
            self.report(d);
        }
    }

    /// The arguments of a page or marker reference against its parameters.
    fn arguments(&mut self, r: &'a PageRef, params: &'a [Param], kind: &str, decl: Span) {
        let name = &r.name.name;
        if r.args.len() != params.len() {
            let names: Vec<&str> = params.iter().map(|p| p.name.name.as_str()).collect();
            let example = if names.is_empty() {
                name.clone()
            } else {
                format!("{name}({})", names.join(", "))
            };
            let mut d = Diagnostic::new(
                Code::E103,
                effects::page_ref_span(r),
                format!(
                    "{kind} `{name}` takes {}, found {}",
                    plural(params.len(), "argument"),
                    r.args.len()
                ),
            )
            .label("wrong number of arguments")
            .related(decl, format!("`{name}` is declared here"))
            .help(format!("write `{example}`"));
            // A parameter list that did not parse declares none: the syntax
            // error there comes first (`depends_on`).
            d.after.push(format!("{kind} {name}"));
            self.report(d);
        }
        for (i, arg) in r.args.iter().enumerate() {
            match params.get(i) {
                Some(p) => {
                    let want = self.type_of(&p.ty);
                    self.expect(
                        arg,
                        &want,
                        &format!("argument `{}` of `{name}`", p.name.name),
                    );
                }
                None => {
                    self.infer(arg, None);
                }
            }
        }
    }

    fn infer_all(&mut self, args: &'a [Expr]) {
        for a in args {
            self.infer(a, None);
        }
    }

    /// `f(args)`: a built-in function.
    pub(super) fn call(&mut self, f: &'a Ident, args: &'a [Expr]) -> Ty {
        let Some(&(_, builtin)) = BUILTINS.iter().find(|(n, _)| *n == f.name) else {
            self.infer_all(args);
            self.unknown_function(f);
            return Ty::Error;
        };
        let (params, result) = builtin.signature();
        if args.len() != params.len() {
            self.infer_all(args);
            self.report(
                Diagnostic::new(
                    Code::E103,
                    f.span,
                    format!(
                        "`{}` takes {}, found {}",
                        f.name,
                        plural(params.len(), "argument"),
                        args.len()
                    ),
                )
                .label("wrong number of arguments")
                .help(format!("write {}", builtin.usage(&f.name))),
            );
            return result;
        }
        if builtin == Builtin::Abs {
            return self.abs(f, args);
        }
        for (i, (arg, want)) in args.iter().zip(params).enumerate() {
            self.expect(arg, want, &format!("argument {} of `{}`", i + 1, f.name));
        }
        result
    }

    fn abs(&mut self, f: &'a Ident, args: &'a [Expr]) -> Ty {
        let Some(arg) = args.first() else {
            return Ty::Error;
        };
        let t = self.infer(arg, None);
        match t {
            Ty::Int | Ty::Money | Ty::Error => t,
            _ => {
                self.report(
                    Diagnostic::new(
                        Code::E201,
                        arg.span,
                        format!(
                            "expected `Int` or `Money` for argument 1 of `{}`, found `{t}`",
                            f.name
                        ),
                    )
                    .label(format!("this is `{t}`"))
                    .help("`abs` gives the absolute value of an `Int` or an amount of `Money`"),
                );
                Ty::Error
            }
        }
    }

    fn unknown_function(&mut self, f: &Ident) {
        let name = f.name.as_str();
        let d = Diagnostic::new(Code::E101, f.span, format!("unknown function `{name}`"))
            .label("not a built-in function");
        let help = if self.syms.markers.contains_key(name) {
            format!("`{name}` is a marker; markers are triggered by buttons, not called")
        } else {
            let names: Vec<&str> = BUILTINS.iter().map(|(n, _)| *n).collect();
            did_you_mean(name, names.iter().copied()).unwrap_or_else(|| {
                format!("the built-in functions are {}", super::list_names(&names))
            })
        };
        self.report(d.help(help));
    }
}
