//! No Rust source file of the workspace is past 800 lines, tests included:
//! a file that long owns more than one thing, and the house style splits it
//! by what it owns. `cargo test -p wsite-tests --test file_sizes --
//! --nocapture` prints the largest files.

use std::path::PathBuf;

/// The folders holding the workspace's Rust sources.
const FOLDERS: [&str; 6] = ["compiler", "runtime", "serve", "tests", "python", "fuzz"];

const MOST_LINES: usize = 800;

#[test]
fn no_source_file_is_past_800_lines() {
    let root = wsite_tests::repo_root();
    let enter = |name: &str| name != "target" && !name.starts_with('.');
    let files: Vec<PathBuf> = FOLDERS
        .iter()
        .flat_map(|folder| wsite_tests::files_below(&root.join(folder), ".rs", &enter))
        .collect();
    assert!(files.len() > 300, "only {} files read", files.len());
    let mut sized: Vec<(usize, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let lines = std::fs::read_to_string(&p).map_or(0, |t| t.lines().count());
            (lines, p)
        })
        .collect();
    sized.sort_by(|a, b| b.cmp(a));
    for (lines, p) in sized.iter().take(5) {
        println!(
            "{lines:>5} {}",
            p.strip_prefix(&root).unwrap_or(p).display()
        );
    }
    let long: Vec<_> = sized.iter().filter(|(n, _)| *n > MOST_LINES).collect();
    assert!(long.is_empty(), "past {MOST_LINES} lines: {long:?}");
}
