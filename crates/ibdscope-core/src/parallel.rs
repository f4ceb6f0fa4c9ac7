//! The parallel scan engine: a fold over every page of a space, on as many
//! threads as an [`Engine`] allows, with the same result as one thread.
//!
//! The engine is a value the caller passes to every whole-file pass
//! ([`fold_pages`], [`crate::Summary::of`], [`crate::SpaceMap::build`],
//! [`crate::Btrees::build`], [`crate::pagecomp::expand`]): how many threads
//! it may use and what it tells the caller about the bytes it is finished
//! with. The [`Tablespace`] is only a view of bytes and carries neither.
//!
//! The idea is InnoDB's own parallel reader (`row0pread.cc`): cut the work
//! into ranges and let each thread take the next free range. Here a range
//! (a *shard*) is a run of whole extents, at least 2 MiB; threads take the
//! next shard number from one `AtomicU32`, so a thread that meets slow pages
//! simply takes fewer shards. Each shard is folded into a fresh accumulator
//! ([`PageFold`]) and joined in page order ([`PageFold::append`]) as soon
//! as every shard before it is (one folded ahead waits for them, so about
//! one accumulator per thread is alive, whatever the file's size). A thread
//! does not start a shard more than 64 MiB (`AHEAD_BYTES`) past the first one not
//! yet joined: if another thread stalls, the shards waiting for it (their
//! accumulators, and their mappings not yet released) stay bounded. Lists
//! (findings, runs of page types) come out sorted by page exactly as one
//! pass over the file would make them.
//!
//! With one thread, or a file of one shard, no thread is started and one
//! accumulator folds every page. Threads come from `std::thread::scope`;
//! the calling thread works too, and a thread the system refuses to start
//! is simply not there (the others take its shards). Nothing is allocated
//! per page: an accumulator per shard.

use crate::ids::PageNo;
use crate::source::Reader;
use crate::space::Tablespace;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// What a whole-file pass calls with each byte range of the data it has
/// finished with, `(offset, length)` ([`Engine::with_release`]).
pub type ReleaseFn<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// What a pass calls as it goes with `(done, total)`: pages of the space
/// folded so far, in page order, and pages in all ([`Engine::with_progress`]).
pub type ProgressFn<'a> = &'a (dyn Fn(u64, u64) + Sync);

/// How whole-file passes run: on how many threads, and what they call with
/// the bytes they have folded. Results never depend on it: the same space
/// gives the same result on any number of threads, with or without a
/// release hook.
///
/// `Engine::default()` is one thread (the library starts no thread unless
/// asked), no release hook and no progress hook: the library is silent.
///
/// ```
/// use ibdscope_core::{Engine, Summary, Tablespace};
///
/// # let data = vec![0u8; 4 * 16384];
/// # let opts = ibdscope_core::Options::default().with_page_size(Some(16384));
/// let ts = Tablespace::with_options(&data, opts)?;
/// let one = Summary::of(&ts, &Engine::default());
/// let four = Summary::of(&ts, &Engine::new(4));
/// assert_eq!(format!("{one:?}"), format!("{four:?}"));
/// # Ok::<(), ibdscope_core::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Engine<'a> {
    threads: usize,
    release: Option<ReleaseFn<'a>>,
    image_release: Option<ReleaseFn<'a>>,
    progress: Option<ProgressFn<'a>>,
}

impl Default for Engine<'_> {
    fn default() -> Self {
        Engine::new(1)
    }
}

impl std::fmt::Debug for Engine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("threads", &self.threads)
            .field("release", &self.release.map(|_| "set"))
            .field("image_release", &self.image_release.map(|_| "set"))
            .field("progress", &self.progress.map(|_| "set"))
            .finish()
    }
}

impl<'a> Engine<'a> {
    /// An engine of `threads` threads (0 counts as 1) and no release hook.
    pub fn new(threads: usize) -> Self {
        Engine {
            threads: threads.max(1),
            release: None,
            image_release: None,
            progress: None,
        }
    }

    /// The same engine, calling `release` with the byte ranges of the space
    /// it has folded (whole shards, 16 MiB or more at a time, each byte
    /// once, in no set order across threads). A caller that maps the file
    /// can drop those pages' mappings there (`MADV_DONTNEED`), so a pass
    /// over a file of any size keeps only a few shards mapped. The bytes
    /// stay readable: the hook must not make them invalid. Only
    /// [`fold_pages`] calls it; a caller that passes over the file again
    /// should not set it (mapping every page again costs as much as the
    /// first time).
    #[must_use]
    pub fn with_release(self, release: ReleaseFn<'a>) -> Self {
        Engine {
            release: Some(release),
            ..self
        }
    }

    /// The same engine, calling `release` from the passes that build a
    /// whole-space image (a page_compressed space decompressed, a MariaDB
    /// or MySQL encrypted space decrypted) with the byte ranges of the
    /// space copied into the image (whole shards, 16 MiB or more at a
    /// time, each byte once): the passes after it read the image, so a
    /// caller that maps the file can drop those mappings there, and the
    /// command holds the image and a few shards of the file, not both
    /// whole. As for [`Engine::with_release`], the bytes stay readable.
    /// [`fold_pages`] calls it (when no release hook is set) over a space
    /// read through a page source (decompressed or decrypted as it is
    /// read, no image): each pass reads the stored pages again into
    /// buffers, so the command holds a few shards of the file at a time.
    #[must_use]
    pub fn with_image_release(self, release: ReleaseFn<'a>) -> Self {
        Engine {
            image_release: Some(release),
            ..self
        }
    }

    /// The same engine, calling `progress` with `(done, total)` as a pass
    /// goes: [`fold_pages`] with the pages joined so far (in page order,
    /// so `done` never goes down within a pass, and the last call is
    /// `(total, total)`), after each shard is joined. The calls are made
    /// one at a time (under the engine's lock when it runs threads): the
    /// hook must be quick. A caller that streams a space itself (a walk
    /// along a leaf chain) reports through [`Engine::progress`].
    #[must_use]
    pub fn with_progress(self, progress: ProgressFn<'a>) -> Self {
        Engine {
            progress: Some(progress),
            ..self
        }
    }

    /// Tells the progress hook, if set, that `done` of `total` units of the
    /// work under way are done.
    pub fn progress(&self, done: u64, total: u64) {
        if let Some(f) = self.progress {
            f(done, total);
        }
    }

    /// Threads whole-file passes may use (at least 1).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Calls the release hook, if set, for pages `first..end` of `ts`.
    fn release_pages(&self, ts: &Tablespace<'_>, first: u32, end: u32) {
        // A space read through a page source copies what it reads into
        // buffers: its passes hand their shards to the image release hook.
        // Without a hook, the host of the space's window, if any, gets
        // them ([`Tablespace::with_window`]).
        let hook = self.release.or(ts.source().and(self.image_release));
        let size = ts.page_size() as usize;
        let len = ts.data().len();
        let from = (first as usize).saturating_mul(size).min(len);
        let to = (end as usize).saturating_mul(size).min(len);
        if to > from {
            match hook {
                Some(f) => f(from, to.saturating_sub(from)),
                None => ts.release(from, to.saturating_sub(from)),
            }
        }
    }
}

