//! `ibdscope audit PATH...`: a verdict per file with its evidence, and for
//! directories (datadirs) the redo checkpoint, recovery needs, the pages
//! crash recovery would change (from the log's records after the
//! checkpoint), duplicate space ids and LSN spread. Files are audited on all cores; the output
//! follows the input order.

use crate::args::{Format, Opts};
use crate::error::{Error, ErrorKind};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope_core::checksum::Unverifiable;
use ibdscope_core::{Lsn, PageNo};
use ibdscope_forensics::audit::{
    AuditFinding, AuditKind, AuditOptions, PageRun, Reference, StructureCheck,
};
use ibdscope_forensics::datadir::{
    self, DatadirFile, DatadirReport, FilePages, FlushLsn, RecoveryChanges,
};
use ibdscope_forensics::redo::{self, LogPages, LogPagesStatus, RedoFile, RedoInfo, RedoLayout};
use ibdscope_forensics::{Audit, AuditVerdict};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Directory levels walked below a given directory.
const MAX_DEPTH: usize = 16;
/// Directory entries looked at per walk.
const MAX_ENTRIES: usize = 1_000_000;
/// Why most skipped files are skipped.
const NOT_INNODB: &str = "not an InnoDB file";
/// Evidence lines per verdict in text output.
const TEXT_EVIDENCE: usize = 10;
/// Distinct pages tracked from the redo log's records after the
/// checkpoint (one map entry each).
const MAX_LOG_PAGES: usize = redo::DEFAULT_MAX_PAGES;

/// How a file is audited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A tablespace: pages and structure.
    Tablespace,
    /// The system tablespace (ibdata*): pages; its structures are not modelled.
    System,
    /// An undo tablespace: pages only (its segments belong to no index).
    Undo,
}

/// A file to audit.
struct Job {
    path: PathBuf,
    kind: Kind,
    datadir: Option<usize>,
    /// For a datadir's `ibdata1`: the files that continue it (`ibdata2`…),
    /// audited with it as one space (one page numbering across them).
    joined: Vec<PathBuf>,
}

/// A file not audited, and why.
struct Skipped {
    path: PathBuf,
    why: String,
}

/// A directory given on the command line.
struct Datadir {
    root: PathBuf,
    /// A datadir's root (it holds `ibdata1`, a redo log, `mysql.ibd` or
    /// `undo_001`: [`datadir::marks_datadir`]); false for a directory that
    /// only holds loose files (its files belong to no instance).
    instance: bool,
    redo_paths: Vec<(u64, PathBuf)>,
    layout: RedoLayout,
    ibdata1: Option<PathBuf>,
    /// The system tablespace's data files that do not continue the ones
    /// before them, or could not be read (each audited alone).
    system_problems: Vec<String>,
    /// The InnoDB dictionary (MySQL ≤ 5.7, MariaDB), read once: its
    /// tables, and each problem met reading it (file, page, byte offset).
    dictionary: Option<(usize, Vec<String>)>,
    redo: Option<Result<RedoInfo, Error>>,
    /// The pages the log's records after the checkpoint change.
    log_pages: Option<LogPages>,
    flush_lsn: Option<Lsn>,
    /// The undo logs (MySQL ≤ 5.7, MariaDB): to purge, and the findings.
    undo: Option<crate::undo_words::UndoAudit>,
}

/// What one file gave.
struct Done {
    result: Result<Audit, Error>,
    /// A key given that does not open the file (said on stderr): a finding.
    key: Outcome,
    page_size: u32,
    /// What crash recovery of the datadir would change in this file.
    recovery: Option<RecoveryChanges>,
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The file name of the system tablespace's first data file.
fn first_name(spec: Option<&[PathBuf]>) -> String {
    spec.and_then(|n| n.first())
        .and_then(|n| n.file_name())
        .map_or_else(|| "ibdata1".into(), |n| n.to_string_lossy().into_owned())
}

fn digits_after(name: &str, prefix: &str) -> Option<u64> {
    let rest = name.strip_prefix(prefix)?;
    (!rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
        .then(|| rest.parse().ok())
        .flatten()
}

enum Class {
    Audit(Kind),
    Redo(RedoLayout, u64),
    Skip(String),
}

fn classify(path: &Path) -> Class {
    let name = file_name(path);
    let in_redo_dir = path
        .parent()
        .is_some_and(|p| file_name(p) == "#innodb_redo");
    if name.ends_with(".ibd") {
        return Class::Audit(Kind::Tablespace);
    }
    if name.starts_with("ibdata") {
        return Class::Audit(Kind::System);
    }
    if name.ends_with(".ibu")
        || digits_after(&name, "undo_").is_some()
        || digits_after(&name, "undo").is_some()
    {
        return Class::Audit(Kind::Undo);
    }
    if let Some(n) = digits_after(&name, "ib_logfile") {
        return Class::Redo(RedoLayout::LogFiles, n);
    }
    if in_redo_dir {
        if let Some(n) = digits_after(&name, "#ib_redo") {
            return Class::Redo(RedoLayout::InnodbRedo, n);
        }
        if name.starts_with("#ib_redo") && name.ends_with("_tmp") {
            return Class::Skip("spare redo log file (not in use)".into());
        }
    }
    if name == "ibtmp1" {
        return Class::Skip("temporary tablespace (recreated at every start)".into());
    }
    if name.ends_with(".dblwr") {
        return Class::Skip("doublewrite buffer file (not audited)".into());
    }
    Class::Skip(NOT_INNODB.into())
}

/// Walks `root`, bounded, without following directory symlinks.
fn walk(
    root: &Path,
    jobs: &mut Vec<Job>,
    skipped: &mut Vec<Skipped>,
    dd: &mut Datadir,
    index: usize,
    spec: Option<&[PathBuf]>,
    others: &[PathBuf],
) {
    let first = first_name(spec);
    let mut stack: Vec<(PathBuf, usize)> = vec![(root.to_path_buf(), 0)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                skipped.push(Skipped {
                    path: dir.clone(),
                    why: format!("cannot read directory: {e}"),
                });
                continue;
            }
        };
        entries.sort();
        for path in entries {
            seen = seen.saturating_add(1);
            if seen > MAX_ENTRIES {
                skipped.push(Skipped {
                    path: root.to_path_buf(),
                    why: format!("walk stopped after {MAX_ENTRIES} entries"),
                });
                return;
            }
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                if others.contains(&path) {
                    // Another instance, audited on its own.
                    continue;
                }
                if depth.saturating_add(1) > MAX_DEPTH {
                    skipped.push(Skipped {
                        path,
                        why: format!("deeper than {MAX_DEPTH} levels"),
                    });
                } else {
                    stack.push((path, depth.saturating_add(1)));
                }
                continue;
            }
            if meta.file_type().is_symlink() && std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                skipped.push(Skipped {
                    path,
                    why: "symbolic link to a directory (not followed)".into(),
                });
                continue;
            }
            let named = spec.is_some_and(|n| {
                n.iter()
                    .any(|n| n.file_name() == path.file_name() && depth == 0)
            });
            let class = if named {
                Class::Audit(Kind::System)
            } else {
                classify(&path)
            };
            match class {
                Class::Audit(kind) => {
                    if kind == Kind::System && file_name(&path) == first && depth == 0 {
                        dd.ibdata1 = Some(path.clone());
                    }
                    jobs.push(Job {
                        path,
                        kind,
                        datadir: Some(index),
                        joined: Vec::new(),
                    });
                }
                Class::Redo(layout, n) => {
                    let at_root = depth == 0 || (layout == RedoLayout::InnodbRedo && depth == 1);
                    if at_root && (dd.redo_paths.is_empty() || dd.layout == layout) {
                        dd.layout = layout;
                        dd.redo_paths.push((n, path));
                    } else {
                        skipped.push(Skipped {
                            path,
                            why: "redo log file outside the datadir root (not used)".into(),
                        });
                    }
                }
                Class::Skip(why) => skipped.push(Skipped { path, why }),
            }
        }
    }
}

