//! Golden outputs: the text of each command on real files, checked in under
//! fixtures/expected/ and compared byte for byte. After a deliberate change
//! of output, regenerate with `IBDSCOPE_UPDATE_GOLDEN=1 cargo test golden`
//! and review the diff.

use super::common::{corpus, root};
use std::process::Command;

const FILES: &[&str] = &[
    "fixtures/mysql56/ai_int.ibd",
    "fixtures/mariadb1011/uuid_char36.ibd",
    "fixtures/mariadb1011-4k/secondary.ibd",
    "fixtures/mariadb1011-64k/ai_int.ibd",
    "../shared/corpus/mysql-8.4/sakila_mysql8403_film.ibd",
];

/// Arguments before and after the file.
const COMMANDS: &[(&[&str], &[&str])] = &[
    (&["info"], &[]),
    (&["types"], &[]),
    (&["check"], &[]),
    (&["extents", "--color", "never"], &[]),
    (&["segments"], &[]),
    (&["lists"], &[]),
    (&["indexes"], &[]),
    // The root page of the first index (page 3 in every file here).
    (&["page"], &["3"]),
    (&["lsn", "--color", "never"], &[]),
    (&["fill", "--color", "never"], &[]),
];

#[test]
fn outputs_match_the_checked_in_goldens() {
    let update = std::env::var_os("IBDSCOPE_UPDATE_GOLDEN").is_some();
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for file in FILES {
        if file.starts_with("../shared") && corpus().is_none() {
            continue;
        }
        for (cmd, after) in COMMANDS {
            let out = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
                .args(
                    cmd.iter()
                        .copied()
                        .chain([*file])
                        .chain(after.iter().copied()),
                )
                .current_dir(root())
                .output()
                .expect("run ibdscope");
            let name = file.rsplit('/').take(2).collect::<Vec<_>>();
            let golden = root()
                .join("fixtures/expected")
                .join(format!("{}__{}.{}.txt", name[1], name[0], cmd[0]));
            if update {
                std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
                std::fs::write(&golden, &out.stdout).unwrap();
                continue;
            }
            let want = std::fs::read(&golden).unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (IBDSCOPE_UPDATE_GOLDEN=1 makes it)",
                    golden.display()
                )
            });
            if want != out.stdout {
                mismatches.push(golden.display().to_string());
            }
            compared += 1;
        }
    }
    assert!(
        mismatches.is_empty(),
        "output differs from: {mismatches:#?}"
    );
    assert!(update || compared >= 3 * COMMANDS.len());
}

/// The terminal LSN map in colour (ANSI 256: the perceptual scale), on one
/// file.
#[test]
fn lsn_colour_output_matches_its_golden() {
    let out = Command::new(env!("CARGO_BIN_EXE_ibdscope"))
        .args(["lsn", "--color", "always", "fixtures/mysql56/ai_int.ibd"])
        .current_dir(root())
        .output()
        .expect("run ibdscope");
    let golden = root().join("fixtures/expected/mysql56__ai_int.ibd.lsn-color.txt");
    if std::env::var_os("IBDSCOPE_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &out.stdout).unwrap();
        return;
    }
    let want = std::fs::read(&golden).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (IBDSCOPE_UPDATE_GOLDEN=1 makes it)",
            golden.display()
        )
    });
    assert!(
        want == out.stdout,
        "output differs from {}",
        golden.display()
    );
    assert!(out.stdout.windows(7).any(|w| w == b"\x1b[38;5;"));
}
