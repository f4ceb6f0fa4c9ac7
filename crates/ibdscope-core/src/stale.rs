//! The `stale` verdict: a page that verifies but is an older copy than
//! another page that verifies shows it should be.
//!
//! InnoDB changes pages in mini-transactions, and at its commit every page
//! the mini-transaction changed gets the same FIL_PAGE_LSN, its end LSN
//! (`mtr_t::commit` → `buf_flush_note_modification`, mysql-server 8.0
//! `storage/innobase/mtr/mtr0mtr.cc`, MariaDB 10.11
//! `storage/innobase/mtr/mtr0mtr.cc`). Some facts are written on two pages
//! in one mini-transaction, so in a file whose pages all come from one
//! moment they agree; where they disagree, the page whose LSN is older
//! missed the mini-transaction the other one holds: it is a copy from an
//! earlier generation (a page put back from an old backup, a write the
//! disk lost, a copy of a running server that read it too early). Two such
//! facts are read here:
//!
//! - **Sibling links.** `btr_page_split_and_insert` → `btr_attach_half_pages`
//!   and `btr_level_list_remove` (`btr0btr.cc`) set `FIL_PAGE_NEXT` of one
//!   page and `FIL_PAGE_PREV` of its right sibling in one mini-transaction,
//!   and a page's siblings are pages of the same index and level. So
//!   between two B-tree pages in use (their extent descriptor marks them
//!   used) that both verify, `A.next = B` with `B.prev ≠ A`, or a link from
//!   a page of one index and level to a page of another, makes the older
//!   of the two `stale`.
//! - **Extent descriptors.** A page is freed in the mini-transaction that
//!   sets its FREE bit in its XDES entry (`fseg_free_page` → `fsp_free_page`,
//!   `fsp0fsp.cc`), and is not written again until it is allocated again,
//!   which clears the bit in another such mini-transaction
//!   (`fsp_alloc_from_free_frag`, `fseg_alloc_free_page_low`); a page at
//!   or past `FSP_FREE_LIMIT` has never been handed out (`fsp_fill_free_list`
//!   moves the limit in a mini-transaction on page 0 before it does). So a
//!   page that verifies and is newer than the XDES page that calls it free
//!   (page 0 for a page past the free limit) shows that XDES page is the
//!   older copy: `stale`.
//!
//! When the two LSNs are equal nothing can be told (the contradiction is
//! not a missed write), and no page is judged; nor when two pages of two
//! indexes or levels name each other both ways (a page taken by another
//! tree is relinked in the mini-transaction that takes it, so both links
//! would not survive: the index header, not a generation, is in doubt). Links of pages that are free
//! in their descriptor are not read (a freed page keeps its old links), nor
//! pages that do not verify, doublewrite copies, encrypted or compressed
//! bytes. docs/verdicts.md gives the rule with the other verdicts.

use crate::checksum::{Scheme, Verdict};
use crate::fil::FilHeader;
use crate::fil::FIL_PAGE_LSN;
use crate::ids::{Lsn, PageNo, FIL_NULL};
use crate::index::IndexHeader;
pub use crate::links::{Link, StaleHow};
use crate::page_type::PageType;
use crate::space::{PageFacts, PageProblem, Tablespace};
use crate::verdict::ZeroRule;

/// One B-tree page's links as the sibling rule reads them: a page of type
/// INDEX, RTREE or SDI that verifies and whose bytes are plain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Links {
    /// The page.
    pub page: u32,
    /// FIL_PAGE_PREV.
    pub prev: u32,
    /// FIL_PAGE_NEXT.
    pub next: u32,
    /// FIL_PAGE_LSN.
    pub lsn: u64,
    /// PAGE_INDEX_ID.
    pub index: u64,
    /// PAGE_LEVEL.
    pub level: u16,
}

