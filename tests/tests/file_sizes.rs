//! No Rust source file of the workspace is past 800 lines, tests included:
//! a file that long owns more than one thing, and the house style splits it
//! by what it owns. `cargo test -p wsite-tests --test file_sizes --
//! --nocapture` prints the largest files.

use std::path::{Path, PathBuf};

/// The folders holding the workspace's Rust sources.
const FOLDERS: [&str; 6] = ["compiler", "runtime", "serve", "tests", "python", "fuzz"];

const MOST_LINES: usize = 800;

#[test]
fn no_source_file_is_past_800_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for folder in FOLDERS {
        sources(&root.join(folder), &mut files);
    }
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

/// Every `.rs` file below `dir`, build output and hidden folders left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for p in entries.flatten().map(|e| e.path()) {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() && name != "target" && !name.starts_with('.') {
            sources(&p, out);
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}
