//! The agent's form values in a rendered page: where a render reads them
//! ([`form_entry`], the layout's form variable list), and how a page
//! rendered from other form values is made the page of these
//! ([`JitSite::refill_forms`]).
//!
//! On a page whose structure can be keyed apart from its form variables
//! (`ir::rendered::form_use`), a render without texts depends on the form
//! values of its keyed elements and, beyond those, in two places only:
//! each form element's handle (an input's or a select's value, a
//! checkbox's state) and each argument that is a form variable, which
//! holds the value of the form element that bound it last. Such a render
//! notes both ([`crate::page::FormValues`]); everything else in it (which
//! elements there are, their paths, options, `disabled` flags, the other
//! arguments and their faults) is the same whatever the other form
//! values. So the prover keys such a page by the keyed elements' values
//! rather than the whole form variable list and, having found it, writes
//! the agent's values back in. A debug build renders every found page
//! again and demands the same structure.

use super::*;
use crate::jit::JitSite;

/// The agent's value for form element `id` at loop path `path`:
/// `Some(word)` when set (`word` `None` for `none`), `None` when not.
pub(super) fn form_entry(
    layout: &StateLayout,
    state: &[u8],
    id: u32,
    path: &[i64],
) -> Result<Option<Option<i64>>, JitFault> {
    let list = layout.forms;
    let n = u32_at(state, list.count).ok_or_else(|| corrupt("form count"))?;
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    if n > list.capacity {
        return Err(corrupt("a form count past the capacity"));
    }
    for i in 0..n {
        let at = list.entry_at(i);
        if u32_at(state, at) != Some(id) {
            continue;
        }
        let same = path.len() <= layout.form_depth
            && path
                .iter()
                .enumerate()
                .all(|(k, p)| i64_at(state, at + WORD * (1 + k)) == Some(*p));
        if !same {
            continue;
        }
        let present = u32_at(state, at + 4).ok_or_else(|| corrupt("form entry"))?;
        let word = i64_at(state, at + WORD * (1 + layout.form_depth))
            .ok_or_else(|| corrupt("form entry"))?;
        return Ok(Some((present != 0).then_some(word)));
    }
    Ok(None)
}

/// The word a form element's handle binds its variable to: an input's or
/// a select's value, a checkbox's 1 or 0 (`None` for other handles).
fn bound(handle: &HandleWords) -> Option<Option<i64>> {
    match *handle {
        HandleWords::Input { value } | HandleWords::Select { value, .. } => Some(value),
        HandleWords::Checkbox { on } => Some(Some(i64::from(on))),
        _ => None,
    }
}

impl JitSite {
    /// The agent's value in `state` for form element `element` of the
    /// state's page at loop path `path` (the row ids of its enclosing
    /// loops): `Some(word)` when set (`word` `None` for `none`), `None`
    /// when not.
    pub fn form_value(
        &self,
        state: &[u8],
        element: u32,
        path: &[i64],
    ) -> Result<Option<Option<i64>>, JitFault> {
        form_entry(&self.gate.layout, state, element, path)
    }

    /// Writes the form values of `state` into `page`, a render without
    /// texts of `state`'s page from the same bytes but for the form
    /// variables: each noted form element's handle, then each noted
    /// argument. Nothing is noted (and nothing changes) on a page whose
    /// form variables reach the structure otherwise.
    ///
    /// The values are taken as they are: a step writes a form variable
    /// only with a value of its element's type, and navigation clears
    /// them, so they are the page's own. (A render also checks each value
    /// it shows, such as a text id against the pool; bytes that were never
    /// a step's can fail a render where they pass here. A memory of
    /// renders serves only states its engine's steps reached: a search's,
    /// or a batch's until a load.)
    pub fn refill_forms(&self, state: &[u8], page: &mut PageStructure) -> Result<(), JitFault> {
        let layout = &self.gate.layout;
        let PageStructure {
            elements,
            paths,
            values,
            form_values,
            ..
        } = page;
        let noted = || JitFault::Input("a page notes a form value it does not hold".into());
        for field in &form_values.fields {
            let e = elements.get_mut(field.element as usize).ok_or_else(noted)?;
            let entry = form_entry(layout, state, e.id, e.path.of(paths))?;
            match &mut e.handle {
                HandleWords::Input { value } | HandleWords::Select { value, .. } => {
                    *value = entry.unwrap_or(field.unset);
                }
                HandleWords::Checkbox { on } => *on = matches!(entry, Some(Some(w)) if w != 0),
                _ => return Err(noted()),
            }
        }
        for arg in &form_values.args {
            let field = form_values
                .fields
                .get(arg.field as usize)
                .ok_or_else(noted)?;
            let e = elements.get(field.element as usize).ok_or_else(noted)?;
            let word = bound(&e.handle).ok_or_else(noted)?;
            *values.get_mut(arg.value as usize).ok_or_else(noted)? = word;
        }
        Ok(())
    }
}