/// The datadirs in the tree under `root` (`root` itself included when it
/// is one): each directory holding an entry that marks a datadir's root
/// ([`datadir::marks_datadir`]), in walk order (sorted by path). The walk
/// has the bounds of [`walk`] and follows no symbolic link; it does not
/// look inside `#innodb_redo/`.
fn find_instances(root: &Path, spec: Option<&[PathBuf]>) -> Vec<PathBuf> {
    let first = first_name(spec);
    let mut found = Vec::new();
    let mut stack: Vec<(PathBuf, usize)> = vec![(root.to_path_buf(), 0)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut marked = false;
        let mut subdirs = Vec::new();
        for e in rd.flatten() {
            seen = seen.saturating_add(1);
            if seen > MAX_ENTRIES {
                break;
            }
            let Ok(t) = e.file_type() else { continue };
            let name = e.file_name().to_string_lossy().into_owned();
            marked |= datadir::marks_datadir(&name, t.is_dir(), &first);
            if t.is_dir() && name != "#innodb_redo" && depth < MAX_DEPTH {
                subdirs.push(e.path());
            }
        }
        if marked {
            found.push(dir);
        }
        // Popped in sorted order.
        subdirs.sort_unstable_by(|a, b| b.cmp(a));
        stack.extend(subdirs.into_iter().map(|d| (d, depth.saturating_add(1))));
    }
    found
}

/// A datadir's system tablespace is one space across its data files
/// (`ibdata1`, then `ibdata2`… while each continues the ones before it):
/// the `ibdata1` job takes the files that continue it, which are then no
/// jobs of their own; a file that does not continue is audited alone, and
/// why it was not joined is a datadir finding.
fn join_system(dd: &mut Datadir, index: usize, jobs: &mut Vec<Job>, opts: &Opts) {
    let Some(first) = dd.ibdata1.clone() else {
        return;
    };
    let Ok(sys) = crate::open::system(opts, &first, 1) else {
        return;
    };
    dd.dictionary = dictionary_of(&sys);
    let more: Vec<PathBuf> = sys.files.iter().skip(1).map(|(p, _)| p.clone()).collect();
    dd.system_problems = sys.problems.clone();
    drop(sys);
    if more.is_empty() {
        return;
    }
    jobs.retain(|j| j.datadir != Some(index) || !more.contains(&j.path));
    if let Some(j) = jobs
        .iter_mut()
        .find(|j| j.datadir == Some(index) && j.path == first)
    {
        j.joined = more;
    }
}

/// The dictionary of a MySQL ≤ 5.7 / MariaDB system tablespace: how many
/// tables it lists and its problems in words; `None` where there is none to
/// read (MySQL 8.0+ keeps its dictionary in `mysql.ibd` beside `ibdata1`).
fn dictionary_of(sys: &ibdscope::open::Input) -> Option<(usize, Vec<String>)> {
    let first = sys.files.first().map(|f| f.0.clone()).unwrap_or_default();
    if first.with_file_name("mysql.ibd").is_file() {
        return None;
    }
    let ts = sys.tablespace().ok()?;
    if ts.space_id().0 != 0 {
        return None;
    }
    match ibdscope_forensics::dict::Dictionary::survey(&ts) {
        Ok(d) => Some((
            usize::try_from(d.tables).unwrap_or(usize::MAX),
            d.problems
                .iter()
                .map(|p| ibdscope::instance::problem_words(sys, p))
                .collect(),
        )),
        Err(e) => Some((0, vec![format!("{}: {e}", ibdscope::names::path(&first))])),
    }
}

/// Reads a datadir's redo log and flush LSN.
fn reference_points(dd: &mut Datadir, opts: &Opts) {
    if !dd.redo_paths.is_empty() {
        dd.redo_paths.sort();
        let mut inputs = Vec::new();
        let mut err = None;
        for (n, p) in &dd.redo_paths {
            match crate::open::file(opts, p, opts.threads) {
                Ok(i) => inputs.push((*n, i)),
                Err(e) => err = Some(Error::from(e)),
            }
        }
        dd.redo = Some(match err {
            Some(e) => Err(e),
            None => {
                let files: Vec<RedoFile<'_>> = inputs
                    .iter()
                    .map(|(id, i)| RedoFile {
                        id: *id,
                        data: i.bytes(),
                    })
                    .collect();
                let info = redo::read(&files, dd.layout)
                    .map_err(|e| Error::at(ErrorKind::Redo(e), &dd.root));
                if let Ok(info) = &info {
                    dd.log_pages = Some(redo::log_pages(&files, dd.layout, info, MAX_LOG_PAGES));
                }
                info
            }
        });
    }
    if let Some(p) = &dd.ibdata1 {
        if let Ok(i) = crate::open::file(opts, p, opts.threads) {
            if let Ok(ts) = i.tablespace() {
                if ts.detection().page0_ok {
                    dd.flush_lsn = ts
                        .page(PageNo(0))
                        .and_then(ibdscope_core::fil::FilHeader::new)
                        .map(|h| h.flush_lsn());
                }
            }
        }
    }
}

fn audit_one(
    job: &Job,
    reference: Reference,
    log: Option<&LogPages>,
    opts: &Opts,
    pages_progress: bool,
) -> Done {
    // The system tablespace's files were found to continue each other
    // when the jobs were made (`join_system`); opened again the same way.
    let opened = if job.joined.is_empty() {
        crate::open::file(opts, &job.path, 1)
    } else {
        crate::open::system(opts, &job.path, 1)
    };
    let input = match opened {
        Ok(i) => i,
        Err(e) => {
            return Done {
                result: Err(e.into()),
                key: Outcome::Clean,
                page_size: 0,
                recovery: None,
            }
        }
    };
    match input.tablespace() {
        Ok(ts) => {
            // One file alone: its pages are the run's progress.
            let progress =
                |done, total| opts.host.progress(ibdscope::host::Unit::Pages, done, total);
            let engine = if pages_progress {
                opts.engine().with_progress(&progress)
            } else {
                opts.engine()
            };
            let options = AuditOptions::new(reference).with_pages_only(job.kind == Kind::Undo);
            // A wrong key is said once and the pages read as stored.
            let keys = opts.key_file.as_ref();
            let key = crate::open::key_finding(&job.path, &ts, opts);
            // No image with a wrong key (said by `key_finding`); with
            // another key of the file that opens it, the image.
            let mut diags = Vec::new();
            let image = ibdscope::logical::decrypted(&job.path, &ts, &engine, keys, &mut diags);
            crate::open::say(&diags);
            let a = match image {
                Some(d) => {
                    let plain = d.tablespace(&ts);
                    let mut failed: Vec<PageNo> = d.failures.iter().map(|f| f.page).collect();
                    failed.sort_unstable();
                    Audit::with_plain(&ts, &plain, &failed, &engine, options)
                }
                None => Audit::with_options(&ts, &engine, options),
            };
            // The system tablespace's page numbers run on through its
            // files: only ibdata1 starts at page 0.
            let first_file = job.kind != Kind::System
                || file_name(&job.path) == first_name(opts.data_files.as_deref());
            let recovery = log
                .filter(|l| l.status != LogPagesStatus::NotParsed && first_file)
                .map(|l| datadir::recovery_changes(&ts, a.space_id, l));
            Done {
                result: Ok(a),
                key,
                page_size: ts.page_size(),
                recovery,
            }
        }
        Err(e) => Done {
            result: Err(Error::at(ErrorKind::Space(e), &job.path)),
            key: Outcome::Clean,
            page_size: 0,
            recovery: None,
        },
    }
}

