//! Reading programs from disk: a `.wsite` file, or a directory whose `.wsite`
//! files form one program, plus the files they `use`.

use std::path::{Path, PathBuf};
use wsitec::{Compilation, Source};

/// One program to check: its display name and entry files.
pub struct ProgramInput {
    pub name: String,
    pub roots: Vec<Source>,
}

/// Expands a command-line path into a program: a file is one program by itself;
/// a directory is one program made of all the `.wsite` files directly in it.
pub fn program_input(path: &Path) -> Result<ProgramInput, String> {
    let name = path.display().to_string();
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read directory `{name}`: {e}"))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "wsite"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(format!("directory `{name}` holds no `.wsite` files"));
        }
        let roots = files
            .iter()
            .map(|f| read_source(f))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(ProgramInput { name, roots });
    }
    Ok(ProgramInput {
        name,
        roots: vec![read_source(path)?],
    })
}

/// `a/./b/../c.wsite` → `a/c.wsite`: one name per file, so a file reached by
/// two spellings of its path (or one that `use`s itself) is loaded once.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_normal =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_normal {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

fn read_source(path: &Path) -> Result<Source, String> {
    let path = normalize(path);
    let name = path.display().to_string();
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("`{name}` is not UTF-8 text"))?;
    Ok(Source { name, text })
}

/// Compiles a program, loading `use "./x.wsite"` relative to the importing file.
pub fn compile(input: ProgramInput) -> Compilation {
    wsitec::compile(input.roots, &mut |importer, path| {
        let base = Path::new(importer).parent().unwrap_or(Path::new("."));
        read_source(&base.join(path))
    })
}
