//! Structural lints over the navigation graph: unreachable pages (S101), markers no
//! element triggers (S102), dead-end pages (S103) and empty pages (S105).
//!
//! The navigation graph (spec §4) has an edge from a page to every page its links
//! and navigating buttons lead to, and to every page named by a `go` anywhere in the
//! body of a marker one of its buttons triggers. Each such edge to a guarded page
//! comes with edges to the pages its guards redirect to (§3, page guards), followed
//! through guarded `else` pages; the start page's redirects are starts too. Names
//! that resolve to nothing are skipped here: the resolver reports them (E101), and guessing would only add
//! noise. Since such a name, like source the parser had to skip, may be the very
//! edge or trigger a lint would miss, what those lints find then depends on it
//! (see [`check`]). S107 (unused permissions) belongs to the effect checker, not this file.
//! The graph type and its analyses (reachability here) are
//! `wsite_runtime::graph`'s, shared with the knowledge spec and the site map;
//! this file only feeds it edges from the AST. Everything is kept in
//! `BTreeMap`s and insertion-ordered edges so the walk, and the order in which
//! diagnostics are produced, is the same on every run.

use super::Symbols;
use crate::diagnostics::{Code, Diagnostic, Diagnostics, Fix};
use crate::syntax::ast::*;
use std::collections::{BTreeMap, BTreeSet};
use wsite_runtime::graph::{self as nav, NavGraph, PageIx};

/// The navigation graph over the AST ([`wsite_runtime::graph::NavGraph`], the
/// one the knowledge spec and site map use too): pages by name, each edge
/// carrying the span of the name its link or button targets (for a marker's
/// `go`, the marker's name on the button); beside it, which markers some
/// element triggers (with the first trigger's span).
#[derive(Default, Debug)]
pub struct SiteGraph<'a> {
    pub nav: NavGraph<&'a str, Span>,
    pub triggered: BTreeMap<&'a str, Span>,
    /// Pages with a link, button or triggered marker `go` whose target names
    /// nothing (an E101): the edge the author meant is missing from the graph.
    pub unresolved: BTreeSet<&'a str>,
    /// Pages with a button whose target names nothing: the marker the author
    /// meant may be missing from `triggered`.
    pub unresolved_buttons: BTreeSet<&'a str>,
}

/// An edge the walk over a page's elements found, before guard redirects.
struct Found<'a> {
    to: &'a str,
    via: Span,
}

impl<'a> SiteGraph<'a> {
    /// Builds the graph over every page in `symbols`: pages in name order,
    /// edges page by page in document order.
    pub fn build(symbols: &Symbols<'a>) -> SiteGraph<'a> {
        let mut graph = SiteGraph::default();
        for name in symbols.pages.keys() {
            graph.nav.add_page(name);
        }
        for (name, page) in &symbols.pages {
            let mut out = Vec::new();
            graph.walk_elements(symbols, name, &page.body, &mut out);
            for found in out {
                for to in landings(symbols, found.to) {
                    graph.nav.add_edge(name, to, found.via);
                }
            }
            let known = |g: &PageGuard| symbols.pages.contains_key(g.target.name.name.as_str());
            if !page.guards.iter().all(known) {
                graph.unresolved.insert(name);
            }
        }
        graph
    }

    /// The node of page `name`.
    fn node(&self, name: &str) -> Option<PageIx> {
        self.nav.node(&name)
    }

    /// The page at `node`.
    fn name(&self, node: PageIx) -> &'a str {
        self.nav.page(node).copied().unwrap_or("")
    }

