//! Big-endian reads. InnoDB stores every integer most significant byte first
//! (`mach_read_from_N` in storage/innobase/include/mach0data.ic).
//!
//! Each reader returns `None` when the bytes are not there, so that callers
//! reading offsets found in the file cannot go past the end.

/// Reads `N` bytes at `offset`.
#[inline]
pub fn array<const N: usize>(buf: &[u8], offset: usize) -> Option<[u8; N]> {
    let end = offset.checked_add(N)?;
    buf.get(offset..end)?.try_into().ok()
}

/// Reads a big-endian `u16` at `offset`.
#[inline]
pub fn be_u16(buf: &[u8], offset: usize) -> Option<u16> {
    array(buf, offset).map(u16::from_be_bytes)
}

/// Reads a big-endian `u32` at `offset`.
#[inline]
pub fn be_u32(buf: &[u8], offset: usize) -> Option<u32> {
    array(buf, offset).map(u32::from_be_bytes)
}

/// Reads a big-endian `u64` at `offset`.
#[inline]
pub fn be_u64(buf: &[u8], offset: usize) -> Option<u64> {
    array(buf, offset).map(u64::from_be_bytes)
}

/// Reads a big-endian `u32` from a fixed-size array at a constant offset.
/// A constant past the array would read 0; every caller's offsets are
/// InnoDB constants inside the array, and unit tests read each field.
#[inline]
pub fn be_u32_at<const N: usize>(buf: &[u8; N], offset: usize) -> u32 {
    be_u32(buf, offset).unwrap_or(0)
}

/// Reads a big-endian `u64` from a fixed-size array (see [`be_u32_at`]).
#[inline]
pub fn be_u64_at<const N: usize>(buf: &[u8; N], offset: usize) -> u64 {
    be_u64(buf, offset).unwrap_or(0)
}

/// Reads a big-endian `u16` from a fixed-size array (see [`be_u32_at`]).
#[inline]
pub fn be_u16_at<const N: usize>(buf: &[u8; N], offset: usize) -> u16 {
    be_u16(buf, offset).unwrap_or(0)
}

/// True when every byte is zero. Blocks of 64 bytes are OR-ed together
/// (the compiler makes that vector code) and tested once per block: a
/// never-written page is read at memory speed, not a word at a time.
#[inline]
pub fn is_zeroes(buf: &[u8]) -> bool {
    let (blocks, rest) = buf.as_chunks::<64>();
    blocks
        .iter()
        .all(|b| b.iter().fold(0u8, |acc, &x| acc | x) == 0)
        && rest.iter().all(|&b| b == 0)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
mod tests {
    use super::*;

    #[test]
    fn zeroes_found_and_any_set_byte_seen() {
        let mut buf = vec![0u8; 300];
        for len in [0, 1, 63, 64, 65, 128, 200, 300] {
            assert!(is_zeroes(&buf[..len]));
        }
        for at in [0, 7, 63, 64, 127, 128, 255, 256, 299] {
            buf[at] = 0x10;
            assert!(!is_zeroes(&buf), "byte {at}");
            assert!(is_zeroes(&buf[..at]), "before byte {at}");
            buf[at] = 0;
        }
    }
}
