//! The doublewrite buffer of a system tablespace (MySQL 5.6, MariaDB
//! 10.11), and which of its copies a server would write over a damaged
//! page of a tablespace at crash recovery.
//!
//! Layout (`trx0sys.h`, see [`crate::system`]): the TRX_SYS page (5) names
//! two blocks of `FSP_EXTENT_SIZE` pages (`TRX_SYS_DOUBLEWRITE_BLOCK1`,
//! `_BLOCK2`); slot `i` is page `block1 + i` for `i <` the block size, else
//! `block2 + i − size`. Each slot holds a whole image of a page of any
//! space as it was written just before its write in place (a
//! ROW_FORMAT=COMPRESSED page: its compressed bytes first), so its own
//! FIL header names its space (`FIL_PAGE_SPACE_ID`), page
//! (`FIL_PAGE_OFFSET`) and LSN.
//!
//! Which copy the server writes over a page (`buf0dblwr.cc`):
//!
//! - MySQL 5.6 (`buf_dblwr_process`): the slots in order; for a slot whose
//!   space is open and whose page is within it, the page is read from the
//!   file; if it is corrupted (`buf_page_is_corrupted`: checksum, or the
//!   header and trailer LSN words differ) the slot's copy is written over
//!   it, unless the copy is corrupted too, when the server stops ("Also
//!   the page in the doublewrite buffer is corrupt. Cannot continue
//!   operation."); an all-zero page gets the first valid non-zero copy. So
//!   the first copy in slot order decides.
//! - MariaDB 10.11 (`buf_dblwr_t::init_or_load_pages`,
//!   `buf_dblwr_t::recover`, `recv_dblwr_t::find_page`,
//!   `recv_dblwr_t::validate_page`): only copies whose LSN lies between
//!   the checkpoint and the log's end count ("pages written before or
//!   after the recovery range are not usable"). When the page in the file
//!   is all zero or does not verify, the copy written is the one with the
//!   highest LSN among those copies that verify under the space's flags
//!   (the first of equal LSNs); none: the page is left.
//!
//! Both run only at crash recovery (MySQL 5.6 `recv_init_crash_recovery`;
//! MariaDB `recv_recovery_from_checkpoint_start`).

use crate::system::{TrxSys, FSP_TRX_SYS_PAGE_NO};
use ibdscope_core::checksum::{lsn_pair, Scheme, Verdict};
use ibdscope_core::fil::FilHeader;
use ibdscope_core::space::verify_page;
use ibdscope_core::{Lsn, PageNo, SpaceId, Tablespace};

/// One slot of the doublewrite buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Slot {
    /// Its number (0 to twice the block size − 1), in the order the server
    /// reads them.
    pub slot: u32,
    /// The page of the system tablespace that holds it.
    pub at: PageNo,
    /// The copy's `FIL_PAGE_SPACE_ID`.
    pub space: SpaceId,
    /// The copy's `FIL_PAGE_OFFSET`.
    pub page: PageNo,
    /// The copy's `FIL_PAGE_LSN`.
    pub lsn: Lsn,
    /// The copy's checksum verdict: under the system tablespace's scheme,
    /// else the other uncompressed one (classic, full_crc32).
    pub verdict: Verdict,
    /// The header and trailer LSN words agree (where the layout has both).
    pub lsn_ok: bool,
}

impl Slot {
    /// Whether the slot holds nothing (never used, or all zero).
    pub fn is_empty(&self) -> bool {
        self.verdict == Verdict::Empty
    }
}

/// The doublewrite buffer, read from a system tablespace.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DoublewriteBuffer {
    /// First page of block 1.
    pub block1: u32,
    /// First page of block 2.
    pub block2: u32,
    /// Pages per block (`FSP_EXTENT_SIZE` of the system page size).
    pub block_pages: u32,
    /// The system tablespace's page size (every slot's size).
    pub page_size: u32,
    /// Every slot, in order; a slot past the file's end is left out.
    pub slots: Vec<Slot>,
}

/// Whether `page` verifies under `scheme` as the server's
/// `buf_page_is_corrupted` checks it: the checksum, and the header and
/// trailer LSN words where the layout has both. An all-zero page counts as
/// not verifying here (no copy to write).
pub fn intact(page: &[u8], scheme: Scheme) -> bool {
    let v = verify_page(page, scheme);
    matches!(v, Verdict::Valid(_)) && lsn_pair(page, scheme).is_none_or(|(h, t)| h == t)
}

fn slot_verdict(page: &[u8], scheme: Scheme) -> (Verdict, bool) {
    let other = match scheme {
        Scheme::FullCrc32 => Scheme::Classic,
        _ => Scheme::FullCrc32,
    };
    let mut v = verify_page(page, scheme);
    let mut used = scheme;
    if !v.is_ok() {
        let w = verify_page(page, other);
        if w.is_ok() {
            v = w;
            used = other;
        }
    }
    let lsn_ok = lsn_pair(page, used).is_none_or(|(h, t)| h == t);
    (v, lsn_ok)
}

