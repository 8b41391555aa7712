//! Exact conversion between the interpreter's episode state and its flat bytes.
//!
//! `encode` then `decode` gives back the same state, and a state has exactly one
//! encoding (within one [`TextPool`]): list entries are sorted by their bytes and
//! every unused byte is zero. Both directions return a [`LayoutError`] instead of
//! panicking on a state or a buffer that does not fit the layout.

use super::{Cells, EntryList, LayoutError, StateLayout, TextPool};
use super::{ALERT_AT, FLAGS_AT, FLAG_ALERT, FLAG_DONE, FLAG_SUCCESS, STEP_AT, WORD};
use crate::episode::{FormKey, State};
use crate::interp::eval::Navigation;
use crate::interp::exec::World;
use crate::interp::state::{Database, TableState};
use crate::ir::{self, RowData, Ty, Value};
use crate::value::{Date, Time};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The bytes of `state`, interning its texts into `pool`.
pub fn encode(
    layout: &StateLayout,
    program: &ir::Program,
    state: &State,
    pool: &mut TextPool,
) -> Result<Vec<u8>, LayoutError> {
    let mut out = Buf(vec![0; layout.size]);
    encode_header(&mut out, state, pool)?;
    let nav = &state.nav;
    out.put_u32(layout.page, nav.page)?;
    let params = page_params(program, nav.page)?;
    if nav.args.len() != params.len() {
        return Err(LayoutError::Type(format!(
            "page #{} takes {} arguments, the state has {}",
            nav.page,
            params.len(),
            nav.args.len()
        )));
    }
    for (i, (arg, p)) in nav.args.iter().zip(params).enumerate() {
        out.put_cell(layout.args, i, to_word(arg, &p.ty, pool)?)?;
    }
    encode_forms(&mut out, layout, state, pool)?;
    for (i, (value, def)) in state.world.session.iter().zip(&program.session).enumerate() {
        out.put_cell(layout.session, i, to_word(value, &def.ty, pool)?)?;
    }
    if state.world.session.len() != program.session.len() {
        return Err(LayoutError::Type("the session has the wrong length".into()));
    }
    encode_tables(&mut out, layout, program, &state.world.db, pool)?;
    encode_visited(&mut out, layout, program, &nav.visited, pool)?;
    Ok(out.0)
}

/// The state `bytes` hold. `pool` must be the pool they were encoded with.
pub fn decode(
    layout: &StateLayout,
    program: &ir::Program,
    bytes: &[u8],
    pool: &TextPool,
) -> Result<State, LayoutError> {
    if bytes.len() != layout.size {
        return Err(LayoutError::Corrupt(format!(
            "a state of this site has {} bytes, not {}",
            layout.size,
            bytes.len()
        )));
    }
    let b = Read(bytes);
    let flags = b.u32(FLAGS_AT)?;
    let alert = if flags & FLAG_ALERT != 0 {
        Some(text_of(pool, b.u32(ALERT_AT)?)?.to_string())
    } else {
        None
    };
    let page = b.u32(layout.page)?;
    let params = page_params(program, page)?;
    let args = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.cell(layout.args, i, &p.ty, program, pool))
        .collect::<Result<Vec<_>, _>>()?;
    let session = program
        .session
        .iter()
        .enumerate()
        .map(|(i, s)| b.cell(layout.session, i, &s.ty, program, pool))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(State {
        world: World {
            db: decode_tables(&b, layout, program, pool)?,
            session,
        },
        nav: Navigation {
            page,
            args,
            visited: decode_visited(&b, layout, program, pool)?,
        },
        forms: decode_forms(&b, layout, program, page, pool)?,
        step: b.u32(STEP_AT)?,
        alert,
        done: flags & FLAG_DONE != 0,
        success: flags & FLAG_SUCCESS != 0,
    })
}

fn encode_header(out: &mut Buf, state: &State, pool: &mut TextPool) -> Result<(), LayoutError> {
    let mut flags = 0;
    if state.done {
        flags |= FLAG_DONE;
    }
    if state.success {
        flags |= FLAG_SUCCESS;
    }
    if let Some(alert) = &state.alert {
        flags |= FLAG_ALERT;
        out.put_u32(ALERT_AT, intern(pool, &Arc::from(alert.as_str()))?)?;
    }
    out.put_u32(STEP_AT, state.step)?;
    out.put_u32(FLAGS_AT, flags)
}

