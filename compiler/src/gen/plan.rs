//! What a generated site is made of, before any text is written: one variant
//! for each of the site's own page families (menu, catalog, detail page, the
//! site's workflow, the account page) and the standard-library modules it
//! binds.
//!
//! Every variant and every module belongs to exactly one *pool* (training,
//! validation or test). A site generated for a split draws only from its
//! pool, so the page templates of test sites never occur in training sites:
//! held-out sites are structurally new, not renamed copies. A site generated
//! without a split draws from all pools.

use super::rng::Rng;

/// Which part of a train/validation/test split a template belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pool {
    Train,
    Validation,
    Test,
}

impl Pool {
    pub const ALL: [Pool; 3] = [Pool::Train, Pool::Validation, Pool::Test];

    pub fn name(self) -> &'static str {
        match self {
            Pool::Train => "train",
            Pool::Validation => "validation",
            Pool::Test => "test",
        }
    }
}

/// How pages reach each other besides their own links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Menu {
    /// Every page links back to the home page, which links everywhere.
    Hub,
    /// Every page opens with a menu of all sections.
    Navbar,
    /// Every page ends with the menu of all sections.
    Footer,
    /// Every page links to its ancestors only (Home › Catalog › …).
    Breadcrumb,
}

/// How the things of the site are browsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Catalog {
    /// One page listing every thing.
    Flat,
    /// Categories, then the things of one.
    Categories,
    /// Pages of six things with "Previous" and "Next".
    Paged,
    /// A few featured things on the home page, and one page with all.
    Featured,
    /// Departments, then their categories, then the things of one.
    Nested,
}

/// How a thing's own page shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    Card,
    Sections,
    Compact,
    Specs,
}

/// The site's own workflow on a thing (ordering, joining, enrolling, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// One button on the thing's page.
    Direct,
    /// A link to a confirmation page, then its button.
    Confirm,
    /// A form on the thing's page: a choice, maybe a quantity, a button.
    Form { with_quantity: bool },
    /// Pages in a row: choose, (quantity,) review, place.
    Wizard { with_quantity: bool },
}

/// How the person's past activity is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Account {
    Recent,
    Totals,
    Summary,
    Ledger,
}

/// A standard-library module a generated site can bind.
pub struct ModuleUse {
    pub name: &'static str,
    /// (parameter, whether it binds the people table; otherwise the things).
    pub binds: &'static [(&'static str, bool)],
    pub link: &'static str,
    /// The entry page; `ME` stands for the first person.
    pub entry: &'static str,
    pub pool: Pool,
    /// Whether one of its pages lists every thing with a button that writes.
    pub writes_from_listing: bool,
}

/// The deepest own workflow (catalog depth plus workflow actions) a site may
/// have and still bind a module that [`ModuleUse::writes_from_listing`].
const MAX_DEPTH_WITH_LISTING_WRITES: u32 = 5;

/// The modules the generator binds. `std::pagination` is not among them: its
/// pages can only link to each other (a module cannot name the site's home),
/// so a generated site writes its own paged catalog instead.
pub const MODULES: [ModuleUse; 7] = [
    ModuleUse {
        name: "auth",
        binds: &[("User", true)],
        link: "Sign in",
        entry: "SignIn",
        writes_from_listing: false,
        pool: Pool::Test,
    },
    ModuleUse {
        name: "cart",
        binds: &[("Item", false)],
        link: "Shop",
        entry: "Shelf",
        writes_from_listing: true,
        pool: Pool::Train,
    },
    ModuleUse {
        name: "search",
        binds: &[("Entry", false)],
        link: "Search",
        entry: "Search",
        writes_from_listing: false,
        pool: Pool::Validation,
    },
    ModuleUse {
        name: "messaging",
        binds: &[("Person", true)],
        link: "Messages",
        entry: "Inbox(ME)",
        writes_from_listing: false,
        pool: Pool::Train,
    },
    ModuleUse {
        name: "booking",
        binds: &[("Slot", false), ("Client", true)],
        link: "Book a place",
        entry: "Slots(ME)",
        writes_from_listing: true,
        pool: Pool::Train,
    },
    ModuleUse {
        name: "profile",
        binds: &[("Person", true)],
        link: "Your profile",
        entry: "Profile(ME)",
        writes_from_listing: false,
        pool: Pool::Train,
    },
    ModuleUse {
        name: "application",
        binds: &[("Applicant", true)],
        link: "Applications",
        entry: "Applications(ME)",
        writes_from_listing: false,
        pool: Pool::Test,
    },
];

