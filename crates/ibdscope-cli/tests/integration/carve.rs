//! `ibdscope carve` on real filesystem images made without mounting
//! anything: a datadir written into an ext4 image with `mke2fs -d`, one
//! table's `.ibd` deleted inside it with `debugfs -w -R "rm …"` (its bytes
//! stay in the freed blocks). The deleted table comes back with rows equal
//! to the server's dump taken before (`fixtures/instance/rows/`), or, for
//! a MySQL 8 file of the corpus, equal to what `rows` reads from the
//! original file, with its definition from the carved SDI pages and no
//! other input (MySQL 5.6 and MariaDB: from the `.frm`, and from the
//! dictionary of the carved system tablespace with no other input); every other table's space is found too. Needs e2fsprogs
//! (`.ci/run` installs it): without it the tests say so and skip.

use super::common::{fixtures, instance_copy, read_tsv, run, run_json, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `mke2fs` and `debugfs` can be run; said on stderr when not.
/// The corpus, when it and e2fsprogs are both there (each absence said
/// by its own rule).
fn corpus_and_e2fsprogs() -> Option<std::path::PathBuf> {
    let corpus = super::common::corpus()?;
    e2fsprogs().then_some(corpus)
}

fn e2fsprogs() -> bool {
    let ok = ["mke2fs", "debugfs"].iter().all(|t| {
        Command::new(t)
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success() || !o.stderr.is_empty())
    });
    if !ok {
        eprintln!("carve: SKIPPED the ext4 image recoveries: mke2fs/debugfs (e2fsprogs) not found");
    }
    ok
}

