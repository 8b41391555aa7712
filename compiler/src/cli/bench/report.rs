//! What `wsitec bench` prints: one table row per site (`human`), or one
//! JSON object for the whole run (`json`), from the measurements of
//! `bench`.

use super::{largest_states_per_s, states_per_s, ProverStats, Row, BATCH_PER_CORE};
use std::io::Write;
use wsite_runtime::prove;

pub(super) fn print_human(rows: &[Row], cores: usize) {
    let header = [
        "site".to_string(),
        "compile_ms".to_string(),
        "interp_steps/s(1 core)".to_string(),
        format!("interp_steps/s({cores} cores)"),
        "scaling".to_string(),
        "batched_steps/s(1 core)".to_string(),
        format!("batched_steps/s({cores} cores)"),
        "batched_scaling".to_string(),
        "jit_batched_steps/s(1 core)".to_string(),
        format!("jit_batched_steps/s({cores} cores)"),
        "jit_batched_scaling".to_string(),
        "jit_rendering_steps/s(1 core)".to_string(),
        "jit_remembered".to_string(),
        "jit/interp(batched, 1 core)".to_string(),
        "episodes/h".to_string(),
        "jit_compile_ms".to_string(),
        "goal_ns(interp/jit)".to_string(),
        "op_steps/s(interp/jit)".to_string(),
        "prover_states/s(interp/jit)".to_string(),
        "sweep_states/s(interp/check)".to_string(),
        "feasible".to_string(),
        "largest_space".to_string(),
    ];
    let mut table = vec![header.to_vec()];
    table.extend(rows.iter().map(human_cells));
    let mut out = std::io::stdout().lock();
    for line in align(&table) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "machine: {cores} available cores");
    let _ = writeln!(
        out,
        "prover: {}-bit state fingerprints",
        prove::FINGERPRINT_BITS
    );
}

fn human_cells(row: &Row) -> Vec<String> {
    let p = &row.prover;
    vec![
        row.site.clone(),
        row.compile_ms
            .map_or("-".to_string(), |ms| format!("{ms:.1}")),
        format!("{:.0}", row.one_core.steps_per_s()),
        format!("{:.0}", row.all_cores.steps_per_s()),
        format!("{:.2}x", row.scaling()),
        format!("{:.0}", row.batched_one.steps_per_s()),
        format!("{:.0}", row.batched.steps_per_s()),
        format!(
            "{:.2}x",
            row.batched.steps_per_s() / row.batched_one.steps_per_s().max(1e-9)
        ),
        opt_cell(row.jit_batched, |j| format!("{:.0}", j.one.steps_per_s())),
        opt_cell(row.jit_batched, |j| format!("{:.0}", j.all.steps_per_s())),
        opt_cell(row.jit_batched_scaling(), |x| format!("{x:.2}x")),
        opt_cell(row.jit_batched, |j| {
            format!("{:.0}", j.rendering.steps_per_s())
        }),
        opt_cell(row.jit_batched, |j| format!("{:.0}%", 100.0 * j.remembered)),
        opt_cell(row.jit_batched_speedup(), |x| format!("{x:.1}x")),
        format!("{:.0}", row.one_core.episodes_per_hour()),
        format!("{:.1}", row.jit.compile_ms),
        format!(
            "{:.0}/{:.0} ({:.1}x)",
            row.jit.interp_ns,
            row.jit.jit_ns,
            row.jit.interp_ns / row.jit.jit_ns.max(1e-9)
        ),
        row.jit.steps.map_or("-".to_string(), |(i, j)| {
            format!(
                "{:.0}/{:.0} ({:.1}x)",
                i.steps_per_s(),
                j.steps_per_s(),
                j.steps_per_s() / i.steps_per_s().max(1e-9)
            )
        }),
        prover_cell(p, row.prover_jit.as_ref()),
        opt_cell(row.sweep, |(i, c)| {
            format!(
                "{:.0}/{:.0} ({:.1}x{})",
                i.states_per_s(),
                c.states_per_s(),
                c.states_per_s() / i.states_per_s().max(1e-9),
                if c.flat { ", flat" } else { "" }
            )
        }),
        format!("{}/{}", p.feasible, p.instances),
        largest_cell(p, row.prover_jit.as_ref()),
    ]
}

/// The instance with the most states, how many, and the JIT prover's
/// states/s on it alone.
fn largest_cell(interp: &ProverStats, jit: Option<&ProverStats>) -> String {
    let Some((task, n, _)) = &interp.largest else {
        return "-".to_string();
    };
    match jit.and_then(largest_states_per_s) {
        Some(rate) => format!("{task} ({n}, {rate:.0}/s jit)"),
        None => format!("{task} ({n})"),
    }
}

