//! Two copies of one tablespace compared page by page: which pages differ,
//! how their LSNs moved, which index or structure they belong to, and which
//! pages only one copy has.
//!
//! Pages are compared byte for byte at the same position. A changed page's
//! LSN move says which copy holds the later write: InnoDB raises
//! FIL_PAGE_LSN with every change of a page (`mtr_t::commit` stamps the
//! end LSN of the mini-transaction), so a restore or a later copy should
//! only ever move LSNs forward; a move back means the second copy holds an
//! older write of that page. Bytes that differ at the same LSN were not
//! changed by InnoDB (damage, or the flush LSN field of page 0, which is
//! written outside the log).
//!
//! Which index a page belongs to: PAGE_INDEX_ID for index pages; for other
//! pages the owner in the [`SpaceMap`] of the copy that has it (BLOB pages
//! belong to their index's leaf segment).

use crate::error::{Error, ErrorKind};
use ibdscope_core::extents::{Owner, SpaceMap};
use ibdscope_core::fil::FilHeader;
use ibdscope_core::index::IndexHeader;
use ibdscope_core::{Engine, IndexId, Lsn, PageNo, PageType, Tablespace};
use std::fmt;

/// How one page differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Both copies have the page and its bytes differ.
    Changed {
        /// FIL_PAGE_LSN in the first copy.
        lsn_a: Lsn,
        /// FIL_PAGE_LSN in the second copy.
        lsn_b: Lsn,
        /// First differing byte within the page.
        first_byte: u32,
        /// Number of differing bytes.
        bytes: u32,
    },
    /// Only the first copy has the page (the second is shorter).
    OnlyA {
        /// Its LSN.
        lsn: Lsn,
    },
    /// Only the second copy has the page.
    OnlyB {
        /// Its LSN.
        lsn: Lsn,
    },
}

/// Which way an LSN moved from the first copy to the second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Move {
    /// The second copy's page is newer.
    Newer,
    /// The second copy's page is older (a restore should never do this).
    Older,
    /// Same LSN, different bytes.
    Same,
    /// The page is in one copy only.
    Added,
    /// The page is in the first copy only.
    Removed,
}

impl Move {
    /// As printed.
    pub fn name(self) -> &'static str {
        match self {
            Move::Newer => "newer",
            Move::Older => "older",
            Move::Same => "same-lsn",
            Move::Added => "added",
            Move::Removed => "removed",
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// One page that differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageDiff {
    /// The page.
    pub page: PageNo,
    /// How.
    pub change: Change,
    /// FIL_PAGE_TYPE (of the second copy, or the first for a removed page).
    pub page_type: PageType,
    /// The index the page belongs to, if any.
    pub index: Option<IndexId>,
}

impl PageDiff {
    /// The LSN move.
    pub fn lsn_move(&self) -> Move {
        match self.change {
            Change::Changed { lsn_a, lsn_b, .. } => match lsn_b.cmp(&lsn_a) {
                std::cmp::Ordering::Greater => Move::Newer,
                std::cmp::Ordering::Less => Move::Older,
                std::cmp::Ordering::Equal => Move::Same,
            },
            Change::OnlyA { .. } => Move::Removed,
            Change::OnlyB { .. } => Move::Added,
        }
    }
}

/// Pages that differ, grouped by type, index and LSN move (or another
/// key of a page's change: [`Diff::groups_by`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiffGroup<K = Move> {
    /// The page type.
    pub page_type: PageType,
    /// The index.
    pub index: Option<IndexId>,
    /// The move.
    pub lsn_move: K,
    /// Pages.
    pub pages: u32,
}

/// The comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diff {
    /// Pages in the first copy.
    pub pages_a: u32,
    /// Pages in the second copy.
    pub pages_b: u32,
    /// Pages present in both with identical bytes.
    pub identical: u32,
    /// Pages that differ, in page order.
    pub changes: Vec<PageDiff>,
    /// Whether the space ids differ (then these are not copies of one
    /// tablespace, but the pages are still compared).
    pub space_ids_differ: bool,
}

/// Whether `ts` is a MariaDB encrypted space (page 0's crypt data,
/// scheme 1).
fn mariadb_encrypted(ts: &Tablespace<'_>) -> bool {
    use ibdscope_core::crypt::mariadb::{space_crypt_data, CryptDataRead};
    matches!(space_crypt_data(ts), CryptDataRead::Present(c) if c.scheme == 1)
}

