//! The window of a mapped space's bytes that its readers hold: a host that
//! maps the file hands a [`Window`] and itself (a [`Residency`]) to the
//! space ([`crate::Tablespace::with_window`]), and every page read outside
//! a fold's own shard (the B-tree walks, the leaf chains of `records` and
//! `rows`, the maps' pages, `pages`, a fold's look at another page) marks
//! the 1 MiB chunk it lies in. When [`SWEEP_CHUNKS`] chunks have been
//! read since the last sweep, the next new one sweeps (a file of at most
//! [`UNSWEPT_BYTES`] is its own bound and is never swept): the whole file is
//! handed to [`Residency::release`] in one call (a mapped file drops its
//! mappings; the page cache keeps the data, and a later read maps it
//! again; one call, where a release per chunk would interrupt the other
//! cores once per chunk) and the count starts again: a walk over any file
//! holds at most that many chunks mapped, whatever the file's size. The
//! second read of a chunk asks the host to read the whole chunk in at once
//! ([`Residency::read_ahead`]: one large request for a cold file, where a
//! walk that follows a chain would fault its pages in one at a time); a
//! command that reads one page of a chunk (`page N`, `schema`'s roots)
//! leaves that page to its own fault, not a MiB read in for it.
//!
//! The pages a fold reads in its own shard are the engine's
//! ([`crate::parallel`]): they are released by the engine's release hook
//! as its shards are joined, and the window does not count them. What a
//! page reads as never depends on the window: it only tells the host
//! which bytes were read.
//!
//! State: one bit per chunk for the chunks read since the last sweep, one
//! for the chunks read once and not yet read ahead, and one for the chunks
//! read ahead: 3 bits per MiB of file (384 bytes for a 1 GiB file),
//! whatever is read.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// What a host that maps a space's file does with byte ranges of it.
pub trait Residency: Sync {
    /// Bytes `offset..offset + len` will not be read again soon: a mapped
    /// host may drop their mappings. They must stay readable.
    fn release(&self, offset: usize, len: usize);
    /// Bytes `offset..offset + len` will be read soon: a mapped host may
    /// read them in and map them at once (one large request for a cold
    /// file, one call instead of a fault per page for a warm one).
    fn read_ahead(&self, _offset: usize, _len: usize) {}
}

/// Bytes per chunk of the window: an extent of 16 KiB pages (64 pages), a
/// whole number of pages of every page size.
pub(crate) const CHUNK_BYTES: usize = 1 << 20;

/// Chunks the readers may hold mapped: when this many have been read
/// since the last sweep, the next new chunk sweeps the file's mappings
/// (more than the 32 stretches the B-tree walk follows at once, each in
/// its own chunk, so that it does not sweep its own lanes away).
pub(crate) const SWEEP_CHUNKS: usize = 48;

/// A file of at most this many bytes is never swept: mapping it whole
/// holds no more than this, and a walk that wanders over it (a random
/// key's leaf chain) would otherwise drop and re-fault the same chunks
/// once every [`SWEEP_CHUNKS`] (80 sweeps for one `fill` of a 96 MiB
/// file, where the file itself is the bound).
///
/// A host may use the same bound for the shards the folds hand it (the
/// binary keeps such a file mapped whole).
pub const UNSWEPT_BYTES: usize = 128 << 20;

