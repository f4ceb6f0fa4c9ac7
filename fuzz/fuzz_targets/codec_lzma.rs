//! The page_compressed provider decoder for lzma: arbitrary bytes as
//! one `.xz` stream with LZMA2 data (`codec::lzma`). It may not panic, may not
//! produce more than its limit, reports the bytes it produced on success
//! and an input offset within the input on failure, and gives the same
//! answer with decoder tables reused from an earlier call.
//!
//! The first input byte picks the output limit (bits 0..=1: 1K, 4K, 16K,
//! 64K, the page sizes' range); the rest is the stream.

#![no_main]

use ibdscope::codec::{self, CodecError, Scratch};
use libfuzzer_sys::fuzz_target;

#[allow(unused_variables)]
fn decode(
    data: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    scratch: &mut Scratch,
) -> Result<usize, CodecError> {
    codec::lzma::decompress_xz(data, out, limit, scratch)
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, data)) = input.split_first() else {
        return;
    };
    let limit = 1024usize << (2 * (ctl & 3));
    let mut scratch = Scratch::new();
    let mut out = Vec::new();
    let first = decode(data, &mut out, limit, &mut scratch);
    assert!(out.len() <= limit);
    match first {
        Ok(n) => assert_eq!(n, out.len()),
        Err(e) => {
            assert!(e.offset <= data.len(), "{e:?}");
            std::hint::black_box(e.to_string());
        }
    }
    // Again, with the tables of the first call kept.
    let mut again = Vec::new();
    let second = decode(data, &mut again, limit, &mut scratch);
    assert_eq!(first, second);
    if first.is_ok() {
        assert_eq!(out, again);
    }
});
