//! The page verdict: one word per page, with its evidence and one byte
//! offset in the file, computed once in the one pass every command makes
//! ([`crate::Summary`]) and asked of it by every command and printer.
//!
//! | word           | evidence                                                      | file offset |
//! |----------------|---------------------------------------------------------------|-------------|
//! | `valid`        | the checksum verifies and the LSN copies agree                 | page start |
//! | `empty`        | all zeros, and nothing claims it (free in its XDES entry, at or past FSP_FREE_LIMIT) | page start |
//! | `unverifiable` | encrypted without the key, page_compressed with a codec not decoded | page start |
//! | `foreign`      | verifies, but carries another page number or space id          | FIL_PAGE_OFFSET / FIL_PAGE_SPACE_ID |
//! | `zeroed`       | all zeros while its XDES entry marks it used                   | page start |
//! | `torn`         | the LSN copies differ and the trailer's LSN is at most the newest LSN of the pages that verify | the trailer's LSN copy |
//! | `corrupt`      | anything else that does not verify (checksum, LSN copies beyond any write, page_compressed header) | the failing field (checksum: page start) |
//! | `stale`        | verifies, but a newer page that verifies shows it missed a write they share ([`crate::stale`]) | FIL_PAGE_LSN |
//!
//! `zeroed`, `torn` and `corrupt` are damage; `foreign` and `stale` are
//! findings too.
//! Sources: MySQL 5.6/8.0 and MariaDB 10.11 `buf_page_is_corrupted`
//! (`buf0buf.cc`): the LSN copies are compared first, then the checksum,
//! and an all-zero page is accepted; `fsp0fsp.cc` (`fsp_alloc_free_page`,
//! `fsp_init_file_page`/`fsp_page_create`): a page handed out is marked
//! used in its XDES entry and written; MariaDB `fil0pagecompress.cc`:
//! a page_compressed page that does not decompress is corrupted. See
//! docs/verdicts.md.

use crate::checksum::{Scheme, Unverifiable, Verdict};
use crate::fil::{FIL_PAGE_END_LSN_OLD_CHKSUM, FIL_PAGE_FCRC32_END_LSN};
use crate::ids::{Lsn, PageNo};
use crate::space::{verify_page, PageFacts, PageProblem, Tablespace};
use std::fmt;

/// The verdict word of one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum PageVerdict {
    /// Verifies.
    Valid,
    /// All zeros, claimed by nothing: never written.
    Empty,
    /// Cannot be verified from the file alone.
    Unverifiable,
    /// Verifies, but belongs elsewhere (page number or space id).
    Foreign,
    /// All zeros while claimed (its XDES entry marks it used).
    Zeroed,
    /// A write that stopped part way: the LSN copies differ within the
    /// plausible bound.
    Torn,
    /// Does not verify, and is not torn.
    Corrupt,
    /// Verifies, but is an older copy than another page that verifies
    /// shows it should be ([`crate::stale`]).
    Stale,
    /// A slot of the system tablespace's doublewrite buffer whose copy
    /// does not verify: a copy of another page, which the server skips
    /// when it does not verify (it only ever restores from a copy that
    /// does) and `innochecksum` does not check
    /// (`is_page_doublewritebuffer`): not damage of this file. `audit`
    /// and `restore` judge the copies themselves.
    Copy,
}

impl PageVerdict {
    /// The word.
    pub fn word(self) -> &'static str {
        match self {
            PageVerdict::Valid => "valid",
            PageVerdict::Empty => "empty",
            PageVerdict::Unverifiable => "unverifiable",
            PageVerdict::Foreign => "foreign",
            PageVerdict::Zeroed => "zeroed",
            PageVerdict::Torn => "torn",
            PageVerdict::Corrupt => "corrupt",
            PageVerdict::Stale => "stale",
            PageVerdict::Copy => "copy",
        }
    }
    /// Zeroed, torn or corrupt.
    pub fn is_damaged(self) -> bool {
        matches!(
            self,
            PageVerdict::Zeroed | PageVerdict::Torn | PageVerdict::Corrupt
        )
    }
    /// Damaged or foreign: a finding (exit 1).
    pub fn is_finding(self) -> bool {
        self.is_damaged() || matches!(self, PageVerdict::Foreign | PageVerdict::Stale)
    }
}

