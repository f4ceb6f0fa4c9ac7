//! `ibdscope restore FILE --datadir D --out NEW`: a copy of a tablespace
//! with each damaged page (its checksum does not verify, or its header
//! and trailer LSN words differ) and each all-zero page replaced by the
//! doublewrite buffer's copy the server would write over it at crash
//! recovery ([`ibdscope_forensics::doublewrite`]); the input is never
//! written (`--out` is refused when it is an input, or when it exists
//! unless `--force` is given, and is written through a temporary file
//! renamed over it). Exit 1 when a page was restored or
//! is left damaged, 0 when nothing needed doing.

use crate::args::{Format, Opts, RestoreOpts};
use crate::error::{Error, ErrorKind};
use crate::json::Json;
use crate::open::{open_system, read_redo, redo_files};
use crate::outcome::Outcome;
use crate::repair::{damage_key, damage_words, left_words, rule_for, rule_words};
use ibdscope_core::Tablespace;
use ibdscope_forensics::doublewrite::{self, DoublewriteBuffer, Left, Repair, Rule};
use std::io::{self, Write};
use std::path::Path;

fn left_key(l: Left) -> &'static str {
    match l {
        Left::NoCopy => "no-copy",
        Left::FirstCopyCorrupt { .. } => "first-copy-corrupt",
        Left::NoValidCopy => "no-valid-copy",
        Left::OlderThanCheckpoint => "older-than-checkpoint",
        Left::PastLogEnd => "past-log-end",
    }
}

/// Runs `restore`.
pub fn run(opts: &Opts, r: &RestoreOpts, out: &mut dyn Write) -> io::Result<Outcome> {
    match restore(opts, r, out) {
        Ok(o) => Ok(o),
        Err(Fail::Io(e)) => Err(e),
        Err(Fail::Msg(e)) => {
            crate::diag::say!("ibdscope: {e}");
            Ok(Outcome::Unreadable)
        }
    }
}

enum Fail {
    Io(io::Error),
    Msg(Error),
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Self {
        Fail::Io(e)
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Msg(e)
    }
}

impl From<ibdscope::Error> for Fail {
    fn from(e: ibdscope::Error) -> Self {
        Fail::Msg(e.into())
    }
}

fn restore(opts: &Opts, r: &RestoreOpts, out: &mut dyn Write) -> Result<Outcome, Fail> {
    let path = opts
        .files
        .first()
        .ok_or(Error::run(ErrorKind::NoFile("restore")))?;
    let datadir =
        ibdscope::instance::find_datadir(path, r.datadir.as_deref(), opts.data_files.as_deref())
            .ok_or_else(|| Error::at(ErrorKind::NoDatadir, path))?;
    // Every file read: never the output.
    let (redo_paths, _) = redo_files(&datadir);
    let mut inputs = vec![path.clone(), datadir.join("ibdata1")];
    inputs.extend(ibdscope::instance::continuation_files(
        &datadir.join("ibdata1"),
    ));
    inputs.extend(redo_paths.into_iter().map(|(_, p)| p));
    crate::out::check(&r.out, &inputs)?;
    if !r.force && std::fs::symlink_metadata(&r.out).is_ok() {
        return Err(Error::at(ErrorKind::OutExists, &r.out).into());
    }
    let input = crate::open::file(opts, path, opts.threads)?;
    let ts = input
        .tablespace()
        .map_err(|e| Error::at(ErrorKind::Space(e), path))?;
    let sys = open_system(&datadir, opts)?;
    let ibdata1 = datadir.join("ibdata1");
    let sys_ts = sys
        .tablespace()
        .map_err(|e| Error::at(ErrorKind::Space(e), &ibdata1))?;
    let dw = DoublewriteBuffer::read(&sys_ts)
        .ok_or_else(|| Error::at(ErrorKind::NoDoublewrite, &ibdata1))?;
    let redo = read_redo(&datadir, opts);
    if let Some(Err(e)) = &redo {
        crate::diag::say!(
            "ibdscope: redo log of {}: {e}",
            ibdscope::names::path(&datadir)
        );
    }
    let info = redo.as_ref().and_then(|r| r.as_ref().ok());
    let rule = rule_for(info, &ts);
    let repairs = doublewrite::repairs(&ts, &sys_ts, &dw, rule);
    let ps = ts.page_size();
    let data = input.bytes();
    crate::out::write_via_temp(&r.out, |tmp| {
        write_copy(tmp, data, ps, &repairs, &dw, &sys_ts)
            .map_err(|e| Error::at(ErrorKind::Write(e.into()), &r.out))
    })?;
    let copies = dw.slots.iter().filter(|s| s.space == ts.space_id()).count();
    let v = View {
        path,
        out_path: &r.out,
        datadir: &datadir,
        ts: &ts,
        dw: &dw,
        rule,
        repairs: &repairs,
        copies,
    };
    match opts.format {
        Format::Json => json(&v, out)?,
        _ => text(&v, out)?,
    }
    Ok(if repairs.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

/// The file's bytes with the chosen copies in place of their pages.
fn write_copy(
    tmp: &Path,
    data: &[u8],
    ps: u32,
    repairs: &[Repair],
    dw: &DoublewriteBuffer,
    sys: &Tablespace<'_>,
) -> io::Result<()> {
    let mut f = io::BufWriter::new(std::fs::File::create(tmp)?);
    let size = usize::try_from(ps).unwrap_or(16384).max(1);
    let mut at = 0usize;
    for r in repairs {
        let Ok(slot) = r.choice else { continue };
        let Some(copy) = dw.copy(sys, &slot, ps) else {
            continue;
        };
        let start = usize::try_from(r.page.0)
            .unwrap_or(usize::MAX)
            .saturating_mul(size);
        if start < at || start.saturating_add(size) > data.len() {
            continue;
        }
        f.write_all(data.get(at..start).unwrap_or(&[]))?;
        f.write_all(copy)?;
        at = start.saturating_add(size);
    }
    f.write_all(data.get(at..).unwrap_or(&[]))?;
    f.into_inner().map_err(|e| e.into_error())?.sync_all()
}

struct View<'a> {
    path: &'a Path,
    out_path: &'a Path,
    datadir: &'a Path,
    ts: &'a Tablespace<'a>,
    dw: &'a DoublewriteBuffer,
    rule: Rule,
    repairs: &'a [Repair],
    copies: usize,
}

impl View<'_> {
    fn restored(&self) -> usize {
        self.repairs.iter().filter(|r| r.choice.is_ok()).count()
    }
}