/// The index of page `n` (`stored` in copy `ts`, a MariaDB encrypted space
/// when `encrypted`, `content` its decrypted image, or `ts` itself): PAGE_INDEX_ID of a readable index page, else
/// the owner in `map` (built from `content`). A page the image could not
/// decrypt holds its stored bytes there and is judged as stored.
fn index_of(
    stored: &[u8],
    ts: &Tablespace<'_>,
    content: &Tablespace<'_>,
    encrypted: bool,
    map: &SpaceMap,
    n: PageNo,
) -> Option<IndexId> {
    // Held for this page only (a decrypted space is read through a page
    // source whose memory stays bounded).
    let held = content.page_ref(n);
    let (page, readable_in) = match held.as_deref() {
        Some(c) if c != stored => (c, content),
        _ => (stored, ts),
    };
    // A page of a MariaDB encrypted space that carries a key version and
    // was not decrypted: its body is ciphertext, whatever its checksum
    // says (outside full_crc32 a damaged one cannot be told from a plain
    // one by its bytes).
    let ciphertext = std::ptr::eq(page, stored) && encrypted && {
        let full = ts.scheme() == ibdscope_core::checksum::Scheme::FullCrc32;
        ibdscope_core::crypt::mariadb::key_version(page, full) != 0
    };
    let h = FilHeader::new(page)?;
    if !ciphertext
        && h.page_type().is_index(ts.type_names())
        && ibdscope_core::flst::page_readable(readable_in, page)
    {
        return IndexHeader::new(page).map(|i| i.index_id());
    }
    match map.owner(content, n) {
        Some(Owner::Segment { index, .. }) => index,
        _ => None,
    }
}

impl Diff {
    /// Compares `a` with `b`, page by page; their space maps are built on
    /// `engine`, and the page walk reports to its progress hook.
    pub fn of(a: &Tablespace<'_>, b: &Tablespace<'_>, engine: &Engine<'_>) -> Result<Diff, Error> {
        Self::sizes_agree(a, b)?;
        let (map_a, map_b) = (SpaceMap::build(a, engine), SpaceMap::build(b, engine));
        Self::compare(a, b, (a, &map_a), (b, &map_b), engine)
    }

    /// The copies have one page size, or the error that they do not.
    fn sizes_agree(a: &Tablespace<'_>, b: &Tablespace<'_>) -> Result<(), Error> {
        if a.page_size() != b.page_size() {
            return Err(Error::whole(ErrorKind::PageSizesDiffer {
                a: a.page_size(),
                b: b.page_size(),
            }));
        }
        Ok(())
    }