/// Audits every job on all cores, results in job order.
fn audit_all(jobs: &[Job], dds: &[Datadir], opts: &Opts) -> Vec<Done> {
    let log = |job: &Job| -> Option<&LogPages> {
        job.datadir
            .and_then(|d| dds.get(d))
            .and_then(|d| d.log_pages.as_ref())
    };
    let reference = |job: &Job| -> Reference {
        let Some(r) = job
            .datadir
            .and_then(|d| dds.get(d))
            .and_then(|d| d.redo.as_ref())
            .and_then(|r| r.as_ref().ok())
        else {
            return Reference::default();
        };
        Reference {
            checkpoint: Some(r.checkpoint.lsn),
            log_end: Some(r.end),
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Done>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let (finished, total) = (AtomicUsize::new(0), jobs.len() as u64);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let done = audit_one(job, reference(job), log(job), opts, jobs.len() == 1);
                if let Ok(mut v) = slots.lock() {
                    if let Some(slot) = v.get_mut(i) {
                        *slot = Some(done);
                    }
                    // Under the lock: the count only goes up.
                    let n = (finished.fetch_add(1, Ordering::Relaxed) as u64).saturating_add(1);
                    opts.host.progress(ibdscope::host::Unit::Files, n, total);
                }
            });
        }
    });
    slots
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .zip(jobs)
        .map(|(d, job)| {
            d.unwrap_or_else(|| Done {
                result: Err(Error::at(ErrorKind::NotAudited, &job.path)),
                key: Outcome::Clean,
                page_size: 0,
                recovery: None,
            })
        })
        .collect()
}

/// Runs `audit`.
pub fn run(opts: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
    let mut jobs = Vec::new();
    let mut skipped = Vec::new();
    let mut dds: Vec<Datadir> = Vec::new();
    for p in &opts.files {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                // A folder of datadirs (`/backups/host*/`): each is its own
                // instance, walked and audited as if given alone; the
                // folder keeps the loose files outside them.
                let spec = opts.data_files.as_deref();
                let instances = find_instances(p, spec);
                let mut roots: Vec<(PathBuf, bool)> = Vec::new();
                if !instances.contains(p) {
                    roots.push((p.clone(), false));
                }
                roots.extend(instances.iter().map(|r| (r.clone(), true)));
                for (root, instance) in roots {
                    let others: Vec<PathBuf> =
                        instances.iter().filter(|r| **r != root).cloned().collect();
                    let mut dd = Datadir {
                        root: root.clone(),
                        instance,
                        redo_paths: Vec::new(),
                        layout: RedoLayout::LogFiles,
                        ibdata1: None,
                        system_problems: Vec::new(),
                        dictionary: None,
                        redo: None,
                        log_pages: None,
                        flush_lsn: None,
                        undo: None,
                    };
                    let index = dds.len();
                    let before = jobs.len();
                    walk(
                        &root,
                        &mut jobs,
                        &mut skipped,
                        &mut dd,
                        index,
                        spec,
                        &others,
                    );
                    // A folder holding only datadirs is no datadir itself.
                    if !instance && !instances.is_empty() && jobs.len() == before {
                        continue;
                    }
                    join_system(&mut dd, index, &mut jobs, opts);
                    reference_points(&mut dd, opts);
                    dd.undo = crate::undo_words::undo_audit(opts, &dd.root);
                    dds.push(dd);
                }
            }
            _ => match classify(p) {
                Class::Redo(..) => skipped.push(Skipped {
                    path: p.clone(),
                    why: "a redo log file: give the datadir directory to use it".into(),
                }),
                Class::Audit(kind) => jobs.push(Job {
                    path: p.clone(),
                    kind,
                    datadir: None,
                    joined: Vec::new(),
                }),
                // A file named on the command line is read as a tablespace
                // whatever its name.
                Class::Skip(_) => jobs.push(Job {
                    path: p.clone(),
                    kind: Kind::Tablespace,
                    datadir: None,
                    joined: Vec::new(),
                }),
            },
        }
    }
    let done = audit_all(&jobs, &dds, opts);
    for (job, d) in jobs.iter().zip(&done) {
        if let Err(e) = &d.result {
            crate::diag::say!(
                "ibdscope: {}: {}",
                ibdscope::names::path(&job.path),
                e.kind()
            );
        }
    }
    let reports: Vec<DatadirReport> = dds
        .iter()
        .enumerate()
        .map(|(i, dd)| {
            let files: Vec<DatadirFile<'_>> = jobs
                .iter()
                .zip(&done)
                .filter(|(j, _)| j.datadir == Some(i))
                .filter_map(|(j, d)| {
                    d.result.as_ref().ok().map(|a| DatadirFile {
                        audit: a,
                        system: j.kind == Kind::System,
                        recovery: d.recovery.as_ref(),
                    })
                })
                .collect();
            DatadirReport::of(
                &files,
                dd.redo.as_ref().and_then(|r| r.as_ref().ok()),
                dd.log_pages.as_ref(),
                dd.flush_lsn,
            )
        })
        .collect();
    // Index of each datadir file in its report's slice.
    let members: Vec<Vec<usize>> = (0..dds.len())
        .map(|i| {
            jobs.iter()
                .zip(&done)
                .enumerate()
                .filter(|(_, (j, d))| j.datadir == Some(i) && d.result.is_ok())
                .map(|(k, _)| k)
                .collect()
        })
        .collect();
    let facts = instance_facts(&jobs, &done, &dds, opts);
    let ctx = Ctx {
        facts: &facts,
        jobs: &jobs,
        done: &done,
        dds: &dds,
        reports: &reports,
        members: &members,
        skipped: &skipped,
    };
    match opts.format {
        Format::Json => json(&ctx, out)?,
        Format::Jsonl => jsonl(&ctx, out)?,
        Format::Csv => csv(&ctx, out)?,
        Format::Text | Format::Tsv | Format::Sql => text(&ctx, out)?,
    }
    let mut worst = Outcome::Clean;
    for (job, d) in jobs.iter().zip(&done) {
        worst = worst.max(match &d.result {
            // A file met in a directory walk that cannot be read (a FIFO
            // or socket named like a tablespace, a permission) is that
            // file's verdict, a finding; a file named on the command line
            // that cannot be read is a run that could not read its input.
            Err(_) if job.datadir.is_some() => Outcome::Findings,
            Err(_) => Outcome::Unreadable,
            Ok(a) if a.verdict.is_finding() => Outcome::Findings,
            Ok(_) => Outcome::Clean,
        });
        worst = worst.max(d.key);
    }
    for (dd, r) in dds.iter().zip(&reports) {
        if r.has_findings()
            || matches!(dd.redo, Some(Err(_)))
            || !dd.system_problems.is_empty()
            || dd.dictionary.as_ref().is_some_and(|(_, p)| !p.is_empty())
            || dd.undo.as_ref().is_some_and(|u| !u.findings.is_empty())
        {
            worst = worst.max(Outcome::Findings);
        }
    }
    if facts.iter().flatten().any(|f| f.has_findings()) {
        worst = worst.max(Outcome::Findings);
    }
    if jobs.is_empty() && dds.is_empty() {
        worst = Outcome::Unreadable;
    }
    Ok(worst)
}

/// Each datadir's instance facts: its tablespace files (with whether
/// their audit found damaged or torn pages) against its system tablespace.
fn instance_facts(
    jobs: &[Job],
    done: &[Done],
    dds: &[Datadir],
    opts: &Opts,
) -> Vec<Option<crate::instance_facts::InstanceFacts>> {
    dds.iter()
        .enumerate()
        .map(|(i, dd)| {
            let files: Vec<crate::instance_facts::FileIn<'_>> = jobs
                .iter()
                .zip(done)
                .filter(|(j, _)| j.datadir == Some(i) && j.kind == Kind::Tablespace)
                .map(|(j, d)| crate::instance_facts::FileIn {
                    path: &j.path,
                    damaged: d.result.as_ref().is_ok_and(|a| {
                        a.verdicts()
                            .iter()
                            .any(|(v, _)| matches!(v, AuditVerdict::Damaged | AuditVerdict::Torn))
                    }),
                })
                .collect();
            let redo = dd.redo.as_ref().and_then(|r| r.as_ref().ok());
            crate::instance_facts::collect(&dd.root, &files, redo, opts)
        })
        .collect()
}

struct Ctx<'a> {
    /// Each datadir's instance facts (dictionary, doublewrite buffer).
    facts: &'a [Option<crate::instance_facts::InstanceFacts>],
    jobs: &'a [Job],
    done: &'a [Done],
    dds: &'a [Datadir],
    reports: &'a [DatadirReport],
    members: &'a [Vec<usize>],
    skipped: &'a [Skipped],
}

