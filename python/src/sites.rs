//! Sites opened from Python, loaded once per process.
//!
//! A site is read the way the CLI reads it (`wsitec::host::site::open`: a
//! `.wsb` artifact as built, or `.wsite` sources compiled and refused with
//! their diagnostics), then kept for the life of the process, keyed by its
//! lowered program: environments borrow it, so a `make` in a loop compiles
//! the JIT once and costs one copy of the site however many envs it makes.
//! The memory held is one site per distinct program opened.

use std::path::Path;
use std::sync::{Mutex, OnceLock};
use wsite_runtime::env::TaskInstance;
use wsite_runtime::ir::Program;
use wsite_runtime::jit::JitSite;
use wsite_runtime::layout::{StateLayout, TextPool};

/// A site ready to run.
pub struct Site {
    /// The path it was first opened by.
    pub name: String,
    pub program: Program,
    /// Every task instance, in the program's order.
    pub instances: Vec<TaskInstance>,
    /// The JIT build and the text pool it was compiled with, made on first
    /// use; `Err` says why the site cannot run on the JIT.
    jit: OnceLock<Result<(JitSite, TextPool), String>>,
}

impl Site {
    /// The JIT build (compiled on first call).
    pub fn jit(&self) -> Result<&(JitSite, TextPool), String> {
        self.jit
            .get_or_init(|| {
                let layout = StateLayout::for_program(&self.program).map_err(|e| e.to_string())?;
                let mut pool = TextPool::for_program(&self.program);
                let jit = JitSite::compile(&self.program, &layout, &mut pool)
                    .map_err(|e| e.to_string())?;
                Ok((jit, pool))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Every site opened so far, by the hash of its program.
static SITES: Mutex<Vec<(u64, &'static Site)>> = Mutex::new(Vec::new());

/// The site at `path`, loaded now or earlier.
pub fn open(path: &str) -> Result<&'static Site, String> {
    let program = wsitec::host::site::open(Path::new(path))?;
    let bytes = serde_json::to_vec(&program).map_err(|e| format!("{path}: {e}"))?;
    let key = xxhash_rust::xxh3::xxh3_64(&bytes);
    let mut sites = SITES
        .lock()
        .map_err(|_| "the site table is unusable after a crash".to_string())?;
    if let Some((_, site)) = sites.iter().find(|(k, _)| *k == key) {
        return Ok(site);
    }
    let instances = wsite_runtime::env::instances(&program);
    // Kept for the life of the process: every environment borrows it.
    let site: &'static Site = Box::leak(Box::new(Site {
        name: path.to_string(),
        program,
        instances,
        jit: OnceLock::new(),
    }));
    sites.push((key, site));
    Ok(site)
}

/// The indices of the instances `names` asks for: each name is an instance
/// (`buy_x1`, `book_table[r=2]`) or a task, meaning all of its instances;
/// none asks for every instance.
pub fn select(site: &Site, names: Option<&[String]>) -> Result<Vec<usize>, String> {
    let all = &site.instances;
    let Some(names) = names else {
        return Ok((0..all.len()).collect());
    };
    if names.is_empty() {
        return Err("`task` names no task".into());
    }
    let mut chosen = Vec::new();
    for name in names {
        let exact: Vec<usize> = (0..all.len()).filter(|&i| all[i].name == *name).collect();
        let of_task: Vec<usize> = (0..all.len())
            .filter(|&i| all[i].name.split('[').next() == Some(name.as_str()))
            .collect();
        let found = if exact.is_empty() { of_task } else { exact };
        if found.is_empty() {
            let known: Vec<&str> = all.iter().map(|i| i.name.as_str()).collect();
            return Err(format!(
                "{} has no task `{name}`; its tasks: {}",
                site.name,
                known.join(", ")
            ));
        }
        chosen.extend(
            found
                .into_iter()
                .filter(|i| !chosen.contains(i))
                .collect::<Vec<_>>(),
        );
    }
    Ok(chosen)
}
