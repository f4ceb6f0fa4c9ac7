//! The page source: where the pages a pass reads come from when they are
//! not the stored bytes. A MariaDB page_compressed space is read
//! decompressed, a MariaDB encrypted space decrypted (then decompressed):
//! each page is transformed as it is read, into a buffer, and no
//! whole-file image is made.
//!
//! | reader | how a transformed page reaches it | memory |
//! |---|---|---|
//! | a fold on the scan engine ([`crate::parallel`]) | transformed into the thread's page buffer as the fold reaches it | one page per thread |
//! | a walk out of file order ([`crate::Tablespace::page_ref`]: the B-tree walks) | a [`PageRef`] from a bounded cache shared by the space's readers (`CACHE_BYTES`), transformed again when evicted | the cache, and the pages the caller holds |
//! | [`crate::Tablespace::page`] (a borrow for the space's lifetime) | transformed once and kept until the source is dropped | the pages read that way: the structure pages (page 0, XDES, INODE, roots, fragment pages); a walk over every page reads them with `page_ref` |
//!
//! A page the transform leaves as stored (an XDES page, a page that is not
//! compressed or encrypted, a page that does not decompress or decrypt:
//! its failure is named by the pass that checks every page) is the stored
//! slice, never copied. What a page reads as is one function of its stored
//! bytes ([`Transform::apply`]), the same one the checking pass uses, so
//! every reader sees the same page whichever way it came.

use crate::ids::PageNo;
use ibdscope_prims::wipe::wipe;
use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// How stored pages are read: a page's bytes as the server holds them in
/// its buffer pool.
pub(crate) trait Transform: Send + Sync {
    /// Whether page `n`, stored as `stored`, may read otherwise (a cheap
    /// test of its header); `false`: it reads as stored.
    fn may_change(&self, n: PageNo, stored: &[u8]) -> bool;

    /// Page `n`, stored as `stored`, as it reads, into `out` (as long as
    /// `stored`), with `scratch` the calling thread's buffers. Writes every
    /// byte of `out` (its callers reuse buffers without clearing them).
    fn apply(&self, n: PageNo, stored: &[u8], out: &mut [u8], scratch: &mut Scratch);
}

/// A thread's buffers for [`Transform::apply`]: a page-sized buffer and
/// the decoders' tables. Wiped when dropped (it may hold decrypted bytes).
pub(crate) struct Scratch {
    /// A page-sized work buffer (a decompressed page), reused from page
    /// to page without being zero-filled again.
    pub(crate) buf: ibdscope_codec::PageOut,
    /// The decoders' tables.
    pub(crate) codec: ibdscope_codec::Scratch,
}

impl Scratch {
    pub(crate) fn new() -> Self {
        Scratch {
            buf: ibdscope_codec::PageOut::new(),
            codec: ibdscope_codec::Scratch::new(),
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        wipe(self.buf.allocation());
    }
}

/// A page buffer wiped when dropped.
pub(crate) struct PageBuf(pub(crate) Vec<u8>);

impl Drop for PageBuf {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

/// What one thread of a fold reads pages with: its transform buffers and
/// the page buffer a transformed page is handed to the fold in.
pub(crate) struct Reader {
    scratch: Scratch,
    page: PageBuf,
}

impl Reader {
    pub(crate) fn new(page_size: usize) -> Self {
        Reader {
            scratch: Scratch::new(),
            page: PageBuf(Vec::with_capacity(page_size)),
        }
    }

    /// Page `n` as `source` reads it: `stored` itself, or its transform in
    /// this reader's buffer.
    pub(crate) fn read<'r>(
        &'r mut self,
        source: &PageSource,
        n: PageNo,
        stored: &'r [u8],
    ) -> &'r [u8] {
        if !source.transform.may_change(n, stored) {
            return stored;
        }
        let out = &mut self.page.0;
        // Every transform writes the whole page (the stored bytes copied
        // where it changes none): the buffer is not zero-filled first.
        if out.len() != stored.len() {
            out.resize(stored.len(), 0);
        }
        source.transform.apply(n, stored, out, &mut self.scratch);
        out
    }
}

/// Pages per chunk of the kept pages' table.
const CHUNK: usize = 1024;

