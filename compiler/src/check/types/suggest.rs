//! "Did you mean" suggestions: the closest known name to a misspelt one.
//!
//! Edit distance (case-insensitive; insertions, deletions, substitutions and
//! swaps of two neighbouring letters, the commonest typo: `nmae`) with a limit of
//! a third of the name's length, at least 1, so that `Cartt` finds `Cart` but `x`
//! does not find `price`. A candidate that shares nothing with the name (`n` for
//! `q`: the whole name replaced) is no suggestion. Ties go to the candidate
//! listed first; callers list candidates in a stable order (sorted maps, scope
//! order), so suggestions are deterministic.

/// The candidate closest to `name`, if any is close enough.
pub(crate) fn closest<'b>(
    name: &str,
    candidates: impl IntoIterator<Item = &'b str>,
) -> Option<&'b str> {
    let len = name.chars().count();
    let limit = (len / 3).max(1).min(len.saturating_sub(1));
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

/// Optimal string alignment distance over chars: Levenshtein plus the swap of
/// two adjacent characters as one edit. Keeps three rows of the table.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
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
        assert_eq!(distance("nmae", "name"), 1);
        assert_eq!(closest("Hoem", ["Home"]), Some("Home"));
        assert_eq!(closest("n", ["q", "m"]), None);
        assert_eq!(closest("ab", ["ac"]), Some("ac"));
    }
}
