//! `ibdscope pages`: one row per page, streamed (nothing kept per page):
//! its FIL header and checksum, and for a B-tree page its index, level,
//! records and fill from its INDEX header.

use crate::args::{Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use crate::text::Link;
use ibdscope::analysis::{Analysis, SDI_INDEX_ID};
use ibdscope_core::checksum::Verdict;
use ibdscope_core::index::IndexHeader;
use ibdscope_core::space::PageProblem;
use ibdscope_core::{IndexId, PageFacts, PageNo, Tablespace};
use std::fmt;
use std::io::{self, Write};

/// The checksum status of a page as one word, e.g. `crc32`, `empty`, `BAD`,
/// `unverifiable-encrypted`; `+problems` when other checks failed.
pub struct Status(pub PageFacts, pub bool);

impl Status {
    /// The status of page `f` of `ts` (a doublewrite copy's page number and
    /// space id are not problems).
    pub fn of(ts: &ibdscope_core::Tablespace<'_>, f: &PageFacts) -> Status {
        Status(*f, ts.page_problems(f).any(|p| p != PageProblem::Checksum))
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.verdict {
            Verdict::Valid(a) => f.write_str(a.name())?,
            Verdict::Empty => f.write_str("empty")?,
            Verdict::Mismatch => f.write_str("BAD")?,
            Verdict::BadCompressedSize => f.write_str("BAD-size")?,
            Verdict::Unverifiable(why) => {
                write!(f, "unverifiable-{}", crate::findings::why_word(why))?
            }
            other => write!(f, "{other}")?,
        }
        if self.1 {
            f.write_str("+problems")?;
        }
        Ok(())
    }
}

/// An INDEX page's header figures (innodb_ruby's
/// `space-index-pages-summary`), read from the page as it streams by.
#[derive(Clone, Copy)]
struct IndexCols {
    /// PAGE_INDEX_ID.
    id: IndexId,
    /// PAGE_LEVEL (0: a leaf).
    level: u16,
    /// PAGE_N_RECS: user records, delete-marked ones included.
    records: u16,
    /// Used / usable bytes from the header (what `extents` and `fill` draw).
    fill: f32,
}

impl IndexCols {
    /// The figures of a B-tree page (INDEX, RTREE, SDI) whose header can be
    /// read: not of an encrypted or page-compressed one (a MariaDB page
    /// with a key version verifies as stored under full_crc32, but its
    /// header is ciphertext).
    fn of(ts: &Tablespace<'_>, f: &PageFacts, keys: KeyVersions) -> Option<Self> {
        if matches!(f.verdict, Verdict::Unverifiable(_)) || !f.page_type.is_index(ts.type_names()) {
            return None;
        }
        if keys.of(ts, f.page_no).is_some_and(|v| v != 0) {
            return None;
        }
        let h = IndexHeader::new(ts.page(f.page_no)?)?;
        let format = ts.format();
        Some(IndexCols {
            id: h.index_id(),
            level: h.level(),
            records: h.n_recs(),
            fill: h.usage(format.logical_size, format.is_zip()).fill(),
        })
    }
}

/// Where a MariaDB encrypted space's pages carry their key version
/// (`buf_page_get_key_version`: bytes 0..4 under full_crc32, 26..30
/// otherwise); `None` for a space without crypt data on page 0.
#[derive(Clone, Copy)]
pub(crate) struct KeyVersions(Option<bool>);

impl KeyVersions {
    /// The key version places of `ts`.
    pub(crate) fn of_space(ts: &Tablespace<'_>) -> KeyVersions {
        use ibdscope_core::crypt::mariadb::{space_crypt_data, CryptDataRead};
        KeyVersions(match space_crypt_data(ts) {
            CryptDataRead::Present(_) => {
                Some(ts.scheme() == ibdscope_core::checksum::Scheme::FullCrc32)
            }
            _ => None,
        })
    }

    /// Whether the space has MariaDB crypt data.
    pub(crate) fn present(self) -> bool {
        self.0.is_some()
    }

    /// Page `n`'s key version (0: stored unencrypted). `None` outside a
    /// MariaDB encrypted space, and for page 0, which the server never
    /// encrypts (`fil_space_encrypt_valid_page_type`) and whose bytes
    /// 26..30 are the flush LSN.
    pub(crate) fn of(self, ts: &Tablespace<'_>, n: PageNo) -> Option<u32> {
        let full = self.0?;
        if n.0 == 0 {
            return None;
        }
        Some(
            ts.page(n)
                .map_or(0, |p| ibdscope_core::crypt::mariadb::key_version(p, full)),
        )
    }
}

/// A key version cell (`-`: none).
struct KeyCell(Option<u32>);

impl fmt::Display for KeyCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.pad("-"),
            Some(v) => fmt::Display::fmt(&v, f),
        }
    }
}

