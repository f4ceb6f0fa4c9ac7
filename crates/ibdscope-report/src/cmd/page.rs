//! `ibdscope page FILE N`: one page in full. Every FIL header field; on
//! index pages every index header field, the system records, the
//! directory, the user and free chains record by record, a one-line byte
//! map, and the page's findings with their byte offsets.

use crate::account::{Account, OnPage};
use crate::args::{Format, Opts};
use crate::hexdump;
use crate::json::Json;
use crate::outcome::Outcome;
use crate::page_views::Status;
use crate::page_views::{json_record, Flags, Next, Size};
use crate::text::Link;
use ibdscope::analysis::Analysis;
use ibdscope_core::fil::FilHeader;
use ibdscope_core::inode::FsegHeader;
use ibdscope_core::layout::{ByteClass, ByteMap, PageLayout};
use ibdscope_core::record::{Chain, RecFinding};
use ibdscope_core::space::PageProblem;
use ibdscope_core::{
    NoRecords, PageFacts, PageNo, PageRecords, Rec, RecPage, RecScratch, Tablespace, Visited,
};
use std::io::{self, Write};
use std::path::Path;

/// Cells of the byte map.
const MAP_CELLS: u32 = 64;

/// What the page holds, as far as it can be read.
enum Content<'a> {
    /// All zero bytes.
    Empty,
    /// An index page with readable records.
    Index(IndexView<'a>),
    /// A ROW_FORMAT=COMPRESSED index page: header only.
    Compressed(RecPage<'a>, PageRecords),
    /// Not an index page.
    NotIndex,
    /// Encrypted or page-compressed.
    Unreadable,
}

struct IndexView<'a> {
    rp: RecPage<'a>,
    figures: PageRecords,
    layout: PageLayout,
    map: ByteMap,
}

/// `PAGE_DIRECTION` names (page0page.h / page0types.h: PAGE_LEFT 1,
/// PAGE_RIGHT 2, PAGE_SAME_REC 3, PAGE_SAME_PAGE 4, PAGE_NO_DIRECTION 5).
/// MariaDB keeps the direction in the low 3 bits (the rest is PAGE_INSTANT).
fn direction_name(raw: u16) -> &'static str {
    match raw & 7 {
        1 => "left",
        2 => "right",
        3 => "same_rec",
        4 => "same_page",
        5 => "no_direction",
        _ => "unknown",
    }
}

