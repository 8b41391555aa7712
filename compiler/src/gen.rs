//! `wsitec gen`: sites for a domain, composed from standard-library modules.
//!
//! A generated site is `.wsite` source an author could have written: it
//! binds a seeded choice of two to eight standard-library modules to its own
//! two tables (people and things, named and filled from the domain's
//! vocabulary), and adds a home page linking to each module's entry page.
//! Which modules a site has decides its pages, markers, workflows and tasks,
//! so sites differ in structure and not only in their strings. The data is
//! shaped so that every module's tasks have instances and can be done (the
//! tests build and prove generated sites). Everything is a function of the
//! domain and the seed; nothing here touches a file.
//!
//! Not here yet (issue 6): page structures beyond the modules' own (menus,
//! nested categories), the train/test split and the defect injector.

/// The domains a site can be generated for.
pub const DOMAINS: [&str; 6] = [
    "ecommerce",
    "social",
    "banking",
    "education",
    "healthcare",
    "government",
];

/// One generated site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedSite {
    /// `ecommerce_0007.wsite`.
    pub file_name: String,
    pub text: String,
    /// The standard-library modules it binds.
    pub modules: Vec<&'static str>,
}

/// A domain's words: site names, what its people and things are called, and
/// names for them.
struct Vocabulary {
    sites: &'static [&'static str],
    people_table: &'static str,
    things_table: &'static str,
    people: &'static [&'static str],
    things: &'static [&'static str],
}

fn vocabulary(domain: &str) -> Option<Vocabulary> {
    Some(match domain {
        "ecommerce" => Vocabulary {
            sites: &[
                "Harbor Goods",
                "Pine Market",
                "Copper Kettle",
                "Northwind Store",
            ],
            people_table: "Customer",
            things_table: "Product",
            people: &[
                "Ana Ruiz",
                "Ben Okoro",
                "Chen Wei",
                "Dara Smith",
                "Eli Cohen",
            ],
            things: &[
                "Wool scarf",
                "Desk lamp",
                "Trail mug",
                "Rain jacket",
                "Canvas tote",
                "Steel bottle",
                "Linen shirt",
                "Camp stool",
                "Head torch",
                "Map case",
                "Seed packet",
                "Brass bell",
                "Tea tin",
                "Fleece hat",
            ],
        },
        "social" => Vocabulary {
            sites: &[
                "Backyard Club",
                "Makers Circle",
                "Riverside Forum",
                "Open Porch",
            ],
            people_table: "Member",
            things_table: "Group",
            people: &[
                "Ines Duarte",
                "Tomas Berg",
                "Yara Haddad",
                "Kofi Mensah",
                "Lea Novak",
            ],
            things: &[
                "Beekeeping",
                "Sourdough",
                "Night hikes",
                "Board games",
                "Bike repair",
                "Pottery",
                "Birdwatching",
                "Choir",
                "Chess club",
                "Urban sketching",
                "Running",
                "Gardening",
                "Film nights",
            ],
        },
        "banking" => Vocabulary {
            sites: &[
                "Cascade Savings",
                "Granite Trust",
                "Harborline Bank",
                "Union Mutual",
            ],
            people_table: "Client",
            things_table: "Offer",
            people: &[
                "Maya Lind",
                "Omar Farouk",
                "Rita Sousa",
                "Sam Price",
                "Uma Iyer",
            ],
            things: &[
                "Travel card",
                "Savings bond",
                "Home loan review",
                "Pension check",
                "Student account",
                "Fixed deposit",
                "Currency order",
                "Safe box",
                "Business account",
                "Car loan",
                "Gift card",
                "Insurance review",
            ],
        },
        "education" => Vocabulary {
            sites: &[
                "Northfield College",
                "Lakeside School",
                "Summit Academy",
                "Elm Institute",
            ],
            people_table: "Student",
            things_table: "Course",
            people: &[
                "Lena Park",
                "Rui Costa",
                "Ada Byrne",
                "Noah Kim",
                "Zoe Adler",
            ],
            things: &[
                "Algebra",
                "Biology",
                "Chemistry",
                "Drawing",
                "Economics",
                "French",
                "Geography",
                "History",
                "Italian",
                "Journalism",
                "Kinetics",
                "Logic",
                "Music",
            ],
        },
        "healthcare" => Vocabulary {
            sites: &[
                "Riverbend Clinic",
                "Maple Health",
                "Harbor Care",
                "Sunrise Practice",
            ],
            people_table: "Patient",
            things_table: "Service",
            people: &[
                "Iris Moreau",
                "Jon Eriksen",
                "Kemi Ade",
                "Luis Vega",
                "Mia Tanaka",
            ],
            things: &[
                "Flu shot",
                "Eye test",
                "Blood test",
                "Physio session",
                "Dental check",
                "Hearing test",
                "Skin check",
                "Nutrition talk",
                "Sleep clinic",
                "Allergy test",
                "Travel vaccine",
                "Posture class",
            ],
        },
        _ => Vocabulary {
            sites: &[
                "Marlow City",
                "Bayview Council",
                "Hillside Borough",
                "Port Elm Office",
            ],
            people_table: "Resident",
            things_table: "Permit",
            people: &[
                "Ola Nilsen",
                "Pia Rossi",
                "Quinn Shaw",
                "Raj Patel",
                "Sara Holm",
            ],
            things: &[
                "Parking permit",
                "Bulky waste pickup",
                "Street party",
                "Tree removal",
                "Market stall",
                "Boat mooring",
                "Allotment",
                "Dog licence",
                "Fishing permit",
                "Road closure",
                "Busking spot",
                "Event banner",
            ],
        },
    })
}