fn encode_forms(
    out: &mut Buf,
    layout: &StateLayout,
    state: &State,
    pool: &mut TextPool,
) -> Result<(), LayoutError> {
    let mut entries = Vec::with_capacity(state.forms.len());
    for ((element, path), value) in &state.forms {
        let slot = layout.form_slot(state.nav.page, *element).ok_or_else(|| {
            LayoutError::Type(format!(
                "element #{element} of page #{} holds no form variable",
                state.nav.page
            ))
        })?;
        if path.len() != slot.depth {
            return Err(LayoutError::Type(format!(
                "form variable #{element} has a loop path of {}, not {}",
                path.len(),
                slot.depth
            )));
        }
        let mut e = Buf(vec![0; layout.forms.entry_size]);
        e.put_u32(0, *element)?;
        let word = to_word(value, &slot.ty, pool)?;
        e.put_u32(4, u32::from(word.is_some()))?;
        for (i, id) in path.iter().enumerate() {
            e.put_i64(WORD * (1 + i), *id)?;
        }
        e.put_i64(WORD * (1 + layout.form_depth), word.unwrap_or(0))?;
        entries.push(e.0);
    }
    out.put_entries(layout.forms, entries, "form variables")
}

fn decode_forms(
    b: &Read,
    layout: &StateLayout,
    program: &ir::Program,
    page: ir::PageId,
    pool: &TextPool,
) -> Result<BTreeMap<FormKey, Value>, LayoutError> {
    let mut forms = BTreeMap::new();
    for at in b.entries(layout.forms)? {
        let element = b.u32(at)?;
        let slot = layout
            .form_slot(page, element)
            .ok_or_else(|| LayoutError::Corrupt(format!("no form element #{element}")))?;
        let path = (0..slot.depth)
            .map(|i| b.i64(at + WORD * (1 + i)))
            .collect::<Result<Vec<_>, _>>()?;
        let present = b.u32(at + 4)? != 0;
        let word = b.i64(at + WORD * (1 + layout.form_depth))?;
        let value = from_word(word, present, &slot.ty, program, pool)?;
        forms.insert((element, path), value);
    }
    Ok(forms)
}

fn encode_tables(
    out: &mut Buf,
    layout: &StateLayout,
    program: &ir::Program,
    db: &Database,
    pool: &mut TextPool,
) -> Result<(), LayoutError> {
    if db.tables.len() != program.tables.len() {
        return Err(LayoutError::Type(
            "the database has the wrong tables".into(),
        ));
    }
    for ((table, def), tl) in db.tables.iter().zip(&program.tables).zip(&layout.tables) {
        if table.rows().len() > tl.capacity {
            return Err(LayoutError::Full(format!(
                "table `{}` holds {} rows, more than its {}",
                def.name,
                table.rows().len(),
                tl.capacity
            )));
        }
        out.put_u32(
            tl.count,
            u32::try_from(table.rows().len()).unwrap_or(u32::MAX),
        )?;
        out.put_i64(tl.high, table.high())?;
        for (i, row) in table.rows().iter().enumerate() {
            out.put_i64(tl.ids + WORD * i, row.id)?;
            if row.values.len() != def.fields.len() {
                return Err(LayoutError::Type(format!(
                    "a row of `{}` has {} values for {} fields",
                    def.name,
                    row.values.len(),
                    def.fields.len()
                )));
            }
            for ((value, field), cells) in row.values.iter().zip(&def.fields).zip(&tl.columns) {
                let word = to_word(value, &field.ty, pool)?;
                if word.is_none() && !matches!(field.ty, Ty::Optional(_)) {
                    return Err(LayoutError::Type(format!(
                        "`{}.{}` is `none` but not optional",
                        def.name, field.name
                    )));
                }
                out.put_cell(*cells, i, word)?;
            }
        }
    }
    Ok(())
}