/// Bytes of transformed pages the shared cache keeps ([`PageSource`]).
const CACHE_BYTES: usize = 8 << 20;

/// A space's page source: its transform, the pages kept for
/// [`crate::Tablespace::page`], and the bounded cache of
/// [`crate::Tablespace::page_ref`].
pub(crate) struct PageSource {
    transform: Box<dyn Transform>,
    page_size: usize,
    /// Pages transformed for a borrow as long as the source's: a table of
    /// chunks of [`CHUNK`] slots, a chunk made when one of its pages is
    /// first kept (so the table costs memory with the pages kept, not
    /// with the file).
    kept: Vec<OnceLock<Box<[OnceLock<PageBuf>]>>>,
    cache: Mutex<Cache>,
    /// The index root candidates the transform pass took, `(level, page)`
    /// ([`crate::Tablespace::root_candidates`]).
    roots: Option<Vec<(u16, PageNo)>>,
    /// What its transform pass kept of every page
    /// ([`crate::Tablespace::pass_facts`]).
    /// Held as `Any` so that this module does not import the facts' (they
    /// sit above the space); `Tablespace::pass_facts` reads them back.
    facts: Option<Box<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for PageSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageSource")
            .field("page_size", &self.page_size)
            .field("kept", &self.kept_pages())
            .finish_non_exhaustive()
    }
}

impl PageSource {
    /// The source of a space of `n_pages` pages of `page_size` bytes read
    /// through `transform`.
    pub(crate) fn new(transform: Box<dyn Transform>, page_size: u32, n_pages: u32) -> Self {
        let page_size = (page_size as usize).max(1);
        let chunks = (n_pages as usize).div_ceil(CHUNK);
        PageSource {
            transform,
            page_size,
            kept: (0..chunks).map(|_| OnceLock::new()).collect(),
            cache: Mutex::new(Cache::new(
                (CACHE_BYTES.checked_div(page_size).unwrap_or(1)).max(16),
            )),
            roots: None,
            facts: None,
        }
    }

    /// The same source, with the root candidates its transform pass took.
    pub(crate) fn with_roots(mut self, roots: Vec<(u16, PageNo)>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// The same source, with the facts its transform pass kept.
    pub(crate) fn with_facts(
        mut self,
        facts: Option<Box<dyn std::any::Any + Send + Sync>>,
    ) -> Self {
        self.facts = facts;
        self
    }

    /// The facts its transform pass kept, when it did.
    pub(crate) fn facts(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.facts.as_deref()
    }

    /// The root candidates its transform pass took, when it did.
    pub(crate) fn roots(&self) -> Option<&[(u16, PageNo)]> {
        self.roots.as_deref()
    }

    /// Page `n` as it reads, for a borrow as long as the source's: kept
    /// once transformed.
    pub(crate) fn kept<'s>(&'s self, n: PageNo, stored: &'s [u8]) -> &'s [u8] {
        if !self.transform.may_change(n, stored) {
            return stored;
        }
        let i = n.0 as usize;
        let (c, k) = (i.checked_div(CHUNK), i.checked_rem(CHUNK));
        let Some(chunk) = c.and_then(|c| self.kept.get(c)) else {
            return stored;
        };
        let chunk = chunk.get_or_init(|| (0..CHUNK).map(|_| OnceLock::new()).collect());
        let Some(slot) = k.and_then(|k| chunk.get(k)) else {
            return stored;
        };
        &slot
            .get_or_init(|| {
                let mut out = vec![0u8; stored.len()];
                let mut scratch = Scratch::new();
                self.transform.apply(n, stored, &mut out, &mut scratch);
                PageBuf(out)
            })
            .0
    }

    /// Page `n` as it reads, held by the caller: from the cache, or
    /// transformed into it.
    pub(crate) fn shared<'a>(&self, n: PageNo, stored: &'a [u8]) -> PageRef<'a> {
        if !self.transform.may_change(n, stored) {
            return PageRef(Held::Stored(stored));
        }
        let mut guard = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let cache = &mut *guard;
        if let Some(p) = cache.get(n.0) {
            return PageRef(Held::Shared(p));
        }
        let mut buf = cache.free.take().unwrap_or_default();
        // `apply` writes the whole page: no zero-fill first.
        if buf.len() != stored.len() {
            buf.resize(stored.len(), 0);
        }
        self.transform
            .apply(n, stored, &mut buf, &mut cache.scratch);
        PageRef(Held::Shared(cache.put(n.0, buf)))
    }

    /// Pages kept for borrows so far (a test's measure).
    pub(crate) fn kept_pages(&self) -> usize {
        self.kept
            .iter()
            .filter_map(OnceLock::get)
            .map(|c| c.iter().filter(|s| s.get().is_some()).count())
            .sum()
    }
}

