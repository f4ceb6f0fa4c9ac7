//! `schema` against the servers: its output for every fixture table was
//! loaded into the server that wrote the table (`fixtures/generate --only
//! schema`, `fixtures/schema/roundtrip.tsv`), and that server's `SHOW
//! CREATE TABLE` of the loaded table was recorded beside the one of the
//! original. Here, with no server: our output is still the bytes that were
//! loaded, and the loaded table is the original one, but for the
//! differences named below, each with why it is inherent.

use super::common::{fixtures, read_tsv};
use std::collections::HashMap;

/// A difference between the original `SHOW CREATE TABLE` and the loaded
/// one that the definition cannot close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inherent {
    /// `AUTO_INCREMENT=N` after `ENGINE=InnoDB` on MySQL 5.6: the
    /// engine's counter, which MySQL 5.6 keeps in memory only (MAX + 1 of
    /// the column at the first open after a restart, `ha_innodb.cc`
    /// `innobase_initialize_autoinc`) and the `.frm` does not hold
    /// (mysql-server 5.6 `sql/unireg.cc` writes no counter; `CREATE TABLE
    /// … AUTO_INCREMENT=` goes to the engine only). MariaDB keeps it in
    /// the clustered root page, which `schema` reads: no difference there.
    AutoIncrementCounter,
    /// `/* mariadb-5.3 */` after TIME, DATETIME, TIMESTAMP: MariaDB 5.3's
    /// temporal formats, which `CREATE TABLE` cannot make (only `SET
    /// GLOBAL mysql56_temporal_format=OFF` does); the loaded table gets
    /// the MySQL 5.6 formats.
    OldTemporalFormat,
}

impl Inherent {
    /// Whether this difference alone turns the original line into the
    /// loaded one.
    fn explains(self, original: &str, loaded: &str) -> bool {
        match self {
            Inherent::AutoIncrementCounter => {
                let Some(at) = original.find(" AUTO_INCREMENT=") else {
                    return false;
                };
                let rest = &original[at + " AUTO_INCREMENT=".len()..];
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                digits > 0
                    && original.starts_with(") ENGINE=InnoDB AUTO_INCREMENT=")
                    && format!("{}{}", &original[..at], &rest[digits..]) == loaded
            }
            Inherent::OldTemporalFormat => {
                original.contains(" /* mariadb-5.3 */")
                    && original.replace(" /* mariadb-5.3 */", "") == loaded
            }
        }
    }
}

/// Every table whose round trip differs, with the differences it has.
const NAMED: &[(&str, &[Inherent])] = {
    use Inherent::*;
    &[
        ("mysql56/ai_int.ibd", &[AutoIncrementCounter]),
        ("mysql56/one_row.ibd", &[AutoIncrementCounter]),
        ("mysql56-crc32/ai_int.ibd", &[AutoIncrementCounter]),
        ("mysql56-none/ai_int.ibd", &[AutoIncrementCounter]),
        ("mariadb1011/temporal_old.ibd", &[OldTemporalFormat]),
        ("schema/mysql56/defaults_lit.ibd", &[AutoIncrementCounter]),
        ("schema/mysql56/defaults_zip.ibd", &[AutoIncrementCounter]),
    ]
};

