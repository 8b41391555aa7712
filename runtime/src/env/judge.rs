//! The per-step judgement of the decomposed reward (WebFactory eq. 3 in
//! wsite's action space; docs/training.md, "Decomposed reward"): R_acc of an
//! action against the exact shortest paths of `env::distance`, and the
//! episode's record of distances that makes the progress credit count each
//! distance once.
//!
//! R_acc(s, a) is 0 when no action of O(s) has a's kind; for a click or a
//! select, 1 iff a ∈ O(s); for a type, 1 iff a ∈ O(s) or some type action of
//! O(s) on the same element types a text that agrees with a's by token F1 ≥
//! 0.5 (the §5.3 text rule); for an answer, 1 iff the step succeeds (§5.3's
//! answer rule: an answer that ends the episode in success is a shortest
//! sequence of its own, whether or not the page offered it as a candidate).
//! An unknown distance (the oracle's budget ran out) judges 0 and says so.

use super::distance::{Distance, Shortest};
use super::{answer, Action, ActionKind};
use serde::{Deserialize, Serialize};

/// How one step was judged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// R_acc ∈ {0, 1}.
    pub r_acc: bool,
    /// The oracle could not decide d(s) within its budget: R_acc is 0 by
    /// rule, not by verdict.
    pub unknown: bool,
    /// The step reached a distance lower than any seen before in the
    /// episode, so its R_acc earned the progress credit.
    pub new_best: bool,
    /// For an answer: the highest token F1 against the expected answers.
    pub answer_f1: Option<f64>,
}

/// R_acc of `action` in a state the oracle answered `shortest` for; `success`
/// is whether the step succeeded. Returns (R_acc, unknown).
pub(crate) fn r_acc(shortest: &Shortest, action: &Action, success: bool) -> (bool, bool) {
    if action.kind == ActionKind::Answer {
        return (success, false);
    }
    if shortest.distance == Distance::Unknown {
        return (false, true);
    }
    let same_kind = shortest.optimal.iter().filter(|o| o.kind == action.kind);
    let accurate = match action.kind {
        ActionKind::Click => same_kind
            .clone()
            .any(|o| o.element == action.element),
        ActionKind::Select => same_kind
            .clone()
            .any(|o| o.element == action.element && o.text == action.text),
        ActionKind::Type => same_kind.clone().any(|o| {
            o.element == action.element
                && (o.text == action.text
                    || matches!((&o.text, &action.text), (Some(t), Some(a)) if answer::texts_agree(a, t)))
        }),
        ActionKind::Answer => success,
    };
    (accurate, false)
}

/// The distances an episode has reached: d₀ and the lowest distance seen or
/// credited so far, so that going back and forth earns a distance once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Credit {
    /// d of the initial state (`None`: unreachable or unknown, no credit).
    pub d0: Option<u32>,
    /// The lowest distance seen or credited.
    pub claimed: Option<u32>,
}

impl Credit {
    /// The record of an episode starting at distance `d0`.
    pub(crate) fn starting(d0: Distance) -> Credit {
        let d0 = match d0 {
            Distance::Steps(d) => Some(d),
            Distance::Unreachable | Distance::Unknown => None,
        };
        Credit { d0, claimed: d0 }
    }

    /// Records a step taken at distance `d` with accuracy `r_acc`; whether it
    /// earns the credit (new_best: d − 1 is below every distance seen or
    /// credited in the episode).
    pub(crate) fn claim(&mut self, d: Distance, r_acc: bool) -> bool {
        let Distance::Steps(d) = d else {
            return false;
        };
        let lowest = self.claimed.map_or(d, |c| c.min(d));
        self.claimed = Some(lowest);
        let below = d.saturating_sub(1);
        if r_acc && d >= 1 && below < lowest {
            self.claimed = Some(below);
            return true;
        }
        false
    }

    /// β·new_best/d₀: the progress credit of one step.
    pub(crate) fn credit(&self, beta: f64, new_best: bool) -> f64 {
        match (new_best, self.d0) {
            (true, Some(d0)) if d0 > 0 => beta / f64::from(d0),
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn click(e: usize) -> Action {
        Action {
            kind: ActionKind::Click,
            element: Some(e),
            text: None,
        }
    }

    fn typing(e: usize, t: &str) -> Action {
        Action {
            kind: ActionKind::Type,
            element: Some(e),
            text: Some(t.into()),
        }
    }

    #[test]
    fn accuracy_follows_kind_element_and_text() {
        let s = Shortest {
            distance: Distance::Steps(2),
            optimal: vec![click(3), typing(4, "Maya Okafor")],
        };
        assert_eq!(r_acc(&s, &click(3), false), (true, false));
        assert_eq!(r_acc(&s, &click(2), false), (false, false));
        assert_eq!(r_acc(&s, &typing(4, "maya"), false), (true, false));
        assert_eq!(
            r_acc(&s, &typing(4, "Maya O. Smith Jones"), false),
            (false, false)
        );
        assert_eq!(r_acc(&s, &typing(5, "Maya Okafor"), false), (false, false));
        let unknown = Shortest {
            distance: Distance::Unknown,
            optimal: Vec::new(),
        };
        assert_eq!(r_acc(&unknown, &click(3), false), (false, true));
    }

    #[test]
    fn a_distance_is_credited_once() {
        let mut c = Credit::starting(Distance::Steps(3));
        assert!(c.claim(Distance::Steps(3), true));
        // Back to the start, then the same good step again: no new credit.
        assert!(!c.claim(Distance::Steps(2), false));
        assert!(!c.claim(Distance::Steps(3), true));
        assert!(c.claim(Distance::Steps(2), true));
        assert!(c.claim(Distance::Steps(1), true));
        assert!((c.credit(0.5, true) - 0.5 / 3.0).abs() < 1e-12);
        assert!(!c.claim(Distance::Unknown, true));
        assert_eq!(Credit::starting(Distance::Unknown).credit(0.5, true), 0.0);
    }
}