fn decode_tables(
    b: &Read,
    layout: &StateLayout,
    program: &ir::Program,
    pool: &TextPool,
) -> Result<Database, LayoutError> {
    let mut tables = Vec::with_capacity(program.tables.len());
    for (def, tl) in program.tables.iter().zip(&layout.tables) {
        let count = b.count(tl.count, tl.capacity)?;
        let mut rows = Vec::with_capacity(count);
        for i in 0..count {
            let values = def
                .fields
                .iter()
                .zip(&tl.columns)
                .map(|(f, cells)| b.cell(*cells, i, &f.ty, program, pool))
                .collect::<Result<Vec<_>, _>>()?;
            rows.push(RowData {
                id: b.i64(tl.ids + WORD * i)?,
                values,
            });
        }
        if rows.windows(2).any(|w| w[0].id >= w[1].id) {
            return Err(LayoutError::Corrupt(format!(
                "the rows of `{}` are not in id order",
                def.name
            )));
        }
        let high = b.i64(tl.high)?;
        if rows.last().is_some_and(|r| r.id > high) || high < 0 {
            return Err(LayoutError::Corrupt(format!(
                "`{}` holds an id above the highest it ever issued",
                def.name
            )));
        }
        tables.push(TableState::with_high(rows, high));
    }
    Ok(Database { tables })
}

fn encode_visited(
    out: &mut Buf,
    layout: &StateLayout,
    program: &ir::Program,
    visited: &BTreeSet<(ir::PageId, Vec<Value>)>,
    pool: &mut TextPool,
) -> Result<(), LayoutError> {
    let mut entries = Vec::with_capacity(visited.len());
    for (page, args) in visited {
        let params = page_params(program, *page)?;
        if args.len() != params.len() {
            return Err(LayoutError::Type(format!(
                "visited page #{page} with {} arguments",
                args.len()
            )));
        }
        let mut e = Buf(vec![0; layout.visited.entry_size]);
        e.put_u32(0, *page)?;
        let mut mask = 0u32;
        for (i, (arg, p)) in args.iter().zip(params).enumerate() {
            if let Some(word) = to_word(arg, &p.ty, pool)? {
                mask |= 1 << i;
                e.put_i64(WORD * (1 + i), word)?;
            }
        }
        e.put_u32(4, mask)?;
        entries.push(e.0);
    }
    out.put_entries(layout.visited, entries, "visited pages")
}

fn decode_visited(
    b: &Read,
    layout: &StateLayout,
    program: &ir::Program,
    pool: &TextPool,
) -> Result<BTreeSet<(ir::PageId, Vec<Value>)>, LayoutError> {
    let mut visited = BTreeSet::new();
    for at in b.entries(layout.visited)? {
        let page = b.u32(at)?;
        let mask = b.u32(at + 4)?;
        let args = page_params(program, page)?
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let present = mask & (1 << i) != 0;
                from_word(b.i64(at + WORD * (1 + i))?, present, &p.ty, program, pool)
            })
            .collect::<Result<Vec<_>, _>>()?;
        visited.insert((page, args));
    }
    Ok(visited)
}

fn page_params(program: &ir::Program, page: ir::PageId) -> Result<&[ir::ParamDef], LayoutError> {
    usize::try_from(page)
        .ok()
        .and_then(|p| program.pages.get(p))
        .map(|p| p.params.as_slice())
        .ok_or_else(|| LayoutError::Corrupt(format!("there is no page #{page}")))
}

fn intern(pool: &mut TextPool, text: &Arc<str>) -> Result<u32, LayoutError> {
    pool.intern(text)
        .ok_or_else(|| LayoutError::Full("the text pool is full".into()))
}

fn text_of(pool: &TextPool, id: u32) -> Result<&Arc<str>, LayoutError> {
    pool.get(id)
        .ok_or_else(|| LayoutError::Corrupt(format!("text #{id} is not in the pool")))
}

/// The word of `value` in a slot of type `ty`; `None` for `none`. Shared with
/// the JIT, which encodes frames with it.
/// The type a value is encoded as, from the value alone (`None` for
/// `none`, which fits every type): enums and rows encode the same whatever
/// the enum or table, so index 0 stands for any.
pub(crate) fn value_ty(value: &Value) -> Option<Ty> {
    Some(match value {
        Value::None => return None,
        Value::Int(_) => Ty::Int,
        Value::Money(_) => Ty::Money,
        Value::Bool(_) => Ty::Bool,
        Value::Text(_) => Ty::Text,
        Value::Date(_) => Ty::Date,
        Value::Time(_) => Ty::Time,
        Value::Enum(_) => Ty::Enum(0),
        Value::Row(_) => Ty::Row(0),
    })
}