fn roundtrip() -> Vec<HashMap<String, String>> {
    read_tsv(&fixtures().join("schema/roundtrip.tsv"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(fixtures().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every table the servers loaded: all of `rows/tables.tsv` and the schema
/// step's own, none refused.
#[test]
fn every_fixture_table_went_through_its_server() {
    let rows = roundtrip();
    let have: Vec<&str> = rows.iter().map(|r| r["path"].as_str()).collect();
    let mut want: Vec<String> = read_tsv(&fixtures().join("rows/tables.tsv"))
        .into_iter()
        .map(|r| r["path"].clone())
        .collect();
    for server in ["mysql56", "mariadb1011"] {
        for e in std::fs::read_dir(fixtures().join("schema").join(server)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".ibd") {
                want.push(format!("schema/{server}/{name}"));
            }
        }
    }
    for w in &want {
        assert!(
            have.contains(&w.as_str()),
            "{w}: not in schema/roundtrip.tsv"
        );
    }
    assert_eq!(have.len(), want.len());
    for r in &rows {
        assert!(
            r["result"] == "same" || r["result"] == "differs",
            "{}: {}",
            r["path"],
            r["result"]
        );
    }
    assert!(rows.len() >= 59, "{}", rows.len());
}

/// Our output now is still what the servers loaded: a change to `schema`'s
/// output needs `fixtures/generate --only schema` again (and its round
/// trip checked below).
#[test]
fn schema_output_is_what_the_servers_loaded() {
    let mut failures = Vec::new();
    for r in roundtrip() {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_ibdscope"))
            .args(["schema", &r["path"]])
            .current_dir(fixtures())
            .output()
            .expect("run ibdscope");
        assert_eq!(o.status.code(), Some(0), "{}", r["path"]);
        let now = String::from_utf8(o.stdout).unwrap();
        if now != read(&r["output"]) {
            failures.push(format!(
                "{}: `ibdscope schema` differs from {} (run fixtures/generate --only schema)",
                r["path"], r["output"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The truth: the loaded table's `SHOW CREATE TABLE` is the original's,
/// line for line, but for the differences [`NAMED`] for that table; each
/// named difference occurs (so a fixed one must leave the list).
#[test]
fn loaded_schema_gives_back_show_create_table() {
    let named: HashMap<&str, &[Inherent]> = NAMED.iter().copied().collect();
    let rows = roundtrip();
    let mut failures = Vec::new();
    let (mut same, mut explained) = (0, 0);
    for r in &rows {
        let path = r["path"].as_str();
        let (orig, loaded) = (read(&r["original"]), read(&r["loaded"]));
        let allowed = named.get(path).copied().unwrap_or(&[]);
        let (o, l): (Vec<&str>, Vec<&str>) = (orig.lines().collect(), loaded.lines().collect());
        if o.len() != l.len() {
            failures.push(format!("{path}: {} lines, loaded {}", o.len(), l.len()));
            continue;
        }
        let mut used = vec![false; allowed.len()];
        for (a, b) in o.iter().zip(&l) {
            if a == b {
                continue;
            }
            match allowed.iter().position(|k| k.explains(a, b)) {
                Some(i) => {
                    used[i] = true;
                    explained += 1;
                }
                None => failures.push(format!("{path}:\n  original {a}\n  loaded   {b}")),
            }
        }
        for (k, u) in allowed.iter().zip(&used) {
            if !u {
                failures.push(format!("{path}: {k:?} is named but does not occur"));
            }
        }
        same += usize::from(orig == loaded);
    }
    for (p, _) in NAMED {
        if !rows.iter().any(|r| r["path"] == *p) {
            failures.push(format!("{p}: named but not in schema/roundtrip.tsv"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{} tables: {same} give back their SHOW CREATE TABLE exactly, {explained} lines differ \
         as named",
        rows.len()
    );
}

/// What the schema step's tables hold reaches the output: the servers'
/// `SHOW CREATE TABLE` texts hold DEFAULT values, CURRENT_TIMESTAMP and
/// ON UPDATE, AUTO_INCREMENT, KEY_BLOCK_SIZE and comments, and the
/// round trip above keeps them; here, that they are there at all.
#[test]
fn schema_step_tables_hold_what_they_test() {
    let mut all = String::new();
    for server in ["mysql56", "mariadb1011"] {
        for t in ["defaults_lit", "defaults_time", "defaults_zip"] {
            all.push_str(&read(&format!("schema/{server}/{t}.sql")));
        }
    }
    for want in [
        "DEFAULT '-12.50'",
        "DEFAULT -12.50",
        "DEFAULT b'10101'",
        "DEFAULT 'héllo €'",
        "DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)",
        "DEFAULT current_timestamp(6) ON UPDATE current_timestamp(6)",
        "NOT NULL AUTO_INCREMENT COMMENT 'row id'",
        "KEY_BLOCK_SIZE=8",
        "COMMENT 'naïve ''quoted'' comment'",
        "DEFAULT NULL ON UPDATE",
    ] {
        assert!(all.contains(want), "{want}");
    }
}

/// MySQL 8.0/8.4 corpus files whose source states defaults: their SDI
/// gives them back as `SHOW CREATE TABLE` prints them. Expected lines
/// from the statements the tables were made with: the sakila sample
/// database's `sakila-schema.sql` (`staff`: `active BOOLEAN NOT NULL
/// DEFAULT TRUE`, `email VARCHAR(50) DEFAULT NULL`, `last_update TIMESTAMP
/// NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP`,
/// `staff_id … AUTO_INCREMENT`; `film`: `rental_duration … DEFAULT 3`,
/// `rental_rate DECIMAL(4,2) NOT NULL DEFAULT 4.99`, `replacement_cost
/// DECIMAL(5,2) NOT NULL DEFAULT 19.99`, `rating ENUM(…) DEFAULT 'G'`) and
/// the sys schema's `sys_config` (mysql-server 8.0
/// `scripts/sys_schema/tables/sys_config.sql`: `set_time TIMESTAMP NULL
/// DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP`), in MySQL 8's
/// spelling (`sql_show.cc` quotes literal defaults; BOOLEAN is tinyint, TRUE
/// is '1').
#[test]
fn corpus_sdi_defaults_are_the_statements() {
    let Some(dir) = super::common::corpus() else {
        return;
    };
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "mysql-8.0/sakila_mysql8040_staff.ibd",
            &[
                ("staff_id", "tinyint unsigned NOT NULL AUTO_INCREMENT"),
                ("email", "DEFAULT NULL"),
                ("active", "NOT NULL DEFAULT '1'"),
                (
                    "last_update",
                    "timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP",
                ),
            ],
        ),
        (
            "mysql-8.4/sakila_mysql8403_film.ibd",
            &[
                ("film_id", "smallint unsigned NOT NULL AUTO_INCREMENT"),
                ("rental_duration", "tinyint unsigned NOT NULL DEFAULT '3'"),
                ("rental_rate", "decimal(4,2) NOT NULL DEFAULT '4.99'"),
                ("replacement_cost", "decimal(5,2) NOT NULL DEFAULT '19.99'"),
                ("rating", "DEFAULT 'G'"),
                (
                    "last_update",
                    "timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP",
                ),
            ],
        ),
        (
            "mysql-8.0/sakila_mysql8040_sys_config.ibd",
            &[
                ("value", "DEFAULT NULL"),
                (
                    "set_time",
                    "timestamp NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP",
                ),
            ],
        ),
    ];
    for (file, cols) in cases {
        let o = super::common::run(&["schema", dir.join(file).to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{file}");
        let text = String::from_utf8(o.stdout).unwrap();
        for (col, want) in *cols {
            let head = format!("  `{col}` ");
            let line = text
                .lines()
                .find(|l| l.starts_with(&head))
                .unwrap_or_else(|| panic!("{file}: no column {col}\n{text}"));
            let line = line.trim_end_matches(',');
            assert!(line.ends_with(want), "{file}: {line}\n  want …{want}");
        }
    }
}

/// `schema` of every corpus file with an SDI (MySQL 8.0, 8.4, 9.x) loads
/// back through `--ddl`, and `rows` reads the same rows through it as
/// through the SDI: the printed definition names collations the servers
/// have (`utf8mb4_0900_ai_ci` is mysql-server 8.0 `strings/ctype-uca.cc`
/// collation 255) and the DDL parser knows them (`--ddl` once refused MySQL 8.0's default collation, exit 2).
#[test]
fn corpus_schema_loads_back_through_ddl() {
    let Some(dir) = super::common::corpus() else {
        return;
    };
    let manifest = super::common::read_tsv(&dir.join("manifest.tsv"));
    let mut checked = 0;
    for r in &manifest {
        let file = dir.join(&r["path"]);
        let f = file.to_str().unwrap();
        let o = super::common::run(&["schema", f]);
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        let from_sdi = o.status.code() == Some(0) && text.contains("definition: the SDI");
        if !r["sdi_mysqld_version_id"].is_empty() {
            assert!(from_sdi, "{f}: the manifest says it has an SDI\n{text}");
        }
        if !from_sdi {
            continue;
        }
        let ddl = super::common::scratch(&format!("roundtrip-{checked}.sql"));
        std::fs::write(&ddl, &text).unwrap();
        let via_ddl = super::common::run(&["rows", f, "--ddl", ddl.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&via_ddl.stderr);
        assert_ne!(
            via_ddl.status.code(),
            Some(2),
            "{f}: --ddl refused its own schema: {err}\n{text}"
        );
        checked += 1;
        // A table altered with ALGORITHM=INSTANT keeps rows of several
        // layouts that only the SDI's row versions describe: a CREATE
        // TABLE cannot (the manifest says which).
        if r["tables"].contains("INSTANT") {
            continue;
        }
        let via_sdi = super::common::run(&["rows", f]);
        assert_eq!(via_ddl.status.code(), via_sdi.status.code(), "{f}: {err}");
        // The first line names the definition's source.
        let body = |o: &std::process::Output| {
            let s = String::from_utf8_lossy(&o.stdout).into_owned();
            s.split_once('\n')
                .map(|(_, b)| b.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            body(&via_ddl),
            body(&via_sdi),
            "{f}: rows differ between the SDI and its schema loaded back"
        );
    }
    assert!(checked >= 11, "only {checked} corpus files with an SDI");
}

/// A MariaDB table with a FULLTEXT index read through its `.frm` and
/// through its `SHOW CREATE TABLE`: both add the hidden FTS_DOC_ID where
/// InnoDB stores it (`dict0dict.cc` `dict_index_build_internal_clust`),
/// and the rows are the server's (`crates/ibdscope-schema/tests/fts/`,
/// written by MariaDB 10.11.19 with `gen.sh`).
#[test]
fn fulltext_table_through_frm_and_ddl() {
    let dir = super::common::root().join("crates/ibdscope-schema/tests/fts");
    let ibd = dir.join("ft.ibd");
    let f = ibd.to_str().unwrap();
    let want = std::fs::read_to_string(dir.join("ft_rows.tsv")).unwrap();
    let sql = dir.join("ft.sql");
    for args in [
        vec!["rows", f, "--format", "tsv"],
        vec!["rows", f, "--ddl", sql.to_str().unwrap(), "--format", "tsv"],
    ] {
        let o = super::common::run(&args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{args:?}");
    }
}