/// A fold over pages in page order, which the engine runs per shard and
/// joins in page order.
pub trait PageFold: Send {
    /// Folds page `n`, whose bytes are `page`. Within one accumulator pages
    /// come in increasing order, without gaps.
    fn page(&mut self, n: PageNo, page: &[u8]);

    /// Folds the `count` pages from `first` on, all known to read as zeros
    /// without being read ([`Tablespace::with_zero_ranges`]: the holes of
    /// a sparse file), each of whose bytes is `zero`. It must give what
    /// [`PageFold::page`] over each of them would (the default does just
    /// that); a fold whose per-page step for a zero page is a count, or
    /// nothing, does it in one step, so a pass takes time with the file's
    /// data, not its apparent size.
    fn zero_run(&mut self, first: PageNo, count: u32, zero: &[u8]) {
        for n in first.0..first.0.saturating_add(count) {
            self.page(PageNo(n), zero);
        }
    }

    /// Appends `next`: the fold of the pages that come right after this
    /// accumulator's last page. Joining must give what one accumulator
    /// folding both runs would have.
    fn append(&mut self, next: Self);

    /// This accumulator will fold every one of the space's `pages` pages
    /// itself (a pass on one thread): what it keeps per page may be
    /// reserved once, not grown (and copied) as it goes. A hint only: by
    /// default nothing.
    fn whole(&mut self, _pages: u32) {}
}

/// Smallest shard, in bytes (whole extents are added until it is reached).
/// 2 MiB is what one page-table page maps on x86-64: with 1 MiB shards the
/// two threads fault in pages under one page-table page and wait for its
/// lock (4.5 % of `fill`'s time at 4 GiB; 2 MiB shards made `fill` and
/// `indexes` 6 % faster there).
const MIN_SHARD_BYTES: u64 = 2 << 20;

/// Pages per shard: whole extents, at least 2 MiB.
pub fn shard_pages(ts: &Tablespace<'_>) -> u32 {
    let extent = ts.format().extent_size().max(1);
    let extent_bytes = u64::from(extent).saturating_mul(u64::from(ts.page_size()));
    let extents = MIN_SHARD_BYTES.div_ceil(extent_bytes.max(1)).max(1);
    u32::try_from(extents)
        .unwrap_or(1)
        .saturating_mul(extent)
        .max(1)
}

/// No fold: a pass that folds nothing beside another
/// ([`crate::SpaceMap::build_with_trees`] without a fold of its own).
impl PageFold for () {
    fn page(&mut self, _: PageNo, _: &[u8]) {}
    fn zero_run(&mut self, _: PageNo, _: u32, _: &[u8]) {}
    fn append(&mut self, _: Self) {}
}

/// Folds every page of `ts` with accumulators made by `new`, on up to
/// `engine.threads()` threads, and returns the joined result (the same on
/// any number of threads). Calls the engine's release hook, if any, with
/// the folded bytes.
pub fn fold_pages<F, N>(ts: &Tablespace<'_>, engine: &Engine<'_>, new: N) -> F
where
    F: PageFold,
    N: Fn() -> F + Sync,
{
    fold_pages_with_state(ts, engine, || (), || Stateless(new())).0
}

/// A fold over pages like [`PageFold`], whose per-page step also borrows a
/// state the engine makes once per thread ([`fold_pages_with_state`]) and
/// reuses for every shard that thread folds: buffers (a decrypted page, a
/// decompressed one, decoder tables) that would otherwise be allocated
/// per shard.
pub(crate) trait StateFold: Send {
    /// The per-thread state.
    type State;

    /// Folds page `n`, whose bytes are `page`, with this thread's state.
    /// Within one accumulator pages come in increasing order, without gaps.
    fn page(&mut self, state: &mut Self::State, n: PageNo, page: &[u8]);

    /// As [`PageFold::zero_run`]: by default each page in turn.
    fn zero_run(&mut self, state: &mut Self::State, first: PageNo, count: u32, zero: &[u8]) {
        for n in first.0..first.0.saturating_add(count) {
            self.page(state, PageNo(n), zero);
        }
    }

    /// As [`PageFold::append`].
    fn append(&mut self, next: Self);

    /// As [`PageFold::whole`].
    fn whole(&mut self, _pages: u32) {}
}

/// A [`PageFold`] as a [`StateFold`] without state.
struct Stateless<F>(F);

impl<F: PageFold> StateFold for Stateless<F> {
    type State = ();
    fn page(&mut self, _: &mut (), n: PageNo, page: &[u8]) {
        self.0.page(n, page);
    }
    fn zero_run(&mut self, _: &mut (), first: PageNo, count: u32, zero: &[u8]) {
        self.0.zero_run(first, count, zero);
    }
    fn append(&mut self, next: Self) {
        self.0.append(next.0);
    }
    fn whole(&mut self, pages: u32) {
        self.0.whole(pages);
    }
}

