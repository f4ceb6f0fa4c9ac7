//! The fixtures' datadir archives unpacked for a test (`golden`, `passes`).

use std::path::{Path, PathBuf};

/// `fixtures/<archive>.tar.gz` (a whole datadir: gzip around raw DEFLATE,
/// a ustar archive) unpacked into `scratch/<archive with - for />`.
pub fn unpack(scratch: &Path, archive: &str) -> PathBuf {
    let gz = std::fs::read(ibdscope_testkit::fixtures().join(format!("{archive}.tar.gz")))
        .unwrap_or_else(|e| panic!("fixtures/{archive}.tar.gz: {e}"));
    let mut tar = Vec::new();
    ibdscope_codec::inflate::inflate_raw(ibdscope_testkit::gzip_deflate(&gz), &mut tar, 1 << 30)
        .expect("inflate");
    let dir = scratch.join(archive.replace('/', "-"));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, bytes) in ibdscope_testkit::tar_members(&tar) {
        let out = dir.join(&path);
        std::fs::create_dir_all(out.parent().expect("parent")).expect("mkdir");
        std::fs::write(&out, bytes).expect("write");
    }
    dir
}
