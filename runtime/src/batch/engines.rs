//! The two engines a batch can step, behind one trait: the reference
//! interpreter ([`InterpEngine`]) and the JIT's flat engine ([`FlatEngine`]).
//!
//! The batch's observation writer reads an engine only through [`Engine`]:
//! the instruction, each element's role, text, value and `disabled` flag, and
//! each candidate's kind, element and text. An engine also takes a candidate
//! by index and starts a new episode of an instance by index; which instance
//! comes next is the batch's seeded draw, so both engines play the same
//! episodes.

use super::BatchError;
use crate::env::distance::{DistanceOracle, SharedOracle};
use crate::env::{
    ActionKind, Env, RewardConfig, RewardMode, SharedWriter, StepResult, TaskInstance,
};
use crate::ir;
use crate::jit::{FlatEnv, FlatStart, JitSite, MemoCounts, RenderMemo, RenderMode, StartPage};
use crate::layout::TextPool;
use std::sync::{Arc, OnceLock};

/// One observed element, as the buffers need it. An engine that hashes
/// words as it renders (the JIT's) gives the hashes, and its strings may
/// then be empty; the writer prefers the hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementView<'a> {
    pub role: &'static str,
    pub text: &'a str,
    /// Whether the text is non-empty (known without the string).
    pub nonempty: bool,
    /// The word hashes of the text (`crate::words`), when rendered.
    pub words: Option<&'a [u64]>,
    pub value: Option<&'a str>,
    pub value_words: Option<&'a [u64]>,
    pub disabled: bool,
}

impl<'a> ElementView<'a> {
    /// A view of rendered strings.
    pub fn of_texts(
        role: &'static str,
        text: &'a str,
        value: Option<&'a str>,
        disabled: bool,
    ) -> ElementView<'a> {
        ElementView {
            role,
            text,
            nonempty: !text.is_empty(),
            words: None,
            value,
            value_words: None,
            disabled,
        }
    }
}

/// One candidate action, as the buffers need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionView<'a> {
    pub kind: ActionKind,
    /// 1-based element index; `None` for `answer`.
    pub element: Option<usize>,
    pub text: Option<&'a str>,
    /// The word hashes of `text`, when the engine has them.
    pub words: Option<&'a [u64]>,
}

/// An environment a batch steps.
pub trait Engine: Send {
    /// What the environments one thread steps share while stepping (the
    /// JIT's remembered renders; nothing for the interpreter).
    type Memo: Send;
    /// A fresh memory of `capacity` pages (0: none) for the engines of
    /// this engine's site.
    fn memo(&self, capacity: usize) -> Self::Memo;
    /// How often `memo` had a step's page.
    fn memo_counts(_memo: &Self::Memo) -> MemoCounts {
        MemoCounts::default()
    }
    fn instruction(&self) -> &str;
    /// The word hashes of the instruction, when the engine keeps them.
    fn instruction_words(&self) -> Option<&[u64]> {
        None
    }
    /// The page shown (its index in the program's pages).
    fn page(&self) -> Option<usize>;
    /// The alert the last step set.
    fn alert(&self) -> Option<&str>;
    /// Steps taken this episode.
    fn steps(&self) -> u32;
    fn element_count(&self) -> usize;
    /// The row ids of the loops element `i` was rendered in, outermost
    /// first (empty outside loops).
    fn element_path(&self, i: usize) -> &[i64];
    fn element(&self, i: usize) -> Option<ElementView<'_>>;
    fn action_count(&self) -> usize;
    fn action(&self, i: usize) -> Option<ActionView<'_>>;
    /// A name for the page and candidates shown, if the engine has one:
    /// two engines of one batch that give the same name show equal
    /// elements and offer equal candidates.
    fn view_key(&self) -> Option<(u64, usize)> {
        None
    }
    /// Candidate `i`'s kind: `action(i)`'s, without looking up its text.
    fn action_kind(&self, i: usize) -> Option<ActionKind> {
        self.action(i).map(|a| a.kind)
    }
    /// Takes candidate `index`, with the memory of the thread stepping it.
    fn take(&mut self, index: usize, memo: &mut Self::Memo) -> Result<StepResult, BatchError>;
    /// Starts a new episode of instance `instance`.
    fn begin(&mut self, instance: usize) -> Result<(), BatchError>;
    /// Asks, ahead of the next step, whatever that step's judgement needs
    /// (called for every engine in row order, before the threaded step).
    fn prejudge(&mut self) {}
}

/// The reference interpreter. When it judges (decomposed mode, or
/// `InterpEngine::judge`) each instance has one distance oracle, shared by
/// every engine of the batch: the batch asks the oracles about all its
/// engines' states in row order before it steps them on threads
/// ([`Engine::prejudge`]), so the oracles' memos, and every judgement, are
/// the same whatever the number of threads.
pub struct InterpEngine<'p> {
    program: &'p ir::Program,
    instances: Arc<[TaskInstance]>,
    config: RewardConfig,
    env: Env<'p>,
    /// The index of the instance being played.
    current: usize,
    /// One oracle per instance, shared by the batch's engines.
    oracles: Arc<[SharedOracle]>,
    /// Every step is judged (decomposed mode, or asked to).
    judging: bool,
    /// Proposes extern markers' effects in every episode (`None`: their
    /// `default` bodies).
    writer: Option<SharedWriter>,
}