/// A value as its layout word (`None` for `none`), texts interned into
/// `pool`: `to_word` against the value's own type.
pub(crate) fn word_of(value: &Value, pool: &mut TextPool) -> Result<Option<i64>, LayoutError> {
    match value_ty(value) {
        None => Ok(None),
        Some(ty) => to_word(value, &ty, pool),
    }
}

pub(crate) fn to_word(
    value: &Value,
    ty: &Ty,
    pool: &mut TextPool,
) -> Result<Option<i64>, LayoutError> {
    let base = match ty {
        Ty::Optional(inner) => inner,
        other => other,
    };
    let word = match (value, base) {
        (Value::None, _) => return Ok(None),
        (Value::Int(n), Ty::Int) | (Value::Money(n), Ty::Money) | (Value::Row(n), Ty::Row(_)) => *n,
        (Value::Bool(b), Ty::Bool) => i64::from(*b),
        (Value::Text(s), Ty::Text) => i64::from(intern(pool, s)?),
        // A day the calendar lacks has no faithful day number (Feb 31st
        // would decode as March 3rd), nor a time past 23:59 a minute count.
        (Value::Date(d), Ty::Date) if d.is_valid() => d.day_number(),
        (Value::Time(t), Ty::Time) if t.is_valid() => i64::from(t.hour) * 60 + i64::from(t.minute),
        (Value::Enum(v), Ty::Enum(_)) => i64::from(*v),
        _ => {
            return Err(LayoutError::Type(format!(
                "the value {value:?} does not fit a slot of type {ty:?}"
            )))
        }
    };
    Ok(Some(word))
}

/// The value a slot of type `ty` holds.
pub(crate) fn from_word(
    word: i64,
    present: bool,
    ty: &Ty,
    program: &ir::Program,
    pool: &TextPool,
) -> Result<Value, LayoutError> {
    let corrupt = || LayoutError::Corrupt(format!("the word {word} is not a value of {ty:?}"));
    if !present {
        return if word == 0 {
            Ok(Value::None)
        } else {
            Err(corrupt())
        };
    }
    let base = match ty {
        Ty::Optional(inner) => inner,
        other => other,
    };
    Ok(match base {
        Ty::Int => Value::Int(word),
        Ty::Money => Value::Money(word),
        Ty::Row(_) => Value::Row(word),
        Ty::Bool if word == 0 || word == 1 => Value::Bool(word == 1),
        Ty::Text => {
            let id = u32::try_from(word).map_err(|_| corrupt())?;
            Value::Text(text_of(pool, id)?.clone())
        }
        Ty::Date => Value::Date(Date::from_day_number(word).ok_or_else(corrupt)?),
        Ty::Time if (0..24 * 60).contains(&word) => Value::Time(Time {
            hour: u8::try_from(word / 60).map_err(|_| corrupt())?,
            minute: u8::try_from(word % 60).map_err(|_| corrupt())?,
        }),
        Ty::Enum(e) => {
            let variants = usize::try_from(*e)
                .ok()
                .and_then(|e| program.enums.get(e))
                .map_or(0, |e| e.variants.len());
            let v = u32::try_from(word).map_err(|_| corrupt())?;
            if usize::try_from(v).map_or(true, |v| v >= variants) {
                return Err(corrupt());
            }
            Value::Enum(v)
        }
        _ => return Err(corrupt()),
    })
}

/// A buffer being written; every access is bounds-checked.
struct Buf(Vec<u8>);

impl Buf {
    fn put(&mut self, at: usize, bytes: &[u8]) -> Result<(), LayoutError> {
        at.checked_add(bytes.len())
            .and_then(|end| self.0.get_mut(at..end))
            .ok_or_else(|| LayoutError::Corrupt(format!("offset {at} is outside the state")))?
            .copy_from_slice(bytes);
        Ok(())
    }

    fn put_u32(&mut self, at: usize, v: u32) -> Result<(), LayoutError> {
        self.put(at, &v.to_le_bytes())
    }

    fn put_i64(&mut self, at: usize, v: i64) -> Result<(), LayoutError> {
        self.put(at, &v.to_le_bytes())
    }

