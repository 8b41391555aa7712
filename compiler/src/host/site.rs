//! Opening a site to run: load a built `.wsb` (its proven IR, as is) or
//! compile `.wsite` sources, refusing them with their diagnostics if they have
//! errors; and finding a task instance by name.

use super::load;
use crate::diagnostics::human::{summary, SourceDb};
use std::path::Path;
use wsite_runtime::env::TaskInstance;
use wsite_runtime::ir::Program;

/// The runnable program at `path` (`.wsite`, directory or `.wsb`), or why it
/// cannot run.
pub fn open(path: &Path) -> Result<Program, String> {
    if load::is_artifact(path) {
        return load::read_artifact(path).map(|a| a.program);
    }
    let input = load::program_input(path)?;
    let name = input.name.clone();
    let compiled = load::compile(input);
    if compiled.has_errors() {
        let report = SourceDb::new(&compiled.sources).render_plain(&compiled.diagnostics);
        return Err(format!(
            "{report}{name}: {}; fix the errors first",
            summary(&compiled.diagnostics)
        ));
    }
    compiled
        .program
        .ok_or_else(|| format!("{name} has no `site` to run"))
}

/// The task instance called `name` (`buy_x1`, or `opening_hours[c=3]`); a bare
/// template name picks its first instance.
pub fn instance(program: &Program, name: &str) -> Result<TaskInstance, String> {
    wsite_runtime::env::find_instance(program, name).map_err(|e| e.to_string())
}
