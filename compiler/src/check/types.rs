//! Name resolution and type checking of the whole program (spec §2-§3).
//!
//! This pass owns what every name in the program means and what type every
//! expression has. It resolves page parameters, form variables, loop, quantifier
//! and task binders, `let` bindings, `session.var`, table names before `[id]`, enum
//! variants (by the type the context expects), builtins, page and marker
//! references; and it reports E101 (unknown name), E103 (argument count), E201-E205
//! (types, conditions, operators, rows, assignments), E102 for duplicates that only
//! a scope can see (parameters, fields, variants, form variables, element names) and
//! E001 for the shape rules of tasks and `go`. It does not check permissions
//! (`effects.rs`) nor lint. What it learns is returned as [`Typed`], keyed by
//! [`ExprId`], for the effect pass, lowering and the editor.
//!
//! The checker lives in submodules of this file, one per construct: expressions
//! (`expr`), page and marker references and builtins (`calls`), declarations
//! (`decl`), page elements (`elements`), statements (`stmt`), narrowing after
//! `!= none` (`narrow`), and name suggestions (`suggest`).

mod arith;
mod calls;
mod decl;
mod elements;
mod expr;
mod narrow;
mod stmt;
mod suggest;

pub use calls::{builtin_docs, BuiltinDoc};
pub(crate) use suggest::closest;

use super::Symbols;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::syntax::ast::{ExprId, FieldDecl, Ident, SourceFile, Span, TypeExpr};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The static type of an expression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Ty {
    Int,
    Money,
    Bool,
    Text,
    Date,
    Time,
    /// A value of the named enum.
    Enum(String),
    /// A reference to a row of the named table.
    Row(String),
    /// `T?`
    Optional(Box<Ty>),
    /// A literal list `[a, b]` (lists exist only in expressions).
    List(Box<Ty>),
    /// The type of a `none` whose context did not say which optional it is.
    None,
    /// Something already reported; accepted everywhere so one mistake gives one
    /// diagnostic.
    Error,
}

impl Ty {
    /// The type with one `?` removed (`Int?` → `Int`; others unchanged).
    pub fn base(&self) -> &Ty {
        match self {
            Ty::Optional(inner) => inner,
            other => other,
        }
    }
    pub fn is_error(&self) -> bool {
        matches!(self, Ty::Error)
    }
    /// The table whose rows this denotes, for `Row(T)` and `Row(T)?`.
    pub fn row_table(&self) -> Option<&str> {
        match self.base() {
            Ty::Row(t) => Some(t),
            _ => None,
        }
    }
    pub fn enum_name(&self) -> Option<&str> {
        match self.base() {
            Ty::Enum(e) => Some(e),
            _ => None,
        }
    }
    /// The item type of a list type.
    pub fn list_item(&self) -> Option<&Ty> {
        match self {
            Ty::List(item) => Some(item),
            _ => None,
        }
    }
    /// `T?` for `T` (already optional types, `none` and errors stay as they are).
    pub fn optional(self) -> Ty {
        match self {
            Ty::Optional(_) | Ty::None | Ty::Error => self,
            other => Ty::Optional(Box::new(other)),
        }
    }
    /// Whether `< <= > >=`, `order by`, `min` and `max` apply (spec §3).
    pub fn is_ordered(&self) -> bool {
        matches!(
            self.base(),
            Ty::Int | Ty::Money | Ty::Date | Ty::Time | Ty::Text
        )
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int => f.write_str("Int"),
            Ty::Money => f.write_str("Money"),
            Ty::Bool => f.write_str("Bool"),
            Ty::Text => f.write_str("Text"),
            Ty::Date => f.write_str("Date"),
            Ty::Time => f.write_str("Time"),
            Ty::Enum(name) | Ty::Row(name) => f.write_str(name),
            Ty::Optional(inner) => write!(f, "{inner}?"),
            Ty::List(item) => write!(f, "[{item}]"),
            Ty::None => f.write_str("none"),
            Ty::Error => f.write_str("{unknown}"),
        }
    }
}

/// Whether a value of type `got` may be used where `want` is expected: equal
/// types, `T` (or `none`) where `T?` is expected, never `T?` where `T` is.
pub fn accepts(want: &Ty, got: &Ty) -> bool {
    match (want, got) {
        (Ty::Error, _) | (_, Ty::Error) => true,
        (Ty::Optional(_), Ty::None) => true,
        (Ty::Optional(w), Ty::Optional(g)) => same(w, g),
        (Ty::Optional(w), g) => same(w, g),
        (Ty::List(w), Ty::List(g)) => accepts(w, g),
        (w, g) => same(w, g),
    }
}

