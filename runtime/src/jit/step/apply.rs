//! What acting on an element does to the flat bytes (`env::step`'s
//! actions): a link's navigation after its target's guards, a marker's
//! compiled body with its `go`, a checkbox toggled, typed text parsed into
//! its form variable, an option selected, an answer matched. Navigation and
//! form edits keep the layout's canonical encoding (`entries`).

use super::*;
use crate::jit::marker::Args;

/// The handle an action runs on, with the page's lists its spans cover.
#[derive(Clone, Copy)]
struct Handle<'h> {
    handle: &'h HandleWords,
    /// The page's value words (the handle's arguments or options).
    values: &'h [Option<i64>],
    /// The element's loop path.
    path: &'h [i64],
}

impl<'s> FlatEnv<'s> {
    /// Applies `action` to the bytes (not the header); a rejection changes
    /// nothing.
    pub(super) fn apply(
        &mut self,
        action: FlatAction,
        pool: &mut TextPool,
        alert: Alert,
    ) -> R<Applied> {
        self.committed = None;
        if action.kind == ActionKind::Answer {
            let Some(text) = self.answer(action.arg) else {
                return Err(FlatError::NoAnswer(action.arg));
            };
            return Ok(Applied::Answered(self.start.expected.matches(text)));
        }
        // The page's shared lists are lent out while the action runs
        // (nothing it does reads them) and put back after, so a probe
        // leaves the structure as it was without copying them.
        // `let … else`, not `ok_or`: the error is built only when needed.
        let Some(&ElementInstance {
            id, path, handle, ..
        }) = self.element_of(&action)
        else {
            return Err(FlatError::NoElement(action.element));
        };
        let paths = std::mem::take(&mut self.structure.paths);
        let values = std::mem::take(&mut self.structure.values);
        let on = Handle {
            handle: &handle,
            values: &values,
            path: path.of(&paths),
        };
        let applied = self.apply_to(action, id, on, pool, alert);
        self.structure.paths = paths;
        self.structure.values = values;
        applied
    }

    /// `apply` for an action on element `id` with handle `on`.
    fn apply_to(
        &mut self,
        action: FlatAction,
        id: u32,
        on: Handle<'_>,
        pool: &mut TextPool,
        alert: Alert,
    ) -> R<Applied> {
        let Handle {
            handle,
            values,
            path,
        } = on;
        match (action.kind, handle) {
            (ActionKind::Click, HandleWords::Go(Ok((page, args)))) => {
                self.navigate(*page, args.of(values), pool)
            }
            (ActionKind::Click, HandleWords::Go(Err(why)))
            | (ActionKind::Click, HandleWords::Marker(_, Err(why))) => {
                let Some(why) = self.structure.fault(*why) else {
                    return Err(FlatError::malformed(format!(
                        "element #{id} names a fault its page does not hold"
                    )));
                };
                Ok(Applied::Rejected(
                    (alert == Alert::Render).then(|| why.to_string()),
                ))
            }
            (ActionKind::Click, HandleWords::Marker(m, Ok(words))) => {
                let (m, words) = (*m, words.of(values));
                let def = self
                    .program
                    .markers
                    .get(idx(m))
                    .ok_or_else(|| FlatError::malformed(format!("no marker #{m}")))?;
                let mut args = std::mem::take(&mut self.marker_args);
                args.clear();
                for (w, p) in words.iter().zip(&def.params) {
                    let value = crate::layout::from_word(
                        w.unwrap_or(0),
                        w.is_some(),
                        &p.ty,
                        self.program,
                        pool,
                    )
                    .map_err(FlatError::Value)?;
                    args.push(value);
                }
                if args.len() != words.len() {
                    return Err(FlatError::malformed(format!(
                        "marker `{}`: wrong number of arguments",
                        def.name
                    )));
                }
                let mut text = std::mem::take(&mut self.alert_text);
                text.clear();
                let wanted = match alert {
                    Alert::Render => Some(&mut text),
                    Alert::Skip => None,
                };
                let held = self.held;
                let call = Args {
                    values: &args,
                    words: Some(words),
                };
                let outcome =
                    (self.site).run(m, &mut self.state, call, pool, &mut self.undo, wanted, held);
                self.marker_args = args;
                let outcome = outcome?;
                if let MarkerOutcome::Committed { .. } = outcome {
                    self.committed = Some(m);
                }
                match outcome {
                    MarkerOutcome::Committed {
                        go: Some((page, args)),
                    } => {
                        let params = self.params(page);
                        let words = match params {
                            Some(params) => args
                                .iter()
                                .zip(params)
                                .map(|(v, p)| crate::layout::to_word(v, &p.ty, pool))
                                .collect::<Result<Vec<_>, _>>()?,
                            None => Vec::new(),
                        };
                        self.navigate(page, &words, pool)
                    }
                    MarkerOutcome::Committed { go: None } => Ok(Applied::Done),
                    MarkerOutcome::Rejected { cause } => {
                        self.refusal = Some(cause);
                        Ok(Applied::Rejected((alert == Alert::Render).then_some(text)))
                    }
                }
            }
            (ActionKind::Click, HandleWords::Checkbox { on }) => {
                self.set_form(id, path, Some(i64::from(!on)))?;
                Ok(Applied::Done)
            }
            (ActionKind::Type, HandleWords::Input { .. }) => {
                let page = self.page()?;
                let Some(slot) = self.layout.form_slot(page, id) else {
                    return Err(FlatError::malformed(format!(
                        "element #{id} holds no form variable"
                    )));
                };
                // Cloned out (a word or a static text; an error only when
                // one is met) so the form can be written.
                let typed = self.start.typed.outcome(&slot.ty, action.arg).cloned();
                let typed = typed.ok_or_else(|| {
                    FlatError::malformed(format!("element #{id}'s type is no form variable's"))
                })?;
                match typed {
                    Typed::Word(word) => {
                        self.set_form(id, path, word)?;
                        Ok(Applied::Done)
                    }
                    Typed::Unencodable(e) => Err(e.into()),
                    // A search never shows the refusal: its message (a
                    // format and an allocation) is built only for a step.
                    Typed::Refused(expected) => {
                        Ok(Applied::Rejected((alert == Alert::Render).then(|| {
                            let typeable = &self.start.typeable;
                            let text = typeable.get(action.arg).map_or("", String::as_str);
                            bad_input(text, expected).to_string()
                        })))
                    }
                }
            }
            (ActionKind::Select, HandleWords::Select { options, .. }) => {
                let Some(&word) = options.of(values).get(action.arg) else {
                    return Err(FlatError::NoOption(action.element));
                };
                self.set_form(id, path, word)?;
                Ok(Applied::Done)
            }
            _ => Err(FlatError::WrongAction(action.element)),
        }
    }

