//! `ibdscope carve SOURCE... --out DIR`: InnoDB pages found in any bytes
//! (disk and filesystem images, block devices, an `ibdata1`, a reused
//! file) by [`ibdscope_forensics::carve`], one tablespace image per space
//! written into DIR (`space-<id>.ibd`, the system tablespace `ibdata1`;
//! a second space of one id
//! `space-<id>-<n>.ibd`; with `--index-id`, `index-<id>.ibd`), pages at
//! their numbers, holes zero-filled (sparse), page 0 synthesized only where
//! none was found; then the report (computed, then printed): spaces,
//! indexes, pages per level, leaf chains, LSN range, the source offset of
//! every page and of each version not kept. The sources are only read.
//! Exit 0 when every space carved is whole (page 0 found, nothing mixed,
//! every leaf chain complete) and no page was only counted (encrypted
//! without the key, a first block alone), 1 otherwise or when nothing was
//! found, 2
//! when a source cannot be read or DIR cannot be written.

use crate::args::{CarveOpts, Format, Opts};
use crate::error::{Error, ErrorKind};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope::host::Unit;
use ibdscope::open::Input;
use ibdscope_core::Engine;
use ibdscope_forensics::carve::{
    self, CarveOptions, Carved, CarvedSpace, Found, Mixed, PageLayout, SourceMap,
};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Runs `carve`.
pub fn run(opts: &Opts, c: &CarveOpts, out: &mut dyn Write) -> io::Result<Outcome> {
    match carve_all(opts, c) {
        Ok(report) => print(opts, &report, out),
        Err(e) => {
            crate::diag::say!("ibdscope: {e}");
            Ok(Outcome::Unreadable)
        }
    }
}

/// What `carve` found and wrote.
struct Report {
    sources: Vec<(PathBuf, u64)>,
    carved: Carved,
    /// Per space (same order): the image written, and whether its page 0
    /// was synthesized.
    images: Vec<(PathBuf, bool)>,
    /// Encrypted pages decrypted with the key given.
    decrypted: u64,
}

fn carve_all(opts: &Opts, c: &CarveOpts) -> Result<Report, Error> {
    if opts.files.is_empty() {
        return Err(Error::run(ErrorKind::NoFile("carve")));
    }
    let copts = {
        let mut o = CarveOptions::default();
        o.align = c.align.max(1);
        o.unverified = c.unverified;
        o.index_id = c.index_id.map(ibdscope_core::IndexId);
        o.key_file = opts.key_file.as_ref();
        o.keyring = opts.host.keyring();
        o
    };
    let mut sources: Vec<Input> = Vec::new();
    for p in &opts.files {
        // Opened as bytes: no space is parsed from a source.
        sources.push(crate::open::file(opts, p, opts.threads)?);
    }
    let engine = Engine::new(opts.threads);
    let mut found: Vec<Found> = Vec::new();
    let mut partial: Vec<Found> = Vec::new();
    let mut encrypted: Vec<Found> = Vec::new();
    for (i, src) in sources.iter().enumerate() {
        let data = src.bytes();
        let total = data.len() as u64;
        let src_no = u32::try_from(i).unwrap_or(u32::MAX);
        let _ = carve::scan(
            data,
            src_no,
            &copts,
            src.source().zero_ranges(),
            &engine,
            |piece| -> Result<(), ()> {
                found.extend(piece.found);
                partial.extend(piece.partial);
                encrypted.extend(piece.encrypted);
                src.release(piece.range.start, piece.range.len());
                opts.host
                    .progress(Unit::Pages, piece.range.end as u64 / 16384, total / 16384);
                Ok(())
            },
        );
    }
    // With the key (`--key-file`, `--keyring`): the encrypted pages
    // decrypted with their space's key, so that they verify and are
    // grouped; the image gets them as stored.
    let bytes: Vec<&[u8]> = sources.iter().map(|s| s.bytes()).collect();
    let decrypted = carve::decrypt(&mut found, &mut encrypted, &bytes, &copts);
    let mut carved = carve::group(found, copts.index_id);
    carved.partial = partial;
    carved.encrypted = encrypted;
    let inputs = opts.files.clone();
    std::fs::create_dir_all(&c.out).map_err(|e| Error::at(ErrorKind::Write(e.into()), &c.out))?;
    let mut images = Vec::new();
    // The sources as given, for the images' source maps.
    let names: Vec<String> = (opts.files.iter())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    for s in &carved.spaces {
        let name = match s.index_gathered {
            Some(id) => format!("index-{id}.ibd"),
            // The system tablespace under its own name: `--datadir DIR`
            // then reads its dictionary for the other images.
            None if s.instance == 0 && s.space_id.0 == 0 => "ibdata1".to_string(),
            None if s.instance == 0 => format!("space-{}.ibd", s.space_id),
            None => format!("space-{}-{}.ibd", s.space_id, s.instance),
        };
        let path = c.out.join(name);
        crate::out::check(&path, &inputs)?;
        let synthesized = s.page0_synthesized();
        crate::out::write_via_temp(&path, |tmp| {
            write_image(tmp, s, &sources).map_err(|e| Error::at(ErrorKind::Write(e.into()), &path))
        })?;
        // Beside the image, where each of its pages was found: `rows` and
        // `records` give each record's byte offset in the source from it.
        let map_path = sources_path(&path);
        crate::out::check(&map_path, &inputs)?;
        let image = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let text = SourceMap::of(s, &names).to_text(&image.unwrap_or_default());
        crate::out::write_via_temp(&map_path, |tmp| {
            std::fs::write(tmp, &text).map_err(|e| Error::at(ErrorKind::Write(e.into()), &map_path))
        })?;
        images.push((path, synthesized));
    }
    let sources = opts
        .files
        .iter()
        .zip(&sources)
        .map(|(p, s)| (p.clone(), s.bytes().len() as u64))
        .collect();
    Ok(Report {
        sources,
        carved,
        images,
        decrypted,
    })
}