/// Equality of types where an error matches anything.
fn same(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Error, _) | (_, Ty::Error) => true,
        (Ty::Optional(x), Ty::Optional(y)) | (Ty::List(x), Ty::List(y)) => same(x, y),
        _ => a == b,
    }
}

/// Whether `==`/`!=` may compare the two: equal types up to `?`; `none` compares
/// with anything (it is the empty value of every optional type).
pub fn comparable(a: &Ty, b: &Ty) -> bool {
    if matches!(a, Ty::None) || matches!(b, Ty::None) {
        return !matches!(a, Ty::List(_)) && !matches!(b, Ty::List(_));
    }
    if matches!(a.base(), Ty::List(_)) || matches!(b.base(), Ty::List(_)) {
        return a.is_error() || b.is_error();
    }
    same(a.base(), b.base())
}

/// What a field-access expression reads, or a `set` target writes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Access {
    /// `row.field` on a row of `table` (`field` may be `id`).
    Field { table: String, field: String },
    /// `session.var`
    Session(String),
}

/// What kind of local a name resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LocalKind {
    /// A page or marker parameter.
    Param,
    /// A page's `input`, `select` or `checkbox` variable.
    Form,
    /// A `for`, quantifier, aggregate, `find`, `delete all` or task template binder.
    Binder,
    /// A `let` binding.
    Let,
}

/// What a bare name (`ExprKind::Name`) resolved to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Resolved {
    /// A local declared at `span`.
    Local { kind: LocalKind, span: Span },
    /// A variant of an enum, chosen by the type the context expects.
    Variant { enum_name: String, variant: String },
    /// A table name before `[id]`.
    Table(String),
    /// The `session` in `session.var`.
    Session,
}

/// What type checking learned, for later passes. Every map is ordered by
/// [`ExprId`], so iterating one is deterministic.
#[derive(Clone, Debug, Default)]
pub struct Typed {
    /// The type of every value expression. Not recorded: the `session` head of
    /// `session.var` and the table name before `[id]` (they are not values; see
    /// `names`).
    pub types: BTreeMap<ExprId, Ty>,
    /// For every field-access expression that resolved: what it reads.
    pub fields: BTreeMap<ExprId, Access>,
    /// For every valid `set` target (keyed by the target expression): what it writes.
    pub sets: BTreeMap<ExprId, Access>,
    /// For every bare name that resolved: what it denotes.
    pub names: BTreeMap<ExprId, Resolved>,
    /// For every interpolation of a row (`"{p}"`): the plain fields its
    /// rendering reads, the row's `name` and, through a `name` that is a
    /// reference, the next row's (§2.2). Reference `name`s are left out:
    /// reading them needs no permission.
    pub renders: BTreeMap<ExprId, Vec<Access>>,
}

static ERROR_TY: Ty = Ty::Error;

impl Typed {
    /// The type recorded for `id`, or [`Ty::Error`] when there is none.
    pub fn ty(&self, id: ExprId) -> &Ty {
        self.types.get(&id).unwrap_or(&ERROR_TY)
    }
}

/// Resolves names and checks types in `files`, reporting what is wrong.
pub fn check<'a>(files: &'a [SourceFile], symbols: &Symbols<'a>, diags: &mut Diagnostics) -> Typed {
    let mut checker = Checker::new(files, symbols, diags);
    for file in files {
        if let Some(module) = &file.module {
            checker.module_header(module);
        }
        for decl in &file.decls {
            checker.decl(decl);
        }
    }
    checker.typed
}

/// Every table's fields, by table name: declared tables plus the table parameters
/// of module headers (inside a module, `Item` is a table like any other).
pub(crate) fn table_fields<'a>(
    files: &'a [SourceFile],
    symbols: &Symbols<'a>,
) -> BTreeMap<&'a str, &'a [FieldDecl]> {
    let mut tables: BTreeMap<&'a str, &'a [FieldDecl]> = symbols
        .tables
        .iter()
        .map(|(name, t)| (*name, t.fields.as_slice()))
        .collect();
    for param in files
        .iter()
        .filter_map(|f| f.module.as_ref())
        .flat_map(|m| &m.params)
    {
        tables
            .entry(param.name.name.as_str())
            .or_insert(param.fields.as_slice());
    }
    tables
}

/// A name in scope.
#[derive(Clone, Debug)]
struct Local<'a> {
    name: &'a str,
    ty: Ty,
    span: Span,
    kind: LocalKind,
}