thread_local! {
    /// The byte range of the shard the calling thread is folding (the
    /// engine releases it): reads in it are not the window's.
    static FOLDING: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// Marks `start..end` as the shard the calling thread folds until the
/// returned guard is dropped.
pub(crate) fn folding(start: usize, end: usize) -> Folding {
    let before = FOLDING.with(|f| f.replace((start, end)));
    Folding(before)
}

/// Restores the thread's folded range when dropped ([`folding`]).
pub(crate) struct Folding((usize, usize));

impl Drop for Folding {
    fn drop(&mut self) {
        FOLDING.with(|f| f.set(self.0));
    }
}

fn in_fold(at: usize) -> bool {
    FOLDING.with(|f| {
        let (a, b) = f.get();
        at >= a && at < b
    })
}

/// Which chunks of a mapped space its readers hold ([`crate::window`]).
pub struct Window {
    len: usize,
    /// Chunks read since the last sweep that make the next new one sweep
    /// ([`SWEEP_CHUNKS`]; never, for a file of at most [`UNSWEPT_BYTES`]).
    limit: usize,
    /// Chunks read since the last sweep.
    current: Vec<AtomicU64>,
    /// Chunks read once, to be read ahead on their next read.
    pending: Vec<AtomicU64>,
    turn: Mutex<Turn>,
    /// The most chunks held at once (a test's measure).
    peak: AtomicUsize,
}

/// The chunks read ahead, and how many chunks were read since the last
/// sweep.
struct Turn {
    ahead: Vec<u64>,
    held: usize,
}

impl std::fmt::Debug for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Window")
            .field("len", &self.len)
            .field("peak_chunks", &self.peak.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Window {
    /// The window of a space of `len` bytes.
    pub fn new(len: usize) -> Self {
        let words = len.div_ceil(CHUNK_BYTES).div_ceil(64);
        Window {
            len,
            limit: if len <= UNSWEPT_BYTES {
                usize::MAX
            } else {
                SWEEP_CHUNKS
            },
            current: (0..words).map(|_| AtomicU64::new(0)).collect(),
            pending: (0..words).map(|_| AtomicU64::new(0)).collect(),
            turn: Mutex::new(Turn {
                ahead: vec![0; words],
                held: 0,
            }),
            peak: AtomicUsize::new(0),
        }
    }

    /// The most chunks of [`CHUNK_BYTES`] the readers held mapped at once
    /// (read since the last sweep).
    #[cfg(test)]
    pub(crate) fn peak_chunks(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Byte `at` has been read (`host` maps it).
    pub(crate) fn touch(&self, host: &dyn Residency, at: usize) {
        if at >= self.len || in_fold(at) {
            return;
        }
        let chunk = at / CHUNK_BYTES;
        let (w, bit) = (chunk / 64, 1u64 << (chunk % 64));
        let Some(word) = self.current.get(w) else {
            return;
        };
        // A chunk read once before is read ahead on this read (once).
        let second = |pending: &AtomicU64| {
            pending.load(Ordering::Relaxed) & bit != 0
                && pending.fetch_and(!bit, Ordering::Relaxed) & bit != 0
        };
        let pending = self.pending.get(w);
        if word.load(Ordering::Relaxed) & bit != 0 {
            if pending.is_some_and(second) {
                self.read_ahead(host, chunk);
            }
            return;
        }
        let (sweep, ahead) = {
            let mut guard = self.turn.lock().unwrap_or_else(PoisonError::into_inner);
            let t = &mut *guard;
            let sweep = t.held >= self.limit;
            if sweep {
                // The chunks read since the sweep are counted afresh.
                for c in &self.current {
                    c.store(0, Ordering::Relaxed);
                }
                t.held = 0;
            }
            if word.fetch_or(bit, Ordering::Relaxed) & bit != 0 && !sweep {
                return;
            }
            t.held = t.held.saturating_add(1);
            self.peak.fetch_max(t.held, Ordering::Relaxed);
            // First read of a chunk never read ahead: it waits for a second.
            if t.ahead.get_mut(w).is_some_and(|a| {
                let first = *a & bit == 0;
                *a |= bit;
                first
            }) {
                if let Some(p) = pending {
                    p.fetch_or(bit, Ordering::Relaxed);
                }
                (sweep, false)
            } else {
                (sweep, pending.is_some_and(second))
            }
        };
        if sweep {
            // The whole file's mappings dropped in one call (one interrupt
            // of the other cores, however scattered the chunks).
            host.release(0, self.len);
        }
        if ahead {
            self.read_ahead(host, chunk);
        }
    }

    /// Asks `host` to read chunk `chunk` in at once.
    fn read_ahead(&self, host: &dyn Residency, chunk: usize) {
        let from = chunk.saturating_mul(CHUNK_BYTES);
        let to = from.saturating_add(CHUNK_BYTES).min(self.len);
        host.read_ahead(from, to.saturating_sub(from));
    }
}

/// A space's window and its host ([`crate::Tablespace::with_window`]).
#[derive(Clone, Copy)]
pub(crate) struct Watch<'a> {
    pub(crate) window: &'a Window,
    pub(crate) host: &'a dyn Residency,
}

impl std::fmt::Debug for Watch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.window.fmt(f)
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::panic
)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A host that models a mapping: a chunk is mapped when read, unmapped
    /// when released; it counts the chunks read ahead.
    #[derive(Default)]
    struct Mapping {
        mapped: Mutex<BTreeSet<usize>>,
        peak: AtomicUsize,
        ahead: Mutex<Vec<usize>>,
    }

    impl Mapping {
        fn read(&self, window: &Window, at: usize) {
            let n = {
                let mut m = self.mapped.lock().unwrap();
                m.insert(at / CHUNK_BYTES);
                m.len()
            };
            self.peak.fetch_max(n, Ordering::Relaxed);
            window.touch(self, at);
        }
    }

    impl Residency for Mapping {
        fn release(&self, offset: usize, len: usize) {
            let mut m = self.mapped.lock().unwrap();
            for c in offset / CHUNK_BYTES..(offset + len).div_ceil(CHUNK_BYTES) {
                m.remove(&c);
            }
        }
        fn read_ahead(&self, offset: usize, len: usize) {
            assert_eq!((offset % CHUNK_BYTES, len), (0, CHUNK_BYTES));
            self.ahead.lock().unwrap().push(offset / CHUNK_BYTES);
        }
    }

    /// A walk that visits every 16 KiB page of a file once, in a scattered
    /// order (a random-key table's leaf chain), on files of 256 MiB and
    /// 4 GiB: the chunks it holds mapped stay under the sweep's bound
    /// whatever the size, and each chunk is read ahead once (on its second
    /// read).
    #[test]
    fn a_scattered_walk_holds_the_same_few_chunks_on_any_file_size() {
        for mib in [256usize, 4096] {
            let len = mib << 20;
            let window = Window::new(len);
            let host = Mapping::default();
            let pages = len / 16384;
            // A full-period walk of 0..pages (pages is a power of two).
            let mut p = 0usize;
            for _ in 0..pages {
                p = (p * 5 + 3) % pages;
                host.read(&window, p * 16384);
            }
            let peak = host.peak.load(Ordering::Relaxed);
            assert!(peak <= SWEEP_CHUNKS + 1, "{mib} MiB: {peak} chunks mapped");
            assert!(window.peak_chunks() <= SWEEP_CHUNKS, "{mib} MiB");
            let mut ahead = host.ahead.lock().unwrap().clone();
            let n = ahead.len();
            ahead.sort_unstable();
            ahead.dedup();
            assert_eq!(
                (n, ahead.len()),
                (len / CHUNK_BYTES, len / CHUNK_BYTES),
                "{mib} MiB"
            );
        }
    }

    /// A file of at most [`UNSWEPT_BYTES`] is never swept: a walk that
    /// wanders over all of it holds it whole (its own bound) instead of
    /// dropping and re-faulting the same chunks, and each chunk is still
    /// read ahead once.
    #[test]
    fn a_small_file_is_never_swept() {
        let len = UNSWEPT_BYTES;
        let window = Window::new(len);
        let host = Mapping::default();
        let pages = len / 16384;
        let mut p = 0usize;
        for _ in 0..2 * pages {
            p = (p * 5 + 3) % pages;
            host.read(&window, p * 16384);
        }
        assert_eq!(window.peak_chunks(), len / CHUNK_BYTES);
        assert_eq!(host.peak.load(Ordering::Relaxed), len / CHUNK_BYTES);
        assert_eq!(host.ahead.lock().unwrap().len(), len / CHUNK_BYTES);
        // One byte more and the same walk sweeps.
        let window = Window::new(len + 1);
        let host = Mapping::default();
        for _ in 0..2 * pages {
            p = (p * 5 + 3) % pages;
            host.read(&window, p * 16384);
        }
        assert!(window.peak_chunks() <= SWEEP_CHUNKS);
    }

    /// A chunk read once (one page of it: `page N`, a root) is not read
    /// in whole; its second read reads it ahead, once.
    #[test]
    fn a_chunk_is_read_ahead_on_its_second_read() {
        let window = Window::new(64 << 20);
        let host = Mapping::default();
        for c in [3usize, 9, 40] {
            host.read(&window, c * CHUNK_BYTES + 16384);
        }
        assert!(host.ahead.lock().unwrap().is_empty());
        for c in [9usize, 9, 9] {
            host.read(&window, c * CHUNK_BYTES);
        }
        assert_eq!(*host.ahead.lock().unwrap(), vec![9]);
    }

    /// Reads in the shard the thread folds are the engine's: not counted,
    /// never released by the window.
    #[test]
    fn a_folds_own_shard_is_not_the_windows() {
        let window = Window::new(256 << 20);
        let host = Mapping::default();
        {
            let _f = folding(0, 128 << 20);
            for at in (0..128usize << 20).step_by(16384) {
                window.touch(&host, at);
            }
        }
        assert_eq!(window.peak_chunks(), 0);
        assert!(host.ahead.lock().unwrap().is_empty());
        // Outside the fold, the same reads are the window's.
        for at in (0..128usize << 20).step_by(16384) {
            host.read(&window, at);
        }
        assert!(window.peak_chunks() > 0);
        assert!(host.peak.load(Ordering::Relaxed) <= SWEEP_CHUNKS + 1);
    }
}