/// [`fold_pages`] for a [`StateFold`]: each thread makes one state with
/// `new_state` and folds every shard it takes with it. The result is the
/// same on any number of threads (the state must not change what a page
/// folds to: it holds buffers, not results).
pub(crate) fn fold_pages_with_state<F, S, M, N>(
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    new_state: M,
    new: N,
) -> F
where
    F: StateFold<State = S>,
    M: Fn() -> S + Sync,
    N: Fn() -> F + Sync,
{
    let n_pages = ts.n_pages();
    let shard = shard_pages(ts);
    let plan = Plan::new(ts, shard);
    let n_shards = plan.len();
    let threads = engine.threads().min(n_shards as usize).max(1);
    // Pages of shards `a..b`.
    let pages_of = |a: u32, b: u32| plan.pages(a, b);
    let batch = release_batch(ts, shard);
    let new_reader = || ts.source().map(|_| Reader::new(ts.page_size() as usize));
    if threads == 1 {
        let mut acc = new();
        acc.whole(n_pages);
        let mut state = new_state();
        let mut reader = new_reader();
        let mut released = 0;
        for k in 0..n_shards {
            let (first, end) = pages_of(k, k.saturating_add(1));
            fold_range(ts, &mut acc, &mut state, &mut reader, first, end);
            engine.progress(u64::from(end), u64::from(n_pages));
            let done = k.saturating_add(1);
            if done.saturating_sub(released) >= batch || done == n_shards {
                let (from, to) = pages_of(released, done);
                engine.release_pages(ts, from, to);
                released = done;
            }
        }
        return acc;
    }
    let next = AtomicU32::new(0);
    let ahead = ahead_shards(ts, shard);
    // Shards are joined in page order as soon as they can be, so only the
    // shards folded ahead of the first one still running wait (about one
    // per thread, at most `ahead`), whatever the file's size.
    let joined_now = Condvar::new();
    let joined = Mutex::new(Joined {
        next: 0,
        acc: None,
        waiting: Vec::new(),
        released: 0,
        batch,
        n_shards,
    });
    let work = || {
        let mut state = new_state();
        let mut reader = new_reader();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= n_shards {
                break;
            }
            {
                // The thread folding the first shard not joined never
                // waits here (its `k` is `next`), so `next` moves on.
                let mut j = joined.lock().unwrap_or_else(PoisonError::into_inner);
                while k >= j.next.saturating_add(ahead) {
                    j = joined_now.wait(j).unwrap_or_else(PoisonError::into_inner);
                }
            }
            let (first, end) = pages_of(k, k.saturating_add(1));
            let mut acc = new();
            fold_range(ts, &mut acc, &mut state, &mut reader, first, end);
            let release = {
                let mut j = joined.lock().unwrap_or_else(PoisonError::into_inner);
                let before = j.next;
                let release = j.add(k, acc);
                joined_now.notify_all();
                if j.next != before {
                    // Under the lock: the joined count only grows.
                    engine.progress(u64::from(pages_of(0, j.next).1), u64::from(n_pages));
                }
                release
            };
            // Outside the lock: dropping mappings takes a while.
            if let Some((a, b)) = release {
                let (from, to) = pages_of(a, b);
                engine.release_pages(ts, from, to);
            }
        }
        Vec::<()>::new()
    };
    on_threads(threads, work);
    let joined = joined.into_inner().unwrap_or_else(PoisonError::into_inner);
    joined.acc.unwrap_or_else(new)
}

/// The shards of a pass: runs of `shard` pages (whole extents, at least
/// 2 MiB: [`shard_pages`]), except that whole shards known to read as
/// zeros ([`Tablespace::next_zero_run`]: the holes of a sparse file) make
/// one shard between two shards of data, so a pass over a file of huge
/// apparent size and little data has shards for its data only.
struct Plan {
    shard: u32,
    n_pages: u32,
    /// With known-zero runs: the first page of each shard, then `n_pages`.
    bounds: Option<Vec<u32>>,
}

impl Plan {
    fn new(ts: &Tablespace<'_>, shard: u32) -> Plan {
        let n_pages = ts.n_pages();
        let shard = shard.max(1);
        let mut plan = Plan {
            shard,
            n_pages,
            bounds: None,
        };
        if ts.next_zero_run(0, n_pages).is_none() {
            return plan;
        }
        let mut bounds = Vec::new();
        let mut p = 0u32;
        while p < n_pages {
            bounds.push(p);
            let mut next = p.saturating_add(shard).min(n_pages);
            if let Some((z, count)) = ts.next_zero_run(p, n_pages) {
                let zero_end = z.0.saturating_add(count);
                if z.0 == p && zero_end >= next {
                    // Whole shards of zeros up to the run's end: one shard.
                    let whole = if zero_end >= n_pages {
                        n_pages
                    } else {
                        zero_end
                            .checked_div(shard)
                            .unwrap_or(0)
                            .saturating_mul(shard)
                    };
                    next = next.max(whole);
                }
            }
            p = next.max(p.saturating_add(1));
        }
        bounds.push(n_pages);
        plan.bounds = Some(bounds);
        plan
    }

    /// How many shards.
    fn len(&self) -> u32 {
        match &self.bounds {
            Some(b) => u32::try_from(b.len().saturating_sub(1)).unwrap_or(u32::MAX),
            None => self.n_pages.div_ceil(self.shard),
        }
    }

    /// The pages `first..end` of shards `a..b`.
    fn pages(&self, a: u32, b: u32) -> (u32, u32) {
        match &self.bounds {
            Some(v) => {
                let at = |k: u32| v.get(k as usize).copied().unwrap_or(self.n_pages);
                (at(a), at(b))
            }
            None => (
                a.saturating_mul(self.shard).min(self.n_pages),
                b.saturating_mul(self.shard).min(self.n_pages),
            ),
        }
    }
}

/// Bytes handed to the release hook at a time: each call drops mappings
/// that every thread of the process may hold in its TLB (one interrupt to
/// each other core), so it is made per 16 MiB rather than per shard.
const RELEASE_BYTES: u64 = 16 << 20;

/// How far past the first shard not yet joined a thread may start one.
const AHEAD_BYTES: u64 = 64 << 20;

/// Shards a thread may start past the first one not yet joined (at least
/// one, so that the next shard can always start).
fn ahead_shards(ts: &Tablespace<'_>, shard: u32) -> u32 {
    let shard_bytes = u64::from(shard).saturating_mul(u64::from(ts.page_size()));
    u32::try_from(AHEAD_BYTES.div_ceil(shard_bytes.max(1)))
        .unwrap_or(u32::MAX)
        .max(1)
}

/// Shards per call of the release hook.
fn release_batch(ts: &Tablespace<'_>, shard: u32) -> u32 {
    let shard_bytes = u64::from(shard).saturating_mul(u64::from(ts.page_size()));
    u32::try_from(RELEASE_BYTES.div_ceil(shard_bytes.max(1)))
        .unwrap_or(1)
        .max(1)
}

/// The shards joined so far (`0..next`), those folded ahead of them, and
/// the joined shards handed to the release hook (`0..released`).
struct Joined<F> {
    next: u32,
    acc: Option<F>,
    waiting: Vec<(u32, F)>,
    released: u32,
    /// Shards per release.
    batch: u32,
    n_shards: u32,
}

impl<F: StateFold> Joined<F> {
    /// Takes shard `k`'s fold: joined now if it is the next one (with the
    /// waiting shards that follow it), else kept until it is. Returns the
    /// joined shards to release now, a batch at a time (the rest at the
    /// end).
    fn add(&mut self, k: u32, acc: F) -> Option<(u32, u32)> {
        if k != self.next {
            self.waiting.push((k, acc));
            return None;
        }
        let mut acc = Some(acc);
        while let Some(later) = acc.take() {
            match &mut self.acc {
                Some(a) => a.append(later),
                None => self.acc = Some(later),
            }
            self.next = self.next.saturating_add(1);
            if let Some(i) = self.waiting.iter().position(|(j, _)| *j == self.next) {
                acc = Some(self.waiting.swap_remove(i).1);
            }
        }
        let due = self.next.saturating_sub(self.released) >= self.batch
            || (self.next == self.n_shards && self.next > self.released);
        if !due {
            return None;
        }
        let range = (self.released, self.next);
        self.released = self.next;
        Some(range)
    }
}

