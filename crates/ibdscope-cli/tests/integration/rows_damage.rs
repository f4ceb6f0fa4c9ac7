//! `rows` past damage: on copies of the
//! servers' files with one leaf of an index damaged (zeroed, overwritten
//! with random bytes, or its FIL_PAGE_NEXT changed so that the checksum
//! fails), `rows` gives every live row of every readable leaf in key
//! order, exactly once; the rows of a lost leaf are missing and said so
//! (page, file offset, key range) in every format; rows of a page that
//! does not verify are marked in every format or named on stderr, and
//! `--verified-only` leaves them out; `records` reads the same leaves.
//!
//! Truth: the servers' dumps (`fixtures/rows/*.tsv.gz`, `SELECT … INTO
//! OUTFILE`); the rows of the damaged leaf are what `rows --where-page` of
//! the clean copy gives, whose whole output equals the dump (asserted
//! here too).

use super::common::{fixtures, run, scratch, Json};
use super::rows::gunzip;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const PAGE: usize = 16384;

/// The leaf chain of index `index_id` in key order, read from the file's
/// own headers (FIL_PAGE_PREV = FIL_NULL first, then FIL_PAGE_NEXT).
fn leaf_chain(file: &[u8], index_id: u64) -> Vec<u32> {
    let be32 = |p: &[u8], at: usize| u32::from_be_bytes(p[at..at + 4].try_into().unwrap());
    let leaves: Vec<(u32, u32, u32)> = file
        .chunks_exact(PAGE)
        .enumerate()
        .filter(|(_, p)| {
            u16::from_be_bytes([p[24], p[25]]) == 17855
                && u16::from_be_bytes([p[64], p[65]]) == 0
                && u64::from_be_bytes(p[66..74].try_into().unwrap()) == index_id
        })
        .map(|(n, p)| (n as u32, be32(p, 8), be32(p, 12)))
        .collect();
    let mut cur = leaves.iter().find(|l| l.1 == u32::MAX).unwrap().0;
    let mut chain = vec![cur];
    while let Some(l) = leaves
        .iter()
        .find(|l| l.0 == cur)
        .filter(|l| l.2 != u32::MAX)
    {
        cur = l.2;
        chain.push(cur);
    }
    assert_eq!(chain.len(), leaves.len(), "the clean file's chain is whole");
    chain
}

/// PAGE_INDEX_ID of the root (page 3: the first index's root).
fn first_index_id(file: &[u8]) -> u64 {
    u64::from_be_bytes(file[3 * PAGE + 66..3 * PAGE + 74].try_into().unwrap())
}

/// How the leaf is damaged.
#[derive(Clone, Copy, Debug)]
enum Damage {
    Zero,
    Random,
    /// FIL_PAGE_NEXT names another leaf further on; the checksum is left
    /// as it was, so the page does not verify.
    Next(u32),
}

/// A copy of `dir/table.{ibd,frm}` in a scratch directory with `page`
/// damaged.
fn damaged_copy(dir: &str, table: &str, page: u32, damage: Damage, tag: &str) -> PathBuf {
    let src = fixtures().join(dir);
    let out = scratch(&format!("rows-damage-{dir}-{tag}"));
    std::fs::create_dir_all(&out).unwrap();
    let mut ibd = std::fs::read(src.join(format!("{table}.ibd"))).unwrap();
    let at = page as usize * PAGE;
    let p = &mut ibd[at..at + PAGE];
    match damage {
        Damage::Zero => p.fill(0),
        Damage::Random => {
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ u64::from(page);
            for b in p.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = (x >> 24) as u8;
            }
        }
        Damage::Next(n) => p[12..16].copy_from_slice(&n.to_be_bytes()),
    }
    let file = out.join(format!("{table}.ibd"));
    std::fs::write(&file, &ibd).unwrap();
    std::fs::copy(
        src.join(format!("{table}.frm")),
        out.join(format!("{table}.frm")),
    )
    .unwrap();
    file
}

fn stdout_lines(args: &[&str]) -> (Option<i32>, Vec<String>, String) {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    let out = String::from_utf8(o.stdout).unwrap();
    (
        o.status.code(),
        out.lines().map(str::to_string).collect(),
        err,
    )
}

/// The clean file `dir/table.ibd` and the server's dump of the table.
fn clean_and_dump(dir: &str, table: &str) -> (PathBuf, String) {
    let clean = fixtures().join(dir).join(format!("{table}.ibd"));
    let dump = gunzip(&fixtures().join(format!("rows/{dir}__{table}.tsv.gz")));
    (clean, String::from_utf8(dump).unwrap())
}

