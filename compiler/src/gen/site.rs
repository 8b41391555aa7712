//! Writes one site's `.wsite` source from its [`Plan`]: the tables and seed
//! rows, the site's own pages in the plan's variants, its workflow markers,
//! the module bindings, and tasks whose instances the data guarantees.
//!
//! The text is what an author would write: one declaration after another,
//! with comments saying what came from where. Nothing here checks the result;
//! the tests compile and prove generated sites.

use super::plan::{Account, Catalog, Detail, Flow, Menu, Plan};
use super::rng::Rng;
use super::vocab::Vocabulary;

/// Things per page in the paged catalog.
const PAGE_SIZE: usize = 6;

/// Where a page sits: the links leading down to it from the home page.
type Crumbs = Vec<(String, String)>;

/// The shape of the data, drawn before writing.
struct Data {
    people: usize,
    /// Department per category (all 0 when there are no departments).
    category_department: Vec<usize>,
    departments: usize,
    /// Category per thing (all 0 when there are no categories).
    thing_category: Vec<usize>,
    records: usize,
}

/// The writer's state: the plan, the words, the text so far.
struct Writer<'a> {
    plan: &'a Plan,
    v: &'a Vocabulary,
    title: &'a str,
    out: String,
    /// The home page's links to every section: (label, target).
    sections: Vec<(String, String)>,
}

/// The source of one site, and its seed-row count.
pub fn write(domain: &str, plan: &Plan, v: &Vocabulary, rng: &mut Rng) -> (String, usize) {
    let title = *rng.pick(v.sites);
    let data = draw_data(plan, v, rng);
    let mut w = Writer {
        plan,
        v,
        title,
        out: String::new(),
        sections: Vec::new(),
    };
    w.sections = sections(plan, v);
    w.header(domain);
    let rows = w.tables(&data, rng);
    w.home();
    w.catalog();
    w.detail_page();
    w.flow_pages();
    w.requests_page();
    w.account_page();
    w.record_page();
    w.info_pages(rng);
    w.markers();
    w.tasks(&data, rng);
    (w.out, rows)
}

fn draw_data(plan: &Plan, v: &Vocabulary, rng: &mut Rng) -> Data {
    let people = rng.range(2, v.people.len() as u64) as usize;
    let records = rng.range(20, 200) as usize;
    // Modules that list every thing with a button that writes (the cart's
    // shelf, the booking slots) multiply the states a proof explores by the
    // number of things, so those sites keep to a dozen.
    let cap = if plan
        .modules
        .iter()
        .any(|m| matches!(m.name, "cart" | "booking"))
    {
        12
    } else {
        24
    };
    let (departments, category_department, thing_category) = match plan.catalog {
        Catalog::Flat | Catalog::Featured => (0, vec![], spread(rng.range(8, 16) as usize, 1)),
        Catalog::Paged => (0, vec![], spread((rng.range(13, 24) as usize).min(cap), 1)),
        Catalog::Categories => {
            let cats = rng.range(3, 5) as usize;
            let per = (rng.range(2, 4) as usize).min(cap / cats);
            (0, vec![0; cats], spread(cats * per, cats))
        }
        Catalog::Nested => {
            let deps = rng.range(2, 3) as usize;
            let per_dep = 2;
            let cats = deps * per_dep;
            let per = (rng.range(2, 3) as usize).min(cap / cats);
            (deps, spread(cats, deps), spread(cats * per, cats))
        }
    };
    let mut thing_category = thing_category;
    thing_category.truncate(cap);
    Data {
        people,
        category_department,
        departments,
        thing_category,
        records,
    }
}

/// `n` items dealt round-robin into `groups` groups: the group of each.
fn spread(n: usize, groups: usize) -> Vec<usize> {
    (0..n).map(|i| i % groups.max(1)).collect()
}

