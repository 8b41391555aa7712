//! The page a reset shows, kept so that the next reset of the same engine
//! copies it instead of rendering it again: an episode of an engine played
//! on its own ends every few steps under a random policy (2.5–4.7 in the
//! bench's unbatched loop on the examples), and its first page is often
//! the site's largest. A batch shares first pages its own way
//! (`start_page.rs`).
//!
//! *Why a copy is the render.* A reset puts back the instance's initial
//! bytes, so the state is the one the kept page was rendered from. A render
//! reads the bytes, the render mode and the texts of the pool by id, and
//! interns the texts it makes (a concatenation, a lowercased name), which
//! `TextPool::intern` finds when the pool holds them. The page is kept with
//! the pool's mark taken after its render, so a pool that agrees with the
//! mark (`TextPool::agrees`: its ids up to the mark mean the same texts)
//! holds every text that render read or made, under the same ids: the
//! render would give the same page and intern nothing. The kept page is
//! offered only for the same prepared instance (the same `FlatStart`) in
//! the same mode; anything else renders, and the new page is kept instead.
//! A copied page has the kept page's version (`FlatEnv::page_version`), as
//! a page taken from a memory of renders has. A debug build renders the
//! page again and demands the same structure.

use super::*;
use crate::layout::PoolMark;

/// The page a reset rendered, with the instance whose initial bytes it
/// rendered and the pool's mark after it (`None`: nothing kept yet).
#[derive(Default)]
pub(super) struct FirstPage {
    of: Option<(Arc<FlatStart>, PoolMark)>,
    page: KeptPage,
}

impl FlatEnv<'_> {
    /// Back to the task's initial state: a copy of its bytes, and its page
    /// copied from the one the last reset kept when it is this state's
    /// (module docs), rendered and kept otherwise.
    pub fn reset(&mut self, pool: &mut TextPool) -> R<()> {
        self.back_to_initial()?;
        let mut first = std::mem::take(&mut self.first);
        let shown = match self.show_kept(&first, pool) {
            Ok(false) => self.refresh(pool).map(|()| self.keep(&mut first, pool)),
            copied => copied.map(|_| ()),
        };
        self.first = first;
        shown
    }

    /// Shows `first`'s page when it was rendered from this state, with
    /// this pool's texts, in this mode; `false` when it was not.
    fn show_kept(&mut self, first: &FirstPage, pool: &mut TextPool) -> R<bool> {
        let Some((start, mark)) = &first.of else {
            return Ok(false);
        };
        let mode = self.render_mode();
        if !Arc::ptr_eq(start, &self.start)
            || first.page.structure.mode() != mode
            || !pool.agrees(mark)
        {
            return Ok(false);
        }
        self.show_copy(&first.page);
        if cfg!(debug_assertions) {
            let texts = pool.len();
            self.check_kept(pool, "a kept first page differs from its render")?;
            if pool.len() != texts {
                return Err(FlatError::malformed(
                    "a kept first page lacks texts its render interns",
                ));
            }
        }
        Ok(true)
    }

    /// Keeps the page just rendered from the initial bytes in `first`.
    fn keep(&self, first: &mut FirstPage, pool: &TextPool) {
        first.of = Some((self.start.clone(), pool.mark()));
        self.keep_page(&mut first.page);
    }
}