impl Links {
    /// The links of the page `page` whose facts (after the server's
    /// judgement) are `f`, if the rule reads them: a B-tree page that
    /// verifies, holds plain bytes (not encrypted or compressed:
    /// [`PageFacts::has_space_id`], and no MariaDB key version), is not a
    /// doublewrite copy and has a sibling.
    pub fn of(ts: &Tablespace<'_>, f: &PageFacts, page: &[u8]) -> Option<Links> {
        if !matches!(f.verdict, Verdict::Valid(_))
            || !f.has_space_id
            || f.lsn.0 == 0
            || !matches!(
                f.page_type,
                PageType::FIL_PAGE_INDEX | PageType::FIL_PAGE_RTREE | PageType::FIL_PAGE_SDI
            )
            || (f.prev.is_null() && f.next.is_null())
            || f.stored_page_no != f.page_no
            || ts.in_doublewrite(f.page_no)
        {
            return None;
        }
        // MariaDB encryption outside full_crc32 keeps the FIL header and
        // stores the key version at byte 26 (`fil0crypt.cc`): the index
        // header is ciphertext. (MySQL 5.7+ R-tree pages keep their split
        // sequence number there, FIL_RTREE_SPLIT_SEQ_NUM: not read either.)
        if ts.scheme() != Scheme::FullCrc32 && FilHeader::new(page)?.key_version() != 0 {
            return None;
        }
        let h = IndexHeader::new(page)?;
        Some(Links {
            page: f.page_no.0,
            prev: f.prev.0,
            next: f.next.0,
            lsn: f.lsn.0,
            index: h.index_id().0,
            level: h.level(),
        })
    }

    fn link(&self, link: Link) -> u32 {
        match link {
            Link::Prev => self.prev,
            Link::Next => self.next,
        }
    }
}

/// A page judged stale: the page and the problem that says why.
pub type StalePage = (PageNo, PageProblem);

/// Whether page `n` is in use in its extent descriptor (`Some(false)` from
/// [`Tablespace::is_free`]).
fn in_use(ts: &Tablespace<'_>, n: u32) -> bool {
    ts.is_free(PageNo(n)) == Some(false)
}

/// The pages the sibling rule judges stale, from the links of the file's
/// B-tree pages in page order (`links`, as [`Links::of`] gives them),
/// each with its problem ([`PageProblem::Stale`]), in page order, a page
/// once (its first evidence).
pub fn stale_by_links(ts: &Tablespace<'_>, links: &[Links]) -> Vec<StalePage> {
    let at = Positions::new(links);
    let find = |n: u32| at.find(links, n);
    let mut out: Vec<StalePage> = Vec::new();
    for a in links {
        for link in [Link::Next, Link::Prev] {
            let to = a.link(link);
            if to == FIL_NULL || to == a.page {
                continue;
            }
            let Some(b) = find(to) else { continue };
            let back = b.link(link.back());
            let same_tree = a.index == b.index && a.level == b.level;
            // Links that name each other but pages of two trees: a page
            // reused by another tree is relinked when it is reused, so
            // this is no missed write; nothing can be told.
            if back == a.page {
                continue;
            }
            if a.lsn == b.lsn || !in_use(ts, a.page) || !in_use(ts, b.page) {
                continue;
            }
            // The older one missed the mini-transaction that linked them.
            let (stale, by, how) = if a.lsn < b.lsn {
                let how = if same_tree {
                    StaleHow::LinksTo { link, back }
                } else {
                    StaleHow::OtherTree
                };
                (a, b, how)
            } else {
                let how = if same_tree {
                    StaleHow::LinkedFrom { link, back }
                } else {
                    StaleHow::OtherTree
                };
                (b, a, how)
            };
            out.push((
                PageNo(stale.page),
                PageProblem::Stale {
                    by: PageNo(by.page),
                    by_lsn: Lsn(by.lsn),
                    how,
                },
            ));
        }
    }
    out.sort_by_key(|(n, _)| *n);
    out.dedup_by_key(|(n, _)| *n);
    out
}

/// Where each page's links sit in a `links` slice in page order: a table
/// from page number to position where the pages are dense (a B-tree
/// file's are), else none and a binary search; both find the same entry.
struct Positions {
    first: u32,
    at: Vec<u32>,
}

impl Positions {
    fn new(links: &[Links]) -> Self {
        let first = links.first().map_or(0, |l| l.page);
        let span = (links.last())
            .map_or(0, |l| l.page.saturating_sub(first) as usize)
            .saturating_add(1);
        let mut at: Vec<u32> = Vec::new();
        if span <= links.len().saturating_mul(4) {
            at.resize(span, u32::MAX);
            for (k, l) in links.iter().enumerate() {
                if let Some(slot) = at.get_mut(l.page.saturating_sub(first) as usize) {
                    *slot = u32::try_from(k).unwrap_or(u32::MAX);
                }
            }
        }
        Positions { first, at }
    }