impl Ctx<'_> {
    /// The root of the instance (datadir) `job` was found in, if any.
    fn instance_of(&self, job: &Job) -> Option<&Path> {
        job.datadir
            .and_then(|d| self.dds.get(d))
            .filter(|d| d.instance)
            .map(|d| d.root.as_path())
    }

    /// The path of file `k` of datadir `d`'s report.
    fn member(&self, d: usize, k: usize) -> String {
        self.members
            .get(d)
            .and_then(|m| m.get(k))
            .and_then(|&j| self.jobs.get(j))
            .map_or_else(String::new, |j| ibdscope::names::path(&j.path).to_string())
    }
}

fn why_word(w: Unverifiable) -> &'static str {
    match w {
        Unverifiable::Encrypted => "encrypted",
        Unverifiable::PageCompressed => "page-compressed",
    }
}

fn unverified_sentence(w: Unverifiable, checksum_verified: bool) -> &'static str {
    match (w, checksum_verified) {
        (Unverifiable::Encrypted, false) => {
            "encrypted: the checksum covers the plaintext, so neither it nor the content can be checked without the key"
        }
        (Unverifiable::Encrypted, true) => {
            "encrypted: the checksum of the encrypted bytes verifies; the content cannot be read without the key"
        }
        (Unverifiable::PageCompressed, false) => {
            "page-compressed: the server verifies the checksum only after decompression"
        }
        (Unverifiable::PageCompressed, true) => {
            "page-compressed: the checksum verifies (full_crc32: of the compressed bytes; otherwise of the decompressed page); the content (B-tree links) is not read"
        }
    }
}

fn structure_word(s: StructureCheck) -> &'static str {
    match s {
        StructureCheck::Checked => "checked",
        StructureCheck::Page0Unusable => "not checked: page 0 does not verify or belongs elsewhere",
        StructureCheck::NotAsked => "not checked: undo tablespace (pages only)",
        StructureCheck::SystemTablespace => "not checked: system tablespace (pages only)",
        _ => "not checked",
    }
}

fn structure_key(s: StructureCheck) -> &'static str {
    match s {
        StructureCheck::Checked => "checked",
        StructureCheck::Page0Unusable => "page0-unusable",
        StructureCheck::NotAsked => "pages-only",
        StructureCheck::SystemTablespace => "system-tablespace",
        _ => "not-checked",
    }
}

fn flush_word(f: FlushLsn) -> &'static str {
    match f {
        FlushLsn::NotWritten => "not written by this server",
        FlushLsn::AtCheckpoint => "equal to the checkpoint, as a clean shutdown leaves it",
        FlushLsn::BeforeCheckpoint => {
            "below the checkpoint: the server ran after its last clean shutdown"
        }
        FlushLsn::AfterCheckpoint => {
            "above the checkpoint: the redo log is older than the system tablespace"
        }
    }
}

fn flush_key(f: FlushLsn) -> &'static str {
    match f {
        FlushLsn::NotWritten => "not-written",
        FlushLsn::AtCheckpoint => "at-checkpoint",
        FlushLsn::BeforeCheckpoint => "before-checkpoint",
        FlushLsn::AfterCheckpoint => "after-checkpoint",
    }
}

fn runs_text(runs: &[PageRun], limit: usize) -> String {
    let mut parts: Vec<String> = runs
        .iter()
        .take(limit)
        .map(|r| {
            if r.first == r.last {
                r.first.to_string()
            } else {
                format!("{}-{}", r.first, r.last)
            }
        })
        .collect();
    if runs.len() > limit {
        parts.push(format!(
            "... ({} more runs)",
            runs.len().saturating_sub(limit)
        ));
    }
    parts.join(", ")
}

fn pages_text(pages: &[PageNo], limit: usize) -> String {
    let mut runs: Vec<PageRun> = Vec::new();
    for &p in pages {
        match runs.last_mut() {
            Some(r) if r.last.0.checked_add(1) == Some(p.0) => r.last = p,
            _ => runs.push(PageRun { first: p, last: p }),
        }
    }
    runs_text(&runs, limit)
}

// ---------------------------------------------------------------- text

fn text(c: &Ctx<'_>, out: &mut dyn Write) -> io::Result<()> {
    if c.dds.len() > 1 {
        // Several datadirs (a folder of them): each instance's files, then
        // its datadir section, after the files given alone.
        let files = |i: Option<usize>, out: &mut dyn Write| -> io::Result<()> {
            for (job, d) in c.jobs.iter().zip(c.done).filter(|(j, _)| j.datadir == i) {
                file_text(job, d, out)?;
            }
            Ok(())
        };
        files(None, out)?;
        for (i, (dd, r)) in c.dds.iter().zip(c.reports).enumerate() {
            files(Some(i), out)?;
            datadir_text(c, i, dd, r, out)?;
        }
    } else {
        for (job, d) in c.jobs.iter().zip(c.done) {
            file_text(job, d, out)?;
        }
        for (i, (dd, r)) in c.dds.iter().zip(c.reports).enumerate() {
            datadir_text(c, i, dd, r, out)?;
        }
    }
    if !c.skipped.is_empty() {
        skipped_text(c.skipped, out)?;
    }
    if c.jobs.len() > 1 {
        summary_text(c, out)?;
    }
    Ok(())
}

/// One file's audit: its verdict and figures, each finding kind with its
/// pages and evidence, what was not verified, and what recovery would do.
fn file_text(job: &Job, d: &Done, out: &mut dyn Write) -> io::Result<()> {
    let p = ibdscope::names::path(&job.path);
    let a = match &d.result {
        Ok(a) => a,
        Err(e) => return writeln!(out, "{p}: unreadable: {}", e.kind()),
    };
    // A key given that does not open the space (said once on stderr):
    // the verdict says why its pages stay encrypted.
    let keyed = if d.key == Outcome::Clean {
        ""
    } else {
        ", the key given does not open it"
    };
    write!(
        out,
        "{p}: {}{keyed} ({} pages of {} bytes, {} valid, {} empty, space id {}",
        a.verdict,
        a.pages,
        d.page_size,
        // The words and numbers of `check`: valid pages are those that
        // verify and are not all zero.
        a.verified.saturating_sub(a.empty),
        a.empty,
        a.space_id
    )?;
    if a.doublewrite_not_verifying > 0 {
        write!(
            out,
            ", {} doublewrite copies that do not verify",
            a.doublewrite_not_verifying
        )?;
    }
    if let Some((lo, hi)) = a.lsn_range {
        write!(out, ", LSN {lo}..{hi}")?;
    }
    writeln!(out, ")")?;
    // A system tablespace read across its data files: offsets past the
    // first file are said in the file that holds them.
    let parts: Vec<(PathBuf, u64)> = if job.joined.is_empty() {
        Vec::new()
    } else {
        std::iter::once(&job.path)
            .chain(&job.joined)
            .map(|p| (p.clone(), std::fs::metadata(p).map_or(0, |m| m.len())))
            .collect()
    };
    verdicts_text(a, &parts, out)?;
    let after: Vec<_> = a
        .findings
        .iter()
        .filter(|f| matches!(f.kind, AuditKind::StructureAfterDamage(_)))
        .collect();
    if !after.is_empty() {
        writeln!(
            out,
            "  structure findings that may follow from the damage: {}",
            after.len()
        )?;
        for f in after.iter().take(TEXT_EVIDENCE) {
            writeln!(
                out,
                "    {}byte offset {}: {}",
                f.page.map_or(String::new(), |p| format!("page {p} at ")),
                f.file_offset,
                f.kind
            )?;
        }
    }
    for r in &a.unverified {
        let what = if r.first == r.last {
            format!("page {}", r.first)
        } else {
            format!("pages {}-{} ({})", r.first, r.last, r.len())
        };
        writeln!(
            out,
            "  {}: {what} not verified: {}",
            if r.why == Unverifiable::Encrypted {
                "encrypted"
            } else {
                "compressed"
            },
            unverified_sentence(r.why, r.checksum_verified)
        )?;
    }
    if a.structure != StructureCheck::Checked {
        writeln!(out, "  structure: {}", structure_word(a.structure))?;
    }
    if let Some([b1, b2]) = a.doublewrite {
        writeln!(
            out,
            "  doublewrite buffer: pages {}-{} and {}-{} (copies of other pages, not judged)",
            b1.first, b1.last, b2.first, b2.last
        )?;
    }
    if a.freed_with_records > 0 {
        writeln!(
            out,
            "  {} free pages still hold records (normal after deletes and merges; not a finding)",
            a.freed_with_records
        )?;
    }
    if let Some(n) = a.newer_than_checkpoint.as_ref().filter(|n| n.pages > 0) {
        writeln!(
            out,
            "  {} newer than the checkpoint ({} {}), newest LSN {}",
            crate::text::count(n.pages, "page", "pages"),
            if n.pages == 1 { "page" } else { "pages" },
            runs_text(&n.runs, 12),
            n.newest.unwrap_or_default()
        )?;
    }
    if let Some(r) = d.recovery.as_ref().filter(|r| r.logged > 0) {
        recovery_text(r, out)?;
    }
    Ok(())
}

