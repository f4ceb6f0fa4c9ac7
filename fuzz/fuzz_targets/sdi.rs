//! Arbitrary bytes through the SDI path: the zlib decoder and the JSON
//! reader on the raw input, then the whole-space SDI walk (root on page 0,
//! tree, off-page chains, inflate) on the input read as a tablespace.
//! None may panic; inflate must never produce more than its limit.

#![no_main]

use ibdscope_core::inflate::{inflate_raw, inflate_zlib};
use ibdscope_schema::sdi::{sdi_json, Sdi};
use ibdscope_core::Tablespace;
use ibdscope_prims::json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut out = Vec::new();
    let _ = inflate_zlib(data, &mut out, 1 << 16);
    assert!(out.len() <= 1 << 16);
    out.clear();
    let _ = inflate_raw(data, &mut out, 1 << 16);
    assert!(out.len() <= 1 << 16);
    let _ = json::parse(data);
    if let Ok(ts) = Tablespace::new(data) {
        let sdi = Sdi::read(&ts);
        let (mut z, mut doc) = (Vec::new(), Vec::new());
        for r in sdi.records.iter().take(64) {
            if sdi_json(&ts, r, &mut z, &mut doc).is_ok() {
                let _ = json::parse(&doc);
            }
        }
    }
});
