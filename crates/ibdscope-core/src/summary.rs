//! The one-pass summary: every per-page fact that `info`, `types` and
//! `check` need, gathered in a single scan with no allocation per page
//! (only per distinct type, per type region and per bad page), on the
//! parallel engine ([`crate::parallel`]): one [`SummaryFold`] per shard,
//! joined in page order.

use crate::checksum::{lsn_pair, Algorithm, Scheme, Unverifiable, Verdict};
use crate::error::ErrorKind;
use crate::fil::FilHeader;
use crate::finding::{Finding, FindingKind};
use crate::flst::page_readable;
use crate::ids::{Lsn, PageNo, SpaceId};
use crate::page_type::{PageType, TypeNames};
use crate::pagecomp::{self, Decoding, Expansion, PageCompErrorKind};
use crate::parallel::{fold_pages, Engine, PageFold};
use crate::space::{
    page_facts, page_facts_with, verify_page, DetectedBy, Evidence, PageFacts, PageProblem,
    Tablespace,
};
use crate::stale::{stale_by_links, stale_descriptor, Links, StalePage};
use crate::verdict::{self, PageJudgement, ZeroRule};

pub use crate::listing::Listed;
use crate::listing::Listing;

/// A run of consecutive pages of one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Region {
    /// First page of the run.
    pub first: PageNo,
    /// Last page of the run.
    pub last: PageNo,
    /// Their type.
    pub page_type: PageType,
}

/// A page that failed a check.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BadPage {
    /// The page's facts.
    pub facts: PageFacts,
    /// Findings, one per problem.
    pub findings: Vec<Finding>,
    /// Whether XDES marks it free (`None`: could not tell).
    pub freed: Option<bool>,
    /// Its verdict ([`crate::verdict::judge`]), made once the newest LSN
    /// of the pages that verify is known.
    pub judgement: PageJudgement,
}

/// The LSNs of the pages that verify (checksum and LSN copies; a page of
/// another space or place included), the doublewrite buffer's slots aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LsnSpan {
    /// The lowest non-zero FIL_PAGE_LSN.
    pub oldest: Lsn,
    /// The highest.
    pub newest: Lsn,
    /// The first page that carries it.
    pub newest_page: PageNo,
}

/// The pages of [`LsnSpan`] newer than an LSN ([`SummaryAsks::newer_than`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct NewerThan {
    /// The LSN.
    pub mark: Lsn,
    /// How many pages.
    pub pages: u32,
    /// Where: runs of consecutive pages, first and last.
    pub runs: Vec<(PageNo, PageNo)>,
    /// The newest LSN among them.
    pub newest: Option<Lsn>,
}

/// What a pass asks of the summary beyond what every command reads (the
/// audit of a copy): the sibling links and the extent descriptor rule's
/// hits kept after the stale rule read them, the pages newer than given
/// LSNs, and a decrypted image the content is read from.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct SummaryAsks<'t> {
    keep_links: bool,
    newer_than: [Option<Lsn>; 2],
    content: Option<(&'t Tablespace<'t>, &'t [PageNo])>,
    listing: Option<(u32, u32)>,
}

impl<'t> SummaryAsks<'t> {
    /// Keep the B-tree pages' sibling links ([`Summary::links`]) and the
    /// extent descriptor rule's hits ([`Summary::descriptor_hits`]).
    pub fn keeping_links(mut self) -> Self {
        self.keep_links = true;
        self
    }
    /// Count the pages newer than each LSN given ([`Summary::newer_than`]).
    pub fn newer_than(mut self, marks: [Option<Lsn>; 2]) -> Self {
        self.newer_than = marks;
        self
    }
    /// Read the pages' content (type, sibling links, whether readable)
    /// from `plain`, the decrypted image of the space (the same page size
    /// and number of pages); a page whose stored bytes carry no checksum
    /// the server checks is judged by its image, and a page in
    /// `not_decrypted` (sorted) that verifies as stored is a checksum
    /// mismatch, as the server refuses it.
    pub fn content(mut self, plain: &'t Tablespace<'t>, not_decrypted: &'t [PageNo]) -> Self {
        self.content = Some((plain, not_decrypted));
        self
    }
    /// Keep what `pages` lists of each page from `from` to before `end`
    /// ([`Summary::listed`]: 32 bytes a page), so that the listing reads
    /// no page again. A hole of a sparse file folded without reading its
    /// pages, or more than 2,097,152 pages asked, keeps none.
    pub fn listing(mut self, from: u32, end: u32) -> Self {
        self.listing = Some((from, end));
        self
    }
}

/// Counts and findings over a whole space.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Summary {
    /// Pages scanned.
    pub pages: u32,
    /// Pages per type, ordered by type code.
    pub types: Vec<(PageType, u32)>,
    /// Runs of consecutive pages of one type.
    pub regions: Vec<Region>,
    /// Lowest non-zero LSN.
    pub lsn_min: Option<Lsn>,
    /// Highest LSN.
    pub lsn_max: Option<Lsn>,
    /// Highest LSN among the pages that verify with no problem: the bound
    /// of a torn write's trailer ([`crate::verdict`]).
    pub newest_verified: Option<Lsn>,
    /// All-zero pages nothing claims (an all-zero page its extent
    /// descriptor marks used is in `bad`, `zeroed`).
    pub empty: u32,
    /// Pages that verify, per algorithm.
    pub algorithms: Vec<(Algorithm, u32)>,
    /// Pages that cannot be verified from the file alone.
    pub unverifiable: Vec<(PageNo, Unverifiable)>,
    /// Pages with problems.
    pub bad: Vec<BadPage>,
    /// Findings about the whole file (torn tail, truncation, page 0).
    pub file_findings: Vec<Finding>,
    /// Doublewrite buffer slots (system tablespace) whose copy does not
    /// verify: verdict `copy`, no finding ([`crate::verdict::PageVerdict::Copy`]).
    pub doublewrite_not_verifying: u32,
    /// The B-tree pages' sibling links, for the stale rule
    /// ([`crate::stale`]); read and dropped when the summary is judged.
    links: Vec<Links>,
    /// Pages the extent descriptor rule found stale, judged with the rest.
    stale: Vec<StalePage>,
    /// The LSNs of the pages that verify (gathered when the pass is asked
    /// for more than every command reads: [`SummaryAsks`]).
    pub lsn_span: Option<LsnSpan>,
    /// The space ids the pages that verify carry (a zero aside), with how
    /// many carry each, ordered by id (asked, as `lsn_span`).
    pub space_ids: Vec<(SpaceId, u32)>,
    /// Runs of pages that verify but whose content (their B-tree links)
    /// cannot be read, encrypted or page_compressed: first page, last
    /// page, why (asked, as `lsn_span`).
    pub transformed: Vec<(PageNo, PageNo, Unverifiable)>,
    /// The pages newer than each LSN asked ([`SummaryAsks::newer_than`]).
    pub newer_than: Vec<NewerThan>,
    /// Whether `links` and `kept_hits` stay after judging.
    keep_links: bool,
    /// The extent descriptor rule's hits, kept when asked.
    kept_hits: Vec<StalePage>,
    /// What `pages` lists of each page, when asked.
    listing: Option<Listing>,
    /// The space's pages: joining reserves `links` for the rest of them
    /// at once (filled in place, never copied as it grows).
    total: u32,
}

