//! Pages for a generated site. A page is a shuffled list of intents (trigger
//! this marker, link to that page, show something), each rendered inside a
//! random wrapper: plain, under `if`, in a `section`, or in a `for` loop over
//! a table whose row may then be an argument. Arguments come from what is in
//! scope or from a form element declared just before (a table `select` shown
//! as `"{x}"`, a typed `input`, a text `select`, a `checkbox`), so options,
//! typed values and `disabled when` all meet the prover. Some pages have
//! guards redirecting elsewhere, some loops an `offset`, some texts show a
//! page `let` (language 1.1).

use super::exprs::{Exprs, Perms, Scope};
use super::markers::Marker;
use super::rng::Rng;
use super::schema::{Ty, NAMES};
use super::PageSig;

/// What one page must contain.
#[derive(Clone, Debug, Default)]
pub struct PagePlan {
    /// Markers (by index) with a button here.
    pub markers: Vec<usize>,
    /// Pages (by index) linked from here.
    pub links: Vec<usize>,
}

#[derive(Clone, Debug)]
enum Intent {
    Button(usize),
    Link(usize),
    Show,
    /// A form field whose variable nothing reads.
    Decoy,
}

/// Writes pages.
pub struct PageWriter<'a, 's> {
    pub rng: &'a mut Rng,
    pub ex: &'a mut Exprs<'s>,
    pub pages: &'a [PageSig],
    pub markers: &'a [Marker],
    pub features: Vec<&'static str>,
    /// Expressions some page shows (`Item[2].code`, `session.count`), which
    /// retrieval tasks may ask for.
    pub shown: Vec<String>,
    /// Numbers form variables and loop variables apart within a page.
    counter: usize,
    /// Numbers `#name`s apart within a site.
    names: usize,
}

impl<'a, 's> PageWriter<'a, 's> {
    pub fn new(
        rng: &'a mut Rng,
        ex: &'a mut Exprs<'s>,
        pages: &'a [PageSig],
        markers: &'a [Marker],
    ) -> Self {
        PageWriter {
            rng,
            ex,
            pages,
            markers,
            features: Vec::new(),
            shown: Vec::new(),
            counter: 0,
            names: 0,
        }
    }

    /// The source of page `index`.
    pub fn page(&mut self, index: usize, plan: &PagePlan) -> String {
        let sig = &self.pages[index];
        self.counter = 0;
        let mut scope = Scope::default();
        let header = match &sig.param {
            Some((name, ty)) => {
                scope.vars.push((name.clone(), *ty));
                format!("page {}({name}: {})", sig.name, self.ex.schema.ty_name(*ty))
            }
            None => format!("page {}", sig.name),
        };
        let header = format!("{header}{}", self.guards(&scope));
        let mut intents: Vec<Intent> = plan.markers.iter().map(|&m| Intent::Button(m)).collect();
        intents.extend(plan.links.iter().map(|&p| Intent::Link(p)));
        for _ in 0..self.rng.range(0, 2) {
            intents.push(Intent::Show);
        }
        if self.rng.chance(20) {
            intents.push(Intent::Decoy);
        }
        shuffle(self.rng, &mut intents);
        let mut lines = vec![format!("  heading \"{}\"", sig.name)];
        if let Some((name, Ty::Row(_) | Ty::OptRow(_))) = &sig.param {
            if self.rng.chance(50) {
                // Punctuation glued to the value: the JIT's word plans
                // drop what the words' trim drops (`label_words`).
                lines.push(format!("  text \"Row ({{{name}}}):\""));
            }
        }
        for intent in &intents {
            self.wrapped(intent, &scope, 1, &mut lines);
        }
        format!("{header} {{\n{}\n}}\n", lines.join("\n"))
    }

