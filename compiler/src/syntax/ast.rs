//! The abstract syntax tree: what a `.wsite` file says, with a span on every node.
//!
//! The parser (`syntax::parser`) builds it from pest's pairs; nothing else in the
//! compiler sees pest. Nodes carry byte spans into their file ([`Span`], defined
//! in [`crate::span`]) so every later stage can point diagnostics at source. Every expression also has an [`ExprId`], unique
//! within one [`crate::Program`], which the type checker uses to record what it
//! learns (types, resolved names) without mutating the tree.

use serde::{Deserialize, Serialize};

pub use crate::span::{FileId, Span};

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// One parsed file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SourceFile {
    pub file: FileId,
    /// `module name(Param: table { ... })`, when the file is a module.
    pub module: Option<ModuleHeader>,
    pub decls: Vec<Decl>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModuleHeader {
    pub name: Ident,
    pub params: Vec<ModuleParam>,
    pub span: Span,
}

/// `Item: table { name: Text, price: Money }`
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModuleParam {
    pub name: Ident,
    pub fields: Vec<FieldDecl>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Decl {
    /// `/// doc` lines right above the declaration, joined by newlines.
    pub doc: Option<String>,
    pub kind: DeclKind,
    pub span: Span,
}

// Declarations are few and long-lived; boxing the large variants would only add
// indirection to every walk.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum DeclKind {
    Use(UseDecl),
    Site(SiteDecl),
    Enum(EnumDecl),
    Table(TableDecl),
    Seed(SeedDecl),
    Session(SessionDecl),
    Invariant(InvariantDecl),
    Page(PageDecl),
    Marker(MarkerDecl),
    Task(TaskDecl),
}