fn bump_by<K: PartialEq + Ord + Copy>(v: &mut Vec<(K, u32)>, k: K, n: u32) {
    match v.iter_mut().find(|(x, _)| *x == k) {
        Some((_, c)) => *c = c.saturating_add(n),
        None => {
            v.push((k, n));
            v.sort_unstable_by_key(|(x, _)| *x);
        }
    }
}

fn min_opt(a: Option<Lsn>, b: Option<Lsn>) -> Option<Lsn> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Page facts judged as the server would judge the page: a MariaDB
/// page_compressed page after decompression. Holds one page-sized buffer
/// and the decoders' tables, reused for every page.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Judge {
    inflated: pagecomp::PageOut,
    scratch: crate::pagecomp::Scratch,
}

impl Judge {
    /// `f` as the server would judge the page. A MariaDB page_compressed
    /// page outside full_crc32 carries no checksum of its own; the server
    /// decompresses it and verifies the page it gets
    /// (`buf_page_t::read_complete`: `buf_page_decrypt_after_read`, then
    /// `buf_page_check_corrupt`), and so is it verified here: the
    /// decompressed page's verdict and LSN copies. A page that does not
    /// decompress is damaged (the problem returned replaces the checksum
    /// one); one compressed with no known algorithm (or encrypted) stays
    /// unverifiable. Under full_crc32 the CRC-32C covers the compressed
    /// page and is verified first; a page that passes it is then
    /// decompressed too (`fil_page_decompress_for_full_crc32`, after
    /// `buf_page_is_corrupted`), and one that does not decompress is
    /// damaged; the decompressed page carries no checksum of its own.
    pub fn judge(&mut self, ts: &Tablespace<'_>, f: PageFacts) -> (PageFacts, Option<PageProblem>) {
        self.judge_with(ts, f, None)
    }

    /// [`Judge::judge`], where `decoded`, when given, is what decompressing
    /// the page in `ts`'s own layout ([`pagecomp::Layout::of`]) gave, the
    /// page in `inflated` (the image pass decompressed it already:
    /// [`try_expand_with_summary`]): it is not decompressed again.
    pub(crate) fn judge_with(
        &mut self,
        ts: &Tablespace<'_>,
        mut f: PageFacts,
        decoded: Option<(Decoding, &[u8])>,
    ) -> (PageFacts, Option<PageProblem>) {
        // A page whose type carries the full_crc32 compressed marker in a
        // space that is not page_compressed: the server cannot decompress
        // it (`fil_page_decompress_for_full_crc32` returns 0), and its
        // checksum does not verify: a checksum mismatch, not a size
        // problem of a compressed page.
        if f.verdict == Verdict::BadCompressedSize && !ts.format().page_compressed {
            f.verdict = Verdict::Mismatch;
            return (f, None);
        }
        let layout = match ts.scheme() {
            Scheme::Classic if f.verdict == Verdict::Unverifiable(Unverifiable::PageCompressed) => {
                pagecomp::Layout::Classic
            }
            Scheme::FullCrc32
                if ts.format().page_compressed && matches!(f.verdict, Verdict::Valid(_)) =>
            {
                pagecomp::Layout::of(ts)
            }
            _ => return (f, None),
        };
        let Some(page) = ts.page(f.page_no) else {
            return (f, None);
        };
        let (decoded, logical) = match decoded {
            Some((d, logical)) if layout == pagecomp::Layout::of(ts) => (d, logical),
            _ => {
                let d =
                    pagecomp::decompress_with(page, layout, &mut self.inflated, &mut self.scratch);
                (d, self.inflated.bytes())
            }
        };
        match decoded {
            Ok(Some(_)) if layout != pagecomp::Layout::Classic => (f, None),
            Ok(Some(_)) => {
                f.verdict = verify_page(logical, Scheme::Classic);
                f.lsn_pair = match f.verdict {
                    Verdict::Valid(_) | Verdict::Mismatch => lsn_pair(logical, Scheme::Classic),
                    _ => None,
                };
                (f, None)
            }
            Ok(None) => (f, None),
            Err(e) => match e.kind {
                ErrorKind::PageComp(k) => match k {
                    // An algorithm number no server defines: the server's
                    // `fil_page_decompress_low` fails on it (its default case),
                    // so the page is corrupted, not merely not decoded here.
                    PageCompErrorKind::NotDecoded(pagecomp::Algorithm::Other(_)) => {
                        f.verdict = Verdict::Mismatch;
                        let offset =
                            u16::try_from(e.page_offset().unwrap_or(0)).unwrap_or(u16::MAX);
                        (f, Some(PageProblem::NotDecompressed { offset }))
                    }
                    PageCompErrorKind::NotDecoded(_) | PageCompErrorKind::Encrypted => (f, None),
                    _ => {
                        f.verdict = Verdict::Mismatch;
                        let offset =
                            u16::try_from(e.page_offset().unwrap_or(0)).unwrap_or(u16::MAX);
                        (f, Some(PageProblem::NotDecompressed { offset }))
                    }
                },
                _ => {
                    f.verdict = Verdict::Mismatch;
                    let offset = u16::try_from(e.page_offset().unwrap_or(0)).unwrap_or(u16::MAX);
                    (f, Some(PageProblem::NotDecompressed { offset }))
                }
            },
        }
    }
}