    /// Sometimes one or two `guard c else P(args)` (any page, this one
    /// included: a redirect cycle stops at the bound), over the page's
    /// parameter and the state.
    fn guards(&mut self, scope: &Scope) -> String {
        let mut out = String::new();
        let count = match self.rng.below(100) {
            0..=19 => 1,
            20..=24 => 2,
            _ => 0,
        };
        for _ in 0..count {
            let cond = self.cond(scope);
            let target = self.rng.below(self.pages.len());
            let target = self.pages[target].clone();
            let args = match target.param {
                Some((_, ty)) => {
                    let arg = self.ex.value(self.rng, scope, &mut Perms::default(), ty);
                    format!("({arg})")
                }
                None => String::new(),
            };
            out.push_str(&format!(" guard {cond} else {}{args}", target.name));
            self.features.push("page-guard");
        }
        out
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    /// `intent` inside a random wrapper, at nesting `depth`.
    fn wrapped(&mut self, intent: &Intent, scope: &Scope, depth: usize, out: &mut Vec<String>) {
        let pad = "  ".repeat(depth);
        let roll = if depth >= 3 { 0 } else { self.rng.below(10) };
        match roll {
            6 | 7 => {
                let c = self.cond(scope);
                out.push(format!("{pad}if {c} {{"));
                self.wrapped(intent, scope, depth + 1, out);
                if self.rng.chance(30) {
                    out.push(format!("{pad}}} else {{"));
                    self.show(scope, depth + 1, out);
                }
                out.push(format!("{pad}}}"));
                self.features.push("if-element");
            }
            8 => {
                let t = self.rng.below(self.ex.schema.tables.len());
                let x = self.fresh("x");
                let table = self.ex.schema.tables[t].name;
                let mut head = format!("{pad}for {x} in {table}");
                if self.rng.chance(45) {
                    let test = self.ex.field_test(self.rng, &mut Perms::default(), &x, t);
                    head.push_str(&format!(" where {test}"));
                    self.features.push("for-where");
                }
                if self.rng.chance(25) {
                    let key = if self.ex.schema.tables[t].field("qty").is_some() {
                        "qty"
                    } else {
                        "name"
                    };
                    let desc = if self.rng.chance(50) { " desc" } else { "" };
                    head.push_str(&format!(" order by {x}.{key}{desc}"));
                }
                if self.rng.chance(20) {
                    head.push_str(&format!(" limit {}", self.rng.range(1, 2)));
                }
                if self.rng.chance(20) {
                    let k = match self.rng.below(4) {
                        0 => "-1".to_string(),
                        1 => self.ex.int(self.rng, scope, &mut Perms::default()),
                        _ => self.rng.range(0, 2).to_string(),
                    };
                    head.push_str(&format!(" offset {k}"));
                    self.features.push("for-offset");
                }
                out.push(format!("{head} {{"));
                let inner = scope.with(&x, Ty::Row(t));
                if self.rng.chance(40) {
                    out.push(format!("{pad}  text \"#{{{x}}}.\""));
                }
                self.wrapped(intent, &inner, depth + 1, out);
                out.push(format!("{pad}}}"));
                self.features.push("for-element");
            }
            9 => {
                out.push(format!("{pad}section \"Part\" {{"));
                self.wrapped(intent, scope, depth + 1, out);
                out.push(format!("{pad}}}"));
            }
            _ => self.plain(intent, scope, depth, out),
        }
    }

    fn plain(&mut self, intent: &Intent, scope: &Scope, depth: usize, out: &mut Vec<String>) {
        match intent {
            Intent::Show => self.show(scope, depth, out),
            Intent::Decoy => {
                let pad = "  ".repeat(depth);
                let d = self.fresh("d");
                let t = self.rng.below(self.ex.schema.tables.len());
                let table = self.ex.schema.tables[t].name;
                out.push(match self.rng.below(4) {
                    0 => format!("{pad}input {d} \"Note\""),
                    1 => format!("{pad}checkbox {d} \"Remember me\""),
                    2 => format!("{pad}select {d} \"Size\" [\"S\", \"M\"]"),
                    _ => format!(
                        "{pad}select {d}: {table} \"Also\" from o{d} in {table} show \"{{o{d}}}\""
                    ),
                });
                self.features.push("idle-field");
            }
            Intent::Button(m) => {
                let marker = &self.markers[*m];
                let mut scope = scope.clone();
                let args: Vec<String> = marker
                    .params
                    .clone()
                    .iter()
                    .map(|(_, ty)| self.argument(*ty, &mut scope, depth, out))
                    .collect();
                let label = self.label(&scope, &format!("Run {}", marker.name));
                let name = self.element_name();
                let disabled = self.disabled(&scope);
                out.push(format!(
                    "{}button{name} {label} -> {}({}){disabled}",
                    "  ".repeat(depth),
                    marker.name,
                    args.join(", ")
                ));
            }
            Intent::Link(p) => {
                let target = self.pages[*p].clone();
                let mut scope = scope.clone();
                let args = match target.param {
                    Some((_, ty)) => {
                        format!("({})", self.argument(ty, &mut scope, depth, out))
                    }
                    None => String::new(),
                };
                let kind = if self.rng.chance(20) {
                    "button"
                } else {
                    "link"
                };
                let label = self.label(&scope, &format!("To {}", target.name));
                let disabled = self.disabled(&scope);
                out.push(format!(
                    "{}{kind} {label} -> {}{args}{disabled}",
                    "  ".repeat(depth),
                    target.name
                ));
            }
        }
    }

    /// An argument of type `ty`: a form element declared for it (added to
    /// `scope` and `out`), a variable in scope, or an expression.
    fn argument(
        &mut self,
        ty: Ty,
        scope: &mut Scope,
        depth: usize,
        out: &mut Vec<String>,
    ) -> String {
        let pad = "  ".repeat(depth);
        let form = self.rng.chance(45);
        match ty {
            Ty::Row(t) if form || scope.of(ty).is_empty() && self.rng.chance(50) => {
                let s = self.fresh("s");
                let z = self.fresh("o");
                let table = self.ex.schema.tables[t].name;
                let filter = if self.rng.chance(25) {
                    let test = self.ex.field_test(self.rng, &mut Perms::default(), &z, t);
                    format!(" where {test}")
                } else {
                    String::new()
                };
                let owned = self.ex.schema.tables[t].field("owner").is_some();
                let show = match self.rng.below(10) {
                    0..=5 => format!("\"{{{z}}}\""),
                    6 | 7 if owned => {
                        self.features.push("select-shows-reference");
                        format!("\"{{{z}.owner}}\"")
                    }
                    _ => format!("{z}.name"),
                };
                out.push(format!(
                    "{pad}select{} {s}: {table} \"Pick\" from {z} in {table}{filter} show {show}",
                    self.element_name()
                ));
                self.features.push("select-rows");
                scope.vars.push((s.clone(), ty));
                s
            }
            Ty::Int if form => {
                let n = self.fresh("n");
                out.push(format!(
                    "{pad}input{} {n}: Int \"Number\"",
                    self.element_name()
                ));
                self.features.push("typed-input");
                scope.vars.push((n.clone(), ty));
                n
            }
            Ty::Text if form => {
                let w = self.fresh("w");
                if self.rng.chance(30) {
                    let a = self.rng.pick_or(&NAMES, "Zulu");
                    let b = self.rng.pick_or(&NAMES, "Alpha");
                    out.push(format!("{pad}select {w} \"Word\" [{a:?}, {b:?}]"));
                    self.features.push("select-list");
                } else {
                    out.push(format!("{pad}input{} {w} \"Word\"", self.element_name()));
                    self.features.push("text-input");
                }
                scope.vars.push((w.clone(), ty));
                w
            }
            Ty::Bool if form => {
                let c = self.fresh("c");
                out.push(format!("{pad}checkbox{} {c} \"Sure\"", self.element_name()));
                self.features.push("checkbox");
                scope.vars.push((c.clone(), ty));
                c
            }
            _ => self.ex.value(self.rng, scope, &mut Perms::default(), ty),
        }
    }

    /// A text or heading showing values in scope (what retrieval tasks read).
    fn show(&mut self, scope: &Scope, depth: usize, out: &mut Vec<String>) {
        let pad = "  ".repeat(depth);
        let mut shown = Vec::new();
        for (name, ty) in &scope.vars {
            match ty {
                Ty::Row(t) | Ty::OptRow(t) => {
                    let table = &self.ex.schema.tables[*t];
                    let plain: Vec<&'static str> =
                        table.plain_fields().iter().map(|f| f.name).collect();
                    let field = self.rng.pick_or(&plain, "name");
                    shown.push(format!("{{{name}.{field}}}"));
                    // A reference renders as the name of the row it names.
                    if table.field("owner").is_some() {
                        shown.push(format!("{{{name}.owner}}"));
                    }
                }
                _ => shown.push(format!("{{{name}}}")),
            }
        }
        let t = self.rng.below(self.ex.schema.tables.len());
        let row = self.ex.schema.seeded_ref(self.rng, t);
        let field = if self.ex.schema.tables[t].field("code").is_some() {
            "code"
        } else {
            "name"
        };
        shown.push(format!("{{{row}.{field}}}"));
        let session: Vec<String> = self
            .ex
            .schema
            .session
            .iter()
            .filter(|v| v.name != "trail")
            .map(|v| format!("{{session.{}}}", v.name))
            .collect();
        shown.extend(session);
        if self.rng.chance(20) {
            // A page `let` naming a number that the text then shows.
            let v = self.fresh("v");
            let value = self.ex.int(self.rng, scope, &mut Perms::default());
            out.push(format!("{pad}let {v} = {value}"));
            shown.push(format!("{{{v}}}"));
            self.features.push("page-let");
        }
        let what = self.rng.pick_or(&shown, "Nothing".into());
        let global = what.contains(']') || what.starts_with("{session.");
        if global {
            self.shown
                .push(what.trim_start_matches('{').trim_end_matches('}').into());
        }
        let kind = if self.rng.chance(80) {
            "text"
        } else {
            "heading"
        };
        out.push(format!("{pad}{kind} \"Shows {what}\""));
    }

    fn cond(&mut self, scope: &Scope) -> String {
        self.ex.cond(self.rng, scope, &mut Perms::default(), 1)
    }

    /// A label, sometimes naming a row in scope.
    fn label(&mut self, scope: &Scope, plain: &str) -> String {
        let rows: Vec<String> = scope
            .vars
            .iter()
            .filter(|(_, t)| matches!(t, Ty::Row(_)))
            .map(|(n, _)| n.clone())
            .collect();
        match self.rng.pick(&rows) {
            Some(row) if self.rng.chance(50) => format!("\"{plain} {{{row}}}\""),
            _ => format!("\"{plain}\""),
        }
    }

    fn element_name(&mut self) -> String {
        if self.rng.chance(25) {
            self.names += 1;
            format!(" #e{}", self.names)
        } else {
            String::new()
        }
    }

    fn disabled(&mut self, scope: &Scope) -> String {
        if self.rng.chance(20) {
            self.features.push("disabled-when");
            format!(" disabled when {}", self.cond(scope))
        } else {
            String::new()
        }
    }
}

fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i + 1);
        items.swap(i, j);
    }
}
