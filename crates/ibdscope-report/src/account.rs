//! Where one page stands (`page FILE N`'s account, as innodb_ruby's
//! `page-account`): its extent and the extent's XDES entry, the list the
//! extent is on, the owning segment (inode, fragment slot or extent), the
//! index and level the page carries, and the contradictions between them,
//! in words. Everything comes from the space map the file's `Analysis`
//! builds once ([`ibdscope_core::SpaceMap::account`]): no walk of its own.

use crate::json::Json;
use ibdscope::analysis::Analysis;
use ibdscope_core::extents::{ExtentList, PageAccount, SegmentRole};
use ibdscope_core::index::{PAGE_HEADER, PAGE_INDEX_ID, PAGE_LEVEL, PAGE_N_RECS};
use ibdscope_core::xdes::XdesState;
use ibdscope_core::{IndexHeader, IndexId, Owner, PageNo};
use std::io::{self, Write};

/// The index facts of an index page: PAGE_INDEX_ID, PAGE_LEVEL and its
/// user records (walked, or PAGE_N_RECS on compressed pages).
#[derive(Clone, Copy, Debug)]
pub struct OnPage {
    /// PAGE_INDEX_ID.
    pub index: IndexId,
    /// PAGE_LEVEL.
    pub level: u16,
    /// User records.
    pub records: u32,
}

impl OnPage {
    /// The facts of a page with an index header.
    pub fn of(h: &IndexHeader<'_>, records: u32) -> Self {
        OnPage {
            index: h.index_id(),
            level: h.level(),
            records,
        }
    }
}

/// A contradiction between what the page says and what the structures
/// say about it.
#[derive(Clone, Debug)]
pub struct Contradiction {
    /// Byte offset in the page of the field that contradicts.
    pub page_offset: usize,
    /// In words.
    pub reason: String,
    /// Damage (exit 1), or a normal trace of deletes (a freed page that
    /// still holds records).
    pub damage: bool,
}

/// A page's account.
pub struct Account {
    /// From the space map; `None` when it has no entry for the page.
    pub at: Option<PageAccount>,
    /// The page's index facts, if it is a readable index page.
    pub on_page: Option<OnPage>,
    /// What does not fit.
    pub contradictions: Vec<Contradiction>,
}

/// The short name of an XDES state.
fn state_name(s: XdesState) -> &'static str {
    match s {
        XdesState::NotInited => "NOT_INITED",
        XdesState::Free => "FREE",
        XdesState::FreeFrag => "FREE_FRAG",
        XdesState::FullFrag => "FULL_FRAG",
        XdesState::Fseg => "FSEG",
        XdesState::FsegFrag => "FSEG_FRAG",
        XdesState::Unknown(_) => "unknown",
    }
}

/// The XDES state's raw value.
fn state_code(s: XdesState) -> u32 {
    match s {
        XdesState::NotInited => 0,
        XdesState::Free => 1,
        XdesState::FreeFrag => 2,
        XdesState::FullFrag => 3,
        XdesState::Fseg => 4,
        XdesState::FsegFrag => 5,
        XdesState::Unknown(v) => v,
    }
}

/// Whether the XDES entry calls the page free: its FREE bit, or an extent
/// that is free as a whole, or the page past FSP_FREE_LIMIT.
fn xdes_calls_free(at: &PageAccount) -> bool {
    at.past_free_limit
        || at.xdes.is_some_and(|x| {
            matches!(x.state, XdesState::Free | XdesState::NotInited) || x.free == Some(true)
        })
}

impl Account {
    /// The account of page `n`, whose index facts are `on_page`.
    pub fn of(a: &Analysis<'_>, n: PageNo, on_page: Option<OnPage>) -> Account {
        let at = a.map().account(a.ts(), n);
        let mut acc = Account {
            at,
            on_page,
            contradictions: Vec::new(),
        };
        acc.check(a);
        acc
    }

    fn push(&mut self, field: usize, damage: bool, reason: String) {
        self.contradictions.push(Contradiction {
            page_offset: PAGE_HEADER.saturating_add(field),
            reason,
            damage,
        });
    }