/// Index names as text shows them, once per index named (the definition's
/// indexes: a few), so a row allocates nothing.
struct TextNames<'a> {
    a: &'a Analysis<'a>,
    shown: Vec<(IndexId, String)>,
}

impl TextNames<'_> {
    fn get(&mut self, id: IndexId) -> &str {
        let Some(name) = self.a.index_name(id) else {
            return "-";
        };
        let i = match self.shown.iter().position(|(i, _)| *i == id) {
            Some(i) => i,
            None => {
                self.shown
                    .push((id, ibdscope::names::name(name).to_string()));
                self.shown.len() - 1
            }
        };
        self.shown.get(i).map_or("-", |(_, s)| s.as_str())
    }
}

/// An index id for the text column: `SDI` for the SDI index, `-` for none.
struct IdCell(Option<IndexId>);

impl fmt::Display for IdCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.pad("-"),
            Some(id) if id.0 == SDI_INDEX_ID => f.pad("SDI"),
            Some(id) => fmt::Display::fmt(&id.0, f),
        }
    }
}

/// Runs `pages`.
pub fn run(
    opts: &Opts,
    a: &Analysis<'_>,
    from: u32,
    to: Option<u32>,
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let ts = a.ts();
    if from >= ts.n_pages() {
        // Nothing to list: the one rule for pages past the end.
        let n = u64::from(ts.n_pages());
        let asked = format_args!("--from {from}");
        return Ok(crate::maps::past_end(a.path(), asked, n, ts.page_size()));
    }
    // Each page as `check` judges it (page_compressed pages outside
    // full_crc32 after decompression).
    let mut judge = ibdscope_core::summary::Judge::default();
    let last = to.unwrap_or(u32::MAX).min(ts.n_pages().saturating_sub(1));
    let total = last.saturating_sub(from).saturating_add(1) as usize;
    // Each page with the pages after it drawn alike: a hole of a sparse
    // file in free extents (`map::free_zero_pages`) comes as its first
    // page and its length, so text prints it in two lines whatever its
    // size; the other formats still give every page a row.
    let holes = ts.next_zero_run(from, last.saturating_add(1)).is_some();
    let mut n = from;
    let rows = std::iter::from_fn(move || {
        if n > last {
            return None;
        }
        let end = u64::from(last) + 1;
        let run = if holes {
            crate::maps::free_zero_pages(a, u64::from(n), end).max(1)
        } else {
            1
        };
        let f = ts.facts(PageNo(n))?;
        let f = judge.judge(ts, f).0;
        n = n.saturating_add(u32::try_from(run).unwrap_or(u32::MAX));
        Some((f, u32::try_from(run).unwrap_or(u32::MAX)))
    })
    .inspect(|(f, run)| {
        let done = f.page_no.0.saturating_sub(from).saturating_add(*run);
        a.progress(done as usize, total)
    });
    // Every page of the runs, for the formats with a row per page.
    let every = |(f, run): (PageFacts, u32)| {
        (0..run).filter_map(move |k| {
            if k == 0 {
                return Some(f);
            }
            let n = PageNo(f.page_no.0.saturating_add(k));
            ts.facts(n)
        })
    };
    let names = ts.type_names();
    let keys = KeyVersions::of_space(ts);
    // Each page's verdict is the summary's (one rule for every command; a
    // torn write needs the newest LSN of the whole file).
    let summary = a.summary();
    let mut bad = false;
    let mut note = |f: &PageFacts| {
        let v = summary.verdict(ts, f);
        bad |= v.verdict.is_finding();
        v
    };
    match opts.format {
        Format::Text | Format::Tsv | Format::Sql => {
            // The name column is as wide as the definition's widest name.
            let w = a
                .definition()
                .ok()
                .into_iter()
                .flat_map(|d| d.table.indexes.iter())
                .map(|ix| ibdscope::names::name(&ix.name).to_string().chars().count())
                .max()
                .unwrap_or(0)
                .max(4);
            let mut shown = TextNames {
                a,
                shown: Vec::new(),
            };
            write!(
                out,
                "{:>8}  {:<16}  {:>8}  {:>8}  {:>16}  {:>10}  {:>10}  {:<w$}  {:>5}  {:>7}  {:>6}  ",
                "page", "type", "prev", "next", "lsn", "space", "index", "name", "level", "records", "fill"
            )?;
            // a MariaDB encrypted space: each page's key version
            if keys.present() {
                write!(out, "{:>11}  ", "key_version")?;
            }
            writeln!(out, "checksum  verdict")?;
            for (f, run) in rows {
                let v = note(&f);
                let ix = IndexCols::of(ts, &f, keys);
                write!(
                    out,
                    "{:>8}  {:<16}  {:>8}  {:>8}  {:>16}  {:>10}  {:>10}  {:<w$}  ",
                    f.page_no,
                    f.page_type.display(names),
                    Link(f.prev),
                    Link(f.next),
                    f.lsn,
                    f.space_id,
                    IdCell(ix.map(|c| c.id)),
                    ix.map_or("-", |c| shown.get(c.id)),
                )?;
                match ix {
                    Some(c) => write!(
                        out,
                        "{:>5}  {:>7}  {:>5.1}%",
                        c.level,
                        c.records,
                        c.fill * 100.0
                    )?,
                    None => write!(out, "{:>5}  {:>7}  {:>6}", "-", "-", "-")?,
                }
                if keys.present() {
                    write!(out, "  {:>11}", KeyCell(keys.of(ts, f.page_no)))?;
                }
                write!(out, "  {}  {}", Status::of(ts, &f), v.verdict)?;
                if v.verdict.is_finding() {
                    write!(out, " at byte offset {}: {}", v.file_offset, v.evidence)?;
                }
                writeln!(out)?;
                if run > 1 {
                    writeln!(
                        out,
                        "{:>8}  ... and the next {}, to page {}, alike: all zeros, not stored (a hole of the file), in free extents",
                        "",
                        crate::text::count(run - 1, "page", "pages"),
                        f.page_no.0.saturating_add(run - 1)
                    )?;
                }
            }
        }
        Format::Csv => {
            write!(
                out,
                "page,type,type_code,prev,next,lsn,space_id,checksum,index_id,index_name,level,\
                 records,fill"
            )?;
            writeln!(
                out,
                "{},verdict,verdict_offset",
                if keys.present() { ",key_version" } else { "" }
            )?;
            for f in rows.flat_map(every) {
                let v = note(&f);
                // Type names and checksum words are identifiers: no quoting.
                write!(
                    out,
                    "{},{},{},{},{},{},{},{},",
                    f.page_no,
                    f.page_type.display(names),
                    f.page_type.0,
                    CsvLink(f.prev),
                    CsvLink(f.next),
                    f.lsn,
                    f.space_id,
                    Status::of(ts, &f)
                )?;
                match IndexCols::of(ts, &f, keys) {
                    Some(c) => write!(
                        out,
                        "{},{},{},{},{}",
                        c.id.0,
                        crate::csv::opt_name(a.index_name(c.id)),
                        c.level,
                        c.records,
                        crate::csv::Float(f64::from(c.fill), 4)
                    )?,
                    None => write!(out, ",,,,")?,
                }
                if keys.present() {
                    match keys.of(ts, f.page_no) {
                        Some(v) => write!(out, ",{v}")?,
                        None => write!(out, ",")?,
                    }
                }
                writeln!(out, ",{},{}", v.verdict, v.file_offset)?;
            }
        }
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?.key("pages")?.arr()?;
            for f in rows.flat_map(every) {
                let v = note(&f);
                row(&mut j, &f, a, keys, &v)?;
            }
            j.end_arr()?.end_obj()?;
            writeln!(out)?;
        }
        Format::Jsonl => {
            for f in rows.flat_map(every) {
                let v = note(&f);
                row(&mut Json::new(out), &f, a, keys, &v)?;
                writeln!(out)?;
            }
        }
    }
    Ok(if bad {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

fn row(
    j: &mut Json<'_>,
    f: &PageFacts,
    a: &Analysis<'_>,
    keys: KeyVersions,
    v: &ibdscope_core::PageJudgement,
) -> io::Result<()> {
    let ts = a.ts();
    let names = ts.type_names();
    j.obj()?;
    j.kv_num("page", f.page_no.0)?;
    j.kv_display("type", &f.page_type.display(names))?;
    j.kv_num("type_code", f.page_type.0)?;
    j.key("prev")?.opt_num(link(f.prev))?;
    j.key("next")?.opt_num(link(f.next))?;
    j.kv_num("lsn", f.lsn.0)?;
    j.kv_num("space_id", f.space_id.0)?;
    j.kv_display("checksum", &Status::of(ts, f))?;
    j.kv_str("verdict", v.verdict.word())?
        .kv_num("verdict_offset", v.file_offset)?;
    if v.verdict.is_finding() {
        j.kv_display("evidence", &v.evidence)?;
    }
    if keys.present() {
        j.key("key_version")?
            .opt_num(keys.of(ts, f.page_no).map(u64::from))?;
    }
    match IndexCols::of(ts, f, keys) {
        Some(c) => {
            j.kv_index(a, c.id)?
                .kv_num("level", c.level)?
                .kv_num("records", c.records)?;
            j.key("fill")?.float(f64::from(c.fill), 4)?;
        }
        None => {
            for k in ["index_id", "index_name", "level", "records", "fill"] {
                j.key(k)?.null()?;
            }
        }
    }
    j.end_obj()?;
    Ok(())
}

fn link(p: PageNo) -> Option<u64> {
    (!p.is_null()).then_some(u64::from(p.0))
}

struct CsvLink(PageNo);

impl fmt::Display for CsvLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match link(self.0) {
            Some(v) => write!(f, "{v}"),
            None => Ok(()),
        }
    }
}
