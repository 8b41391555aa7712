//! The IR: a checked site lowered to indices, ready to run.
//!
//! The compiler lowers its AST here after every check passes; the interpreter
//! (and later the JIT and the prover) read nothing else. Names are gone: tables,
//! fields, enums, session variables and locals are indices, every expression's
//! meaning is fixed (a bare name is already a local, a variant or a table), and
//! each body knows how many local slots it needs. The names stay alongside, for
//! rendering and error messages. Everything is `serde`, so an artifact can carry
//! it.
//!
//! Pages, markers and tasks are here too; the frame of each (page, marker,
//! task) numbers its locals: parameters first, then every binder, `let` and form
//! variable in the order lowering meets them.

pub mod reads;
pub mod rendered;
pub mod unique;

use crate::value::{Date, Time};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub type TableId = u32;
pub type FieldId = u32;
pub type EnumId = u32;
pub type SessionId = u32;
/// A slot in the current frame (parameters, `let`s, binders, form variables).
pub type Slot = u32;
pub type PageId = u32;
pub type MarkerId = u32;

/// A value's static type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ty {
    Int,
    Money,
    Bool,
    Text,
    Date,
    Time,
    Enum(EnumId),
    Row(TableId),
    Optional(Box<Ty>),
}

impl Ty {
    /// The type under any `?`: `T??` and `T?` are `T` for everything but
    /// whether `none` is allowed.
    pub fn without_optional(&self) -> &Ty {
        let mut ty = self;
        while let Ty::Optional(inner) = ty {
            ty = inner;
        }
        ty
    }
}