    /// Every page reachable from the `start` pages (themselves included).
    fn reachable_from(&self, start: &[&'a str]) -> BTreeSet<&'a str> {
        let starts: Vec<PageIx> = start.iter().filter_map(|s| self.node(s)).collect();
        nav::reachable(&self.nav, &starts)
            .into_iter()
            .map(|n| self.name(n))
            .collect()
    }

    fn walk_elements(
        &mut self,
        symbols: &Symbols<'a>,
        page: &'a str,
        body: &'a [Element],
        out: &mut Vec<Found<'a>>,
    ) {
        for element in body {
            match &element.kind {
                // Links and buttons are treated alike: a link naming a marker is a
                // type error reported elsewhere, and counting it as a trigger here
                // avoids a second, misleading S102 for the same mistake.
                ElementKind::Link { target, .. } => self.target(symbols, page, target, out),
                ElementKind::Button { target, .. } => {
                    let name = target.name.name.as_str();
                    if !symbols.pages.contains_key(name) && !symbols.markers.contains_key(name) {
                        self.unresolved_buttons.insert(page);
                    }
                    self.target(symbols, page, target, out)
                }
                ElementKind::Section { body, .. } => self.walk_elements(symbols, page, body, out),
                ElementKind::For(f) => self.walk_elements(symbols, page, &f.body, out),
                ElementKind::If {
                    then, otherwise, ..
                } => {
                    self.walk_elements(symbols, page, then, out);
                    self.walk_elements(symbols, page, otherwise, out);
                }
                _ => {}
            }
        }
    }

    /// Adds the edges a link or button target creates on `page`.
    fn target(
        &mut self,
        symbols: &Symbols<'a>,
        page: &'a str,
        target: &'a Target,
        out: &mut Vec<Found<'a>>,
    ) {
        let name = target.name.name.as_str();
        if let Some((to, _)) = symbols.pages.get_key_value(name) {
            out.push(Found {
                to,
                via: target.name.span,
            });
        } else if let Some((marker_name, marker)) = symbols.markers.get_key_value(name) {
            self.triggered
                .entry(marker_name)
                .or_insert(target.name.span);
            let mut gos = Vec::new();
            collect_gos(&marker.body, &mut gos);
            for go in gos {
                match symbols.pages.get_key_value(go.name.name.as_str()) {
                    Some((to, _)) => out.push(Found {
                        to,
                        via: target.name.span,
                    }),
                    None => {
                        self.unresolved.insert(page);
                    }
                }
            }
        } else {
            self.unresolved.insert(page);
        }
    }
}

/// Every `go` in a statement list, nested `if` branches and `for` bodies included
/// (the spec allows one `go` per run, but different branches may go elsewhere).
fn collect_gos<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a PageRef>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Go(to) => out.push(to),
            StmtKind::For { body, .. } => collect_gos(body, out),
            StmtKind::If {
                then, otherwise, ..
            } => {
                collect_gos(then, out);
                collect_gos(otherwise, out);
            }
            _ => {}
        }
    }
}

/// Runs S101, S102, S103 and S105 over the program. `broken` are the spans of
/// syntax errors: source the parser skipped, which may have held the link,
/// button or element whose absence these lints would report. With any of them,
/// S101 and S102 (which depend on every page and marker) are left out, and S103
/// and S105 for the pages they fall in; they return once the syntax is fixed.
///
/// A link, button or `go` whose target names nothing (E101) lacks the edge the
/// author meant too, but only that one: S101 and S102 are reported all the
/// same (partial results, see `crate::partial`), and one that the missing
/// target could change names the pages holding it in its `after` list, which
/// makes it provisional: an unreachable page when a reachable page has such
/// a target, an untriggered marker when a button has one.
pub fn check(
    files: &[SourceFile],
    symbols: &Symbols<'_>,
    broken: &[Span],
    diags: &mut Diagnostics,
) {
    let graph = SiteGraph::build(symbols);
    if broken.is_empty() {
        check_unreachable(symbols, &graph, diags);
        // A library (every file a `module`) leaves its markers' buttons to the
        // sites that use it.
        if !is_library(files) {
            check_untriggered(symbols, &graph, diags);
        }
    }
    let mut incomplete = incomplete_pages(files, broken);
    incomplete.extend(graph.unresolved.iter().copied());
    check_dead_ends_and_empty(symbols, &graph, &incomplete, diags);
}

