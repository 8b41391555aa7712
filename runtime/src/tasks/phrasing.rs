//! Instructions (§2.4 `say`): several sentence skeletons per task family,
//! filled with names taken from the data. A skeleton's id (`op.3`) is what
//! "no two tasks share a sentence skeleton" counts; phrases the agent must
//! type are written in quotes, which makes them typeable (§2.4).

/// The kinds of generated task, by what they ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// One marker's effect.
    Operation,
    /// Several markers' effects, in order.
    Workflow,
    /// A field of a named row.
    Single,
    /// The row with the least or greatest value of a field (optionally among
    /// rows with a given value of another field).
    Comparison,
    /// How many rows have a given value of a field.
    Count,
    /// A field of the one row with a given value of another field.
    Lookup,
}

impl Family {
    pub const ALL: [Family; 6] = [
        Family::Operation,
        Family::Workflow,
        Family::Single,
        Family::Comparison,
        Family::Count,
        Family::Lookup,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::Operation => "op",
            Family::Workflow => "flow",
            Family::Single => "single",
            Family::Comparison => "compare",
            Family::Count => "count",
            Family::Lookup => "lookup",
        }
    }

    pub fn is_retrieval(self) -> bool {
        !matches!(self, Family::Operation | Family::Workflow)
    }

    /// The family's skeletons.
    pub fn skeletons(self) -> &'static [&'static str] {
        match self {
            Family::Operation => &[
                "Please {step}.",
                "I need you to {step}.",
                "Could you {step}?",
                "Use the site to {step}.",
                "Your job: {step}.",
                "Make sure you {step}.",
                "Go ahead and {step}.",
                "Find the right page and {step}.",
            ],
            Family::Workflow => &[
                "First {steps_then}.",
                "Do these in order: {steps_semicolon}.",
                "Please {steps_then}, in that order.",
                "Start to finish: {steps_then}.",
                "I'd like you to {steps_and_after}.",
                "Complete this sequence: {steps_semicolon}.",
            ],
            Family::Single => &[
                "What is the {field} of \"{label}\"?",
                "Look up \"{label}\" and tell me its {field}.",
                "Find the {field} listed for \"{label}\".",
                "Tell me the {field} of the {table} \"{label}\".",
                "I'm curious about \"{label}\": what is its {field}?",
                "Check the site for the {field} of \"{label}\".",
                "Which {field} does the {table} \"{label}\" have?",
                "Report the {field} shown for \"{label}\".",
            ],
            Family::Comparison => &[
                "Which {table}{among} has the {extreme} {field}?",
                "Among the {tables}{among_inline}, which one has the {extreme} {field}?",
                "Find the {table}{among} with the {extreme} {field} and give its name.",
                "Name the {table}{among} whose {field} is the {extreme}.",
                "Looking at {field}, which {table}{among} comes out {extreme}?",
                "Tell me the {table}{among} with the {extreme} {field}.",
            ],
            Family::Count => &[
                "How many {tables} have {cond}?",
                "Count the {tables} with {cond}.",
                "What is the number of {tables} with {cond}?",
                "How many {tables} are there with {cond}?",
                "Give the count of {tables} that have {cond}.",
            ],
            Family::Lookup => &[
                "What is the {field} of the {table} with {cond}?",
                "Find the {table} with {cond} and report its {field}.",
                "The {table} with {cond}: what is its {field}?",
                "Look for the {table} that has {cond}; tell me its {field}.",
                "Which {field} does the {table} with {cond} have?",
            ],
        }
    }
}

/// The words a skeleton is filled with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Slots {
    /// Operations: one phrase per marker click, in order.
    pub steps: Vec<String>,
    /// Texts the agent types.
    pub typed: Vec<String>,
    pub field: String,
    pub label: String,
    pub table: String,
    pub tables: String,
    /// `lowest`, `latest`, …
    pub extreme: String,
    /// A condition: `category "Lanterns"`.
    pub cond: String,
}

/// The sentence `skeleton` makes of `slots`.
pub fn fill(skeleton: &str, slots: &Slots) -> String {
    let step = slots.steps.first().cloned().unwrap_or_default();
    let (among, among_inline) = if slots.cond.is_empty() {
        (String::new(), String::new())
    } else {
        (
            format!(" with {}", slots.cond),
            format!(" with {}", slots.cond),
        )
    };
    let mut s = skeleton
        .replace("{step}", &step)
        .replace("{steps_then}", &join_then(&slots.steps))
        .replace("{steps_semicolon}", &slots.steps.join("; then "))
        .replace("{steps_and_after}", &join_after(&slots.steps))
        .replace("{field}", &slots.field)
        .replace("{label}", &slots.label)
        .replace("{tables}", &slots.tables)
        .replace("{table}", &slots.table)
        .replace("{extreme}", &slots.extreme)
        .replace("{among_inline}", &among_inline)
        .replace("{among}", &among)
        .replace("{cond}", &slots.cond);
    if !slots.typed.is_empty() {
        let quoted: Vec<String> = slots.typed.iter().map(|t| format!("\"{t}\"")).collect();
        s.push_str(&format!(" Type {} where asked.", quoted.join(", then ")));
    }
    capitalize(&s)
}

fn join_then(steps: &[String]) -> String {
    match steps {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{}, then {last}", init.join(", then ")),
    }
}

fn join_after(steps: &[String]) -> String {
    match steps {
        [] => String::new(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first}, and after that {}", rest.join(", and then ")),
    }
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `add_to_cart` → `add to cart`; `CartLine` → `cart line`.
pub fn humanize(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if ch == '_' {
            out.push(' ');
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        out.extend(ch.to_lowercase());
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A plural for a humanized table name (`category` → `categories`).
pub fn plural(noun: &str) -> String {
    if let Some(stem) = noun.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if noun.ends_with(['s', 'x']) || noun.ends_with("ch") || noun.ends_with("sh") {
        return format!("{noun}es");
    }
    format!("{noun}s")
}