/// The source map beside an image: `space-N.ibd.sources`.
pub(crate) fn sources_path(image: &Path) -> PathBuf {
    let mut p = image.as_os_str().to_owned();
    p.push(".sources");
    PathBuf::from(p)
}

/// Writes `space`'s image into `path`: each kept page at its number, the
/// file as long as the last page (holes left sparse, reading as zeros),
/// page 0 synthesized when none was found.
fn write_image(path: &Path, space: &CarvedSpace, sources: &[Input]) -> io::Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
    let ps = u64::from(space.page_size);
    f.set_len(u64::from(space.n_pages()).saturating_mul(ps))?;
    let synthesized = space.page0_synthesized();
    if synthesized {
        if let Some(p0) = carve::synthesize_page0(space) {
            f.seek(SeekFrom::Start(0))?;
            f.write_all(&p0)?;
        }
    }
    // The source bytes written, released 1,024 pages at a time (a span
    // per source): the image's pages are mapped a few MiB at a time.
    let mut spans: Vec<Option<(u64, u64)>> = vec![None; sources.len()];
    let release = |spans: &mut Vec<Option<(u64, u64)>>| {
        for (src, span) in sources.iter().zip(spans.iter_mut()) {
            if let Some((a, b)) = span.take() {
                src.release(a as usize, b.saturating_sub(a) as usize);
            }
        }
    };
    // Pages that follow each other in the image and in one source are
    // written in one call (a run), flushed before the sources are released.
    let mut run: Option<Run> = None;
    for (i, p) in space.pages.iter().enumerate() {
        if i % 1024 == 1023 {
            flush(&mut f, sources, run.take())?;
            release(&mut spans);
        }
        let k = p.kept;
        if synthesized && k.page_no.0 == 0 {
            continue;
        }
        if let Some(span) = spans.get_mut(k.source as usize) {
            let end = k.offset.saturating_add(u64::from(k.len));
            *span = Some(span.map_or((k.offset, end), |(a, b)| (a.min(k.offset), b.max(end))));
        }
        let at = u64::from(k.page_no.0).saturating_mul(ps);
        let (split, hole) = k.gap;
        if hole == 0 {
            let len = u64::from(k.len);
            match run.as_mut() {
                Some(r)
                    if r.source == k.source
                        && r.at.saturating_add(r.len) == at
                        && r.offset.saturating_add(r.len) == k.offset =>
                {
                    r.len = r.len.saturating_add(len)
                }
                _ => {
                    flush(&mut f, sources, run.take())?;
                    run = Some(Run {
                        source: k.source,
                        offset: k.offset,
                        at,
                        len,
                    });
                }
            }
            continue;
        }
        flush(&mut f, sources, run.take())?;
        // Stored without a run of zero blocks: put it back in place.
        let bytes = source_bytes(sources, k.source, k.offset, u64::from(k.len));
        let (first, rest) = bytes.split_at((split as usize).min(bytes.len()));
        f.seek(SeekFrom::Start(at))?;
        f.write_all(first)?;
        f.seek(SeekFrom::Current(i64::from(hole)))?;
        f.write_all(rest)?;
    }
    flush(&mut f, sources, run.take())?;
    release(&mut spans);
    f.sync_all()
}