/// One line per verdict with its pages and LSNs, and its first findings.
fn verdicts_text(a: &Audit, parts: &[(PathBuf, u64)], out: &mut dyn Write) -> io::Result<()> {
    let at = |off: u64| -> String {
        let mut start = 0u64;
        for (i, (p, len)) in parts.iter().enumerate() {
            let end = start.saturating_add(*len);
            if off < end || i.saturating_add(1) == parts.len() {
                if i == 0 {
                    break;
                }
                return format!(
                    "byte offset {} of {}",
                    off.saturating_sub(start),
                    ibdscope::names::path(p)
                );
            }
            start = end;
        }
        format!("byte offset {off}")
    };
    for (v, n) in a.verdicts() {
        if matches!(v, AuditVerdict::Encrypted | AuditVerdict::Compressed) {
            continue;
        }
        let pages = a.pages_of(v);
        write!(out, "  {v}: {n} finding{}", if n == 1 { "" } else { "s" })?;
        if !pages.is_empty() {
            let word = if pages.len() == 1 { "page" } else { "pages" };
            write!(out, " on {word} {}", pages_text(&pages, 12))?;
        }
        if let Some((lo, hi)) = a.lsn_range_of(v) {
            write!(out, "; LSN {lo}..{hi}")?;
        }
        writeln!(out)?;
        // What is said of the whole file first (it changes how the rest
        // reads), then the pages' own verdicts (a page judged `stale`,
        // say), then the evidence between pages.
        let rank = |f: &AuditFinding| match (f.kind, f.page_verdict()) {
            (AuditKind::File(_), _) => 0,
            (_, Some(_)) => 1,
            _ => 2,
        };
        let of_v = |r| {
            a.findings
                .iter()
                .filter(move |f| f.verdict() == v && rank(f) == r)
        };
        let ordered = of_v(0).chain(of_v(1)).chain(of_v(2));
        for (shown, f) in ordered.enumerate() {
            if shown == TEXT_EVIDENCE {
                writeln!(
                    out,
                    "    ... {} more (all in --format json)",
                    (n as usize).saturating_sub(shown)
                )?;
                break;
            }
            match f.page {
                Some(pg) => writeln!(out, "    page {pg} at {}: {}", at(f.file_offset), f.kind)?,
                None => writeln!(out, "    {}: {}", at(f.file_offset), f.kind)?,
            }
        }
    }
    Ok(())
}

/// The files skipped, counted by reason (files that are not InnoDB by
/// extension).
fn skipped_text(skipped: &[Skipped], out: &mut dyn Write) -> io::Result<()> {
    let mut by: Vec<(&str, u32)> = Vec::new();
    for s in skipped {
        match by.iter_mut().find(|(w, _)| *w == s.why) {
            Some((_, n)) => *n = n.saturating_add(1),
            None => by.push((&s.why, 1)),
        }
    }
    writeln!(out, "skipped {} files:", skipped.len())?;
    for (w, n) in by {
        if w != NOT_INNODB {
            writeln!(out, "  {n:>6}  {w}")?;
            continue;
        }
        let mut ext: Vec<(String, u32)> = Vec::new();
        for s in skipped.iter().filter(|s| s.why == NOT_INNODB) {
            let e = s.path.extension().map_or_else(
                || "(none)".to_string(),
                |e| format!(".{}", e.to_string_lossy()),
            );
            match ext.iter_mut().find(|(x, _)| *x == e) {
                Some((_, k)) => *k = k.saturating_add(1),
                None => ext.push((e, 1)),
            }
        }
        ext.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let parts: Vec<String> = ext.iter().map(|(e, k)| format!("{k} {e}")).collect();
        writeln!(out, "  {n:>6}  {w}: {}", parts.join(", "))?;
    }
    Ok(())
}

fn recovery_text(r: &RecoveryChanges, out: &mut dyn Write) -> io::Result<()> {
    write!(
        out,
        "  {} pages crash recovery would change (log records after the checkpoint newer than the page)",
        r.pages
    )?;
    if r.pages > 0 {
        write!(
            out,
            ": pages {}, to LSN {}",
            runs_text(&r.runs, 12),
            r.newest.unwrap_or_default()
        )?;
    }
    writeln!(out)?;
    let mut also = Vec::new();
    if r.initialised > 0 {
        also.push(format!("{} of them initialised by the log", r.initialised));
    }
    if r.past_end > 0 {
        also.push(format!("{} past the file's end", r.past_end));
    }
    if r.already_written > 0 {
        also.push(format!(
            "{} logged pages already hold their last change (recovery skips them)",
            r.already_written
        ));
    }
    if r.freed > 0 {
        also.push(format!(
            "{} logged pages are freed by the log (not written)",
            r.freed
        ));
    }
    if !also.is_empty() {
        writeln!(out, "    {}", also.join("; "))?;
    }
    Ok(())
}

fn log_pages_text(l: &LogPages, out: &mut dyn Write) -> io::Result<()> {
    match l.status {
        LogPagesStatus::NotParsed => {
            return writeln!(
                out,
                "  log records: not read for this format (pages recovery would change are not known)"
            )
        }
        LogPagesStatus::Complete => writeln!(
            out,
            "  log records after the checkpoint: {} mini-transactions, {} page records on {} pages",
            l.mtrs,
            l.records,
            l.pages.len()
        )?,
        LogPagesStatus::Partial => writeln!(
            out,
            "  log records after the checkpoint: read only to LSN {}: {} mini-transactions, {} page records on {} pages (the figures below are lower bounds)",
            l.to,
            l.mtrs,
            l.records,
            l.pages.len()
        )?,
    }
    if l.capped {
        writeln!(
            out,
            "  log records: only the first {} distinct pages tracked ({} records on other pages not counted): the figures below are lower bounds",
            l.pages.len(),
            l.untracked_records
        )?;
    }
    for p in &l.problems {
        writeln!(
            out,
            "  log record at LSN {} (byte offset {} of log file {}, type byte 0x{:02x}): {}",
            p.lsn, p.offset, p.file, p.type_byte, p.kind
        )?;
    }
    if l.more_problems > 0 {
        writeln!(out, "  ... {} more log record problems", l.more_problems)?;
    }
    Ok(())
}