impl fmt::Display for PageVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// What a verdict rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PageEvidence {
    /// The checksum verifies and the LSN copies agree.
    Verifies,
    /// All zeros, and free in its XDES entry (or past FSP_FREE_LIMIT, or
    /// nothing can be told of it).
    NeverWritten,
    /// All zeros, but its XDES entry marks it used.
    ZeroedInUse,
    /// Why it cannot be verified.
    Unverifiable(Unverifiable),
    /// It verifies, but this field says it belongs elsewhere.
    Foreign(PageProblem),
    /// The LSN copies differ; the trailer stands for an LSN some earlier
    /// write had (at most the newest LSN of the pages that verify).
    Torn {
        /// FIL_PAGE_LSN.
        lsn: Lsn,
        /// The LSN the trailer's low 32 bits stand for.
        trailer_lsn: Lsn,
        /// Whether the checksum still verifies (crc32 does not cover the
        /// trailer LSN).
        checksum_ok: bool,
    },
    /// The LSN copies differ, and the trailer's LSN is newer than every
    /// page that verifies (or no page verifies): bytes overwritten, not a
    /// write that stopped.
    TrailerBeyond {
        /// FIL_PAGE_LSN.
        lsn: Lsn,
        /// The LSN the trailer's low 32 bits stand for, with the header's
        /// high word.
        trailer_lsn: Lsn,
        /// The newest LSN among the pages that verify.
        newest: Option<Lsn>,
    },
    /// The problem that makes it corrupt (checksum mismatch with LSN
    /// copies that agree, a page_compressed page that does not decode).
    Problem(PageProblem),
    /// A doublewrite slot whose copy does not verify.
    DoublewriteCopy,
    /// It verifies, but is older than a newer page shows it should be.
    Stale {
        /// This page's FIL_PAGE_LSN.
        lsn: Lsn,
        /// The newer page.
        by: PageNo,
        /// Its LSN.
        by_lsn: Lsn,
        /// What the newer page shows.
        how: crate::links::StaleHow,
    },
}

impl fmt::Display for PageEvidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PageEvidence::Verifies => f.write_str("the checksum verifies"),
            PageEvidence::NeverWritten => {
                f.write_str("all zeros, and no extent descriptor claims it (never written)")
            }
            PageEvidence::ZeroedInUse => f.write_str(
                "all zeros, but its extent descriptor (XDES) marks it in use: its content is lost",
            ),
            PageEvidence::Unverifiable(Unverifiable::Encrypted) => {
                f.write_str("encrypted: the checksum cannot be checked without the key")
            }
            PageEvidence::Unverifiable(Unverifiable::PageCompressed) => {
                f.write_str("page-compressed with a codec that is not decoded")
            }
            PageEvidence::Foreign(p) => write!(f, "verifies, but {p}"),
            PageEvidence::Torn {
                lsn,
                trailer_lsn,
                checksum_ok,
            } => write!(
                f,
                "header LSN {lsn}, trailer LSN {trailer_lsn}: the page's end is from an earlier \
                 write{}",
                if checksum_ok {
                    " (the checksum still verifies)"
                } else {
                    ""
                }
            ),
            PageEvidence::TrailerBeyond {
                lsn,
                trailer_lsn,
                newest,
            } => {
                write!(
                    f,
                    "checksum mismatch; header LSN {lsn}, trailer LSN {trailer_lsn} "
                )?;
                match newest {
                    Some(n) => write!(
                        f,
                        "is newer than any page that verifies ({n}): overwritten, not torn"
                    ),
                    None => f.write_str("and no page verifies: overwritten, not torn"),
                }
            }
            PageEvidence::Problem(p) => p.fmt(f),
            PageEvidence::Stale {
                lsn,
                by,
                by_lsn,
                how,
            } => write!(
                f,
                "verifies, but is an older copy (LSN {lsn}) than page {by} (LSN {by_lsn}) shows it \
                 should be: {how}; the two are written in one mini-transaction, so this one \
                 missed a write"
            ),
            PageEvidence::DoublewriteCopy => f.write_str(
                "a doublewrite buffer slot whose copy does not verify: a copy of another page, \
                 which the server skips; not damage of this file",
            ),
        }
    }
}