/// The home page's sections: the catalog, the workflow's requests, the
/// account history, then each module's entry page.
fn sections(plan: &Plan, v: &Vocabulary) -> Vec<(String, String)> {
    let me = format!("{}[1]", v.people_table);
    let catalog = match plan.catalog {
        Catalog::Flat | Catalog::Featured => "Catalog",
        Catalog::Paged => "Catalog(0)",
        Catalog::Categories => "Categories",
        Catalog::Nested => "Departments",
    };
    let mut s = vec![
        (format!("Browse {}", plural(v)), catalog.to_string()),
        (format!("Your {}", v.requests), format!("MyRequests({me})")),
        (format!("Your {}", v.records), format!("History({me})")),
    ];
    for m in &plan.modules {
        s.push((m.link.to_string(), m.entry.replace("ME", &me)));
    }
    s
}

/// What the things are called in a heading (`products`).
fn plural(v: &Vocabulary) -> String {
    format!("{}s", v.things_table.to_lowercase())
}

/// A Rust identifier from words: `Enrol in` → `enrol_in`.
fn snake(words: &str) -> String {
    words
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The name of thing `i` (1-based ids follow the order): the vocabulary's
/// words first, then the same words with an edition after them.
fn thing_name(v: &Vocabulary, i: usize) -> String {
    const EDITIONS: [&str; 4] = ["", " Plus", " Mini", " Classic"];
    let base = v.things[i % v.things.len()];
    format!("{base}{}", EDITIONS[(i / v.things.len()) % EDITIONS.len()])
}

impl Writer<'_> {
    fn line(&mut self, text: &str) {
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn thing(&self) -> &'static str {
        self.v.things_table
    }

    fn person(&self) -> &'static str {
        self.v.people_table
    }

    fn me(&self) -> String {
        format!("{}[1]", self.person())
    }

    fn header(&mut self, domain: &str) {
        let templates = self.plan.templates.join(", ");
        self.line(&format!(
            "// Generated by `wsitec gen --domain {domain}` from the templates {templates}."
        ));
        for m in &self.plan.modules {
            let binds: Vec<String> = m
                .binds
                .iter()
                .map(|(p, people)| {
                    let table = if *people {
                        self.v.people_table
                    } else {
                        self.v.things_table
                    };
                    format!("{p} = {table}")
                })
                .collect();
            self.line(&format!("use std::{}({})", m.name, binds.join(", ")));
        }
        let site_name: String = self
            .title
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        self.line(&format!(
            "\nsite {site_name} {{\n  title \"{}\"\n  domain {domain}\n  start Home\n  today @2026-11-30\n}}",
            self.title
        ));
    }

    /// Every table and its seed rows; returns the number of rows written.
    fn tables(&mut self, d: &Data, rng: &mut Rng) -> usize {
        let (p, t) = (self.person(), self.thing());
        let mut rows = 0;
        self.line(&format!(
            "\ntable {p} {{\n  name: Text\n  password: Text\n  email: Text\n  newsletter: Bool\n}}\n\nseed {p} ["
        ));
        for (i, name) in self.v.people.iter().take(d.people).enumerate() {
            let first = name.split(' ').next().unwrap_or(name).to_lowercase();
            let password = format!("{first}-{}", rng.range(10, 99));
            // The first person never has the newsletter, so `subscribe` has work.
            let newsletter = i > 0 && rng.next().is_multiple_of(2);
            self.line(&format!(
                "  {{ name: \"{name}\", password: \"{password}\", email: \"{first}@mail.example\", newsletter: {newsletter} }},"
            ));
            rows += 1;
        }
        self.line("]");
        if d.departments > 0 {
            self.line("\ntable Department {\n  name: Text\n}\n\nseed Department [");
            for name in self.v.departments.iter().take(d.departments) {
                self.line(&format!("  {{ name: \"{name}\" }},"));
                rows += 1;
            }
            self.line("]");
        }
        let has_categories = !d.category_department.is_empty();
        if has_categories {
            let dep_field = if d.departments > 0 {
                "\n  department: Department"
            } else {
                ""
            };
            self.line(&format!(
                "\ntable Category {{\n  name: Text{dep_field}\n}}\n\nseed Category ["
            ));
            for (i, dep) in d.category_department.iter().enumerate() {
                let name = self.v.categories[i % self.v.categories.len()];
                let dep = if d.departments > 0 {
                    format!(", department: Department[{}]", dep + 1)
                } else {
                    String::new()
                };
                self.line(&format!("  {{ name: \"{name}\"{dep} }},"));
                rows += 1;
            }
            self.line("]");
        }
        let cat_field = if has_categories {
            "\n  category: Category"
        } else {
            ""
        };
        self.line(&format!(
            "\ntable {t} {{\n  name: Text\n  price: Money\n  stock: Int\n  capacity: Int{cat_field}\n}}\n\ninvariant stock_never_negative: all x in {t}: x.stock >= 0\n\nseed {t} ["
        ));
        for (i, cat) in d.thing_category.iter().enumerate() {
            let cents = rng.range(300, 12_000);
            // The first three always have stock, so the workflow has work.
            let stock = if i < 3 {
                rng.range(2, 6)
            } else {
                rng.range(0, 6)
            };
            let capacity = rng.range(1, 4);
            let cat = if has_categories {
                format!(", category: Category[{}]", cat + 1)
            } else {
                String::new()
            };
            self.line(&format!(
                "  {{ name: \"{}\", price: ${}.{:02}, stock: {stock}, capacity: {capacity}{cat} }},",
                thing_name(self.v, i),
                cents / 100,
                cents % 100
            ));
            rows += 1;
        }
        self.line("]");
        rows += self.activity_tables(d, rng);
        rows + self.module_seeds()
    }

    /// The workflow's table (one request of the first person waiting) and the
    /// past-activity table with its tens to hundreds of rows.
    fn activity_tables(&mut self, d: &Data, rng: &mut Rng) -> usize {
        let (p, t) = (self.person(), self.thing());
        let (req, rec) = (self.v.request_table, self.v.record_table);
        self.line(&format!(
            "\ntable {req} max 12 {{\n  thing: {t}\n  person: {p}\n  choice: Text\n  qty: Int\n}}\n\nseed {req} [\n  {{ thing: {t}[3], person: {p}[1], choice: \"{}\", qty: 1 }},\n]",
            self.v.options[0]
        ));
        self.line(&format!(
            "\ntable {rec} {{\n  person: {p}\n  thing: {t}\n  amount: Money\n  day: Date\n}}\n\nseed {rec} ["
        ));
        for _ in 0..d.records {
            let who = rng.range(1, d.people as u64);
            let what = rng.range(1, d.thing_category.len() as u64);
            let cents = rng.range(100, 50_000);
            let (month, day) = (rng.range(1, 11), rng.range(1, 28));
            self.line(&format!(
                "  {{ person: {p}[{who}], thing: {t}[{what}], amount: ${}.{:02}, day: @2026-{month:02}-{day:02} }},",
                cents / 100,
                cents % 100
            ));
        }
        self.line("]");
        1 + d.records
    }

    /// Rows the modules' own tables start with, so that their tasks have
    /// instances: a message waiting, a booking and a draft of the first person.
    fn module_seeds(&mut self) -> usize {
        let (p, t) = (self.person(), self.thing());
        let mut rows = 0;
        for m in &self.plan.modules {
            let seed = match m.name {
                "messaging" => format!(
                    "\nseed Message [\n  {{ sender: {p}[2], recipient: {p}[1], body: \"Are you coming on Friday?\", reply_to: none }},\n]"
                ),
                "booking" => format!("\nseed Booking [\n  {{ slot: {t}[1], client: {p}[1] }},\n]"),
                "application" => format!(
                    "\nseed Application [\n  {{ applicant: {p}[1], purpose: \"{}\", amount: $250.00, status: draft }},\n]",
                    self.v.things[0]
                ),
                _ => continue,
            };
            self.out.push_str(&seed);
            self.out.push('\n');
            rows += 1;
        }
        rows
    }

    /// Opens a page: its header, and the menu when the menu comes first.
    fn open(&mut self, signature: &str, heading: &str, crumbs: &Crumbs) {
        self.line(&format!("\npage {signature} {{"));
        match self.plan.menu {
            Menu::Navbar => self.menu_section("Menu"),
            Menu::Breadcrumb => {
                for (label, target) in crumbs {
                    self.line(&format!("  link \"{label}\" -> {target}"));
                }
            }
            Menu::Hub | Menu::Footer => {}
        }
        self.line(&format!("  heading \"{heading}\""));
    }

    /// Closes a page: the way back home or the footer menu.
    fn close(&mut self) {
        match self.plan.menu {
            Menu::Hub => self.line("  link \"Home\" -> Home"),
            Menu::Footer => self.menu_section("More"),
            Menu::Navbar | Menu::Breadcrumb => {}
        }
        self.line("}");
    }

    fn menu_section(&mut self, label: &str) {
        self.line(&format!(
            "  section \"{label}\" {{\n    link \"Home\" -> Home"
        ));
        for (label, target) in self.sections.clone() {
            self.line(&format!("    link \"{label}\" -> {target}"));
        }
        self.line("  }");
        // The footer also carries the static pages, as footers do.
        if self.plan.menu == Menu::Footer {
            self.info_links("  ");
        }
    }

    fn home(&mut self) {
        self.line(&format!(
            "\npage Home {{\n  heading \"{}\"\n  text \"Welcome to {}.\"",
            self.title, self.title
        ));
        if self.plan.catalog == Catalog::Featured {
            let t = self.thing();
            self.line(&format!(
                "  section \"Featured\" {{\n    for x in {t} where x.stock > 0 order by x.price desc limit 3 {{\n      link \"{{x.name}}\" -> Detail(x)\n    }}\n  }}"
            ));
        }
        for (i, (label, target)) in self.sections.clone().into_iter().enumerate() {
            self.line(&format!("  link #section_{i} \"{label}\" -> {target}"));
        }
        self.info_links("  ");
        self.line("}");
    }

    /// A section linking every static page.
    fn info_links(&mut self, indent: &str) {
        if self.plan.info.is_empty() {
            return;
        }
        self.line(&format!("{indent}section \"About {}\" {{", self.title));
        for (page, title) in self.plan.info.clone() {
            self.line(&format!("{indent}  link \"{title}\" -> {page}"));
        }
        self.line(&format!("{indent}}}"));
    }

    /// The static pages: a heading and a few sentences each.
    fn info_pages(&mut self, rng: &mut Rng) {
        let home = self.home_crumb();
        let title = self.title;
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        for (page, heading) in self.plan.info.clone() {
            self.open(page, heading, &home);
            let body = match page {
                "About" => format!(
                    "{title} was founded in {} and is run by a team of {}.",
                    rng.range(1950, 2020),
                    rng.range(4, 60)
                ),
                "Help" => format!("To cancel, open your {} and press Cancel.", self.v.requests),
                "Privacy" => "We keep your details only as long as we need them.".into(),
                "News" => format!("New opening hours from month {}.", rng.range(1, 12)),
                "Locations" => format!("Find us at {} Harbour Street.", rng.range(1, 200)),
                "Faq" => "Can I change my mind? Yes, until it is processed.".into(),
                "Terms" => format!("By using {title} you agree to these terms."),
                "Careers" => "We are hiring. Write to us with your CV.".into(),
                "Press" => format!("For interviews, write to press@{slug}.example."),
                "Partners" => "We work with local suppliers and schools.".into(),
                "Contact" => format!(
                    "Write to help@{slug}.example or call 555-01{:02}.",
                    rng.range(0, 99)
                ),
                "Accessibility" => "Every page works with a screen reader and a keyboard.".into(),
                "Sitemap" => "Every page of this site is linked from the home page.".into(),
                _ => "Tell us what you think of this site.".into(),
            };
            self.line(&format!("  text \"{body}\""));
            self.close();
        }
    }

    fn home_crumb(&self) -> Crumbs {
        vec![("Home".into(), "Home".into())]
    }

    /// The crumbs down to a thing's own page (`x` names the thing).
    fn thing_crumbs(&self, x: &str) -> Crumbs {
        let mut c = self.home_crumb();
        match self.plan.catalog {
            Catalog::Flat | Catalog::Featured => c.push((plural_title(self.v), "Catalog".into())),
            Catalog::Paged => c.push((plural_title(self.v), "Catalog(0)".into())),
            Catalog::Categories => {
                c.push(("Categories".into(), "Categories".into()));
                c.push((
                    format!("{{{x}.category.name}}"),
                    format!("CategoryPage({x}.category)"),
                ));
            }
            Catalog::Nested => {
                c.push(("Departments".into(), "Departments".into()));
                c.push((
                    format!("{{{x}.category.department.name}}"),
                    format!("DepartmentPage({x}.category.department)"),
                ));
                c.push((
                    format!("{{{x}.category.name}}"),
                    format!("CategoryPage({x}.category)"),
                ));
            }
        }
        c
    }

    fn thing_links(&mut self, filter: &str, indent: &str) {
        let t = self.thing();
        self.line(&format!(
            "{indent}for x in {t}{filter} order by x.name {{\n{indent}  link \"{{x.name}}\" -> Detail(x)\n{indent}}}"
        ));
    }

    fn catalog(&mut self) {
        let t = self.thing();
        let home = self.home_crumb();
        let title = plural_title(self.v);
        match self.plan.catalog {
            Catalog::Flat | Catalog::Featured => {
                self.open("Catalog", &format!("All {}", plural(self.v)), &home);
                self.line(&format!("  text \"{{count(x in {t})}} in all\""));
                self.thing_links("", "  ");
                self.close();
            }
            Catalog::Paged => {
                self.open(
                    "Catalog(p: Int)",
                    &format!("{title}, page {{p + 1}}"),
                    &home,
                );
                self.line(&format!(
                    "  for x in {t} where count(y in {t} where y.name < x.name) >= p * {PAGE_SIZE} order by x.name limit {PAGE_SIZE} {{\n    link \"{{x.name}}\" -> Detail(x)\n  }}\n  if p > 0 {{\n    link #previous \"Previous\" -> Catalog(p - 1)\n  }}\n  if count(x in {t}) > (p + 1) * {PAGE_SIZE} {{\n    link #next \"Next\" -> Catalog(p + 1)\n  }}"
                ));
                self.close();
            }
            Catalog::Categories => {
                self.open("Categories", "Categories", &home);
                self.line("  for c in Category order by c.name {\n    link \"{c.name}\" -> CategoryPage(c)\n  }");
                self.close();
                let mut crumbs = home.clone();
                crumbs.push(("Categories".into(), "Categories".into()));
                self.category_page(&crumbs);
            }
            Catalog::Nested => {
                self.open("Departments", "Departments", &home);
                self.line("  for d in Department order by d.name {\n    link \"{d.name}\" -> DepartmentPage(d)\n  }");
                self.close();
                let mut crumbs = home.clone();
                crumbs.push(("Departments".into(), "Departments".into()));
                self.open("DepartmentPage(d: Department)", "{d.name}", &crumbs);
                self.line("  for c in Category where c.department == d order by c.name {\n    link \"{c.name}\" -> CategoryPage(c)\n  }");
                self.close();
                crumbs.push((
                    "{c.department.name}".into(),
                    "DepartmentPage(c.department)".into(),
                ));
                self.category_page(&crumbs);
            }
        }
    }

    fn category_page(&mut self, crumbs: &Crumbs) {
        let t = self.thing();
        self.open("CategoryPage(c: Category)", "{c.name}", crumbs);
        self.line(&format!(
            "  text \"{{count(x in {t} where x.category == c)}} {}\"",
            plural(self.v)
        ));
        self.thing_links(" where x.category == c", "  ");
        self.close();
    }

    fn has_categories(&self) -> bool {
        matches!(self.plan.catalog, Catalog::Categories | Catalog::Nested)
    }

    fn detail_page(&mut self) {
        let t = self.thing();
        let crumbs = self.thing_crumbs("t");
        self.open(&format!("Detail(t: {t})"), "{t.name}", &crumbs);
        let cat = self.has_categories();
        match self.plan.detail {
            Detail::Card => {
                self.line("  text \"Price: {t.price}\"\n  text \"In stock: {t.stock}\"");
                if cat {
                    self.line("  text \"Category: {t.category.name}\"");
                }
                self.flow_trigger("  ");
            }
            Detail::Sections => {
                self.line("  section \"Overview\" {\n    text \"Costs {t.price}\"");
                if cat {
                    self.line("    text \"Listed under {t.category.name}\"");
                }
                self.line("  }\n  section \"Availability\" {\n    text \"{t.stock} left\"\n  }\n  section \"Actions\" {");
                self.flow_trigger("    ");
                self.line("  }");
            }
            Detail::Compact => {
                let cat = if cat { " · {t.category.name}" } else { "" };
                self.line(&format!(
                    "  text \"{{t.price}} · {{t.stock}} available{cat}\""
                ));
                self.flow_trigger("  ");
            }
            Detail::Specs => {
                self.line("  image \"Photo of {t.name}\"\n  text \"Price\"\n  text \"{t.price}\"\n  text \"Stock\"\n  text \"{t.stock}\"");
                if cat {
                    self.line("  text \"Category\"\n  text \"{t.category.name}\"");
                }
                self.flow_trigger("  ");
            }
        }
        self.close();
    }

    /// The element on a thing's page that starts the workflow.
    fn flow_trigger(&mut self, indent: &str) {
        let (verb, me, first) = (self.v.verb, self.me(), self.v.options[0]);
        let place = format!("place_{}", snake(self.v.request_table));
        match self.plan.flow {
            Flow::Direct => self.line(&format!(
                "{indent}button #place \"{verb} {{t.name}}\" -> {place}(t, {me}, \"{first}\", 1) disabled when t.stock == 0"
            )),
            Flow::Confirm => self.line(&format!(
                "{indent}link #start \"{verb} {{t.name}}\" -> ConfirmRequest(t) disabled when t.stock == 0"
            )),
            Flow::Form { with_quantity } => {
                self.line(&format!(
                    "{indent}select choice \"{}\" [{}]",
                    self.v.option_label,
                    self.options_list()
                ));
                let qty = if with_quantity {
                    self.line(&format!("{indent}input qty: Int \"Quantity\""));
                    "qty"
                } else {
                    "1"
                };
                self.line(&format!(
                    "{indent}button #place \"{verb}\" -> {place}(t, {me}, choice, {qty}) disabled when t.stock == 0"
                ));
            }
            Flow::Wizard { .. } => self.line(&format!(
                "{indent}link #start \"{verb} {{t.name}}\" -> Options(t) disabled when t.stock == 0"
            )),
        }
    }

    fn options_list(&self) -> String {
        self.v
            .options
            .iter()
            .map(|o| format!("\"{o}\""))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The pages of the confirm and wizard workflows.
    fn flow_pages(&mut self) {
        let t = self.thing();
        let (verb, me, first) = (self.v.verb, self.me(), self.v.options[0]);
        let place = format!("place_{}", snake(self.v.request_table));
        let mut crumbs = self.thing_crumbs("t");
        crumbs.push(("{t.name}".into(), "Detail(t)".into()));
        match self.plan.flow {
            Flow::Direct | Flow::Form { .. } => {}
            Flow::Confirm => {
                self.open(
                    &format!("ConfirmRequest(t: {t})"),
                    "Please confirm",
                    &crumbs,
                );
                self.line(&format!(
                    "  text \"{verb} {{t.name}} for {{t.price}}?\"\n  button #confirm \"Confirm\" -> {place}(t, {me}, \"{first}\", 1)\n  link #back \"Back\" -> Detail(t)"
                ));
                self.close();
            }
            Flow::Wizard { with_quantity } => {
                self.open(&format!("Options(t: {t})"), "{t.name}: choose", &crumbs);
                self.line(&format!(
                    "  select choice \"{}\" [{}]",
                    self.v.option_label,
                    self.options_list()
                ));
                let next = if with_quantity {
                    "Quantity(t, choice)"
                } else {
                    "Recap(t, choice, 1)"
                };
                self.line(&format!("  link #continue \"Continue\" -> {next}"));
                self.close();
                if with_quantity {
                    self.open(
                        &format!("Quantity(t: {t}, choice: Text)"),
                        "{t.name}: how many?",
                        &crumbs,
                    );
                    self.line("  text \"{t.stock} available\"\n  input qty: Int \"Quantity\"\n  link #continue \"Continue\" -> Recap(t, choice, qty)");
                    self.close();
                }
                self.open(
                    &format!("Recap(t: {t}, choice: Text, qty: Int)"),
                    "Check and place",
                    &crumbs,
                );
                self.line(&format!(
                    "  text \"{{t.name}} × {{qty}}\"\n  text \"{}: {{choice}}\"\n  button #place \"Place\" -> {place}(t, {me}, choice, qty)\n  link #change \"Change\" -> Options(t)",
                    self.v.option_label
                ));
                self.close();
            }
        }
    }

    fn requests_page(&mut self) {
        let (p, req) = (self.person(), self.v.request_table);
        let home = self.home_crumb();
        self.open(
            &format!("MyRequests(me: {p})"),
            &format!("Your {}", self.v.requests),
            &home,
        );
        self.line(&format!(
            "  for r in {req} where r.person == me {{\n    text \"{{r.thing.name}} × {{r.qty}} ({{r.choice}})\"\n    button \"Cancel {{r.thing.name}}\" -> cancel_{}(r)\n  }}\n  if count(r in {req} where r.person == me) == 0 {{\n    text \"Nothing here yet.\"\n  }}",
            snake(req)
        ));
        self.close();
    }

    fn account_page(&mut self) {
        let (p, rec, records) = (self.person(), self.v.record_table, self.v.records);
        let home = self.home_crumb();
        self.open(
            &format!("History(me: {p})"),
            &format!("Your {records}"),
            &home,
        );
        let mine = format!("{rec} where r.person == me");
        self.line(&format!(
            "  text \"You have {{count(r in {mine})}} {records}\""
        ));
        let total = format!("  text \"Total: {{sum(r.amount for r in {mine})}}\"");
        match self.plan.account {
            Account::Recent => self.line(&format!(
                "  for r in {mine} order by r.day desc limit 5 {{\n    link \"{{r.day}}: {{r.thing.name}}\" -> RecordPage(r)\n  }}"
            )),
            Account::Totals => {
                self.line(&total);
                self.line(&format!(
                    "  for r in {mine} order by r.amount desc limit 3 {{\n    link \"{{r.thing.name}}: {{r.amount}}\" -> RecordPage(r)\n  }}"
                ));
            }
            Account::Summary => self.line(&total),
            Account::Ledger => self.line(&format!(
                "  for r in {mine} order by r.day desc limit 10 {{\n    section \"{{r.day}}\" {{\n      text \"{{r.thing.name}}\"\n      text \"{{r.amount}}\"\n      link \"Details\" -> RecordPage(r)\n    }}\n  }}"
            )),
        }
        self.close();
    }

    /// One past-activity row, opened from the account page (the summary
    /// variant links none, so its sites have no such page).
    fn record_page(&mut self) {
        if self.plan.account == Account::Summary {
            return;
        }
        let rec = self.v.record_table;
        let mut crumbs = self.home_crumb();
        crumbs.push((
            format!("Your {}", self.v.records),
            "History(r.person)".into(),
        ));
        self.open(&format!("RecordPage(r: {rec})"), "{r.thing.name}", &crumbs);
        self.line("  text \"Date: {r.day}\"\n  text \"Amount: {r.amount}\"\n  link #back \"Back\" -> History(r.person)");
        self.close();
    }

    fn markers(&mut self) {
        let (t, p, req) = (self.thing(), self.person(), self.v.request_table);
        let name = snake(req);
        self.line(&format!(
            "\nmarker place_{name}(t: {t}, p: {p}, choice: Text, qty: Int)\n  writes {req}, {t}.stock\n  requires qty > 0 else \"Choose a quantity of at least 1\"\n  requires t.stock >= qty else \"Not enough left\"\n{{\n  insert {req} {{ thing: t, person: p, choice: choice, qty: qty }}\n  set t.stock = t.stock - qty\n  go MyRequests(p)\n}}"
        ));
        self.line(&format!(
            "\nmarker cancel_{name}(r: {req})\n  writes {req}, {t}.stock\n{{\n  set r.thing.stock = r.thing.stock + r.qty\n  delete r\n}}"
        ));
    }

    /// Actions from the home page to a thing's page, at most.
    fn nav_depth(&self, things: usize) -> u32 {
        match self.plan.catalog {
            Catalog::Paged => 2 + things.div_ceil(PAGE_SIZE) as u32,
            other => other.depth(),
        }
    }

    fn tasks(&mut self, d: &Data, rng: &mut Rng) {
        let (t, p, req) = (self.thing(), self.person(), self.v.request_table);
        let me = self.me();
        let nav = self.nav_depth(d.thing_category.len());
        let flow = self.plan.flow;
        let name = snake(self.v.verb);
        let choice = self.v.options[rng.range(1, 2) as usize];
        let qty = if flow.has_quantity() { 2 } else { 1 };
        let mut say = format!("{} {{x.name}}", self.v.verb);
        let mut goal = format!("exists r in {req}: r.thing == x and r.person == {me}");
        if flow.has_choice() {
            say.push_str(&format!(", {} \\\"{choice}\\\"", self.v.option_label));
            goal.push_str(&format!(" and r.choice == \"{choice}\""));
        }
        let values = if flow.has_quantity() {
            say.push_str(&format!(", quantity {qty}"));
            goal.push_str(&format!(" and r.qty == {qty}"));
            format!("\n  values [\"{qty}\"]")
        } else {
            String::new()
        };
        // On a paged catalog, things of the first page: later pages only add
        // "Next" clicks, which `open_page_of` already asks for.
        let first_page = if self.plan.catalog == Catalog::Paged {
            format!(" and count(y in {t} where y.name < x.name) < {PAGE_SIZE}")
        } else {
            String::new()
        };
        self.line(&format!(
            "\n/// The site's own workflow, {} steps from the thing's page.\ntask {name}_thing for x in {t} where x.stock >= {qty}{first_page} and not (exists r in {req}: r.thing == x) limit 2 {{\n  say \"{say}\"{values}\n  goal {goal}\n  horizon {}\n}}",
            flow.depth(),
            nav + flow.depth() + 4
        ));
        self.line(&format!(
            "\n/// Cancelling the waiting request gives its stock back.\ntask cancel_{} for r in {req} where r.person == {me} limit 1 {{\n  say \"Cancel your {} of {{r.thing.name}}\"\n  goal not (exists x in {req}: x.person == {me})\n  horizon 6\n}}",
            snake(req),
            singular(self.v.requests)
        ));
        self.line(&format!(
            "\n/// Reading a price off a thing's page.\ntask price_of for x in {t} where x.stock > 0 limit 2 {{\n  say \"What does {{x.name}} cost?\"\n  answer x.price\n  horizon {}\n}}",
            nav + 2
        ));
        self.line(&format!(
            "\n/// Reading a stock level.\ntask how_many_left for x in {t} limit 1 {{\n  say \"How many of {{x.name}} are left?\"\n  answer x.stock\n  horizon {}\n}}",
            nav + 2
        ));
        if self.has_categories() {
            self.line(&format!(
                "\n/// Finding which category a thing is listed under.\ntask category_of for x in {t} limit 1 {{\n  say \"Under which category is {{x.name}} listed?\"\n  answer x.category.name\n  horizon {}\n}}",
                nav + 2
            ));
        }
        let deep = if self.plan.catalog == Catalog::Paged {
            format!(" where count(y in {t} where y.name < x.name) >= {PAGE_SIZE}")
        } else {
            String::new()
        };
        self.line(&format!(
            "\n/// Navigating to a thing's page.\ntask open_page_of for x in {t}{deep} limit 2 {{\n  say \"Open the page of {{x.name}}\"\n  goal page is Detail(x)\n  horizon {}\n}}",
            nav + 2
        ));
        self.line(&format!(
            "\n/// Counting the person's past activity.\ntask count_history for me in {p} limit 1 {{\n  say \"How many {} do you have?\"\n  answer count(r in {} where r.person == me)\n  horizon 4\n}}",
            self.v.records, self.v.record_table
        ));
    }
}

/// `enquiries` → `enquiry`, `orders` → `order`.
fn singular(plural: &str) -> String {
    match plural.strip_suffix("ies") {
        Some(stem) => format!("{stem}y"),
        None => plural.strip_suffix('s').unwrap_or(plural).to_string(),
    }
}

/// `Products`.
fn plural_title(v: &Vocabulary) -> String {
    format!("{}s", v.things_table)
}
