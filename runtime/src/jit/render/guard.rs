//! Page guards on the flat state (LANGUAGE.md §3, 1.1): rule for rule
//! `interp::guard`. Each page's guards are compiled with its other functions
//! (their conditions and `else` arguments, over the page's frame); following
//! them runs those functions over a frame holding the arguments the
//! navigation carries, in the state it happens in.

use super::{Calls, Definer, JitError, JitFault, PageNative, F, R};
use crate::ir::{self, PageId};
use crate::jit::JitSite;
use crate::layout::TextPool;

/// One compiled `guard cond else page(args)`.
#[derive(Debug)]
pub(super) struct GuardNode {
    cond: F,
    page: PageId,
    args: Vec<F>,
}

/// A navigation's target: a page and its arguments as layout words.
pub type Landing = (PageId, Vec<Option<i64>>);

impl Definer<'_> {
    /// Compiles a page's guards.
    pub(super) fn guards(&mut self, guards: &[ir::PageGuard]) -> R<Vec<GuardNode>> {
        guards
            .iter()
            .map(|g| {
                Ok(GuardNode {
                    cond: self.func(&g.cond, true)?,
                    page: g.redirect.page,
                    args: self.values(&g.redirect.args)?,
                })
            })
            .collect()
    }
}

impl JitSite {
    /// Where a navigation to `page` with `args` lands in `state`
    /// (`interp::guard::land`): `None` when no guard redirects it (the page
    /// is shown with `args`, which need not be copied), else the page and
    /// arguments the guards send it to.
    pub fn land(
        &self,
        page: PageId,
        args: &[Option<i64>],
        state: &[u8],
        pool: &mut TextPool,
    ) -> Result<Option<Landing>, JitFault> {
        let mut at: Option<Landing> = None;
        for _ in 0..self.pages.len() {
            let next = match &at {
                None => self.redirect(page, args, state, pool)?,
                Some((p, a)) => self.redirect(*p, a, state, pool)?,
            };
            match next {
                Some(next) => at = Some(next),
                None => break,
            }
        }
        Ok(at)
    }

    /// Where the first false guard of `page` sends a navigation with `args`
    /// (`interp::guard::redirect`); `None` when the page is shown.
    pub fn redirect(
        &self,
        page: PageId,
        args: &[Option<i64>],
        state: &[u8],
        pool: &mut TextPool,
    ) -> Result<Option<Landing>, JitFault> {
        let Some(jit_page) = self.page(page) else {
            // No such page: the navigation itself reports it.
            return Ok(None);
        };
        let native: &PageNative = jit_page
            .status
            .as_ref()
            .map_err(|_: &JitError| JitFault::NotCompiled)?;
        if native.guards.is_empty() {
            return Ok(None);
        }
        if !pool.holds_all(&native.texts) {
            return Err(JitFault::Input(
                "the text pool lacks the code's text constants (use the pool the site was compiled with)".into(),
            ));
        }
        let mut cells = vec![0; 2 * native.frame.max(args.len())];
        for (i, w) in args.iter().enumerate() {
            if let Some(cell) = cells.get_mut(2 * i..2 * i + 2) {
                cell.copy_from_slice(&[w.unwrap_or(0), i64::from(w.is_some())]);
            }
        }
        let calls = Calls {
            funcs: &native.funcs,
            program: &self.gate.program,
            layout: &self.gate.layout,
            state,
            cells: &cells,
            frame: native.frame,
        };
        for guard in &native.guards {
            if calls.cond(guard.cond, pool)?.unwrap_or(false) {
                continue;
            }
            let mut to = Vec::with_capacity(guard.args.len());
            for &a in &guard.args {
                match calls.value(a, pool)? {
                    Ok(w) => to.push(w),
                    // `else` arguments that fault cannot redirect: the page shows.
                    Err(_) => return Ok(None),
                }
            }
            return Ok(Some((guard.page, to)));
        }
        Ok(None)
    }
}