/// One page's verdict, its evidence and the one byte offset in the file
/// the evidence is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageJudgement {
    /// The page.
    pub page: PageNo,
    /// The word.
    pub verdict: PageVerdict,
    /// What it rests on.
    pub evidence: PageEvidence,
    /// Byte offset in the file of the evidence.
    pub file_offset: u64,
}

impl fmt::Display for PageJudgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.verdict, self.evidence)
    }
}

/// Byte offset in a page of `problem`'s evidence. The rule: the field
/// whose stored value fails; for a checksum the page's first byte (the
/// checksum covers the page).
pub fn problem_offset(ts: &Tablespace<'_>, problem: PageProblem) -> u64 {
    match problem {
        PageProblem::Checksum | PageProblem::ZeroedInUse => 0,
        // The size is stored in FIL_PAGE_TYPE under full_crc32.
        PageProblem::CompressedSize => crate::fil::FIL_PAGE_TYPE as u64,
        PageProblem::LsnMismatch { .. } => trailer_lsn_offset(ts),
        PageProblem::PageNo { .. } => crate::fil::FIL_PAGE_OFFSET as u64,
        PageProblem::SpaceId { .. } => crate::fil::FIL_PAGE_SPACE_ID as u64,
        // An older copy: its LSN is the evidence.
        PageProblem::Stale { .. } => crate::fil::FIL_PAGE_LSN as u64,
        PageProblem::NotDecompressed { offset } => u64::from(offset),
    }
}

/// Where the trailer's LSN copy lies in a page: the last 4 bytes (classic
/// layout, `FIL_PAGE_END_LSN_OLD_CHKSUM + 4`), or 8 bytes before the end
/// under full_crc32 (`FIL_PAGE_FCRC32_END_LSN`).
fn trailer_lsn_offset(ts: &Tablespace<'_>) -> u64 {
    let size = u64::from(ts.page_size());
    match ts.scheme() {
        Scheme::FullCrc32 => size.saturating_sub(FIL_PAGE_FCRC32_END_LSN as u64),
        _ => size.saturating_sub(FIL_PAGE_END_LSN_OLD_CHKSUM as u64 / 2),
    }
}

/// The LSN a trailer's low word `t` stands for, with the header's high
/// word or the one before (a wrap of the low word), if at most `limit`.
pub fn trailer_lsn(header: Lsn, t: u32, limit: Lsn) -> Option<Lsn> {
    let hi = header.0 & 0xFFFF_FFFF_0000_0000;
    let same = hi | u64::from(t);
    if same <= limit.0 {
        return Some(Lsn(same));
    }
    let prev = hi.checked_sub(1 << 32)? | u64::from(t);
    (prev <= limit.0).then_some(Lsn(prev))
}

