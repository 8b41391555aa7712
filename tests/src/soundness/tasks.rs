//! Tasks for a generated site: operation tasks whose goals mix session
//! values, row fields, row counts, `visited Page(...)` and `page is ...`,
//! retrieval tasks whose answers a page may show only after a marker ran
//! (or after a rename makes a row's name the answer), templates over a
//! table, typed `values`, `setup`, `start` and `progress`.

use super::exprs::{Exprs, Perms, Scope};
use super::rng::Rng;
use super::schema::{Ty, NAMES, TONE_VARIANTS};
use super::PageSig;

const TYPEABLE: [&str; 7] = ["1", "2", "3", "Zulu", "Alpha", "Yarrow", "Bravo"];

/// Writes tasks.
pub struct TaskWriter<'a, 's> {
    pub rng: &'a mut Rng,
    pub ex: &'a mut Exprs<'s>,
    pub pages: &'a [PageSig],
    pub features: Vec<&'static str>,
    /// Goal atoms some marker makes true.
    pub effects: Vec<String>,
    /// Values some page shows.
    pub shown: Vec<String>,
}

impl TaskWriter<'_, '_> {
    /// The source of task number `index`.
    pub fn task(&mut self, index: usize) -> String {
        let mut scope = Scope::default();
        let mut header = format!("task task{index}");
        let mut say = format!("Finish task {index}.");
        if self.rng.chance(20) {
            let t = self.rng.below(self.ex.schema.tables.len());
            let table = self.ex.schema.tables[t].name;
            let mut template = format!(" for x in {table}");
            if self.rng.chance(30) {
                let test = self.ex.field_test(self.rng, &mut Perms::default(), "x", t);
                template.push_str(&format!(" where {test}"));
            }
            template.push_str(&format!(" limit {}", self.rng.range(1, 2)));
            header.push_str(&template);
            say = format!("Work on {{x.name}} ({index}).");
            scope.vars.push(("x".into(), Ty::Row(t)));
            self.features.push("template");
        }
        if self.rng.chance(15) {
            // Typeable: the value as rendered at the start.
            let t = self.rng.below(self.ex.schema.tables.len());
            let row = self.ex.schema.seeded_ref(self.rng, t);
            let what = match self.ex.schema.session_of(Ty::Int).first() {
                Some(v) if self.rng.chance(30) => format!("session.{}", v.name),
                _ => format!("{row}.name"),
            };
            say.push_str(&format!(" See {{{what}}}."));
            self.features.push("say-interpolation");
        }
        if self.rng.chance(20) {
            let word = self.rng.pick_or(&NAMES[3..], "Zulu");
            say.push_str(&format!(" Use \\\"{word}\\\"."));
        }
        let mut items = vec![format!("say \"{say}\"")];
        if self.rng.chance(60) {
            let n = self.rng.range(1, 3);
            let values: Vec<String> = (0..n)
                .map(|_| format!("{:?}", self.rng.pick_or(&TYPEABLE, "1")))
                .collect();
            items.push(format!("values [{}]", values.join(", ")));
        }
        if self.rng.chance(20) {
            let start = self.page_ref(&scope);
            items.push(format!("start {start}"));
        }
        items.push(format!("horizon {}", self.rng.range(3, 8)));
        if self.rng.chance(10) {
            items.push(format!("setup {{ {} }}", self.setup()));
            self.features.push("setup");
        }
        if self.rng.chance(25) {
            items.push(format!("answer {}", self.answer(&scope)));
            self.features.push("answer-task");
        } else {
            let n = self.rng.range(1, 2);
            let atoms: Vec<String> = (0..n).map(|_| self.goal_atom(&scope)).collect();
            items.push(format!("goal {}", atoms.join(" and ")));
        }
        if self.rng.chance(15) {
            let target = self.page_ref(&scope);
            items.push(format!("progress {{ 1: visited {target} }}"));
            self.features.push("progress-visited");
        }
        let body: Vec<String> = items.iter().map(|i| format!("  {i}")).collect();
        format!("{header} {{\n{}\n}}\n", body.join("\n"))
    }

    /// `Page` or `Page(arg)` for any page.
    fn page_ref(&mut self, scope: &Scope) -> String {
        let page = self.rng.pick_or(self.pages, self.pages[0].clone());
        match page.param {
            None => page.name,
            Some((_, ty)) => {
                let arg = match ty {
                    Ty::Text => format!("{:?}", self.rng.pick_or(&NAMES, "Alpha")),
                    Ty::Int => self.rng.range(0, 3).to_string(),
                    _ => self.ex.value(self.rng, scope, &mut Perms::default(), ty),
                };
                format!("{}({arg})", page.name)
            }
        }
    }

