//! The words and the numbers of each domain: site names, what its people,
//! things, past activity and own workflow are called, and the catalogue a
//! site draws from: departments, their categories, and the kinds of thing
//! each category holds, with the names, price ranges and sizes that fit them.
//! One file per domain holds its catalogue; this one holds their shape and
//! the people's names, which every domain shares.

mod banking;
mod ecommerce;
mod education;
mod government;
mod healthcare;
mod social;

/// A domain's words and catalogue.
pub(super) struct Vocabulary {
    /// Site titles are one of `site_names` and one of `site_kinds`:
    /// `Harbor` + `Goods`.
    pub site_names: &'static [&'static str],
    pub site_kinds: &'static [&'static str],
    pub people_table: &'static str,
    pub things_table: &'static str,
    /// What a thing's page calls its price: `Price`, `Tuition`, `Fee`.
    pub price_label: &'static str,
    /// Departments, each with its categories, each with its kinds of thing.
    pub departments: &'static [Department],
    /// How prices are rounded.
    pub rounding: Rounding,
    /// The stock (places, seats, appointments left) a thing has.
    pub stock: (u64, u64),
    /// A whole-number field the domain's things have besides price and stock.
    pub extra: Option<Extra>,
    /// The table of past activity rows (tens to hundreds) and what one is
    /// called in prose (plural).
    pub record_table: &'static str,
    pub records: &'static str,
    /// What one past-activity row amounts to.
    pub record_amount: RecordAmount,
    /// Whether past activity happens on weekdays only (offices, clinics).
    pub weekdays_only: bool,
    /// Opening hours, in minutes after midnight, when past activity has a
    /// time of day (appointments): `time: Time` in quarter hours within them.
    pub record_hours: Option<(u64, u64)>,
    /// The site's own workflow: the table it writes, its verb, what one is
    /// called (plural), and the choice the person makes.
    pub request_table: &'static str,
    pub verb: &'static str,
    pub requests: &'static str,
    pub option_label: &'static str,
    pub options: [&'static str; 3],
}

/// A top-level group of categories.
pub(super) struct Department {
    pub name: &'static str,
    pub categories: &'static [Category],
}

/// A group of kinds of thing that belong together on one page.
pub(super) struct Category {
    pub name: &'static str,
    pub kinds: &'static [Kind],
}

/// One kind of thing: a thing's name is one of `styles` and one of `nouns`
/// ("Merino wool" + "scarf"), its price a whole number of dollars in `price`
/// before rounding, and its [`Extra`] field a value in `extra`.
pub(super) struct Kind {
    pub styles: &'static [&'static str],
    pub nouns: &'static [&'static str],
    pub price: (u64, u64),
    pub extra: (u64, u64),
}

/// A kind of thing without an extra field.
pub(super) const fn kind(
    styles: &'static [&'static str],
    nouns: &'static [&'static str],
    price: (u64, u64),
) -> Kind {
    kind_x(styles, nouns, price, (0, 0))
}

/// A kind of thing with its extra field's range.
pub(super) const fn kind_x(
    styles: &'static [&'static str],
    nouns: &'static [&'static str],
    price: (u64, u64),
    extra: (u64, u64),
) -> Kind {
    Kind {
        styles,
        nouns,
        price,
        extra,
    }
}

impl Kind {
    /// Every name of this kind with the style it starts with, in a fixed
    /// order.
    pub fn names(&'static self) -> impl Iterator<Item = (&'static str, String)> {
        self.styles
            .iter()
            .flat_map(|s| self.nouns.iter().map(move |n| (*s, format!("{s} {n}"))))
    }
}

/// A whole-number field of a domain's things: the credits of a course, the
/// length of an appointment.
pub(super) struct Extra {
    pub field: &'static str,
    /// How a thing's page shows it; `{}` stands for the value.
    pub shown: &'static str,
    /// Values are multiples of this.
    pub step: u64,
}

/// How a domain rounds its prices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rounding {
    /// Shop prices: `$24.99`, `$120.00`, `$7.50`, `$39.95`.
    Retail,
    /// Fees in whole multiples of this many dollars: `$480.00`.
    Whole(u64),
}

/// What one row of past activity amounts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RecordAmount {
    /// The thing's price times a quantity of one up to this.
    PriceTimes(u64),
    /// A payment of any amount in this range of dollars, to the cent.
    Payment(u64, u64),
}

/// First names and surnames of the people of every site.
pub(super) const FIRST_NAMES: [&str; 24] = [
    "Ana", "Ben", "Chen", "Dara", "Eli", "Ines", "Tomas", "Yara", "Kofi", "Lea", "Maya", "Omar",
    "Rita", "Sam", "Uma", "Lena", "Rui", "Ada", "Noah", "Zoe", "Iris", "Jon", "Kemi", "Luis",
];
pub(super) const SURNAMES: [&str; 24] = [
    "Ruiz", "Okoro", "Wei", "Smith", "Cohen", "Duarte", "Berg", "Haddad", "Mensah", "Novak",
    "Lind", "Farouk", "Sousa", "Price", "Iyer", "Park", "Costa", "Byrne", "Kim", "Adler", "Moreau",
    "Eriksen", "Vega", "Tanaka",
];

/// The words of `domain`; anything unknown gets the government's.
pub(super) fn vocabulary(domain: &str) -> &'static Vocabulary {
    match domain {
        "ecommerce" => &ecommerce::VOCABULARY,
        "social" => &social::VOCABULARY,
        "banking" => &banking::VOCABULARY,
        "education" => &education::VOCABULARY,
        "healthcare" => &healthcare::VOCABULARY,
        _ => &government::VOCABULARY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::DOMAINS;
    use std::collections::BTreeSet;

    /// The names of a kind, without their styles.
    fn names(k: &'static Kind) -> impl Iterator<Item = String> {
        k.names().map(|(_, n)| n)
    }

    #[test]
    fn every_catalogue_can_fill_the_largest_site() {
        for domain in DOMAINS {
            let v = vocabulary(domain);
            // The nested catalog takes three departments of two categories
            // with up to four things each; the others up to 24 things.
            assert!(v.departments.len() >= 3, "{domain}");
            let mut all = BTreeSet::new();
            for d in v.departments {
                assert!(d.categories.len() >= 2, "{domain} {}", d.name);
                for c in d.categories {
                    let names: BTreeSet<String> = c.kinds.iter().flat_map(names).collect();
                    assert!(names.len() >= 8, "{domain} {}: {names:?}", c.name);
                    for k in c.kinds {
                        assert!(
                            1 <= k.price.0 && k.price.0 < k.price.1,
                            "{domain} {:?}",
                            k.nouns
                        );
                        assert!(v.extra.is_none() || k.extra.0 <= k.extra.1, "{:?}", k.nouns);
                    }
                    all.extend(names);
                }
            }
            assert!(all.len() >= 150, "{domain}: only {} names", all.len());
        }
    }

    #[test]
    fn no_name_is_shared_between_two_categories_of_a_domain() {
        for domain in DOMAINS {
            let mut seen: BTreeSet<String> = BTreeSet::new();
            for c in vocabulary(domain)
                .departments
                .iter()
                .flat_map(|d| d.categories)
            {
                let all: Vec<String> = c.kinds.iter().flat_map(names).collect();
                let names: BTreeSet<String> = all.iter().cloned().collect();
                assert_eq!(names.len(), all.len(), "{domain} {}: a name twice", c.name);
                let shared: Vec<_> = names.intersection(&seen).collect();
                assert!(shared.is_empty(), "{domain} {}: {shared:?}", c.name);
                seen.extend(names);
            }
        }
    }
}
