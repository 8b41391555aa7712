//! A label's words without its text: the plan that turns a label into the
//! hashes of its words (`crate::words`) with its literal words hashed once,
//! when the site is compiled, and only the text next to an interpolation
//! hashed per render.
//!
//! Words split on white space. A literal piece's words that white space (or
//! the label's start or end) separates from every interpolation are fixed:
//! their hashes are computed here. The rest of a literal — the characters
//! between an interpolation and the nearest white space — glue onto the
//! interpolated value's text, and that pending text is split and hashed
//! when white space (or the label's end) closes it. Glue at either end of
//! such a run that the words' trim always drops (`(`, `@`, `):`) is left out
//! ([`crate::words::trims_away`]), so a value it wrapped stands alone. The
//! result is, word for word, the hashes of the label's rendered text
//! (`Calls::label`): white space never changes under lowercasing, and
//! lowercasing one word looks no further than its own letters, so cutting
//! at white space changes nothing. The differential tests (here and in
//! `tests/tests/observe_tokens.rs`) demand it.

use crate::words::TextWords;
use std::sync::Arc;

/// One step of a label's word plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum WordOp {
    /// Whole words of the literal text, hashed when the site was compiled.
    Words(Box<[u64]>),
    /// Literal text glued to an interpolation: appended to the pending text.
    Glue(Arc<str>),
    /// White space (or the label's end) after the pending text: its words
    /// are complete.
    Flush,
    /// The interpolation `parts[i]`: its text is appended to the pending text.
    Value(usize),
}

/// One part of a label, as the plan sees it: literal text, or the
/// interpolation at this position.
#[derive(Clone, Copy, Debug)]
pub(super) enum Piece<'a> {
    Lit(&'a str),
    Value,
}

/// A label's parts merged into literal runs and interpolations (by index).
enum Segment {
    Lit(String),
    Value(usize),
}

fn segments<'a>(parts: impl IntoIterator<Item = Piece<'a>>) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for (i, p) in parts.into_iter().enumerate() {
        match p {
            Piece::Lit(s) => match out.last_mut() {
                Some(Segment::Lit(run)) => run.push_str(s),
                _ => out.push(Segment::Lit(s.to_string())),
            },
            Piece::Value => out.push(Segment::Value(i)),
        }
    }
    out
}

/// Byte offset just past the last white-space character of `s`, if any.
fn after_last_space(s: &str) -> Option<usize> {
    s.char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map(|(k, c)| k + c.len_utf8())
}

/// The word plan of a label made of `parts` (`WordOp::Value` indexes them).
pub(super) fn word_plan<'a>(parts: impl IntoIterator<Item = Piece<'a>>) -> Vec<WordOp> {
    let segs = segments(parts);
    let mut ops = Vec::new();
    // Whether pending text may be open (an interpolation since the last
    // white space).
    let mut open = false;
    for (k, seg) in segs.iter().enumerate() {
        let text = match seg {
            Segment::Value(i) => {
                ops.push(WordOp::Value(*i));
                open = true;
                continue;
            }
            Segment::Lit(text) => text.as_str(),
        };
        let mut rest = text;
        if open {
            match rest.find(char::is_whitespace) {
                None => {
                    // The label's last literal ends the run; another
                    // value continues it.
                    glue(&mut ops, rest, segs.get(k + 1).is_none());
                    continue;
                }
                Some(at) => {
                    glue(&mut ops, &rest[..at], true);
                    ops.push(WordOp::Flush);
                    open = false;
                    rest = &rest[at..];
                }
            }
        }
        // `rest` starts the label or follows white space.
        let value_follows = segs.get(k + 1).is_some();
        let (fixed, tail) = if value_follows {
            let cut = after_last_space(rest).unwrap_or(0);
            (&rest[..cut], &rest[cut..])
        } else {
            (rest, "")
        };
        let hashes = crate::words::hashes(fixed);
        if !hashes.is_empty() {
            ops.push(WordOp::Words(hashes.into_boxed_slice()));
        }
        // The tail begins the run of the value that follows.
        glue(&mut ops, tail, true);
    }
    if segs.iter().any(|s| matches!(s, Segment::Value(_))) {
        ops.push(WordOp::Flush);
    }
    ops
}

