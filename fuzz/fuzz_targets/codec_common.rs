//! What every provider decoder's fuzz target checks (`codec_*.rs`): the
//! decoder may not panic, may not produce more than its limit, reports the
//! bytes it produced on success and an input offset within the input on
//! failure, and gives the same answer with decoder tables reused from an
//! earlier call.
//!
//! The first input byte picks the output limit (bits 0..=1: 1K, 4K, 16K,
//! 64K, the page sizes' range); the rest is the stream.

use ibdscope_codec::{Error as CodecError, Scratch};

/// A decoder as the targets call it: stream, output, limit, tables.
pub type Decode = fn(&[u8], &mut Vec<u8>, usize, &mut Scratch) -> Result<usize, CodecError>;

pub fn check(input: &[u8], decode: Decode) {
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
}