    fn find<'l>(&self, links: &'l [Links], n: u32) -> Option<&'l Links> {
        if self.at.is_empty() {
            let k = links.binary_search_by_key(&n, |l| l.page).ok()?;
            return links.get(k);
        }
        let k = *self.at.get(n.checked_sub(self.first)? as usize)?;
        links.get(k as usize)
    }
}

/// The extent descriptor rule for one page that verifies (`f`, its facts
/// after the server's judgement): if its XDES entry calls it free (or it
/// lies at or past FSP_FREE_LIMIT) and it is newer than the page that says
/// so, that page is stale. `zeros` reads the XDES pages (each verified and
/// read once while pages come in order, [`crate::verdict::ZeroRule`]).
pub fn stale_descriptor(
    ts: &Tablespace<'_>,
    f: &PageFacts,
    zeros: &mut ZeroRule,
) -> Option<StalePage> {
    if !matches!(f.verdict, Verdict::Valid(_)) || f.stored_page_no != f.page_no {
        return None;
    }
    stale_descriptor_at(ts, f.page_no, f.lsn, zeros)
}

/// [`stale_descriptor`] for page `page`, which the caller found verifies,
/// in its place, with FIL_PAGE_LSN `lsn`.
pub fn stale_descriptor_at(
    ts: &Tablespace<'_>,
    page: PageNo,
    lsn: Lsn,
    zeros: &mut ZeroRule,
) -> Option<StalePage> {
    if lsn.0 == 0 || page.0 == 0 || ts.in_doublewrite(page) || !ts.detection().page0_ok {
        return None;
    }
    let n = page.0;
    let physical = ts.page_size();
    let within = n.checked_rem(physical)?;
    let xdes_no = n.saturating_sub(within);
    if within == 0 {
        return None; // an XDES page describes itself in use
    }
    let past_limit = zeros.free_limit(ts).is_some_and(|limit| n >= limit);
    let (describer, how) = if past_limit {
        (0, StaleHow::BelowFreeLimit)
    } else {
        (xdes_no, StaleHow::DescribesFree)
    };
    if !zeros.xdes_verifies(ts, xdes_no) || zeros.free_in_verified(ts, page) != Some(true) {
        return None;
    }
    // Page 0 verifies (`page0_ok`); an XDES page was verified by `xdes_ok`.
    let d = ts.page(PageNo(describer))?;
    let d_lsn = crate::bytes::be_u64(d, FIL_PAGE_LSN)?;
    (lsn.0 > d_lsn).then_some((
        PageNo(describer),
        PageProblem::Stale {
            by: page,
            by_lsn: lsn,
            how,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::{Links, Positions};

    fn links(pages: &[u32]) -> Vec<Links> {
        (pages.iter())
            .map(|&page| Links {
                page,
                prev: 0,
                next: 0,
                lsn: u64::from(page),
                index: 1,
                level: 0,
            })
            .collect()
    }

    /// The table (dense pages) and the binary search (sparse ones) find
    /// each page's entry, and nothing for a page without links.
    #[test]
    fn positions_find_every_page_dense_or_sparse() {
        for pages in [
            vec![3, 4, 5, 7, 8, 11],
            vec![3, 400, 9000, 9001, 4_000_000_000],
            vec![],
            vec![0],
        ] {
            let l = links(&pages);
            let p = Positions::new(&l);
            // A table only where the pages are dense.
            assert_eq!(p.at.is_empty(), pages.is_empty() || pages.contains(&9000));
            for probe in 0..12 {
                let want = pages.contains(&probe).then_some(u64::from(probe));
                assert_eq!(p.find(&l, probe).map(|x| x.lsn), want, "{pages:?} {probe}");
            }
            for &q in &pages {
                assert_eq!(p.find(&l, q).map(|x| x.page), Some(q));
            }
            assert!(p.find(&l, u32::MAX).is_none() || pages.contains(&u32::MAX));
        }
    }
}