/// A 64-bit generator (SplitMix64): the same numbers on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1).max(1)
    }
}

/// Every module, its binding and its entry link from the home page.
struct ModuleUse {
    name: &'static str,
    /// (parameter, `people` or `things`).
    binds: &'static [(&'static str, Side)],
    link: &'static str,
    /// The entry page; `ME` stands for the first person.
    entry: &'static str,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    People,
    Things,
}

const MODULES: [ModuleUse; 8] = [
    ModuleUse {
        name: "auth",
        binds: &[("User", Side::People)],
        link: "Sign in",
        entry: "SignIn",
    },
    ModuleUse {
        name: "cart",
        binds: &[("Item", Side::Things)],
        link: "Shop",
        entry: "Shelf",
    },
    ModuleUse {
        name: "search",
        binds: &[("Entry", Side::Things)],
        link: "Search",
        entry: "Search",
    },
    ModuleUse {
        name: "pagination",
        binds: &[("Entry", Side::Things)],
        link: "Browse everything",
        entry: "Listing(0)",
    },
    ModuleUse {
        name: "messaging",
        binds: &[("Person", Side::People)],
        link: "Messages",
        entry: "Inbox(ME)",
    },
    ModuleUse {
        name: "booking",
        binds: &[("Slot", Side::Things), ("Client", Side::People)],
        link: "Book a place",
        entry: "Slots(ME)",
    },
    ModuleUse {
        name: "profile",
        binds: &[("Person", Side::People)],
        link: "Your profile",
        entry: "Profile(ME)",
    },
    ModuleUse {
        name: "application",
        binds: &[("Applicant", Side::People)],
        link: "Applications",
        entry: "Applications(ME)",
    },
];

/// `count` sites of `domain` from `seed`; an unknown domain is an `Err`
/// naming the known ones.
pub fn generate(domain: &str, seed: u64, count: usize) -> Result<Vec<GeneratedSite>, String> {
    let vocab = vocabulary(domain)
        .filter(|_| DOMAINS.contains(&domain))
        .ok_or_else(|| {
            format!(
                "unknown domain `{domain}`; use one of {}",
                DOMAINS.join(", ")
            )
        })?;
    Ok((0..count)
        .map(|i| {
            let mut rng = Rng(seed ^ (i as u64).wrapping_mul(0xd134_2543_de82_ef95));
            site(domain, &vocab, i, &mut rng)
        })
        .collect())
}

