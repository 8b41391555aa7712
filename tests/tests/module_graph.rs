//! No module cycles: in each crate of the workspace, the modules that name
//! one another through `crate::` and `super::` paths form no cycle, test
//! code left out. A cycle ties modules so that neither can be read, tested
//! or moved without the other; the house style rules them out.
//!
//! The graph is read from the sources as text: a file's module is its path
//! (`a/b.rs` and `a/b/mod.rs` are `a::b`), and each `use` tree and inline
//! path starting with `crate::` or `super::` is an edge to the deepest
//! module the path names. A module naming its own ancestor or descendant is
//! no edge (a parent declares and re-exports its children; a child uses its
//! parent's items). What a re-export hides is not followed: a path through
//! a parent's `pub use` counts as naming the parent. Comments, strings and
//! `#[cfg(test)]` items are skipped, as are `tests.rs` files and `tests`
//! folders. `cargo test -p wsite-tests --test module_graph -- --nocapture`
//! prints each crate's module and edge counts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// The crates' source folders, from the workspace root.
const CRATES: [&str; 4] = ["runtime/src", "compiler/src", "serve/src", "tests/src"];

#[test]
fn no_crate_has_a_module_cycle() {
    // Another checkout can be measured: `WSITE_MODULE_ROOT=DIR`.
    let root =
        std::env::var_os("WSITE_MODULE_ROOT").map_or_else(wsite_tests::repo_root, PathBuf::from);
    let mut found = Vec::new();
    for krate in CRATES {
        let whole = Graph::read(&root.join(krate));
        assert!(whole.modules.len() > 5, "{krate}: too few modules read");
        // Modules merged with their descendants below one and two levels,
        // then every module on its own.
        for (depth, graph) in [(1, whole.cut(1)), (2, whole.cut(2)), (0, whole)] {
            let cycles = graph.cycles();
            let depth = match depth {
                0 => "all".to_string(),
                d => d.to_string(),
            };
            println!(
                "{krate}, depth {depth}: {} modules, {} edges, {} cycles",
                graph.modules.len(),
                graph.edges.values().map(BTreeSet::len).sum::<usize>(),
                cycles.len()
            );
            for cycle in &cycles {
                let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
                println!("  {}", names.join(" ~ "));
            }
            found.extend(cycles);
        }
    }
    assert!(found.is_empty(), "module cycles: {found:?}");
}

#[test]
fn a_cycle_through_siblings_is_found_and_a_parent_child_pair_is_not() {
    let files = [
        ("lib.rs", "mod a; mod b; mod c;"),
        (
            "a.rs",
            "use crate::b::thing;\nuse super::c; // super of a is the crate",
        ),
        (
            "b/mod.rs",
            "mod inner; pub use inner::Thing; fn f() { super::a::g() }",
        ),
        ("b/inner.rs", "use super::Thing; use crate::b;"),
        (
            "c.rs",
            "#[cfg(test)]\nmod tests { use crate::a::x; }\nconst S: &str = \"crate::a::y\";",
        ),
    ];
    let graph = Graph::from_files(
        files
            .iter()
            .map(|&(p, t)| (PathBuf::from(p), t.to_string())),
    );
    assert_eq!(graph.cycles(), vec![vec![path("a"), path("b")]]);
    // `c` names `a` only in a test module and a string: no edge.
    assert!(!graph.edges.contains_key(&path("c")));
    // `b::inner` and `b` are parent and child: no edge either way.
    assert!(!graph.edges.contains_key(&path("b::inner")));
}

#[test]
fn use_trees_expand_and_relative_paths_resolve() {
    let here = path("x::y");
    let mut out = Vec::new();
    paths_of_use("crate::{a::{b, c::d}, self as e}", &mut out);
    assert_eq!(out, ["crate::a::b", "crate::a::c::d", "crate::self"]);
    assert_eq!(resolve("super::super::z::w", &here), Some(path("z::w")));
    assert_eq!(resolve("self::k", &here), Some(path("x::y::k")));
    assert_eq!(resolve("std::fmt", &here), None);
}

fn path(p: &str) -> Module {
    p.split("::").map(str::to_string).collect()
}

#[derive(Default)]
struct Graph {
    modules: BTreeSet<Module>,
    edges: BTreeMap<Module, BTreeSet<Module>>,
}

