//! E102 for two pages with one route (spec §3, 1.1).
//!
//! A route is compared as a pattern: the literal text of `at "..."` with every
//! `{expr}` abstracted to one parameter slot, so `/book/{b.id}` and
//! `/book/{x.id}` are the same route. A page without `at` has the default route
//! `/snake_name` and one slot per parameter (spec §2.2), built with the
//! runtime's own [`snake_case`], so the routes compared are the URLs pages get.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::{PageDecl, Span, TextPart};
use std::collections::BTreeMap;
use wsite_runtime::env::snake_case;

/// One piece of a route pattern.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Segment {
    Lit(String),
    Param,
}

/// Reports E102 for every page whose route pattern an earlier page (in source
/// order) already has.
pub(super) fn check<'a>(pages: impl Iterator<Item = &'a PageDecl>, diags: &mut Diagnostics) {
    let mut pages: Vec<&PageDecl> = pages.collect();
    pages.sort_by_key(|p| p.name.span);
    let mut first: BTreeMap<Vec<Segment>, &PageDecl> = BTreeMap::new();
    for page in pages {
        let pattern = pattern(page);
        match first.get(&pattern) {
            Some(earlier) => diags.push(same_route(page, earlier, &pattern)),
            None => {
                first.insert(pattern, page);
            }
        }
    }
}

/// The page's route with its parameters abstracted.
fn pattern(page: &PageDecl) -> Vec<Segment> {
    let mut out = Vec::new();
    let push_lit = |out: &mut Vec<Segment>, s: &str| match out.last_mut() {
        Some(Segment::Lit(prev)) => prev.push_str(s),
        _ => out.push(Segment::Lit(s.to_string())),
    };
    match &page.route {
        Some(route) => {
            for part in &route.parts {
                match part {
                    TextPart::Lit(s) => push_lit(&mut out, s),
                    TextPart::Interp(_) => out.push(Segment::Param),
                }
            }
        }
        None => {
            push_lit(&mut out, &format!("/{}", snake_case(&page.name.name)));
            for _ in &page.params {
                push_lit(&mut out, "/");
                out.push(Segment::Param);
            }
        }
    }
    out
}

/// The pattern as people read it: `/book/{}`.
fn shown(pattern: &[Segment]) -> String {
    pattern
        .iter()
        .map(|s| match s {
            Segment::Lit(text) => text.as_str(),
            Segment::Param => "{}",
        })
        .collect()
}

/// Where a page's route is written: its `at` text, or its name for the default.
fn route_span(page: &PageDecl) -> Span {
    page.route.as_ref().map_or(page.name.span, |r| r.span)
}

fn same_route(page: &PageDecl, earlier: &PageDecl, pattern: &[Segment]) -> Diagnostic {
    let route = shown(pattern);
    let how = |p: &PageDecl| {
        if p.route.is_some() {
            format!("page `{}` is at `{route}`", p.name.name)
        } else {
            format!("page `{}` is at `{route}` by default", p.name.name)
        }
    };
    Diagnostic::new(
        Code::E102,
        route_span(page),
        format!(
            "page `{}` has the same route as page `{}`",
            page.name.name, earlier.name.name
        ),
    )
    .label(how(page))
    .related(route_span(earlier), how(earlier))
    .help("routes are compared with their parameters left out, so each page needs its own literal path; give one of them a distinct `at \"/...\"`")
    .object(format!("page {}", page.name.name))
}