    /// Finds the contradictions between the page's index facts and the
    /// structures.
    fn check(&mut self, a: &Analysis<'_>) {
        let (Some(at), Some(p)) = (self.at, self.on_page) else {
            return;
        };
        if p.records > 0 && xdes_calls_free(&at) {
            self.push(
                PAGE_N_RECS,
                false,
                format!(
                    "the extent descriptor calls this page free, yet it holds {} records of \
                     index {} level {} (a page freed by a merge, purge or drop keeps its bytes)",
                    p.records,
                    a.index_label(p.index),
                    p.level
                ),
            );
        }
        let Owner::Segment {
            seg_id,
            index: Some(seg_index),
            role,
            ..
        } = at.owner
        else {
            return;
        };
        if seg_index != p.index {
            self.push(
                PAGE_INDEX_ID,
                true,
                format!(
                    "the page's PAGE_INDEX_ID is {} but its segment {seg_id} belongs to index {}",
                    a.index_label(p.index),
                    a.index_label(seg_index)
                ),
            );
            return;
        }
        let root = a.map().index(seg_index).map(|i| i.root);
        match role {
            SegmentRole::Leaf if p.level > 0 => self.push(
                PAGE_LEVEL,
                true,
                format!(
                    "the page is at level {} but sits in the leaf segment {seg_id}",
                    p.level
                ),
            ),
            SegmentRole::Internal if p.level == 0 && root != Some(at.page) => self.push(
                PAGE_LEVEL,
                true,
                format!(
                    "the page is a leaf (level 0) but sits in the non-leaf segment {seg_id} \
                     and is not the root"
                ),
            ),
            _ => {}
        }
    }

    /// Whether a contradiction is damage.
    pub fn damaged(&self) -> bool {
        self.contradictions.iter().any(|c| c.damage)
    }

    /// The account as text lines.
    pub fn text(&self, out: &mut dyn Write, a: &Analysis<'_>) -> io::Result<()> {
        let Some(at) = &self.at else {
            return writeln!(out, "account: the space map has no entry for this page");
        };
        writeln!(out, "page account")?;
        let last = at
            .extent_first
            .0
            .saturating_add(at.extent_pages)
            .saturating_sub(1);
        writeln!(
            out,
            "  {:<12} {} (pages {}..{}), described by the XDES entry on page {} at offset {}",
            "extent", at.extent, at.extent_first, last, at.xdes_page, at.xdes_offset
        )?;
        let xdes = match at.xdes {
            None => "unreadable".to_string(),
            Some(x) => {
                let mut s = format!("{} ({})", state_name(x.state), state_code(x.state));
                if matches!(x.state, XdesState::Fseg | XdesState::FsegFrag) {
                    s.push_str(&format!(", XDES_ID segment {}", x.seg_id));
                }
                s.push_str(match x.free {
                    Some(true) => "; the page's FREE bit is set (free)",
                    Some(false) => "; the page's FREE bit is clear (used)",
                    None => "; the page's FREE bit is past the bitmap",
                });
                s
            }
        };
        writeln!(out, "  {:<12} {xdes}", "XDES state")?;
        if at.past_free_limit {
            writeln!(
                out,
                "  {:<12} at or past FSP_FREE_LIMIT: free",
                "free limit"
            )?;
        }
        writeln!(
            out,
            "  {:<12} {}",
            "extent list",
            at.list.map_or("none", ExtentList::name)
        )?;
        writeln!(out, "  {:<12} {}", "owner", owner_text(at, a))?;
        match self.on_page {
            Some(p) => writeln!(
                out,
                "  {:<12} {}, level {}{}, {} records",
                "index",
                a.index_label(p.index),
                p.level,
                if p.level == 0 { " (leaf)" } else { "" },
                p.records
            )?,
            None => writeln!(out, "  {:<12} - (not a readable index page)", "index")?,
        }
        for c in &self.contradictions {
            writeln!(out, "contradiction: {}", c.reason)?;
        }
        Ok(())
    }