fn text(v: &View<'_>, out: &mut dyn Write) -> io::Result<()> {
    let p = ibdscope::names::path(v.path);
    writeln!(
        out,
        "{p}: space id {}, {} pages of {} bytes",
        v.ts.space_id(),
        v.ts.n_pages(),
        v.ts.page_size()
    )?;
    writeln!(
        out,
        "doublewrite buffer of {}: {} slots (blocks at pages {} and {}), {} holding pages of space {}",
        ibdscope::names::path(&v.datadir.join("ibdata1")),
        v.dw.slots.len(),
        v.dw.block1,
        v.dw.block2,
        v.copies,
        v.ts.space_id()
    )?;
    writeln!(out, "rule: {}", rule_words(v.rule))?;
    let ps = u64::from(v.ts.page_size());
    for r in v.repairs {
        let off = u64::from(r.page.0).saturating_mul(ps);
        match r.choice {
            Ok(s) => writeln!(
                out,
                "page {} at byte offset {off}: {} (LSN {}): restored from slot {} (page {} of the system tablespace, LSN {})",
                r.page,
                damage_words(r),
                r.lsn,
                s.slot,
                s.at,
                s.lsn
            )?,
            Err(l) => writeln!(
                out,
                "page {} at byte offset {off}: {} (LSN {}): left: {}",
                r.page,
                damage_words(r),
                r.lsn,
                left_words(l)
            )?,
        }
    }
    let restored = v.restored();
    let left = v.repairs.len().saturating_sub(restored);
    if v.repairs.is_empty() {
        writeln!(
            out,
            "nothing to restore: every page verifies; wrote {} (an unchanged copy)",
            ibdscope::names::path(v.out_path)
        )
    } else {
        writeln!(
            out,
            "wrote {}: {} restored, {} left damaged",
            ibdscope::names::path(v.out_path),
            crate::text::count(restored as u64, "page", "pages"),
            crate::text::count(left as u64, "page", "pages")
        )
    }
}

fn json(v: &View<'_>, out: &mut dyn Write) -> io::Result<()> {
    let mut j = Json::new(out);
    j.obj()?
        .kv_path("file", v.path)?
        .kv_path("out", v.out_path)?
        .kv_path("datadir", v.datadir)?
        .kv_num("space_id", v.ts.space_id().0)?
        .kv_num("page_size", v.ts.page_size())?
        .kv_num("file_pages", v.ts.n_pages())?;
    j.key("doublewrite")?
        .obj()?
        .kv_num("block1", v.dw.block1)?
        .kv_num("block2", v.dw.block2)?
        .kv_num("block_pages", v.dw.block_pages)?
        .kv_num("slots", v.dw.slots.len() as u64)?
        .kv_num("copies_of_space", v.copies as u64)?
        .end_obj()?;
    j.key("rule")?.obj()?;
    match v.rule {
        Rule::MySql => {
            j.kv_str("server", "mysql")?;
        }
        Rule::MariaDb {
            checkpoint,
            log_end,
        } => {
            j.kv_str("server", "mariadb")?
                .key("checkpoint")?
                .opt_num(checkpoint.map(|l| l.0))?
                .key("log_end")?
                .opt_num(log_end.map(|l| l.0))?;
        }
    }
    j.end_obj()?.key("pages")?.arr()?;
    let ps = u64::from(v.ts.page_size());
    for r in v.repairs {
        j.obj()?
            .kv_num("page", r.page.0)?
            .kv_num("offset", u64::from(r.page.0).saturating_mul(ps))?
            .kv_str("damage", damage_key(r.damage))?
            .kv_bool("lsn_words_differ", r.lsn_words_differ)?
            .kv_str("verdict", r.verdict.word())?
            .kv_num("lsn", r.lsn.0)?;
        match r.choice {
            Ok(s) => {
                j.kv_str("action", "restored")?
                    .kv_num("slot", s.slot)?
                    .kv_num("slot_page", s.at.0)?
                    .kv_num("copy_lsn", s.lsn.0)?;
            }
            Err(l) => {
                j.kv_str("action", "left")?
                    .kv_str("why", left_key(l))?
                    .kv_str("reason", &left_words(l))?;
            }
        }
        j.end_obj()?;
    }
    let restored = v.restored();
    j.end_arr()?
        .kv_num("restored", restored as u64)?
        .kv_num("left", v.repairs.len().saturating_sub(restored) as u64)?
        .end_obj()?;
    writeln!(out)
}