/// The shared cache: at most `cap` transformed pages, evicted by the
/// clock (second chance) rule; one set of transform buffers, used under
/// the cache's lock.
struct Cache {
    cap: usize,
    slots: Vec<Slot>,
    at: HashMap<u32, usize>,
    hand: usize,
    free: Option<Vec<u8>>,
    scratch: Scratch,
}

struct Slot {
    page: u32,
    data: Arc<PageBuf>,
    used: bool,
}

impl Cache {
    fn new(cap: usize) -> Self {
        Cache {
            cap: cap.max(1),
            slots: Vec::new(),
            at: HashMap::new(),
            hand: 0,
            free: None,
            scratch: Scratch::new(),
        }
    }

    fn get(&mut self, n: u32) -> Option<Arc<PageBuf>> {
        let i = *self.at.get(&n)?;
        let slot = self.slots.get_mut(i)?;
        slot.used = true;
        Some(Arc::clone(&slot.data))
    }

    /// Caches `buf` as page `n`, evicting a page when full.
    fn put(&mut self, n: u32, buf: Vec<u8>) -> Arc<PageBuf> {
        let data = Arc::new(PageBuf(buf));
        let slot = Slot {
            page: n,
            data: Arc::clone(&data),
            used: true,
        };
        if self.slots.len() < self.cap {
            self.at.insert(n, self.slots.len());
            self.slots.push(slot);
            return data;
        }
        // The clock: the first slot not used since the hand last passed.
        let len = self.slots.len();
        for _ in 0..len.saturating_mul(2) {
            let i = self.hand.checked_rem(len).unwrap_or(0);
            self.hand = i.saturating_add(1).checked_rem(len).unwrap_or(0);
            let Some(s) = self.slots.get_mut(i) else {
                break;
            };
            if s.used {
                s.used = false;
                continue;
            }
            let old = std::mem::replace(s, slot);
            self.at.remove(&old.page);
            self.at.insert(n, i);
            if let Ok(mut b) = Arc::try_unwrap(old.data) {
                self.free = Some(std::mem::take(&mut b.0));
            }
            return data;
        }
        data
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        if let Some(b) = self.free.as_mut() {
            wipe(b);
        }
    }
}

/// A page as a reader holds it ([`crate::Tablespace::page_ref`]): the
/// stored bytes, borrowed, or a transformed page shared with the cache.
/// Dereferences to the page's bytes.
pub struct PageRef<'a>(Held<'a>);

enum Held<'a> {
    Stored(&'a [u8]),
    Shared(Arc<PageBuf>),
}

impl<'a> PageRef<'a> {
    /// The stored page `page`, borrowed.
    pub(crate) fn stored(page: &'a [u8]) -> Self {
        PageRef(Held::Stored(page))
    }
}

impl Deref for PageRef<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Held::Stored(p) => p,
            Held::Shared(b) => &b.0,
        }
    }
}

impl std::fmt::Debug for PageRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageRef").field("len", &self.len()).finish()
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::panic
)]
pub(crate) mod tests {
    use super::*;
    use crate::parallel::{fold_pages, Engine, PageFold};
    use crate::space::Tablespace;

    /// Every page of `ts` as a fold on `threads` threads reads it, and the
    /// torn tail, in one buffer.
    pub(crate) fn folded_image(ts: &Tablespace<'_>, threads: usize) -> Vec<u8> {
        struct Collect(Vec<u8>);
        impl PageFold for Collect {
            fn page(&mut self, _: PageNo, page: &[u8]) {
                self.0.extend_from_slice(page);
            }
            fn append(&mut self, mut next: Self) {
                self.0.append(&mut next.0);
            }
        }
        let mut image = fold_pages(ts, &Engine::new(threads), || Collect(Vec::new())).0;
        image.extend_from_slice(&ts.data()[image.len()..]);
        image
    }