impl DoublewriteBuffer {
    /// Reads the buffer of `sys` (space 0, its files joined): `None` when
    /// it is not a system tablespace, has no TRX_SYS page or no
    /// doublewrite magic there.
    pub fn read(sys: &Tablespace<'_>) -> Option<DoublewriteBuffer> {
        if sys.space_id().0 != 0 {
            return None;
        }
        let trx = TrxSys::read(sys.page(PageNo(FSP_TRX_SYS_PAGE_NO))?)?;
        let dw = trx.doublewrite.filter(|d| d.magic_ok)?;
        let block_pages = sys.format().extent_size();
        let mut slots = Vec::new();
        let n = block_pages.saturating_mul(2);
        for i in 0..n {
            let at = if i < block_pages {
                dw.block1.saturating_add(i)
            } else {
                dw.block2.saturating_add(i.saturating_sub(block_pages))
            };
            let Some(page) = sys.page(PageNo(at)) else {
                continue;
            };
            let Some(h) = FilHeader::new(page) else {
                continue;
            };
            let (verdict, lsn_ok) = slot_verdict(page, sys.scheme());
            slots.push(Slot {
                slot: i,
                at: PageNo(at),
                space: h.space_id(),
                page: h.page_no(),
                lsn: h.lsn(),
                verdict,
                lsn_ok,
            });
        }
        Some(DoublewriteBuffer {
            block1: dw.block1,
            block2: dw.block2,
            block_pages,
            page_size: sys.page_size(),
            slots,
        })
    }

    /// The bytes of slot `s` in `sys` (the space it was read from), cut to
    /// `len` bytes (a tablespace's physical page size).
    pub fn copy<'a>(&self, sys: &Tablespace<'a>, s: &Slot, len: u32) -> Option<&'a [u8]> {
        let page = sys.page(s.at)?;
        page.get(..usize::try_from(len).ok()?)
    }

    /// The non-empty slots holding a copy of `page` of `space`, in slot
    /// order.
    pub fn copies_of(&self, space: SpaceId, page: PageNo) -> impl Iterator<Item = &Slot> + '_ {
        self.slots
            .iter()
            .filter(move |s| s.space == space && s.page == page && s.lsn.0 != 0)
    }
}

/// The server whose rule picks the copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// MySQL 5.6 (and 5.7): the first copy in slot order.
    MySql,
    /// MariaDB: the newest copy that verifies among those from the
    /// checkpoint to the log's end.
    MariaDb {
        /// The redo log's checkpoint (`None`: no log read; no filter).
        checkpoint: Option<Lsn>,
        /// How far the log is complete (`None`: no filter).
        log_end: Option<Lsn>,
    },
}

/// What is wrong with a page of the tablespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Damage {
    /// The checksum does not verify.
    Checksum,
    /// The checksum verifies but the header and trailer LSN words differ
    /// (a torn write).
    LsnMismatch,
    /// Every byte is zero (a page that was never written, or lost): the
    /// servers write a copy over it when there is one.
    Zeroes,
}

/// Why a damaged page is left as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Left {
    /// No slot holds a copy of the page.
    NoCopy,
    /// MySQL 5.6: the first copy does not verify: the server stops
    /// ("Also the page in the doublewrite buffer is corrupt").
    FirstCopyCorrupt {
        /// Its slot.
        slot: u32,
    },
    /// No copy verifies.
    NoValidCopy,
    /// MariaDB: every copy is older than the checkpoint.
    OlderThanCheckpoint,
    /// MariaDB: every copy not older than the checkpoint is past the
    /// log's end.
    PastLogEnd,
}

/// One page of the tablespace the doublewrite buffer concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Repair {
    /// The page.
    pub page: PageNo,
    /// What is wrong with it.
    pub damage: Damage,
    /// The page's own LSN (`FIL_PAGE_LSN`), when it has a header.
    pub lsn: Lsn,
    /// The header and trailer LSN words differ (a torn write), whatever
    /// the checksum says.
    pub lsn_words_differ: bool,
    /// The page's verdict, by the rule every command speaks through
    /// ([`ibdscope_core::verdict::judge`]): `torn` only within the newest LSN of
    /// the file's pages that verify.
    pub verdict: ibdscope_core::PageVerdict,
    /// The slot whose copy the server writes over it, or why none.
    pub choice: Result<Slot, Left>,
}