/// A variant with its template name and pool.
struct Choice<T> {
    value: T,
    name: &'static str,
    pool: Pool,
}

const MENUS: [Choice<Menu>; 4] = [
    choice(Menu::Hub, "menu.hub", Pool::Train),
    choice(Menu::Navbar, "menu.navbar", Pool::Train),
    choice(Menu::Footer, "menu.footer", Pool::Validation),
    choice(Menu::Breadcrumb, "menu.breadcrumb", Pool::Test),
];

const CATALOGS: [Choice<Catalog>; 5] = [
    choice(Catalog::Flat, "catalog.flat", Pool::Train),
    choice(Catalog::Categories, "catalog.categories", Pool::Train),
    choice(Catalog::Paged, "catalog.paged", Pool::Train),
    choice(Catalog::Featured, "catalog.featured", Pool::Validation),
    choice(Catalog::Nested, "catalog.nested", Pool::Test),
];

const DETAILS: [Choice<Detail>; 4] = [
    choice(Detail::Card, "detail.card", Pool::Train),
    choice(Detail::Sections, "detail.sections", Pool::Train),
    choice(Detail::Compact, "detail.compact", Pool::Validation),
    choice(Detail::Specs, "detail.specs", Pool::Test),
];

const FLOWS: [Choice<Flow>; 6] = [
    choice(Flow::Direct, "flow.direct", Pool::Train),
    choice(
        Flow::Wizard {
            with_quantity: false,
        },
        "flow.wizard",
        Pool::Train,
    ),
    choice(
        Flow::Wizard {
            with_quantity: true,
        },
        "flow.wizard_quantity",
        Pool::Train,
    ),
    choice(Flow::Confirm, "flow.confirm", Pool::Validation),
    choice(
        Flow::Form {
            with_quantity: false,
        },
        "flow.form",
        Pool::Test,
    ),
    choice(
        Flow::Form {
            with_quantity: true,
        },
        "flow.form_quantity",
        Pool::Test,
    ),
];

const ACCOUNTS: [Choice<Account>; 4] = [
    choice(Account::Recent, "account.recent", Pool::Train),
    choice(Account::Totals, "account.totals", Pool::Train),
    choice(Account::Summary, "account.summary", Pool::Validation),
    choice(Account::Ledger, "account.ledger", Pool::Test),
];

const fn choice<T>(value: T, name: &'static str, pool: Pool) -> Choice<T> {
    Choice { value, name, pool }
}

/// Static pages a site has besides its workflow: (page name, title, pool).
pub const INFO_PAGES: [(&str, &str, Pool); 14] = [
    ("About", "About us", Pool::Train),
    ("Help", "Help", Pool::Train),
    ("Privacy", "Privacy", Pool::Train),
    ("News", "News", Pool::Train),
    ("Locations", "Where to find us", Pool::Train),
    ("Faq", "Questions and answers", Pool::Train),
    ("Terms", "Terms of use", Pool::Validation),
    ("Careers", "Careers", Pool::Validation),
    ("Press", "Press", Pool::Validation),
    ("Partners", "Partners", Pool::Validation),
    ("Contact", "Contact us", Pool::Test),
    ("Accessibility", "Accessibility", Pool::Test),
    ("Sitemap", "Site map", Pool::Test),
    ("Feedback", "Feedback", Pool::Test),
];

/// Everything that decides a site's structure.
pub struct Plan {
    pub menu: Menu,
    pub catalog: Catalog,
    pub detail: Detail,
    pub flow: Flow,
    pub account: Account,
    pub modules: Vec<&'static ModuleUse>,
    /// Static pages: (page name, title).
    pub info: Vec<(&'static str, &'static str)>,
    /// The template names, in a fixed order: `menu.hub`, …, `std.cart`.
    pub templates: Vec<String>,
}

impl Catalog {
    /// Actions from the home page to the page of a thing the workflow task
    /// names (on a paged catalog, one of the first page).
    pub fn depth(self) -> u32 {
        match self {
            Catalog::Flat | Catalog::Featured | Catalog::Paged => 2,
            Catalog::Categories => 3,
            Catalog::Nested => 4,
        }
    }
}

impl Flow {
    /// Actions from the thing's page to the placed request.
    pub fn depth(self) -> u32 {
        match self {
            Flow::Direct => 1,
            Flow::Confirm => 2,
            Flow::Form { with_quantity } => 2 + u32::from(with_quantity),
            Flow::Wizard { with_quantity } => 4 + 2 * u32::from(with_quantity),
        }
    }