fn site(domain: &str, v: &Vocabulary, index: usize, rng: &mut Rng) -> GeneratedSite {
    let mut chosen: Vec<&ModuleUse> = MODULES
        .iter()
        .filter(|_| rng.next().is_multiple_of(2))
        .collect();
    while chosen.len() < 2 {
        let extra = &MODULES[rng.range(0, MODULES.len() as u64 - 1) as usize];
        if !chosen.iter().any(|m| m.name == extra.name) {
            chosen.push(extra);
        }
    }
    chosen.sort_by_key(|m| MODULES.iter().position(|x| x.name == m.name));
    let has = |name: &str| chosen.iter().any(|m| m.name == name);
    let title = v.sites[rng.range(0, v.sites.len() as u64 - 1) as usize];
    // Pagination's tasks need a third page; everything else needs a few.
    let things = if has("pagination") {
        12
    } else {
        rng.range(4, 9) as usize
    };
    let people = rng.range(2, v.people.len() as u64) as usize;
    let mut out = String::new();
    out.push_str(&format!(
        "// Generated by `wsitec gen --domain {domain}`: {}.\n",
        chosen.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
    ));
    for m in &chosen {
        let binds: Vec<String> = m
            .binds
            .iter()
            .map(|(p, side)| format!("{p} = {}", table_of(v, *side)))
            .collect();
        out.push_str(&format!("use std::{}({})\n", m.name, binds.join(", ")));
    }
    out.push_str(&format!(
        "\nsite {} {{\n  title \"{title}\"\n  domain {domain}\n  start Home\n  today @2026-11-30\n}}\n",
        pascal(title)
    ));
    out.push_str(&people_table(v, people, rng));
    out.push_str(&things_table(v, things, rng));
    out.push_str(&module_seeds(&chosen, v));
    out.push_str(&home(&chosen, v, title));
    GeneratedSite {
        file_name: format!("{domain}_{index:04}.wsite"),
        text: out,
        modules: chosen.iter().map(|m| m.name).collect(),
    }
}

fn table_of(v: &Vocabulary, side: Side) -> &'static str {
    match side {
        Side::People => v.people_table,
        Side::Things => v.things_table,
    }
}

/// `Harbor Goods` → `HarborGoods`.
fn pascal(title: &str) -> String {
    title
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect()
}

fn people_table(v: &Vocabulary, n: usize, rng: &mut Rng) -> String {
    let mut s = format!(
        "\ntable {} {{\n  name: Text\n  password: Text\n  email: Text\n  newsletter: Bool\n}}\n\nseed {} [\n",
        v.people_table, v.people_table
    );
    for (i, name) in v.people.iter().take(n).enumerate() {
        let first = name.split(' ').next().unwrap_or(name).to_lowercase();
        let password = format!("{first}-{}", rng.range(10, 99));
        // The first person never has the newsletter, so `subscribe` has work.
        let newsletter = i > 0 && rng.next().is_multiple_of(2);
        s.push_str(&format!(
            "  {{ name: \"{name}\", password: \"{password}\", email: \"{first}@mail.example\", newsletter: {newsletter} }},\n"
        ));
    }
    s.push_str("]\n");
    s
}

fn things_table(v: &Vocabulary, n: usize, rng: &mut Rng) -> String {
    let mut s = format!(
        "\ntable {} {{\n  name: Text\n  price: Money\n  stock: Int\n  capacity: Int\n}}\n\nseed {} [\n",
        v.things_table, v.things_table
    );
    for (i, name) in v.things.iter().take(n).enumerate() {
        let cents = rng.range(300, 12_000);
        // The first two are always in stock, so the cart's tasks have work.
        let stock = if i < 2 {
            rng.range(1, 5)
        } else {
            rng.range(0, 5)
        };
        let capacity = rng.range(1, 4);
        s.push_str(&format!(
            "  {{ name: \"{name}\", price: ${}.{:02}, stock: {stock}, capacity: {capacity} }},\n",
            cents / 100,
            cents % 100
        ));
    }
    s.push_str("]\n");
    s
}

/// Rows the modules' own tables start with, so that their tasks have
/// instances: a message waiting, a booking and a draft of the first person.
fn module_seeds(chosen: &[&ModuleUse], v: &Vocabulary) -> String {
    let (p, t) = (v.people_table, v.things_table);
    let mut s = String::new();
    for m in chosen {
        match m.name {
            "messaging" => s.push_str(&format!(
                "\nseed Message [\n  {{ sender: {p}[2], recipient: {p}[1], body: \"Are you coming on Friday?\", reply_to: none }},\n]\n"
            )),
            "booking" => s.push_str(&format!(
                "\nseed Booking [\n  {{ slot: {t}[1], client: {p}[1] }},\n]\n"
            )),
            "application" => s.push_str(&format!(
                "\nseed Application [\n  {{ applicant: {p}[1], purpose: \"{}\", amount: $250.00, status: draft }},\n]\n",
                v.things.first().copied().unwrap_or("Request")
            )),
            _ => {}
        }
    }
    s
}

fn home(chosen: &[&ModuleUse], v: &Vocabulary, title: &str) -> String {
    let me = format!("{}[1]", v.people_table);
    let mut s = format!("\npage Home {{\n  heading \"{title}\"\n");
    for m in chosen {
        s.push_str(&format!(
            "  link #go_{} \"{}\" -> {}\n",
            m.name,
            m.link,
            m.entry.replace("ME", &me)
        ));
    }
    s.push_str("}\n");
    s
}