    fn setup(&mut self) -> String {
        let flags = self.ex.schema.session_of(Ty::Bool);
        match flags.first() {
            Some(v) if self.rng.chance(50) => format!("set session.{} = true", v.name),
            _ => {
                let t = self.rng.below(self.ex.schema.tables.len());
                let row = self.ex.schema.seeded_ref(self.rng, t);
                format!("set {row}.name = \"Cedar\"")
            }
        }
    }

    fn answer(&mut self, scope: &Scope) -> String {
        if !self.shown.is_empty() && self.rng.chance(50) {
            return self.rng.pick_or(&self.shown, "[\"Zulu\"]".into());
        }
        let (row, t) = match scope.vars.first() {
            Some((x, Ty::Row(t))) if self.rng.chance(70) => (x.clone(), *t),
            _ => {
                let t = self.rng.below(self.ex.schema.tables.len());
                (self.ex.schema.seeded_ref(self.rng, t), t)
            }
        };
        let table = &self.ex.schema.tables[t];
        let mut options = vec![format!("{row}.name")];
        if table.field("code").is_some() {
            options.extend([format!("{row}.code"), format!("{row}.code")]);
        }
        if table.field("qty").is_some() {
            options.push(format!("{row}.qty"));
        }
        if table.field("price").is_some() {
            options.push(format!("{row}.price"));
        }
        options.push(format!("[{:?}]", self.rng.pick_or(&NAMES[5..], "Zulu")));
        self.rng.pick_or(&options, "[\"Zulu\"]".into())
    }

    fn goal_atom(&mut self, scope: &Scope) -> String {
        if !self.effects.is_empty() && self.rng.chance(50) {
            let atom = self.rng.pick_or(&self.effects, "true".into());
            if atom.starts_with("visited") {
                self.features.push("visited-goal");
            } else if atom.starts_with("page is") {
                self.features.push("page-is-goal");
            }
            return atom;
        }
        match self.rng.below(9) {
            0 | 1 => {
                self.features.push("visited-goal");
                format!("visited {}", self.page_ref(scope))
            }
            2 => {
                self.features.push("page-is-goal");
                format!("page is {}", self.page_ref(scope))
            }
            3 => self.ex.session_test(self.rng),
            4 => {
                let t = self.rng.below(self.ex.schema.tables.len());
                let z = self.ex.binder();
                let name = self.rng.pick_or(&NAMES, "Zulu");
                format!(
                    "(exists {z} in {}: {z}.name == {name:?})",
                    self.ex.schema.tables[t].name
                )
            }
            5 => {
                let t = self.rng.below(self.ex.schema.tables.len());
                let table = &self.ex.schema.tables[t];
                let n = table.rows.len() as i64 + [-1, 1, 1][self.rng.below(3)];
                format!("count({}) == {}", table.name, n.max(0))
            }
            6 => {
                let vars: Vec<_> = self
                    .ex
                    .schema
                    .session
                    .iter()
                    .filter(|v| v.name != "trail")
                    .map(|v| (v.name.clone(), v.ty))
                    .collect();
                let Some((name, ty)) = self.rng.pick(&vars).cloned() else {
                    return "true".into();
                };
                let value = match ty {
                    Ty::Bool => "true".to_string(),
                    Ty::Int => self.rng.range(1, 2).to_string(),
                    Ty::Tone => self.rng.pick_or(&TONE_VARIANTS, "green").into(),
                    Ty::Money => "$1.25".into(),
                    Ty::Text => format!("{:?}", self.rng.pick_or(&NAMES, "Zulu")),
                    Ty::Row(t) | Ty::OptRow(t) => self.ex.schema.seeded_ref(self.rng, t),
                };
                format!("session.{name} == {value}")
            }
            _ => {
                let (row, t) = match scope.vars.first() {
                    Some((x, Ty::Row(t))) if self.rng.chance(60) => (x.clone(), *t),
                    _ => {
                        let t = self.rng.below(self.ex.schema.tables.len());
                        (self.ex.schema.seeded_ref(self.rng, t), t)
                    }
                };
                self.ex.field_test(self.rng, &mut Perms::default(), &row, t)
            }
        }
    }
}