/// The verdict of a page with `problems` (in the order
/// [`PageFacts::problems`] gives them), `newest` being the newest LSN of
/// the pages that verify (never this page's own): the one rule every
/// command speaks through.
pub fn judge(
    ts: &Tablespace<'_>,
    f: &PageFacts,
    problems: &[PageProblem],
    newest: Option<Lsn>,
) -> PageJudgement {
    let start = ts.file_offset(f.page_no);
    let at = |verdict, evidence, problem: PageProblem| PageJudgement {
        page: f.page_no,
        verdict,
        evidence,
        file_offset: start.saturating_add(problem_offset(ts, problem)),
    };
    let checksum_ok = !problems.iter().any(|p| {
        matches!(
            p,
            PageProblem::Checksum
                | PageProblem::CompressedSize
                | PageProblem::NotDecompressed { .. }
        )
    });
    // A doublewrite slot holds a copy of another page: one that does not
    // verify is the buffer's business (the server skips it), not damage of
    // this file (MySQL and MariaDB `innochecksum`: `is_page_doublewritebuffer`
    // leaves those pages out of the check).
    if ts.in_doublewrite(f.page_no)
        && (!problems.is_empty()
            || matches!(f.verdict, Verdict::Mismatch | Verdict::BadCompressedSize))
    {
        return PageJudgement {
            page: f.page_no,
            verdict: PageVerdict::Copy,
            evidence: PageEvidence::DoublewriteCopy,
            file_offset: start,
        };
    }
    if problems.contains(&PageProblem::ZeroedInUse) {
        return at(
            PageVerdict::Zeroed,
            PageEvidence::ZeroedInUse,
            PageProblem::ZeroedInUse,
        );
    }
    for &p in problems {
        if let PageProblem::LsnMismatch { trailer, .. } = p {
            let lsn = f.lsn;
            return match newest.and_then(|n| trailer_lsn(lsn, trailer, n)) {
                Some(trailer_lsn) => at(
                    PageVerdict::Torn,
                    PageEvidence::Torn {
                        lsn,
                        trailer_lsn,
                        checksum_ok,
                    },
                    p,
                ),
                None => at(
                    PageVerdict::Corrupt,
                    PageEvidence::TrailerBeyond {
                        lsn,
                        trailer_lsn: Lsn((lsn.0 & 0xFFFF_FFFF_0000_0000) | u64::from(trailer)),
                        newest,
                    },
                    p,
                ),
            };
        }
    }
    if let Some(&p) = problems.iter().find(|p| {
        matches!(
            p,
            PageProblem::Checksum
                | PageProblem::CompressedSize
                | PageProblem::NotDecompressed { .. }
        )
    }) {
        return at(PageVerdict::Corrupt, PageEvidence::Problem(p), p);
    }
    if let Some(&p) = problems
        .iter()
        .find(|p| !matches!(p, PageProblem::Stale { .. }))
    {
        return at(PageVerdict::Foreign, PageEvidence::Foreign(p), p);
    }
    if let Some(&p) = problems.first() {
        if let PageProblem::Stale { by, by_lsn, how } = p {
            let evidence = PageEvidence::Stale {
                lsn: f.lsn,
                by,
                by_lsn,
                how,
            };
            return at(PageVerdict::Stale, evidence, p);
        }
    }
    let (verdict, evidence) = match f.verdict {
        Verdict::Empty => (PageVerdict::Empty, PageEvidence::NeverWritten),
        Verdict::Unverifiable(w) => (PageVerdict::Unverifiable, PageEvidence::Unverifiable(w)),
        Verdict::Valid(_) => (PageVerdict::Valid, PageEvidence::Verifies),
        _ => (
            PageVerdict::Corrupt,
            PageEvidence::Problem(PageProblem::Checksum),
        ),
    };
    PageJudgement {
        page: f.page_no,
        verdict,
        evidence,
        file_offset: start,
    }
}

/// The most pages an extent has (4 KiB pages: 1 MiB extents) that
/// [`ExtentBits`] holds.
const EXTENT_BITS: u32 = 256;

