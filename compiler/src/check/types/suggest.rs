//! "Did you mean" suggestions: the closest known name to a misspelt one.
//!
//! Edit distance (Levenshtein, case-insensitive) with a limit of a third of the
//! name's length, at least 1, so that `Cartt` finds `Cart` but `x` does not find
//! `price`. Ties go to the candidate listed first; callers list candidates in a
//! stable order (sorted maps, scope order), so suggestions are deterministic.

/// The candidate closest to `name`, if any is close enough.
pub(crate) fn closest<'b>(
    name: &str,
    candidates: impl IntoIterator<Item = &'b str>,
) -> Option<&'b str> {
    let limit = (name.chars().count() / 3).max(1);
    let wanted = name.to_lowercase();
    let mut best: Option<(usize, &'b str)> = None;
    for cand in candidates {
        if cand == name {
            continue;
        }
        let d = distance(&wanted, &cand.to_lowercase());
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// `did you mean `x`?` for the closest candidate.
pub(super) fn did_you_mean<'b>(
    name: &str,
    candidates: impl IntoIterator<Item = &'b str>,
) -> Option<String> {
    closest(name, candidates).map(|c| format!("did you mean `{c}`?"))
}

/// Levenshtein distance over chars, two rows.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_near_names_only() {
        assert_eq!(closest("Cartt", ["Home", "Cart"]), Some("Cart"));
        assert_eq!(closest("cart", ["Cart"]), Some("Cart"));
        assert_eq!(closest("x", ["price", "stock"]), None);
        assert_eq!(closest("prise", ["price", "prize"]), Some("price"));
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