    /// A transform that flips every byte of the pages whose first byte is
    /// odd, and counts its calls.
    struct Flip(Arc<std::sync::atomic::AtomicUsize>);

    impl Transform for Flip {
        fn may_change(&self, _: PageNo, stored: &[u8]) -> bool {
            stored.first().is_some_and(|b| b % 2 == 1)
        }
        fn apply(&self, _: PageNo, stored: &[u8], out: &mut [u8], _: &mut Scratch) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            for (o, s) in out.iter_mut().zip(stored) {
                *o = !s;
            }
        }
    }

    fn space(pages: usize) -> Vec<u8> {
        let mut data = vec![0u8; pages * 4096];
        for n in 1..pages {
            data[n * 4096] = (n % 256) as u8;
        }
        data
    }

    type Calls = Arc<std::sync::atomic::AtomicUsize>;

    fn source(ts: &Tablespace<'_>) -> (PageSource, Calls) {
        let calls = Calls::default();
        let flip = Flip(Arc::clone(&calls));
        let s = PageSource::new(Box::new(flip), ts.page_size(), ts.n_pages());
        (s, calls)
    }

    fn calls(c: &Calls) -> usize {
        c.load(std::sync::atomic::Ordering::Relaxed)
    }

    #[test]
    fn every_reader_sees_the_same_pages() {
        let data = space(600);
        let opts = crate::Options::default().with_page_size(Some(4096));
        let ts = Tablespace::with_options(&data, opts).unwrap();
        let (src, _) = source(&ts);
        let logical = ts.with_source(&src);
        let want: Vec<u8> = (0..600)
            .flat_map(|n| {
                let p = &data[n * 4096..][..4096];
                let odd = p[0] % 2 == 1;
                p.iter().map(move |b| if odd { !b } else { *b })
            })
            .collect();
        for threads in [1, 2, 3] {
            assert!(folded_image(&logical, threads) == want, "{threads}");
        }
        for n in 0..600u32 {
            let held = logical.page_ref(PageNo(n)).unwrap();
            assert!(held[..] == want[n as usize * 4096..][..4096], "{n}");
        }
        // Folds and held pages keep nothing for the space's lifetime.
        assert_eq!(src.kept_pages(), 0);
        for n in 0..600u32 {
            assert!(logical.page(PageNo(n)).unwrap() == &want[n as usize * 4096..][..4096]);
        }
        // Borrows keep the transformed pages only (the even ones are the
        // stored slices).
        assert_eq!(src.kept_pages(), 300);
    }

    #[test]
    fn the_cache_is_bounded_and_a_held_page_outlives_its_eviction() {
        let data = space(8000);
        let opts = crate::Options::default().with_page_size(Some(4096));
        let ts = Tablespace::with_options(&data, opts).unwrap();
        let (src, n_calls) = source(&ts);
        let logical = ts.with_source(&src);
        let cap = CACHE_BYTES / 4096;
        let first = logical.page_ref(PageNo(1)).unwrap();
        for n in (3..8000u32).step_by(2) {
            let p = logical.page_ref(PageNo(n)).unwrap();
            assert_eq!(p[0], !((n % 256) as u8));
        }
        let cache = src.cache.lock().unwrap();
        assert!(cache.slots.len() <= cap, "{} > {cap}", cache.slots.len());
        assert_eq!(cache.at.len(), cache.slots.len());
        drop(cache);
        // Page 1 was evicted long ago; the reader still holds it whole.
        assert_eq!(first[0], !1u8);
        assert!(first[1..].iter().all(|&b| b == 0xff));
        // Read again in a row, a page is transformed once.
        let before = calls(&n_calls);
        for _ in 0..10 {
            let _ = logical.page_ref(PageNo(7999)).unwrap();
        }
        assert_eq!(calls(&n_calls), before);
    }
}