impl Graph {
    /// The graph of the crate whose sources are below `src`, `tests.rs`
    /// files and `tests` folders left out.
    fn read(src: &Path) -> Graph {
        let files = wsite_tests::files_below(src, ".rs", &|name| name != "tests")
            .into_iter()
            .filter(|p| !p.ends_with("tests.rs"))
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                (p.strip_prefix(src).unwrap_or(&p).to_path_buf(), text)
            });
        Graph::from_files(files)
    }

    fn from_files(files: impl IntoIterator<Item = (PathBuf, String)>) -> Graph {
        let files: Vec<(Module, String)> = files
            .into_iter()
            .map(|(p, text)| (module_of(&p), text))
            .collect();
        let mut graph = Graph {
            modules: files.iter().map(|(m, _)| m.clone()).collect(),
            ..Graph::default()
        };
        for (here, text) in &files {
            for named in references(&code_only(text), here) {
                let Some(to) = graph.deepest_module(&named) else {
                    continue;
                };
                if !to.starts_with(here) && !here.starts_with(&to) {
                    graph.edges.entry(here.clone()).or_default().insert(to);
                }
            }
        }
        graph
    }

    /// This graph with each module merged into its ancestor `depth` levels
    /// below the root (the edges inside one merged module dropped).
    fn cut(&self, depth: usize) -> Graph {
        let cut = |m: &Module| m[..m.len().min(depth)].to_vec();
        let mut graph = Graph {
            modules: self.modules.iter().map(cut).collect(),
            ..Graph::default()
        };
        for (from, tos) in &self.edges {
            for to in tos {
                let (a, b) = (cut(from), cut(to));
                if a != b {
                    graph.edges.entry(a).or_default().insert(b);
                }
            }
        }
        graph
    }

    /// The longest prefix of `path` that is a module read (the crate root,
    /// the empty path, counts as no module).
    fn deepest_module(&self, path: &[String]) -> Option<Module> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| self.modules.contains(p))
    }

    /// The strongly connected groups of more than one module (Tarjan),
    /// each sorted, in the order of their smallest module.
    fn cycles(&self) -> Vec<Vec<Module>> {
        let mut t = Tarjan::default();
        for m in &self.modules {
            if !t.index.contains_key(m) {
                t.visit(m, self);
            }
        }
        t.groups.sort();
        t.groups
    }
}

#[derive(Default)]
struct Tarjan {
    index: BTreeMap<Module, usize>,
    low: BTreeMap<Module, usize>,
    stack: Vec<Module>,
    on_stack: BTreeSet<Module>,
    groups: Vec<Vec<Module>>,
}

impl Tarjan {
    fn visit(&mut self, v: &Module, g: &Graph) {
        let at = self.index.len();
        self.index.insert(v.clone(), at);
        self.low.insert(v.clone(), at);
        self.stack.push(v.clone());
        self.on_stack.insert(v.clone());
        for w in g.edges.get(v).into_iter().flatten() {
            if !self.index.contains_key(w) {
                self.visit(w, g);
                let low = self.low[v].min(self.low[w]);
                self.low.insert(v.clone(), low);
            } else if self.on_stack.contains(w) {
                let low = self.low[v].min(self.index[w]);
                self.low.insert(v.clone(), low);
            }
        }
        if self.low[v] == self.index[v] {
            let mut group = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack.remove(&w);
                let done = &w == v;
                group.push(w);
                if done {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                self.groups.push(group);
            }
        }
    }
}

/// `a/b.rs` and `a/b/mod.rs` are `a::b`; `lib.rs` and `main.rs` the root.
fn module_of(file: &Path) -> Module {
    let mut m: Module = file
        .with_extension("")
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        m.pop();
    }
    m
}

/// The text with comments, string and character literals blanked out, and
/// each `#[cfg(test)]` item (up to its closing brace or semicolon) dropped.
fn code_only(text: &str) -> String {
    let plain = blank_literals(text);
    let mut out = String::with_capacity(plain.len());
    let mut rest = plain.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        rest = skip_item(&rest[at + "#[cfg(test)]".len()..]);
    }
    out.push_str(rest);
    out
}

/// What follows the item at the start of `text`: up to its first `;` at
/// depth 0, or past the block its first `{` opens.
fn skip_item(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &text[i + 1..];
                }
            }
            ';' if depth == 0 => return &text[i + 1..],
            _ => {}
        }
    }
    ""
}