impl<'p> InterpEngine<'p> {
    pub(super) fn new(
        program: &'p ir::Program,
        instances: Arc<[TaskInstance]>,
        config: RewardConfig,
        oracles: Arc<[SharedOracle]>,
        first: usize,
    ) -> Result<InterpEngine<'p>, BatchError> {
        let judging = config.mode == RewardMode::Decomposed;
        let inst = instances
            .get(first)
            .ok_or(BatchError::MissingInstance(first))?;
        let oracle = judging.then(|| oracles.get(first).cloned()).flatten();
        let env = Env::with_oracle(program, inst, config, oracle)?;
        Ok(InterpEngine {
            program,
            instances,
            config,
            env,
            current: first,
            oracles,
            judging,
            writer: None,
        })
    }

    /// Lets `writer` propose extern markers' effects, in this episode and
    /// every later one.
    pub(super) fn set_writer(&mut self, writer: Option<SharedWriter>) {
        self.env.set_writer(writer.clone());
        self.writer = writer;
    }

    /// One fresh oracle per instance, for the engines of one batch.
    pub(super) fn oracles(count: usize, config: &RewardConfig) -> Arc<[SharedOracle]> {
        (0..count)
            .map(|_| DistanceOracle::shared(config.oracle_budget))
            .collect()
    }

    pub fn env(&self) -> &Env<'p> {
        &self.env
    }

    /// Judges every step from now on (the current episode's record of
    /// distances starts at its current state), whatever the reward mode.
    pub(super) fn judge(&mut self) {
        self.judging = true;
        self.env.set_oracle(self.oracle_of(self.current));
    }

    /// The oracle of `instance`, when judging.
    fn oracle_of(&self, instance: usize) -> Option<SharedOracle> {
        if !self.judging {
            return None;
        }
        self.oracles.get(instance).cloned()
    }
}

impl Engine for InterpEngine<'_> {
    type Memo = ();

    fn memo(&self, _capacity: usize) {}

    fn instruction(&self) -> &str {
        self.env.instruction()
    }

    fn page(&self) -> Option<usize> {
        usize::try_from(self.env.navigation().page).ok()
    }

    fn alert(&self) -> Option<&str> {
        self.env.alert()
    }

    fn steps(&self) -> u32 {
        self.env.steps()
    }

    fn element_path(&self, i: usize) -> &[i64] {
        self.env.element_path(i)
    }

    fn element_count(&self) -> usize {
        self.env.elements().len()
    }

    fn element(&self, i: usize) -> Option<ElementView<'_>> {
        let e = self.env.elements().get(i)?;
        Some(ElementView::of_texts(
            e.role,
            &e.text,
            e.value.as_deref(),
            e.disabled,
        ))
    }

    fn action_count(&self) -> usize {
        self.env.actions().len()
    }

    fn action_kind(&self, i: usize) -> Option<ActionKind> {
        self.env.actions().get(i).map(|a| a.kind)
    }

    fn action(&self, i: usize) -> Option<ActionView<'_>> {
        let a = self.env.actions().get(i)?;
        Some(ActionView {
            kind: a.kind,
            element: a.element,
            text: a.text.as_deref(),
            words: None,
        })
    }

    fn take(&mut self, index: usize, _memo: &mut ()) -> Result<StepResult, BatchError> {
        let action = self
            .env
            .actions()
            .get(index)
            .cloned()
            .ok_or(BatchError::NoAction(index))?;
        Ok(self.env.step(&action)?)
    }

    fn prejudge(&mut self) {
        self.env.prejudge();
    }

    fn begin(&mut self, instance: usize) -> Result<(), BatchError> {
        let inst = self
            .instances
            .get(instance)
            .cloned()
            .ok_or(BatchError::MissingInstance(instance))?;
        let oracle = self.oracle_of(instance);
        self.env = Env::with_oracle(self.program, &inst, self.config, oracle)?;
        self.env.set_writer(self.writer.clone());
        self.current = instance;
        Ok(())
    }
}

/// The JIT's flat engine, with its own text pool. Every episode starts from
/// bytes encoded with the pool as it was when the instances were prepared,
/// so a new episode drops the texts the last one interned.
pub struct FlatEngine<'s> {
    env: FlatEnv<'s>,
    starts: Arc<[Arc<FlatStart>]>,
    /// Each instance's first page, shared by the batch's engines: set by the
    /// first engine to start an episode there.
    kept: KeptStarts<'s>,
    pool: TextPool,
    /// The pool's length when the instances were prepared.
    base: usize,
    /// The instance played, and for each instance the first one that offers
    /// the same candidates on every page (`FlatStart::offers_as`).
    current: usize,
    offers: Arc<[usize]>,
}

