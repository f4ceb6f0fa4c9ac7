//! Clearing key material so that the compiler cannot drop the writes.

/// Overwrites `buf` with zeros through volatile writes, which the compiler
/// may not elide even when `buf` is never read again (a plain `fill(0)`
/// before a drop may be removed as a dead store). Used for round keys,
/// tablespace keys and key file bytes.
pub fn wipe(buf: &mut [u8]) {
    // Whole 32-byte words first (a decrypted image is as large as the
    // file: a byte at a time cost a tenth of `indexes --key-file`), then
    // the tail byte by byte.
    let mut words = buf.chunks_exact_mut(32);
    for w in &mut words {
        if let Ok(w) = <&mut [u8; 32]>::try_from(w) {
            #[allow(
                unsafe_code,
                reason = "a volatile write through a unique reference; see the SAFETY note"
            )]
            // SAFETY: `w` is a unique, live `&mut [u8; 32]` (alignment 1);
            // writing an array through it is what an assignment does, only
            // volatile.
            unsafe {
                core::ptr::write_volatile(w, [0u8; 32]);
            }
        }
    }
    for b in words.into_remainder() {
        #[allow(
            unsafe_code,
            reason = "a volatile write through a unique reference; see the SAFETY note"
        )]
        // SAFETY: `b` is a unique, aligned, live `&mut u8`; writing a `u8`
        // through it is what a plain assignment does, only volatile.
        unsafe {
            core::ptr::write_volatile(b, 0);
        }
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    #[test]
    fn wipe_clears_every_byte() {
        let mut k = [0xA5u8; 37];
        super::wipe(&mut k);
        assert!(k.iter().all(|&b| b == 0));
    }
}