/// Comments, strings (raw ones too) and character literals replaced by
/// spaces, so that braces and paths inside them count for nothing.
fn blank_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let end = literal_end(&chars, i);
        if end > i {
            out.extend(std::iter::repeat_n(' ', end - i));
            i = end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Where the comment or literal starting at `i` ends (`i` itself when none
/// starts there).
fn literal_end(c: &[char], i: usize) -> usize {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    match (at(i), at(i + 1)) {
        ('/', '/') => (i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len()),
        ('/', '*') => (i + 2..c.len())
            .find(|&k| c[k] == '*' && at(k + 1) == '/')
            .map_or(c.len(), |k| k + 2),
        ('"', _) => quoted_end(c, i + 1),
        ('r', '"' | '#') if i == 0 || !is_ident(at(i - 1)) => {
            let hashes = (i + 1..c.len()).take_while(|&k| c[k] == '#').count();
            let body = i + 2 + hashes;
            if at(body - 1) != '"' {
                return i;
            }
            // The closing quote followed by as many `#`.
            (body..c.len())
                .find(|&k| c[k] == '"' && (1..=hashes).all(|h| at(k + h) == '#'))
                .map_or(c.len(), |k| k + 1 + hashes)
        }
        ('\'', '\\') => (i + 2..c.len())
            .find(|&k| c[k] == '\'')
            .map_or(c.len(), |k| k + 1),
        ('\'', _) if at(i + 2) == '\'' => i + 3,
        _ => i,
    }
}

/// Past the closing quote of a string whose text starts at `i`.
fn quoted_end(c: &[char], mut i: usize) -> usize {
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    c.len()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The module paths `code` (of module `here`) names through `crate::`,
/// `super::` and `self::`, resolved from the crate root.
fn references(code: &str, here: &Module) -> Vec<Module> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let tail = &rest[at + 3..];
        let end = tail.find(';').unwrap_or(tail.len());
        paths_of_use(&tail[..end], &mut paths);
        rest = &tail[end..];
    }
    paths.extend(inline_paths(code));
    paths.iter().filter_map(|p| resolve(p, here)).collect()
}

/// Where `word` stands alone in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = text[from..].find(word) {
        let at = from + k;
        let before = text[..at].chars().next_back().is_none_or(|c| !is_ident(c));
        let after = text[at + word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !is_ident(c));
        if before && after {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The flat paths of one `use` tree: `a::{b, c::{d}}` is `a::b`, `a::c::d`
/// (aliases dropped).
fn paths_of_use(tree: &str, out: &mut Vec<String>) {
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut plain = String::new();
    let mut k = 0;
    while k < words.len() {
        if words[k] == "as" {
            // `as name`: the name may end with the tree's `,` or `}`.
            let after = words.get(k + 1).copied().unwrap_or("");
            plain.push_str(after.trim_start_matches(is_ident));
            k += 2;
        } else {
            plain.push_str(words[k]);
            k += 1;
        }
    }
    flatten(&plain, out);
}

fn flatten(tree: &str, out: &mut Vec<String>) {
    let Some(open) = tree.find('{') else {
        out.push(tree.to_string());
        return;
    };
    let prefix = &tree[..open];
    let inner = tree[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                push_item(prefix, &inner[start..i], out);
                start = i + 1;
            }
            _ => {}
        }
    }
    push_item(prefix, &inner[start..], out);
}

fn push_item(prefix: &str, item: &str, out: &mut Vec<String>) {
    if !item.is_empty() {
        flatten(&format!("{prefix}{item}"), out);
    }
}

/// Paths written in code that start with `crate::`, `super::` or `self::`.
fn inline_paths(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let free = i == 0 || (!ident(bytes[i - 1]) && bytes[i - 1] != b':');
        let rooted = ["crate::", "super::", "self::"]
            .iter()
            .any(|p| bytes[i..].starts_with(p.as_bytes()));
        if !(free && rooted) {
            i += 1;
            continue;
        }
        let end = (i..bytes.len())
            .find(|&k| !(ident(bytes[k]) || bytes[k] == b':'))
            .unwrap_or(bytes.len());
        // ASCII only up to `end`, so both ends are character boundaries.
        out.push(code[i..end].trim_end_matches(':').to_string());
        i = end;
    }
    out
}

/// `path` (from a file of module `here`) from the crate root; `None` for a
/// path that starts elsewhere (another crate, a local name).
fn resolve(path: &str, here: &Module) -> Option<Module> {
    let mut segs = path.split("::").filter(|s| !s.is_empty()).peekable();
    let mut at = match *segs.peek()? {
        "crate" => {
            segs.next();
            Vec::new()
        }
        "super" | "self" => here.clone(),
        _ => return None,
    };
    while let Some(&s) = segs.peek() {
        match s {
            "super" => {
                at.pop();
            }
            "self" => {}
            _ => break,
        }
        segs.next();
    }
    at.extend(
        segs.filter(|s| *s != "self" && *s != "*")
            .map(str::to_string),
    );
    Some(at)
}