/// The fold behind [`Summary::of`]: one accumulator per shard of the
/// parallel scan, joined in page order.
pub struct SummaryFold<'t, 'a> {
    ts: &'t Tablespace<'a>,
    scheme: Scheme,
    names: TypeNames,
    /// Judges page_compressed pages after decompression.
    judge: Judge,
    /// Tells the all-zero pages something claims.
    zeros: ZeroRule,
    /// The decrypted image and the pages that did not decrypt.
    content: Option<(&'t Tablespace<'t>, &'t [PageNo])>,
    /// Whether anything beyond what every command reads was asked
    /// ([`SummaryAsks`]): then the verifying pages' LSN span, space ids
    /// and unreadable runs are gathered too.
    asked: bool,
    /// What has been folded so far (no file findings).
    pub summary: Summary,
}

impl<'t, 'a> SummaryFold<'t, 'a> {
    /// An empty fold over `ts`.
    pub fn new(ts: &'t Tablespace<'a>) -> Self {
        SummaryFold::with(ts, SummaryAsks::default())
    }

    /// An empty fold over `ts` that also gathers what `asks` asks.
    pub fn with(ts: &'t Tablespace<'a>, asks: SummaryAsks<'t>) -> Self {
        let newer_than: Vec<NewerThan> = asks
            .newer_than
            .iter()
            .flatten()
            .map(|&mark| NewerThan {
                mark,
                ..NewerThan::default()
            })
            .collect();
        SummaryFold {
            ts,
            scheme: ts.scheme(),
            names: ts.type_names(),
            judge: Judge::default(),
            zeros: ZeroRule::default(),
            asked: asks.keep_links || asks.content.is_some() || !newer_than.is_empty(),
            content: asks.content.filter(|(plain, _)| {
                plain.page_size() == ts.page_size() && plain.n_pages() == ts.n_pages()
            }),
            summary: Summary {
                newer_than,
                keep_links: asks.keep_links,
                listing: asks.listing.map(|(from, end)| Listing::new(from, end)),
                total: ts.n_pages(),
                ..Summary::default()
            },
        }
    }

    /// `f` (judged as stored) with a decrypted image's content: a page
    /// whose stored bytes carry no checksum the server checks takes its
    /// image's verdict, a page that did not decrypt does not verify, and
    /// the type is the image's (the decryption restores it).
    fn with_content(&self, mut f: PageFacts) -> PageFacts {
        let Some((plain, not_decrypted)) = self.content else {
            return f;
        };
        let Some(held) = plain.page_ref(f.page_no) else {
            return f;
        };
        let cpage: &[u8] = &held;
        if not_decrypted.binary_search(&f.page_no).is_ok() && f.verdict.is_ok() {
            f.verdict = Verdict::Mismatch;
        } else if f.verdict == Verdict::Unverifiable(Unverifiable::Encrypted) {
            f.verdict = match verify_page(cpage, self.scheme) {
                v @ (Verdict::Valid(_) | Verdict::Empty) => v,
                _ => Verdict::Mismatch,
            };
        }
        if let Some(h) = FilHeader::new(cpage) {
            f.page_type = h.page_type();
        }
        f
    }

    /// What a page that verifies (checksum and LSN copies) adds beyond
    /// the counts: its LSN, its space id, whether its content can be
    /// read, the LSNs asked about. Doublewrite slots aside.
    fn verified(&mut self, f: &PageFacts) {
        let ts = self.ts;
        if ts.in_doublewrite(f.page_no) {
            return;
        }
        let s = &mut self.summary;
        if f.has_space_id && f.space_id.0 != 0 {
            bump_by(&mut s.space_ids, f.space_id, 1);
        }
        // Held for this page only: a decrypted space is read through its
        // page source, whose memory stays bounded.
        let (content, held) = match self.content {
            Some((plain, _)) => (plain, plain.page_ref(f.page_no)),
            None => (ts, ts.page_ref(f.page_no)),
        };
        if held.as_deref().is_some_and(|p| !page_readable(content, p)) {
            let why = match ts.page(f.page_no) {
                Some(stored) if transformed_by_compression(stored, self.scheme) => {
                    Unverifiable::PageCompressed
                }
                _ => Unverifiable::Encrypted,
            };
            let n = f.page_no;
            match s.transformed.last_mut() {
                Some((_, last, w)) if *w == why && last.0.checked_add(1) == Some(n.0) => *last = n,
                _ => s.transformed.push((n, n, why)),
            }
        }
        let lsn = f.lsn;
        if lsn.0 == 0 {
            return;
        }
        s.lsn_span = Some(match s.lsn_span {
            None => LsnSpan {
                oldest: lsn,
                newest: lsn,
                newest_page: f.page_no,
            },
            Some(mut x) => {
                x.oldest = x.oldest.min(lsn);
                if lsn > x.newest {
                    x.newest = lsn;
                    x.newest_page = f.page_no;
                }
                x
            }
        });
        for m in s.newer_than.iter_mut().filter(|m| lsn > m.mark) {
            m.pages = m.pages.saturating_add(1);
            m.newest = Some(m.newest.map_or(lsn, |x| x.max(lsn)));
            match m.runs.last_mut() {
                Some((_, last)) if last.0.checked_add(1) == Some(f.page_no.0) => *last = f.page_no,
                _ => m.runs.push((f.page_no, f.page_no)),
            }
        }
    }

    /// Folds one page's facts (pages in increasing order). A page_compressed
    /// page outside full_crc32 is judged after decompression.
    pub fn add(&mut self, f: PageFacts) {
        self.add_decoded(f, None);
    }

    /// [`SummaryFold::add`], with what decompressing the page gave when
    /// the caller decompressed it already ([`Judge::judge_with`]).
    pub(crate) fn add_decoded(&mut self, f: PageFacts, decoded: Option<(Decoding, &[u8])>) {
        self.add_read(f, decoded, None);
    }

