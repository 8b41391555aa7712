//! An instance's first page, kept so that a batch restarting episode after
//! episode on the same prepared instance copies it instead of rendering it
//! (and computing Ψ) again: a restart's work is then a copy of the initial
//! bytes and of the kept page.
//!
//! What `restart` computes from a prepared instance is a function of its
//! initial bytes and of the text pool it starts with: the render reads
//! texts by id and interns the texts it makes (a concatenation, a
//! lowercased name), each at the next free id. A kept page is only offered
//! back to the same instance, in the same render mode, by a caller whose
//! pool holds the same texts as when the page was kept (the batch's engine
//! truncates its pool to one base length before each episode); the texts
//! that render interned are interned again, in the same order, so they get
//! the ids the kept page holds. A debug build renders the page again and
//! demands the same structure and Ψ.

use super::*;

/// What `FlatEnv::restart` leaves of one prepared instance: Ψ of the initial
/// state, the first page, its candidates and answers.
pub struct StartPage<'s> {
    site: &'s JitSite,
    start: Arc<FlatStart>,
    mode: RenderMode,
    psi: f64,
    page: KeptPage,
    /// The pool's length before the restart, and the texts the restart
    /// interned past it.
    pool_len: usize,
    interned: Vec<Arc<str>>,
}

impl<'s> FlatEnv<'s> {
    /// The page `restart` just rendered from a pool of `pool_len` texts
    /// (now `pool`), to be offered back to [`FlatEnv::restart_kept`]. Only
    /// meaningful right after `restart`, before any step.
    pub fn start_page(&self, pool_len: usize, pool: &TextPool) -> StartPage<'s> {
        let mut page = KeptPage::default();
        self.keep_page(&mut page);
        StartPage {
            site: self.site,
            start: self.start.clone(),
            mode: self.mode,
            psi: self.initial_psi,
            page,
            pool_len,
            interned: pool.since(pool_len),
        }
    }

    /// Restarts on `page`'s instance as `restart` would, copying the kept
    /// page instead of rendering it. `pool` must hold the texts it held
    /// before `page` was rendered (see the module header). Refused with
    /// [`FlatError::Foreign`], changing nothing, for a page kept by another
    /// site's engine, in another render mode, from a pool of another length
    /// or for a state of another size.
    pub fn restart_kept(&mut self, page: &StartPage<'s>, pool: &mut TextPool) -> R<()> {
        let foreign = page.mode != self.mode
            || !std::ptr::eq(page.site, self.site)
            || pool.len() != page.pool_len;
        if foreign {
            return Err(FlatError::Foreign("a kept start page"));
        }
        self.enter(page.start.clone())?;
        for (k, text) in page.interned.iter().enumerate() {
            let expected = page.pool_len.checked_add(k);
            if pool.intern(text).map(|id| id as usize) != expected {
                return Err(FlatError::malformed(
                    "a kept start page's texts got other ids",
                ));
            }
        }
        self.initial_psi = page.psi;
        self.psi = page.psi;
        self.psi_known = true;
        self.show_copy(&page.page);
        if cfg!(debug_assertions) {
            if self.potential(pool)?.to_bits() != page.psi.to_bits() {
                return Err(FlatError::malformed("a kept start page has another Ψ"));
            }
            // The render finds every text it makes already interned.
            let interned = pool.len();
            self.check_kept(pool, "a kept start page differs from its render")?;
            if pool.len() != interned {
                return Err(FlatError::malformed(
                    "a kept start page lacks texts its render interns",
                ));
            }
        }
        Ok(())
    }
}
