//! `wsitec gen`: varied sites for the six domains, written as `.wsite` source.
//!
//! A site is drawn as a [`plan::Plan`] (one variant for each of its own page
//! families, plus the standard-library modules it binds) and then written out
//! by [`site`] with data from the domain's [`vocab`]. Variants decide pages,
//! navigation depth (menus, nested categories, paging), workflow depth (one
//! to six actions) and the task mix, so sites differ in structure and not
//! only in their strings. Every variant belongs to one pool of a
//! train/validation/test split ([`plan::Pool`]), which is how
//! [`generate_split`] keeps the test sites' page templates out of training.
//! [`raw`] injects the defects language models make, for raw-versus-verified
//! experiments. [`tasks`] appends generated, proven tasks to a site (what
//! `wsitec gen --tasks` does). Everything is a function of the domain and the seed; nothing
//! here touches a file.

pub mod corpus;
mod data;
mod plan;
pub mod raw;
mod rng;
mod site;
pub mod tasks;
mod vocab;

pub use plan::{template_pool, Pool};
use rng::Rng;

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
    pub domain: &'static str,
    /// The split it was generated for, if any.
    pub pool: Option<Pool>,
    /// The templates it is made of: `menu.hub`, `catalog.nested`, …, `std.cart`.
    pub templates: Vec<String>,
    /// The standard-library modules it binds.
    pub modules: Vec<&'static str>,
    /// Seed rows over all tables.
    pub rows: usize,
}

/// `count` sites of `domain` from `seed`, drawn from every template; an
/// unknown domain is an `Err` naming the known ones.
pub fn generate(domain: &str, seed: u64, count: usize) -> Result<Vec<GeneratedSite>, String> {
    let domain = known_domain(domain)?;
    Ok((0..count)
        .map(|i| one_site(domain, seed, i, None))
        .collect())
}

/// A train/validation/test corpus: `sizes[k]` sites for pool `k`, the domains
/// taken in turn (or only `domain`). A site of one pool uses only that pool's
/// templates, so no page template is shared between the parts.
pub fn generate_split(
    domain: Option<&str>,
    seed: u64,
    sizes: [usize; 3],
) -> Result<Vec<GeneratedSite>, String> {
    let domains: Vec<&'static str> = match domain {
        Some(d) => vec![known_domain(d)?],
        None => DOMAINS.to_vec(),
    };
    let mut sites = Vec::new();
    for (pool, &n) in Pool::ALL.iter().zip(&sizes) {
        for i in 0..n {
            let domain = domains[i % domains.len()];
            // Pools draw from disjoint streams of the same seed.
            let stream =
                seed.wrapping_add(0x5851_f42d_4c95_7f2d_u64.wrapping_mul(*pool as u64 + 1));
            let mut site = one_site(domain, stream, i / domains.len(), Some(*pool));
            site.file_name = format!("{}/{}", pool.name(), site.file_name);
            sites.push(site);
        }
    }
    Ok(sites)
}

fn known_domain(domain: &str) -> Result<&'static str, String> {
    DOMAINS
        .iter()
        .copied()
        .find(|d| *d == domain)
        .ok_or_else(|| {
            format!(
                "unknown domain `{domain}`; use one of {}",
                DOMAINS.join(", ")
            )
        })
}

fn one_site(domain: &'static str, seed: u64, index: usize, pool: Option<Pool>) -> GeneratedSite {
    // The domain takes part, so that the same index in two domains is not
    // the same structure.
    let salt = domain.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut rng = Rng(seed ^ salt ^ (index as u64).wrapping_mul(0xd134_2543_de82_ef95));
    // Vocabularies exist for every domain in `DOMAINS`.
    let words = vocab::vocabulary(domain);
    let plan = plan::draw(pool, &mut rng);
    let (text, rows) = site::write(domain, &plan, words, &mut rng);
    GeneratedSite {
        file_name: format!("{domain}_{index:04}.wsite"),
        text,
        domain,
        pool,
        templates: plan.templates.clone(),
        modules: plan.modules.iter().map(|m| m.name).collect(),
        rows,
    }
}