/// An ext4 image of `dir` (4 KiB blocks, `size_mib` MiB) with `rm` (a
/// path inside `dir`) deleted in it.
fn image_without(dir: &Path, rm: &str, name: &str, size_mib: u32) -> PathBuf {
    let img = scratch(name);
    let _ = std::fs::remove_file(&img);
    let o = Command::new("mke2fs")
        .args(["-q", "-F", "-t", "ext4", "-b", "4096", "-d"])
        .arg(dir)
        .arg(&img)
        .arg(format!("{size_mib}M"))
        .output()
        .expect("mke2fs");
    assert!(
        o.status.success(),
        "mke2fs: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = Command::new("debugfs")
        .args(["-w", "-R", &format!("rm {rm}")])
        .arg(&img)
        .output()
        .expect("debugfs");
    assert!(
        o.status.success(),
        "debugfs: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The file is gone from the image's directory.
    let o = Command::new("debugfs")
        .args(["-R", &format!("stat {rm}")])
        .arg(&img)
        .output()
        .expect("debugfs");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("not found"),
        "{rm} still in the image"
    );
    img
}

/// FIL_PAGE_SPACE_ID of a file's page 0, as the server wrote it.
fn space_id(ibd: &Path) -> u64 {
    let b = std::fs::read(ibd).expect("ibd");
    u64::from(u32::from_be_bytes(b[34..38].try_into().expect("4 bytes")))
}

/// Carves `img` into a new directory; the spaces of the JSON report.
fn carve(img: &Path, name: &str) -> (PathBuf, Vec<(u64, PathBuf, bool)>) {
    let out = scratch(name);
    let _ = std::fs::remove_dir_all(&out);
    let (code, j) = run_json(&[
        "carve",
        img.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert!(matches!(code, Some(0 | 1)), "carve exit {code:?}");
    let spaces = j
        .get("spaces")
        .arr()
        .iter()
        .map(|s| {
            (
                s.get("space_id").u64(),
                PathBuf::from(s.get("image").str()),
                s.get("page0_synthesized").bool(),
            )
        })
        .collect();
    (out, spaces)
}

/// `rows FILE ARGS... --format tsv`, which must exit 0 (`what` names the
/// case in a failure): its output.
fn rows_tsv(file: &str, args: &[&str], what: &str) -> Vec<u8> {
    let mut all = vec!["rows", file];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "tsv"]);
    let o = run(&all);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

fn recover_from_datadir(datadir: &str) {
    if !e2fsprogs() {
        return;
    }
    let dir = instance_copy(datadir);
    let deleted = dir.join("fx/t_basic.ibd");
    let id = space_id(&deleted);
    let others: Vec<u64> = std::fs::read_dir(dir.join("fx"))
        .expect("fx")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ibd"))
        .map(|p| space_id(&p))
        .collect();
    let img = image_without(&dir, "fx/t_basic.ibd", &format!("{datadir}.ext4"), 64);
    let (carved_dir, spaces) = carve(&img, &format!("{datadir}-carved"));
    assert!(
        carved_dir.join("ibdata1").is_file(),
        "{datadir}: space 0 as ibdata1"
    );
    for o in &others {
        assert!(
            spaces.iter().any(|(s, _, _)| s == o),
            "{datadir}: space {o} not carved"
        );
    }
    let (_, image, synthesized) = spaces
        .iter()
        .find(|(s, _, _)| *s == id)
        .expect("the deleted table's space");
    assert!(!synthesized, "{datadir}: its page 0 was in the image");
    let frm = dir.join("fx/t_basic.frm");
    let got = rows_tsv(
        image.to_str().expect("utf-8"),
        &["--frm", frm.to_str().expect("utf-8")],
        datadir,
    );
    let want =
        std::fs::read_to_string(fixtures().join(format!("instance/rows/{datadir}__t_basic.tsv")))
            .expect("dump");
    assert_eq!(String::from_utf8(got).expect("utf-8"), want, "{datadir}");
    rows_point_into(
        &img,
        image,
        &["--frm", frm.to_str().expect("utf-8")],
        datadir,
    );
    // No definition given: the carved system tablespace's dictionary
    // (DIR/ibdata1) gives it.
    let o = run(&[
        "rows",
        image.to_str().expect("utf-8"),
        "--datadir",
        carved_dir.to_str().expect("utf-8"),
        "--format",
        "tsv",
    ]);
    assert_eq!(
        String::from_utf8(o.stdout).expect("utf-8"),
        want,
        "{datadir} --datadir {}: {}",
        carved_dir.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    // The clustered index alone (its id from the server's SYS_INDEXES,
    // fixtures/instance/sys_indexes.tsv), gathered with --index-id: the
    // same rows.
    let tables = read_tsv(&fixtures().join("instance/sys_tables.tsv"));
    let table_id = &tables
        .iter()
        .find(|r| r["datadir"] == datadir && r["name"] == "fx/t_basic")
        .expect("fx/t_basic in SYS_TABLES")["table_id"];
    let indexes = read_tsv(&fixtures().join("instance/sys_indexes.tsv"));
    let primary = &indexes
        .iter()
        .find(|r| r["datadir"] == datadir && &r["table_id"] == table_id && r["name"] == "PRIMARY")
        .expect("its PRIMARY in SYS_INDEXES")["index_id"];
    let out = scratch(&format!("{datadir}-index"));
    let _ = std::fs::remove_dir_all(&out);
    let o = run(&[
        "carve",
        img.to_str().expect("utf-8"),
        "--index-id",
        primary,
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)));
    let image = out.join(format!("index-{primary}.ibd"));
    let o = run(&[
        "rows",
        image.to_str().expect("utf-8"),
        "--frm",
        frm.to_str().expect("utf-8"),
        "--format",
        "tsv",
    ]);
    assert_eq!(
        String::from_utf8(o.stdout).expect("utf-8"),
        want,
        "{datadir} --index-id"
    );
}

/// Every row `rows IMAGE ARGS` reads from a carved image carries the
/// source carved, `img`, and a byte offset inside it where the record's
/// bytes are those of the image's page at the record's offset.
fn rows_point_into(img: &Path, image: &Path, args: &[&str], what: &str) {
    let source = std::fs::read(img).expect("source");
    let carved = std::fs::read(image).expect("image");
    // The servers' default innodb_page_size: no datadir of
    // fixtures/instance sets another (fixtures/instance/facts.tsv).
    let page_size = 16384;
    let mut all = vec!["rows", image.to_str().expect("utf-8")];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--with-deleted", "--format", "jsonl"]);
    let (code, rows, err) = jsonl(&all);
    assert_eq!(code, Some(0), "{what}: {err}");
    assert!(!rows.is_empty(), "{what}");
    for r in &rows {
        assert_eq!(r.get("source_file").str(), img.to_str().expect("utf-8"));
        let at = r.get("source_offset").u64() as usize;
        assert!(at + 8 <= source.len(), "{what}: {at} past the image");
        let in_image = r.get("page").u64() as usize * page_size + r.get("offset").u64() as usize;
        assert_eq!(
            source[at..at + 8],
            carved[in_image..in_image + 8],
            "{what}: row at {in_image} of the carved image, {at} of the source"
        );
    }
}

#[test]
fn a_deleted_mysql56_table_comes_back_from_an_ext4_image() {
    recover_from_datadir("mysql56-fpt");
}

#[test]
fn a_deleted_mariadb_table_comes_back_from_an_ext4_image() {
    recover_from_datadir("mariadb1011-split");
}

#[test]
fn a_deleted_mysql8_table_comes_back_with_its_sdi() {
    let Some(corpus) = corpus_and_e2fsprogs() else {
        return;
    };
    let original = corpus.join("mysql-8.0/sakila_mysql8040_staff.ibd");
    let dir = scratch("mysql8-datadir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sakila")).expect("mkdir");
    std::fs::copy(&original, dir.join("sakila/staff.ibd")).expect("copy");
    // A second file stays in the image.
    std::fs::copy(
        corpus.join("mysql-8.0/sakila_mysql8040_sys_config.ibd"),
        dir.join("sakila/sys_config.ibd"),
    )
    .expect("copy");
    let img = image_without(&dir, "sakila/staff.ibd", "mysql8.ext4", 16);
    let (_, spaces) = carve(&img, "mysql8-carved");
    let id = space_id(&original);
    assert!(spaces
        .iter()
        .any(|(s, _, _)| *s == space_id(&dir.join("sakila/sys_config.ibd"))));
    let (_, image, synthesized) = spaces
        .iter()
        .find(|(s, _, _)| *s == id)
        .expect("the deleted table's space");
    assert!(!synthesized);
    // Its CREATE TABLE from its own carved SDI, then its rows.
    let schema = run(&["schema", image.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&schema.stdout);
    assert!(text.contains("CREATE TABLE `sakila`.`staff`"), "{text}");
    let rows = |p: &Path| {
        let o = run(&["rows", p.to_str().expect("utf-8"), "--format", "tsv"]);
        (o.status.code(), String::from_utf8(o.stdout).expect("utf-8"))
    };
    let (want_code, want) = rows(&original);
    let (code, got) = rows(image);
    assert!(!want.is_empty());
    assert_eq!((code, got), (want_code, want));
}

/// The dropped table's clustered index id, from the server's dictionary
/// view taken before the DROP (`fixtures/dropped/indexes.tsv`).
fn dropped_primary() -> String {
    let rows = read_tsv(&fixtures().join("dropped/indexes.tsv"));
    rows.iter()
        .find(|r| r["table"] == "fx/t_dropped" && r["index"] == "PRIMARY")
        .expect("t_dropped's PRIMARY")["index_id"]
        .clone()
}

/// `carve SOURCE --index-id N`, then `rows` of the index image with the
/// `.frm` saved before the DROP: the server's dump taken before it.
fn dropped_rows_come_back(source: &Path, name: &str) {
    let primary = dropped_primary();
    let out = scratch(name);
    let _ = std::fs::remove_dir_all(&out);
    let (code, j) = run_json(&[
        "carve",
        source.to_str().expect("utf-8"),
        "--index-id",
        &primary,
        "--out",
        out.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert!(matches!(code, Some(0 | 1)), "carve exit {code:?}");
    let spaces = j.get("spaces").arr();
    assert_eq!(spaces.len(), 1, "{name}");
    let s = &spaces[0];
    // Space 0 (indexes.tsv), its page 0 synthesized for the index, the
    // leaf chain whole: every leaf survived the DROP.
    assert_eq!(s.get("space_id").u64(), 0);
    assert!(s.get("page0_synthesized").bool());
    let ix = s
        .get("indexes")
        .arr()
        .iter()
        .find(|i| i.get("index_id").u64().to_string() == primary)
        .expect("the index")
        .clone();
    assert!(ix.get("leaf_chain_complete").bool(), "{name}");
    let image = out.join(format!("index-{primary}.ibd"));
    let frm = fixtures().join("dropped/t_dropped.frm");
    let got = rows_tsv(
        image.to_str().expect("utf-8"),
        &["--frm", frm.to_str().expect("utf-8")],
        name,
    );
    let want = std::fs::read_to_string(fixtures().join("dropped/t_dropped.tsv")).expect("dump");
    assert_eq!(String::from_utf8(got).expect("utf-8"), want, "{name}");
}

#[test]
fn a_table_dropped_from_ibdata1_comes_back_with_its_frm() {
    // MySQL 5.6, innodb_file_per_table=0: the table's pages were freed in
    // ibdata1 by the DROP and a slow shutdown (fixtures/README.md, "The
    // dropped-table fixture").
    let dir = super::common::unpack("dropped/mysql56-dropped.tar.gz", "dropped");
    dropped_rows_come_back(&dir.join("ibdata1"), "dropped-ibdata1");
    if !e2fsprogs() {
        return;
    }
    // The same datadir in an ext4 image (a file deleted in it, the
    // system tablespace kept).
    let img = image_without(&dir, "fx/t_kept.frm", "dropped.ext4", 32);
    dropped_rows_come_back(&img, "dropped-ext4");
}

/// Two MariaDB encrypted tables of space id 7 (`fixtures/crypt`:
/// cbc/ai_int full_crc32 and crc32-cbc/ai_int crc32, both AES_CBC, key id
/// 2 of `fixtures/keys`; `manifest.tsv`) in an ext4 image, both `.ibd`
/// deleted in it. With `--key-file` every encrypted page is decrypted and
/// grouped: two images of space 7 (told apart by layout), whose rows, read
/// with the same key, are the server's dumps (`crypt/tables.tsv`).
#[test]
fn deleted_encrypted_mariadb_tables_come_back_with_the_key_file() {
    if !e2fsprogs() {
        return;
    }
    let crypt = fixtures().join("crypt");
    let dir = scratch("crypt-datadir");
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["cbc", "crc32-cbc"] {
        std::fs::create_dir_all(dir.join(sub)).expect("mkdir");
        std::fs::copy(
            crypt.join(sub).join("ai_int.ibd"),
            dir.join(sub).join("ai_int.ibd"),
        )
        .expect("copy");
    }
    let img = image_without(&dir, "cbc/ai_int.ibd", "crypt.ext4", 16);
    let o = Command::new("debugfs")
        .args(["-w", "-R", "rm crc32-cbc/ai_int.ibd"])
        .arg(&img)
        .output()
        .expect("debugfs");
    assert!(o.status.success());
    let key_file = fixtures().join("keys/test-keys.txt");
    let key_file = key_file.to_str().expect("utf-8");
    let img_s = img.to_str().expect("utf-8");
    // Without the key: the full_crc32 pages are only counted.
    let out = scratch("crypt-carved-nokey");
    let _ = std::fs::remove_dir_all(&out);
    let args = |out: &Path| {
        vec![
            "carve".to_string(),
            img_s.to_string(),
            "--out".to_string(),
            out.to_str().expect("utf-8").to_string(),
            "--format".to_string(),
            "json".to_string(),
        ]
    };
    let a = args(&out);
    let (code, j) = run_json(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, Some(1));
    assert!(!j.get("encrypted").arr().is_empty());
    let out = scratch("crypt-carved");
    let _ = std::fs::remove_dir_all(&out);
    let mut a = args(&out);
    a.extend(["--key-file".to_string(), key_file.to_string()]);
    let (code, j) = run_json(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, Some(0), "every space whole, nothing only counted");
    assert!(j.get("encrypted").arr().is_empty());
    assert!(j.get("pages_decrypted").u64() > 0);
    let tables = read_tsv(&crypt.join("tables.tsv"));
    let mut seen = Vec::new();
    for s in j.get("spaces").arr() {
        assert_eq!(s.get("space_id").u64(), 7);
        let sub = match s.get("layout").str() {
            "full_crc32" => "cbc",
            "classic" => "crc32-cbc",
            other => panic!("layout {other}"),
        };
        seen.push(sub);
        let t = tables
            .iter()
            .find(|t| t["path"] == format!("{sub}/ai_int.ibd"))
            .expect("in tables.tsv");
        let frm = crypt.join(&t["frm"]);
        let got = rows_tsv(
            s.get("image").str(),
            &[
                "--frm",
                frm.to_str().expect("utf-8"),
                "--key-file",
                key_file,
            ],
            sub,
        );
        assert!(
            got == super::rows::gunzip(&crypt.join(&t["dump"])),
            "{sub}: rows differ from the dump"
        );
    }
    seen.sort();
    assert_eq!(seen, ["cbc", "crc32-cbc"]);
}

/// A MySQL 8 encrypted table of the corpus (Percona 8.0, ENCRYPTION='Y',
/// and its server's keyring: corpus MANIFEST.md) deleted in an ext4
/// image: with `--keyring` its pages are decrypted and grouped, and the
/// image's rows, read with the same keyring, are the original file's.
#[test]
fn a_deleted_mysql_encrypted_table_comes_back_with_the_keyring() {
    let Some(corpus) = corpus_and_e2fsprogs() else {
        return;
    };
    let original = corpus.join("percona-8.0/percona80_encrypted_secret_data.ibd");
    let keyring = corpus.join("percona-8.0/percona80_keyring_file");
    let keyring = keyring.to_str().expect("utf-8");
    let dir = scratch("mysql-crypt-datadir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("db")).expect("mkdir");
    std::fs::copy(&original, dir.join("db/secret_data.ibd")).expect("copy");
    let img = image_without(&dir, "db/secret_data.ibd", "mysql-crypt.ext4", 16);
    let out = scratch("mysql-crypt-carved");
    let _ = std::fs::remove_dir_all(&out);
    let (code, j) = run_json(&[
        "carve",
        img.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--keyring",
        keyring,
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0));
    assert!(j.get("encrypted").arr().is_empty());
    assert!(j.get("pages_decrypted").u64() > 0);
    let spaces = j.get("spaces").arr();
    let s = spaces
        .iter()
        .find(|s| s.get("space_id").u64() == space_id(&original))
        .expect("its space");
    let rows = |p: &str| {
        let o = run(&["rows", p, "--keyring", keyring, "--format", "tsv"]);
        (o.status.code(), String::from_utf8(o.stdout).expect("utf-8"))
    };
    let want = rows(original.to_str().expect("utf-8"));
    assert!(!want.1.is_empty());
    assert_eq!(rows(s.get("image").str()), want);
}

/// `fixtures/mysql56/ai_int.ibd` (space 7, 16 KiB pages, 3000 rows:
/// fixtures/manifest.tsv) planted page by page into seeded noise at odd
/// sector offsets, written to `name`: the image, and each page's offset
/// in it.
fn planted_image(name: &str) -> (PathBuf, std::collections::BTreeMap<u64, u64>) {
    let file = std::fs::read(fixtures().join("mysql56/ai_int.ibd")).expect("ai_int.ibd");
    let mut image = ibdscope_testkit::noise(8 << 20, 11);
    let mut at = std::collections::BTreeMap::new();
    let mut off = 512 * 3;
    for (n, page) in file.chunks_exact(16384).enumerate() {
        if page.iter().all(|&b| b == 0) {
            continue;
        }
        image[off..off + 16384].copy_from_slice(page);
        at.insert(n as u64, off as u64);
        off += 16384 + 512 * 5;
    }
    let img = scratch(name);
    std::fs::write(&img, &image).expect("image");
    (img, at)
}

/// Carves `img` into a new directory `name`, which must exit 0: the
/// directory.
fn carve_clean(img: &Path, name: &str) -> PathBuf {
    let out = scratch(name);
    let _ = std::fs::remove_dir_all(&out);
    let o = run(&[
        "carve",
        img.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "carve: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// The JSONL lines of `args`, with the exit code and stderr.
fn jsonl(args: &[&str]) -> (Option<i32>, Vec<super::common::Json>, String) {
    let o = run(args);
    let lines = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(super::common::Json::parse)
        .collect();
    (
        o.status.code(),
        lines,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn carved_rows_carry_their_byte_offsets_in_the_source() {
    let (img, planted) = planted_image("carve-sources.raw");
    let image = std::fs::read(&img).expect("image");
    let out = carve_clean(&img, "carve-sources");
    let carved = out.join("space-7.ibd");
    let (carved_s, img_s) = (
        carved.to_str().expect("utf-8"),
        img.to_str().expect("utf-8"),
    );
    let frm = fixtures().join("mysql56/ai_int.frm");
    let frm = frm.to_str().expect("utf-8");
    let (code, rows, err) = jsonl(&[
        "rows",
        carved_s,
        "--frm",
        frm,
        "--with-deleted",
        "--format",
        "jsonl",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let live = rows.iter().filter(|r| r.get("origin").str() == "live");
    assert_eq!(live.count(), 3000, "the manifest's rows");
    for r in &rows {
        let (page, offset) = (r.get("page").u64(), r.get("offset").u64());
        assert_eq!(r.get("source_file").str(), img_s);
        let at = r.get("source_offset").u64();
        // The page's place in the image plus the record's in the page.
        assert_eq!(at, planted[&page] + offset, "page {page} offset {offset}");
        // The record's first field at its origin (COMPACT, rem0rec.h) is
        // the key, an INT stored big-endian with its sign bit flipped
        // (mysql-server 5.6 storage/innobase/row/row0mysql.cc,
        // row_mysql_store_col_in_innobase_format).
        let id = r.get("row").get("id").u64() as u32;
        let at = at as usize;
        assert_eq!(
            image[at..at + 4],
            (id ^ 0x8000_0000).to_be_bytes(),
            "row {id}"
        );
    }
    // `records`: the record's bytes in the image from its source offset.
    let (code, recs, err) = jsonl(&["records", carved_s, "--format", "jsonl"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(recs.len(), 3000);
    for r in &recs {
        let (page, offset) = (r.get("page").u64(), r.get("offset").u64());
        let at = r.get("source_offset").u64();
        assert_eq!(at, planted[&page] + offset);
        let data = r.get("data").str();
        let hex: String = image[at as usize..]
            .iter()
            .take(data.len() / 2)
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, data, "page {page} offset {offset}");
    }
    // CSV and text say it too; TSV is the server's dump, the same as the
    // file's own rows.
    let first = planted[&rows[0].get("page").u64()] + rows[0].get("offset").u64();
    let o = run(&["rows", carved_s, "--frm", frm, "--format", "csv"]);
    let csv = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut lines = csv.lines();
    assert!(lines
        .next()
        .is_some_and(|h| h.ends_with(",_verified,_source_file,_source_offset")));
    assert!(lines
        .next()
        .is_some_and(|l| l.ends_with(&format!(",true,{img_s},{first}"))));
    let o = run(&["rows", carved_s, "--frm", frm, "--format", "text"]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains(&format!("\n{img_s}:{first}\t")), "{text}");
    let orig = fixtures().join("mysql56/ai_int.ibd");
    let want = rows_tsv(orig.to_str().expect("utf-8"), &["--frm", frm], "ai_int");
    assert_eq!(rows_tsv(carved_s, &["--frm", frm], "carved"), want);
}

#[test]
fn a_source_map_that_does_not_fit_is_a_finding_and_the_rows_come() {
    let (img, _) = planted_image("carve-badmap.raw");
    let out = carve_clean(&img, "carve-badmap");
    let carved = out.join("space-7.ibd");
    let map = out.join("space-7.ibd.sources");
    let good = std::fs::read_to_string(&map).expect("the source map");
    let frm = fixtures().join("mysql56/ai_int.frm");
    let (carved_s, frm) = (
        carved.to_str().expect("utf-8"),
        frm.to_str().expect("utf-8"),
    );
    let space_line = good
        .lines()
        .position(|l| l.starts_with("space\t"))
        .expect("space line")
        + 1;
    let cases = [
        // A page count that is not the image's.
        (
            good.replacen("space\t16384\t19", "space\t16384\t20", 1),
            space_line,
            "20 pages, the file has 19",
        ),
        // A line that is none of the map's.
        (
            format!("{good}page\tx\n"),
            good.lines().count() + 1,
            "malformed line",
        ),
    ];
    for (text, line, what) in cases {
        std::fs::write(&map, &text).expect("map");
        for (cmd, n) in [("rows", 3000), ("records", 3000)] {
            let mut args = vec![cmd, carved_s, "--format", "jsonl"];
            if cmd == "rows" {
                args.extend(["--frm", frm]);
            }
            let (code, lines, err) = jsonl(&args);
            assert_eq!(code, Some(1), "{cmd} {what}: {err}");
            let said = format!("{}: line {line}: {what}", map.display());
            let shown = err.contains(&said)
                || lines.iter().any(|l| {
                    l.opt("finding")
                        .and_then(|f| f.opt("source_map"))
                        .is_some_and(|f| f.str().contains(&said))
                });
            assert!(shown, "{cmd}: {said} not in {err}");
            let got: Vec<_> = lines
                .iter()
                .filter(|l| l.opt("finding").is_none())
                .collect();
            assert_eq!(got.len(), n, "{cmd} {what}");
            assert!(got.iter().all(|l| l.opt("source_offset").is_none()));
        }
    }
}