/// `page Cart`, the object a provisional finding names in `after`.
fn page_objects<'a>(pages: impl Iterator<Item = &'a &'a str>) -> Vec<String> {
    pages.map(|p| format!("page {p}")).collect()
}

/// Whether the program is a library: files that are all `module`s (the case in
/// which a missing `site` is no E104 either).
fn is_library(files: &[SourceFile]) -> bool {
    !files.is_empty() && files.iter().all(|f| f.module.is_some())
}

/// The pages whose declaration contains one of the `broken` spans.
fn incomplete_pages<'a>(files: &'a [SourceFile], broken: &[Span]) -> BTreeSet<&'a str> {
    files
        .iter()
        .flat_map(|f| &f.decls)
        .filter_map(|d| match &d.kind {
            DeclKind::Page(p) if super::is_incomplete(&d.span, broken) => {
                Some(p.name.name.as_str())
            }
            _ => None,
        })
        .collect()
}

/// The site's start page, when the site names one that exists (otherwise the
/// resolver has reported the problem and S101 has nothing to measure from).
fn start_page<'a>(symbols: &Symbols<'a>) -> Option<(&'a str, &'a PageRef)> {
    let start = symbols.site?.start.as_ref()?;
    let (name, _) = symbols.pages.get_key_value(start.name.name.as_str())?;
    Some((name, start))
}

/// The pages a navigation to `page` may land on: `page`, then every page its
/// guards may redirect to, following guarded `else` pages in turn (§3, page
/// guards). An `else` page that names nothing is skipped (`build` marks its
/// page unresolved).
fn landings<'a>(symbols: &Symbols<'a>, page: &'a str) -> Vec<&'a str> {
    let mut out = vec![page];
    let mut at = 0;
    while let Some(&next) = out.get(at) {
        at += 1;
        for guard in symbols.pages.get(next).map_or(&[][..], |p| &p.guards) {
            let target = guard.target.name.name.as_str();
            if let Some((to, _)) = symbols.pages.get_key_value(target) {
                if !out.contains(to) {
                    out.push(to);
                }
            }
        }
    }
    out
}

/// S101: pages the start page cannot reach.
fn check_unreachable(symbols: &Symbols<'_>, graph: &SiteGraph<'_>, diags: &mut Diagnostics) {
    let Some((start, start_ref)) = start_page(symbols) else {
        return;
    };
    // A guarded start page may send the episode elsewhere from the start.
    let reachable = graph.reachable_from(&landings(symbols, start));
    // An edge missing from an unreachable page would reach nothing new.
    let depends_on = page_objects(graph.unresolved.iter().filter(|p| reachable.contains(*p)));
    for (name, page) in &symbols.pages {
        if reachable.contains(name) {
            continue;
        }
        let mut d = Diagnostic::new(
            Code::S101,
            page.name.span,
            format!("page `{name}` is unreachable from the start page `{start}`"),
        )
        .label("no chain of links or buttons leads here")
        .related(start_ref.name.span, "the site starts here")
        .help(format!(
            "link to `{name}` from a reachable page such as `{start}`"
        ))
        .object(format!("page {name}"));
        d.after.extend(depends_on.iter().cloned());
        if depends_on.is_empty() {
            if let Some(fix) = link_from_start(symbols, start, name, page) {
                d = d.fix(fix);
            }
        }
        // An incoming edge from another unreachable page explains why the link the
        // author did write does not help.
        if let Some((from, via)) = incoming(graph, name).find(|(from, _)| !reachable.contains(from))
        {
            d = d.related(
                via,
                format!("only reached from `{from}`, which is itself unreachable"),
            );
        }
        diags.push(d);
    }
}