/// A run-time value. A row reference is its id; the table is in its type.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Value {
    None,
    Int(i64),
    /// Cents.
    Money(i64),
    Bool(bool),
    Text(Arc<str>),
    Date(Date),
    Time(Time),
    /// A variant index of the value's enum.
    Enum(u32),
    /// The id of a row of the value's table.
    Row(i64),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Program {
    pub site: SiteInfo,
    pub enums: Vec<EnumDef>,
    pub tables: Vec<TableDef>,
    pub session: Vec<SessionDef>,
    pub invariants: Vec<InvariantDef>,
    pub pages: Vec<PageDef>,
    pub markers: Vec<MarkerDef>,
    pub tasks: Vec<TaskDef>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SiteInfo {
    pub name: String,
    pub title: String,
    pub domain: String,
    /// What `today()` returns.
    pub today: Date,
    /// The page every task starts on unless it says otherwise.
    pub start: PageCall,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EnumDef {
    pub name: String,
    pub variants: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TableDef {
    pub name: String,
    /// The declared fields, in order (`id` is implicit and not among them).
    pub fields: Vec<FieldDef>,
    /// At most this many rows: `max N`, or the seed rows + 64.
    pub capacity: u32,
    /// The seed rows, in id order.
    pub seed: Vec<RowData>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FieldDef {
    pub name: String,
    pub ty: Ty,
}

/// One row: its id and one value per field, in field order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RowData {
    pub id: i64,
    pub values: Vec<Value>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SessionDef {
    pub name: String,
    pub ty: Ty,
    pub init: Value,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InvariantDef {
    pub name: String,
    pub cond: Expr,
    /// Local slots the condition needs (for its quantifier binders).
    pub frame: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinaryOp {
    /// How the operator is written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "or",
            BinaryOp::And => "and",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
        }
    }
}

/// The type of `l op r` for an arithmetic operator (spec §3; 1.1 adds
/// `Date ± Int`, `Time ± Int` and `Date - Date`), on the operands' types
/// without `?`; `None` for a pair the checker refuses.
pub fn arith_type(op: BinaryOp, l: &Ty, r: &Ty) -> Option<Ty> {
    use BinaryOp::{Add, Div, Mul, Rem, Sub};
    Some(match (op, l, r) {
        (Add | Sub | Mul | Div | Rem, Ty::Int, Ty::Int) => Ty::Int,
        (Add | Sub, Ty::Money, Ty::Money)
        | (Mul | Div, Ty::Money, Ty::Int)
        | (Mul, Ty::Int, Ty::Money) => Ty::Money,
        (Add | Sub, Ty::Date, Ty::Int) => Ty::Date,
        (Add | Sub, Ty::Time, Ty::Int) => Ty::Time,
        (Sub, Ty::Date, Ty::Date) => Ty::Int,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AggKind {
    /// `sum` of `Int` values; `0` over no rows.
    Sum,
    /// `sum` of `Money` values; `$0.00` over no rows. A separate kind because an
    /// empty sum has no value to take its type from.
    SumMoney,
    Min,
    Max,
}

/// The built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Builtin {
    Lower,
    Upper,
    Len,
    Trim,
    Contains,
    StartsWith,
    EndsWith,
    Abs,
    DaysBetween,
    Today,
    /// `left(t, n)`: the first `n` characters (`textops`).
    Left,
    /// `right(t, n)`: the last `n` characters.
    Right,
    /// `replace(t, old, new)`
    Replace,
    /// `to_int(t) -> Int?`
    ToInt,
    /// `to_money(t) -> Money?`
    ToMoney,
    /// `plural(n, one, many) -> Text`
    Plural,
}

/// Each built-in with its source name: one table for both directions.
const BUILTIN_NAMES: [(&str, Builtin); 16] = [
    ("lower", Builtin::Lower),
    ("upper", Builtin::Upper),
    ("len", Builtin::Len),
    ("trim", Builtin::Trim),
    ("contains", Builtin::Contains),
    ("starts_with", Builtin::StartsWith),
    ("ends_with", Builtin::EndsWith),
    ("abs", Builtin::Abs),
    ("days_between", Builtin::DaysBetween),
    ("today", Builtin::Today),
    ("left", Builtin::Left),
    ("right", Builtin::Right),
    ("replace", Builtin::Replace),
    ("to_int", Builtin::ToInt),
    ("to_money", Builtin::ToMoney),
    ("plural", Builtin::Plural),
];

impl Builtin {
    pub fn from_name(name: &str) -> Option<Builtin> {
        BUILTIN_NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| *b)
    }

    /// How the built-in is written in source.
    pub fn name(self) -> &'static str {
        BUILTIN_NAMES
            .iter()
            .find(|(_, b)| *b == self)
            .map_or("?", |(n, _)| n)
    }
}

/// A loop over a table's rows (in id order) binding each to `binder`, keeping
/// those where `filter` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowScan {
    pub binder: Slot,
    pub table: TableId,
    pub filter: Option<Box<Expr>>,
}

/// A piece of text with `{expr}` interpolations, rendered by the value rules.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum TextPart {
    Lit(Arc<str>),
    /// The value and its static type (rendering a row needs its table).
    Interp(Expr, Ty),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Expr {
    Const(Value),
    Local(Slot),
    Session(SessionId),
    /// `row.field`; `row` may be optional (a `none` row fails the evaluation).
    Field {
        row: Box<Expr>,
        table: TableId,
        field: FieldId,
    },
    /// `row.id`
    RowId(Box<Expr>),
    /// `T[id]`: fails when no such row exists.
    Lookup {
        table: TableId,
        id: Box<Expr>,
    },
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `e in [a, b]`
    In(Box<Expr>, Vec<Expr>),
    Exists(RowScan, Box<Expr>),
    All(RowScan, Box<Expr>),
    /// `count(T)` / `count(x in T where p)`
    Count(RowScan),
    Aggregate {
        kind: AggKind,
        value: Box<Expr>,
        scan: RowScan,
    },
    /// The lowest-id row matching, or `none`.
    Find(RowScan),
    Call(Builtin, Vec<Expr>),
    Text(Vec<TextPart>),
    /// `visited Page(args)` (tasks only): the page was shown this episode.
    Visited(PageCall),
    /// `page is Page(args)` (tasks only): the current page.
    PageIs(PageCall),
}

impl Expr {
    /// Calls `f` on each direct subexpression (scan filters, interpolations and
    /// page-call arguments included), in source order.
    pub fn for_each_child(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Expr::Const(_) | Expr::Local(_) | Expr::Session(_) => {}
            Expr::Field { row: e, .. } | Expr::RowId(e) | Expr::Unary(_, e) => f(e),
            Expr::Lookup { id, .. } => f(id),
            Expr::Binary(_, l, r) => {
                f(l);
                f(r);
            }
            Expr::In(e, items) => {
                f(e);
                items.iter().for_each(&mut *f);
            }
            Expr::Exists(scan, body) | Expr::All(scan, body) => {
                scan.for_each_child(f);
                f(body);
            }
            Expr::Count(scan) | Expr::Find(scan) => scan.for_each_child(f),
            Expr::Aggregate { value, scan, .. } => {
                scan.for_each_child(f);
                f(value);
            }
            Expr::Call(_, args) => args.iter().for_each(&mut *f),
            Expr::Text(parts) => for_each_interpolation(parts, f),
            Expr::Visited(call) | Expr::PageIs(call) => call.args.iter().for_each(&mut *f),
        }
    }

    /// Whether this expression asks about navigation (`visited`, `page is`),
    /// so that moving between pages alone can change its value.
    pub fn reads_navigation(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| found |= matches!(e, Expr::Visited(_) | Expr::PageIs(_)));
        found
    }

    /// Calls `f` on this expression and every expression inside it.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        self.for_each_child(&mut |c| c.walk(f));
    }
}