/// Runs `page`.
pub fn run(opts: &Opts, a: &Analysis<'_>, n: u32, out: &mut dyn Write) -> io::Result<Outcome> {
    // The page as stored (a page_compressed page is shown compressed);
    // its account comes from the structure (`a.ts()`).
    let (path, ts) = (a.path(), a.physical());
    let n = PageNo(n);
    let (Some(bytes), Some(facts)) = (ts.page(n), ts.scan_range(n.0, n.0).next()) else {
        // The one rule for pages past the end: exit 2.
        let n_pages = u64::from(ts.n_pages());
        let asked = format_args!("page {n}");
        return Ok(crate::maps::past_end(path, asked, n_pages, ts.page_size()));
    };
    // The page's verdict is the summary's: the one every command gives.
    let summary = a.summary();
    let judged = ibdscope_core::summary::Judge::default().judge(ts, facts).0;
    let verdict = summary.verdict(ts, &judged);
    let problems: Vec<PageProblem> = match summary.bad_page(n) {
        Some(b) => b
            .findings
            .iter()
            .filter_map(|f| match f.kind {
                ibdscope_core::FindingKind::Page(p) => Some(p),
                _ => None,
            })
            .collect(),
        None => ts.page_problems(&facts).collect(),
    };
    let mut rec_findings: Vec<RecFinding> = Vec::new();
    let content = if facts.is_empty() {
        Content::Empty
    } else {
        match RecPage::of(ts, n) {
            Ok(rp) if rp.is_compressed() => {
                let figures = rp.analyse(&mut RecScratch::default(), &mut rec_findings);
                Content::Compressed(rp, figures)
            }
            Ok(rp) => {
                let figures = rp.analyse(&mut RecScratch::default(), &mut rec_findings);
                let mut layout = PageLayout::new();
                layout.read(&rp, &mut Visited::new(), None);
                let map = layout.byte_map(&rp);
                Content::Index(IndexView {
                    rp,
                    figures,
                    layout,
                    map,
                })
            }
            Err(NoRecords::NotIndex(_)) => Content::NotIndex,
            Err(NoRecords::Unreadable(_)) => Content::Unreadable,
            Err(NoRecords::PastFile) => Content::Unreadable,
        }
    };
    let on_page = match &content {
        Content::Index(v) => Some(OnPage::of(&v.rp.header(), v.figures.n_recs())),
        Content::Compressed(rp, fig) => Some(OnPage::of(&rp.header(), fig.n_recs())),
        // A page_compressed page: its index facts from the logical image.
        Content::Unreadable => RecPage::of(a.ts(), n).ok().map(|rp| {
            let fig = rp.analyse(&mut RecScratch::default(), &mut Vec::new());
            OnPage::of(&rp.header(), fig.n_recs())
        }),
        _ => None,
    };
    let account = Account::of(a, n, on_page);
    let page = Page {
        a,
        path,
        ts,
        n,
        bytes,
        facts,
        problems,
        verdict,
        rec_findings,
        content,
        account,
        hex: opts.hex,
    };
    match opts.format {
        Format::Json => page.json(out)?,
        _ => page.text(out)?,
    }
    Ok(
        // The page's own trust is its verdict alone (a doublewrite slot's
        // copy shows its problems but is verdict `copy`, no finding).
        if !page.verdict.verdict.is_finding()
            && page.rec_findings.is_empty()
            && !page.account.damaged()
        {
            Outcome::Clean
        } else {
            Outcome::Findings
        },
    )
}

struct Page<'a, 't> {
    a: &'a Analysis<'t>,
    path: &'a Path,
    ts: &'a Tablespace<'t>,
    n: PageNo,
    bytes: &'t [u8],
    facts: PageFacts,
    problems: Vec<PageProblem>,
    /// The page's verdict ([`ibdscope_core::verdict`]).
    verdict: ibdscope_core::PageJudgement,
    rec_findings: Vec<RecFinding>,
    content: Content<'t>,
    account: Account,
    /// `--hex`: the named byte ranges instead of the record listing.
    hex: bool,
}

/// Every record of one chain (user records only on the user chain).
fn chain_records(rp: &RecPage<'_>, chain: Chain, visited: &mut Visited, mut f: impl FnMut(Rec)) {
    let it = match chain {
        Chain::User => rp.records(visited),
        Chain::Free => rp.free_records(visited),
    };
    let Some(mut it) = it else { return };
    while let Ok(Some(rec)) = it.next() {
        if rec.is_user() {
            f(rec);
        }
    }
}