impl<'a> Local<'a> {
    fn new(name: &'a Ident, ty: Ty, kind: LocalKind) -> Local<'a> {
        Local {
            name: &name.name,
            ty,
            span: name.span,
            kind,
        }
    }
}

/// Where the checker is, for rules that depend on it (`go`, `visited`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Place {
    #[default]
    Other,
    Page,
    Marker,
    Setup,
}

#[derive(Clone, Copy, Debug, Default)]
struct Ctx {
    place: Place,
    /// Inside a task's `goal` or `progress`, where `visited` and `page is` exist.
    task_pred: bool,
    /// A `go` already runs on the current path through the marker body.
    go_seen: bool,
}

struct Checker<'a, 'c> {
    syms: &'c Symbols<'a>,
    tables: BTreeMap<&'a str, &'a [FieldDecl]>,
    /// Every `#name` on any page, for task `key` nodes.
    element_names: BTreeSet<&'a str>,
    /// Innermost scope last; each scope lists its locals in declaration order.
    scopes: Vec<Vec<Local<'a>>>,
    /// The paths known to be present here (`narrow`), one list per region.
    narrowed: Vec<Vec<narrow::Path>>,
    /// Every form variable of the page being checked, in or out of scope, to
    /// explain an unknown name that is one of them used where it is not visible.
    page_forms: Vec<&'a Ident>,
    ctx: Ctx,
    /// The declaration being checked (`page Cart`), for `Diagnostic::object`.
    object: String,
    typed: Typed,
    diags: &'c mut Diagnostics,
}

impl<'a, 'c> Checker<'a, 'c> {
    fn new(files: &'a [SourceFile], syms: &'c Symbols<'a>, diags: &'c mut Diagnostics) -> Self {
        let mut element_names = BTreeSet::new();
        for page in syms.pages.values() {
            let named = elements::element_names(&page.body);
            element_names.extend(named.iter().map(|n| n.name.as_str()));
        }
        Checker {
            syms,
            tables: table_fields(files, syms),
            element_names,
            scopes: Vec::new(),
            narrowed: Vec::new(),
            page_forms: Vec::new(),
            ctx: Ctx::default(),
            object: String::new(),
            typed: Typed::default(),
            diags,
        }
    }

    /// Pushes a diagnostic, naming the declaration being checked as its object.
    fn report(&mut self, d: Diagnostic) {
        let d = if d.object.is_none() && !self.object.is_empty() {
            d.object(self.object.clone())
        } else {
            d
        };
        self.diags.push(d);
    }

    /// Starts checking a new declaration: no locals, default context.
    fn enter(&mut self, object: String) {
        self.object = object;
        self.scopes.clear();
        self.narrowed.clear();
        self.page_forms.clear();
        self.ctx = Ctx::default();
    }

    /// Runs `f` with a new innermost scope holding `locals`.
    fn scoped<R>(&mut self, locals: Vec<Local<'a>>, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scopes.push(locals);
        let result = f(self);
        self.scopes.pop();
        result
    }

    fn lookup(&self, name: &str) -> Option<&Local<'a>> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|l| l.name == name)
    }

    /// Adds a local to the innermost scope (later lookups see it).
    fn bind(&mut self, local: Local<'a>) {
        if self.scopes.is_empty() {
            self.scopes.push(Vec::new());
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(local);
        }
    }

    /// Every local name in scope, innermost first (for suggestions).
    fn local_names(&self) -> Vec<&'a str> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .map(|l| l.name)
            .collect()
    }

    fn field_decl(&self, table: &str, field: &str) -> Option<&'a FieldDecl> {
        self.tables
            .get(table)?
            .iter()
            .find(|f| f.name.name == field)
    }

    fn has_variant(&self, enum_name: &str, variant: &str) -> bool {
        self.syms
            .enums
            .get(enum_name)
            .is_some_and(|e| e.variants.iter().any(|v| v.name == variant))
    }

    /// The type a written type denotes, without reporting (declaration sites
    /// report unknown types once, through [`Checker::decl_type`]).
    fn type_of(&self, te: &TypeExpr) -> Ty {
        let ty = self.named_type(&te.name.name).unwrap_or(Ty::Error);
        if te.optional {
            ty.optional()
        } else {
            ty
        }
    }

    fn named_type(&self, name: &str) -> Option<Ty> {
        Some(match name {
            "Int" => Ty::Int,
            "Money" => Ty::Money,
            "Bool" => Ty::Bool,
            "Text" => Ty::Text,
            "Date" => Ty::Date,
            "Time" => Ty::Time,
            _ if self.syms.enums.contains_key(name) => Ty::Enum(name.to_string()),
            _ if self.tables.contains_key(name) => Ty::Row(name.to_string()),
            _ => return None,
        })
    }
}