    /// [`Diff::of`], the pages compared as stored in `a` and `b`, their
    /// types and indexes read from `content_a` and `content_b` (the
    /// decrypted spaces of encrypted copies; each must have its copy's page
    /// size and number of pages, else the copy itself is read) with the
    /// space map of each content space (`map_a`, `map_b`: a caller that
    /// keeps a model of each file hands its maps, so none is built twice).
    pub fn with_content(
        a: &Tablespace<'_>,
        b: &Tablespace<'_>,
        content_a: (&Tablespace<'_>, &SpaceMap),
        content_b: (&Tablespace<'_>, &SpaceMap),
        engine: &Engine<'_>,
    ) -> Result<Diff, Error> {
        let fits = |ts: &Tablespace<'_>, c: &Tablespace<'_>| {
            c.page_size() == ts.page_size() && c.n_pages() == ts.n_pages()
        };
        Self::sizes_agree(a, b)?;
        let (ma, mb);
        let ca = if fits(a, content_a.0) {
            content_a
        } else {
            ma = SpaceMap::build(a, engine);
            (a, &ma)
        };
        let cb = if fits(b, content_b.0) {
            content_b
        } else {
            mb = SpaceMap::build(b, engine);
            (b, &mb)
        };
        Self::compare(a, b, ca, cb, engine)
    }

    fn compare(
        a: &Tablespace<'_>,
        b: &Tablespace<'_>,
        (ca, map_a): (&Tablespace<'_>, &SpaceMap),
        (cb, map_b): (&Tablespace<'_>, &SpaceMap),
        engine: &Engine<'_>,
    ) -> Result<Diff, Error> {
        let (enc_a, enc_b) = (mariadb_encrypted(a), mariadb_encrypted(b));
        let mut d = Diff {
            pages_a: a.n_pages(),
            pages_b: b.n_pages(),
            identical: 0,
            changes: Vec::new(),
            space_ids_differ: a.space_id() != b.space_id(),
        };
        let n = a.n_pages().max(b.n_pages());
        let lsn = |p: &[u8]| FilHeader::new(p).map_or(Lsn(0), |h| h.lsn());
        let ty = |p: &[u8]| FilHeader::new(p).map_or(PageType(0), |h| h.page_type());
        // Pages both copies hold as holes (known zeros, never read): alike,
        // a run at a time.
        let hole = |t: &Tablespace<'_>, i: u32| {
            t.next_zero_run(i, t.n_pages())
                .filter(|(z, _)| z.0 == i)
                .map(|(_, k)| k)
        };
        let mut next = 0u32;
        while next < n {
            let i = next;
            next = i.saturating_add(1);
            if let (Some(x), Some(y)) = (hole(a, i), hole(b, i)) {
                let k = x.min(y).max(1);
                d.identical = d.identical.saturating_add(k);
                next = i.saturating_add(k);
                engine.progress(u64::from(next), u64::from(n));
                continue;
            }
            let done = i.saturating_add(1);
            if done.is_multiple_of(256) || done == n {
                engine.progress(u64::from(done), u64::from(n));
            }
            let page = PageNo(i);
            let change = match (a.page(page), b.page(page)) {
                (Some(pa), Some(pb)) => {
                    if pa == pb {
                        d.identical = d.identical.saturating_add(1);
                        continue;
                    }
                    let first = pa.iter().zip(pb).position(|(x, y)| x != y).unwrap_or(0);
                    let bytes = pa.iter().zip(pb).filter(|(x, y)| x != y).count();
                    d.changes.push(PageDiff {
                        page,
                        change: Change::Changed {
                            lsn_a: lsn(pa),
                            lsn_b: lsn(pb),
                            first_byte: u32::try_from(first).unwrap_or(u32::MAX),
                            bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
                        },
                        page_type: ty(cb.page_ref(page).as_deref().unwrap_or(pb)),
                        index: index_of(pb, b, cb, enc_b, map_b, page)
                            .or_else(|| index_of(pa, a, ca, enc_a, map_a, page)),
                    });
                    continue;
                }
                (Some(pa), None) => PageDiff {
                    page,
                    change: Change::OnlyA { lsn: lsn(pa) },
                    page_type: ty(ca.page_ref(page).as_deref().unwrap_or(pa)),
                    index: index_of(pa, a, ca, enc_a, map_a, page),
                },
                (None, Some(pb)) => PageDiff {
                    page,
                    change: Change::OnlyB { lsn: lsn(pb) },
                    page_type: ty(cb.page_ref(page).as_deref().unwrap_or(pb)),
                    index: index_of(pb, b, cb, enc_b, map_b, page),
                },
                (None, None) => continue,
            };
            d.changes.push(change);
        }
        Ok(d)
    }

    /// Whether the copies are byte-identical (whole pages; a torn tail is
    /// not compared).
    pub fn is_identical(&self) -> bool {
        self.changes.is_empty() && self.pages_a == self.pages_b
    }

    /// The changes grouped by page type, index and LSN move, largest group
    /// first.
    pub fn groups(&self) -> Vec<DiffGroup> {
        self.groups_by(PageDiff::lsn_move)
    }

    /// [`Diff::groups`] with `how` in place of the LSN move (a caller
    /// that knows a page fails verification names its verdict instead).
    pub fn groups_by<K: Ord + Copy>(&self, how: impl Fn(&PageDiff) -> K) -> Vec<DiffGroup<K>> {
        let mut g: Vec<DiffGroup<K>> = Vec::new();
        for c in &self.changes {
            let key = (c.page_type, c.index, how(c));
            match g
                .iter_mut()
                .find(|x| (x.page_type, x.index, x.lsn_move) == key)
            {
                Some(x) => x.pages = x.pages.saturating_add(1),
                None => g.push(DiffGroup {
                    page_type: key.0,
                    index: key.1,
                    lsn_move: key.2,
                    pages: 1,
                }),
            }
        }
        g.sort_by(|x, y| {
            y.pages
                .cmp(&x.pages)
                .then(x.page_type.cmp(&y.page_type))
                .then(x.index.cmp(&y.index))
                .then(x.lsn_move.cmp(&y.lsn_move))
        });
        g
    }

    /// How many changed pages moved each way.
    pub fn moves(&self) -> Vec<(Move, u32)> {
        self.moves_by(PageDiff::lsn_move)
    }

    /// [`Diff::moves`] with `how` in place of the LSN move.
    pub fn moves_by<K: Ord + Copy>(&self, how: impl Fn(&PageDiff) -> K) -> Vec<(K, u32)> {
        let mut m: Vec<(K, u32)> = Vec::new();
        for c in &self.changes {
            let k = how(c);
            match m.iter_mut().find(|(x, _)| *x == k) {
                Some((_, n)) => *n = n.saturating_add(1),
                None => m.push((k, 1)),
            }
        }
        m.sort();
        m
    }
}
