//! `ibdscope info`: what the file is, and the evidence for it.

use crate::args::{Format, Opts};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use ibdscope_core::checksum::Unverifiable;
use ibdscope_core::fsp::{FlagsLayout, SpaceFormat};
use ibdscope_core::{FindingKind, PageType, Summary, Tablespace, VendorGuess};
use std::io::{self, Write};
use std::path::Path;

/// Everything `info` reports, gathered once for both printers.
struct Info<'a> {
    format: SpaceFormat,
    flags: u32,
    vendor: VendorGuess,
    summary: Summary,
    ts: &'a Tablespace<'a>,
}

impl Info<'_> {
    fn sdi(&self) -> bool {
        self.format.sdi || self.summary.has_type(PageType::FIL_PAGE_SDI)
    }
    fn encrypted_pages(&self) -> usize {
        self.summary
            .unverifiable
            .iter()
            .filter(|(_, w)| *w == Unverifiable::Encrypted)
            .count()
    }
    fn encrypted(&self) -> bool {
        self.format.encryption
            || self.encrypted_pages() > 0
            || self.summary.has_type(PageType::FIL_PAGE_ENCRYPTED)
            || self.mariadb_crypt().is_some()
    }
    /// MariaDB's crypt data on page 0 when it says the space is encrypted
    /// (`CRYPT_SCHEME_1`): MariaDB sets no FSP flag for it, and under
    /// full_crc32 its encrypted pages verify as stored, so neither the flags
    /// nor the page verdicts tell.
    fn mariadb_crypt(&self) -> Option<ibdscope_core::crypt::mariadb::CryptData> {
        use ibdscope_core::crypt::mariadb::{read_crypt_data, CryptDataRead};
        let page0 = self.ts.page(ibdscope_core::PageNo(0))?;
        match read_crypt_data(page0, &self.format) {
            CryptDataRead::Present(c) if c.scheme != 0 => Some(c),
            _ => None,
        }
    }
    fn compression(&self) -> Option<String> {
        if self.format.is_zip() {
            Some(format!(
                "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE={}",
                self.format.physical_size / 1024
            ))
        } else if self.format.page_compressed
            || self.summary.has_type(PageType::FIL_PAGE_PAGE_COMPRESSED)
            || self
                .summary
                .types
                .iter()
                .any(|(t, _)| t.0 & PageType::FCRC32_COMPRESSED_MARKER != 0)
        {
            Some(match self.format.compression_algorithm {
                0 => "PAGE_COMPRESSED".to_string(),
                a => format!("PAGE_COMPRESSED (algorithm {})", algo_name(a)),
            })
        } else if self.summary.has_type(PageType::FIL_PAGE_COMPRESSED) {
            Some("MySQL transparent page compression".to_string())
        } else {
            None
        }
    }
    fn checksum_algorithm(&self) -> &'static str {
        self.summary
            .main_algorithm()
            .map_or("unknown (no page verifies)", |a| a.name())
    }
}

/// MariaDB's `page_compression` algorithm numbers (fsp0types.h /
/// PAGE_ALGORITHM_* in fil0pagecompress.h).
fn algo_name(a: u8) -> &'static str {
    match a {
        1 => "zlib",
        2 => "lz4",
        3 => "lzo",
        4 => "lzma",
        5 => "bzip2",
        6 => "snappy",
        _ => "unknown",
    }
}

fn layout(l: FlagsLayout) -> &'static str {
    match l {
        FlagsLayout::MySql => "mysql",
        FlagsLayout::MariaDb101 => "mariadb-10.1.0-10.1.20",
        FlagsLayout::FullCrc32 => "mariadb-full_crc32",
        _ => "other",
    }
}

/// The set flags as words.
fn flag_words(f: &SpaceFormat) -> Vec<&'static str> {
    [
        (f.post_antelope, "POST_ANTELOPE"),
        (f.atomic_blobs, "ATOMIC_BLOBS"),
        (f.is_zip(), "ZIP_SSIZE"),
        (f.data_dir, "DATA_DIR"),
        (f.shared, "SHARED"),
        (f.temporary, "TEMPORARY"),
        (f.encryption, "ENCRYPTION"),
        (f.sdi, "SDI"),
        (f.page_compressed, "PAGE_COMPRESSION"),
        (f.layout == FlagsLayout::FullCrc32, "FULL_CRC32"),
    ]
    .into_iter()
    .filter_map(|(on, w)| on.then_some(w))
    .collect()
}