/// Folds pages `first..end` into `acc` with `state`; in a space read
/// through a page source, each page as `reader` reads it (transformed into
/// the thread's buffer).
fn fold_range<F: StateFold>(
    ts: &Tablespace<'_>,
    acc: &mut F,
    state: &mut F::State,
    reader: &mut Option<Reader>,
    first: u32,
    end: u32,
) {
    // The shard's pages are the engine's to release: the space's window
    // does not count them.
    let size = ts.page_size() as usize;
    let _folding = crate::window::folding(
        (first as usize).saturating_mul(size),
        (end as usize).saturating_mul(size),
    );
    let mut n = first;
    while n < end {
        // Pages up to the next known-zero run one by one, the run at once.
        let (data_end, run) = match ts.next_zero_run(n, end) {
            Some((z, count)) => (z.0, Some((z, count))),
            None => (end, None),
        };
        for k in n..data_end {
            let Some(stored) = ts.stored_page(PageNo(k)) else {
                return;
            };
            match (ts.source(), reader.as_mut()) {
                (Some(source), Some(r)) => {
                    let page = r.read(source, PageNo(k), stored);
                    acc.page(state, PageNo(k), page);
                }
                _ => acc.page(state, PageNo(k), stored),
            }
        }
        let Some((z, count)) = run else { return };
        // A page of zeros reads as zeros through every source.
        let Some(zero) = ts.stored_page(z) else {
            return;
        };
        acc.zero_run(state, z, count, zero);
        n = z.0.saturating_add(count).max(n.saturating_add(1));
    }
}

/// Reads every page of `ts` on up to `engine.threads()` threads, over
/// shards of whole extents ([`shard_pages`]) handed out in turn: each
/// thread makes one state with `new_state` (its buffers, reused for every
/// page), each shard one result `R::default()`, and
/// `page(state, result, n, from, to)` is called for every page `n` of the
/// shard with its stored bytes (`from`; the last page may be short) and
/// `to`, a page buffer of the thread's as long as `from` (its content what
/// the last page left), which nothing keeps: a pass that transforms every
/// page (decompresses, decrypts) for what it learns on the way (failures,
/// a summary of the stored pages), each page read and transformed once, no
/// image allocated. Pages the space knows to be zero
/// ([`Tablespace::is_known_zero`]: holes of a sparse file) are skipped,
/// never read. Returns the shards' results in page order (the same on any
/// number of threads). The image release hook
/// ([`Engine::with_image_release`]), if set, gets the shards read as a
/// prefix of whole shards grows, 16 MiB or more at a time; the fold's
/// release hook is not called.
pub(crate) fn transform_pass<S, R, N, P>(
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    new_state: N,
    page: P,
) -> Vec<R>
where
    R: Default + Send,
    N: Fn() -> S + Sync,
    P: Fn(&mut S, &mut R, PageNo, &[u8], &mut [u8]) + Sync,
{
    let data = ts.data();
    let size = (ts.page_size() as usize).max(1);
    let shard_bytes = (shard_pages(ts) as usize).saturating_mul(size).max(size);
    let n_shards = data.len().div_ceil(shard_bytes);
    let threads = engine.threads().min(n_shards).max(1);
    // The next shard.
    let shards = Mutex::new(0usize);
    // Shards finished, and how many from the first are handed to the image
    // release hook: a prefix of whole shards, in batches.
    let finished = Mutex::new(Finished {
        done: vec![
            false;
            if engine.image_release.is_some() || ts.has_window() {
                n_shards
            } else {
                0
            }
        ],
        prefix: 0,
        released: 0,
    });
    let batch = usize::try_from(release_batch(ts, shard_pages(ts))).unwrap_or(1);
    let release = |k: usize| {
        if engine.image_release.is_none() && !ts.has_window() {
            return;
        }
        let range = {
            let mut f = finished.lock().unwrap_or_else(PoisonError::into_inner);
            f.finish(k, batch)
        };
        if let Some((a, b)) = range {
            let from = a.saturating_mul(shard_bytes).min(data.len());
            let to = b.saturating_mul(shard_bytes).min(data.len());
            if to > from {
                match engine.image_release {
                    Some(hook) => hook(from, to.saturating_sub(from)),
                    None => ts.release(from, to.saturating_sub(from)),
                }
            }
        }
    };
    let work = || {
        let mut mine: Vec<(usize, R)> = Vec::new();
        let mut state = new_state();
        // Wiped when dropped: it may hold a decrypted page.
        let mut held = crate::source::PageBuf(Vec::with_capacity(size));
        let buf = &mut held.0;
        loop {
            let next = match shards.lock() {
                Ok(mut k) if *k < n_shards => {
                    *k = k.saturating_add(1);
                    Some(k.saturating_sub(1))
                }
                _ => None,
            };
            let Some(k) = next else {
                break;
            };
            let start = k.saturating_mul(shard_bytes);
            let src = data
                .get(start..start.saturating_add(shard_bytes).min(data.len()))
                .unwrap_or(&[]);
            let first = u32::try_from(start.checked_div(size).unwrap_or(0)).unwrap_or(u32::MAX);
            let mut r = R::default();
            for (i, from) in src.chunks(size).enumerate() {
                let n = PageNo(first.saturating_add(u32::try_from(i).unwrap_or(u32::MAX)));
                if ts.is_known_zero(n) {
                    // Reading `from` would fault in a hole.
                    continue;
                }
                buf.resize(from.len(), 0);
                let Some(to) = buf.get_mut(..from.len()) else {
                    break;
                };
                page(&mut state, &mut r, n, from, to);
            }
            mine.push((k, r));
            release(k);
        }
        mine
    };
    let mut results = on_threads(threads, work);
    results.sort_unstable_by_key(|r| r.0);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Pieces a thread may start past the first one not yet handed to the sink
/// of [`map_in_order`], per thread.
const AHEAD_PIECES_PER_THREAD: u32 = 2;

/// The pieces of [`map_in_order`]: the next one to start, the next one to
/// hand to the sink, those done ahead of it, and whether to stop.
struct Pieces<R> {
    next: u32,
    sunk: u32,
    ready: Vec<(u32, R)>,
    stop: bool,
}

/// Sets `stop` when a helper of [`map_in_order`] unwinds, so the caller
/// does not wait for a piece that will never come (the panic is passed on
/// when the scope joins).
struct StopOnUnwind<'p, R> {
    pieces: &'p Mutex<Pieces<R>>,
    changed: &'p Condvar,
}

impl<R> Drop for StopOnUnwind<'_, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut p = self.pieces.lock().unwrap_or_else(PoisonError::into_inner);
            p.stop = true;
            self.changed.notify_all();
        }
    }
}