    fn put_cell(&mut self, cells: Cells, i: usize, word: Option<i64>) -> Result<(), LayoutError> {
        if i >= cells.len {
            return Err(LayoutError::Full(format!("cell {i} of {}", cells.len)));
        }
        self.put_i64(cells.word_at(i), word.unwrap_or(0))?;
        self.put(cells.present_at(i), &[u8::from(word.is_some())])
    }

    /// Writes `entries` sorted by their bytes, so the order they came in (the
    /// history of the episode) never shows.
    fn put_entries(
        &mut self,
        list: EntryList,
        mut entries: Vec<Vec<u8>>,
        what: &str,
    ) -> Result<(), LayoutError> {
        if entries.len() > list.capacity {
            return Err(LayoutError::Full(format!(
                "{} {what}, more than the {} the layout holds",
                entries.len(),
                list.capacity
            )));
        }
        entries.sort_unstable();
        self.put_u32(list.count, u32::try_from(entries.len()).unwrap_or(u32::MAX))?;
        for (i, e) in entries.iter().enumerate() {
            self.put(list.entry_at(i), e)?;
        }
        Ok(())
    }
}

/// A buffer being read; every access is bounds-checked.
struct Read<'a>(&'a [u8]);

impl Read<'_> {
    fn bytes<const N: usize>(&self, at: usize) -> Result<[u8; N], LayoutError> {
        at.checked_add(N)
            .and_then(|end| self.0.get(at..end))
            .and_then(|s| <[u8; N]>::try_from(s).ok())
            .ok_or_else(|| LayoutError::Corrupt(format!("offset {at} is outside the state")))
    }

    fn u32(&self, at: usize) -> Result<u32, LayoutError> {
        Ok(u32::from_le_bytes(self.bytes(at)?))
    }

    fn i64(&self, at: usize) -> Result<i64, LayoutError> {
        Ok(i64::from_le_bytes(self.bytes(at)?))
    }

    /// A `u32` count no larger than `capacity`.
    fn count(&self, at: usize, capacity: usize) -> Result<usize, LayoutError> {
        let n = usize::try_from(self.u32(at)?).unwrap_or(usize::MAX);
        if n > capacity {
            return Err(LayoutError::Corrupt(format!(
                "a count of {n} where {capacity} fit"
            )));
        }
        Ok(n)
    }

    /// The offsets of a list's entries in use.
    fn entries(&self, list: EntryList) -> Result<Vec<usize>, LayoutError> {
        let n = self.count(list.count, list.capacity)?;
        Ok((0..n).map(|i| list.entry_at(i)).collect())
    }

    fn cell(
        &self,
        cells: Cells,
        i: usize,
        ty: &Ty,
        program: &ir::Program,
        pool: &TextPool,
    ) -> Result<Value, LayoutError> {
        if i >= cells.len {
            return Err(LayoutError::Corrupt(format!("cell {i} of {}", cells.len)));
        }
        let [present] = self.bytes::<1>(cells.present_at(i))?;
        from_word(self.i64(cells.word_at(i))?, present != 0, ty, program, pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::fixture::{self, PRODUCT};
    use crate::ir::{PageDef, ParamDef};

    /// The fixture with one page taking a product and holding a checkbox in a
    /// loop, and a task so the lists have room.
    fn program() -> ir::Program {
        let mut p = fixture::program();
        p.pages.push(PageDef {
            name: "ProductPage".into(),
            params: vec![ParamDef {
                name: "p".into(),
                ty: Ty::Row(PRODUCT),
            }],
            route: None,
            guards: Vec::new(),
            title: None,
            body: vec![ir::Element {
                id: 0,
                name: None,
                pos: ir::SourcePos { line: 1, column: 1 },
                kind: ir::ElementKind::For(ir::ForElement {
                    binder_name: "x".into(),
                    source: ir::LoopSource::Rows(fixture::over(1, PRODUCT, None)),
                    order: None,
                    limit: None,
                    offset: None,
                    body: vec![ir::Element {
                        id: 1,
                        name: None,
                        pos: ir::SourcePos { line: 2, column: 1 },
                        kind: ir::ElementKind::Checkbox {
                            slot: 2,
                            label: vec![],
                        },
                    }],
                }),
            }],
            frame: 3,
        });
        p.tasks.push(ir::TaskDef {
            name: "t".into(),
            template: None,
            say: vec![],
            start: None,
            horizon: 5,
            goal: None,
            answer: None,
            progress: vec![],
            key: vec![],
            values: vec![],
            setup: vec![],
            frame: 0,
        });
        p
    }

    /// Ids whose little-endian bytes sort opposite to their values.
    fn state(program: &ir::Program) -> State {
        let mut visited = BTreeSet::new();
        visited.insert((0, vec![Value::Row(1)]));
        visited.insert((0, vec![Value::Row(256)]));
        let mut forms = BTreeMap::new();
        forms.insert((1, vec![1]), Value::Bool(true));
        forms.insert((1, vec![256]), Value::Bool(false));
        State {
            world: World::initial(program),
            nav: Navigation {
                page: 0,
                args: vec![Value::Row(256)],
                visited,
            },
            forms,
            step: 3,
            alert: Some("`buy` was rejected".into()),
            done: false,
            success: false,
        }
    }

    #[test]
    fn lists_are_kept_in_byte_order_whatever_the_value_order() {
        let program = program();
        let layout = StateLayout::for_program(&program).unwrap();
        let mut pool = TextPool::for_program(&program);
        let s = state(&program);
        let bytes = encode(&layout, &program, &s, &mut pool).unwrap();
        for list in [layout.forms, layout.visited] {
            let a = &bytes[list.entry_at(0)..list.entry_at(1)];
            let b = &bytes[list.entry_at(1)..list.entry_at(2)];
            assert!(a < b, "entries out of byte order");
        }
        assert_eq!(decode(&layout, &program, &bytes, &pool).unwrap(), s);
    }

    #[test]
    fn states_that_do_not_fit_are_refused() {
        let program = program();
        let layout = StateLayout::for_program(&program).unwrap();
        let mut pool = TextPool::for_program(&program);
        let mut s = state(&program);
        s.nav.args = vec![Value::Text("x".into())];
        assert!(matches!(
            encode(&layout, &program, &s, &mut pool),
            Err(LayoutError::Type(_))
        ));
        let mut s = state(&program);
        for i in 0..6 {
            s.forms.insert((1, vec![1000 + i]), Value::Bool(true));
        }
        assert!(matches!(
            encode(&layout, &program, &s, &mut pool),
            Err(LayoutError::Full(_))
        ));
        let mut s = state(&program);
        s.world.db.tables[0].rows_mut()[0].values[0] = Value::None;
        assert!(matches!(
            encode(&layout, &program, &s, &mut pool),
            Err(LayoutError::Type(_))
        ));
        let s = state(&program);
        let bytes = encode(&layout, &program, &s, &mut pool).unwrap();
        let empty = TextPool::default();
        assert!(
            decode(&layout, &program, &bytes, &empty).is_err(),
            "texts missing from the pool"
        );
        assert!(decode(&layout, &program, &bytes[1..], &pool).is_err());
    }

    #[test]
    fn every_scalar_type_round_trips() {
        let mut pool = TextPool::default();
        let program = program();
        let cases = [
            (Value::Int(i64::MIN), Ty::Int),
            (Value::Money(-1), Ty::Money),
            (Value::Bool(true), Ty::Bool),
            (Value::Text("é".into()), Ty::Text),
            (Value::Date(fixture::date("2024-02-29")), Ty::Date),
            (Value::Time(fixture::time("23:59")), Ty::Time),
            (Value::Enum(2), Ty::Enum(0)),
            (Value::Row(7), Ty::Row(0)),
            (Value::None, Ty::Optional(Box::new(Ty::Int))),
        ];
        for (v, ty) in cases {
            let word = to_word(&v, &ty, &mut pool).unwrap();
            let back = from_word(word.unwrap_or(0), word.is_some(), &ty, &program, &pool);
            assert_eq!(back, Ok(v));
        }
        assert!(from_word(3, true, &Ty::Enum(0), &program, &pool).is_err());
        assert!(from_word(2, true, &Ty::Bool, &program, &pool).is_err());
        assert!(from_word(24 * 60, true, &Ty::Time, &program, &pool).is_err());
        assert!(from_word(5, false, &Ty::Int, &program, &pool).is_err());
    }
}