    /// The account as the JSON member `account`.
    pub fn json(&self, j: &mut Json<'_>, a: &Analysis<'_>) -> io::Result<()> {
        j.key("account")?;
        let Some(at) = &self.at else {
            j.null()?;
            return Ok(());
        };
        j.obj()?
            .kv_num("extent", at.extent)?
            .kv_num("extent_first_page", at.extent_first.0)?;
        j.kv_num("xdes_page", at.xdes_page.0)?
            .kv_num("xdes_offset", at.xdes_offset as u64)?;
        j.key("xdes_state")?;
        match at.xdes {
            Some(x) => j.str(state_name(x.state))?,
            None => j.null()?,
        };
        let seg = at
            .xdes
            .filter(|x| matches!(x.state, XdesState::Fseg | XdesState::FsegFrag))
            .map(|x| x.seg_id);
        j.key("xdes_segment_id")?.opt_num(seg)?;
        j.key("free_bit")?;
        match at.xdes.and_then(|x| x.free) {
            Some(b) => j.bool(b)?,
            None => j.null()?,
        };
        j.kv_bool("past_free_limit", at.past_free_limit)?;
        j.key("extent_list")?;
        match at.list {
            Some(l) => j.str(l.name())?,
            None => j.null()?,
        };
        json_owner(j, at, a)?;
        j.key("index")?;
        match self.on_page {
            Some(p) => {
                j.obj()?
                    .kv_index(a, p.index)?
                    .kv_num("level", p.level)?
                    .kv_num("records", p.records)?
                    .end_obj()?;
            }
            None => {
                j.null()?;
            }
        }
        j.key("contradictions")?.arr()?;
        for c in &self.contradictions {
            j.obj()?
                .kv_num("page_offset", c.page_offset as u64)?
                .kv_str("reason", &c.reason)?
                .kv_bool("damage", c.damage)?
                .end_obj()?;
        }
        j.end_arr()?.end_obj()?;
        Ok(())
    }
}

/// The owner in words: `segment 4 (inode page 2 offset 242), leaf segment
/// of index 30 idx_name, fragment page (FSEG_FRAG_ARR slot 3 at offset
/// 306)`.
fn owner_text(at: &PageAccount, a: &Analysis<'_>) -> String {
    match at.owner {
        Owner::System(k) => format!("system page ({k})"),
        Owner::Free => "free".to_string(),
        Owner::Unaccounted => "none: used per XDES, but no list or segment claims it".to_string(),
        Owner::Segment {
            seg_id,
            index,
            role,
            frag,
        } => {
            let mut s = format!("segment {seg_id}");
            if let Some(seg) = at.segment {
                s.push_str(&format!(
                    " (inode page {} offset {})",
                    seg.inode.page, seg.inode.byte
                ));
            }
            match index {
                Some(i) => s.push_str(&format!(", {role} segment of index {}", a.index_label(i))),
                None => s.push_str(", of no index"),
            }
            if frag {
                s.push_str(", fragment page");
                if let Some((slot, off)) = at.frag_slot {
                    s.push_str(&format!(" (FSEG_FRAG_ARR slot {slot} at offset {off})"));
                }
            } else {
                s.push_str(", in one of the segment's extents");
            }
            s
        }
    }
}

/// The owner as the JSON member `owner`.
fn json_owner(j: &mut Json<'_>, at: &PageAccount, a: &Analysis<'_>) -> io::Result<()> {
    j.key("owner")?.obj()?;
    match at.owner {
        Owner::System(k) => {
            j.kv_str("kind", "system")?.kv_display("structure", &k)?;
        }
        Owner::Free => {
            j.kv_str("kind", "free")?;
        }
        Owner::Unaccounted => {
            j.kv_str("kind", "unaccounted")?;
        }
        Owner::Segment {
            seg_id,
            index,
            role,
            frag,
        } => {
            j.kv_str("kind", "segment")?.kv_num("segment_id", seg_id)?;
            j.key("inode_page")?
                .opt_num(at.segment.map(|s| u64::from(s.inode.page.0)))?;
            j.key("inode_offset")?
                .opt_num(at.segment.map(|s| u64::from(s.inode.byte)))?;
            j.kv_display("role", &role)?;
            match index {
                Some(i) => {
                    j.kv_index(a, i)?;
                }
                None => {
                    j.key("index_id")?.null()?.key("index_name")?.null()?;
                }
            }
            j.kv_bool("fragment", frag)?;
            j.key("frag_slot")?
                .opt_num(at.frag_slot.map(|(s, _)| u64::from(s)))?;
            j.key("frag_slot_offset")?
                .opt_num(at.frag_slot.map(|(_, o)| o as u64))?;
        }
    }
    j.end_obj()?;
    Ok(())
}