/// Pages written in one call: `len` bytes of source `source` from
/// `offset`, at `at` in the image.
struct Run {
    source: u32,
    offset: u64,
    at: u64,
    len: u64,
}

/// The bytes of a source pages were carved from, as far as the source
/// holds them (what it does not hold stays a hole in the image).
fn source_bytes(sources: &[Input], source: u32, offset: u64, len: u64) -> &[u8] {
    sources
        .get(source as usize)
        .and_then(|s| {
            let b = s.bytes();
            let start = usize::try_from(offset).ok()?;
            let end =
                usize::try_from(offset.saturating_add(len)).map_or(b.len(), |e| e.min(b.len()));
            b.get(start..end)
        })
        .unwrap_or(&[])
}

fn flush(f: &mut std::fs::File, sources: &[Input], run: Option<Run>) -> io::Result<()> {
    let Some(r) = run else { return Ok(()) };
    f.seek(SeekFrom::Start(r.at))?;
    f.write_all(source_bytes(sources, r.source, r.offset, r.len))
}

fn mixed_words(m: &Mixed) -> String {
    match m {
        Mixed::Flags(f) => format!(
            "page 0 versions carry different FSP flags ({})",
            f.iter()
                .map(|v| format!("0x{v:x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Mixed::Indexes(pairs) => format!(
            "told apart by index ids (versions of one page number from indexes {}) but \
             their LSN ranges overlap: pages without an index id (page 0, INODE, BLOB) \
             went to the nearest LSN range and may belong to another instance",
            pairs
                .iter()
                .map(|(a, b)| format!("{a} and {b}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Mixed::Spaces(ids) => format!(
            "pages from spaces {}",
            ids.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn layout_words(s: &CarvedSpace) -> String {
    match s.layout {
        PageLayout::Zip => format!("ROW_FORMAT=COMPRESSED, {} bytes", s.page_size),
        l => format!("{}, {} bytes", l.word(), s.page_size),
    }
}

fn print(opts: &Opts, r: &Report, out: &mut dyn Write) -> io::Result<Outcome> {
    let name = |i: u32| {
        r.sources
            .get(i as usize)
            .map_or_else(String::new, |(p, _)| ibdscope::names::path(p).to_string())
    };
    match opts.format {
        Format::Json => {
            let mut j = Json::new(out);
            j.obj()?.key("sources")?.arr()?;
            for (p, len) in &r.sources {
                j.obj()?
                    .kv_path("file", p)?
                    .kv_num("bytes", *len)?
                    .end_obj()?;
            }
            j.end_arr()?;
            j.kv_num("pages_found", r.carved.found)?;
            j.kv_num("pages_decrypted", r.decrypted)?;
            j.key("encrypted")?.arr()?;
            for f in &r.carved.encrypted {
                j.obj()?;
                page_json(&mut j, f, &name)?;
                j.kv_num("space_id", f.space_id.0)?.end_obj()?;
            }
            j.end_arr()?;
            j.key("partial")?.arr()?;
            for f in &r.carved.partial {
                j.obj()?;
                page_json(&mut j, f, &name)?;
                j.kv_num("space_id", f.space_id.0)?.end_obj()?;
            }
            j.end_arr()?;
            j.key("spaces")?.arr()?;
            for (s, (img, synth)) in r.carved.spaces.iter().zip(&r.images) {
                j.obj()?
                    .kv_num("space_id", s.space_id.0)?
                    .kv_num("instance", s.instance)?;
                if let Some(id) = s.index_gathered {
                    j.kv_num("index_id", id.0)?;
                }
                j.kv_bool("told_apart_by_index_ids", s.by_index_ids)?;
                j.kv_path("image", img)?
                    .kv_path("source_map", &sources_path(img))?
                    .kv_str("layout", s.layout.word())?
                    .kv_num("page_size", s.page_size)?;
                j.key("fsp_flags")?.opt_num(s.flags.map(u64::from))?;
                j.kv_bool("page0_synthesized", *synth)?;
                j.key("mixed")?;
                match &s.mixed {
                    Some(m) => j.str(&mixed_words(m))?,
                    None => j.null()?,
                };
                j.kv_num("pages", s.pages.len() as u64)?
                    .kv_num("image_pages", s.n_pages())?
                    .kv_num("other_versions", s.other_versions() as u64)?
                    .kv_num("lsn_min", s.lsn_range.0 .0)?
                    .kv_num("lsn_max", s.lsn_range.1 .0)?
                    .kv_bool("whole", s.is_whole())?;
                j.key("indexes")?.arr()?;
                for i in &s.indexes {
                    j.obj()?
                        .kv_num("index_id", i.index_id.0)?
                        .kv_bool("sdi", i.sdi)?;
                    j.key("pages_per_level")?.arr()?;
                    for n in &i.levels {
                        j.num(*n)?;
                    }
                    j.end_arr()?;
                    j.key("root")?.opt_num(i.root.map(|p| u64::from(p.0)))?;
                    j.kv_num("leaf_chain", i.chain)?
                        .kv_bool("leaf_chain_complete", i.complete())?;
                    j.key("breaks")?.arr()?;
                    for (at, next) in &i.breaks {
                        j.obj()?
                            .kv_num("page", at.0)?
                            .kv_num("next", next.0)?
                            .end_obj()?;
                    }
                    j.end_arr()?.end_obj()?;
                }
                j.end_arr()?;
                j.key("pages_found")?.arr()?;
                for p in &s.pages {
                    j.obj()?;
                    page_json(&mut j, &p.kept, &name)?;
                    j.key("others")?.arr()?;
                    for o in &p.others {
                        j.obj()?;
                        page_json(&mut j, o, &name)?;
                        j.end_obj()?;
                    }
                    j.end_arr()?.end_obj()?;
                }
                j.end_arr()?.end_obj()?;
            }
            j.end_arr()?.end_obj()?;
            writeln!(out)?;
        }
        _ => {
            for (p, len) in &r.sources {
                writeln!(out, "source {}: {len} bytes", ibdscope::names::path(p))?;
            }
            writeln!(
                out,
                "{} pages found, {} spaces",
                r.carved.found,
                r.carved.spaces.len()
            )?;
            if r.decrypted > 0 {
                writeln!(
                    out,
                    "{} encrypted pages decrypted with the key and grouped with their space \
                     (the images hold them as stored: read them with the same key)",
                    r.decrypted
                )?;
            }
            if !r.carved.encrypted.is_empty() {
                writeln!(
                    out,
                    "{} encrypted pages found that no space takes without the key (MySQL \
                     keyring: no checksum verifies; MariaDB full_crc32: the space id is \
                     encrypted): in no image",
                    r.carved.encrypted.len()
                )?;
                for f in &r.carved.encrypted {
                    write!(
                        out,
                        "  {} offset {}: page {} lsn {}",
                        name(f.source),
                        f.offset,
                        f.page_no,
                        f.lsn
                    )?;
                    match f.layout {
                        PageLayout::FullCrc32 => writeln!(out, ", MariaDB, {} bytes", f.len)?,
                        _ => writeln!(out, ", MySQL keyring, space {}", f.space_id)?,
                    }
                }
            }
            if !r.carved.partial.is_empty() {
                writeln!(
                    out,
                    "{} index page headers found whose page does not verify whole (stored \
                     in more than two pieces, overwritten past its first block, or damaged): \
                     in no image",
                    r.carved.partial.len()
                )?;
                for f in &r.carved.partial {
                    writeln!(
                        out,
                        "  {} offset {}: space {} page {} lsn {} index {}",
                        name(f.source),
                        f.offset,
                        f.space_id,
                        f.page_no,
                        f.lsn,
                        f.index_id.map_or(0, |i| i.0)
                    )?;
                }
            }
            for (s, (img, synth)) in r.carved.spaces.iter().zip(&r.images) {
                writeln!(out)?;
                match s.index_gathered {
                    Some(id) => writeln!(out, "index {id} (space {}):", s.space_id)?,
                    None if s.instance > 0 => {
                        writeln!(out, "space {} (instance {}):", s.space_id, s.instance)?
                    }
                    None => writeln!(out, "space {}:", s.space_id)?,
                }
                writeln!(out, "  image: {}", ibdscope::names::path(img))?;
                writeln!(
                    out,
                    "  source map: {}",
                    ibdscope::names::path(&sources_path(img))
                )?;
                if s.by_index_ids {
                    writeln!(
                        out,
                        "  told apart from the other instances of space {} by index ids and LSN ranges",
                        s.space_id
                    )?;
                }
                writeln!(out, "  layout: {}", layout_words(s))?;
                match (s.flags, synth) {
                    (Some(f), true) => writeln!(
                        out,
                        "  page 0: synthesized for the index (its space's has FSP flags 0x{f:x})"
                    )?,
                    (Some(f), false) => writeln!(out, "  page 0: found, FSP flags 0x{f:x}")?,
                    (None, true) => writeln!(
                        out,
                        "  page 0: not found, synthesized (FSP flags 0x{:x})",
                        s.synthesized_flags()
                    )?,
                    (None, false) => writeln!(out, "  page 0: found")?,
                }
                if let Some(m) = &s.mixed {
                    writeln!(out, "  mixed: {}", mixed_words(m))?;
                }
                writeln!(
                    out,
                    "  pages: {} found of {} in the image, {} other versions",
                    s.pages.len(),
                    s.n_pages(),
                    s.other_versions()
                )?;
                writeln!(out, "  LSN: {} .. {}", s.lsn_range.0, s.lsn_range.1)?;
                for i in &s.indexes {
                    let levels = i
                        .levels
                        .iter()
                        .enumerate()
                        .map(|(l, n)| format!("level {l}: {n}"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let chain = if i.complete() {
                        format!("leaf chain complete ({} pages)", i.chain)
                    } else {
                        let b = i
                            .breaks
                            .iter()
                            .map(|(a, n)| format!("page {a} -> {n} not found"))
                            .collect::<Vec<_>>();
                        format!(
                            "leaf chain incomplete: {} of {} leaves reached, {} leftmost{}{}",
                            i.chain,
                            i.levels.first().copied().unwrap_or(0),
                            i.leftmost,
                            if b.is_empty() { "" } else { "; " },
                            b.join(", ")
                        )
                    };
                    writeln!(
                        out,
                        "  index {}{}: {levels}; {chain}",
                        i.index_id,
                        if i.sdi { " (SDI)" } else { "" }
                    )?;
                }
                for p in &s.pages {
                    let k = &p.kept;
                    write!(
                        out,
                        "  page {}: {} offset {} lsn {} {}",
                        k.page_no,
                        name(k.source),
                        k.offset,
                        k.lsn,
                        k.accepted.word()
                    )?;
                    for o in &p.others {
                        write!(
                            out,
                            "; older {} offset {} lsn {}",
                            name(o.source),
                            o.offset,
                            o.lsn
                        )?;
                    }
                    writeln!(out)?;
                }
            }
        }
    }
    let whole = !r.carved.spaces.is_empty()
        && r.carved.spaces.iter().all(|s| s.is_whole())
        && r.carved.partial.is_empty()
        && r.carved.encrypted.is_empty();
    Ok(if whole {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

fn page_json(j: &mut Json<'_>, f: &Found, name: &dyn Fn(u32) -> String) -> io::Result<()> {
    j.kv_num("page", f.page_no.0)?
        .kv_str("source", &name(f.source))?
        .kv_num("offset", f.offset)?
        .kv_num("bytes", f.len)?
        .kv_num("lsn", f.lsn.0)?
        .kv_num("type", f.page_type.0)?
        .kv_str("accepted", f.accepted.word())?
        .kv_bool("encrypted", f.encrypted)?;
    if let Some(id) = f.index_id {
        j.kv_num("index_id", id.0)?.kv_num("level", f.level)?;
    }
    Ok(())
}