/// Runs `work(state, k)` for every piece `k` in `0..n` on up to
/// `engine.threads()` threads (the caller's included; each thread makes
/// one state with `new_state` and reuses it for every piece it takes) and
/// hands each result to `sink` on the calling thread, in piece order: a
/// stream whose pieces are made in parallel and written in order (the
/// rows of `pages`, the records of a leaf chain, each piece a buffer of
/// formatted lines). A thread does not start a piece more than
/// [`AHEAD_PIECES_PER_THREAD`] per thread past the first one not yet
/// sunk, so the results waiting stay bounded whatever `n` is. The first
/// error of `sink` stops the work (pieces under way finish, no new one
/// starts) and is returned. With one thread, or one piece, no thread is
/// started: `sink(work(state, k))` for each `k` in turn.
pub fn map_in_order<S, R, E, M, W, K>(
    engine: &Engine<'_>,
    n: u32,
    new_state: M,
    work: W,
    mut sink: K,
) -> Result<(), E>
where
    R: Send,
    M: Fn() -> S + Sync,
    W: Fn(&mut S, u32) -> R + Sync,
    K: FnMut(R) -> Result<(), E>,
{
    let threads = engine.threads().min(n as usize).max(1);
    if threads == 1 {
        let mut state = new_state();
        for k in 0..n {
            sink(work(&mut state, k))?;
        }
        return Ok(());
    }
    let ahead = u32::try_from(threads)
        .unwrap_or(u32::MAX)
        .saturating_mul(AHEAD_PIECES_PER_THREAD)
        .max(1);
    let pieces = Mutex::new(Pieces {
        next: 0,
        sunk: 0,
        ready: Vec::new(),
        stop: false,
    });
    let changed = Condvar::new();
    let lock = || pieces.lock().unwrap_or_else(PoisonError::into_inner);
    // A piece to start now, if any may start: under the lock.
    let take = |p: &mut Pieces<R>| {
        let room = p.next < n && p.next < p.sunk.saturating_add(ahead) && !p.stop;
        room.then(|| {
            let k = p.next;
            p.next = k.saturating_add(1);
            k
        })
    };
    let helper = || {
        let _guard = StopOnUnwind {
            pieces: &pieces,
            changed: &changed,
        };
        let mut state = new_state();
        loop {
            let k = {
                let mut p = lock();
                loop {
                    if p.stop || p.next >= n {
                        return;
                    }
                    if let Some(k) = take(&mut p) {
                        break k;
                    }
                    p = changed.wait(p).unwrap_or_else(PoisonError::into_inner);
                }
            };
            let r = work(&mut state, k);
            lock().ready.push((k, r));
            changed.notify_all();
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            // A thread the system refuses to start is not there: the
            // others, the caller included, take its pieces.
            let _ = std::thread::Builder::new().spawn_scoped(s, helper);
        }
        let mut state = new_state();
        let mut result = Ok(());
        let mut p = lock();
        loop {
            let sunk = p.sunk;
            if let Some(i) = p.ready.iter().position(|(k, _)| *k == sunk) {
                let (_, r) = p.ready.swap_remove(i);
                p.sunk = sunk.saturating_add(1);
                changed.notify_all();
                drop(p);
                if let Err(e) = sink(r) {
                    result = Err(e);
                    p = lock();
                    p.stop = true;
                    p.ready.clear();
                    changed.notify_all();
                    break;
                }
                p = lock();
                continue;
            }
            if p.sunk >= n || p.stop {
                break;
            }
            if let Some(k) = take(&mut p) {
                drop(p);
                let r = work(&mut state, k);
                p = lock();
                p.ready.push((k, r));
                continue;
            }
            p = changed.wait(p).unwrap_or_else(PoisonError::into_inner);
        }
        drop(p);
        result
    })
}

/// [`map_in_order`] over runs of pages of `ts`: piece `k` is pages
/// `bounds[k]..bounds[k + 1]`, which `work(state, first, end)` reads as a
/// fold reads its shard (the space's window does not count those reads:
/// no read-ahead, no sweep), and which are handed to the engine's release
/// hook (else the host of the space's window) once their piece is sunk,
/// [`RELEASE_BYTES`] or more at a time: a stream over the file's pages
/// (the rows of `pages`) maps and releases each byte once, as a fold does,
/// on the engine's threads and written in page order.
pub fn map_pages_in_order<S, R, E, M, W, K>(
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    bounds: &[u32],
    new_state: M,
    work: W,
    mut sink: K,
) -> Result<(), E>
where
    R: Send,
    M: Fn() -> S + Sync,
    W: Fn(&mut S, u32, u32) -> R + Sync,
    K: FnMut(R) -> Result<(), E>,
{
    let n = u32::try_from(bounds.len().saturating_sub(1)).unwrap_or(u32::MAX);
    let last = bounds.last().copied().unwrap_or(0);
    let at = |k: u32| bounds.get(k as usize).copied().unwrap_or(last);
    let size = ts.page_size() as usize;
    let batch =
        u32::try_from(RELEASE_BYTES.div_ceil(u64::from(ts.page_size()).max(1))).unwrap_or(u32::MAX);
    let mut released = at(0);
    let mut sunk = 0u32;
    let done = map_in_order(
        engine,
        n,
        new_state,
        |state, k| {
            let (first, end) = (at(k), at(k.saturating_add(1)));
            let _folding = crate::window::folding(
                (first as usize).saturating_mul(size),
                (end as usize).saturating_mul(size),
            );
            work(state, first, end)
        },
        |r| {
            sink(r)?;
            sunk = sunk.saturating_add(1);
            let to = at(sunk);
            if to.saturating_sub(released) >= batch {
                engine.release_pages(ts, released, to);
                released = to;
            }
            Ok(())
        },
    );
    engine.release_pages(ts, released, at(sunk));
    done
}

/// The shards of a transform pass finished so far ([`transform_pass`]), the
/// first `prefix` all finished, the first `released` handed to the image
/// release hook.
struct Finished {
    done: Vec<bool>,
    prefix: usize,
    released: usize,
}

impl Finished {
    /// Marks shard `k` finished; the shards to release now (`a..b`), when
    /// the finished prefix has grown by `batch` shards or reached the end.
    fn finish(&mut self, k: usize, batch: usize) -> Option<(usize, usize)> {
        if let Some(d) = self.done.get_mut(k) {
            *d = true;
        }
        while self.done.get(self.prefix) == Some(&true) {
            self.prefix = self.prefix.saturating_add(1);
        }
        let grown = self.prefix.saturating_sub(self.released);
        if grown == 0 || (grown < batch && self.prefix < self.done.len()) {
            return None;
        }
        let range = (self.released, self.prefix);
        self.released = self.prefix;
        Some(range)
    }
}

