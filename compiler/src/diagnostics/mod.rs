//! Diagnostics as data: one [`Diagnostic`] type that every analysis produces and
//! every renderer (people, JSON) consumes.
//!
//! Analyses never print. They push diagnostics into a [`Diagnostics`] sink and carry
//! on, so one run reports every problem it can find. Message style (cedar's): the
//! message is lowercase with no final period and names user input in backticks;
//! anything longer goes into `help`.

pub mod code;
pub mod human;
pub mod json;
pub mod sarif;

pub use code::{Category, Code, Severity};

use crate::span::Span;
use serde::Serialize;

/// A secondary location with its own short message.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    pub message: String,
    /// Where the problem is.
    pub span: Span,
    /// Short text shown under the primary span (may be empty).
    pub label: String,
    pub related: Vec<Label>,
    pub help: Option<String>,
    /// What the defect is about, e.g. `page Cart`, `marker add_to_cart`.
    pub object: Option<String>,
    /// Machine-readable evidence (traces, closest approach) for repair loops.
    pub evidence: Option<serde_json::Value>,
    /// 1.0 for exact checks, lower for heuristics.
    pub confidence: f64,
    /// Objects (`page Checkout`) whose defects must be fixed before this one
    /// means anything: the report's `depends_on` points at them.
    pub after: Vec<String>,
    /// A repair a tool can apply without judgement (an editor's quick fix,
    /// a repair loop's first try).
    pub fix: Option<Fix>,
}

/// A machine-applicable repair. Editors turn it into a text edit; the JSON
/// report carries it as `fix` for automated repair loops.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fix {
    /// Add `item` (`Product.stock`, `CartLine`, `session.user`) to marker
    /// `marker`'s `clause` (`reads` or `writes`).
    AddPermission {
        marker: String,
        clause: String,
        item: String,
    },
    /// Remove the permission at the diagnostic's span from `marker`'s
    /// `clause`.
    RemovePermission {
        marker: String,
        clause: String,
        item: String,
    },
    /// Declare the page a link names, with one parameter per argument.
    CreatePage { name: String },
    /// Replace bytes `start..end` of the diagnostic's file with `text`: the
    /// spelling another language uses, rewritten in this one (`&&` → `and`).
    Replace { start: u32, end: u32, text: String },
}

impl Diagnostic {
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span,
            label: String::new(),
            related: Vec::new(),
            help: None,
            object: None,
            evidence: None,
            confidence: 1.0,
            after: Vec::new(),
            fix: None,
        }
    }
    pub fn fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }
    pub fn label(mut self, text: impl Into<String>) -> Self {
        self.label = text.into();
        self
    }
    pub fn related(mut self, span: Span, text: impl Into<String>) -> Self {
        self.related.push(Label {
            span,
            message: text.into(),
        });
        self
    }
    pub fn help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }
    pub fn object(mut self, text: impl Into<String>) -> Self {
        self.object = Some(text.into());
        self
    }
    pub fn evidence(mut self, value: serde_json::Value) -> Self {
        self.evidence = Some(value);
        self
    }
    pub fn confidence(mut self, value: f64) -> Self {
        self.confidence = value;
        self
    }
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

/// Where analyses put what they find.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }
    pub fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        self.items.extend(ds);
    }
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }
    pub fn as_slice(&self) -> &[Diagnostic] {
        &self.items
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The diagnostics pushed since there were `start` of them, to amend.
    pub fn since_mut(&mut self, start: usize) -> &mut [Diagnostic] {
        let start = start.min(self.items.len());
        &mut self.items[start..]
    }
    /// Sorted by file and position, then code, so output is stable.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        self.items.sort_by(|a, b| {
            (a.span.file, a.span.start, a.code.as_str(), &a.message).cmp(&(
                b.span.file,
                b.span.start,
                b.code.as_str(),
                &b.message,
            ))
        });
        self.items
            .dedup_by(|a, b| a.code == b.code && a.span == b.span && a.message == b.message);
        self.items
    }
}
