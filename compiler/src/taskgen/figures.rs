//! The figures of generated tasks beside WebFactory's table (issue 18 item
//! 3; definitions in docs/tasks.md, "Generating tasks"): diversity, complex
//! share, distinct-skeleton share. Executable and valid shares come from
//! [`super::validate`]; tasks per second from the CLI's clock.

use super::GeneratedTask;
use serde::Serialize;
use std::collections::BTreeSet;

/// Diversity: the mean, over all pairs of instructions, of 1 − the Jaccard
/// similarity of their word-bigram sets (words lowercased, punctuation
/// stripped). 1 when no two instructions share a bigram, 0 when all are
/// the same; 0 for fewer than two tasks.
pub fn diversity(instructions: &[&str]) -> f64 {
    let grams: Vec<BTreeSet<(String, String)>> = instructions.iter().map(|s| bigrams(s)).collect();
    let mut sum = 0.0;
    let mut pairs = 0usize;
    for (i, a) in grams.iter().enumerate() {
        for b in grams.iter().skip(i + 1) {
            let union = a.union(b).count();
            let shared = a.intersection(b).count();
            let similarity = if union == 0 {
                1.0
            } else {
                shared as f64 / union as f64
            };
            sum += 1.0 - similarity;
            pairs += 1;
        }
    }
    if pairs == 0 {
        0.0
    } else {
        sum / pairs as f64
    }
}

fn bigrams(s: &str) -> BTreeSet<(String, String)> {
    let words: Vec<String> = s
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '$')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .map(|w| (w[0].clone(), w[1].clone()))
        .collect()
}

/// The figures of one generation.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Figures {
    pub tasks: usize,
    pub operation: usize,
    pub retrieval: usize,
    pub diversity: f64,
    /// Tasks with distinct skeletons over tasks.
    pub distinct_skeletons: f64,
    pub complex_share: f64,
    pub mean_witness: f64,
}

pub fn figures(tasks: &[GeneratedTask]) -> Figures {
    let n = tasks.len();
    let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    let says: Vec<&str> = tasks.iter().map(|t| t.goal.as_str()).collect();
    let skeletons: BTreeSet<&str> = tasks.iter().map(|t| t.skeleton.as_str()).collect();
    Figures {
        tasks: n,
        operation: tasks.iter().filter(|t| t.kind == "operation").count(),
        retrieval: tasks.iter().filter(|t| t.kind == "retrieval").count(),
        diversity: diversity(&says),
        distinct_skeletons: share(skeletons.len()),
        complex_share: share(tasks.iter().filter(|t| t.complex).count()),
        mean_witness: if n == 0 {
            0.0
        } else {
            tasks.iter().map(|t| t.witness.len()).sum::<usize>() as f64 / n as f64
        },
    }
}
