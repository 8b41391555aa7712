//! A rendered [`View`] as the page structure the JIT renders
//! (`crate::page`), for the differential tests: handles' values as layout
//! words (texts interned into the pool), texts and lists in the page's
//! shared lists.

use super::{initial, Handle, View};
use crate::env::State;
use crate::ir::Value;

/// The view's structure as words (see `JitSite::render_structure`), texts
/// interned into `pool`.
pub(crate) fn structure(
    view: &View,
    state: &State,
    pool: &mut crate::layout::TextPool,
) -> Result<crate::page::PageStructure, crate::layout::LayoutError> {
    use crate::layout::word_of;
    use crate::page::{ElementInstance, HandleWords, PageStructure, Span};
    let mut page = PageStructure::default();
    for shown in &view.shown {
        let at = page.push_text(shown);
        page.shown.push(at);
    }
    // The words of `vs`, appended to the page's shared values.
    let values = |page: &mut PageStructure,
                  pool: &mut crate::layout::TextPool,
                  vs: &mut dyn Iterator<Item = &Value>| {
        let start = page.values.len();
        for v in vs {
            page.values.push(word_of(v, pool)?);
        }
        Ok::<_, crate::layout::LayoutError>(Span::between(start, page.values.len()))
    };
    for ((handle, (id, path)), el) in view.handles.iter().zip(&view.paths).zip(&view.elements) {
        let handle = match handle {
            Handle::Inert => HandleWords::Inert,
            Handle::Go(Ok((to, args))) => {
                HandleWords::Go(Ok((*to, values(&mut page, pool, &mut args.iter())?)))
            }
            Handle::Go(Err(m)) => HandleWords::Go(Err(page.push_fault(m.clone()))),
            Handle::Marker(m, Ok(args)) => {
                HandleWords::Marker(*m, Ok(values(&mut page, pool, &mut args.iter())?))
            }
            Handle::Marker(m, Err(e)) => HandleWords::Marker(*m, Err(page.push_fault(e.clone()))),
            Handle::Input { key, ty } => {
                let v = state.forms.get(key).cloned().unwrap_or_else(|| initial(ty));
                HandleWords::Input {
                    value: word_of(&v, pool)?,
                }
            }
            Handle::Checkbox { on, .. } => HandleWords::Checkbox { on: *on },
            Handle::Select { key, options } => {
                let v = match state.forms.get(key) {
                    Some(v) => v.clone(),
                    None => options.first().map_or(Value::None, |o| o.1.clone()),
                };
                HandleWords::Select {
                    options: values(&mut page, pool, &mut options.iter().map(|o| &o.1))?,
                    value: word_of(&v, pool)?,
                }
            }
        };
        let path = page.push_path(path);
        let text = page.push_text(&el.text);
        let value = el.value.as_deref().map(|v| page.push_text(v));
        let texts: Vec<Span> = el.options.iter().map(|o| page.push_text(o)).collect();
        let options = page.push_options(texts);
        page.elements.push(ElementInstance {
            id: *id,
            path,
            role: el.role,
            text,
            nonempty: !el.text.is_empty(),
            text_words: Span::default(),
            value,
            value_words: Span::default(),
            options,
            disabled: el.disabled,
            handle,
        });
    }
    Ok(page)
}
