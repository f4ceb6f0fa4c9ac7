//! The map of a carved image back to its sources: for each page of the
//! image, the source it was found in, its byte offset there, how it was
//! stored (whole, or in two pieces around a run of zero blocks; plain,
//! encrypted or compressed), its LSN, and which of the versions found was
//! kept. `carve` writes it beside each image (`space-N.ibd.sources`);
//! `rows` and `records` read it to give each record's byte offset in the
//! source (the page's offset there plus the record's offset in the page).
//!
//! The text, one line per fact, fields separated by a tab (docs/carve.md):
//!
//! | line | fields |
//! |---|---|
//! | first | `ibdscope-carve-sources`, `1` |
//! | `space` | page size, pages in the image |
//! | `source` | its number, then the path as given to `carve` (the rest of the line; `\` and newline escaped as `\\`, `\n`) |
//! | `page` | page number, source number, byte offset, bytes stored, split, hole, `plain`/`encrypted`/`compressed`, LSN, version kept (1: the newest), versions found |
//!
//! Lines starting with `#` are comments. A page stored in two pieces
//! (split, hole non-zero): its first `split` bytes at the offset, then
//! `hole` zero bytes not stored, then the rest right after the first part
//! ([`Found::gap`]). A compressed page (ROW_FORMAT=COMPRESSED, MariaDB
//! page_compressed) holds its records compressed: they have no offset of
//! their own in the source, only the page's.

use super::{Accepted, CarvedSpace, Found, PageLayout};
use ibdscope_core::{Lsn, PageNo};
use std::fmt;

/// The first line's word.
const MAGIC: &str = "ibdscope-carve-sources";

/// How a page's bytes sit in its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stored {
    /// As the image holds them.
    Plain,
    /// Encrypted (the image holds them as stored; a record's offset is
    /// where its encrypted bytes are).
    Encrypted,
    /// Compressed (ROW_FORMAT=COMPRESSED, page_compressed): the records
    /// have no offset of their own in the source.
    Compressed,
}

impl Stored {
    /// The word of the map's line.
    fn word(self) -> &'static str {
        match self {
            Stored::Plain => "plain",
            Stored::Encrypted => "encrypted",
            Stored::Compressed => "compressed",
        }
    }
}

/// Where one page of a carved image was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageSource {
    /// The page's number in the image.
    pub page_no: PageNo,
    /// Which source ([`SourceMap::sources`]).
    pub source: u32,
    /// Byte offset of the page in the source.
    pub offset: u64,
    /// Bytes of the page in the source.
    pub len: u32,
    /// Stored in two pieces: `(split, hole)` ([`Found::gap`]).
    pub gap: (u32, u32),
    /// How its bytes sit in the source.
    pub stored: Stored,
    /// `FIL_PAGE_LSN` of the version kept.
    pub lsn: Lsn,
    /// Which version was kept, newest first (1: the newest).
    pub version: u32,
    /// Versions found of the page number.
    pub versions: u32,
}

impl PageSource {
    /// The byte offset in the source of the byte at `page_offset` in the
    /// page; `None` for a compressed page, a byte of the hole, or past
    /// the page.
    pub fn offset_of(&self, page_offset: u32) -> Option<u64> {
        if self.stored == Stored::Compressed {
            return None;
        }
        let (split, hole) = self.gap;
        let stored_at = if hole == 0 || page_offset < split {
            page_offset
        } else {
            page_offset
                .checked_sub(split.checked_add(hole)?)?
                .checked_add(split)?
        };
        (stored_at < self.len).then(|| self.offset.saturating_add(u64::from(stored_at)))
    }
}

/// The map of one carved image: its sources and each page's place there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceMap {
    /// The sources' paths, as given to `carve`, by number.
    pub sources: Vec<String>,
    /// The image's page size.
    pub page_size: u32,
    /// Pages in the image.
    pub n_pages: u32,
    /// The pages found, by page number.
    pub pages: Vec<PageSource>,
    /// Read back: the line of the `space` line, and of each page's.
    lines: (u32, Vec<u32>),
}

/// What does not fit in a map read back: the line (1 first; 0 for the
/// map as a whole) and what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourcesFinding {
    /// The line of the map (0: the map as a whole).
    pub line: u32,
    /// What is wrong.
    pub kind: SourcesProblem,
}