/// One extent's FREE bits as its XDES entry gives them, read at once
/// ([`ZeroRule::free_in_verified`]).
#[derive(Clone, Copy, Debug)]
struct ExtentBits {
    /// The extent's first page.
    first: u32,
    /// Whether its XDES page is there at all.
    present: bool,
    /// Per page (bit `i % 64` of word `i / 64`): the entry tells.
    known: [u64; 4],
    /// Per page: the entry says free.
    free: [u64; 4],
}

impl ExtentBits {
    /// The bits of the extent of `extent` pages from page `first` of `ts`:
    /// what [`Tablespace::is_free_in_verified_xdes`] reads below
    /// FSP_FREE_LIMIT, for each of its pages.
    fn read(ts: &Tablespace<'_>, first: u32, extent: u32) -> ExtentBits {
        let mut e = ExtentBits {
            first,
            present: false,
            known: [0; 4],
            free: [0; 4],
        };
        let physical = ts.page_size();
        let Some(within) = first.checked_rem(physical) else {
            return e;
        };
        let xdes_no = first.saturating_sub(within);
        let Some(page) = ts.page(PageNo(xdes_no)) else {
            return e;
        };
        e.present = true;
        let Some(idx) = within.checked_div(extent) else {
            return e;
        };
        let Some(entry) = crate::xdes::XdesEntry::new(page, idx, extent) else {
            return e;
        };
        let all_free = matches!(
            entry.state(),
            crate::xdes::XdesState::NotInited | crate::xdes::XdesState::Free
        );
        for i in 0..extent.min(EXTENT_BITS) {
            let (w, bit) = ((i / 64) as usize, 1u64 << (i % 64));
            let free = match (all_free, entry.is_free(i)) {
                (true, _) => true,
                (false, Some(f)) => f,
                (false, None) => continue,
            };
            if let (Some(k), Some(f)) = (e.known.get_mut(w), e.free.get_mut(w)) {
                *k |= bit;
                if free {
                    *f |= bit;
                }
            }
        }
        e
    }
}

/// The zero-page rule: an all-zero page is `empty` only where nothing
/// claims it; where its extent descriptor marks it used it is `zeroed`.
/// Read from the page's XDES entry and FSP_FREE_LIMIT (no tree walk), so it
/// can be asked of any page, or of each page of a run of known-zero pages.
/// The XDES page's checksum is verified once per XDES page (kept here).
///
/// Not applied (the page stays `empty`): in the system tablespace (space
/// 0), whose doublewrite and undo segments hold pages allocated and never
/// written (the space map judges those with the owners it knows); in a
/// doublewrite block; when page 0 does not verify or the XDES page does
/// not verify (nothing can be told).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ZeroRule {
    /// The last XDES page verified, and whether it verifies.
    xdes: Option<(u32, bool)>,
    /// The extent last read by [`ZeroRule::free_in_verified`]: its first
    /// page, and per page of it (bit `i` of word `i / 64`) whether its
    /// XDES entry tells (`known`) and says free (`free`), below
    /// FSP_FREE_LIMIT. Read once per extent, not per page.
    extent: Option<ExtentBits>,
    /// FSP_FREE_LIMIT, once read (`None` inside: no FSP header).
    limit: Option<Option<u32>>,
}

impl ZeroRule {
    /// Whether the all-zero page `n` of `ts` is claimed (so `zeroed`).
    pub fn claimed(&mut self, ts: &Tablespace<'_>, n: PageNo) -> bool {
        if ts.space_id().0 == 0 || !ts.detection().page0_ok || ts.in_doublewrite(n) {
            return false;
        }
        let Some(within) = n.0.checked_rem(ts.page_size()) else {
            return false;
        };
        let xdes_no = n.0.saturating_sub(within);
        self.xdes_verifies(ts, xdes_no) && self.free_in_verified(ts, n) == Some(false)
    }

    /// FSP_FREE_LIMIT of `ts` (`None`: no FSP header), read once.
    pub(crate) fn free_limit(&mut self, ts: &Tablespace<'_>) -> Option<u32> {
        *(self.limit).get_or_insert_with(|| ts.fsp_header().map(|h| h.free_limit()))
    }

