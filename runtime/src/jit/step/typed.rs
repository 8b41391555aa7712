//! What a `type` action does, decided once per instance: every typeable
//! value, and `""`, parsed (`env::actions::parse_typed`, §5.2's typing
//! rule) as each type a form variable of the site has, and encoded as the
//! word the variable will hold, texts interned in the instance's pool. A
//! step, or a search's probe, of `type` then parses, allocates and interns
//! nothing: it reads its outcome here.
//!
//! An outcome keeps what the step would have met when it came to it: the
//! word, the refusal (what the text should have been), or the encoding
//! error (a date the calendar lacks), which fails that step alone, as
//! before, never the instance.

use crate::env::actions::parse_typed;
use crate::ir::{self, Ty};
use crate::layout::{LayoutError, StateLayout, TextPool};

/// Typing one value into a variable of one type.
#[derive(Clone, Debug)]
pub(super) enum Typed {
    /// The word the variable will hold (`None`: cleared).
    Word(Option<i64>),
    /// Refused: the text is not what the type reads ("a whole number").
    Refused(&'static str),
    /// The value parsed but has no word (a day the calendar lacks).
    Unencodable(LayoutError),
}

/// Each outcome, by the variable's type and the typeable value's index.
#[derive(Debug, Default)]
pub(super) struct TypedInputs {
    /// The distinct types of the site's form variables, in layout order.
    types: Vec<Ty>,
    /// `outcomes[t * values + arg]`: typing value `arg` (its count for
    /// `""`) into a variable of `types[t]`.
    outcomes: Vec<Typed>,
    values: usize,
}

impl TypedInputs {
    /// Every outcome for `typeable` (the instance's values, `""` after them)
    /// on `layout`'s form variables, texts interned in `pool`.
    pub(super) fn new(
        program: &ir::Program,
        layout: &StateLayout,
        typeable: &[String],
        pool: &mut TextPool,
    ) -> TypedInputs {
        let mut types: Vec<Ty> = Vec::new();
        for slot in layout.form_slots.iter().flatten().flatten() {
            if !types.contains(&slot.ty) {
                types.push(slot.ty.clone());
            }
        }
        let texts = typeable.iter().map(String::as_str).chain([""]);
        let values = typeable.len() + 1;
        let mut outcomes = Vec::with_capacity(types.len() * values);
        for ty in &types {
            for text in texts.clone() {
                outcomes.push(match parse_typed(program, text, ty) {
                    Err(expected) => Typed::Refused(expected),
                    Ok(v) => match crate::layout::to_word(&v, ty, pool) {
                        Ok(word) => Typed::Word(word),
                        Err(e) => Typed::Unencodable(e),
                    },
                });
            }
        }
        TypedInputs {
            types,
            outcomes,
            values,
        }
    }

    /// Typing value `arg` into a variable of type `ty` (an index past the
    /// values types `""`, as `typeable.get(arg)` falling back to `""`
    /// did); `None` for a type no form variable has.
    pub(super) fn outcome(&self, ty: &Ty, arg: usize) -> Option<&Typed> {
        let arg = arg.min(self.values.saturating_sub(1));
        let t = self.types.iter().position(|t| t == ty)?;
        self.outcomes.get(t * self.values + arg)
    }
}