/// What is wrong with a map read back, or with it against its image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourcesProblem {
    /// The first line is not `ibdscope-carve-sources 1`.
    NotAMap,
    /// A line that is none of the map's, or a field that is not a number.
    Malformed,
    /// No `space` line.
    NoSpace,
    /// A page line names a source no `source` line gives.
    UnknownSource(u32),
    /// A page number past the image's pages, or given twice.
    BadPage(PageNo),
    /// The image's page size is not the map's: (map, image).
    PageSize(u32, u32),
    /// The image's page count is not the map's: (map, image).
    PageCount(u32, u32),
    /// The LSN of the image's page is not the map's: (page, map, image).
    Lsn(PageNo, Lsn, Lsn),
}

impl fmt::Display for SourcesProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourcesProblem::NotAMap => write!(f, "not a carve source map (no `{MAGIC}` line)"),
            SourcesProblem::Malformed => write!(f, "malformed line"),
            SourcesProblem::NoSpace => write!(f, "no `space` line"),
            SourcesProblem::UnknownSource(n) => write!(f, "source {n} not given"),
            SourcesProblem::BadPage(n) => {
                write!(f, "page {n} past the image's pages or given twice")
            }
            SourcesProblem::PageSize(m, i) => {
                write!(f, "page size {m}, the file's is {i}")
            }
            SourcesProblem::PageCount(m, i) => write!(f, "{m} pages, the file has {i}"),
            SourcesProblem::Lsn(n, m, i) => {
                write!(f, "page {n} has LSN {m}, the file's page has {i}")
            }
        }
    }
}

impl SourceMap {
    /// The map of `space` as carved from `sources` (the paths as given,
    /// by source number); a synthesized page 0 has no place in a source.
    pub fn of(space: &CarvedSpace, sources: &[String]) -> SourceMap {
        let synthesized = space.page0_synthesized();
        let pages = (space.pages.iter())
            .filter(|p| !(synthesized && p.kept.page_no.0 == 0))
            .map(|p| {
                let k = &p.kept;
                let newer = p.others.iter().filter(|o| o.lsn > k.lsn).count();
                PageSource {
                    page_no: k.page_no,
                    source: k.source,
                    offset: k.offset,
                    len: k.len,
                    gap: k.gap,
                    stored: stored(k),
                    lsn: k.lsn,
                    version: u32::try_from(newer).map_or(u32::MAX, |n| n.saturating_add(1)),
                    versions: u32::try_from(p.others.len())
                        .map_or(u32::MAX, |n| n.saturating_add(1)),
                }
            })
            .collect();
        SourceMap {
            sources: sources.to_vec(),
            page_size: space.page_size,
            n_pages: space.n_pages(),
            pages,
            lines: (0, Vec::new()),
        }
    }

    /// The map as text (the module's format), `image` named in a comment.
    pub fn to_text(&self, image: &str) -> String {
        let mut s = format!("{MAGIC}\t1\n");
        s.push_str(&format!(
            "# where each page of {} was found (docs/carve.md)\n",
            escape(image)
        ));
        s.push_str(&format!("space\t{}\t{}\n", self.page_size, self.n_pages));
        for (i, p) in self.sources.iter().enumerate() {
            s.push_str(&format!("source\t{i}\t{}\n", escape(p)));
        }
        s.push_str("# page\tsource\toffset\tbytes\tsplit\thole\tstored\tlsn\tversion\tversions\n");
        for p in &self.pages {
            s.push_str(&format!(
                "page\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                p.page_no,
                p.source,
                p.offset,
                p.len,
                p.gap.0,
                p.gap.1,
                p.stored.word(),
                p.lsn,
                p.version,
                p.versions
            ));
        }
        s
    }