    /// [`SummaryFold::add_decoded`], with the page as the space reads it
    /// when the caller holds it (a fold over the space: `read`), so that
    /// what the stale rule keeps of it is read there, not through the
    /// space again (a page source would transform it a second time).
    fn add_read(&mut self, f: PageFacts, decoded: Option<(Decoding, &[u8])>, read: Option<&[u8]>) {
        let f = self.ts.doublewrite_copy(f);
        let (f, instead) = self.judge.judge_with(self.ts, f, decoded);
        let f = self.with_content(f);
        if let Some(l) = self.summary.listing.as_mut() {
            let ts = self.ts;
            match read {
                Some(page) => l.add(ts, &f, page),
                None => {
                    if let Some(page) = ts.page_ref(f.page_no) {
                        l.add(ts, &f, &page);
                    }
                }
            }
        }
        if self.asked
            && matches!(f.verdict, Verdict::Valid(_))
            && f.lsn_pair.is_none_or(|(h, t)| h == t)
        {
            self.verified(&f);
        }
        let zeroed = f.verdict == Verdict::Empty && self.zeros.claimed(self.ts, f.page_no);
        let s = &mut self.summary;
        s.pages = s.pages.saturating_add(1);
        let t = f.page_type.counted(self.names);
        bump_by(&mut s.types, t, 1);
        match s.regions.last_mut() {
            Some(r) if r.page_type == t && r.last.0.checked_add(1) == Some(f.page_no.0) => {
                r.last = f.page_no
            }
            _ => s.regions.push(Region {
                first: f.page_no,
                last: f.page_no,
                page_type: t,
            }),
        }
        let mut problems = self
            .ts
            .page_problems(&f)
            .map(|p| match (p, instead) {
                (PageProblem::Checksum, Some(i)) => i,
                _ => p,
            })
            .chain(zeroed.then_some(PageProblem::ZeroedInUse))
            .peekable();
        if problems.peek().is_some() && self.ts.in_doublewrite(f.page_no) {
            // A copy of another page that does not verify: the buffer's,
            // not this file's damage (verdict `copy`); neither valid (a
            // torn copy can still pass its checksum) nor an LSN of the file.
            s.doublewrite_not_verifying = s.doublewrite_not_verifying.saturating_add(1);
            return;
        }
        match f.verdict {
            Verdict::Empty if zeroed => {}
            Verdict::Empty => s.empty = s.empty.saturating_add(1),
            Verdict::Valid(a) => bump_by(&mut s.algorithms, a, 1),
            Verdict::Unverifiable(why) => s.unverifiable.push((f.page_no, why)),
            Verdict::Mismatch | Verdict::BadCompressedSize => {}
        }
        if !f.is_empty() && f.lsn.0 != 0 {
            s.lsn_min = min_opt(s.lsn_min, Some(f.lsn));
            s.lsn_max = Some(s.lsn_max.map_or(f.lsn, |m| m.max(f.lsn)));
        }
        if problems.peek().is_none() {
            if matches!(f.verdict, Verdict::Valid(_)) && f.lsn.0 != 0 {
                s.newest_verified = Some(s.newest_verified.map_or(f.lsn, |m| m.max(f.lsn)));
                // What the stale rule reads ([`crate::stale`]), from the
                // content (the decrypted image, when given).
                let ts = self.ts;
                let (content, held) = match (self.content, read) {
                    (Some((plain, _)), _) => (plain, plain.page_ref(f.page_no)),
                    (None, Some(_)) => (ts, None),
                    (None, None) => (ts, ts.page_ref(f.page_no)),
                };
                let page = match (self.content, read) {
                    (None, Some(p)) => Some(p),
                    _ => held.as_deref(),
                };
                if let Some(l) = page.and_then(|p| Links::of(content, &f, p)) {
                    s.links.push(l);
                }
                if let Some(st) = stale_descriptor(ts, &f, &mut self.zeros) {
                    s.stale.push(st);
                }
            }
            return;
        }
        let ts = self.ts;
        let findings: Vec<Finding> = problems.map(|p| Finding::page(ts, f.page_no, p)).collect();
        // Judged again once the newest verifying LSN is known.
        let judgement = judge_bad(ts, &f, &findings, None);
        s.bad.push(BadPage {
            facts: f,
            findings,
            freed: if zeroed {
                Some(false)
            } else {
                ts.is_free(f.page_no)
            },
            judgement,
        });
    }
}

/// A shard's part of a [`Summary`] folded inside a pass that skips the
/// pages the space knows to be zero (a transform pass,
/// `parallel::transform_pass`): they are folded, read as zeros, when the next
/// page of the shard comes, or when the shard is joined
/// ([`join_shards`]).
#[derive(Default)]
pub(crate) struct ShardSummary<'t, 'a> {
    fold: Option<SummaryFold<'t, 'a>>,
    /// The page after the last one folded (0: none yet).
    next: u32,
}

impl<'t, 'a> ShardSummary<'t, 'a> {
    /// Folds the pages before `end` not folded yet; the first fold of a
    /// shard starts at its first page `first`.
    fn fold_up_to(&mut self, ts: &'t Tablespace<'a>, first: u32, end: u32) {
        let scheme = ts.scheme();
        let fold = self.fold.get_or_insert_with(|| SummaryFold::new(ts));
        let from = if self.next == 0 { first } else { self.next };
        for n in from..end {
            match ts.page(PageNo(n)) {
                Some(p) => fold.add(page_facts(p, PageNo(n), scheme)),
                None => break,
            }
        }
        self.next = end.max(from);
    }

    /// Folds `f` (page `f.page_no` of a shard of `shard` pages), after
    /// the skipped pages before it; `decoded` as [`Judge::judge_with`].
    pub(crate) fn add(
        &mut self,
        ts: &'t Tablespace<'a>,
        shard: u32,
        f: PageFacts,
        decoded: Option<(Decoding, &[u8])>,
    ) {
        let n = f.page_no.0;
        let first = n.saturating_sub(n.checked_rem(shard).unwrap_or(0));
        self.fold_up_to(ts, first, n);
        if let Some(fold) = self.fold.as_mut() {
            fold.add_decoded(f, decoded);
        }
        self.next = n.saturating_add(1);
    }
}

/// The [`Summary`] of `ts` from its shards' parts ([`ShardSummary`], one
/// per shard of `shard` pages, in page order): each shard's skipped pages
/// folded to its end, the parts joined, the file's findings added and the
/// bad pages judged; `None` when no page was folded.
pub(crate) fn join_shards<'t, 'a>(
    ts: &'t Tablespace<'a>,
    shard: u32,
    parts: impl Iterator<Item = ShardSummary<'t, 'a>>,
) -> Option<Summary> {
    let n_pages = ts.n_pages();
    let mut joined: Option<SummaryFold<'t, 'a>> = None;
    for (k, mut part) in (0u32..).zip(parts) {
        let first = k.saturating_mul(shard);
        let end = first.saturating_add(shard).min(n_pages);
        part.fold_up_to(ts, first, end);
        if let Some(fold) = part.fold.take() {
            match joined.as_mut() {
                Some(s) => PageFold::append(s, fold),
                None => joined = Some(fold),
            }
        }
    }
    joined.map(SummaryFold::finish)
}

/// The logical image of a page_compressed space
/// ([`pagecomp::expand`]), or `None` when its memory is refused, and the
/// [`Summary`] of the stored pages made in the same pass, the same as
/// [`Summary::of`] makes it on any number of threads: a page_compressed
/// page the summary judges after decompression ([`Judge`]) is judged on
/// the page the image pass decompressed, so each page is decompressed
/// once for both.
pub fn try_expand_with_summary<'t, 'a>(
    ts: &'t Tablespace<'a>,
    engine: &Engine<'_>,
) -> Option<(Expansion, Summary)> {
    let (scheme, shard) = (ts.scheme(), crate::parallel::shard_pages(ts).max(1));
    let also = |x: &mut ShardSummary<'t, 'a>,
                n: PageNo,
                from: &[u8],
                decoded: Option<(Decoding, &[u8])>| {
        x.add(ts, shard, page_facts(from, n, scheme), decoded);
    };
    let (e, parts) = pagecomp::try_expand_with(ts, engine, also)?;
    let s = join_shards(ts, shard, parts.into_iter());
    Some((e, s.unwrap_or_default()))
}

impl SummaryFold<'_, '_> {
    /// The summary once every page of the file is folded (in a pass of
    /// its own, [`Summary::of`], or inside another command's fold): the
    /// file's findings added and the bad pages judged.
    pub fn finish(self) -> Summary {
        let mut s = self.summary;
        s.file_findings = file_findings(self.ts);
        s.judge(self.ts);
        s
    }