    fn params(&self, page: ir::PageId) -> Option<&'s [ir::ParamDef]> {
        self.program
            .pages
            .get(idx(page))
            .map(|p| p.params.as_slice())
    }

    /// Shows `page` with `args` (words), or the page its guards redirect to
    /// (`JitSite::land`): form variables cleared, the page shown marked
    /// visited (`env::step::navigate`).
    fn navigate(
        &mut self,
        page: ir::PageId,
        args: &[Option<i64>],
        pool: &mut TextPool,
    ) -> R<Applied> {
        let landed = self.site.land(page, args, &self.state, pool)?;
        let (page, args) = match &landed {
            Some((p, a)) => (*p, a.as_slice()),
            None => (page, args),
        };
        let Some(params) = self.params(page) else {
            return Ok(Applied::Rejected(Some(format!("there is no page #{page}"))));
        };
        if args.len() != params.len() {
            return Err(FlatError::malformed(format!(
                "page #{page} takes {} arguments, not {}",
                params.len(),
                args.len()
            )));
        }
        self.wrote.navigation = true;
        let layout = self.layout;
        if self.visits {
            self.visit(page, args)?;
        }
        clear_list(&mut self.state, layout.forms)?;
        put_u32(&mut self.state, layout.page, page)?;
        for i in 0..layout.args.len {
            let w = args.get(i).copied().flatten();
            put_i64(&mut self.state, layout.args.word_at(i), w.unwrap_or(0))?;
            put(
                &mut self.state,
                layout.args.present_at(i),
                &[u8::from(w.is_some())],
            )?;
        }
        Ok(Applied::Done)
    }

    /// Adds page `page` with `args` to the visited set (a full set is an
    /// error, before anything has changed).
    fn visit(&mut self, page: ir::PageId, args: &[Option<i64>]) -> R<()> {
        let layout = self.layout;
        let mut entry = std::mem::take(&mut self.entry);
        entry.clear();
        entry.resize(layout.visited.entry_size, 0);
        put_u32(&mut entry, 0, page)?;
        let mut mask = 0u32;
        for (i, w) in args.iter().enumerate() {
            if let Some(w) = w {
                mask |= 1u32
                    .checked_shl(u32::try_from(i).unwrap_or(u32::MAX))
                    .unwrap_or(0);
                put_i64(&mut entry, WORD * (1 + i), *w)?;
            }
        }
        put_u32(&mut entry, 4, mask)?;
        let inserted = insert_sorted(
            &mut self.state,
            layout.visited,
            &entry,
            true,
            "visited pages",
        );
        self.entry = entry;
        self.wrote.visited_from = inserted?;
        Ok(())
    }

    /// Sets the form variable of element `id` at loop `path` to `word`,
    /// keeping the entries sorted by their bytes.
    fn set_form(&mut self, id: u32, path: &[i64], word: Option<i64>) -> R<()> {
        self.wrote.forms = true;
        let layout = self.layout;
        let list = layout.forms;
        let mut entry = std::mem::take(&mut self.entry);
        entry.clear();
        entry.resize(list.entry_size, 0);
        let built = (|| {
            put_u32(&mut entry, 0, id)?;
            put_u32(&mut entry, 4, u32::from(word.is_some()))?;
            if path.len() > layout.form_depth {
                return Err(FlatError::malformed(format!(
                    "form variable #{id} is nested too deep"
                )));
            }
            for (i, p) in path.iter().enumerate() {
                put_i64(&mut entry, WORD * (1 + i), *p)?;
            }
            put_i64(
                &mut entry,
                WORD * (1 + layout.form_depth),
                word.unwrap_or(0),
            )
        })();
        let result = built.and_then(|()| {
            // The key: the element id and the loop path (not the presence
            // word between them, nor the value).
            let key_end = WORD * (1 + layout.form_depth);
            let same_key = |e: &[u8]| {
                e.get(..4) == entry.get(..4) && e.get(WORD..key_end) == entry.get(WORD..key_end)
            };
            if let Some(at) = find_where(&self.state, list, same_key)? {
                // The same key and presence: the entry keeps its place in
                // byte order (it sorts by id, presence, then path, and no
                // other entry has this id and path), so only its value is
                // written.
                if self.state.get(at + 4..at + WORD) == entry.get(4..WORD) {
                    return put(&mut self.state, at, &entry);
                }
                remove_at(&mut self.state, list, at)?;
            }
            insert_sorted(&mut self.state, list, &entry, false, "form variables").map(|_| ())
        });
        self.entry = entry;
        result
    }
}