fn datadir_text(
    c: &Ctx<'_>,
    i: usize,
    dd: &Datadir,
    r: &DatadirReport,
    out: &mut dyn Write,
) -> io::Result<()> {
    if dd.instance || c.dds.len() < 2 {
        writeln!(out, "datadir {}:", ibdscope::names::path(&dd.root))?;
    } else {
        writeln!(
            out,
            "files outside the datadirs under {} (no instance):",
            ibdscope::names::path(&dd.root)
        )?;
    }
    if let Some(job) = c
        .jobs
        .iter()
        .find(|j| j.datadir == Some(i) && !j.joined.is_empty())
    {
        let names: Vec<String> = std::iter::once(&job.path)
            .chain(&job.joined)
            .map(|p| ibdscope::names::path(p).to_string())
            .collect();
        writeln!(
            out,
            "  system tablespace: {} (audited as one space)",
            names.join(", ")
        )?;
    }
    for p in &dd.system_problems {
        writeln!(out, "  finding: {p}")?;
    }
    if let Some((n, problems)) = &dd.dictionary {
        writeln!(out, "  InnoDB dictionary: {n} tables (SYS_TABLES)")?;
        for p in problems {
            writeln!(out, "  finding: {p}")?;
        }
    }
    redo_text(dd, out)?;
    match (r.flush_lsn, r.flush_vs_checkpoint) {
        (Some(f), Some(v)) => {
            writeln!(out, "  flush LSN on ibdata1 page 0: {f}, {}", flush_word(v))?
        }
        (Some(f), None) => writeln!(out, "  flush LSN on ibdata1 page 0: {f}")?,
        _ => {}
    }
    recovery_needed_text(c, i, r, out)?;
    match r.log_reaches_all_pages() {
        Some(true) => writeln!(out, "  the copied log reaches every page's LSN")?,
        Some(false) => {
            writeln!(
                out,
                "  the copied log does NOT reach every page: recovery cannot bring these files to one moment"
            )?;
            files_text(
                c,
                i,
                &r.beyond_log_end,
                " newer than the log's end, newest LSN",
                out,
            )?;
        }
        None => {}
    }
    if r.duplicate_space_ids.is_empty() {
        writeln!(out, "  duplicate space ids: none")?;
    } else {
        for (id, files) in &r.duplicate_space_ids {
            let names: Vec<String> = files.iter().map(|&k| c.member(i, k)).collect();
            writeln!(out, "  duplicate space id {id}: {}", names.join(", "))?;
        }
    }
    if let Some(((lo_f, lo), (hi_f, hi))) = r.spread {
        writeln!(
            out,
            "  LSN spread: the newest page of each file ranges from {lo} ({}) to {hi} ({}): {}",
            c.member(i, lo_f),
            c.member(i, hi_f),
            hi.0.saturating_sub(lo.0)
        )?;
    }
    if let Some(u) = &dd.undo {
        crate::undo_words::undo_audit_text(u, out)?;
    }
    if let Some(f) = c.facts.get(i).and_then(Option::as_ref) {
        crate::instance_facts::text(f, &dd.root, out)?;
    }
    Ok(())
}

/// The datadir's redo log: its files, format, checkpoint and how far it is
/// complete, and its records after the checkpoint.
fn redo_text(dd: &Datadir, out: &mut dyn Write) -> io::Result<()> {
    match &dd.redo {
        None => writeln!(
            out,
            "  no redo log (ib_logfile0 or #innodb_redo/) at this directory's top: not a datadir root, no checkpoint"
        )?,
        Some(Err(e)) => writeln!(out, "  redo log unreadable: {e}")?,
        Some(Ok(info)) => {
            let names: Vec<String> = dd.redo_paths.iter().map(|(_, p)| file_name(p)).collect();
            // A blank creator (spaces, NULs) is no creator.
            let shown = info.creator.trim_matches(|c: char| c.is_whitespace() || c == '\0');
            let creator = if shown.is_empty() {
                "no creator recorded".to_string()
            } else {
                format!("created by \"{}\"", ibdscope::names::name(shown))
            };
            writeln!(
                out,
                "  redo log: {} ({} format, {creator}, {} bytes of log)",
                names.join(", "),
                info.format_name(),
                info.capacity
            )?;
            writeln!(
                out,
                "  checkpoint LSN {} (block at byte {} of file {}); the log is complete to LSN {} ({} bytes after the checkpoint; {})",
                info.checkpoint.lsn,
                info.checkpoint.offset,
                info.checkpoint.file,
                info.end,
                info.end.0.saturating_sub(info.checkpoint.lsn.0),
                info.end_reason
            )?;
            for n in &info.notes {
                writeln!(out, "  note: {n}")?;
            }
            if let Some(l) = &dd.log_pages {
                log_pages_text(l, out)?;
            }
        }
    }
    Ok(())
}

/// One line per file of datadir `i`: its path, its pages, `what` and the
/// newest LSN.
fn files_text(
    c: &Ctx<'_>,
    i: usize,
    files: &[FilePages],
    what: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    for f in files {
        writeln!(
            out,
            "    {}: {} pages{what} {}",
            c.member(i, f.file),
            f.pages,
            f.newest
        )?;
    }
    Ok(())
}

/// Whether crash recovery is needed and which pages it would change, per
/// file of datadir `i`.
fn recovery_needed_text(
    c: &Ctx<'_>,
    i: usize,
    r: &DatadirReport,
    out: &mut dyn Write,
) -> io::Result<()> {
    match r.needs_recovery() {
        Some(false) => writeln!(
            out,
            "  crash recovery: not needed (no page is newer than the checkpoint and the log holds no changes after it)"
        )?,
        Some(true) => {
            let log = r.log_changes_after_checkpoint == Some(true);
            if r.newer_than_checkpoint.is_empty() {
                writeln!(
                    out,
                    "  crash recovery: needed: the log holds changes after the checkpoint (no page is newer than it)"
                )?;
            } else {
                writeln!(
                    out,
                    "  crash recovery: needed: {} pages in {} files are newer than the checkpoint{}",
                    r.pages_newer_than_checkpoint(),
                    r.newer_than_checkpoint.len(),
                    if log {
                        ", and the log holds changes after it"
                    } else {
                        ""
                    }
                )?;
            }
            files_text(c, i, &r.newer_than_checkpoint, ", newest LSN", out)?;
        }
        None => {}
    }
    if let Some(n) = r.pages_recovery_would_change() {
        writeln!(
            out,
            "  pages crash recovery would change (log records after the checkpoint newer than the page): {n} in {} files{}",
            r.recovery_changes.len(),
            if r.log_pages_capped || r.log_pages == Some(LogPagesStatus::Partial) {
                " (at least)"
            } else {
                ""
            }
        )?;
        files_text(c, i, &r.recovery_changes, ", to LSN", out)?;
        for (id, n) in &r.logged_spaces_without_file {
            writeln!(
                out,
                "    space id {id}: {n} pages with log records, but no file in the copy carries it"
            )?;
        }
    }
    Ok(())
}