    /// Reads a map's text back; what does not parse is a finding with
    /// its line (the map is usable only when there is none).
    pub fn parse(text: &str) -> (SourceMap, Vec<SourcesFinding>) {
        let mut map = SourceMap::default();
        let mut findings = Vec::new();
        let mut space = false;
        let mut lines = text.lines();
        let first = lines.next().unwrap_or_default();
        if first != format!("{MAGIC}\t1") {
            findings.push(SourcesFinding {
                line: 1,
                kind: SourcesProblem::NotAMap,
            });
            return (map, findings);
        }
        for (i, line) in lines.enumerate() {
            let at = u32::try_from(i).map_or(u32::MAX, |n| n.saturating_add(2));
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |kind| SourcesFinding { line: at, kind };
            let mut f = line.splitn(3, '\t');
            match f.next() {
                Some("space") if !space => {
                    let mut f = line.split('\t').skip(1);
                    match (num(f.next()), num(f.next()), f.next()) {
                        (Some(ps), Some(n), None) => {
                            map.page_size = u32::try_from(ps).unwrap_or(0);
                            map.n_pages = u32::try_from(n).unwrap_or(u32::MAX);
                            map.lines.0 = at;
                            space = true;
                        }
                        _ => findings.push(bad(SourcesProblem::Malformed)),
                    }
                }
                Some("source") => match (num(f.next()), f.next()) {
                    (Some(n), Some(path)) if n == map.sources.len() as u64 => {
                        map.sources.push(unescape(path));
                    }
                    _ => findings.push(bad(SourcesProblem::Malformed)),
                },
                Some("page") => match page_line(line) {
                    Some(p) if (p.source as usize) < map.sources.len() => {
                        let after = map.pages.last().is_none_or(|l| l.page_no < p.page_no);
                        if p.page_no.0 >= map.n_pages || !after {
                            findings.push(bad(SourcesProblem::BadPage(p.page_no)));
                        } else {
                            map.pages.push(p);
                            map.lines.1.push(at);
                        }
                    }
                    Some(p) => findings.push(bad(SourcesProblem::UnknownSource(p.source))),
                    None => findings.push(bad(SourcesProblem::Malformed)),
                },
                _ => findings.push(bad(SourcesProblem::Malformed)),
            }
        }
        if !space {
            findings.push(SourcesFinding {
                line: 0,
                kind: SourcesProblem::NoSpace,
            });
        }
        (map, findings)
    }

    /// Whether the map fits its image: its page size and count, and each
    /// page's LSN (`lsn_of`, the image's `FIL_PAGE_LSN` of a page); the
    /// first that does not is the finding.
    pub fn fits(
        &self,
        page_size: u32,
        n_pages: u32,
        lsn_of: impl Fn(PageNo) -> Option<Lsn>,
    ) -> Option<SourcesFinding> {
        let whole = |kind| {
            Some(SourcesFinding {
                line: self.lines.0,
                kind,
            })
        };
        if self.page_size != page_size {
            return whole(SourcesProblem::PageSize(self.page_size, page_size));
        }
        if self.n_pages != n_pages {
            return whole(SourcesProblem::PageCount(self.n_pages, n_pages));
        }
        self.pages.iter().enumerate().find_map(|(i, p)| {
            let lsn = lsn_of(p.page_no).unwrap_or(Lsn(0));
            (lsn != p.lsn).then(|| SourcesFinding {
                line: self.lines.1.get(i).copied().unwrap_or(0),
                kind: SourcesProblem::Lsn(p.page_no, p.lsn, lsn),
            })
        })
    }

    /// Where page `n` was found.
    pub fn page(&self, n: PageNo) -> Option<&PageSource> {
        let i = self.pages.binary_search_by_key(&n, |p| p.page_no).ok()?;
        self.pages.get(i)
    }

    /// The source (its path) page `n` was found in, and the byte offset
    /// there of the byte at `page_offset` of the page (a record's place
    /// in the source; `None` for a page stored compressed).
    pub fn locate(&self, n: PageNo, page_offset: u32) -> Option<(&str, Option<u64>)> {
        let p = self.page(n)?;
        let file = self.sources.get(p.source as usize)?;
        Some((file.as_str(), p.offset_of(page_offset)))
    }
}

/// How a page found sits in its source.
fn stored(f: &Found) -> Stored {
    let full_crc32_compressed = f.layout == PageLayout::FullCrc32 && f.page_type.0 & 0x8000 != 0;
    if f.layout == PageLayout::Zip
        || matches!(f.accepted, Accepted::Decompressed(_))
        || full_crc32_compressed
    {
        Stored::Compressed
    } else if f.encrypted || matches!(f.accepted, Accepted::Decrypted(_)) {
        Stored::Encrypted
    } else {
        Stored::Plain
    }
}

