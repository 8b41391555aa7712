//! The table of diagnostic codes: each code's category and severity, fixed by the
//! language spec, so analyses only say *which* code they found.

use serde::{Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    Syntax,
    Name,
    Type,
    Effect,
    Structural,
    Semantic,
    Consistency,
    Feasibility,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Syntax => "syntax",
            Category::Name => "name",
            Category::Type => "type",
            Category::Effect => "effect",
            Category::Structural => "structural",
            Category::Semantic => "semantic",
            Category::Consistency => "consistency",
            Category::Feasibility => "feasibility",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $cat:ident, $sev:ident, $summary:literal;)*) => {
        /// A stable diagnostic code from the spec's table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant),* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => stringify!($variant)),* }
            }
            pub fn category(self) -> Category {
                match self { $(Code::$variant => Category::$cat),* }
            }
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev),* }
            }
            /// One line saying what the code means, for `--explain`-style listings.
            pub fn summary(self) -> &'static str {
                match self { $(Code::$variant => $summary),* }
            }
            pub fn parse(text: &str) -> Option<Code> {
                Code::ALL.iter().copied().find(|c| c.as_str().eq_ignore_ascii_case(text))
            }
        }
    };
}

impl Code {
    /// Whether a defect with this code can be the cause of a feasibility
    /// defect that blames its object: a page nobody reaches (S101), a marker
    /// nothing triggers (S102), a page that leads nowhere (S103) or shows
    /// nothing (S105). The JSON report orders those first (`depends_on`).
    pub fn blocks_dependents(self) -> bool {
        matches!(self, Code::S101 | Code::S102 | Code::S103 | Code::S105)
    }
}

codes! {
    E001 => Syntax, Error, "unexpected token or end of file";
    E002 => Syntax, Error, "unterminated string";
    E003 => Syntax, Error, "malformed literal";
    E101 => Name, Error, "unknown name";
    E102 => Name, Error, "duplicate declaration";
    E103 => Name, Error, "wrong number of arguments";
    E104 => Name, Error, "no site declaration, or more than one";
    E201 => Type, Error, "type mismatch";
    E202 => Type, Error, "condition is not Bool";
    E203 => Type, Error, "operator not defined for these types";
    E204 => Type, Error, "seed row misses a required field or names an unknown one";
    E205 => Type, Error, "assignment to something that is not a writable field or session variable";
    E301 => Effect, Error, "write outside the marker's declared writes";
    E302 => Effect, Error, "read outside the marker's declared reads";
    E303 => Effect, Error, "persistent write outside a marker or task setup";
    S101 => Structural, Warning, "page unreachable from the start page";
    S102 => Structural, Warning, "marker that no element triggers";
    S103 => Structural, Warning, "dead-end page";
    S105 => Structural, Warning, "empty page";
    S107 => Structural, Warning, "declared permission never used";
    M201 => Semantic, Error, "negative money in seed data";
    M202 => Semantic, Error, "impossible calendar date";
    M203 => Semantic, Warning, "placeholder text";
    M204 => Semantic, Error, "duplicate id in seed data";
    M205 => Semantic, Error, "reference to a row that does not exist";
    M206 => Semantic, Warning, "empty text in a required seed field";
    M207 => Semantic, Error, "task without say";
    C301 => Consistency, Error, "seed data violates an invariant";
    C302 => Consistency, Warning, "a marker is rejected by an invariant from some reachable state";
    C303 => Consistency, Warning, "a hard-coded literal duplicates a field the page could show";
    F401 => Feasibility, Error, "task goal not reachable within its horizon";
    F402 => Feasibility, Error, "task goal statically unsatisfiable";
    F403 => Feasibility, Error, "task template with no instance";
    F404 => Feasibility, Warning, "task goal already true in the initial state";
    F405 => Feasibility, Error, "retrieval task cannot be answered within the horizon";
    F406 => Feasibility, Warning, "reachability undecided: the search budget ran out";
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