    /// Folds the `count` pages from `first` on, known to read as zeros
    /// without being read (the holes of a sparse file:
    /// [`Tablespace::with_zero_ranges`]), in one step where every page of
    /// the run folds alike; else page by page. This is the one place that
    /// decides what a run of all-zero pages is: each is what
    /// [`SummaryFold::add`] would make of it, `empty` (never written,
    /// counted with its type FIL_PAGE_TYPE_ALLOCATED, no finding) where
    /// nothing claims it and `zeroed` where the zero-page rule
    /// ([`ZeroRule`]) says its XDES entry marks it used, the rule read once
    /// per extent that may be in use, not per page.
    pub fn zero_run(&mut self, first: PageNo, count: u32) {
        if let Some(l) = self.summary.listing.as_mut() {
            if l.covers_any(first.0, first.0.saturating_add(count)) {
                l.drop_rows();
            }
        }
        let Some(zero) = self.ts.page(first) else {
            return;
        };
        let f = page_facts(zero, first, self.scheme);
        let alike = f.verdict == Verdict::Empty
            && count > 0
            && self.ts.page_problems(&f).next().is_none()
            && self.judge.judge(self.ts, f).1.is_none();
        if !alike {
            for n in first.0..first.0.saturating_add(count) {
                self.add(page_facts(zero, PageNo(n), self.scheme));
            }
            return;
        }
        // The pages something claims are `zeroed` (the zero-page rule,
        // [`ZeroRule`]), each folded alone; the others are empty, counted a
        // run at a time. The rule steps over what cannot be claimed an
        // extent (or an XDES page's range) at a time.
        let end = first.0.saturating_add(count);
        let mut n = first.0;
        let mut empty_from = first.0;
        while let Some(c) = self.zeros.next_candidate(self.ts, PageNo(n), end) {
            if self.zeros.claimed(self.ts, c) {
                self.empty_run(f, PageNo(empty_from), c.0.saturating_sub(empty_from));
                self.add(page_facts(zero, c, self.scheme));
                empty_from = c.0.saturating_add(1);
            }
            n = c.0.saturating_add(1);
        }
        self.empty_run(f, PageNo(empty_from), end.saturating_sub(empty_from));
    }

    /// Counts `count` unclaimed all-zero pages from `first` on as empty,
    /// in one step; `f` is the facts of one of them.
    fn empty_run(&mut self, f: PageFacts, first: PageNo, count: u32) {
        if count == 0 {
            return;
        }
        let last = PageNo(first.0.saturating_add(count).saturating_sub(1));
        let s = &mut self.summary;
        s.pages = s.pages.saturating_add(count);
        let t = f.page_type.counted(self.names);
        bump_by(&mut s.types, t, count);
        match s.regions.last_mut() {
            Some(r) if r.page_type == t && r.last.0.checked_add(1) == Some(first.0) => {
                r.last = last
            }
            _ => s.regions.push(Region {
                first,
                last,
                page_type: t,
            }),
        }
        s.empty = s.empty.saturating_add(count);
    }
}

/// Folded over the space it was made for: `page` is page `n` as that
/// space reads it.
impl PageFold for SummaryFold<'_, '_> {
    fn page(&mut self, n: PageNo, page: &[u8]) {
        self.add_read(page_facts(page, n, self.scheme), None, Some(page));
    }
    fn zero_run(&mut self, first: PageNo, count: u32, _zero: &[u8]) {
        SummaryFold::zero_run(self, first, count);
    }
    fn append(&mut self, next: Self) {
        self.summary.append(next.summary);
    }
    /// At most one link a page: reserved at once for a pass on one thread.
    fn whole(&mut self, pages: u32) {
        let links = &mut self.summary.links;
        links.reserve((pages as usize).saturating_sub(links.len()));
    }
}

impl Summary {
    /// Scans `ts` once on `engine` ([`crate::parallel`]).
    pub fn of(ts: &Tablespace<'_>, engine: &Engine<'_>) -> Summary {
        fold_pages(ts, engine, || SummaryFold::new(ts)).finish()
    }

    /// Judges the bad pages (few) once the whole file is folded: a torn
    /// write's trailer is bounded by the newest LSN of the pages that
    /// verify, which only the whole pass knows.
    pub fn judge(&mut self, ts: &Tablespace<'_>) {
        self.judge_stale(ts);
        let newest = self.newest_verified;
        for b in &mut self.bad {
            b.judgement = judge_bad(ts, &b.facts, &b.findings, newest);
        }
    }

    /// Adds the pages the stale rule judges ([`crate::stale`]) to the bad
    /// pages, once the whole file's links are folded; a page already bad
    /// keeps its own verdict. The links are dropped unless asked to be
    /// kept ([`SummaryAsks::keeping_links`]).
    fn judge_stale(&mut self, ts: &Tablespace<'_>) {
        let mut stale = stale_by_links(ts, &self.links);
        if self.keep_links {
            self.kept_hits.extend_from_slice(&self.stale);
        } else {
            self.links = Vec::new();
        }
        stale.append(&mut self.stale);
        if stale.is_empty() {
            return;
        }
        stale.sort_by_key(|(n, _)| *n);
        stale.dedup_by_key(|(n, _)| *n);
        let scheme = ts.scheme();
        let mut added: Vec<BadPage> = stale
            .into_iter()
            .filter(|(n, _)| self.bad_page(*n).is_none())
            .filter_map(|(n, problem)| {
                let f = page_facts(ts.page(n)?, n, scheme);
                let findings = vec![Finding::page(ts, n, problem)];
                let judgement = judge_bad(ts, &f, &findings, None);
                Some(BadPage {
                    facts: f,
                    findings,
                    freed: ts.is_free(n),
                    judgement,
                })
            })
            .collect();
        if added.is_empty() {
            return;
        }
        self.bad.append(&mut added);
        self.bad.sort_by_key(|b| b.facts.page_no);
    }

