//! The analyses on hand-built graphs, each fact checked against a graph small
//! enough to verify by eye.

use super::*;

/// A graph over letters from `edges` ("AB" is A → B), pages added in the
/// order `pages` lists them first.
fn letters(pages: &str, edges: &[&str]) -> NavGraph<char, usize> {
    let mut g = NavGraph::default();
    for p in pages.chars() {
        g.add_page(p);
    }
    for (i, e) in edges.iter().enumerate() {
        let mut cs = e.chars();
        if let (Some(a), Some(b)) = (cs.next(), cs.next()) {
            g.add_edge(a, b, i);
        }
    }
    g
}

fn node(g: &NavGraph<char, usize>, c: char) -> NodeIndex {
    g.node(&c).unwrap_or(NodeIndex::end())
}

fn names(g: &NavGraph<char, usize>, nodes: &[NodeIndex]) -> String {
    nodes.iter().filter_map(|&n| g.page(n)).collect()
}

#[test]
fn reachability_follows_edges_from_every_start() {
    let g = letters("ABCDEF", &["AB", "BC", "DE"]);
    let from_a = reachable(&g, &[node(&g, 'A')]);
    let got: Vec<_> = from_a.into_iter().collect();
    assert_eq!(names(&g, &got), "ABC");
    let both = reachable(&g, &[node(&g, 'A'), node(&g, 'D')]);
    let got: Vec<_> = both.into_iter().collect();
    assert_eq!(names(&g, &got), "ABCDE");
}

#[test]
fn out_edges_keep_insertion_order_and_self_loops_are_no_exit() {
    let g = letters("ABC", &["AC", "AB", "AA", "BB"]);
    let out: Vec<usize> = g.out(node(&g, 'A')).into_iter().map(|(_, e)| *e).collect();
    assert_eq!(out, vec![0, 1, 2]);
    assert!(g.has_exit(node(&g, 'A')));
    assert!(!g.has_exit(node(&g, 'B')));
    assert!(!g.has_exit(node(&g, 'C')));
}

#[test]
fn a_closed_cycle_is_one_dead_end_region() {
    // A → B → {C ⇄ D}; C and D link to each other only; E stands alone; the
    // cycle A ⇄ F holds the start, so it is no dead end.
    let g = letters("ABCDEF", &["AB", "BC", "CD", "DC", "DD", "AF", "FA"]);
    let regions = dead_end_regions(&g, &[node(&g, 'A')]);
    let got: Vec<String> = regions.iter().map(|r| names(&g, r)).collect();
    assert_eq!(got, vec!["CD", "E"]);
    // B leads out of itself, so it is in no region although it cannot get back.
    assert!(!got.iter().any(|r| r.contains('B')));
}

#[test]
fn a_region_with_an_exit_is_no_dead_end() {
    let g = letters("ABC", &["AB", "BC", "CB", "CA"]);
    assert!(dead_end_regions(&g, &[node(&g, 'A')]).is_empty());
}

#[test]
fn dominators_of_a_diamond() {
    // A → B → D, A → C → D, D → E; X unreachable.
    let g = letters("ABCDEX", &["AB", "AC", "BD", "CD", "DE", "XA"]);
    let doms = dominators(&g, &[node(&g, 'A')]);
    let of = |c| doms.get(&node(&g, c)).map(|d| names(&g, d));
    assert_eq!(of('A').as_deref(), Some("A"));
    assert_eq!(of('B').as_deref(), Some("AB"));
    assert_eq!(of('D').as_deref(), Some("AD"));
    assert_eq!(of('E').as_deref(), Some("ADE"));
    assert_eq!(of('X'), None);
}

#[test]
fn with_two_starts_only_common_dominators_remain() {
    // Starts A and B both reach C, then D: only C (and D itself) dominate D.
    let g = letters("ABCD", &["AC", "BC", "CD"]);
    let doms = dominators(&g, &[node(&g, 'A'), node(&g, 'B')]);
    assert_eq!(
        doms.get(&node(&g, 'D')).map(|d| names(&g, d)).as_deref(),
        Some("CD")
    );
    assert_eq!(
        doms.get(&node(&g, 'A')).map(|d| names(&g, d)).as_deref(),
        Some("A")
    );
}

#[test]
fn shortest_paths_prefer_the_first_written_edge() {
    // Two shortest ways to D (through B or C); the edge to C is written first.
    let g = letters("ABCD", &["AC", "AB", "BD", "CD"]);
    let tree = shortest_paths(&g, &[node(&g, 'A')]);
    assert_eq!(names(&g, &path_to(&tree, node(&g, 'D'))), "ACD");
    assert_eq!(tree.get(&node(&g, 'D')).map(|r| r.depth), Some(2));
    let lone = letters("AB", &[]);
    let tree = shortest_paths(&lone, &[node(&lone, 'A')]);
    assert!(path_to(&tree, node(&lone, 'B')).is_empty());
}