impl RowScan {
    /// Calls `f` on the filter, if any.
    pub fn for_each_child(&self, f: &mut dyn FnMut(&Expr)) {
        if let Some(filter) = &self.filter {
            f(filter);
        }
    }
}

/// Calls `f` on every `{expr}` of a text.
pub fn for_each_interpolation(parts: &[TextPart], f: &mut dyn FnMut(&Expr)) {
    for p in parts {
        if let TextPart::Interp(e, _) = p {
            f(e);
        }
    }
}

/// A page with its arguments (evaluated when the reference is followed).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageCall {
    pub page: PageId,
    pub args: Vec<Expr>,
}

/// A typed parameter; parameters take the first slots of their frame.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ParamDef {
    pub name: String,
    pub ty: Ty,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageDef {
    pub name: String,
    pub params: Vec<ParamDef>,
    /// `at "/product/{p.id}"`; `None` for the default `/snake_name/{param}...`.
    pub route: Option<Vec<TextPart>>,
    /// `guard c else P(args)` in order (§3, 1.1): evaluated in the page's frame
    /// with its arguments bound, before it is shown.
    pub guards: Vec<PageGuard>,
    /// `title "..."`; `None` shows the site's title.
    pub title: Option<Vec<TextPart>>,
    pub body: Vec<Element>,
    pub frame: u32,
}

/// `guard cond else redirect`: when `cond` is false (or faults), navigating to
/// the page lands on `redirect` instead, its arguments evaluated in the same
/// frame (the guarded page's arguments bound) and state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageGuard {
    pub cond: Expr,
    pub redirect: PageCall,
}