    /// The verdict of the page whose facts are `f` (as
    /// [`Judge::judge`] leaves them): a bad page's by binary search, any
    /// other's from its facts. Streaming commands ask this rather than
    /// judging pages themselves.
    pub fn verdict(&self, ts: &Tablespace<'_>, f: &PageFacts) -> PageJudgement {
        match self.bad_page(f.page_no) {
            Some(b) => b.judgement,
            None => verdict::judge(ts, f, &[], self.newest_verified),
        }
    }

    /// Page `n`'s facts as [`Tablespace::facts_of`] gives them, `page` its
    /// bytes as stored in `ts`, the space this summary is of (a pass over
    /// every page): a page this summary tells the checksum verdict of is
    /// not verified again. That is a page in no list of problems (not bad,
    /// not unverifiable, no doublewrite buffer slot) in a space whose pages
    /// that verify all verify with one algorithm, and whose type is none
    /// that a later judge reads otherwise (compressed or encrypted, a
    /// MariaDB page_compressed page judged after decompression): it
    /// verifies with that algorithm, or is empty
    /// ([`crate::checksum::is_empty_verdict`]). A stream over the pages
    /// after the summary's pass (`pages`) computes each checksum once.
    pub fn facts_of(&self, ts: &Tablespace<'_>, page: &[u8], n: PageNo) -> PageFacts {
        match self.known_verdict(ts, page, n) {
            Some(v) => page_facts_with(page, n, ts.scheme(), v),
            None => ts.facts_of(page, n),
        }
    }

    /// The checksum verdict of page `n` (`page`) of `ts` this summary
    /// tells ([`Summary::facts_of`]).
    fn known_verdict(&self, ts: &Tablespace<'_>, page: &[u8], n: PageNo) -> Option<Verdict> {
        let &[(algorithm, _)] = self.algorithms.as_slice() else {
            return None;
        };
        if self.pages != ts.n_pages() || ts.in_doublewrite(n) {
            return None;
        }
        let t = FilHeader::new(page)?.page_type();
        let read_otherwise = t.0 & PageType::FCRC32_COMPRESSED_MARKER != 0
            || matches!(
                t,
                PageType::FIL_PAGE_COMPRESSED
                    | PageType::FIL_PAGE_ENCRYPTED
                    | PageType::FIL_PAGE_COMPRESSED_AND_ENCRYPTED
                    | PageType::FIL_PAGE_ENCRYPTED_RTREE
                    | PageType::FIL_PAGE_PAGE_COMPRESSED
                    | PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED
            );
        if read_otherwise
            || self.bad_page(n).is_some()
            || (self.unverifiable)
                .binary_search_by_key(&n, |u| u.0)
                .is_ok()
        {
            return None;
        }
        Some(if crate::checksum::is_empty_verdict(page, ts.scheme()) {
            Verdict::Empty
        } else {
            Verdict::Valid(algorithm)
        })
    }

    /// What `pages` lists of page `n`, when the pass was asked to keep it
    /// ([`SummaryAsks::listing`]) and kept it for every page asked; its
    /// verdict is [`Summary::verdict`] of its facts.
    pub fn listed(&self, ts: &Tablespace<'_>, n: PageNo) -> Option<Listed> {
        self.listing.as_ref()?.listed(ts, n)
    }

    /// The bad page `n`, if it is one (binary search: `bad` is in page
    /// order).
    pub fn bad_page(&self, n: PageNo) -> Option<&BadPage> {
        let k = self
            .bad
            .binary_search_by_key(&n, |b| b.facts.page_no)
            .ok()?;
        self.bad.get(k)
    }

    /// Pages whose verdict is damage (zeroed, torn, corrupt).
    pub fn damaged(&self) -> usize {
        self.bad
            .iter()
            .filter(|b| b.judgement.verdict.is_damaged())
            .count()
    }

    /// Folds pre-computed facts (a range, or a parallel shard's output).
    pub fn of_facts(ts: &Tablespace<'_>, facts: impl Iterator<Item = PageFacts>) -> Summary {
        let mut fold = SummaryFold::new(ts);
        for f in facts {
            fold.add(f);
        }
        let mut s = fold.summary;
        s.file_findings = file_findings(ts);
        s.judge(ts);
        s
    }

    /// Appends the summary of the pages right after this one's (without
    /// file findings, which are made once per file).
    fn append(&mut self, next: Summary) {
        self.pages = self.pages.saturating_add(next.pages);
        self.doublewrite_not_verifying = self
            .doublewrite_not_verifying
            .saturating_add(next.doublewrite_not_verifying);
        for (t, n) in next.types {
            bump_by(&mut self.types, t, n);
        }
        let mut regions = next.regions.into_iter();
        if let Some(first) = regions.next() {
            match self.regions.last_mut() {
                Some(r)
                    if r.page_type == first.page_type
                        && r.last.0.checked_add(1) == Some(first.first.0) =>
                {
                    r.last = first.last
                }
                _ => self.regions.push(first),
            }
            self.regions.extend(regions);
        }
        self.lsn_min = min_opt(self.lsn_min, next.lsn_min);
        self.newest_verified = self.newest_verified.max(next.newest_verified);
        self.lsn_max = match (self.lsn_max, next.lsn_max) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.empty = self.empty.saturating_add(next.empty);
        for (a, n) in next.algorithms {
            bump_by(&mut self.algorithms, a, n);
        }
        self.unverifiable.extend(next.unverifiable);
        self.bad.extend(next.bad);
        if self.links.capacity() < self.links.len().saturating_add(next.links.len()) {
            // At most one link per page: the rest of the space's pages
            // bound what is still to come (`pages` counts those joined).
            let rest = self.total.saturating_sub(self.pages) as usize;
            self.links.reserve(next.links.len().saturating_add(rest));
        }
        self.links.extend(next.links);
        self.stale.extend(next.stale);
        self.lsn_span = match (self.lsn_span, next.lsn_span) {
            (Some(mut a), Some(b)) => {
                a.oldest = a.oldest.min(b.oldest);
                if b.newest > a.newest {
                    a.newest = b.newest;
                    a.newest_page = b.newest_page;
                }
                Some(a)
            }
            (a, b) => a.or(b),
        };
        for (id, n) in next.space_ids {
            bump_by(&mut self.space_ids, id, n);
        }
        let mut runs = next.transformed.into_iter();
        if let Some((from, to, why)) = runs.next() {
            match self.transformed.last_mut() {
                Some((_, last, w)) if *w == why && last.0.checked_add(1) == Some(from.0) => {
                    *last = to
                }
                _ => self.transformed.push((from, to, why)),
            }
            self.transformed.extend(runs);
        }
        match (self.listing.as_mut(), next.listing) {
            (Some(l), Some(n)) => l.append(n),
            (None, n) => self.listing = n,
            (Some(_), None) => {}
        }
        for (m, n) in self.newer_than.iter_mut().zip(next.newer_than) {
            m.pages = m.pages.saturating_add(n.pages);
            m.newest = m.newest.max(n.newest);
            let mut runs = n.runs.into_iter();
            if let Some((first, last)) = runs.next() {
                match m.runs.last_mut() {
                    Some((_, l)) if l.0.checked_add(1) == Some(first.0) => *l = last,
                    _ => m.runs.push((first, last)),
                }
                m.runs.extend(runs);
            }
        }
    }