/// The damaged pages of `ts` (its checksum does not verify, or its LSN
/// words differ) and its all-zero pages that have a copy, each with the
/// copy the server of `rule` would write over it. Zero pages without a
/// copy are not listed (free pages are zero). Bounded by the file's pages.
pub fn repairs(
    ts: &Tablespace<'_>,
    sys: &Tablespace<'_>,
    dw: &DoublewriteBuffer,
    rule: Rule,
) -> Vec<Repair> {
    let space = ts.space_id();
    let scheme = ts.scheme();
    let ps = ts.page_size();
    let mut out = Vec::new();
    // The verdicts (as every command gives them), once the newest LSN of
    // the pages that verify is known.
    let mut judged: Vec<(
        ibdscope_core::PageFacts,
        [Option<ibdscope_core::space::PageProblem>; 2],
    )> = Vec::new();
    let mut newest: Option<Lsn> = None;
    let mut judge = ibdscope_core::summary::Judge::default();
    let mut zeros = ibdscope_core::verdict::ZeroRule::default();
    // Only pages with a copy can be zero-filled back; a damaged page is
    // listed whatever. The holes of a sparse file (known zeros, never
    // read) are looked at only where a slot holds a copy of one of their
    // pages: a walk bounded by the data and the slots, not the file's size.
    let mut in_holes: Vec<u32> = dw
        .slots
        .iter()
        .filter(|s| s.space == space && ts.is_known_zero(s.page))
        .map(|s| s.page.0)
        .collect();
    in_holes.sort_unstable();
    in_holes.dedup();
    let holes = in_holes
        .into_iter()
        .filter_map(|n| ts.page(PageNo(n)).map(|p| (PageNo(n), p)));
    for (n, page) in merge_by_page(ts.data_pages(), holes) {
        let (facts, instead) = judge.judge(ts, ibdscope_core::space::page_facts(page, n, scheme));
        let mut problems = ts.page_problems(&facts).map(|p| match (p, instead) {
            (ibdscope_core::space::PageProblem::Checksum, Some(i)) => i,
            _ => p,
        });
        let first = problems.next();
        if first.is_none() && matches!(facts.verdict, Verdict::Valid(_)) && facts.lsn.0 != 0 {
            newest = newest.max(Some(facts.lsn));
        }
        let verdict = verify_page(page, scheme);
        let lsn_words_differ = lsn_pair(page, scheme).is_some_and(|(h, t)| h != t);
        let damage = match verdict {
            Verdict::Empty => Damage::Zeroes,
            Verdict::Valid(_) => match lsn_pair(page, scheme) {
                Some((h, t)) if h != t => Damage::LsnMismatch,
                _ => continue,
            },
            Verdict::Mismatch | Verdict::BadCompressedSize => Damage::Checksum,
            _ => continue,
        };
        let copies: Vec<&Slot> = dw.copies_of(space, n).collect();
        if damage == Damage::Zeroes && copies.is_empty() {
            continue;
        }
        let good = |s: &Slot| dw.copy(sys, s, ps).is_some_and(|c| intact(c, scheme));
        let choice = if copies.is_empty() {
            Err(Left::NoCopy)
        } else {
            match rule {
                Rule::MySql => mysql_choice(&copies, damage, &good),
                Rule::MariaDb {
                    checkpoint,
                    log_end,
                } => mariadb_choice(&copies, checkpoint, log_end, &good),
            }
        };
        if damage == Damage::Zeroes && choice.is_err() {
            continue;
        }
        let zeroed = damage == Damage::Zeroes && zeros.claimed(ts, n);
        let lsn_problem =
            problems.find(|p| matches!(p, ibdscope_core::space::PageProblem::LsnMismatch { .. }));
        judged.push((
            facts,
            if zeroed {
                [Some(ibdscope_core::space::PageProblem::ZeroedInUse), None]
            } else {
                [first, lsn_problem]
            },
        ));
        out.push(Repair {
            page: n,
            damage,
            lsn: FilHeader::new(page).map_or(Lsn(0), |h| h.lsn()),
            lsn_words_differ: lsn_words_differ && damage != Damage::Zeroes,
            verdict: ibdscope_core::PageVerdict::Corrupt,
            choice,
        });
    }
    for (r, (facts, problems)) in out.iter_mut().zip(&judged) {
        let problems: Vec<ibdscope_core::space::PageProblem> =
            problems.iter().flatten().copied().collect();
        r.verdict = ibdscope_core::verdict::judge(ts, facts, &problems, newest).verdict;
    }
    out
}