impl Page<'_, '_> {
    fn note(&self) -> Option<&'static str> {
        match self.content {
            Content::Empty if self.verdict.verdict == ibdscope_core::PageVerdict::Zeroed => Some(
                "all-zero page, but its extent descriptor marks it in use: zeroed (its content \
                 is lost)",
            ),
            Content::Empty => Some("all-zero page, and nothing claims it: never written"),
            Content::Compressed(..) => Some(
                "ROW_FORMAT=COMPRESSED page: the header is shown; the records are a zlib \
                 stream and are not decoded",
            ),
            Content::NotIndex => Some(
                "not an index page: its FIL header is shown (space structure: `ibdscope \
                 extents`, `segments`, `lists`)",
            ),
            Content::Unreadable => {
                Some("encrypted or page-compressed page: only its FIL header is readable")
            }
            Content::Index(ref v) if v.rp.format() == ibdscope_core::RecFormat::Compact => Some(
                "COMPACT records: record sizes need the column layout (not read); sizes \
                 marked <= run to the next record's header and are upper bounds",
            ),
            Content::Index(_) => None,
        }
    }

    fn findings(&self) -> Vec<(usize, String)> {
        let size = self.bytes.len();
        let mut v: Vec<(usize, String)> = self
            .problems
            .iter()
            .map(|p| {
                let at = ibdscope_core::verdict::problem_offset(self.ts, *p);
                (usize::try_from(at).unwrap_or(size), p.to_string())
            })
            .collect();
        v.extend(
            self.rec_findings
                .iter()
                .map(|f| (usize::from(f.page_offset), f.problem.to_string())),
        );
        v.extend(
            self.account
                .contradictions
                .iter()
                .filter(|c| c.damage)
                .map(|c| (c.page_offset, c.reason.clone())),
        );
        v
    }

    /// The page's named byte ranges (`--hex`).
    fn ranges(&self) -> Vec<hexdump::Range> {
        let index = match &self.content {
            Content::Index(v) => Some((&v.rp, &v.layout)),
            _ => None,
        };
        hexdump::ranges(self.ts, self.n, self.bytes, index)
    }

    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.hex {
            self.text_first_line(out)?;
            hexdump::text(out, self.bytes, &self.ranges())?;
            return self.text_findings(out);
        }
        self.text_fil(out)?;
        if let Some(note) = self.note() {
            writeln!(out, "note: {note}")?;
        }
        self.text_system(out)?;
        self.account.text(out, self.a)?;
        let (rp, figures) = match &self.content {
            Content::Index(v) => (&v.rp, &v.figures),
            Content::Compressed(rp, fig) => (rp, fig),
            _ => return self.text_findings(out),
        };
        text_index_header(out, rp, figures)?;
        if let Content::Index(v) = &self.content {
            text_records(out, v)?;
            text_byte_map(out, v)?;
        }
        self.text_findings(out)
    }

    /// The system tablespace's fixed pages: what they are, and the TRX_SYS
    /// and dictionary headers decoded; a doublewrite copy named as one.
    fn text_system(&self, out: &mut dyn Write) -> io::Result<()> {
        use ibdscope_forensics::system as sys;
        if self.ts.space_id().0 != 0 {
            return Ok(());
        }
        if self.ts.in_doublewrite(self.n) {
            writeln!(
                out,
                "system: a doublewrite buffer page (a copy of page {} of space {})",
                self.facts.stored_page_no, self.facts.space_id
            )?;
        }
        if let Some(what) = sys::special_page(self.n.0) {
            writeln!(out, "system: {what}")?;
        }
        match self.n.0 {
            sys::FSP_TRX_SYS_PAGE_NO => {
                if let Some(t) = sys::TrxSys::read(self.bytes) {
                    crate::system::trx_sys_text(out, &t)?;
                }
            }
            sys::FSP_DICT_HDR_PAGE_NO => {
                if let Some(d) = sys::DictHeader::read(self.bytes) {
                    crate::system::dict_text(out, &d)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The page's first line: where it is, its type and checksum.
    fn text_first_line(&self, out: &mut dyn Write) -> io::Result<()> {
        let names = self.ts.type_names();
        let f = &self.facts;
        writeln!(
            out,
            "{}: page {} of {} ({} bytes at byte offset {}): {}, checksum {}",
            ibdscope::names::path(self.path),
            self.n,
            self.ts.n_pages(),
            self.bytes.len(),
            self.ts.file_offset(self.n),
            f.page_type.display(names),
            Status::of(self.ts, f)
        )?;
        let v = &self.verdict;
        writeln!(
            out,
            "verdict: page {} at byte offset {}: {}: {}",
            v.page, v.file_offset, v.verdict, v.evidence
        )
    }

    /// The page's first line and its FIL header.
    fn text_fil(&self, out: &mut dyn Write) -> io::Result<()> {
        let names = self.ts.type_names();
        self.text_first_line(out)?;
        if let Some(fil) = FilHeader::new(self.bytes) {
            writeln!(out, "FIL header")?;
            let rows: [(&str, String); 8] = [
                (
                    "FIL_PAGE_SPACE_OR_CHKSUM",
                    format!("0x{:08x}", fil.checksum()),
                ),
                ("FIL_PAGE_OFFSET", fil.page_no().to_string()),
                ("FIL_PAGE_PREV", Link(fil.prev()).to_string()),
                ("FIL_PAGE_NEXT", Link(fil.next()).to_string()),
                ("FIL_PAGE_LSN", fil.lsn().to_string()),
                (
                    "FIL_PAGE_TYPE",
                    format!("{} ({})", fil.page_type().0, fil.page_type().display(names)),
                ),
                ("FIL_PAGE_FILE_FLUSH_LSN", fil.flush_lsn().to_string()),
                ("FIL_PAGE_SPACE_ID", fil.space_id().to_string()),
            ];
            for (k, v) in rows {
                writeln!(out, "  {k:<26} {v}")?;
            }
        }
        if let Some(v) = self.key_version() {
            let how = if v == 0 { " (stored unencrypted)" } else { "" };
            writeln!(out, "  {:<26} {v}{how}", "key version (MariaDB)")?;
        }
        Ok(())
    }

    /// The page's key version in a MariaDB encrypted space (0: stored
    /// unencrypted); `None` elsewhere and for page 0.
    fn key_version(&self) -> Option<u32> {
        crate::page_views::KeyVersions::of_space(self.ts).of(self.ts, self.n)
    }

    fn text_findings(&self, out: &mut dyn Write) -> io::Result<()> {
        let base = self.ts.file_offset(self.n);
        for (at, why) in self.findings() {
            writeln!(
                out,
                "{}: page {} at byte offset {} (page offset {at}): {why}",
                ibdscope::names::path(self.path),
                self.n,
                base.saturating_add(at as u64)
            )?;
        }
        Ok(())
    }

    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        let names = self.ts.type_names();
        let f = &self.facts;
        let mut j = Json::new(out);
        j.obj()?
            .kv_path("file", self.path)?
            .kv_num("page", self.n.0)?;
        j.kv_num("page_size", self.ts.page_size())?
            .kv_num("logical_page_size", self.ts.format().logical_size)?;
        j.kv_num("file_offset", self.ts.file_offset(self.n))?;
        j.kv_display("type", &f.page_type.display(names))?
            .kv_num("type_code", f.page_type.0)?;
        j.kv_display("checksum", &Status::of(self.ts, f))?;
        j.kv_str("verdict", self.verdict.verdict.word())?
            .kv_num("verdict_offset", self.verdict.file_offset)?
            .kv_display("evidence", &self.verdict.evidence)?;
        if let Some(v) = self.key_version() {
            j.kv_num("key_version", v)?;
        }
        j.kv_str(
            "content",
            match self.content {
                Content::Empty => "empty",
                Content::Index(_) => "index",
                Content::Compressed(..) => "compressed_index",
                Content::NotIndex => "not_index",
                Content::Unreadable => "unreadable",
            },
        )?;
        if let Some(note) = self.note() {
            j.kv_str("note", note)?;
        }
        self.json_fil(&mut j)?;
        self.account.json(&mut j, self.a)?;
        let (rp, figures) = match &self.content {
            Content::Index(v) => (Some(&v.rp), Some(&v.figures)),
            Content::Compressed(rp, fig) => (Some(rp), Some(fig)),
            _ => (None, None),
        };
        if let (Some(rp), Some(figures)) = (rp, figures) {
            json_index_header(&mut j, rp, figures)?;
        }
        if let Content::Index(v) = &self.content {
            json_records(&mut j, v)?;
        }
        if self.hex {
            hexdump::json(&mut j, self.bytes, &self.ranges())?;
        }
        j.key("findings")?.arr()?;
        let base = self.ts.file_offset(self.n);
        for (at, why) in self.findings() {
            j.obj()?
                .kv_num("offset", base.saturating_add(at as u64))?
                .kv_num("page_offset", at as u64)?
                .kv_str("reason", &why)?
                .end_obj()?;
        }
        j.end_arr()?.end_obj()?;
        j.writer().write_all(b"\n")
    }

    /// The FIL header as JSON.
    fn json_fil(&self, j: &mut Json<'_>) -> io::Result<()> {
        if let Some(fil) = FilHeader::new(self.bytes) {
            let link = |p: PageNo| (!p.is_null()).then_some(u64::from(p.0));
            j.key("fil")?.obj()?;
            j.kv_num("checksum", fil.checksum())?
                .kv_num("page_number", fil.page_no().0)?;
            j.key("prev")?.opt_num(link(fil.prev()))?;
            j.key("next")?.opt_num(link(fil.next()))?;
            j.kv_num("lsn", fil.lsn().0)?
                .kv_num("type_code", fil.page_type().0)?;
            j.kv_num("flush_lsn", fil.flush_lsn().0)?
                .kv_num("space_id", fil.space_id().0)?;
            j.end_obj()?;
        }
        Ok(())
    }
}

/// The INDEX header and the page's fill (index and compressed pages).
fn text_index_header(
    out: &mut dyn Write,
    rp: &RecPage<'_>,
    figures: &PageRecords,
) -> io::Result<()> {
    let h = rp.header();
    writeln!(out, "INDEX header")?;
    let seg = |s: FsegHeader| format!("space {} page {} offset {}", s.space, s.page, s.offset);
    let rows: [(&str, String); 14] = [
        ("PAGE_N_DIR_SLOTS", h.n_dir_slots().to_string()),
        ("PAGE_HEAP_TOP", h.heap_top().to_string()),
        (
            "PAGE_N_HEAP",
            format!(
                "{} ({})",
                h.n_heap(),
                if h.is_compact() {
                    "compact flag set: COMPACT/DYNAMIC/COMPRESSED records"
                } else {
                    "compact flag clear: REDUNDANT records"
                }
            ),
        ),
        ("PAGE_FREE", h.free().to_string()),
        ("PAGE_GARBAGE", h.garbage().to_string()),
        ("PAGE_LAST_INSERT", h.last_insert().to_string()),
        (
            "PAGE_DIRECTION",
            format!(
                "{} ({})",
                h.direction_raw(),
                direction_name(h.direction_raw())
            ),
        ),
        ("PAGE_N_DIRECTION", h.n_direction().to_string()),
        ("PAGE_N_RECS", h.n_recs().to_string()),
        ("PAGE_MAX_TRX_ID", h.max_trx_id().to_string()),
        (
            "PAGE_LEVEL",
            format!(
                "{}{}",
                h.level(),
                if h.level() == 0 { " (leaf)" } else { "" }
            ),
        ),
        ("PAGE_INDEX_ID", h.index_id().to_string()),
        ("PAGE_BTR_SEG_LEAF", seg(h.seg_leaf())),
        ("PAGE_BTR_SEG_TOP", seg(h.seg_top())),
    ];
    for (k, v) in rows {
        writeln!(out, "  {k:<26} {v}")?;
    }
    let fill = figures.fill;
    writeln!(
        out,
        "fill {:.1}%: used {} of {} usable bytes, free {}, garbage {}{}",
        fill.fill() * 100.0,
        fill.used,
        fill.usable,
        fill.free,
        fill.garbage,
        if fill.approximate {
            " (of the uncompressed page)"
        } else {
            ""
        }
    )?;
    Ok(())
}

/// The records: counts, the system records, the directory, and the user
/// and free chains record by record.
fn text_records(out: &mut dyn Write, v: &IndexView<'_>) -> io::Result<()> {
    let rp = &v.rp;
    let page = rp.bytes();
    if let Some(c) = v.figures.counts() {
        writeln!(
            out,
            "records: {} format, {} user records walked ({} delete-marked), {} on the free chain",
            rp.format().name(),
            c.n_recs,
            c.n_deleted,
            c.n_free
        )?;
    }
    writeln!(out, "system records")?;
    for rec in [rp.infimum(), rp.supremum()].into_iter().flatten() {
        let at = usize::from(rec.origin);
        writeln!(
            out,
            "  {:<9} offset {:>5} heap {:>4} owned {:>2} next {:>5} flags {} data \"{}\"",
            rec.rec_type.name(),
            rec.origin,
            rec.header.heap_no,
            rec.header.n_owned,
            Next(rp, &rec, "-"),
            Flags(&rec, ",", "-"),
            page.get(at..at + 8)
                .unwrap_or(&[])
                .iter()
                .map(|&b| if b.is_ascii_graphic() {
                    char::from(b)
                } else {
                    '.'
                })
                .collect::<String>()
        )?;
    }
    let n_slots = rp.header().n_dir_slots();
    writeln!(out, "directory: {n_slots} slots (slot: offset -> record)")?;
    let mut shown = 0u32;
    for i in 0..n_slots {
        let (Some(at), Some(to)) = (rp.dir_slot_offset(i), rp.dir_slot(i)) else {
            break;
        };
        if at < ibdscope_core::index::PAGE_DATA {
            break;
        }
        shown = shown.saturating_add(1);
        let owned = rp
            .record_at(to)
            .map_or("-".to_string(), |r| r.header.n_owned.to_string());
        writeln!(out, "  {i:>5}: {at:>5} -> {to:>5}  owns {owned}")?;
    }
    if u32::from(n_slots) > shown {
        writeln!(
            out,
            "  ({} slots do not fit in the page)",
            u32::from(n_slots).saturating_sub(shown)
        )?;
    }
    let mut visited = Visited::new();
    for chain in [Chain::User, Chain::Free] {
        writeln!(
            out,
            "{}",
            match chain {
                Chain::User => "user records (key order)",
                Chain::Free => "free (garbage) chain, from PAGE_FREE",
            }
        )?;
        writeln!(
            out,
            "  {:>6} {:>5} {:<8} {:<15} {:>5} {:>6} {:>7}",
            "offset", "heap", "type", "flags", "owned", "next", "size"
        )?;
        let mut err: io::Result<()> = Ok(());
        chain_records(rp, chain, &mut visited, |rec| {
            if err.is_ok() {
                err = writeln!(
                    out,
                    "  {:>6} {:>5} {:<8} {:<15} {:>5} {:>6} {:>7}",
                    rec.origin,
                    rec.header.heap_no,
                    rec.rec_type.name(),
                    Flags(&rec, ",", "-"),
                    rec.header.n_owned,
                    Next(rp, &rec, "-"),
                    Size(v.layout.extent(rp, &rec))
                );
            }
        });
        err?;
    }
    Ok(())
}

/// The one-line byte map and the bytes per class.
fn text_byte_map(out: &mut dyn Write, v: &IndexView<'_>) -> io::Result<()> {
    let rp = &v.rp;
    let legend: Vec<String> = ByteClass::ALL
        .iter()
        .map(|&c| format!("{} {}", c.symbol(), c.name()))
        .collect();
    writeln!(
        out,
        "byte map ({} bytes per cell, each the class of most of its bytes)\n  {}",
        rp.logical_size() / MAP_CELLS,
        legend.join(", ")
    )?;
    let cells: String = v.map.cells(MAP_CELLS).map(ByteClass::symbol).collect();
    writeln!(out, "  |{cells}|")?;
    let counts: Vec<String> = ByteClass::ALL
        .iter()
        .map(|&c| format!("{} {}", c.name(), v.map.bytes(c)))
        .collect();
    writeln!(out, "  bytes: {}", counts.join(", "))?;
    Ok(())
}

/// The INDEX header, the fill and the record walk's figures as JSON.
fn json_index_header(j: &mut Json<'_>, rp: &RecPage<'_>, figures: &PageRecords) -> io::Result<()> {
    let h = rp.header();
    j.key("index")?.obj()?;
    j.kv_num("n_dir_slots", h.n_dir_slots())?
        .kv_num("heap_top", h.heap_top())?;
    j.kv_num("n_heap", h.n_heap())?
        .kv_bool("compact", h.is_compact())?;
    j.kv_num("free", h.free())?
        .kv_num("garbage", h.garbage())?
        .kv_num("last_insert", h.last_insert())?;
    j.kv_num("direction", h.direction_raw())?
        .kv_str("direction_name", direction_name(h.direction_raw()))?;
    j.kv_num("n_direction", h.n_direction())?
        .kv_num("n_recs", h.n_recs())?
        .kv_num("max_trx_id", h.max_trx_id())?;
    j.kv_num("level", h.level())?
        .kv_num("index_id", h.index_id().0)?;
    for (k, s) in [("seg_leaf", h.seg_leaf()), ("seg_top", h.seg_top())] {
        j.key(k)?
            .obj()?
            .kv_num("space", s.space.0)?
            .kv_num("page", s.page.0)?
            .kv_num("offset", s.offset)?
            .end_obj()?;
    }
    j.end_obj()?;
    j.kv_str("format", rp.format().name())?;
    let fill = figures.fill;
    j.key("fill")?.obj()?;
    j.kv_num("used", fill.used)?
        .kv_num("free", fill.free)?
        .kv_num("garbage", fill.garbage)?;
    j.kv_num("usable", fill.usable)?
        .kv_bool("approximate", fill.approximate)?;
    j.key("fill")?.float(f64::from(fill.fill()), 4)?.end_obj()?;
    j.kv_num("data_size", figures.data_size)?;
    if let Some(c) = figures.counts() {
        j.key("walk")?.obj()?;
        j.kv_num("records", c.n_recs)?
            .kv_num("delete_marked", c.n_deleted)?
            .kv_num("garbage_records", c.n_free)?;
        j.kv_num("min_rec_leaf", c.n_min_rec)?
            .kv_bool("user_chain_complete", c.user_complete)?
            .kv_bool("free_chain_complete", c.free_complete)?;
        j.key("record_bytes")?
            .opt_num(c.record_bytes.map(u64::from))?
            .end_obj()?;
    }
    Ok(())
}

/// The system records, the directory, the chains and the byte map as JSON.
fn json_records(j: &mut Json<'_>, v: &IndexView<'_>) -> io::Result<()> {
    let rp = &v.rp;
    let mut visited = Visited::new();
    for (key, rec) in [("infimum", rp.infimum()), ("supremum", rp.supremum())] {
        j.key(key)?;
        match rec {
            Some(rec) => {
                j.obj()?;
                json_record(j, rp, &rec, Chain::User, v.layout.extent(rp, &rec))?;
                j.end_obj()?;
            }
            None => {
                j.null()?;
            }
        }
    }
    j.key("directory")?.arr()?;
    for i in 0..rp.header().n_dir_slots() {
        let (Some(at), Some(to)) = (rp.dir_slot_offset(i), rp.dir_slot(i)) else {
            break;
        };
        if at < ibdscope_core::index::PAGE_DATA {
            break;
        }
        j.obj()?
            .kv_num("slot", i)?
            .kv_num("offset", at as u64)?
            .kv_num("record", to)?
            .end_obj()?;
    }
    j.end_arr()?;
    for (key, chain) in [("records", Chain::User), ("garbage", Chain::Free)] {
        j.key(key)?.arr()?;
        let mut err: io::Result<()> = Ok(());
        chain_records(rp, chain, &mut visited, |rec| {
            if err.is_ok() {
                err = (|| {
                    j.obj()?;
                    json_record(j, rp, &rec, chain, v.layout.extent(rp, &rec))?;
                    j.end_obj()?;
                    Ok(())
                })();
            }
        });
        err?;
        j.end_arr()?;
    }
    j.key("byte_map")?.obj()?;
    j.kv_num("cell_bytes", rp.logical_size() / MAP_CELLS)?;
    let cells: String = v.map.cells(MAP_CELLS).map(ByteClass::symbol).collect();
    j.kv_str("map", &cells)?;
    for c in ByteClass::ALL {
        j.kv_num(c.name(), v.map.bytes(c))?;
    }
    j.end_obj()?;
    Ok(())
}