/// Where an element was written, for its stable key (`Page:line:column`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePos {
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Element {
    /// Unique within its page, in document order: identifies the element's form
    /// value across steps.
    pub id: u32,
    /// `#name`, which replaces the positional stable key.
    pub name: Option<String>,
    pub pos: SourcePos,
    pub kind: ElementKind,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum ElementKind {
    Heading(Vec<TextPart>),
    Text(Vec<TextPart>),
    Image(Vec<TextPart>),
    Link {
        label: Vec<TextPart>,
        target: PageCall,
        disabled: Option<Expr>,
    },
    Button {
        label: Vec<TextPart>,
        action: Action,
        disabled: Option<Expr>,
    },
    /// A typed input; its value lives in `slot` while the page renders.
    Input {
        slot: Slot,
        ty: Ty,
        label: Vec<TextPart>,
    },
    SelectList {
        slot: Slot,
        ty: Ty,
        label: Vec<TextPart>,
        options: Vec<Expr>,
    },
    /// Options are the rows of `scan`, shown by `show`.
    SelectFrom {
        slot: Slot,
        table: TableId,
        label: Vec<TextPart>,
        scan: RowScan,
        show: Vec<TextPart>,
    },
    Checkbox {
        slot: Slot,
        label: Vec<TextPart>,
    },
    Section {
        label: Vec<TextPart>,
        body: Vec<Element>,
    },
    For(ForElement),
    If {
        cond: Expr,
        then: Vec<Element>,
        otherwise: Vec<Element>,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Action {
    Go(PageCall),
    Marker { marker: MarkerId, args: Vec<Expr> },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ForElement {
    /// The binder's name, for stable keys (`Category:5:3[p=44]`).
    pub binder_name: String,
    pub source: LoopSource,
    /// `order by key [desc]`; rows otherwise go by id.
    pub order: Option<(Expr, bool)>,
    pub limit: Option<Expr>,
    /// `offset k` (1.1): skips the first `k` items after ordering, before
    /// `limit` takes its count; a negative or faulting offset skips nothing.
    pub offset: Option<Expr>,
    pub body: Vec<Element>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum LoopSource {
    Rows(RowScan),
    /// `for x in ["a", "b"] where c`: each item bound to `slot`.
    List {
        slot: Slot,
        items: Vec<Expr>,
        filter: Option<Box<Expr>>,
    },
}

/// A permission a marker is granted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Permission {
    /// Every field, plus insert and delete.
    Table(TableId),
    Field(TableId, FieldId),
    Session(SessionId),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MarkerDef {
    pub name: String,
    pub params: Vec<ParamDef>,
    pub reads: Vec<Permission>,
    pub writes: Vec<Permission>,
    /// Checked in order before the body; the first false one's message (or
    /// "`name` was rejected") is the alert.
    pub requires: Vec<Requirement>,
    /// For an extern marker, the `default` body.
    pub body: Vec<Stmt>,
    pub is_extern: bool,
    pub frame: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Requirement {
    pub cond: Expr,
    pub message: Option<Vec<TextPart>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Stmt {
    Let(Slot, Expr),
    /// Fields not given are `none` (the checker made sure they are optional).
    Insert {
        slot: Option<Slot>,
        table: TableId,
        fields: Vec<(FieldId, Expr)>,
    },
    SetField {
        row: Expr,
        table: TableId,
        field: FieldId,
        value: Expr,
    },
    SetSession(SessionId, Expr),
    Delete {
        table: TableId,
        row: Expr,
    },
    DeleteAll(RowScan),
    For(RowScan, Vec<Stmt>),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    Reject(Vec<TextPart>),
    /// Runs after the commit.
    Go(PageCall),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskDef {
    pub name: String,
    /// `for x in T where c limit n`: one instance per matching row.
    pub template: Option<TaskTemplate>,
    pub say: Vec<TextPart>,
    /// `None` starts on the site's start page.
    pub start: Option<PageCall>,
    pub horizon: u32,
    pub goal: Option<Expr>,
    pub answer: Option<Answer>,
    /// `(weight, predicate)`.
    pub progress: Vec<(i64, Expr)>,
    pub key: Vec<KeyNode>,
    pub values: Vec<String>,
    pub setup: Vec<Stmt>,
    pub frame: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskTemplate {
    pub scan: RowScan,
    /// The binder's name, for instance names (`opening_hours[c=3]`).
    #[serde(default)]
    pub binder_name: String,
    pub limit: Option<Expr>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Answer {
    /// One expected value, with its type for the usual variants (money with and
    /// without `$`, times as `11:00` and `11 am`, ...).
    Value(Expr, Ty),
    /// Equivalent texts.
    Texts(Vec<String>),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum KeyNode {
    Page(PageCall),
    Element(String),
}
