//! Generated sites carry generated tasks (issue 18): beyond the tasks their
//! templates and standard-library modules ship with, each site gets tasks
//! from [`crate::taskgen`], proven before they are appended, so a corpus's
//! task mix covers operations, workflows and retrieval questions the
//! templates do not write by hand.

use super::GeneratedSite;
use crate::taskgen::{self, GenerateError};
use crate::Source;
use wsite_runtime::tasks::{explore::Limits, Request};

/// Generated tasks per site unless `wsitec gen --tasks` says otherwise: a
/// few, so that a corpus of hundreds of sites stays quick to write.
pub const DEFAULT_TASKS: usize = 3;

/// The exploration each site gets: smaller than `wsitec tasks`'s default,
/// since generated sites are small and corpora large.
const LIMITS: Limits = Limits {
    states: 5_000,
    depth: 8,
};

/// `site` with up to `count` generated tasks appended, and how many were;
/// `count` 0 leaves it as it is.
pub fn with_tasks(
    site: &GeneratedSite,
    count: usize,
    seed: u64,
) -> Result<(GeneratedSite, usize), GenerateError> {
    if count == 0 {
        return Ok((site.clone(), 0));
    }
    let roots = [Source {
        name: site.file_name.clone(),
        text: site.text.clone(),
    }];
    let request = Request {
        seed,
        limits: LIMITS,
        ..Request::default()
    };
    let mut no_files = |_: &str, path: &str| {
        Err(format!(
            "cannot load `{path}`: generated sites are one file"
        ))
    };
    let generated = taskgen::generate(&roots, &mut no_files, &site.file_name, count, &request)?;
    let mut out = site.clone();
    // Appended only when the full pipeline proves every one of them again.
    let n = generated.tasks.len();
    let v = taskgen::validate(&roots, &mut no_files, &generated.wsite());
    if (v.declared, v.diagnostics, v.feasible) != (n, 0, n) {
        return Ok((out, 0));
    }
    if n > 0 {
        out.text = format!(
            "{}\n// Generated tasks (`wsitec tasks --generate`), each proven.\n\n{}",
            site.text.trim_end(),
            generated.wsite()
        );
    }
    Ok((out, n))
}