fn summary_text(c: &Ctx<'_>, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "summary:")?;
    let width = c
        .jobs
        .iter()
        .map(|j| ibdscope::names::path(&j.path).to_string().len())
        .max()
        .unwrap_or(4)
        .clamp(4, 80);
    writeln!(
        out,
        "  {:<width$}  {:<24} {:>9} {:>9} {:>9} {:>9}",
        "file", "verdict", "pages", "findings", "newer", "recovery"
    )?;
    let mut counts: Vec<(String, u32)> = Vec::new();
    for (job, d) in c.jobs.iter().zip(c.done) {
        let recovery = d
            .recovery
            .as_ref()
            .map_or("-".to_string(), |r| r.pages.to_string());
        let (verdict, pages, findings, newer) = match &d.result {
            Ok(a) => (
                a.verdict.name().to_string(),
                a.pages.to_string(),
                a.verdicts()
                    .iter()
                    .map(|(_, n)| *n)
                    .sum::<u32>()
                    .to_string(),
                a.newer_than_checkpoint
                    .as_ref()
                    .map_or("-".to_string(), |n| n.pages.to_string()),
            ),
            Err(_) => ("unreadable".into(), "-".into(), "-".into(), "-".into()),
        };
        writeln!(
            out,
            "  {:<width$}  {verdict:<24} {pages:>9} {findings:>9} {newer:>9} {recovery:>9}",
            ibdscope::names::path(&job.path).to_string()
        )?;
        match counts.iter_mut().find(|(v, _)| *v == verdict) {
            Some((_, n)) => *n = n.saturating_add(1),
            None => counts.push((verdict, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
    writeln!(out, "  {} files: {}", c.jobs.len(), parts.join(", "))?;
    Ok(())
}

// ---------------------------------------------------------------- json

/// `"pages": n, "newest": lsn|null, "runs": [[first, last], …]` inside an
/// open object: a set of pages (newer than the checkpoint, or that
/// recovery would change) with the newest LSN among them.
fn page_set_json<'j, 'w>(
    j: &'j mut Json<'w>,
    pages: u32,
    newest: Option<Lsn>,
    runs: &[PageRun],
) -> io::Result<&'j mut Json<'w>> {
    j.kv_num("pages", pages)?
        .key("newest")?
        .opt_num(newest.map(|l| l.0))?
        .key("runs")?
        .arr()?;
    for r in runs {
        j.arr()?.num(r.first.0)?.num(r.last.0)?.end_arr()?;
    }
    j.end_arr()
}

fn recovery_json(j: &mut Json<'_>, r: Option<&RecoveryChanges>) -> io::Result<()> {
    j.key("recovery_changes")?;
    let Some(r) = r else {
        j.null()?;
        return Ok(());
    };
    j.obj()?;
    page_set_json(j, r.pages, r.newest, &r.runs)?
        .kv_num("logged", r.logged)?
        .kv_num("already_written", r.already_written)?
        .kv_num("freed", r.freed)?
        .kv_num("initialised", r.initialised)?
        .kv_num("past_end", r.past_end)?
        .end_obj()?;
    Ok(())
}

fn log_pages_json(j: &mut Json<'_>, l: Option<&LogPages>) -> io::Result<()> {
    j.key("log_records")?;
    let Some(l) = l else {
        j.null()?;
        return Ok(());
    };
    j.obj()?
        .kv_str(
            "status",
            match l.status {
                LogPagesStatus::Complete => "complete",
                LogPagesStatus::Partial => "partial",
                LogPagesStatus::NotParsed => "not-parsed",
            },
        )?
        .kv_num("from_lsn", l.from.0)?
        .kv_num("to_lsn", l.to.0)?
        .kv_num("mtrs", l.mtrs)?
        .kv_num("records", l.records)?
        .kv_num("pages", l.pages.len() as u64)?
        .kv_bool("capped", l.capped)?
        .kv_num("untracked_records", l.untracked_records)?
        .key("problems")?
        .arr()?;
    for p in &l.problems {
        j.obj()?
            .kv_num("lsn", p.lsn.0)?
            .kv_num("file", p.file)?
            .kv_num("offset", p.offset)?
            .kv_num("type_byte", p.type_byte)?
            .kv_display("reason", &p.kind)?
            .end_obj()?;
    }
    j.end_arr()?
        .kv_num("more_problems", l.more_problems)?
        .end_obj()?;
    Ok(())
}

fn file_json(j: &mut Json<'_>, job: &Job, d: &Done, instance: Option<&Path>) -> io::Result<()> {
    j.kv_path("file", &job.path)?;
    match instance {
        Some(p) => j.kv_path("datadir", p)?,
        None => j.key("datadir")?.null()?,
    };
    let a = match &d.result {
        Ok(a) => a,
        Err(e) => {
            j.kv_str("verdict", "unreadable")?
                .kv_str("error", &e.kind().to_string())?;
            return Ok(());
        }
    };
    j.kv_str("verdict", a.verdict.name())?
        .kv_num("pages", a.pages)?
        .kv_num("page_size", d.page_size)?
        .kv_num("verified", a.verified)?
        .kv_num("empty", a.empty)?
        .kv_num("space_id", a.space_id.0)?;
    if a.doublewrite.is_some() {
        j.kv_num("doublewrite_not_verifying", a.doublewrite_not_verifying)?;
    }
    j.key("lsn_min")?
        .opt_num(a.lsn_range.map(|r| r.0 .0))?
        .key("lsn_max")?
        .opt_num(a.lsn_range.map(|r| r.1 .0))?;
    j.kv_str("structure", structure_key(a.structure))?;
    j.key("verdicts")?.arr()?;
    for (v, n) in a.verdicts() {
        j.obj()?
            .kv_str("verdict", v.name())?
            .kv_num("findings", n)?;
        j.key("pages")?.arr()?;
        for p in a.pages_of(v) {
            j.num(p.0)?;
        }
        j.end_arr()?;
        let r = a.lsn_range_of(v);
        j.key("lsn_min")?
            .opt_num(r.map(|r| r.0 .0))?
            .key("lsn_max")?
            .opt_num(r.map(|r| r.1 .0))?;
        j.end_obj()?;
    }
    j.end_arr()?.key("findings")?.arr()?;
    for f in &a.findings {
        let v = match f.kind {
            AuditKind::StructureAfterDamage(_) => "after-damage",
            _ => f.verdict().name(),
        };
        j.obj()?
            .kv_str("verdict", v)?
            .key("page")?
            .opt_num(f.page.map(|p| u64::from(p.0)))?;
        j.kv_num("offset", f.file_offset)?
            .kv_display("reason", &f.kind)?;
        if let Some(pv) = f.page_verdict() {
            j.kv_str("page_verdict", pv.word())?;
        }
        j.end_obj()?;
    }
    j.end_arr()?.key("unverified")?.arr()?;
    for r in &a.unverified {
        j.obj()?
            .kv_num("first", r.first.0)?
            .kv_num("last", r.last.0)?
            .kv_str("why", why_word(r.why))?
            .kv_bool("checksum_verified", r.checksum_verified)?
            .end_obj()?;
    }
    j.end_arr()?;
    j.kv_num("freed_with_records", a.freed_with_records)?;
    j.key("doublewrite")?;
    match a.doublewrite {
        Some(blocks) => {
            j.arr()?;
            for b in blocks {
                j.arr()?.num(b.first.0)?.num(b.last.0)?.end_arr()?;
            }
            j.end_arr()?;
        }
        None => {
            j.null()?;
        }
    }
    j.key("newer_than_checkpoint")?;
    match &a.newer_than_checkpoint {
        Some(n) => {
            j.obj()?;
            page_set_json(j, n.pages, n.newest, &n.runs)?.end_obj()?;
        }
        None => {
            j.null()?;
        }
    }
    recovery_json(j, d.recovery.as_ref())?;
    Ok(())
}

fn datadir_json(
    c: &Ctx<'_>,
    j: &mut Json<'_>,
    i: usize,
    dd: &Datadir,
    r: &DatadirReport,
) -> io::Result<()> {
    j.kv_path("path", &dd.root)?;
    j.key("system_files")?.arr()?;
    if let Some(job) = c.jobs.iter().find(|j| {
        j.datadir == Some(i) && j.kind == Kind::System && dd.ibdata1.as_ref() == Some(&j.path)
    }) {
        for p in std::iter::once(&job.path).chain(&job.joined) {
            j.str(&p.to_string_lossy())?;
        }
    }
    j.end_arr()?.key("system_problems")?.arr()?;
    for p in &dd.system_problems {
        j.str(p)?;
    }
    j.end_arr()?.key("dictionary")?;
    match &dd.dictionary {
        Some((n, problems)) => {
            j.obj()?
                .kv_num("tables", *n as u64)?
                .key("problems")?
                .arr()?;
            for p in problems {
                j.str(p)?;
            }
            j.end_arr()?.end_obj()?;
        }
        None => {
            j.null()?;
        }
    }
    j.key("redo")?;
    match &dd.redo {
        None => {
            j.null()?;
        }
        Some(Err(e)) => {
            j.obj()?.kv_str("error", &e.to_string())?.end_obj()?;
        }
        Some(Ok(info)) => {
            j.obj()?.key("files")?.arr()?;
            for (_, p) in &dd.redo_paths {
                j.str(&p.to_string_lossy())?;
            }
            j.end_arr()?
                .kv_num("format", info.format)?
                .kv_str("format_name", &info.format_name())?
                .kv_str("creator", &info.creator)?
                .kv_bool("encrypted", info.encrypted)?
                .kv_num("checkpoint_lsn", info.checkpoint.lsn.0)?
                .key("checkpoint_no")?
                .opt_num(info.checkpoint.no)?
                .kv_num("checkpoint_file", info.checkpoint.file)?
                .kv_num("checkpoint_offset", info.checkpoint.offset)?
                .kv_num("end_lsn", info.end.0)?
                .kv_display("end_reason", &info.end_reason)?
                .kv_num("capacity", info.capacity)?
                .kv_bool(
                    "changes_after_checkpoint",
                    info.has_changes_after_checkpoint(),
                )?
                .end_obj()?;
        }
    }
    j.key("flush_lsn")?
        .opt_num(r.flush_lsn.map(|l| l.0))?
        .key("flush_lsn_vs_checkpoint")?;
    match r.flush_vs_checkpoint {
        Some(f) => j.str(flush_key(f))?,
        None => j.null()?,
    };
    let opt_bool = |j: &mut Json<'_>, k: &str, v: Option<bool>| -> io::Result<()> {
        j.key(k)?;
        match v {
            Some(b) => j.bool(b)?,
            None => j.null()?,
        };
        Ok(())
    };
    opt_bool(j, "needs_recovery", r.needs_recovery())?;
    opt_bool(j, "log_reaches_all_pages", r.log_reaches_all_pages())?;
    // Per file: pages, newest LSN.
    let files = |j: &mut Json<'_>, list: &[FilePages]| -> io::Result<()> {
        j.arr()?;
        for f in list {
            j.obj()?
                .kv_str("file", &c.member(i, f.file))?
                .kv_num("pages", f.pages)?
                .kv_num("newest", f.newest.0)?
                .end_obj()?;
        }
        j.end_arr()?;
        Ok(())
    };
    j.key("newer_than_checkpoint")?;
    files(j, &r.newer_than_checkpoint)?;
    log_pages_json(j, dd.log_pages.as_ref())?;
    j.key("recovery_changes")?;
    if r.pages_recovery_would_change().is_some() {
        files(j, &r.recovery_changes)?;
    } else {
        j.null()?;
    }
    j.key("logged_spaces_without_file")?.arr()?;
    for (id, n) in &r.logged_spaces_without_file {
        j.obj()?
            .kv_num("space_id", id.0)?
            .kv_num("pages", *n)?
            .end_obj()?;
    }
    j.end_arr()?.key("beyond_log_end")?.arr()?;
    for f in &r.beyond_log_end {
        j.obj()?
            .kv_str("file", &c.member(i, f.file))?
            .kv_num("pages", f.pages)?
            .kv_num("newest", f.newest.0)?
            .end_obj()?;
    }
    j.end_arr()?.key("duplicate_space_ids")?.arr()?;
    for (id, files) in &r.duplicate_space_ids {
        j.obj()?.kv_num("space_id", id.0)?.key("files")?.arr()?;
        for &k in files {
            j.str(&c.member(i, k))?;
        }
        j.end_arr()?.end_obj()?;
    }
    j.end_arr()?.key("lsn_spread")?;
    match r.spread {
        Some(((lf, lo), (hf, hi))) => {
            j.obj()?
                .kv_num("oldest_newest_lsn", lo.0)?
                .kv_str("oldest_file", &c.member(i, lf))?
                .kv_num("newest_lsn", hi.0)?
                .kv_str("newest_file", &c.member(i, hf))?
                .kv_num("spread", hi.0.saturating_sub(lo.0))?
                .end_obj()?;
        }
        None => {
            j.null()?;
        }
    }
    crate::undo_words::undo_audit_json(dd.undo.as_ref(), j)?;
    crate::instance_facts::json(c.facts.get(i).and_then(Option::as_ref), j)?;
    Ok(())
}

fn summary_json(c: &Ctx<'_>, j: &mut Json<'_>) -> io::Result<()> {
    j.kv_num("files", c.jobs.len() as u64)?;
    for v in AuditVerdict::ALL {
        let n = c
            .done
            .iter()
            .filter(|d| d.result.as_ref().is_ok_and(|a| a.verdict == v))
            .count();
        j.kv_num(v.name(), n as u64)?;
    }
    let bad = c.done.iter().filter(|d| d.result.is_err()).count();
    j.kv_num("unreadable", bad as u64)?
        .kv_num("skipped", c.skipped.len() as u64)?;
    Ok(())
}

fn json(c: &Ctx<'_>, out: &mut dyn Write) -> io::Result<()> {
    let mut j = Json::new(out);
    j.obj()?.key("files")?.arr()?;
    for (job, d) in c.jobs.iter().zip(c.done) {
        j.obj()?;
        file_json(&mut j, job, d, c.instance_of(job))?;
        j.end_obj()?;
    }
    j.end_arr()?.key("datadirs")?.arr()?;
    for (i, (dd, r)) in c.dds.iter().zip(c.reports).enumerate() {
        j.obj()?;
        datadir_json(c, &mut j, i, dd, r)?;
        j.end_obj()?;
    }
    j.end_arr()?.key("skipped")?.arr()?;
    for s in c.skipped {
        j.obj()?
            .kv_path("path", &s.path)?
            .kv_str("why", &s.why)?
            .end_obj()?;
    }
    j.end_arr()?.key("summary")?.obj()?;
    summary_json(c, &mut j)?;
    j.end_obj()?.end_obj()?;
    writeln!(out)
}

fn jsonl(c: &Ctx<'_>, out: &mut dyn Write) -> io::Result<()> {
    for (job, d) in c.jobs.iter().zip(c.done) {
        let mut j = Json::new(out);
        j.obj()?.kv_str("type", "file")?;
        file_json(&mut j, job, d, c.instance_of(job))?;
        j.end_obj()?;
        writeln!(out)?;
    }
    for (i, (dd, r)) in c.dds.iter().zip(c.reports).enumerate() {
        let mut j = Json::new(out);
        j.obj()?.kv_str("type", "datadir")?;
        datadir_json(c, &mut j, i, dd, r)?;
        j.end_obj()?;
        writeln!(out)?;
    }
    for s in c.skipped {
        let mut j = Json::new(out);
        j.obj()?
            .kv_str("type", "skipped")?
            .kv_path("path", &s.path)?
            .kv_str("why", &s.why)?
            .end_obj()?;
        writeln!(out)?;
    }
    let mut j = Json::new(out);
    j.obj()?.kv_str("type", "summary")?;
    summary_json(c, &mut j)?;
    j.end_obj()?;
    writeln!(out)
}

fn csv(c: &Ctx<'_>, out: &mut dyn Write) -> io::Result<()> {
    let kinds = [
        AuditVerdict::Truncated,
        AuditVerdict::ZeroFilled,
        AuditVerdict::Damaged,
        AuditVerdict::Torn,
        AuditVerdict::Foreign,
        AuditVerdict::Inconsistent,
        AuditVerdict::Encrypted,
        AuditVerdict::Compressed,
    ];
    write!(
        out,
        "file,verdict,pages,page_size,verified,empty,space_id,lsn_min,lsn_max"
    )?;
    for k in kinds {
        write!(out, ",{}", k.name().replace('-', "_"))?;
    }
    writeln!(out, ",newer_than_checkpoint,recovery_changes,error,datadir")?;
    for (job, d) in c.jobs.iter().zip(c.done) {
        let file = crate::csv::path(&job.path);
        match &d.result {
            Err(e) => {
                write!(out, "{file},unreadable,,,,,,,")?;
                for _ in kinds {
                    write!(out, ",")?;
                }
                write!(out, ",,{}", crate::csv::Field(&e.kind().to_string()))?;
            }
            Ok(a) => {
                write!(
                    out,
                    "{file},{},{},{},{},{},{},{},{}",
                    a.verdict,
                    a.pages,
                    d.page_size,
                    a.verified,
                    a.empty,
                    a.space_id,
                    a.lsn_range.map_or(String::new(), |r| r.0.to_string()),
                    a.lsn_range.map_or(String::new(), |r| r.1.to_string())
                )?;
                let v = a.verdicts();
                for k in kinds {
                    let n = v.iter().find(|(x, _)| *x == k).map_or(0, |(_, n)| *n);
                    write!(out, ",{n}")?;
                }
                write!(
                    out,
                    ",{},{},",
                    a.newer_than_checkpoint
                        .as_ref()
                        .map_or(String::new(), |n| n.pages.to_string()),
                    d.recovery
                        .as_ref()
                        .map_or(String::new(), |r| r.pages.to_string())
                )?;
                // The CSV holds one row per file: each page's verdict goes
                // to stderr, as every command words it.
                for f in &a.findings {
                    if let (Some(pv), Some(p)) = (f.page_verdict(), f.page) {
                        crate::diag::say!(
                            "ibdscope: {}: page {p} at byte offset {}: {pv}: {}",
                            ibdscope::names::path(&job.path),
                            f.file_offset,
                            f.kind
                        );
                    }
                }
            }
        }
        match c.instance_of(job) {
            Some(p) => writeln!(out, ",{}", crate::csv::path(p))?,
            None => writeln!(out, ",")?,
        }
    }
    Ok(())
}
