//! Calls: page references (links, `go`, `start`, `key`, `visited`), button
//! targets (a marker or a page), their arguments against the parameters (E101,
//! E103, E201), and the built-in functions of spec §3.

use super::suggest::did_you_mean;
use super::{plural, Checker, Ty};
use crate::check::statements;
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
    /// `left right`: `(Text, Int) -> Text`
    Cut,
    /// `replace`: `(Text, Text, Text) -> Text`
    Replace,
    /// `to_int`: `Text -> Int?`
    ToInt,
    /// `to_money`: `Text -> Money?`
    ToMoney,
    /// `plural`: `(Int, Text, Text) -> Text`
    Plural,
}

/// One built-in: its name, shape, parameter names (for help texts and the
/// editor) and what it does (for the editor's hover and completion).
struct BuiltinDef {
    name: &'static str,
    shape: Builtin,
    params: &'static [&'static str],
    doc: &'static str,
}

const fn def(
    name: &'static str,
    shape: Builtin,
    params: &'static [&'static str],
    doc: &'static str,
) -> BuiltinDef {
    BuiltinDef {
        name,
        shape,
        params,
        doc,
    }
}

/// Every built-in function (spec §3), by name.
const BUILTINS: &[BuiltinDef] = &[
    def("abs", Builtin::Abs, &["number"], "The absolute value of an `Int` or an amount of `Money`."),
    def("contains", Builtin::TextPredicate, &["text", "part"], "Whether `part` occurs in `text`."),
    def("days_between", Builtin::DaysBetween, &["from_date", "to_date"], "The days from `from_date` to `to_date` (negative when it is earlier); `to_date - from_date`."),
    def("ends_with", Builtin::TextPredicate, &["text", "suffix"], "Whether `text` ends with `suffix`."),
    def("left", Builtin::Cut, &["text", "count"], "The first `count` characters of `text` (all of it when shorter, `\"\"` for a count of 0 or less)."),
    def("len", Builtin::Len, &["text"], "The number of characters of `text`."),
    def("lower", Builtin::TextToText, &["text"], "`text` in lower case."),
    def("plural", Builtin::Plural, &["count", "singular", "plural"], "`singular` when `count` is 1 or -1, `plural` otherwise: `\"{n} {plural(n, \"item\", \"items\")}\"`."),
    def("replace", Builtin::Replace, &["text", "old", "new"], "`text` with every `old` replaced by `new`, left to right (unchanged when `old` is empty)."),
    def("right", Builtin::Cut, &["text", "count"], "The last `count` characters of `text` (all of it when shorter, `\"\"` for a count of 0 or less)."),
    def("starts_with", Builtin::TextPredicate, &["text", "prefix"], "Whether `text` starts with `prefix`."),
    def("to_int", Builtin::ToInt, &["text"], "The `Int` that `text` spells (`\" 1,234 \"`, `-7`), or `none`."),
    def("to_money", Builtin::ToMoney, &["text"], "The amount that `text` spells (`$1,299.00`, `14.9`, `-$5`), or `none`; at most two decimals."),
    def("today", Builtin::Today, &[], "The site's fixed date (`today @YYYY-MM-DD` in `site { }`)."),
    def("trim", Builtin::TextToText, &["text"], "`text` without white space at either end."),
    def("upper", Builtin::TextToText, &["text"], "`text` in upper case."),
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
            Builtin::Cut => (&[Ty::Text, Ty::Int], Ty::Text),
            Builtin::Replace => (&[Ty::Text, Ty::Text, Ty::Text], Ty::Text),
            Builtin::ToInt => (&[Ty::Text], Ty::Optional(Box::new(Ty::Int))),
            Builtin::ToMoney => (&[Ty::Text], Ty::Optional(Box::new(Ty::Money))),
            Builtin::Plural => (&[Ty::Int, Ty::Text, Ty::Text], Ty::Text),
        }
    }
}

impl BuiltinDef {
    /// How a call is written, for help texts: `` `left(text, count)` ``.
    fn usage(&self) -> String {
        format!("`{}({})`", self.name, self.params.join(", "))
    }

    /// The typed signature: `left(text: Text, count: Int) -> Text`.
    fn signature_text(&self) -> String {
        let (types, result) = self.shape.signature();
        let params: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| match types.get(i) {
                Some(Ty::Error) | None => format!("{p}: Int | Money"),
                Some(t) => format!("{p}: {t}"),
            })
            .collect();
        let result = if result.is_error() {
            "Int | Money".to_string()
        } else {
            result.to_string()
        };
        format!("{}({}) -> {result}", self.name, params.join(", "))
    }
}

/// A built-in function as the editor shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltinDoc {
    pub name: &'static str,
    /// `left(text: Text, count: Int) -> Text`
    pub signature: String,
    pub doc: &'static str,
}

/// Every built-in function with its signature and what it does (the editor's
/// completion and hover).
pub fn builtin_docs() -> Vec<BuiltinDoc> {
    BUILTINS
        .iter()
        .map(|b| BuiltinDoc {
            name: b.name,
            signature: b.signature_text(),
            doc: b.doc,
        })
        .collect()
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
                statements::page_ref_span(r),
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
        let Some(def) = BUILTINS.iter().find(|b| b.name == f.name) else {
            self.infer_all(args);
            self.unknown_function(f);
            return Ty::Error;
        };
        let builtin = def.shape;
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
                .help(format!("write {}", def.usage())),
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
                let base = t.base().clone();
                let help = self
                    .optional_help(arg, &base, &t)
                    .filter(|_| matches!(base, Ty::Int | Ty::Money))
                    .unwrap_or_else(|| {
                        "`abs` gives the absolute value of an `Int` or an amount of `Money`".into()
                    });
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
                    .help(help),
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
            let names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
            did_you_mean(name, names.iter().copied()).unwrap_or_else(|| {
                format!("the built-in functions are {}", super::list_names(&names))
            })
        };
        self.report(d.help(help));
    }
}