    /// [`Tablespace::is_free_in_verified_xdes`] for page `n`, whose XDES
    /// page the caller found verifying: the same answer, with the extent's
    /// XDES entry read once for all its pages (pages come in order), not
    /// once per page.
    pub(crate) fn free_in_verified(&mut self, ts: &Tablespace<'_>, n: PageNo) -> Option<bool> {
        let extent = ts.format().extent_size();
        let within = n.0.checked_rem(extent)?;
        let first = n.0.saturating_sub(within);
        if extent > EXTENT_BITS {
            return ts.is_free_in_verified_xdes(n);
        }
        let bits = match self.extent {
            Some(e) if e.first == first => e,
            _ => {
                let e = ExtentBits::read(ts, first, extent);
                self.extent = Some(e);
                e
            }
        };
        if !bits.present {
            return None;
        }
        if self.free_limit(ts).is_some_and(|limit| n.0 >= limit) {
            return Some(true);
        }
        let (w, bit) = ((within / 64) as usize, 1u64 << (within % 64));
        match (bits.known.get(w), bits.free.get(w)) {
            (Some(k), Some(f)) if k & bit != 0 => Some(f & bit != 0),
            _ => None,
        }
    }

    /// Whether XDES page `xdes_no` verifies (verified once, then kept:
    /// pages come in order, so once per XDES page).
    pub fn xdes_verifies(&mut self, ts: &Tablespace<'_>, xdes_no: u32) -> bool {
        match self.xdes {
            Some((x, ok)) if x == xdes_no => ok,
            _ => {
                let ok = ts
                    .page(PageNo(xdes_no))
                    .is_some_and(|p| matches!(verify_page(p, ts.scheme()), Verdict::Valid(_)));
                self.xdes = Some((xdes_no, ok));
                ok
            }
        }
    }

    /// The first page from `n` on, before `end`, that [`ZeroRule::claimed`]
    /// may call claimed; `None` when none can be. What cannot be claimed
    /// is stepped over a run at a time, not page by page: everything at or
    /// past FSP_FREE_LIMIT, the pages under an XDES page that does not
    /// verify, the extents free (or not initialised) in their XDES entry,
    /// and the whole of a space the rule is not applied to. So a run of
    /// known-zero pages (the holes of a sparse file) costs one look per
    /// extent that may be in use, whatever the size the file claims.
    pub(crate) fn next_candidate(
        &mut self,
        ts: &Tablespace<'_>,
        n: PageNo,
        end: u32,
    ) -> Option<PageNo> {
        if ts.space_id().0 == 0 || !ts.detection().page0_ok {
            return None;
        }
        let limit = ts.fsp_header().map_or(end, |h| h.free_limit()).min(end);
        let physical = ts.page_size();
        let extent = ts.format().extent_size().max(1);
        let mut n = n.0;
        while n < limit {
            let within = n.checked_rem(physical)?;
            let xdes_no = n.saturating_sub(within);
            let next_xdes = xdes_no.saturating_add(physical);
            if !self.xdes_verifies(ts, xdes_no) {
                n = next_xdes;
                continue;
            }
            let idx = within.checked_div(extent)?;
            let next_extent = xdes_no
                .saturating_add(idx.saturating_add(1).saturating_mul(extent))
                .min(next_xdes);
            let in_use = ts
                .page(PageNo(xdes_no))
                .and_then(|p| crate::xdes::XdesEntry::new(p, idx, extent))
                .is_some_and(|e| {
                    !matches!(
                        e.state(),
                        crate::xdes::XdesState::NotInited | crate::xdes::XdesState::Free
                    )
                });
            if in_use {
                return Some(PageNo(n));
            }
            // Never stand still: an extent always ends past `n`.
            n = next_extent.max(n.saturating_add(1));
        }
        None
    }
}