/// What `rows --format tsv --where-page N` (with `extra` first) gives of
/// the clean file: the rows of that one leaf.
fn page_rows(clean: &Path, page: u32, extra: &[&str]) -> Vec<String> {
    let p = page.to_string();
    let mut args = vec!["rows"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--format", "tsv", "--where-page", &p, s(clean)]);
    let (code, rows, err) = stdout_lines(&args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    rows
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The JSON summary adds up: live + delete-marked + free lists + off
/// the tree = rows.
fn summary_adds_up(file: &Path, extra: &[&str]) -> Json {
    let mut args = vec!["rows", "--format", "json", s(file)];
    args.extend_from_slice(extra);
    let o = run(&args);
    let j = Json::parse(&String::from_utf8_lossy(&o.stdout));
    let sm = j.get("summary");
    assert_eq!(
        sm.get("rows").u64(),
        sm.get("live").u64()
            + sm.get("delete_marked").u64()
            + sm.get("free_list").u64()
            + sm.get("off_chain").u64(),
        "{}: {args:?}: the summary does not add up",
        file.display()
    );
    j
}

/// One PRIMARY leaf a third of the way along the chain of the 18,000-row
/// tables (MySQL 5.6 innodb checksums, MariaDB 10.11 full_crc32), zeroed,
/// overwritten with random bytes, or with FIL_PAGE_NEXT changed.
#[test]
fn rows_go_past_a_damaged_leaf() {
    for dir in ["mysql56", "mariadb1011"] {
        let table = "uuid_char36_large";
        let (clean, dump) = clean_and_dump(dir, table);
        let dump: Vec<&str> = dump.lines().collect();
        let (code, all, _) = stdout_lines(&["rows", "--format", "tsv", s(&clean)]);
        assert_eq!(
            (code, all.len()),
            (Some(0), dump.len()),
            "{dir}: clean copy"
        );
        assert!(
            all.iter().zip(&dump).all(|(a, b)| a == b),
            "{dir}: clean = dump"
        );

        let bytes = std::fs::read(&clean).unwrap();
        let chain = leaf_chain(&bytes, first_index_id(&bytes));
        let victim = chain[chain.len() / 3];
        let far = chain[chain.len() - 2];
        let on_page = page_rows(&clean, victim, &[]);
        assert!(on_page.len() > 10, "{dir}: page {victim} holds rows");
        let on_page: BTreeSet<&str> = on_page.iter().map(String::as_str).collect();
        let without: Vec<&str> = dump
            .iter()
            .copied()
            .filter(|l| !on_page.contains(l))
            .collect();
        let offset = format!("byte offset {}", victim as usize * PAGE);

        for (tag, damage) in [
            ("zero", Damage::Zero),
            ("random", Damage::Random),
            ("next", Damage::Next(far)),
        ] {
            let file = damaged_copy(dir, table, victim, damage, tag);
            let what = format!("{dir} {tag} page {victim}");
            let (code, got, err) = stdout_lines(&["rows", "--format", "tsv", s(&file)]);
            assert_eq!(code, Some(1), "{what}: {err}");
            let lost = matches!(damage, Damage::Zero | Damage::Random);
            let want = if lost { &without } else { &dump };
            assert_eq!(got.len(), want.len(), "{what}: row count; {err}");
            assert!(
                got.iter().zip(want.iter()).all(|(a, b)| a == b),
                "{what}: rows"
            );
            let j = summary_adds_up(&file, &[]);
            let j_deleted = summary_adds_up(&file, &["--with-deleted"]);
            let live = |j: &Json| j.get("summary").get("live").u64();
            assert_eq!(live(&j), want.len() as u64, "{what}: live rows");
            assert_eq!(
                live(&j_deleted),
                want.len() as u64,
                "{what}: live rows, --with-deleted"
            );
            if lost {
                // Named on stderr (tsv, csv, sql), in the JSON and in text.
                let named = format!("leaf page {victim} ({offset}) is lost");
                assert!(err.contains(&named), "{what}: {err}");
                assert_eq!(j.get("summary").get("lost_pages").u64(), 1, "{what}");
                assert_eq!(j.get("lost").arr()[0].get("page").u64(), u64::from(victim));
                for format in ["csv", "sql"] {
                    let (_, _, e) = stdout_lines(&["rows", "--format", format, s(&file)]);
                    assert!(e.contains(&named), "{what} {format}: {e}");
                }
                let (_, text, _) = stdout_lines(&["rows", s(&file)]);
                let text = text.join("\n");
                assert!(text.contains(&named), "{what}: text");
                assert!(text.contains("1 leaf pages lost"), "{what}: text summary");
                // The key range: the last key before the page and the
                // first after it, from the clean dump's order.
                let first_after = without[dump.iter().position(|l| on_page.contains(l)).unwrap()];
                let key = first_after.split('\t').next().unwrap();
                assert!(
                    err.contains(&format!("before (id='{key}')")),
                    "{what}: {err}"
                );
                let after = j.get("lost").arr()[0].get("key_after").str().to_string();
                assert_eq!(after, format!("(id='{key}')"), "{what}: JSON key_after");
                // `records` reads the same leaves: one user record per row.
                let (_, recs, _) = stdout_lines(&[
                    "records",
                    "--index",
                    "PRIMARY",
                    "--format",
                    "jsonl",
                    s(&file),
                ]);
                let users = recs
                    .iter()
                    .filter(|l| {
                        l.contains("\"chain\":\"user\"") && l.contains("\"source\":\"key_order\"")
                    })
                    .count();
                assert_eq!(users, want.len(), "{what}: records");
            } else {
                // Point 6: the rows of the page that does not verify.
                let n = on_page.len();
                let named = format!("leaf page {victim} does not verify ({offset}): its {n} rows");
                assert!(err.contains(&named), "{what}: {err}");
                let (_, _, e) = stdout_lines(&["rows", "--format", "sql", s(&file)]);
                assert!(e.contains(&named), "{what} sql: {e}");
                let (_, csv, _) = stdout_lines(&["rows", "--format", "csv", s(&file)]);
                assert!(csv[0].ends_with(",_verified"), "{what}: {}", csv[0]);
                let unverified = csv.iter().filter(|l| l.ends_with(",false")).count();
                assert_eq!(unverified, n, "{what}: csv _verified");
                assert_eq!(csv.len() - 1, dump.len(), "{what}: csv rows");
                let (_, only, _) =
                    stdout_lines(&["rows", "--format", "tsv", "--verified-only", s(&file)]);
                assert_eq!(only, without, "{what}: --verified-only");
            }
        }
    }
}

/// The root's record chain broken half-way as well as a leaf zeroed
/// (MySQL 5.6): the leaves the root's unread pointers would name are found
/// among the index's other allocated leaves and placed by their first key
/// (one run along their sibling links); every row but the zeroed leaf's
/// comes out, in the dump's order.
#[test]
fn leaves_below_unreadable_pointers_are_placed_by_key() {
    let (dir, table) = ("mysql56", "uuid_char36_large");
    let (clean, dump) = clean_and_dump(dir, table);
    let bytes = std::fs::read(&clean).unwrap();
    let chain = leaf_chain(&bytes, first_index_id(&bytes));
    let victim = chain[chain.len() / 4];
    let on_page = page_rows(&clean, victim, &[]);
    let want: Vec<&str> = dump
        .lines()
        .filter(|l| !on_page.iter().any(|p| p == l))
        .collect();
    let file = damaged_copy(dir, table, victim, Damage::Zero, "root");
    // The root (page 3, COMPACT): the next-record offset of its user
    // record half-way along its chain made to point outside the page.
    let mut ibd = std::fs::read(&file).unwrap();
    let root = &mut ibd[3 * PAGE..4 * PAGE];
    let (mut origin, mut n) = (99usize, 0);
    while n < 75 {
        let rel = i16::from_be_bytes([root[origin - 2], root[origin - 1]]);
        origin = (origin as i64 + i64::from(rel)) as usize & 0xFFFF;
        n += 1;
    }
    root[origin - 2..origin].copy_from_slice(&0x7ff0i16.to_be_bytes());
    std::fs::write(&file, &ibd).unwrap();
    let (code, got, err) = stdout_lines(&["rows", "--format", "tsv", s(&file)]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(got.len(), want.len(), "{err}");
    assert!(got.iter().zip(&want).all(|(a, b)| a == b), "key order");
    assert!(
        err.contains("non-leaf page 3 (byte offset 49152, level 1)"),
        "{err}"
    );
    let (_, text, _) = stdout_lines(&["rows", s(&file)]);
    assert!(
        text.join("\n").contains("placed by their first key"),
        "{text:?}"
    );
}

/// A secondary index (`--index idx_name`) with one leaf zeroed: its other
/// entries, in key order, and the lost page named. The clean copy's
/// entries are the dump's `(name, id)` pairs.
#[test]
fn secondary_index_past_a_zeroed_leaf() {
    let (dir, table) = ("mysql56", "secondary");
    let (clean, dump) = clean_and_dump(dir, table);
    // id, k, name, payload.
    let want: BTreeSet<String> = dump
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            format!("{}\t{}", f[2], f[0])
        })
        .collect();
    let args = |f: &Path| -> Vec<String> {
        ["rows", "--index", "idx_name", "--format", "tsv", s(f)]
            .map(str::to_string)
            .to_vec()
    };
    let a = args(&clean);
    let (code, all, _) = stdout_lines(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, Some(0));
    assert_eq!(all.iter().cloned().collect::<BTreeSet<_>>(), want);

    let bytes = std::fs::read(&clean).unwrap();
    let id = |n: usize| u64::from_be_bytes(bytes[n * PAGE + 66..n * PAGE + 74].try_into().unwrap());
    // The root of idx_name is the third index's root (pages 3, 4, 5).
    let chain = leaf_chain(&bytes, id(5));
    let victim = chain[chain.len() / 2];
    let on_page = page_rows(&clean, victim, &["--index", "idx_name"]);
    assert!(!on_page.is_empty());
    let expected: Vec<&String> = all.iter().filter(|l| !on_page.contains(l)).collect();
    let file = damaged_copy(dir, table, victim, Damage::Zero, "secondary");
    let a = args(&file);
    let (code, got, err) = stdout_lines(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(got.len(), expected.len(), "{err}");
    assert!(got.iter().zip(&expected).all(|(a, b)| a == *b));
    assert!(
        err.contains(&format!(
            "leaf page {victim} (byte offset {}) is lost",
            victim as usize * PAGE
        )),
        "{err}"
    );
}