/// The repair S101's help describes, as a fix: a link to `page` after the
/// last element of the start page. Only for a page without parameters (a
/// link then needs no argument to guess), a start page in the same file with
/// at least one element, and a finding that does not wait on a broken link
/// elsewhere (then the broken link is the thing to repair).
fn link_from_start(symbols: &Symbols<'_>, start: &str, name: &str, page: &PageDecl) -> Option<Fix> {
    if !page.params.is_empty() {
        return None;
    }
    let last = symbols.pages.get(start)?.body.last()?;
    if last.span.file != page.name.span.file {
        return None;
    }
    Some(Fix::Replace {
        start: last.span.end,
        end: last.span.end,
        text: format!("\n  link \"{}\" -> {name}", spaced_words(name)),
    })
}

/// `OrderHistory` → `Order history`: a page name as a link label.
fn spaced_words(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i > 0 && c.is_uppercase() {
            out.push(' ');
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Edges into `page` from other pages as (from, span), in page-name then
/// document order.
fn incoming<'g, 'a>(
    graph: &'g SiteGraph<'a>,
    page: &'g str,
) -> impl Iterator<Item = (&'a str, Span)> + 'g {
    graph
        .nav
        .edges()
        .map(|(from, to, via)| (graph.name(from), graph.name(to), *via))
        .filter(move |(from, to, _)| *to == page && *from != page)
        .map(|(from, _, via)| (from, via))
}

/// S102: markers (extern ones included) that no element names.
fn check_untriggered(symbols: &Symbols<'_>, graph: &SiteGraph<'_>, diags: &mut Diagnostics) {
    let depends_on = page_objects(graph.unresolved_buttons.iter());
    for (name, marker) in &symbols.markers {
        if graph.triggered.contains_key(name) {
            continue;
        }
        let args: Vec<&str> = marker.params.iter().map(|p| p.name.name.as_str()).collect();
        let call = if args.is_empty() {
            (*name).to_string()
        } else {
            format!("{name}({})", args.join(", "))
        };
        let kind = if marker.is_extern {
            "extern marker"
        } else {
            "marker"
        };
        let mut d = Diagnostic::new(
            Code::S102,
            marker.name.span,
            format!("{kind} `{name}` is never triggered"),
        )
        .label("no button names this marker")
        .help(format!(
            "add a button that triggers it, e.g. `button \"...\" -> {call}`, or remove the marker"
        ))
        .object(format!("marker {name}"));
        d.after.extend(depends_on.iter().cloned());
        diags.push(d);
    }
}

/// S105 for pages that show nothing, S103 for the other pages no edge leaves.
/// An empty page is also a dead end; only S105 is reported for it, since adding
/// content is the first fix and S103 would say the same thing twice.
fn check_dead_ends_and_empty(
    symbols: &Symbols<'_>,
    graph: &SiteGraph<'_>,
    incomplete: &BTreeSet<&str>,
    diags: &mut Diagnostics,
) {
    for (name, page) in &symbols.pages {
        if incomplete.contains(name) {
            continue;
        }
        if !page.body.iter().any(renders) {
            diags.push(empty_page(name, page));
        } else if symbols.pages.len() > 1
            && !graph.node(name).is_some_and(|n| graph.nav.has_exit(n))
        {
            // With a single page there is nowhere to go, so a missing link is no
            // defect. Self-loops (a page linking to itself, a marker whose `go`
            // returns to the same page) do not lead anywhere new, so they do not
            // keep a page from being a dead end.
            diags.push(dead_end(symbols, name, page));
        }
    }
}

/// Whether an element puts anything into the observation (statements written
/// among elements and page `let`s do not; loops and conditions do when
/// something inside does).
fn renders(element: &Element) -> bool {
    match &element.kind {
        ElementKind::For(f) => f.body.iter().any(renders),
        ElementKind::If {
            then, otherwise, ..
        } => then.iter().chain(otherwise).any(renders),
        ElementKind::Stmt(_) | ElementKind::Let { .. } => false,
        _ => true,
    }
}

fn empty_page(name: &str, page: &PageDecl) -> Diagnostic {
    Diagnostic::new(Code::S105, page.name.span, format!("page `{name}` is empty"))
        .label("this page has no elements")
        .help(
            "add elements such as `heading \"...\"`, `text \"...\"` or `link \"...\" -> SomePage`, or remove the page",
        )
        .object(format!("page {name}"))
}

fn dead_end(symbols: &Symbols<'_>, name: &str, page: &PageDecl) -> Diagnostic {
    let back = link_back_target(symbols, name);
    Diagnostic::new(
        Code::S103,
        page.name.span,
        format!("page `{name}` is a dead end"),
    )
    .label("no link or button leads from here to another page")
    .help(format!(
        "add a link back, for example `link \"{back}\" -> {back}`"
    ))
    .object(format!("page {name}"))
}

/// The page to suggest a link to: the start page, or for the start page itself
/// the first other page by name.
fn link_back_target<'a>(symbols: &Symbols<'a>, from: &str) -> &'a str {
    match start_page(symbols) {
        Some((start, _)) if start != from => start,
        _ => symbols
            .pages
            .keys()
            .copied()
            .find(|p| *p != from)
            .unwrap_or("Home"),
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::Code;

    /// (code, 1-based line) of every S-code diagnostic for `text`.
    fn found(text: &str) -> Vec<(Code, usize)> {
        let c = crate::compile_str("test.wsite", text);
        c.diagnostics
            .iter()
            .filter(|d| d.code.as_str().starts_with('S') && d.code != Code::S107)
            .map(|d| (d.code, line_of(text, d.span.start as usize)))
            .collect()
    }

    fn line_of(text: &str, offset: usize) -> usize {
        text.get(..offset).map_or(0, |s| s.matches('\n').count()) + 1
    }

    const SHOP: &str = r#"site Shop { title "Shop" domain ecommerce start Home }
table Item { name: Text  stock: Int }
seed Item [ { name: "Pen", stock: 3 } ]
page Home {
  heading "Welcome"
  section "Menu" {
    for i in Item { button "Buy" -> buy(i) }
  }
}
page Cart {
  text "Cart"
  if true { link "Home" -> Home } else { text "none" }
}
page Orphan {
  text "Lonely"
  link "Home" -> Home
}
page Stuck {
  text "Stuck"
}
page Blank {
  title "Blank"
}
marker buy(i: Item) reads Item.stock writes Item.stock requires i.stock > 0 {
  set i.stock = i.stock - 1
  if i.stock == 0 { go Stuck } else { go Cart }
}
marker unused() writes Item { delete all x in Item }
"#;

    #[test]
    fn graph_follows_marker_gos_into_nested_branches() {
        let got = found(SHOP);
        // Stuck and Cart are reached through `buy`'s two `go`s; Orphan and Blank
        // are not; Stuck is a dead end, Blank is empty (and only S105).
        assert!(got.contains(&(Code::S101, 14)), "{got:?}");
        assert!(got.contains(&(Code::S101, 21)), "{got:?}");
        assert!(got.contains(&(Code::S103, 18)), "{got:?}");
        assert!(got.contains(&(Code::S105, 21)), "{got:?}");
        assert!(got.contains(&(Code::S102, 28)), "{got:?}");
        assert_eq!(got.len(), 5, "{got:?}");
    }

    #[test]
    fn single_page_site_is_not_a_dead_end() {
        let got = found("site S { title \"t\" domain other start P }\npage P { text \"x\" }\n");
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn unknown_start_skips_reachability() {
        let text = "site S { title \"t\" domain other start Nope }\npage P { link \"Q\" -> Q }\npage Q { link \"P\" -> P }\npage R { link \"P\" -> P }\n";
        let got = found(text);
        assert!(!got.iter().any(|(c, _)| *c == Code::S101), "{got:?}");
    }

    #[test]
    fn self_loop_does_not_count_as_a_way_out() {
        let text =
            "site S { title \"t\" domain other start P }\npage P { link \"Q\" -> Q }\npage Q { link \"Again\" -> Q }\n";
        assert_eq!(found(text), vec![(Code::S103, 3)]);
    }
}