/// Runs `info`.
pub fn run(opts: &Opts, a: &Analysis<'_>, out: &mut dyn Write) -> io::Result<Outcome> {
    let (path, ts) = (a.path(), a.ts());
    let summary = a.summary().clone();
    let vendor = VendorGuess::infer(ts.format(), |t| summary.has_type(t));
    let flags = ts.fsp_header().map_or(0, |h| h.flags().0);
    let info = Info {
        format: *ts.format(),
        flags,
        vendor,
        summary,
        ts,
    };
    match opts.format {
        Format::Json => json(&info, path, out)?,
        _ => text(&info, path, out)?,
    }
    Ok(if info.summary.is_clean() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

fn text(i: &Info<'_>, path: &Path, out: &mut dyn Write) -> io::Result<()> {
    let s = &i.summary;
    let f = &i.format;
    writeln!(out, "file                {}", ibdscope::names::path(path))?;
    // A page size given against the file's evidence is said before any
    // answer read with it.
    let (first, rest): (Vec<&ibdscope_core::Finding>, Vec<&ibdscope_core::Finding>) = s
        .file_findings
        .iter()
        .partition(|f| matches!(f.kind, FindingKind::PageSizeContradicted { .. }));
    for f in &first {
        writeln!(out, "contradiction       {}", f.kind)?;
    }
    writeln!(out, "vendor              {}", i.vendor)?;
    writeln!(out, "format              {}", i.vendor.format)?;
    writeln!(out, "  because           {}", i.vendor.reason)?;
    writeln!(out, "space id            {}", i.ts.space_id())?;
    writeln!(
        out,
        "page size           {} logical, {} physical",
        f.logical_size, f.physical_size
    )?;
    writeln!(
        out,
        "pages               {} ({} bytes)",
        i.ts.n_pages(),
        i.ts.data().len()
    )?;
    if let Some(h) = i.ts.fsp_header() {
        writeln!(
            out,
            "FSP_SIZE            {} (free limit {})",
            h.size(),
            h.free_limit()
        )?;
    }
    writeln!(
        out,
        "flags               0x{:x} [{}] ({} layout)",
        i.flags,
        flag_words(f).join(" "),
        layout(f.layout)
    )?;
    writeln!(out, "extent size         {} pages", f.extent_size())?;
    write!(out, "checksum            {}", i.checksum_algorithm())?;
    let counts = crate::findings::algorithm_counts(s);
    if counts.len() > 1 {
        let parts: Vec<String> = counts.iter().map(|(a, c)| format!("{a} {c}")).collect();
        write!(out, " (mixed: {})", parts.join(", "))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "pages verified      {} valid, {} empty, {} unverifiable, {} with problems",
        s.valid().saturating_sub(s.empty),
        s.empty,
        s.unverifiable.len(),
        s.bad.len()
    )?;
    match (s.lsn_min, s.lsn_max) {
        (Some(a), Some(b)) => writeln!(out, "lsn                 {a} .. {b}")?,
        _ => writeln!(out, "lsn                 none (no page has an LSN)")?,
    }
    writeln!(out, "sdi                 {}", yes_no(i.sdi()))?;
    match i.mariadb_crypt() {
        Some(c) => writeln!(
            out,
            "encrypted           yes (MariaDB crypt data: key id {}, min key version {}, encryption {})",
            c.key_id,
            c.min_key_version,
            c.encryption_name()
        )?,
        None => writeln!(out, "encrypted           {}", yes_no(i.encrypted()))?,
    }
    writeln!(
        out,
        "compressed          {}",
        i.compression().unwrap_or_else(|| "no".into())
    )?;
    crate::system::text(out, i.ts)?;
    writeln!(out, "detection")?;
    for e in &i.ts.detection().evidence {
        writeln!(out, "  - {e}")?;
    }
    for f in &rest {
        writeln!(
            out,
            "finding             {} (byte offset {})",
            f.kind, f.file_offset
        )?;
    }
    // Each page's verdict (the first few; `check` lists every one).
    for b in s.bad.iter().take(16) {
        let v = &b.judgement;
        writeln!(
            out,
            "finding             page {} at byte offset {}: {v}",
            v.page, v.file_offset
        )?;
    }
    if s.bad.len() > 16 {
        writeln!(
            out,
            "finding             {} more pages with findings: run `ibdscope check` for each",
            s.bad.len().saturating_sub(16)
        )?;
    }
    Ok(())
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn json(i: &Info<'_>, path: &Path, out: &mut dyn Write) -> io::Result<()> {
    let s = &i.summary;
    let f = &i.format;
    let mut j = Json::new(out);
    j.obj()?;
    j.kv_path("file", path)?;
    j.kv_display("vendor", &i.vendor)?;
    j.key("vendor_candidates")?.arr()?;
    for v in i.vendor.candidates {
        j.str(v.name())?;
    }
    j.end_arr()?;
    j.kv_str("format", i.vendor.format)?;
    j.kv_str("format_evidence", i.vendor.reason)?;
    j.kv_num("page_size", f.logical_size)?;
    j.kv_num("physical_page_size", f.physical_size)?;
    j.kv_num("space_id", i.ts.space_id().0)?;
    j.kv_num("pages", i.ts.n_pages())?;
    j.key("fsp_size")?
        .opt_num(i.ts.fsp_header().map(|h| u64::from(h.size())))?;
    j.key("flags")?.obj()?;
    j.kv_num("value", i.flags)?
        .kv_str("layout", layout(f.layout))?;
    j.key("set")?.arr()?;
    for w in flag_words(f) {
        j.str(w)?;
    }
    j.end_arr()?;
    j.key("compression_level")?
        .opt_num(f.compression_level.map(u64::from))?;
    j.end_obj()?;
    j.kv_num("extent_size", f.extent_size())?;
    j.kv_str("checksum_algorithm", i.checksum_algorithm())?;
    j.key("checksum_algorithms")?.obj()?;
    for (a, c) in crate::findings::algorithm_counts(s) {
        j.kv_num(a, c)?;
    }
    j.end_obj()?;
    j.kv_num("empty_pages", s.empty)?;
    j.kv_num("unverifiable_pages", s.unverifiable.len() as u64)?;
    j.kv_num("damaged_pages", s.bad.len() as u64)?;
    crate::findings::verdict_json(&mut j, s)?;
    j.key("lsn_min")?.opt_num(s.lsn_min.map(|l| l.0))?;
    j.key("lsn_max")?.opt_num(s.lsn_max.map(|l| l.0))?;
    j.kv_bool("sdi", i.sdi())?;
    j.kv_bool("encrypted", i.encrypted())?;
    if let Some(c) = i.mariadb_crypt() {
        j.key("mariadb_crypt")?
            .obj()?
            .kv_num("key_id", c.key_id)?
            .kv_num("min_key_version", c.min_key_version)?
            .kv_str("encryption", c.encryption_name())?;
        j.end_obj()?;
    }
    let comp = i.compression();
    j.kv_bool("compressed", comp.is_some())?;
    match comp {
        Some(c) => j.kv_str("compression", &c)?,
        None => j.key("compression")?.null()?,
    };
    crate::system::json(&mut j, i.ts)?;
    j.key("detection")?.arr()?;
    for e in &i.ts.detection().evidence {
        j.display(e)?;
    }
    j.end_arr()?;
    j.key("findings")?.arr()?;
    for fi in &s.file_findings {
        j.obj()?;
        j.key("page")?.opt_num(fi.page.map(|p| u64::from(p.0)))?;
        j.kv_num("offset", fi.file_offset)?;
        j.kv_display("reason", &fi.kind)?;
        j.end_obj()?;
    }
    j.end_arr()?;
    j.end_obj()?;
    writeln!(out)?;
    Ok(())
}