/// `use std::cart(Item = Product)` or `use "./parts/catalog.wsite"`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UseDecl {
    pub target: UseTarget,
    /// `Param = Table` bindings for a parameterised module.
    pub bindings: Vec<(Ident, Ident)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum UseTarget {
    /// `std::auth`: the path segments after `std`.
    Std(Vec<Ident>),
    /// `"./parts/catalog.wsite"`: the path as written, with the string's span.
    File(String, Span),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SiteDecl {
    pub name: Ident,
    pub title: Option<TextLit>,
    /// `domain ecommerce`
    pub domain: Option<Ident>,
    pub start: Option<PageRef>,
    pub today: Option<Expr>,
    /// The `{ ... }` of the declaration, for "missing item" diagnostics.
    pub body_span: Span,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EnumDecl {
    pub name: Ident,
    pub variants: Vec<Ident>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TableDecl {
    pub name: Ident,
    /// `max N`, with the literal's span.
    pub max: Option<(i64, Span)>,
    pub fields: Vec<FieldDecl>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FieldDecl {
    pub name: Ident,
    pub ty: TypeExpr,
}

/// A type as written: `Int`, `Product`, `Date?`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TypeExpr {
    pub name: Ident,
    pub optional: bool,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeedDecl {
    pub table: Ident,
    pub rows: Vec<SeedRow>,
}

/// `{ id: 42, name: "ThinkPad X1", price: $1299.00 }`
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeedRow {
    pub fields: Vec<FieldInit>,
    pub span: Span,
}

/// `name: expr` inside `{ }` (seed rows and `insert`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FieldInit {
    pub name: Ident,
    pub value: Expr,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SessionDecl {
    pub vars: Vec<SessionVar>,
}

/// `user: User = User[1]`
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SessionVar {
    pub name: Ident,
    pub ty: TypeExpr,
    pub init: Expr,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InvariantDecl {
    pub name: Ident,
    pub cond: Expr,
}

/// `p: Product` in a parameter list.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Param {
    pub name: Ident,
    pub ty: TypeExpr,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageDecl {
    pub name: Ident,
    pub params: Vec<Param>,
    /// `at "/product/{p.id}"`
    pub route: Option<TextLit>,
    /// `guard c else Page(args)`, in order (1.1).
    pub guards: Vec<PageGuard>,
    /// `title "..."` (at most one; a second is reported by the checker).
    pub titles: Vec<TextLit>,
    pub body: Vec<Element>,
}

/// `guard cond else Target(args)`: the page is shown only when `cond` holds;
/// otherwise navigation lands on `target` (its arguments evaluated then).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageGuard {
    pub cond: Expr,
    pub target: PageRef,
    pub span: Span,
}

/// A reference to a page with arguments: `ProductPage(p)`, `Cart`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageRef {
    pub name: Ident,
    pub args: Vec<Expr>,
    /// Whether `( )` was written (a bare `Cart` has none).
    pub has_parens: bool,
    pub span: Span,
}

/// What a link or button points at: a page or a marker, told apart by the resolver.
pub type Target = PageRef;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Element {
    /// `#name`
    pub name: Option<Ident>,
    pub kind: ElementKind,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum ElementKind {
    Heading(TextLit),
    Text(TextLit),
    Image(TextLit),
    Link {
        label: TextLit,
        target: Target,
        disabled: Option<Expr>,
    },
    Button {
        label: TextLit,
        target: Target,
        disabled: Option<Expr>,
    },
    /// `input name: Type "label"`; `ty` is `None` for the default `Text`.
    Input {
        var: Ident,
        ty: Option<TypeExpr>,
        label: TextLit,
    },
    /// `select name "label" ["a", "b"]`, or typed: `select s: Status "label" [open, closed]`
    /// (`ty` is `None` for the default `Text`).
    SelectList {
        var: Ident,
        ty: Option<TypeExpr>,
        label: TextLit,
        options: Vec<Expr>,
    },
    /// `select name: T "label" from x in T where c show e`
    SelectFrom {
        var: Ident,
        ty: TypeExpr,
        label: TextLit,
        binder: Ident,
        table: Ident,
        filter: Option<Expr>,
        show: Expr,
    },
    Checkbox {
        var: Ident,
        label: TextLit,
    },
    Section {
        label: TextLit,
        body: Vec<Element>,
    },
    For(ForElement),
    If {
        cond: Expr,
        then: Vec<Element>,
        otherwise: Vec<Element>,
    },
    /// `let name = value`: names a value for the rest of its block (1.1).
    Let {
        var: Ident,
        value: Expr,
    },
    /// A statement written among page elements (`set`, `insert`, `delete`, ...).
    /// Pages cannot write state: the checker reports it as E303.
    Stmt(Stmt),
}

/// `for x in T where c order by e desc limit n { ... }` or `for x in ["a", "b"] { ... }`
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ForElement {
    pub binder: Ident,
    pub source: LoopSource,
    pub filter: Option<Expr>,
    pub order: Option<OrderBy>,
    pub limit: Option<Expr>,
    /// `offset k` (1.1): the first `k` rows after `limit`'s ordering are skipped.
    pub offset: Option<Expr>,
    pub body: Vec<Element>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum LoopSource {
    Table(Ident),
    List(Vec<Expr>, Span),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OrderBy {
    pub key: Expr,
    pub descending: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MarkerDecl {
    pub name: Ident,
    pub params: Vec<Param>,
    pub reads: Vec<Permission>,
    pub writes: Vec<Permission>,
    /// Span of the `writes` keyword (None when the clause is missing).
    pub writes_span: Option<Span>,
    pub requires: Vec<Requires>,
    pub body: Vec<Stmt>,
    /// `extern marker ... default { ... }`: the body is the default effect.
    pub is_extern: bool,
}

/// `Product` (whole table), `Product.stock` (one field) or `session.query`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Permission {
    pub base: Ident,
    pub field: Option<Ident>,
    pub span: Span,
}

/// `requires cond else "message"`
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Requires {
    pub cond: Expr,
    pub message: Option<TextLit>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum StmtKind {
    /// `let x = expr`
    Let {
        name: Ident,
        value: Expr,
    },
    /// `let x = insert T { ... }` (`name` set) or `insert T { ... }`.
    Insert {
        name: Option<Ident>,
        table: Ident,
        fields: Vec<FieldInit>,
    },
    /// `set target = value`; the target is a field access (`row.field`,
    /// `session.var`) as an expression, checked by the resolver.
    Set {
        target: Expr,
        value: Expr,
    },
    /// `delete row`
    Delete(Expr),
    /// `delete all x in T where c`
    DeleteAll {
        binder: Ident,
        table: Ident,
        filter: Option<Expr>,
    },
    /// `for x in T where c { ... }`
    For {
        binder: Ident,
        table: Ident,
        filter: Option<Expr>,
        body: Vec<Stmt>,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
    Reject(TextLit),
    Go(PageRef),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskDecl {
    pub name: Ident,
    /// `for x in T where c limit n` on a template.
    pub template: Option<TaskTemplate>,
    pub say: Option<TextLit>,
    pub start: Option<PageRef>,
    pub horizon: Option<(i64, Span)>,
    pub goal: Option<Expr>,
    pub answer: Option<Expr>,
    pub progress: Vec<ProgressItem>,
    pub key: Option<Vec<KeyNode>>,
    pub values: Vec<TextLit>,
    pub setup: Option<Vec<Stmt>>,
    /// Every item keyword that appeared more than once, for E102.
    pub repeated: Vec<Ident>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskTemplate {
    pub binder: Ident,
    pub table: Ident,
    pub filter: Option<Expr>,
    pub limit: Option<Expr>,
}

/// `2: exists l in CartLine: ...` (weight 1 when omitted).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProgressItem {
    pub weight: Option<(i64, Span)>,
    pub pred: Expr,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum KeyNode {
    Page(PageRef),
    Element(Ident),
}

/// A text literal: literal chunks and `{expr}` interpolations, in order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TextLit {
    pub parts: Vec<TextPart>,
    pub span: Span,
}

impl TextLit {
    /// The literal text with interpolations left out (for lints and labels).
    pub fn plain(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                TextPart::Lit(s) => Some(s.as_str()),
                TextPart::Interp(_) => None,
            })
            .collect()
    }
    pub fn interpolations(&self) -> impl Iterator<Item = &Expr> {
        self.parts.iter().filter_map(|p| match p {
            TextPart::Interp(e) => Some(e),
            TextPart::Lit(_) => None,
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum TextPart {
    /// Unescaped literal text.
    Lit(String),
    Interp(Expr),
}

/// Identifies one expression node within a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ExprId(pub u32);

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Expr {
    pub id: ExprId,
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum ExprKind {
    Int(i64),
    Money(i64),
    Bool(bool),
    Text(TextLit),
    Date(wsite_runtime::value::Date),
    Time(wsite_runtime::value::Time),
    None,
    /// `["a", "b"]`
    List(Vec<Expr>),
    /// A bare name: a variable, a table (before `[id]` or in `count(T)`), an enum
    /// variant, or `session`.
    Name(Ident),
    /// `base.field`
    Field(Box<Expr>, Ident),
    /// `T[42]`: the base is normally a table name.
    Index(Box<Expr>, Box<Expr>),
    /// `f(args)`: a built-in function.
    Call(Ident, Vec<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `e in [a, b]`
    In(Box<Expr>, Box<Expr>),
    /// `exists x in T where c: body` / `all x in T: body`
    Quantifier {
        kind: QuantKind,
        binder: Ident,
        table: Ident,
        filter: Option<Box<Expr>>,
        body: Box<Expr>,
    },
    /// `count(T)` has no binder; `count(x in T where p)` has one.
    Count {
        binder: Option<Ident>,
        table: Ident,
        filter: Option<Box<Expr>>,
    },
    /// `sum(e for x in T where p)`, `min(...)`, `max(...)`
    Aggregate {
        kind: AggKind,
        value: Box<Expr>,
        binder: Ident,
        table: Ident,
        filter: Option<Box<Expr>>,
    },
    /// `find x in T where p`
    Find {
        binder: Ident,
        table: Ident,
        filter: Option<Box<Expr>>,
    },
    /// `visited Page(args)` (tasks only)
    Visited(PageRef),
    /// `page is Page(args)` (tasks only)
    PageIs(PageRef),
    /// Could not be parsed; a diagnostic was already reported.
    Error,
}

impl ExprKind {
    /// The expressions directly inside this one, in source order.
    pub fn children(&self) -> Vec<&Expr> {
        fn opt(e: &Option<Box<Expr>>) -> Vec<&Expr> {
            e.as_deref().into_iter().collect()
        }
        match self {
            ExprKind::Field(base, _) => vec![base],
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::In(a, b) => vec![a, b],
            ExprKind::Unary(_, a) => vec![a],
            ExprKind::Call(_, args) | ExprKind::List(args) => args.iter().collect(),
            ExprKind::Visited(r) | ExprKind::PageIs(r) => r.args.iter().collect(),
            ExprKind::Text(t) => t.interpolations().collect(),
            ExprKind::Quantifier { filter, body, .. } => {
                let mut v = opt(filter);
                v.push(body);
                v
            }
            ExprKind::Aggregate { value, filter, .. } => {
                let mut v = vec![&**value];
                v.extend(opt(filter));
                v
            }
            ExprKind::Count { filter, .. } | ExprKind::Find { filter, .. } => opt(filter),
            ExprKind::Int(_)
            | ExprKind::Money(_)
            | ExprKind::Bool(_)
            | ExprKind::Date(_)
            | ExprKind::Time(_)
            | ExprKind::None
            | ExprKind::Name(_)
            | ExprKind::Error => Vec::new(),
        }
    }
}

/// The operators are the runtime's own: the IR keeps exactly what was written.
pub use wsite_runtime::ir::{BinaryOp, UnaryOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum QuantKind {
    Exists,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AggKind {
    Sum,
    Min,
    Max,
}