/// Prover states/s on both engines and the speed-up, with how many
/// instances the flat engine decided (the rest went to the interpreter).
fn prover_cell(interp: &ProverStats, jit: Option<&ProverStats>) -> String {
    let Some(jit) = jit else {
        return format!("{:.0}/-", states_per_s(interp));
    };
    format!(
        "{:.0}/{:.0} ({:.1}x, {}/{} flat)",
        states_per_s(interp),
        states_per_s(jit),
        states_per_s(jit) / states_per_s(interp).max(1e-9),
        jit.flat,
        jit.instances
    )
}

/// Pads each column to its widest cell: the first and last left-aligned, the
/// numbers between right-aligned.
fn align(table: &[Vec<String>]) -> Vec<String> {
    let columns = table.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            let cells = table.iter().filter_map(|r| r.get(c));
            cells.map(|s| s.chars().count()).max().unwrap_or(0)
        })
        .collect();
    table
        .iter()
        .map(|row| {
            let cells = row.iter().zip(&widths).enumerate().map(|(c, (s, &w))| {
                if c == 0 || c + 1 == columns {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            });
            cells.collect::<Vec<_>>().join("  ").trim_end().to_string()
        })
        .collect()
}

pub(super) fn print_json(rows: &[Row], cores: usize) {
    let sites: Vec<serde_json::Value> = rows.iter().map(json_row).collect();
    let report = serde_json::json!({
        "machine": { "cores": cores },
        "prover": { "fingerprint_bits": prove::FINGERPRINT_BITS },
        "sites": sites,
    });
    let _ = writeln!(std::io::stdout().lock(), "{report}");
}

fn json_row(row: &Row) -> serde_json::Value {
    let p = &row.prover;
    let largest = p
        .largest
        .as_ref()
        .map(|(task, states, _)| serde_json::json!({ "task": task, "states": states }));
    serde_json::json!({
        "site": row.site,
        "compile_ms": row.compile_ms,
        "interp_steps_per_s": row.one_core.steps_per_s(),
        "interp_steps_per_s_all_cores": row.all_cores.steps_per_s(),
        "cores": row.cores,
        "scaling": row.scaling(),
        "batched_steps_per_s_one_core": row.batched_one.steps_per_s(),
        "batched_steps_per_s": row.batched.steps_per_s(),
        "batched_scaling": row.batched.steps_per_s() / row.batched_one.steps_per_s().max(1e-9),
        "batched_envs": BATCH_PER_CORE * row.cores,
        "jit_batched_steps_per_s_one_core": row.jit_batched.map(|j| j.one.steps_per_s()),
        "jit_batched_steps_per_s": row.jit_batched.map(|j| j.all.steps_per_s()),
        "jit_batched_episodes_per_hour": row.jit_batched.map(|j| j.one.episodes_per_hour()),
        "jit_rendering_steps_per_s_one_core": row.jit_batched.map(|j| j.rendering.steps_per_s()),
        "jit_batched_remembered": row.jit_batched.map(|j| j.remembered),
        "jit_batched_scaling": row.jit_batched_scaling(),
        "jit_batched_speedup": row.jit_batched_speedup(),
        "jit_compile_ms": row.jit.compile_ms,
        "jit_predicates_compiled": row.jit.compiled,
        "jit_predicates": row.jit.predicates,
        "goal_eval_ns_interp": row.jit.interp_ns,
        "goal_eval_ns_jit": row.jit.jit_ns,
        "goal_eval_jit_speedup": row.jit.interp_ns / row.jit.jit_ns.max(1e-9),
        "op_steps_per_s_interp": row.jit.steps.map(|(i, _)| i.steps_per_s()),
        "op_steps_per_s_jit": row.jit.steps.map(|(_, j)| j.steps_per_s()),
        "episodes_per_hour": row.one_core.episodes_per_hour(),
        "prover_states_per_s": states_per_s(p),
        "prover_states": p.states,
        "prover_seconds": p.seconds,
        "prover_states_per_s_jit": row.prover_jit.as_ref().map(states_per_s),
        "prover_states_jit": row.prover_jit.as_ref().map(|j| j.states),
        "prover_seconds_jit": row.prover_jit.as_ref().map(|j| j.seconds),
        "prover_instances_jit_decided": row.prover_jit.as_ref().map(|j| j.flat),
        "prover_largest_states_per_s_jit": row.prover_jit.as_ref().and_then(largest_states_per_s),
        "sweep_states": row.sweep.map(|(i, _)| i.states),
        "sweep_states_per_s_interp": row.sweep.map(|(i, _)| i.states_per_s()),
        "sweep_states_per_s": row.sweep.map(|(_, c)| c.states_per_s()),
        "sweep_flat": row.sweep.map(|(_, c)| c.flat),
        "instances": p.instances,
        "feasible": p.feasible,
        "largest_space": largest,
    })
}

/// A cell for a figure that may be missing (`-`).
fn opt_cell<T>(value: Option<T>, show: impl Fn(T) -> String) -> String {
    value.map_or_else(|| "-".to_string(), show)
}
