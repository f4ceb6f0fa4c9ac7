//! `audit` and `diff` against real servers: the datadir copies of
//! fixtures/audit (a clean slow-shutdown copy, a hot copy, a crash copy and
//! its recovered successor, with the servers' own LSN figures in
//! fixtures/audit/manifest.tsv), every fixture and corpus file, and damage
//! planted by documented byte surgery on the clean copy.

use super::common::{
    audit_copy, audit_fact, audit_facts, corpus, fixtures, instance_copy, read_tsv, run, run_json,
    scratch, Json,
};
use ibdscope_core::Engine;
use ibdscope_core::{PageType, Tablespace, FIL_NULL};
use ibdscope_forensics::audit::{AuditKind, AuditOptions, Reference};
use ibdscope_forensics::redo::{self, LogEnd, RedoFile, RedoLayout};
use ibdscope_forensics::{Audit, AuditVerdict};
use std::path::Path;

fn audit_file(path: &Path) -> Audit {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    audit_bytes(&data)
}

fn audit_bytes(data: &[u8]) -> Audit {
    let ts = Tablespace::new(data).expect("tablespace");
    Audit::of(&ts, &Engine::default())
}

fn verdict_kinds(a: &Audit) -> Vec<AuditVerdict> {
    a.verdicts().into_iter().map(|(v, _)| v).collect()
}

/// The redo log of a datadir copy: `ib_logfile0`, `ib_logfile1`, ….
fn redo_of(dir: &Path) -> redo::RedoInfo {
    let datas: Vec<Vec<u8>> = (0..)
        .map_while(|i| std::fs::read(dir.join(format!("ib_logfile{i}"))).ok())
        .collect();
    let files: Vec<RedoFile<'_>> = datas
        .iter()
        .enumerate()
        .map(|(i, d)| RedoFile {
            id: i as u64,
            data: d,
        })
        .collect();
    redo::read(&files, RedoLayout::LogFiles).expect("redo")
}

