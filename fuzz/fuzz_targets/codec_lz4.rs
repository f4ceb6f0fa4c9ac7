//! The page_compressed provider decoder for lz4: arbitrary bytes as
//! one LZ4 block (`codec::lz4`). It may not panic, may not
//! produce more than its limit, reports the bytes it produced on success
//! and an input offset within the input on failure, and gives the same
//! answer with decoder tables reused from an earlier call.
//!
//! The checks and the input's framing: `codec_common.rs`.

#![no_main]

#[path = "codec_common.rs"]
mod common;

use ibdscope_codec as codec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    common::check(input, |data, out, limit, _scratch| {
        codec::lz4::decompress(data, out, limit)
    });
});