/// Runs `work` on `threads` threads (the caller's included; fewer if the
/// system refuses to start one) and concatenates what each returns. Each
/// `work` takes its next piece of work from shared state until none is left.
pub(crate) fn on_threads<T: Send, W: Fn() -> Vec<T> + Sync>(threads: usize, work: W) -> Vec<T> {
    if threads <= 1 {
        return work();
    }
    std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, &work).ok())
            .collect();
        let mut all = work();
        for h in helpers {
            match h.join() {
                Ok(theirs) => all.extend(theirs),
                // A worker can only fail by a bug; pass its panic on rather
                // than return a result with pages missing.
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        all
    })
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]
mod tests {
    use super::*;
    use crate::Options;

    /// Records the pages it saw, to check order, coverage and joins.
    #[derive(Default)]
    struct Seen(Vec<u32>, u64);

    impl PageFold for Seen {
        fn page(&mut self, n: PageNo, page: &[u8]) {
            self.0.push(n.0);
            self.1 = self.1.wrapping_add(u64::from(page[100]));
        }
        fn append(&mut self, next: Self) {
            self.0.extend(next.0);
            self.1 = self.1.wrapping_add(next.1);
        }
    }

    fn space(pages: usize) -> Vec<u8> {
        // Pages of 16K that only need to exist: nearly zero-filled, each
        // with its own page number, read at the size given.
        let mut d = vec![0u8; pages * 16384];
        for (i, p) in d.chunks_mut(16384).enumerate() {
            p[100] = (i % 251) as u8;
            // Its own page number: the file reads as InnoDB 16K pages.
            p[4..8].copy_from_slice(&(i as u32).to_be_bytes());
        }
        d
    }

    #[test]
    fn every_page_once_in_order_at_any_thread_count() {
        // 10.5 shards of 128 pages: a short last shard.
        let data = space(128 * 10 + 64);
        for threads in [1, 2, 3, 7, 64] {
            let opts = Options {
                page_size: Some(16384),
            };
            let ts = Tablespace::with_options(&data, opts).unwrap();
            assert_eq!(shard_pages(&ts), 128);
            let seen = fold_pages(&ts, &Engine::new(threads), Seen::default);
            let want: Vec<u32> = (0..ts.n_pages()).collect();
            assert_eq!(seen.0, want, "{threads} threads");
            let sum: u64 = (0..ts.n_pages() as u64).map(|i| i % 251).sum();
            assert_eq!(seen.1, sum);
        }
    }