/// Glues `text` onto the pending text, unless it is empty, or it begins or
/// ends a run of pending text (`at_edge`) and the words' trim drops it
/// whatever the run holds ([`crate::words::trims_away`]: `(`, `@`, `),`
/// and the like). Left out, it changes no word, and a value it wrapped
/// stands alone, its words found rather than its text rendered and hashed
/// (`ValueTo::Alone`): `@{handle}` and `({count} unread)` are common.
fn glue(ops: &mut Vec<WordOp>, text: &str, at_edge: bool) {
    let dropped = at_edge && crate::words::trims_away(text);
    if !text.is_empty() && !dropped {
        ops.push(WordOp::Glue(Arc::from(text)));
    }
}

/// How an interpolation's text is to be given to [`run_plan`].
pub(super) enum ValueTo<'a> {
    /// Appended to the pending text.
    Pending(&'a mut String),
    /// Alone between white space (nothing pending before it, its words
    /// complete after it): its word hashes may be appended to the hashes
    /// instead, or its text appended to the pending text as usual.
    Alone(&'a mut String, &'a mut Vec<u64>),
}

/// Runs `plan` over values rendered by `value(i, to)` (which appends part
/// `i`'s text to the pending text, or its words' hashes when it stands
/// alone), appending each word's hash to `out` (a literal's as one copy).
/// `pending` is scratch, left empty; the words of a pending text met lately
/// are found in `texts` (a glued text such as `c/{slug}` repeats).
pub(super) fn run_plan<E>(
    plan: &[WordOp],
    (pending, texts): (&mut String, &mut TextWords),
    mut value: impl FnMut(usize, ValueTo<'_>) -> Result<(), E>,
    out: &mut Vec<u64>,
) -> Result<(), E> {
    pending.clear();
    for (k, op) in plan.iter().enumerate() {
        match op {
            WordOp::Words(hashes) => out.extend_from_slice(hashes),
            WordOp::Glue(text) => pending.push_str(text),
            WordOp::Value(i) => {
                let alone = pending.is_empty() && matches!(plan.get(k + 1), Some(WordOp::Flush));
                let to = match alone {
                    true => ValueTo::Alone(pending, &mut *out),
                    false => ValueTo::Pending(pending),
                };
                value(*i, to)?;
            }
            // After a value that stood alone, nothing is pending.
            WordOp::Flush if pending.is_empty() => {}
            WordOp::Flush => {
                texts.each_hash(pending, |h| out.push(h));
                pending.clear();
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashes through the plan, each interpolation `i` showing `values[i]`.
    fn planned(parts: &[Piece<'_>], values: &[&str]) -> Vec<u64> {
        planned_with(parts, values, &mut TextWords::default())
    }

    /// [`planned`], the words of pending texts found in `texts` when met
    /// before.
    fn planned_with(parts: &[Piece<'_>], values: &[&str], texts: &mut TextWords) -> Vec<u64> {
        let plan = word_plan(parts.iter().copied());
        let mut out = Vec::new();
        let mut pending = String::new();
        run_plan::<()>(
            &plan,
            (&mut pending, texts),
            |i, to| {
                match to {
                    ValueTo::Pending(p) => p.push_str(values[i]),
                    // Half the values that stand alone send their hashes.
                    ValueTo::Alone(_, out) if values[i].len().is_multiple_of(2) => {
                        crate::words::each_hash(values[i], |h| out.push(h))
                    }
                    ValueTo::Alone(p, _) => p.push_str(values[i]),
                }
                Ok(())
            },
            &mut out,
        )
        .unwrap();
        out
    }

    /// Hashes of the whole rendered text.
    fn rendered(parts: &[Piece<'_>], values: &[&str]) -> Vec<u64> {
        let text: String = parts
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                Piece::Lit(s) => s.to_string(),
                Piece::Value => values[i].to_string(),
            })
            .collect();
        crate::words::hashes(&text)
    }

    fn lit(s: &str) -> Piece<'_> {
        Piece::Lit(s)
    }

    fn value() -> Piece<'static> {
        Piece::Value
    }

    #[test]
    fn literal_labels_are_hashed_once_and_glued_pieces_per_render() {
        let parts = [lit("Add to cart")];
        assert_eq!(
            word_plan(parts),
            [WordOp::Words(crate::words::hashes("Add to cart").into())]
        );
        let parts = [lit("Price: $"), value(), lit(" only, ("), value(), lit(")")];
        let plan = word_plan(parts);
        assert!(
            matches!(&plan[0], WordOp::Words(w) if w.len() == 1),
            "{plan:?}"
        );
        assert_eq!(plan[1], WordOp::Glue(Arc::from("$")));
        let values = ["", "14.99", "", "2 left", ""];
        assert_eq!(planned(&parts, &values), rendered(&parts, &values));
    }

    #[test]
    fn glue_the_trim_drops_at_a_runs_ends_leaves_the_value_alone() {
        let parts = [lit("by (@"), value(), lit("), "), value(), lit(":")];
        let plan = word_plan(parts);
        assert_eq!(
            plan,
            [
                WordOp::Words(crate::words::hashes("by").into()),
                WordOp::Value(1),
                WordOp::Flush,
                WordOp::Value(3),
                WordOp::Flush,
            ]
        );
        // Glue inside a run, with a kept character, or not ASCII stays.
        let parts = [
            value(),
            lit("-"),
            value(),
            lit(" c/"),
            value(),
            lit("“"),
            value(),
        ];
        let plan = word_plan(parts);
        let glued = |g: &str| plan.contains(&WordOp::Glue(Arc::from(g)));
        assert!(glued("-") && glued("c/") && glued("“"), "{plan:?}");
        for values in [
            ["ΑΣ", "", "Σ", "", "x y", "", "AΣ"],
            ["", "", " ", "", "", "", ""],
        ] {
            assert_eq!(planned(&parts, &values), rendered(&parts, &values));
        }
    }

    /// A small deterministic generator (no dependency on a crate).
    fn next(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *seed >> 33
    }

    #[test]
    fn random_labels_hash_as_their_rendered_text() {
        let pieces = [
            "", " ", "a", "Ab", "-", "$", "x y", " q ", "\t", "ΣΑΣ", "σ.", "İ", "1,2", "..",
            "Z\u{a0}z", "(", ")", "@", "'", "Σ", ":", "“",
        ];
        let mut seed = 7;
        // One memory of pending texts' words for all the labels: what it
        // finds must be what hashing finds.
        let mut texts = TextWords::default();
        for _ in 0..20_000 {
            let n = 1 + next(&mut seed) as usize % 6;
            // (is a literal, text) per part.
            let mut drawn = Vec::new();
            for _ in 0..n {
                let a = pieces[next(&mut seed) as usize % pieces.len()];
                let b = pieces[next(&mut seed) as usize % pieces.len()];
                drawn.push((next(&mut seed).is_multiple_of(2), format!("{a}{b}")));
            }
            let parts: Vec<Piece<'_>> = drawn
                .iter()
                .map(|(is_lit, t)| if *is_lit { lit(t) } else { value() })
                .collect();
            let values: Vec<&str> = drawn
                .iter()
                .map(|(is_lit, t)| if *is_lit { "" } else { t.as_str() })
                .collect();
            assert_eq!(
                planned_with(&parts, &values, &mut texts),
                rendered(&parts, &values),
                "{parts:?} {values:?}"
            );
        }
    }
}