    /// The sibling links of the B-tree pages that verify, in page order
    /// ([`crate::stale::Links`]), when asked to be kept
    /// ([`SummaryAsks::keeping_links`]); else empty.
    pub fn links(&self) -> &[Links] {
        &self.links
    }

    /// Each page that verifies and is newer than the extent descriptor
    /// (or page 0's FSP_FREE_LIMIT) that calls it free, as the descriptor
    /// page judged stale by it ([`crate::stale::stale_descriptor`]), in
    /// page order of the newer page, when asked to be kept
    /// ([`SummaryAsks::keeping_links`]); else empty.
    pub fn descriptor_hits(&self) -> &[StalePage] {
        &self.kept_hits
    }

    /// The algorithm most pages verify with.
    pub fn main_algorithm(&self) -> Option<Algorithm> {
        self.algorithms
            .iter()
            .max_by_key(|(_, c)| *c)
            .map(|(a, _)| *a)
    }
    /// Pages that verify.
    pub fn valid(&self) -> u32 {
        self.algorithms
            .iter()
            .map(|(_, c)| *c)
            .fold(self.empty, u32::saturating_add)
    }
    /// Whether any page has type `t`.
    pub fn has_type(&self, t: PageType) -> bool {
        self.types.iter().any(|(x, _)| *x == t)
    }
    /// True when nothing at all was found.
    pub fn is_clean(&self) -> bool {
        self.bad.is_empty() && self.file_findings.is_empty()
    }
}

/// The verdict of a bad page from its findings.
fn judge_bad(
    ts: &Tablespace<'_>,
    f: &PageFacts,
    findings: &[Finding],
    newest: Option<Lsn>,
) -> PageJudgement {
    let mut problems = [PageProblem::Checksum; 8];
    let mut n = 0usize;
    for fi in findings {
        if let (FindingKind::Page(p), Some(slot)) = (fi.kind, problems.get_mut(n)) {
            *slot = p;
            n = n.saturating_add(1);
        }
    }
    verdict::judge(ts, f, problems.get(..n).unwrap_or(&[]), newest)
}

/// Whole-file findings: a page size given against the file's evidence,
/// torn tail, fewer pages than FSP_SIZE, page 0, nothing but zeros after
/// page 0. Read from the detection, the file's size and its pages up to
/// the first one after page 0 that is not all zeros (page 1 in a whole
/// file), without a pass.
pub fn file_findings(ts: &Tablespace<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let contradicted = ts.detection().evidence.iter().find_map(|e| match *e {
        Evidence::PageSizeContradicted { given, found, by } => Some((given, found, by)),
        _ => None,
    });
    if let Some((given, found, by)) = contradicted {
        out.push(Finding {
            page: Some(PageNo(0)),
            file_offset: 0,
            kind: FindingKind::PageSizeContradicted {
                given,
                found,
                page0: by == DetectedBy::Page0,
            },
        });
    }
    let (tail, at) = ts.tail();
    if tail > 0 {
        out.push(Finding {
            page: Some(PageNo(ts.n_pages())),
            file_offset: at,
            kind: FindingKind::TornTail { bytes: tail },
        });
    }
    if let Some(h) = ts.fsp_header() {
        if h.size() > ts.n_pages() {
            out.push(Finding {
                page: None,
                file_offset: ts.file_offset(PageNo(ts.n_pages())),
                kind: FindingKind::ShorterThanFspSize {
                    fsp_size: h.size(),
                    pages: ts.n_pages(),
                },
            });
        }
    }
    if !ts.detection().page0_ok && contradicted.is_none() {
        out.push(Finding {
            page: Some(PageNo(0)),
            file_offset: 0,
            kind: FindingKind::Page0Unusable,
        });
    }
    out.extend(crate::crypt_data::crypt_data_finding(ts));
    let zero = |p: &[u8]| p.iter().all(|&b| b == 0);
    let page0_written = ts.page(PageNo(0)).is_some_and(|p| !zero(p));
    if page0_written && ts.n_pages() > 1 && all_zero_after(ts, 1) {
        out.push(Finding {
            page: Some(PageNo(1)),
            file_offset: ts.file_offset(PageNo(1)),
            kind: FindingKind::ZeroedAfterPage0 {
                pages: ts.n_pages().saturating_sub(1),
            },
        });
    }
    out
}

/// Whether every page from `from` on is all zeros: the known-zero runs
/// (holes) skipped, the rest read up to the first page that is not.
fn all_zero_after(ts: &Tablespace<'_>, from: u32) -> bool {
    let end = ts.n_pages();
    let mut n = from;
    while n < end {
        let (data_end, next) = match ts.next_zero_run(n, end) {
            Some((z, count)) => (z.0, z.0.saturating_add(count)),
            None => (end, end),
        };
        let data =
            (n..data_end).all(|k| ts.page(PageNo(k)).is_none_or(|p| p.iter().all(|&b| b == 0)));
        if !data {
            return false;
        }
        n = next.max(n.saturating_add(1));
    }
    true
}

/// Whether a page that verifies but cannot be read is page_compressed
/// (rather than encrypted).
fn transformed_by_compression(page: &[u8], scheme: Scheme) -> bool {
    let Some(h) = FilHeader::new(page) else {
        return false;
    };
    let t = h.page_type();
    match scheme {
        Scheme::FullCrc32 => t.0 & PageType::FCRC32_COMPRESSED_MARKER != 0 && h.checksum() == 0,
        _ => matches!(
            t,
            PageType::FIL_PAGE_COMPRESSED | PageType::FIL_PAGE_PAGE_COMPRESSED
        ),
    }
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    use super::*;

    /// Every `.ibd` and `ibdata*` file under `dir`.
    fn spaces(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                spaces(&p, out);
            } else if name.ends_with(".ibd") || name.starts_with("ibdata") {
                out.push(p);
            }
        }
    }

    /// Calls `f` with each committed fixture's space as written (round 0)
    /// and three damaged copies of it (bytes flipped in the header, the
    /// trailer or anywhere, a checksum field zeroed, a whole page zeroed;
    /// the flips drawn from `seed`): the path, the round, the space.
    fn each_damaged_copy(seed: u64, mut f: impl FnMut(&std::path::Path, u32, &Tablespace<'_>)) {
        let mut files = Vec::new();
        spaces(&ibdscope_testkit::fixtures(), &mut files);
        files.sort();
        assert!(files.len() > 20, "fixtures missing: {}", files.len());
        let mut x = seed;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for path in &files {
            let clean = std::fs::read(path).unwrap();
            let Ok(ts) = Tablespace::new(&clean) else {
                continue;
            };
            let size = ts.page_size() as usize;
            let pages = clean.len() / size;
            for round in 0..4 {
                let mut data = clean.clone();
                if round > 0 && pages > 1 {
                    for _ in 0..(1 + rnd() % 4) {
                        let page = (rnd() % pages as u64) as usize * size;
                        match rnd() % 5 {
                            0 => data[page + (rnd() % 38) as usize] ^= 1 << (rnd() % 8),
                            1 => data[page + size - 1 - (rnd() % 8) as usize] ^= 1,
                            2 => data[page + (rnd() % size as u64) as usize] ^= 0x10,
                            3 => data[page..page + 4].fill(0),
                            _ => data[page..page + size].fill(0),
                        }
                    }
                }
                if let Ok(ts) = Tablespace::new(&data) {
                    f(path, round, &ts);
                }
            }
        }
    }

    /// The facts a summary gives of each page without verifying it again
    /// are the facts the page gives, on every committed fixture as written
    /// and on damaged copies (bytes flipped in the header, the trailer or
    /// anywhere, a checksum field zeroed, a whole page zeroed), at 1 and 3
    /// threads; the pages whose checksum is not computed again are most of
    /// a clean file's.
    #[test]
    fn the_summary_gives_each_page_the_facts_it_gives() {
        let (mut known, mut all) = (0usize, 0usize);
        each_damaged_copy(0x9E37_79B9_7F4A_7C15, |path, round, ts| {
            let s = Summary::of(ts, &Engine::new(1 + 2 * (round % 2) as usize));
            for n in 0..ts.n_pages() {
                let n = PageNo(n);
                let page = ts.page(n).unwrap();
                let got = s.facts_of(ts, page, n);
                assert_eq!(
                    got,
                    ts.facts_of(page, n),
                    "{} round {round} page {n}",
                    path.display()
                );
                all += 1;
                known += usize::from(s.known_verdict(ts, page, n).is_some());
            }
        });
        assert!(known * 2 > all, "{known} of {all} pages' verdicts known");
    }

    /// What the summary's pass keeps for `pages` ([`Summary::listed`]) is
    /// what reading the page after the pass gives (its facts judged, its
    /// problems, its INDEX header's figures), for every page of the range
    /// asked and no other, on every fixture and on damaged copies (as
    /// above), at 1 and 3 threads; the rest of the summary is the same as
    /// without the listing.
    #[test]
    fn the_listing_gives_each_page_what_reading_it_gives() {
        use crate::index::IndexHeader;
        let mut index_pages = 0usize;
        each_damaged_copy(0x2545_F491_4F6C_DD1D, |path, round, ts| {
            let n_pages = ts.n_pages();
            // The whole file, or a part of it.
            let (from, end) = match round {
                0 | 1 => (0, n_pages),
                _ => (n_pages / 3, n_pages - n_pages / 4),
            };
            let engine = Engine::new(1 + 2 * (round % 2) as usize);
            let asks = SummaryAsks::default().listing(from, end);
            let s = fold_pages(ts, &engine, || SummaryFold::with(ts, asks)).finish();
            let plain = Summary::of(ts, &engine);
            let at = |n: u32| format!("{} round {round} page {n}", path.display());
            assert_eq!(
                format!(
                    "{:?}",
                    Summary {
                        listing: None,
                        ..s.clone()
                    }
                ),
                format!("{plain:?}"),
                "{}",
                at(0)
            );
            let mut judge = Judge::default();
            for n in 0..n_pages {
                let got = s.listed(ts, PageNo(n));
                if n < from || n >= end {
                    assert!(got.is_none(), "{}: listed outside the range", at(n));
                    continue;
                }
                let got = got.unwrap_or_else(|| panic!("{}: not listed", at(n)));
                let page = ts.page(PageNo(n)).unwrap();
                let f = judge.judge(ts, ts.facts_of(page, PageNo(n))).0;
                let g = got.facts;
                assert_eq!(
                    (g.page_no, g.page_type, g.prev, g.next, g.lsn),
                    (f.page_no, f.page_type, f.prev, f.next, f.lsn),
                    "{}",
                    at(n)
                );
                assert_eq!(
                    (g.space_id, g.has_space_id, g.verdict),
                    (f.space_id, f.has_space_id, f.verdict),
                    "{}",
                    at(n)
                );
                assert_eq!(s.verdict(ts, &g), s.verdict(ts, &f), "{}: verdict", at(n));
                let problems = ts.page_problems(&f).any(|p| p != PageProblem::Checksum);
                assert_eq!(got.problems, problems, "{}: problems", at(n));
                let index = (!matches!(f.verdict, Verdict::Unverifiable(_))
                    && f.page_type.is_index(ts.type_names()))
                .then(|| IndexHeader::new(page))
                .flatten()
                .map(|h| {
                    let format = ts.format();
                    let fill = h.usage(format.logical_size, format.is_zip()).fill();
                    (h.index_id(), h.level(), h.n_recs(), fill)
                });
                index_pages += usize::from(index.is_some());
                assert_eq!(got.index, index, "{}: index figures", at(n));
            }
        });
        assert!(index_pages > 1000, "{index_pages} index pages listed");
    }
}