    pub fn has_quantity(self) -> bool {
        matches!(
            self,
            Flow::Form {
                with_quantity: true
            } | Flow::Wizard {
                with_quantity: true
            }
        )
    }

    /// Whether the person picks the option (otherwise the first is used).
    pub fn has_choice(self) -> bool {
        matches!(self, Flow::Form { .. } | Flow::Wizard { .. })
    }
}

/// Draws a plan from `pool` (or from every pool).
pub fn draw(pool: Option<Pool>, rng: &mut Rng) -> Plan {
    let mut templates = Vec::new();
    let menu = pick(&MENUS, pool, rng, &mut templates);
    let catalog = pick(&CATALOGS, pool, rng, &mut templates);
    let detail = pick(&DETAILS, pool, rng, &mut templates);
    let flow = pick(&FLOWS, pool, rng, &mut templates);
    let account = pick(&ACCOUNTS, pool, rng, &mut templates);
    // A module that lists every thing with a button that writes (the cart's
    // shelf, the booking slots) puts those writes in every task's cone of
    // influence; on a site whose own workflow is deep, proving it would
    // explore every cart between the home page and the last step, so such
    // sites leave those modules out.
    let deep = catalog.depth() + flow.depth() > MAX_DEPTH_WITH_LISTING_WRITES;
    let allowed: Vec<&'static ModuleUse> = MODULES
        .iter()
        .filter(|m| pool.is_none_or(|p| m.pool == p))
        .filter(|m| !(deep && m.writes_from_listing))
        .collect();
    // Each allowed module with even odds, at most four: sites of 10 to 30 pages.
    let mut modules: Vec<&'static ModuleUse> = allowed
        .iter()
        .copied()
        .filter(|_| rng.next().is_multiple_of(2))
        .collect();
    while modules.len() > 4 {
        modules.remove(rng.range(0, modules.len() as u64 - 1) as usize);
    }
    if modules.is_empty() && !allowed.is_empty() {
        modules.push(*rng.pick(&allowed));
    }
    modules.sort_by_key(|m| MODULES.iter().position(|x| x.name == m.name));
    templates.extend(modules.iter().map(|m| format!("std.{}", m.name)));
    // Three to six static pages, in the list's order.
    let pages: Vec<(&'static str, &'static str)> = INFO_PAGES
        .iter()
        .filter(|(_, _, p)| pool.is_none_or(|q| *p == q))
        .map(|&(name, title, _)| (name, title))
        .collect();
    let want = (rng.range(3, 6) as usize).min(pages.len());
    let mut info = pages;
    while info.len() > want {
        info.remove(rng.range(0, info.len() as u64 - 1) as usize);
    }
    templates.extend(
        info.iter()
            .map(|(name, _)| format!("info.{}", name.to_lowercase())),
    );
    Plan {
        menu,
        catalog,
        detail,
        flow,
        account,
        modules,
        info,
        templates,
    }
}

fn pick<T: Copy>(
    choices: &[Choice<T>],
    pool: Option<Pool>,
    rng: &mut Rng,
    templates: &mut Vec<String>,
) -> T {
    let allowed: Vec<&Choice<T>> = choices
        .iter()
        .filter(|c| pool.is_none_or(|p| c.pool == p))
        .collect();
    let c = rng.pick(&allowed);
    templates.push(c.name.to_string());
    c.value
}

/// The pool of every template name, for checking a split.
pub fn template_pool(name: &str) -> Option<Pool> {
    fn find<T>(cs: &[Choice<T>], name: &str) -> Option<Pool> {
        cs.iter().find(|c| c.name == name).map(|c| c.pool)
    }
    find(&MENUS, name)
        .or_else(|| find(&CATALOGS, name))
        .or_else(|| find(&DETAILS, name))
        .or_else(|| find(&FLOWS, name))
        .or_else(|| find(&ACCOUNTS, name))
        .or_else(|| {
            let module = name.strip_prefix("std.")?;
            MODULES.iter().find(|m| m.name == module).map(|m| m.pool)
        })
        .or_else(|| {
            let page = name.strip_prefix("info.")?;
            INFO_PAGES
                .iter()
                .find(|(p, _, _)| p.to_lowercase() == page)
                .map(|(_, _, pool)| *pool)
        })
}