    #[test]
    fn a_stalled_shard_holds_back_at_most_the_shards_ahead() {
        use std::sync::atomic::AtomicUsize;
        // Accumulators alive at once: made per shard, gone when joined.
        static LIVE: AtomicUsize = AtomicUsize::new(0);
        static MOST: AtomicUsize = AtomicUsize::new(0);
        struct Slow;
        impl Slow {
            fn new() -> Self {
                let live = LIVE.fetch_add(1, Ordering::SeqCst) + 1;
                MOST.fetch_max(live, Ordering::SeqCst);
                Slow
            }
        }
        impl Drop for Slow {
            fn drop(&mut self) {
                LIVE.fetch_sub(1, Ordering::SeqCst);
            }
        }
        impl PageFold for Slow {
            fn page(&mut self, n: PageNo, _: &[u8]) {
                // The first shard stalls while the others race ahead.
                if n.0 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(300));
                }
            }
            fn append(&mut self, _: Self) {}
        }
        // 100 shards of 2 MiB; at most 32 (AHEAD_BYTES) may start past the
        // first shard not joined.
        let data = space(128 * 100);
        let opts = Options {
            page_size: Some(16384),
        };
        let ts = Tablespace::with_options(&data, opts).unwrap();
        assert_eq!(ahead_shards(&ts, shard_pages(&ts)), 32);
        drop(fold_pages(&ts, &Engine::new(3), Slow::new));
        let most = MOST.load(Ordering::SeqCst);
        // The joined accumulator, the stalled shard's, the 31 after it
        // (folded, waiting) and one being made: far below 100.
        assert!((15..=34).contains(&most), "{most} alive at once");
    }

    #[test]
    fn each_shard_is_released_once_after_it_is_folded() {
        use std::sync::Mutex;
        let data = space(128 * 20 + 64);
        for threads in [1, 2, 3] {
            let opts = Options {
                page_size: Some(16384),
            };
            let ts = Tablespace::with_options(&data, opts).unwrap();
            let released = Mutex::new(Vec::new());
            let hook = |offset: usize, len: usize| released.lock().unwrap().push((offset, len));
            let engine = Engine::new(threads).with_release(&hook);
            let seen = fold_pages(&ts, &engine, Seen::default);
            assert_eq!(seen.0.len(), 128 * 20 + 64);
            let mut ranges = released.into_inner().unwrap();
            ranges.sort_unstable();
            // End to end over the whole file (the short last shard
            // included), each call but the last at least 16 MiB: the joined
            // shards in batches.
            let mut at = 0;
            for (k, &(offset, len)) in ranges.iter().enumerate() {
                assert_eq!(offset, at, "{threads} threads: {ranges:?}");
                assert!(k + 1 == ranges.len() || len >= 16 << 20, "{ranges:?}");
                at += len;
            }
            assert_eq!(at, data.len(), "{threads} threads: {ranges:?}");
            if threads == 1 {
                assert_eq!(ranges.len(), 3, "{ranges:?}");
            }
        }
    }

    // A transform pass hands the image release hook every byte of the file
    // once, only after its pages are read, in calls of at least 16 MiB
    // (the last one aside); the fold's release hook is not called.
    #[test]
    fn a_transform_pass_releases_each_shard_once_after_it_is_read() {
        use std::sync::atomic::AtomicBool;
        use std::sync::Mutex;
        let mut data = space(128 * 20 + 64);
        data.extend_from_slice(&[7u8; 100]);
        let n_pages = 128 * 20 + 65;
        for threads in [1, 2, 3] {
            let opts = Options {
                page_size: Some(16384),
            };
            let ts = Tablespace::with_options(&data, opts).unwrap();
            let copied: Vec<AtomicBool> = (0..n_pages).map(|_| AtomicBool::new(false)).collect();
            let released = Mutex::new(Vec::new());
            let hook = |offset: usize, len: usize| {
                let pages = &copied[offset / 16384..(offset + len).div_ceil(16384)];
                assert!(
                    pages.iter().all(|c| c.load(Ordering::SeqCst)),
                    "{offset}+{len} released before it was copied"
                );
                released.lock().unwrap().push((offset, len));
            };
            let fold_called = AtomicBool::new(false);
            let folded = |_: usize, _: usize| fold_called.store(true, Ordering::SeqCst);
            let engine = Engine::new(threads)
                .with_release(&folded)
                .with_image_release(&hook);
            let page = |_: &mut (), _: &mut (), n: PageNo, from: &[u8], to: &mut [u8]| {
                to.copy_from_slice(from);
                copied[n.0 as usize].store(true, Ordering::SeqCst);
            };
            let _: Vec<()> = transform_pass(&ts, &engine, || (), page);
            assert!(copied.iter().all(|c| c.load(Ordering::SeqCst)));
            assert!(!fold_called.load(Ordering::SeqCst), "{threads} threads");
            let mut ranges = released.into_inner().unwrap();
            ranges.sort_unstable();
            let mut at = 0;
            for (k, &(offset, len)) in ranges.iter().enumerate() {
                assert_eq!(offset, at, "{threads} threads: {ranges:?}");
                assert!(k + 1 == ranges.len() || len >= 16 << 20, "{ranges:?}");
                at += len;
            }
            assert_eq!(at, data.len(), "{threads} threads: {ranges:?}");
        }
    }

    #[test]
    fn progress_goes_up_by_joined_shards_and_reaches_the_total() {
        use std::sync::Mutex;
        // 20.5 shards of 128 pages: a short last shard.
        let data = space(128 * 20 + 64);
        let n_pages = 128 * 20 + 64;
        for threads in [1, 2, 3, 7] {
            let opts = Options {
                page_size: Some(16384),
            };
            let ts = Tablespace::with_options(&data, opts).unwrap();
            let calls = Mutex::new(Vec::new());
            let hook = |done: u64, total: u64| calls.lock().unwrap().push((done, total));
            let engine = Engine::new(threads).with_progress(&hook);
            let seen = fold_pages(&ts, &engine, Seen::default);
            assert_eq!(seen.0.len(), n_pages as usize);
            let calls = calls.into_inner().unwrap();
            // In the order made: always up, by whole shards (several at
            // once when a thread joins the shards folded ahead of it), of
            // the space's pages, the last call the whole space.
            if threads == 1 {
                assert_eq!(calls.len(), 21, "{calls:?}");
            }
            assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "{calls:?}");
            for &(done, total) in &calls {
                assert_eq!(total, n_pages);
                assert!(done == total || (done > 0 && done % 128 == 0), "{calls:?}");
            }
            assert_eq!(calls.last(), Some(&(n_pages, n_pages)), "{threads} threads");
        }
    }

    #[test]
    fn the_default_engine_is_one_thread_without_a_hook() {
        assert_eq!(Engine::default().threads(), 1);
        assert_eq!(Engine::new(0).threads(), 1);
        assert_eq!(Engine::new(5).threads(), 5);
        let hook = |_: usize, _: usize| {};
        let hooked = Engine::new(5).with_release(&hook);
        assert_eq!(hooked.threads(), 5);
        assert!(hooked.release.is_some() && Engine::default().release.is_none());
        assert!(Engine::default().progress.is_none());
        // No hook: reporting is a no-op.
        Engine::default().progress(1, 2);
    }

    #[test]
    fn tiny_and_empty_spaces() {
        let data = space(3);
        let opts = Options {
            page_size: Some(16384),
        };
        let ts = Tablespace::with_options(&data, opts).unwrap();
        let seen = fold_pages(&ts, &Engine::new(4), Seen::default);
        assert_eq!(seen.0, vec![0, 1, 2]);
    }

    #[test]
    fn a_transform_pass_reads_in_page_order_without_the_known_zero_pages() {
        // 10.5 shards of 128 pages and a torn tail of 100 bytes; pages
        // 130..140 and 250..260 (across a shard's end) known to be zero
        // (their bytes are not: they must not be read).
        let mut data = space(128 * 10 + 64);
        data.extend_from_slice(&[7u8; 100]);
        let zeros = [130 * 16384..140 * 16384, 250 * 16384..260 * 16384];
        let known_zero = |n: u32| (130..140).contains(&n) || (250..260).contains(&n);
        for threads in [1, 2, 3, 7] {
            let opts = Options {
                page_size: Some(16384),
            };
            let ts = Tablespace::with_options(&data, opts)
                .unwrap()
                .with_zero_ranges(&zeros);
            // Per thread: pages seen by this state, to show it is reused.
            let states = std::sync::atomic::AtomicUsize::new(0);
            let new_state = || {
                states.fetch_add(1, Ordering::Relaxed);
                0usize
            };
            let page =
                |seen: &mut usize, r: &mut Vec<u32>, n: PageNo, from: &[u8], to: &mut [u8]| {
                    assert_eq!(from.len(), to.len());
                    to.copy_from_slice(from);
                    *seen += 1;
                    r.push(n.0);
                };
            let results = transform_pass(&ts, &Engine::new(threads), new_state, page);
            // One result per shard (the tail is in the last one), in page
            // order, each its shard's pages.
            assert_eq!(results.len(), 11, "{threads} threads");
            for (k, r) in results.iter().enumerate() {
                let first = k as u32 * 128;
                let want: Vec<u32> = (first..(first + 128).min(128 * 10 + 65))
                    .filter(|&n| !known_zero(n))
                    .collect();
                assert_eq!(r, &want, "{threads} threads, shard {k}");
            }
            assert!((1..=threads).contains(&states.load(Ordering::Relaxed)));
        }
    }

    /// Counts the runs of zero pages it is given at once, to show a hole
    /// is folded in one step.
    #[derive(Default)]
    struct Runs(Seen, Vec<(u32, u32)>);

    impl PageFold for Runs {
        fn page(&mut self, n: PageNo, page: &[u8]) {
            self.0.page(n, page);
        }
        fn zero_run(&mut self, first: PageNo, count: u32, zero: &[u8]) {
            assert!(zero.iter().all(|&b| b == 0));
            match self.1.last_mut() {
                // A run cut by a shard's end is one run.
                Some(a) if a.0 + a.1 == first.0 => a.1 += count,
                _ => self.1.push((first.0, count)),
            }
        }
        fn append(&mut self, next: Self) {
            self.0.append(next.0);
            match (self.1.last_mut(), next.1.first()) {
                // A run cut by a shard's end is one run.
                (Some(a), Some(b)) if a.0 + a.1 == b.0 => {
                    a.1 += b.1;
                    self.1.extend(next.1.into_iter().skip(1));
                }
                _ => self.1.extend(next.1),
            }
        }
    }

    #[test]
    fn known_zero_runs_are_folded_at_once_and_their_pages_never_read() {
        // 40 shards of 128 pages; holes at 130..140 (inside a shard),
        // 250..2000 (whole shards, coalesced into one), 5100..5120 (the
        // end). Their bytes are not zero: they must not be read.
        let n = 128 * 40;
        let data = space(n);
        let zeros = [
            130 * 16384..140 * 16384,
            250 * 16384..1000 * 16384,
            1000 * 16384..2000 * 16384,
            5100 * 16384..5120 * 16384,
        ];
        let hole = |p: u32| (130..140).contains(&p) || (250..2000).contains(&p) || p >= 5100;
        let opts = Options {
            page_size: Some(16384),
        };
        let ts = Tablespace::with_options(&data, opts)
            .unwrap()
            .with_zero_ranges(&zeros);
        assert_eq!(ts.next_zero_run(0, n as u32), Some((PageNo(130), 10)));
        assert_eq!(ts.next_zero_run(140, n as u32), Some((PageNo(250), 1750)));
        assert_eq!(ts.next_zero_run(300, 400), Some((PageNo(300), 100)));
        assert_eq!(ts.next_zero_run(2000, 5100), None);
        let runs: Vec<(PageNo, u32)> = ts.zero_runs().collect();
        assert_eq!(
            runs,
            [(PageNo(130), 10), (PageNo(250), 1750), (PageNo(5100), 20)]
        );
        let data_pages: Vec<u32> = ts.data_pages().map(|(p, _)| p.0).collect();
        let want: Vec<u32> = (0..n as u32).filter(|&p| !hole(p)).collect();
        assert_eq!(data_pages, want);
        // Whole shards of zeros make one shard: 256..1920 is 13 shards.
        let plan = Plan::new(&ts, 128);
        assert_eq!(plan.len(), 40 - 13 + 1);
        assert_eq!(plan.pages(2, 3), (256, 1920));
        for threads in [1, 2, 3, 7] {
            let engine = Engine::new(threads);
            let got = fold_pages(&ts, &engine, Runs::default);
            assert_eq!(got.0 .0, want, "{threads} threads: data pages");
            assert_eq!(
                got.1,
                [(130, 10), (250, 1750), (5100, 20)],
                "{threads} threads: runs"
            );
            // The default step: every page, the holes as zeros.
            let every = fold_pages(&ts, &engine, Seen::default);
            assert_eq!(every.0, (0..n as u32).collect::<Vec<_>>());
            let sum: u64 = (0..n as u64)
                .filter(|&p| !hole(p as u32))
                .map(|i| i % 251)
                .sum();
            assert_eq!(every.1, sum, "{threads} threads: holes read as zeros");
        }
    }

    #[test]
    fn the_summary_of_a_hole_folded_at_once_is_the_summary_page_by_page() {
        // The same bytes with and without the holes known: pages 3..2000
        // and 2100..2200 all zeros in both.
        let mut data = space(2300);
        for p in (3..2000).chain(2100..2200) {
            data[p * 16384..(p + 1) * 16384].fill(0);
        }
        let zeros = [3 * 16384..2000 * 16384, 2100 * 16384..2200 * 16384];
        let opts = Options {
            page_size: Some(16384),
        };
        let plain = Tablespace::with_options(&data, opts).unwrap();
        let holes = plain.clone().with_zero_ranges(&zeros);
        let want = format!("{:?}", crate::Summary::of(&plain, &Engine::default()));
        // Page 0 is all zeros too.
        assert!(want.contains("empty: 2098"), "empty pages");
        for threads in [1, 2, 3, 7] {
            let got = crate::Summary::of(&holes, &Engine::new(threads));
            assert!(format!("{got:?}") == want, "{threads} threads");
        }
    }

    #[test]
    fn shards_are_at_least_two_mebibytes() {
        let data = space(4);
        let ts = Tablespace::with_options(
            &data,
            Options {
                page_size: Some(16384),
            },
        )
        .unwrap();
        assert_eq!(shard_pages(&ts) as u64 * 16384, 2 << 20);
    }

    /// A stream over runs of pages (`pages`' rows): every piece read on
    /// the engine's threads and sunk in order, its pages read as a fold's
    /// shard (the space's window counts none of them) and every byte of
    /// the runs handed back to the host once, 16 MiB or more at a time.
    #[test]
    fn a_stream_of_pages_reads_and_releases_each_byte_once() {
        #[derive(Default)]
        struct Host(Mutex<Vec<(usize, usize)>>);
        impl crate::window::Residency for Host {
            fn release(&self, offset: usize, len: usize) {
                self.0.lock().unwrap().push((offset, len));
            }
        }
        let data = space(3000);
        let opts = Options {
            page_size: Some(16384),
            ..Options::default()
        };
        for threads in [1, 2, 3] {
            let window = crate::window::Window::new(data.len());
            let host = Host::default();
            let stored = Tablespace::with_options(&data, opts).unwrap();
            let ts = stored.with_window(&window, &host);
            let bounds: Vec<u32> = (5..3000).step_by(128).chain([3000]).collect();
            let mut got = Vec::new();
            map_pages_in_order(
                &ts,
                &Engine::new(threads),
                &bounds,
                || (),
                |_, first, end| {
                    (first..end)
                        .map(|n| ts.page(PageNo(n)).unwrap()[100])
                        .collect::<Vec<u8>>()
                },
                |piece: Vec<u8>| -> Result<(), ()> {
                    got.extend(piece);
                    Ok(())
                },
            )
            .unwrap();
            let want: Vec<u8> = (5..3000).map(|i| (i % 251) as u8).collect();
            assert_eq!(got, want, "{threads} threads");
            assert_eq!(window.peak_chunks(), 0, "{threads} threads");
            let mut r = host.0.lock().unwrap().clone();
            r.sort_unstable();
            let mut at = 5 * 16384;
            for (offset, len) in r {
                assert_eq!(offset, at, "{threads} threads: released twice or never");
                assert!(len >= 16 << 20 || offset + len == data.len());
                at += len;
            }
            assert_eq!(at, data.len(), "{threads} threads");
        }
    }

    #[test]
    fn map_in_order_sinks_every_piece_in_order_on_any_thread_count() {
        for threads in [1, 2, 3, 7] {
            let engine = Engine::new(threads);
            let mut got = Vec::new();
            let r: Result<(), ()> = map_in_order(
                &engine,
                1000,
                || 0u32,
                |made, k| {
                    // Uneven work, so pieces finish out of order.
                    *made += 1;
                    let mut x = u64::from(k);
                    for _ in 0..(k % 7) * 1000 {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    }
                    (k, x)
                },
                |(k, _)| {
                    got.push(k);
                    Ok(())
                },
            );
            assert_eq!(r, Ok(()));
            assert_eq!(got, (0..1000).collect::<Vec<u32>>(), "{threads} threads");
        }
    }

    #[test]
    fn map_in_order_stops_at_the_sinks_first_error() {
        for threads in [1, 2, 3] {
            let engine = Engine::new(threads);
            let made = std::sync::atomic::AtomicU32::new(0);
            let mut sunk = 0;
            let r = map_in_order(
                &engine,
                100_000,
                || (),
                |_, k| {
                    made.fetch_add(1, Ordering::Relaxed);
                    k
                },
                |k| {
                    sunk += 1;
                    if k == 10 {
                        Err(k)
                    } else {
                        Ok(())
                    }
                },
            );
            assert_eq!(r, Err(10));
            assert_eq!(sunk, 11);
            // Bounded: no more than the pieces allowed ahead were made.
            assert!(made.load(Ordering::Relaxed) < 100, "{threads} threads");
        }
    }
}