/// The pages of `a` and `b` (each in page order, none in both) in page
/// order.
fn merge_by_page<'p, A, B>(a: A, b: B) -> impl Iterator<Item = (PageNo, &'p [u8])>
where
    A: Iterator<Item = (PageNo, &'p [u8])>,
    B: Iterator<Item = (PageNo, &'p [u8])>,
{
    let mut a = a.peekable();
    let mut b = b.peekable();
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y.0 < x.0 => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

fn mysql_choice(
    copies: &[&Slot],
    damage: Damage,
    good: &dyn Fn(&Slot) -> bool,
) -> Result<Slot, Left> {
    if damage == Damage::Zeroes {
        // The first copy that is not zero and verifies.
        return copies
            .iter()
            .find(|s| good(s))
            .map(|s| **s)
            .ok_or(Left::NoValidCopy);
    }
    let first = copies.first().ok_or(Left::NoCopy)?;
    if good(first) {
        Ok(**first)
    } else {
        Err(Left::FirstCopyCorrupt { slot: first.slot })
    }
}

fn mariadb_choice(
    copies: &[&Slot],
    checkpoint: Option<Lsn>,
    log_end: Option<Lsn>,
    good: &dyn Fn(&Slot) -> bool,
) -> Result<Slot, Left> {
    // buf_dblwr_t::init_or_load_pages keeps no copy older than the
    // checkpoint, and buf_dblwr_t::recover uses none past the log's end.
    let after = |s: &&Slot| checkpoint.is_none_or(|c| s.lsn >= c);
    let before = |s: &&Slot| log_end.is_none_or(|e| s.lsn <= e);
    let window: Vec<&Slot> = copies
        .iter()
        .copied()
        .filter(after)
        .filter(before)
        .collect();
    if window.is_empty() {
        return Err(if copies.iter().any(after) {
            Left::PastLogEnd
        } else {
            Left::OlderThanCheckpoint
        });
    }
    // recv_dblwr_t::find_page: the highest LSN among the valid copies (a
    // later copy must be strictly newer).
    let mut best: Option<&Slot> = None;
    for s in window {
        if best.is_some_and(|b| s.lsn <= b.lsn) || !good(s) {
            continue;
        }
        best = Some(s);
    }
    best.copied().ok_or(Left::NoValidCopy)
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]
mod tests {
    use super::*;

    fn slot(slot: u32, lsn: u64) -> Slot {
        Slot {
            slot,
            at: PageNo(64 + slot),
            space: SpaceId(5),
            page: PageNo(3),
            lsn: Lsn(lsn),
            verdict: Verdict::Empty,
            lsn_ok: true,
        }
    }

    #[test]
    fn mysql_takes_the_first_copy_and_stops_on_a_bad_one() {
        let (a, b) = (slot(0, 100), slot(7, 200));
        let copies = [&a, &b];
        let all = |_: &Slot| true;
        assert_eq!(mysql_choice(&copies, Damage::Checksum, &all), Ok(a));
        let not_first = |s: &Slot| s.slot != 0;
        assert_eq!(
            mysql_choice(&copies, Damage::Checksum, &not_first),
            Err(Left::FirstCopyCorrupt { slot: 0 })
        );
        // A zero page takes the first copy that verifies.
        assert_eq!(mysql_choice(&copies, Damage::Zeroes, &not_first), Ok(b));
    }

    #[test]
    fn mariadb_takes_the_newest_valid_copy_between_checkpoint_and_log_end() {
        let (a, b, c) = (slot(0, 100), slot(7, 300), slot(9, 300));
        let copies = [&a, &b, &c];
        let all = |_: &Slot| true;
        let w = |ck, end| (Some(Lsn(ck)), Some(Lsn(end)));
        let (ck, end) = w(50, 1000);
        // Equal LSNs: the first.
        assert_eq!(mariadb_choice(&copies, ck, end, &all), Ok(b));
        let not_b = |s: &Slot| s.slot != 7;
        assert_eq!(mariadb_choice(&copies, ck, end, &not_b), Ok(c));
        let only_a = |s: &Slot| s.slot == 0;
        assert_eq!(mariadb_choice(&copies, ck, end, &only_a), Ok(a));
        let none = |_: &Slot| false;
        assert_eq!(
            mariadb_choice(&copies, ck, end, &none),
            Err(Left::NoValidCopy)
        );
        let (ck, end) = w(400, 1000);
        assert_eq!(
            mariadb_choice(&copies, ck, end, &all),
            Err(Left::OlderThanCheckpoint)
        );
        let (ck, end) = w(250, 260);
        assert_eq!(
            mariadb_choice(&copies, ck, end, &all),
            Err(Left::PastLogEnd)
        );
        // A copy older than the checkpoint is never used, even when the
        // newer ones do not verify.
        let (ck, end) = w(250, 1000);
        assert_eq!(
            mariadb_choice(&copies, ck, end, &only_a),
            Err(Left::NoValidCopy)
        );
        // Without a log, every copy counts.
        assert_eq!(mariadb_choice(&copies, None, None, &only_a), Ok(a));
    }
}