/// The number after `"key":` in a JSON text (first occurrence).
fn json_num(s: &str, key: &str) -> Option<u64> {
    let at = s.find(&format!("\"{key}\":"))? + key.len() + 3;
    let digits: String = s[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn json_bool(s: &str, key: &str) -> Option<bool> {
    let at = s.find(&format!("\"{key}\":"))? + key.len() + 3;
    Some(s[at..].starts_with("true"))
}

// ------------------------------------------------------------- every file

/// Every fixture and every corpus file: clean, or encrypted / compressed
/// where its manifest says the server wrote it so.
#[test]
fn every_real_file_is_clean_or_says_why_it_cannot_be_verified() {
    let mut files = Vec::new();
    for r in read_tsv(&fixtures().join("manifest.tsv")) {
        let compressed = r["notes"].contains("PAGE_COMPRESSED=1");
        files.push((fixtures().join(&r["path"]), compressed, false));
    }
    if let Some(dir) = corpus() {
        for r in read_tsv(&dir.join("manifest.tsv")) {
            let encrypted = r["notes"].contains("ENCRYPTED");
            files.push((dir.join(&r["path"]), false, encrypted));
        }
    }
    let mut bad = Vec::new();
    for (path, compressed, encrypted) in &files {
        let a = audit_file(path);
        let want = if *encrypted {
            AuditVerdict::Encrypted
        } else if *compressed {
            AuditVerdict::Compressed
        } else {
            AuditVerdict::Clean
        };
        if a.verdict != want || !a.findings.is_empty() {
            bad.push(format!(
                "{}: {} (want {want}): {:?}",
                path.display(),
                a.verdict,
                a.findings.iter().take(3).collect::<Vec<_>>()
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The CLI agrees, and says so with exit 0 (unverifiable is not damage).
    let paths: Vec<String> = files
        .iter()
        .map(|(p, _, _)| p.display().to_string())
        .collect();
    let mut args = vec!["audit", "--format", "csv"];
    args.extend(paths.iter().map(String::as_str));
    let o = run(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).lines().count(),
        files.len() + 1
    );
}

// ------------------------------------------------------------- datadirs

/// The clean copy (slow shutdown): the checkpoint and log end audit reads
/// are the ones a read-only server started on a second copy reports
/// (Innodb_lsn_last_checkpoint, "End of log at LSN="); no recovery needed.
#[test]
fn clean_copy_checkpoint_is_the_servers() {
    let facts = audit_facts();
    let dir = audit_copy("mariadb1011-clean");
    let r = redo_of(&dir);
    let c = "mariadb1011-clean";
    assert_eq!(
        r.checkpoint.lsn.0,
        audit_fact(&facts, c, "checkpoint_readonly")
    );
    assert_eq!(r.end.0, audit_fact(&facts, c, "readonly_end_of_log"));
    assert_eq!(r.end.0, audit_fact(&facts, c, "server_shutdown_lsn"));
    assert_eq!(r.end_reason, LogEnd::Normal);
    assert!(!r.has_changes_after_checkpoint());
    assert_eq!(r.creator, "MariaDB 10.11.19");
    let o = run(&["audit", "--format", "json", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(
        json_num(&out, "checkpoint_lsn"),
        Some(audit_fact(&facts, c, "checkpoint_readonly"))
    );
    assert_eq!(json_bool(&out, "needs_recovery"), Some(false));
    assert_eq!(json_bool(&out, "log_reaches_all_pages"), Some(true));
    // MariaDB 10.8+ leaves FIL_PAGE_FILE_FLUSH_LSN at 0.
    assert_eq!(json_num(&out, "flush_lsn"), Some(0));
    // Every InnoDB file audited and clean; .frm and db.opt skipped.
    let summary = &out[out.find("\"summary\":").unwrap()..];
    assert_eq!(json_num(summary, "files"), Some(8));
    assert_eq!(json_num(summary, "clean"), Some(8));
    assert_eq!(json_num(summary, "skipped"), Some(4));
}

/// The crash copy (SIGKILL during a load): the checkpoint audit reads is
/// the one the server names when it recovers a second copy, and the log
/// ends where the server's recovery found its end. Pages newer than the
/// checkpoint exist, and the log reaches them all (the files were copied
/// after the server died).
#[test]
fn crash_copy_checkpoint_and_log_end_are_the_servers() {
    let facts = audit_facts();
    let c = "mariadb1011-crash";
    let dir = audit_copy(c);
    let r = redo_of(&dir);
    assert_eq!(
        r.checkpoint.lsn.0,
        audit_fact(&facts, c, "recovery_checkpoint")
    );
    assert_eq!(
        r.checkpoint.lsn.0,
        audit_fact(&facts, c, "checkpoint_before_kill")
    );
    assert_eq!(r.end.0, audit_fact(&facts, c, "recovery_end_of_log"));
    assert!(r.has_changes_after_checkpoint());
    let o = run(&["audit", "--format", "json", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(json_bool(&out, "needs_recovery"), Some(true));
    assert_eq!(json_bool(&out, "log_reaches_all_pages"), Some(true));
    // Every page newer than the checkpoint is at most the log's end, and
    // the CLI counts exactly the pages whose LSN passes the checkpoint.
    let reference = Reference {
        checkpoint: Some(r.checkpoint.lsn),
        log_end: Some(r.end),
    };
    let mut newer = 0;
    for f in [
        "ibdata1",
        "fx/ai_int.ibd",
        "fx/uuid_char36.ibd",
        "fx/secondary.ibd",
    ] {
        let data = std::fs::read(dir.join(f)).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let a = Audit::with_options(&ts, &Engine::default(), AuditOptions::new(reference));
        let by_hand = ts
            .scan()
            .filter(|p| p.lsn > r.checkpoint.lsn && p.verdict.is_ok())
            .filter(|p| {
                a.doublewrite.is_none_or(|d| {
                    !d.iter()
                        .any(|b| b.first <= p.page_no && p.page_no <= b.last)
                })
            })
            .count() as u32;
        let n = a.newer_than_checkpoint.as_ref().unwrap();
        assert_eq!(n.pages, by_hand, "{f}");
        assert!(n.newest.is_none_or(|l| l <= r.end), "{f}");
        newer += n.pages;
    }
    assert!(
        newer > 0,
        "a crash copy under load has pages newer than the checkpoint"
    );
}

/// MySQL 5.6 (the legacy redo format: two files, fold checksums): the
/// clean copy's checkpoint is the one a server started on a second copy
/// shows ("Last checkpoint at") and its shutdown LSN; the log holds nothing
/// after it, and ibdata1's flush LSN equals it. The crash copy's checkpoint
/// is the one the server's recovery names, and the log ends where its scan
/// ended ("scanned up to log sequence number").
#[test]
fn mysql56_legacy_log_checkpoint_and_end_are_the_servers() {
    let facts = audit_facts();
    let c = "mysql56-clean";
    let dir = audit_copy(c);
    let r = redo_of(&dir);
    assert_eq!(r.format, 0);
    assert_eq!(r.kind, redo::RedoFormat::Legacy);
    assert_eq!(
        r.checkpoint.lsn.0,
        audit_fact(&facts, c, "checkpoint_started")
    );
    assert_eq!(
        r.checkpoint.lsn.0,
        audit_fact(&facts, c, "server_shutdown_lsn")
    );
    assert_eq!(r.end, r.checkpoint.lsn);
    let o = run(&["audit", "--format", "json", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(
        json_num(&out, "flush_lsn"),
        Some(audit_fact(&facts, c, "server_shutdown_lsn"))
    );
    assert!(
        out.contains("\"flush_lsn_vs_checkpoint\":\"at-checkpoint\""),
        "{out}"
    );
    assert_eq!(json_bool(&out, "needs_recovery"), Some(false));

    let c = "mysql56-crash";
    let dir = audit_copy(c);
    let r = redo_of(&dir);
    assert_eq!(
        r.checkpoint.lsn.0,
        audit_fact(&facts, c, "recovery_checkpoint")
    );
    assert_eq!(r.end.0, audit_fact(&facts, c, "recovery_scanned_up_to"));
    assert_eq!(r.end.0, audit_fact(&facts, c, "lsn_before_kill"));
    assert!(r.has_changes_after_checkpoint());
    let o = run(&["audit", "--format", "json", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(json_bool(&out, "needs_recovery"), Some(true));
}

/// The files of a datadir copy that hold pages: ibdata1 and every `.ibd`.
fn tablespaces_of(dir: &Path) -> Vec<String> {
    let mut out = vec!["ibdata1".to_string()];
    for sub in ["fx", "mysql"] {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".ibd"))
            .map(|n| format!("{sub}/{n}"))
            .collect();
        names.sort();
        out.extend(names);
    }
    out
}

/// Which pages crash recovery of the crash copy changes, against what the
/// server did: `mariadb1011-recovered` is a second copy of the crash copy
/// that a server recovered and then shut down slowly. The log's records
/// after the checkpoint are read to exactly the end the server's recovery
/// found; then, outside the doublewrite buffer (whose pages are copies of
/// other pages):
///
/// (b) every page whose bytes differ between the two copies is one that
///     audit says recovery would change;
/// (a) every page audit says recovery would change differs, except pages
///     the log (re)initialised after the checkpoint that the recovered
///     copy's extent descriptors call free and whose bytes are the crash
///     copy's: freed again by rollback or purge before they were written,
///     and MariaDB does not write a freed page (`buf_flush_page`);
///
/// and the logged pages that audit says recovery skips (their LSN is the
/// end of their newest mini-transaction: written after their last change)
/// are byte for byte the same in both copies. docs/audit.md gives the
/// figures.
#[test]
fn pages_recovery_would_change_are_the_pages_the_server_changed() {
    use ibdscope_core::{Owner, SpaceMap};
    use ibdscope_forensics::datadir::{in_runs, recovery_changes};
    use ibdscope_forensics::redo::{log_pages, LogPagesStatus};
    let facts = audit_facts();
    let crash = audit_copy("mariadb1011-crash");
    let recovered = audit_copy("mariadb1011-recovered");
    let log = std::fs::read(crash.join("ib_logfile0")).unwrap();
    let files = [RedoFile { id: 0, data: &log }];
    let info = redo::read(&files, RedoLayout::LogFiles).unwrap();
    let lp = log_pages(&files, RedoLayout::LogFiles, &info, 1 << 20);
    assert_eq!(lp.status, LogPagesStatus::Complete);
    assert_eq!(
        lp.to.0,
        audit_fact(&facts, "mariadb1011-crash", "recovery_end_of_log")
    );
    assert!(lp.problems.is_empty(), "{:?}", lp.problems);
    assert!(!lp.capped);
    let (mut in_set, mut differing, mut overlap, mut freed_again, mut skipped) = (0, 0, 0, 0, 0);
    for f in tablespaces_of(&crash) {
        let a = std::fs::read(crash.join(&f)).unwrap();
        let b = std::fs::read(recovered.join(&f)).unwrap();
        let ts = Tablespace::new(&a).unwrap();
        let tb = Tablespace::new(&b).unwrap();
        let ps = ts.page_size() as usize;
        let audit = Audit::of(&ts, &Engine::default());
        let dblwr = |n: u32| {
            audit
                .doublewrite
                .is_some_and(|d| d.iter().any(|r| r.first.0 <= n && n <= r.last.0))
        };
        let r = recovery_changes(&ts, audit.space_id, &lp);
        let map_b = SpaceMap::build(&tb, &Engine::default());
        let n_pages = a.len().max(b.len()) / ps;
        for n in 0..n_pages as u32 {
            if dblwr(n) {
                continue;
            }
            let at = n as usize * ps;
            let differs = a.get(at..at + ps) != b.get(at..at + ps);
            let set = in_runs(&r.runs, ibdscope_core::PageNo(n));
            differing += u32::from(differs);
            in_set += u32::from(set);
            overlap += u32::from(differs && set);
            // (b)
            assert!(
                !differs || set,
                "{f} page {n} differs but is not in the set"
            );
            if set && !differs {
                // (a): the exception, shown in the bytes.
                let logged = lp
                    .of_space(audit.space_id)
                    .iter()
                    .find(|p| p.page.0 == n)
                    .unwrap();
                assert!(logged.init, "{f} page {n}: not initialised by the log");
                assert_eq!(
                    map_b.owner(&tb, ibdscope_core::PageNo(n)),
                    Some(Owner::Free),
                    "{f} page {n}: in use in the recovered copy"
                );
                freed_again += 1;
            }
        }
        for p in lp.of_space(audit.space_id) {
            let at = p.page.0 as usize * ps;
            let page_lsn = u64::from_be_bytes(a[at + 16..at + 24].try_into().unwrap());
            if p.start.0 < page_lsn {
                // Skipped by recovery: written after its last change.
                assert_eq!(page_lsn, p.end.0, "{f} page {}", p.page);
                assert_eq!(
                    a.get(at..at + ps),
                    b.get(at..at + ps),
                    "{f} page {}",
                    p.page
                );
                skipped += 1;
            }
        }
        assert_eq!(r.already_written as usize, {
            lp.of_space(audit.space_id)
                .iter()
                .filter(|p| {
                    let at = p.page.0 as usize * ps;
                    p.start.0 < u64::from_be_bytes(a[at + 16..at + 24].try_into().unwrap())
                })
                .count()
        });
    }
    assert!(differing > 0 && skipped > 0);
    assert_eq!(overlap, differing);
    assert_eq!(in_set, differing + freed_again);
    // The CLI reports the same figure for the datadir.
    let o = run(&["audit", "--format", "json", crash.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    let total: u64 = out
        .match_indices("\"recovery_changes\":{\"pages\":")
        .map(|(at, m)| {
            out[at + m.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(total, u64::from(in_set));
    assert!(out.contains("\"status\":\"complete\""), "{out}");
    // The text names it too.
    let o = run(&["audit", crash.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "pages crash recovery would change (log records after the checkpoint newer than the page): {in_set} in"
        )),
        "{text}"
    );
}

/// MySQL 5.6's legacy log (no recovered copy exists to compare with): its
/// records, read type by type from the checkpoint, end exactly where the
/// server's recovery scan ended ("scanned up to log sequence number"),
/// with no record unread; every page they name lies inside a file of the
/// copy with that space id. No page of the copy is newer than the
/// checkpoint, so recovery changes every logged page, and audit says so.
#[test]
fn mysql56_log_records_name_pages_of_the_copy() {
    use ibdscope_forensics::datadir::recovery_changes;
    use ibdscope_forensics::redo::{log_pages, LogPagesStatus};
    let facts = audit_facts();
    let c = "mysql56-crash";
    let dir = audit_copy(c);
    let datas: Vec<Vec<u8>> = (0..2)
        .map(|i| std::fs::read(dir.join(format!("ib_logfile{i}"))).unwrap())
        .collect();
    let files: Vec<RedoFile<'_>> = datas
        .iter()
        .enumerate()
        .map(|(i, d)| RedoFile {
            id: i as u64,
            data: d,
        })
        .collect();
    let info = redo::read(&files, RedoLayout::LogFiles).unwrap();
    let lp = log_pages(&files, RedoLayout::LogFiles, &info, 1 << 20);
    assert_eq!(lp.status, LogPagesStatus::Complete);
    assert!(lp.problems.is_empty(), "{:?}", lp.problems);
    assert_eq!(lp.to.0, audit_fact(&facts, c, "recovery_scanned_up_to"));
    assert!(lp.mtrs > 0 && !lp.pages.is_empty());
    let mut covered = 0;
    let mut changed = 0;
    for f in tablespaces_of(&dir) {
        let data = std::fs::read(dir.join(&f)).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let a = Audit::of(&ts, &Engine::default());
        let logged = lp.of_space(a.space_id);
        assert!(
            logged.iter().all(|p| p.page.0 < ts.n_pages()),
            "{f}: a logged page past the file's end"
        );
        assert!(ts.scan().all(|p| p.lsn <= info.checkpoint.lsn), "{f}");
        let r = recovery_changes(&ts, a.space_id, &lp);
        assert_eq!(r.pages as usize, logged.len(), "{f}");
        covered += logged.len();
        changed += r.pages;
    }
    assert_eq!(covered, lp.pages.len(), "pages of spaces without a file");
    let o = run(&["audit", "--format", "json", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("\"status\":\"complete\""), "{out}");
    let o = run(&["audit", dir.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!(
        "pages crash recovery would change (log records after the checkpoint newer than the page): {changed} in"
    )));
}

/// The hot copy: the checkpoint and log end in the copied log lie between
/// the server's figures before and after the copy; no page is newer than
/// the server's LSN after the copy; and the files read before the log
/// (fx/, by the copy order the manifest states) have no page newer than
/// the log's end (write-ahead logging: a page is written only after its
/// log), while the log does not reach some pages of the files read after
/// it, which audit reports.
#[test]
fn hot_copy_lies_between_the_servers_figures() {
    let facts = audit_facts();
    let c = "mariadb1011-hot";
    let dir = audit_copy(c);
    let r = redo_of(&dir);
    let ck = r.checkpoint.lsn.0;
    assert!(audit_fact(&facts, c, "checkpoint_before_copy") <= ck);
    assert!(ck <= audit_fact(&facts, c, "checkpoint_after_copy"));
    assert!(audit_fact(&facts, c, "flushed_before_copy") <= r.end.0);
    assert!(r.end.0 <= audit_fact(&facts, c, "lsn_after_copy"));
    let after = audit_fact(&facts, c, "lsn_after_copy");
    let reference = Reference {
        checkpoint: Some(r.checkpoint.lsn),
        log_end: Some(r.end),
    };
    let mut beyond_after_log = 0;
    for f in [
        "fx/ai_int.ibd",
        "fx/uuid_char36.ibd",
        "fx/secondary.ibd",
        "ibdata1",
        "mysql/innodb_index_stats.ibd",
        "mysql/innodb_table_stats.ibd",
    ] {
        let data = std::fs::read(dir.join(f)).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        assert!(
            ts.scan().all(|p| p.lsn.0 <= after),
            "{f}: a page newer than the server"
        );
        let a = Audit::with_options(&ts, &Engine::default(), AuditOptions::new(reference));
        let beyond = a
            .findings
            .iter()
            .filter(|x| matches!(x.kind, AuditKind::BeyondRedoEnd { .. }))
            .count();
        if f.starts_with("fx/") {
            assert_eq!(beyond, 0, "{f} was read before the log");
        } else {
            beyond_after_log += beyond;
        }
    }
    assert!(
        beyond_after_log > 0,
        "the files read after the log hold newer pages"
    );
    let o = run(&["audit", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("LSN spread: the newest page of each file ranges from"),
        "{out}"
    );
    assert!(
        out.contains("the copied log does NOT reach every page"),
        "{out}"
    );
}

/// What audit calls inconsistent in the hot copy is so by the bytes: every
/// link finding joins two pages that verify, and a page named free is free
/// in its extent descriptor.
#[test]
fn hot_copy_inconsistencies_hold_in_the_bytes() {
    let dir = audit_copy("mariadb1011-hot");
    for f in ["fx/ai_int.ibd", "fx/uuid_char36.ibd", "fx/secondary.ibd"] {
        let data = std::fs::read(dir.join(f)).unwrap();
        let ts = Tablespace::new(&data).unwrap();
        let a = Audit::of(&ts, &Engine::default());
        for x in &a.findings {
            let page = x.page.unwrap();
            assert!(
                ts.scan_range(page.0, page.0).all(|p| p.verdict.is_ok()),
                "{f}: {x:?}"
            );
            match x.kind {
                AuditKind::LinkElsewhere { to, to_free, .. } => {
                    assert!(ts.scan_range(to.0, to.0).all(|p| p.verdict.is_ok()));
                    assert_eq!(ts.is_free(to), Some(to_free), "{f}: {x:?}");
                }
                AuditKind::LinkNotReturned { to, back, link, .. } => {
                    let t = ts.scan_range(to.0, to.0).next().unwrap();
                    let got = match link {
                        ibdscope_forensics::audit::Link::Next => t.prev,
                        ibdscope_forensics::audit::Link::Prev => t.next,
                    };
                    assert_eq!(got, back);
                    assert_ne!(got, page);
                }
                AuditKind::FreeNewerThanXdes {
                    xdes_page,
                    lsn,
                    xdes_lsn,
                } => {
                    assert_eq!(ts.is_free(page), Some(true));
                    let x0 = ts.scan_range(xdes_page.0, xdes_page.0).next().unwrap();
                    assert_eq!(x0.lsn, xdes_lsn);
                    assert!(lsn > xdes_lsn);
                }
                _ => {}
            }
        }
    }
}

/// `diff` of the clean and the hot copy names exactly the pages whose
/// bytes differ, with their LSNs, and the pages only the hot copy has.
#[test]
fn diff_clean_and_hot_is_the_byte_compare() {
    let clean = audit_copy("mariadb1011-clean");
    let hot = audit_copy("mariadb1011-hot");
    for f in ["fx/uuid_char36.ibd", "fx/ai_int.ibd", "ibdata1"] {
        let (a, b) = (
            std::fs::read(clean.join(f)).unwrap(),
            std::fs::read(hot.join(f)).unwrap(),
        );
        let ps = 16384;
        let n = a.len().max(b.len()) / ps;
        let mut want = Vec::new();
        for i in 0..n {
            let (pa, pb) = (a.get(i * ps..(i + 1) * ps), b.get(i * ps..(i + 1) * ps));
            if pa != pb {
                let lsn =
                    |p: Option<&[u8]>| p.map(|p| u64::from_be_bytes(p[16..24].try_into().unwrap()));
                want.push((i as u64, lsn(pa), lsn(pb)));
            }
        }
        assert!(!want.is_empty(), "{f}: the copies differ");
        let o = run(&[
            "diff",
            "--format",
            "csv",
            clean.join(f).to_str().unwrap(),
            hot.join(f).to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1));
        let got: Vec<(u64, Option<u64>, Option<u64>)> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .skip(1)
            .map(|l| {
                let c: Vec<&str> = l.split(',').collect();
                (c[0].parse().unwrap(), c[4].parse().ok(), c[5].parse().ok())
            })
            .collect();
        assert_eq!(got, want, "{f}");
    }
    // A file against itself: identical, exit 0.
    let p = clean.join("fx/ai_int.ibd");
    let o = run(&["diff", p.to_str().unwrap(), p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
}

// ------------------------------------------------------------- planted damage

/// The clean copy's table with random-UUID keys (page splits everywhere).
fn clean_table() -> Vec<u8> {
    std::fs::read(audit_copy("mariadb1011-clean").join("fx/uuid_char36.ibd")).unwrap()
}

const PS: usize = 16384;

/// A leaf page in use, with both siblings where the tree has such a page.
fn middle_leaf(data: &[u8]) -> usize {
    let ts = Tablespace::new(data).unwrap();
    let leaves: Vec<ibdscope_core::PageFacts> = ts
        .scan()
        .filter(|p| {
            p.page_type == PageType::FIL_PAGE_INDEX
                && ts.is_free(p.page_no) == Some(false)
                && ibdscope_core::IndexHeader::new(ts.page(p.page_no).unwrap())
                    .unwrap()
                    .level()
                    == 0
        })
        .collect();
    leaves
        .iter()
        .find(|p| p.prev.0 != FIL_NULL && p.next.0 != FIL_NULL)
        .or(leaves.first())
        .unwrap_or_else(|| panic!("no leaf in use"))
        .page_no
        .0 as usize
}

fn only(a: &Audit, want: AuditVerdict, what: &str) {
    let kinds: Vec<AuditVerdict> = if want == AuditVerdict::Clean {
        vec![]
    } else {
        vec![want]
    };
    assert_eq!(verdict_kinds(a), kinds, "{what}: {:#?}", a.findings);
    assert_eq!(a.verdict, want, "{what}");
}

/// Torn: the first half of a leaf from a later write of the same page (the
/// hot copy's), the second half from the clean copy's: the header LSN is
/// the later write's, the trailer the earlier's.
#[test]
fn planted_torn_page_is_torn() {
    let mut d = clean_table();
    let p = middle_leaf(&d);
    let hot = std::fs::read(audit_copy("mariadb1011-hot").join("fx/uuid_char36.ibd")).unwrap();
    assert_ne!(
        hot[p * PS + 16..p * PS + 24],
        d[p * PS + 16..p * PS + 24],
        "a later write"
    );
    d[p * PS..p * PS + PS / 2].copy_from_slice(&hot[p * PS..p * PS + PS / 2]);
    let a = audit_bytes(&d);
    only(&a, AuditVerdict::Torn, "torn");
    assert_eq!(
        a.pages_of(AuditVerdict::Torn),
        vec![ibdscope_core::PageNo(p as u32)]
    );
}

/// Torn by a write that stopped: the page's second half zeros.
#[test]
fn planted_half_written_page_is_torn() {
    let mut d = clean_table();
    let p = middle_leaf(&d);
    d[p * PS + PS / 2..(p + 1) * PS].fill(0);
    let a = audit_bytes(&d);
    only(&a, AuditVerdict::Torn, "half written");
    assert!(
        matches!(a.findings[0].kind, AuditKind::Torn { zero_from: Some(z), .. } if z <= 8192),
        "{:?}",
        a.findings[0]
    );
}

/// Damaged: 16 bytes overwritten in the middle of a leaf (the LSN copies
/// still agree).
#[test]
fn planted_damage_is_damaged() {
    let mut d = clean_table();
    let p = middle_leaf(&d);
    for b in &mut d[p * PS + 8000..p * PS + 8016] {
        *b ^= 0x5a;
    }
    only(&audit_bytes(&d), AuditVerdict::Damaged, "damaged");
}

/// Foreign: a page of another tablespace of the same datadir (same page
/// number) copied over a leaf. It verifies, with its own space id.
#[test]
fn planted_foreign_page_is_foreign() {
    let mut d = clean_table();
    let p = middle_leaf(&d);
    let other = std::fs::read(audit_copy("mariadb1011-clean").join("fx/ai_int.ibd")).unwrap();
    d[p * PS..(p + 1) * PS].copy_from_slice(&other[p * PS..(p + 1) * PS]);
    only(&audit_bytes(&d), AuditVerdict::Foreign, "foreign");
}

/// Truncated: the last two pages cut off, and a file cut inside a page.
#[test]
fn planted_truncation_is_truncated() {
    let d = clean_table();
    let n = d.len() / PS;
    only(
        &audit_bytes(&d[..(n - 2) * PS]),
        AuditVerdict::Truncated,
        "cut at a page",
    );
    only(
        &audit_bytes(&d[..(n - 1) * PS + 100]),
        AuditVerdict::Truncated,
        "cut inside a page",
    );
}

/// Zero-filled: a leaf in use overwritten with zeros.
#[test]
fn planted_zero_filled_hole_is_zero_filled() {
    let mut d = clean_table();
    let p = middle_leaf(&d);
    d[p * PS..(p + 1) * PS].fill(0);
    only(&audit_bytes(&d), AuditVerdict::ZeroFilled, "zero-filled");
}

/// Inconsistent generations: the recovered copy (a later generation of the
/// table) with the clean copy's page 0 (an earlier extent descriptor and
/// FSP header): pages the later generation allocated are free in the
/// earlier descriptor yet written after it, and linked from pages in use.
#[test]
fn planted_generation_mix_is_inconsistent() {
    let later =
        std::fs::read(audit_copy("mariadb1011-recovered").join("fx/uuid_char36.ibd")).unwrap();
    let earlier = clean_table();
    assert!(later.len() > earlier.len(), "the later generation grew");
    let mut d = later.clone();
    d[..PS].copy_from_slice(&earlier[..PS]);
    let a = audit_bytes(&d);
    only(&a, AuditVerdict::Inconsistent, "generation mix");
    assert!(a
        .findings
        .iter()
        .any(|f| matches!(f.kind, AuditKind::FreeNewerThanXdes { .. })));
    let (lo, hi) = a.lsn_range_of(AuditVerdict::Inconsistent).unwrap();
    assert!(lo < hi);
    // Each copy alone is clean.
    only(&audit_bytes(&later), AuditVerdict::Clean, "later");
}

/// The CLI over planted files: exit 1, the verdict word, and exit 2 for an
/// unreadable file.
#[test]
fn cli_exit_codes_and_formats() {
    let mut d = clean_table();
    let p = middle_leaf(&d);
    d[p * PS + PS / 2..(p + 1) * PS].fill(0);
    let torn = scratch("audit-torn.ibd");
    std::fs::write(&torn, &d).unwrap();
    let empty = scratch("audit-empty.ibd");
    std::fs::write(&empty, b"").unwrap();
    let t = torn.to_str().unwrap();
    for f in ["text", "json", "jsonl", "csv"] {
        let o = run(&["audit", "--format", f, t]);
        assert_eq!(o.status.code(), Some(1), "{f}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("torn"), "{f}");
    }
    let o = run(&["audit", t, empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("audit-empty.ibd"));
}

/// The redo scan stops where a mini-transaction after the checkpoint
/// stops verifying, as the server's parse does.
#[test]
fn redo_end_stops_at_a_damaged_mini_transaction() {
    let dir = audit_copy("mariadb1011-crash");
    let mut data = std::fs::read(dir.join("ib_logfile0")).unwrap();
    let r = redo::read(&[RedoFile { id: 0, data: &data }], RedoLayout::LogFiles).unwrap();
    let first_lsn = u64::from_be_bytes(data[8..16].try_into().unwrap());
    let cap = data.len() as u64 - 12288;
    // A byte in the middle of the log after the checkpoint.
    let lsn = r.checkpoint.lsn.0 + (r.end.0 - r.checkpoint.lsn.0) / 2;
    let at = (12288 + (lsn - first_lsn) % cap) as usize;
    data[at] ^= 0x40;
    let cut = redo::read(&[RedoFile { id: 0, data: &data }], RedoLayout::LogFiles).unwrap();
    assert_eq!(cut.checkpoint, r.checkpoint);
    assert!(
        cut.end < r.end && cut.end.0 <= lsn,
        "{:?} vs {:?}",
        cut.end,
        r.end
    );
    assert!(cut.end >= r.checkpoint.lsn);
}

/// The same surgery on files of every checksum layout and page size of the
/// fixtures: a leaf half written is torn (damaged on ROW_FORMAT=COMPRESSED
/// pages, which have no trailer LSN), bytes overwritten mid-page are
/// damaged, a leaf zeroed is zero-filled.
#[test]
fn planted_damage_in_every_layout() {
    for (f, torn) in [
        ("mysql56/ai_int.ibd", AuditVerdict::Torn),
        ("mysql56-crc32/ai_int.ibd", AuditVerdict::Torn),
        ("mysql56-none/ai_int.ibd", AuditVerdict::Torn),
        ("mariadb1011-crc32/ai_int.ibd", AuditVerdict::Torn),
        ("mariadb1011-4k/secondary.ibd", AuditVerdict::Torn),
        ("mariadb1011-64k/ai_int.ibd", AuditVerdict::Torn),
        ("mysql56/rf_compressed8.ibd", AuditVerdict::Damaged),
        ("mariadb1011/uuid_char36_large.ibd", AuditVerdict::Torn),
    ] {
        let clean = std::fs::read(fixtures().join(f)).unwrap();
        let ts = Tablespace::new(&clean).unwrap();
        let ps = ts.page_size() as usize;
        let p = middle_leaf(&clean);
        drop(ts);
        let mut d = clean.clone();
        d[p * ps + ps / 2..(p + 1) * ps].fill(0);
        only(&audit_bytes(&d), torn, &format!("{f}: half written"));
        let mut d = clean.clone();
        for b in &mut d[p * ps + ps / 3..p * ps + ps / 3 + 16] {
            *b ^= 0x5a;
        }
        // innodb_checksum_algorithm=none: nothing covers the bytes.
        if f != "mysql56-none/ai_int.ibd" {
            only(
                &audit_bytes(&d),
                AuditVerdict::Damaged,
                &format!("{f}: overwritten"),
            );
        }
        let mut d = clean.clone();
        d[p * ps..(p + 1) * ps].fill(0);
        only(
            &audit_bytes(&d),
            AuditVerdict::ZeroFilled,
            &format!("{f}: zeroed"),
        );
    }
}

/// A datadir holding two copies of one table: the space id is reported
/// twice, and the walk's files are each audited once.
#[test]
fn duplicate_space_ids_in_a_datadir() {
    let src = audit_copy("mariadb1011-clean");
    let dir = scratch("audit-dup-datadir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("fx")).unwrap();
    std::fs::create_dir_all(dir.join("old")).unwrap();
    for f in ["ibdata1", "ib_logfile0", "fx/ai_int.ibd"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    std::fs::copy(src.join("fx/ai_int.ibd"), dir.join("old/ai_int.ibd")).unwrap();
    let o = run(&["audit", "--format", "json", dir.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let space = Tablespace::new(&std::fs::read(src.join("fx/ai_int.ibd")).unwrap())
        .unwrap()
        .space_id()
        .0;
    let dup = &out[out.find("\"duplicate_space_ids\":").unwrap()..];
    assert_eq!(json_num(dup, "space_id"), Some(u64::from(space)), "{out}");
    assert!(
        dup.contains("old/ai_int.ibd") && dup.contains("fx/ai_int.ibd"),
        "{out}"
    );
}

/// Copies the directory tree `from` into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A folder holding several datadirs (the usual
/// `/backups/host*/` layout) is several instances. Each is audited exactly
/// as `audit DIR` audits it alone (its split system tablespace joined, its
/// redo log read, its space ids its own: the copies share space ids, so a
/// tree-wide check reports duplicates between unrelated servers), a loose
/// `.ibd` beside them is audited as before, every output names each file's
/// instance, and the exit code is the worst of the runs alone.
#[test]
fn a_folder_of_datadirs_is_audited_one_instance_at_a_time() {
    let tree = scratch("audit-folder-of-datadirs");
    let _ = std::fs::remove_dir_all(&tree);
    let hosts = [
        ("host1", audit_copy("mysql56-crash")),
        ("host2", instance_copy("mariadb1011-split")),
        ("host3", audit_copy("mariadb1011-clean")),
    ];
    for (name, src) in &hosts {
        copy_tree(src, &tree.join(name));
    }
    let loose = tree.join("loose.ibd");
    std::fs::copy(fixtures().join("mysql56/ai_int.ibd"), &loose).unwrap();
    let t = tree.to_str().unwrap();
    let (code, all) = run_json(&["audit", "--format", "json", t]);
    let mut worst = run(&["audit", loose.to_str().unwrap()]).status.code();
    for (name, _) in &hosts {
        let dir = tree.join(name);
        let d = dir.to_str().unwrap();
        let (alone_code, alone) = run_json(&["audit", "--format", "json", d]);
        worst = worst.max(alone_code);
        let mine: Vec<&Json> = all
            .get("files")
            .arr()
            .iter()
            .filter(|f| f.get("datadir") == &Json::Str(d.to_string()))
            .collect();
        let want: Vec<&Json> = alone.get("files").arr().iter().collect();
        assert_eq!(mine, want, "{name}: files as audited alone");
        let dd = all
            .get("datadirs")
            .arr()
            .iter()
            .find(|x| x.get("path").str() == d)
            .unwrap_or_else(|| panic!("{name}: no datadir entry"));
        assert_eq!(
            dd,
            &alone.get("datadirs").arr()[0],
            "{name}: datadir as alone"
        );
    }
    // The split system tablespace is one space; the redo logs are read.
    let dd = |name: &str| {
        let d = tree.join(name);
        all.get("datadirs")
            .arr()
            .iter()
            .find(|x| x.get("path").str() == d.to_str().unwrap())
            .unwrap()
            .clone()
    };
    assert_eq!(dd("host2").get("system_files").arr().len(), 2);
    assert!(dd("host1").get("redo").opt("checkpoint_lsn").is_some());
    assert!(dd("host3").get("redo").opt("checkpoint_lsn").is_some());
    // No duplicate space id between instances (host1 and host3 both hold
    // fx/ai_int.ibd, host2 and host3 both hold mysql/*.ibd).
    for x in all.get("datadirs").arr() {
        assert!(
            x.get("duplicate_space_ids").arr().is_empty(),
            "{}",
            x.get("path").str()
        );
    }
    // The loose file belongs to no instance.
    let l = all
        .get("files")
        .arr()
        .iter()
        .find(|f| f.get("file").str() == loose.to_str().unwrap())
        .expect("loose file audited");
    assert_eq!(l.get("datadir"), &Json::Null);
    assert_eq!(code, worst, "exit code: the worst of the runs alone");
    // Every output says which instance each file belongs to.
    let csv = String::from_utf8(run(&["audit", "--format", "csv", t]).stdout).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",datadir"));
    for line in lines {
        let file = line.split(',').next().unwrap();
        let want = hosts
            .iter()
            .map(|(n, _)| tree.join(n))
            .find(|h| Path::new(file).starts_with(h))
            .map_or(String::new(), |h| h.to_str().unwrap().to_string());
        assert!(line.ends_with(&format!(",{want}")), "{line}");
    }
    let jsonl = String::from_utf8(run(&["audit", "--format", "jsonl", t]).stdout).unwrap();
    for line in jsonl.lines().map(Json::parse) {
        if line.get("type").str() == "file" {
            assert!(line.opt("datadir").is_some(), "{line:?}");
        }
    }
    let text = String::from_utf8(run(&["audit", t]).stdout).unwrap();
    for (name, _) in &hosts {
        let head = format!("datadir {}:", tree.join(name).display());
        assert_eq!(text.matches(&head).count(), 1, "{text}");
    }
}