fn num(s: Option<&str>) -> Option<u64> {
    let s = s?;
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A `page` line's fields.
fn page_line(line: &str) -> Option<PageSource> {
    let mut f = line.split('\t').skip(1);
    let mut n = || num(f.next());
    let page_no = PageNo(u32::try_from(n()?).ok()?);
    let source = u32::try_from(n()?).ok()?;
    let offset = n()?;
    let len = u32::try_from(n()?).ok()?;
    let gap = (u32::try_from(n()?).ok()?, u32::try_from(n()?).ok()?);
    let stored = match f.next()? {
        "plain" => Stored::Plain,
        "encrypted" => Stored::Encrypted,
        "compressed" => Stored::Compressed,
        _ => return None,
    };
    let mut n = || num(f.next());
    let lsn = Lsn(n()?);
    let version = u32::try_from(n()?).ok()?;
    let versions = u32::try_from(n()?).ok()?;
    if f.next().is_some() {
        return None;
    }
    Some(PageSource {
        page_no,
        source,
        offset,
        len,
        gap,
        stored,
        lsn,
        version,
        versions,
    })
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(n: u32, gap: (u32, u32), stored: Stored) -> PageSource {
        PageSource {
            page_no: PageNo(n),
            source: 0,
            offset: 1000,
            len: 16384,
            gap,
            stored,
            lsn: Lsn(77),
            version: 1,
            versions: 2,
        }
    }

    #[test]
    fn text_reads_back() {
        let map = SourceMap {
            sources: vec!["disk\\a\nb.img".into(), "two".into()],
            page_size: 16384,
            n_pages: 9,
            pages: vec![
                page(1, (0, 0), Stored::Plain),
                page(4, (4096, 8192), Stored::Encrypted),
            ],
            lines: (0, Vec::new()),
        };
        let (back, findings) = SourceMap::parse(&map.to_text("space-7.ibd"));
        assert_eq!(findings, vec![]);
        assert_eq!(
            (&back.sources, back.page_size, back.n_pages, &back.pages),
            (&map.sources, map.page_size, map.n_pages, &map.pages)
        );
        // Each finding of the fit names its line: the `space` line's,
        // the page's.
        let lsn = |_| Some(Lsn(77));
        let at = |f: Option<SourcesFinding>| f.map(|f| (f.line, f.kind));
        assert_eq!(at(back.fits(16384, 9, lsn)), None);
        assert_eq!(
            at(back.fits(16384, 8, lsn)),
            Some((3, SourcesProblem::PageCount(9, 8)))
        );
        assert_eq!(
            at(back.fits(16384, 9, |n: PageNo| Some(Lsn(u64::from(n.0))))),
            Some((7, SourcesProblem::Lsn(PageNo(1), Lsn(77), Lsn(1))))
        );
    }

    #[test]
    fn offsets_skip_the_hole() {
        let p = page(4, (4096, 8192), Stored::Plain);
        assert_eq!(p.offset_of(100), Some(1100));
        assert_eq!(p.offset_of(4096 + 100), None);
        assert_eq!(p.offset_of(4096 + 8192 + 100), Some(1000 + 4096 + 100));
        assert_eq!(page(1, (0, 0), Stored::Compressed).offset_of(100), None);
        assert_eq!(page(1, (0, 0), Stored::Plain).offset_of(16384), None);
    }

    #[test]
    fn bad_lines_are_findings_with_their_line() {
        let text = "ibdscope-carve-sources\t1\nspace\t16384\t3\nsource\t0\tx\n\
                    page\t1\t0\t5\t16384\t0\t0\tplain\t9\t1\t1\npage\tone\n\
                    page\t7\t0\t5\t16384\t0\t0\tplain\t9\t1\t1\n\
                    page\t2\t4\t5\t16384\t0\t0\tplain\t9\t1\t1\n";
        let (_, f) = SourceMap::parse(text);
        let got: Vec<(u32, SourcesProblem)> = f.iter().map(|f| (f.line, f.kind)).collect();
        assert_eq!(
            got,
            vec![
                (5, SourcesProblem::Malformed),
                (6, SourcesProblem::BadPage(PageNo(7))),
                (7, SourcesProblem::UnknownSource(4)),
            ]
        );
        let (_, f) = SourceMap::parse("hello\n");
        assert_eq!(f.first().map(|f| f.kind), Some(SourcesProblem::NotAMap));
    }
}