/// For each of `starts`, the first of them that offers the same candidates
/// on every page.
pub(super) fn offer_classes(starts: &[Arc<FlatStart>], site: &JitSite) -> Arc<[usize]> {
    let program = site.program();
    (0..starts.len())
        .map(|i| {
            (0..i)
                .find(|&j| starts[j].offers_as(&starts[i], program))
                .unwrap_or(i)
        })
        .collect()
}

/// One slot per prepared instance for its kept first page.
pub(super) type KeptStarts<'s> = Arc<[OnceLock<StartPage<'s>>]>;

/// A slot per instance of `starts`, none kept yet.
pub(super) fn no_kept_starts<'s>(starts: &[Arc<FlatStart>]) -> KeptStarts<'s> {
    starts.iter().map(|_| OnceLock::new()).collect()
}

impl<'s> FlatEngine<'s> {
    pub(super) fn new(
        site: &'s JitSite,
        (starts, offers): (Arc<[Arc<FlatStart>]>, Arc<[usize]>),
        kept: KeptStarts<'s>,
        config: RewardConfig,
        mut pool: TextPool,
        first: usize,
    ) -> Result<FlatEngine<'s>, BatchError> {
        let start = starts
            .get(first)
            .cloned()
            .ok_or(BatchError::MissingInstance(first))?;
        let base = pool.len();
        // The writer reads word hashes: no element text is built as a string
        // (a retrieval task's still are, for its answers).
        let env = FlatEnv::from_start_in(site, start, config, RenderMode::WORDS, &mut pool)?;
        Ok(FlatEngine {
            env,
            starts,
            kept,
            pool,
            base,
            current: first,
            offers,
        })
    }

    pub fn env(&self) -> &FlatEnv<'s> {
        &self.env
    }
}

impl Engine for FlatEngine<'_> {
    type Memo = RenderMemo;

    fn memo(&self, capacity: usize) -> RenderMemo {
        self.env.batch_render_memo(capacity)
    }

    fn memo_counts(memo: &RenderMemo) -> MemoCounts {
        memo.counts()
    }

    fn instruction(&self) -> &str {
        self.env.instruction()
    }

    fn instruction_words(&self) -> Option<&[u64]> {
        Some(self.env.instruction_words())
    }

    fn page(&self) -> Option<usize> {
        self.env.page_index()
    }

    fn alert(&self) -> Option<&str> {
        self.env.alert(&self.pool)
    }

    fn steps(&self) -> u32 {
        self.env.steps()
    }

    fn view_key(&self) -> Option<(u64, usize)> {
        let version = self.env.page_version()?;
        // A page where nothing is typed offers alike to every instance
        // whose task asks for an answer, or to every one whose does not;
        // those classes are named past any instance's index.
        let class = match self.env.offers_typing() {
            true => *self.offers.get(self.current)?,
            false => usize::MAX - usize::from(self.env.asks_answer()),
        };
        Some((version, class))
    }

    fn element_path(&self, i: usize) -> &[i64] {
        let structure = self.env.structure();
        structure
            .elements
            .get(i)
            .map_or(&[], |e| structure.path_of(e))
    }

    fn element_count(&self) -> usize {
        self.env.structure().elements.len()
    }

    fn element(&self, i: usize) -> Option<ElementView<'_>> {
        let structure = self.env.structure();
        let e = structure.elements.get(i)?;
        let words = structure.mode().words;
        Some(ElementView {
            role: e.role,
            text: structure.text_of(e),
            nonempty: e.nonempty,
            words: words.then(|| structure.words_of(e.text_words)),
            value: structure.value_of(e),
            value_words: words.then(|| structure.words_of(e.value_words)),
            disabled: e.disabled,
        })
    }

    fn action_count(&self) -> usize {
        self.env.actions().len()
    }

    fn action_kind(&self, i: usize) -> Option<ActionKind> {
        self.env.actions().get(i).map(|a| a.kind)
    }

    fn action(&self, i: usize) -> Option<ActionView<'_>> {
        let a = self.env.actions().get(i)?;
        Some(ActionView {
            kind: a.kind,
            element: (a.element > 0).then_some(a.element),
            text: self.env.action_text(a),
            words: self.env.action_words(a),
        })
    }

    fn take(&mut self, index: usize, memo: &mut RenderMemo) -> Result<StepResult, BatchError> {
        Ok(self.env.step_remembering(index, &mut self.pool, memo)?)
    }

    fn begin(&mut self, instance: usize) -> Result<(), BatchError> {
        let start = self
            .starts
            .get(instance)
            .cloned()
            .ok_or(BatchError::MissingInstance(instance))?;
        self.pool.truncate(self.base);
        self.current = instance;
        // The pool now holds what it held when the instances were prepared,
        // as every engine's does: a page kept by any of them reads the same.
        let slot = self.kept.get(instance);
        if let Some(page) = slot.and_then(OnceLock::get) {
            return Ok(self.env.restart_kept(page, &mut self.pool)?);
        }
        self.env.restart(start, &mut self.pool)?;
        if let Some(slot) = slot {
            let _ = slot.set(self.env.start_page(self.base, &self.pool));
        }
        Ok(())
    }
}