/// `1 argument`, `2 arguments`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `` `a` ``, `` `a` and `b` ``, `` `a`, `b` and `c` ``.
fn list_names<S: AsRef<str>>(names: &[S]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{}`", n.as_ref())).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_accepts_plain_but_not_the_reverse() {
        let opt = Ty::Int.optional();
        assert!(accepts(&opt, &Ty::Int));
        assert!(accepts(&opt, &Ty::None));
        assert!(!accepts(&Ty::Int, &opt));
        assert!(!accepts(&Ty::Int, &Ty::None));
        assert!(accepts(&Ty::Int, &Ty::Error));
    }

    #[test]
    fn comparisons_ignore_optionality() {
        assert!(comparable(&Ty::Date.optional(), &Ty::Date));
        assert!(comparable(&Ty::None, &Ty::Text));
        assert!(!comparable(&Ty::Int, &Ty::Money));
        assert!(!comparable(
            &Ty::List(Box::new(Ty::Int)),
            &Ty::List(Box::new(Ty::Int))
        ));
    }

    /// Types a program and returns what the checker recorded, plus the codes.
    fn typed(text: &str) -> (Typed, Vec<&'static str>) {
        let compiled = crate::compile_str("t.wsite", text);
        let mut diags = Diagnostics::default();
        let symbols = Symbols::collect(&compiled.files, &mut diags);
        let typed = check(&compiled.files, &symbols, &mut diags);
        (
            typed,
            diags
                .into_sorted()
                .iter()
                .map(|d| d.code.as_str())
                .collect(),
        )
    }

    const SLOTS: &str = "site S { title \"t\" domain other start Home }
        enum State { free, taken }
        table Slot { taken: Bool  state: State }
        table Booking { slot: Slot }
        page Home { for b in Booking { button \"x\" -> book(b) } link \"h\" -> Home }
        marker book(b: Booking) writes Slot.taken, Slot.state {
          set b.slot.taken = not b.slot.taken
          set b.slot.state = taken
        }";

    #[test]
    fn field_reads_and_set_targets_are_recorded() {
        let (typed, codes) = typed(SLOTS);
        assert!(codes.is_empty(), "{codes:?}");
        let reads: Vec<&Access> = typed.fields.values().collect();
        let slot_taken = Access::Field {
            table: "Slot".into(),
            field: "taken".into(),
        };
        let booking_slot = Access::Field {
            table: "Booking".into(),
            field: "slot".into(),
        };
        assert!(reads.contains(&&slot_taken) && reads.contains(&&booking_slot));
        let sets: Vec<&Access> = typed.sets.values().collect();
        assert_eq!(sets.len(), 2);
        assert!(sets.contains(&&slot_taken));
        let variants = typed
            .names
            .values()
            .filter(|r| matches!(r, Resolved::Variant { .. }))
            .count();
        assert_eq!(
            variants, 1,
            "`taken` after `set b.slot.state =` is the variant"
        );
    }

    #[test]
    fn every_expression_of_a_clean_program_has_a_type() {
        let compiled = crate::compile_str("t.wsite", SLOTS);
        let (typed, _) = typed(SLOTS);
        let mut missing = 0;
        fn count(e: &crate::syntax::ast::Expr, typed: &Typed, missing: &mut usize) {
            use crate::syntax::ast::ExprKind;
            let head = matches!(
                typed.names.get(&e.id),
                Some(Resolved::Session | Resolved::Table(_))
            );
            if !head && !typed.types.contains_key(&e.id) {
                *missing += 1;
            }
            match &e.kind {
                ExprKind::Field(b, _) | ExprKind::Unary(_, b) => count(b, typed, missing),
                ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                    count(a, typed, missing);
                    count(b, typed, missing);
                }
                _ => {}
            }
        }
        for decl in compiled.files.iter().flat_map(|f| &f.decls) {
            if let crate::syntax::ast::DeclKind::Marker(m) = &decl.kind {
                for s in &m.body {
                    if let crate::syntax::ast::StmtKind::Set { target, value } = &s.kind {
                        count(target, &typed, &mut missing);
                        count(value, &typed, &mut missing);
                    }
                }
            }
        }
        assert_eq!(missing, 0);
    }

    #[test]
    fn display_and_lists() {
        assert_eq!(Ty::Row("Product".into()).optional().to_string(), "Product?");
        assert_eq!(list_names(&["a", "b", "c"]), "`a`, `b` and `c`");
        assert_eq!(plural(1, "argument"), "1 argument");
    }
}
