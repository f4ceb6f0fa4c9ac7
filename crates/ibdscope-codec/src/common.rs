//! What the decoders share: the crate's error type, the reused tables
//! ([`Scratch`]), bounded copies into the output and the `.xz` CRC-32.

use std::fmt;

/// Why a decoder stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CodecErrorKind {
    /// The input ends inside the stream.
    Truncated,
    /// The stream would produce more than the limit (the page size).
    OutputLimit,
    /// A back-reference reaches before the start of the output (or is 0).
    BadDistance,
    /// A header, magic number or block marker is not what the format
    /// allows.
    BadHeader,
    /// Coded data the format does not allow (a bad Huffman table or
    /// symbol, a range coder out of step, a reserved value).
    BadData,
    /// A CRC stored in the stream does not match.
    ChecksumMismatch,
    /// The stream states a length it did not produce.
    LengthMismatch,
}

/// Why inflating stopped: the kind of an [`ErrorKind::Inflate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InflateErrorKind {
    /// The input ended inside the stream.
    Truncated,
    /// The two zlib header bytes are not a valid header (CM ≠ 8, window
    /// over 32 KiB, check bits wrong).
    BadZlibHeader,
    /// The zlib header asks for a preset dictionary; InnoDB never uses one.
    PresetDictionary,
    /// Block type 3 (reserved).
    BadBlockType,
    /// A stored block's length and its complement disagree.
    StoredLengthMismatch,
    /// The code lengths of a dynamic block do not form a usable code.
    BadCodeLengths,
    /// A bit pattern that is no code of the current table.
    BadCode,
    /// A length or distance symbol out of range (286, 287, 30, 31).
    BadSymbol,
    /// A back-reference reaches before the start of the output.
    DistanceTooFar,
    /// The output would exceed the caller's limit.
    OutputLimit,
    /// The Adler-32 after the zlib stream does not match the output.
    AdlerMismatch,
}

impl fmt::Display for InflateErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InflateErrorKind::Truncated => "compressed stream ends early",
            InflateErrorKind::BadZlibHeader => "not a zlib header",
            InflateErrorKind::PresetDictionary => "zlib stream needs a preset dictionary",
            InflateErrorKind::BadBlockType => "reserved DEFLATE block type 3",
            InflateErrorKind::StoredLengthMismatch => "stored block length check fails",
            InflateErrorKind::BadCodeLengths => "invalid Huffman code lengths",
            InflateErrorKind::BadCode => "invalid Huffman code",
            InflateErrorKind::BadSymbol => "invalid length or distance symbol",
            InflateErrorKind::DistanceTooFar => "back-reference before the start of the output",
            InflateErrorKind::OutputLimit => "output larger than allowed",
            InflateErrorKind::AdlerMismatch => "Adler-32 of the output does not match",
        })
    }
}

/// What stopped a decoder: a provider's stream (LZ4, LZO, LZMA, bzip2,
/// Snappy) or a zlib/DEFLATE stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A provider decoder stopped.
    Stream(CodecErrorKind),
    /// Inflating stopped.
    Inflate(InflateErrorKind),
}

/// The crate's one error type: a decoding failure and the byte offset in
/// the input where it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Byte offset in the input.
    pub offset: usize,
}

impl Error {
    /// A provider decoder's failure at byte `offset` of its input.
    pub(crate) fn new(kind: CodecErrorKind, offset: usize) -> Self {
        Error {
            kind: ErrorKind::Stream(kind),
            offset,
        }
    }
    /// An inflate failure at byte `offset` of its input.
    pub(crate) fn inflate(kind: InflateErrorKind, offset: usize) -> Self {
        Error {
            kind: ErrorKind::Inflate(kind),
            offset,
        }
    }
    /// The same error, `by` bytes further into an outer input.
    pub(crate) fn shifted(self, by: usize) -> Self {
        Error {
            offset: self.offset.saturating_add(by),
            ..self
        }
    }
    /// The provider kind (tests).
    #[cfg(test)]
    #[allow(clippy::panic, reason = "test helper: the wrong kind fails the test")]
    pub(crate) fn sk(&self) -> CodecErrorKind {
        match self.kind {
            ErrorKind::Stream(k) => k,
            ErrorKind::Inflate(k) => panic!("an inflate error: {k:?}"),
        }
    }
    /// The inflate kind (tests).
    #[cfg(test)]
    #[allow(clippy::panic, reason = "test helper: the wrong kind fails the test")]
    pub(crate) fn ik(&self) -> InflateErrorKind {
        match self.kind {
            ErrorKind::Inflate(k) => k,
            ErrorKind::Stream(k) => panic!("a provider error: {k:?}"),
        }
    }
}

impl fmt::Display for CodecErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CodecErrorKind::Truncated => "compressed stream ends early",
            CodecErrorKind::OutputLimit => "stream would produce more than a page",
            CodecErrorKind::BadDistance => "back-reference before the start of the output",
            CodecErrorKind::BadHeader => "bad stream header or block marker",
            CodecErrorKind::BadData => "bad coded data",
            CodecErrorKind::ChecksumMismatch => "stored CRC does not match",
            CodecErrorKind::LengthMismatch => "stated length does not match the output",
        })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Stream(k) => write!(f, "{k} (byte {})", self.offset),
            ErrorKind::Inflate(k) => write!(f, "{k} (compressed byte {})", self.offset),
        }
    }
}

impl std::error::Error for Error {}

/// Tables the decoders reuse from page to page: bzip2's inverse-BWT
/// vector and LZMA's probability model. Allocated on first use, at most
/// once per size; [`Scratch::new`] allocates nothing.
#[derive(Debug, Default)]
pub struct Scratch {
    pub(crate) bz_tt: Vec<u32>,
    pub(crate) lzma_probs: Vec<u16>,
}

impl Scratch {
    /// An empty scratch.
    pub fn new() -> Self {
        Scratch::default()
    }
}

/// Bytes a [`Sink`] keeps written past its logical end, so that copies can
/// move whole 16-byte words and stop anywhere inside the last one.
pub(crate) const SLACK: usize = 64;

/// The output window of one decoder run: a slice of the caller's
/// [`Output`] (from where the call started; what it held before is never
/// read), with [`SLACK`] bytes past
/// `end`, the limit of this run. Every write is bounds-checked (`get`);
/// a copy checks its room once ([`Sink::reserve`]) and then moves whole
/// words. The slice (not the `Vec`) is what the loops write through, so
/// its address and length stay in registers. See [`grow_run`].
pub(crate) struct Sink<'a> {
    pub(crate) buf: &'a mut [u8],
    /// Where the next byte goes.
    pub(crate) pos: usize,
    /// The logical end may not pass it (≤ `buf.len() - SLACK`).
    pub(crate) end: usize,
}

/// Where a decoder writes: appended to a `Vec<u8>` (its window
/// zero-filled as it grows, then cut to what the decoder wrote), or to a
/// [`PageOut`] reused from page to page, whose bytes are never zero-filled
/// again. The decoders write every byte they produce before they read it
/// back (a back-reference reaches only bytes already produced), so what a
/// window held before never shows in the output.
pub trait Output {
    /// The bytes held: a decoder appends after them.
    fn held(&self) -> usize;
    /// At least `n` writable bytes from `start` (≤ [`Output::held`]),
    /// initialised, whatever they hold.
    fn window(&mut self, start: usize, n: usize) -> &mut [u8];
    /// The output now ends at `end` (≤ `start + n` of the last window).
    fn end_at(&mut self, end: usize);
    /// The bytes held from `start`.
    fn held_from(&self, start: usize) -> &[u8];
}

impl Output for Vec<u8> {
    fn held(&self) -> usize {
        self.len()
    }
    fn window(&mut self, start: usize, n: usize) -> &mut [u8] {
        self.resize(start.saturating_add(n), 0);
        self.get_mut(start..).unwrap_or_default()
    }
    fn end_at(&mut self, end: usize) {
        self.truncate(end);
    }
    fn held_from(&self, start: usize) -> &[u8] {
        self.get(start..).unwrap_or(&[])
    }
}

/// A decoder's output buffer reused from page to page: its allocation
/// keeps the bytes of earlier pages past the output's end, so a page
/// decoded into it costs no zero-fill ([`Output`]).
#[derive(Debug, Default)]
pub struct PageOut {
    /// Initialised bytes; the output is the first `len`.
    buf: Vec<u8>,
    len: usize,
}

impl PageOut {
    /// An empty buffer (nothing allocated until a decoder writes).
    pub fn new() -> Self {
        PageOut::default()
    }

    /// The output: the bytes written since the last [`PageOut::clear`].
    pub fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Empties the output (the allocation and its bytes stay).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Runs `f` on the output as a `Vec<u8>` (for decoders that append
    /// to one), the bytes past the output's end dropped first.
    pub fn with_vec<R>(&mut self, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        self.buf.truncate(self.len);
        let r = f(&mut self.buf);
        self.len = self.buf.len();
        r
    }

    /// The whole allocation, past the output's end too (to wipe it).
    pub fn allocation(&mut self) -> &mut [u8] {
        &mut self.buf
    }
}

impl Output for PageOut {
    fn held(&self) -> usize {
        self.len
    }
    fn window(&mut self, start: usize, n: usize) -> &mut [u8] {
        let end = start.saturating_add(n);
        if self.buf.len() < end {
            self.buf.resize(end, 0);
        }
        self.buf.get_mut(start..end).unwrap_or_default()
    }
    fn end_at(&mut self, end: usize) {
        self.len = end.min(self.buf.len());
    }
    fn held_from(&self, start: usize) -> &[u8] {
        self.bytes().get(start..).unwrap_or(&[])
    }
}

/// Runs `decode` over a [`Sink`] appended to `out`: first sized to
/// `limit` when that is at most 256 KiB (a page), else to `hint` (at least
/// 4 KiB), and when the run stops at that size
/// with an output-limit error (`is_limit`) while `limit` allows more,
/// again from the start with four times the room. `out` then holds what
/// the last run wrote, never more than `limit` bytes, on success and on
/// error alike. A caller whose limit is the size it expects (a page)
/// decodes once.
pub(crate) fn grow_run<T, E>(
    out: &mut impl Output,
    limit: usize,
    hint: usize,
    is_limit: impl Fn(&E) -> bool,
    mut decode: impl FnMut(&mut Sink<'_>) -> Result<T, E>,
) -> Result<T, E> {
    let start = out.held();
    // A page-sized limit is the size expected: one run.
    let mut size = if limit <= 1 << 18 {
        limit
    } else {
        limit.min(hint.max(4096))
    };
    loop {
        let mut sink = Sink {
            buf: out.window(start, size.saturating_add(SLACK)),
            pos: 0,
            end: size,
        };
        let r = decode(&mut sink);
        let written = sink.pos;
        match r {
            Err(e) if is_limit(&e) && size < limit => {
                size = size.saturating_mul(4).min(limit);
            }
            r => {
                out.end_at(start.saturating_add(written.min(size)));
                return r;
            }
        }
    }
}

impl Sink<'_> {
    /// Bytes written so far.
    #[inline]
    pub(crate) fn produced(&self) -> usize {
        self.pos
    }

    /// Checks that `n` more bytes (and the slack after them) fit, or fails
    /// with `OutputLimit`.
    #[inline]
    pub(crate) fn reserve(&self, n: usize) -> Result<(), CodecErrorKind> {
        if n > self.end.saturating_sub(self.pos) {
            return Err(CodecErrorKind::OutputLimit);
        }
        Ok(())
    }

    /// Appends `lit`.
    #[inline]
    pub(crate) fn literals(&mut self, lit: &[u8]) -> Result<(), CodecErrorKind> {
        self.reserve(lit.len())?;
        let end = self.pos.saturating_add(lit.len());
        if let Some(d) = self.buf.get_mut(self.pos..end) {
            d.copy_from_slice(lit);
        }
        self.pos = end;
        Ok(())
    }

    /// Appends the first `n` bytes of `src`, which holds at least 16
    /// (`n` ≤ 16): one 16-byte move, its tail left in the slack.
    #[inline(always)]
    pub(crate) fn literals16(&mut self, src: &[u8], n: usize) -> Result<(), CodecErrorKind> {
        self.reserve(n)?;
        if let (Some(s), Some(d)) = (
            src.get(..16),
            self.buf.get_mut(self.pos..self.pos.saturating_add(16)),
        ) {
            d.copy_from_slice(s);
        }
        self.pos = self.pos.saturating_add(n);
        Ok(())
    }

    /// [`Sink::copy`] for the common short match (`len` ≤ 24, `dist` ≥ 8):
    /// three 8-byte words, each read after the one before it was written,
    /// from one slice checked once.
    #[inline(always)]
    pub(crate) fn copy_short(&mut self, dist: usize, len: usize) -> Result<(), CodecErrorKind> {
        if dist < 8 || len > 24 {
            return self.copy(dist, len);
        }
        if dist > self.pos {
            return Err(CodecErrorKind::BadDistance);
        }
        self.reserve(len)?;
        words8x3(self.buf, self.pos.wrapping_sub(dist), dist);
        self.pos = self.pos.saturating_add(len);
        Ok(())
    }

    /// Appends `len` bytes copied from `dist` bytes back (byte by byte
    /// semantics: the copy may overlap what it writes). Fails when `dist`
    /// is 0 or reaches before the start, or past the limit.
    #[inline(always)]
    pub(crate) fn copy(&mut self, dist: usize, len: usize) -> Result<(), CodecErrorKind> {
        if dist == 0 || dist > self.produced() {
            return Err(CodecErrorKind::BadDistance);
        }
        self.reserve(len)?;
        match_copy(self.buf, self.pos, dist, len);
        self.pos = self.pos.saturating_add(len);
        Ok(())
    }
}

/// Writes `len` bytes at `to` copied from `dist` bytes back (1 ≤ `dist` ≤
/// `to`; byte by byte semantics: an overlapping copy repeats the pattern),
/// in words that may run up to 15 bytes past `to + len` (into the slack).
#[inline(always)]
pub(crate) fn match_copy(buf: &mut [u8], to: usize, dist: usize, len: usize) {
    let from = to.saturating_sub(dist);
    if dist >= 16 {
        words::<16>(buf, from, to, len);
    } else if dist >= 8 {
        words::<8>(buf, from, to, len);
    } else {
        // A period under 8: the pattern built in a register (the period's
        // bytes doubled until they fill 16 bytes), then stored every `far`
        // bytes, the largest multiple of the period in 16 (at least 8): the
        // pattern repeats at every multiple of its period. No load waits on
        // a store.
        let v = buf
            .get(from..)
            .and_then(|s| s.first_chunk::<8>())
            .map_or(0, |b| u64::from_le_bytes(*b));
        let bits = (dist as u32).wrapping_mul(8);
        let mut pat = u128::from(v & (1u64 << bits).wrapping_sub(1));
        // At least 8 so that the doubling ends whatever `dist` is (its
        // callers never pass 0).
        let mut width = bits.max(8);
        while width < 128 {
            pat |= pat << width;
            width = width.wrapping_mul(2);
        }
        let pat = pat.to_le_bytes();
        // 16 − 16 mod dist, for dist 1..=7 (a table: no division).
        const FAR: [usize; 8] = [16, 16, 16, 15, 16, 15, 12, 14];
        let far = FAR.get(dist).copied().unwrap_or(16);
        let mut k = 0;
        while k < len {
            match buf
                .get_mut(to.wrapping_add(k)..)
                .and_then(|d| d.first_chunk_mut::<16>())
            {
                Some(d) => *d = pat,
                None => break,
            }
            k = k.wrapping_add(far);
        }
    }
}

/// Copies 32 bytes from `from` to `to` in `buf` as two 16-byte words,
/// no loop: the second word may read what the first wrote (an
/// overlapping copy of a distance of 16 or more). Words that do not fit in
/// `buf` are not copied (the caller's bounds checks make that unreachable).
#[inline(always)]
pub(crate) fn words16x2(buf: &mut [u8], from: usize, to: usize) {
    for k in [0usize, 16] {
        let w = buf
            .get(from.wrapping_add(k)..)
            .and_then(|s| s.first_chunk::<16>())
            .copied();
        let d = buf
            .get_mut(to.wrapping_add(k)..)
            .and_then(|d| d.first_chunk_mut::<16>());
        if let (Some(w), Some(d)) = (w, d) {
            *d = w;
        }
    }
}

/// Copies 24 bytes from `from` to `from + dist` (`dist` ≥ 8) as three
/// 8-byte words, each read after the one before it was written (so an
/// overlapping copy repeats the pattern), from one window checked once.
#[inline(always)]
pub(crate) fn words8x3(buf: &mut [u8], from: usize, dist: usize) {
    let to = from.wrapping_add(dist);
    if dist >= 24 {
        // No overlap: three 8-byte moves between the two halves (8-byte
        // loads are more often inside one earlier store, which the CPU
        // forwards, than a 16-byte one).
        if let Some((head, tail)) = buf.split_at_mut_checked(to) {
            let s = head.get(from..).and_then(|s| s.first_chunk::<24>());
            if let (Some(s), Some(d)) = (s, tail.first_chunk_mut::<24>()) {
                for k in [0usize, 8, 16] {
                    let v: Option<[u8; 8]> =
                        s.get(k..k.wrapping_add(8)).and_then(|v| v.try_into().ok());
                    if let (Some(v), Some(x)) = (v, d.get_mut(k..k.wrapping_add(8))) {
                        x.copy_from_slice(&v);
                    }
                }
            }
        }
        return;
    }
    // 8 ≤ dist < 24: the three output words computed from the `dist`
    // source bytes alone (all loaded before any store, so no load waits on
    // a store of this copy): byte i of the output is source byte i mod
    // dist. The loads and stores are inside one fixed 48-byte window (it
    // ends before to + 40, inside the slack), so no index needs a check.
    let Some(w) = buf.get_mut(from..).and_then(|w| w.first_chunk_mut::<48>()) else {
        return;
    };
    let load = |w: &[u8; 48], i: usize| {
        w.get(i..)
            .and_then(|s| s.first_chunk::<8>())
            .map_or(0, |b| u64::from_le_bytes(*b))
    };
    let (p0, p1) = (load(w, 0), load(w, 8));
    let (o1, o2) = if dist < 16 {
        // Bytes 8..dist of the source are p1's first k bytes.
        let k = (dist.wrapping_sub(8) as u32).wrapping_mul(8);
        let o1 = (p1 & (1u64 << k).wrapping_sub(1)) | (p0 << k);
        let v = u128::from(p0) | u128::from(o1) << 64;
        let o2 = (v >> (16u32.wrapping_sub(dist as u32).wrapping_mul(8))) as u64;
        (o1, o2)
    } else {
        let k = (dist.wrapping_sub(16) as u32).wrapping_mul(8);
        let o2 = (load(w, 16) & (1u64 << k).wrapping_sub(1)) | (p0 << k);
        (p1, o2)
    };
    let d = dist.min(24);
    for (i, o) in [(0usize, p0), (8, o1), (16, o2)] {
        let at = d.wrapping_add(i);
        if let Some(x) = w.get_mut(at..).and_then(|x| x.first_chunk_mut::<8>()) {
            *x = o.to_le_bytes();
        }
    }
}

/// Copies `len` bytes from `from` to `to` in `N`-byte words (`to - from`
/// ≥ `N`, so every word read is already written), the last word running up
/// to `N − 1` bytes past `to + len` (into the slack).
#[inline(always)]
pub(crate) fn words<const N: usize>(buf: &mut [u8], from: usize, to: usize, len: usize) {
    let mut k = 0;
    while k < len {
        let s = from.saturating_add(k);
        let d = to.saturating_add(k);
        let w: Option<[u8; N]> = buf
            .get(s..s.saturating_add(N))
            .and_then(|w| w.try_into().ok());
        match (w, buf.get_mut(d..d.saturating_add(N))) {
            (Some(w), Some(x)) => x.copy_from_slice(&w),
            _ => return,
        }
        k = k.saturating_add(N);
    }
}

/// Appends `len` bytes copied from `dist` bytes back in `out[start..]`
/// (byte by byte semantics: the copy may overlap what it writes). Fails
/// when `dist` is 0 or reaches before `start`, or when `out` would pass
/// `limit` bytes after `start`.
pub(crate) fn copy_match(
    out: &mut Vec<u8>,
    start: usize,
    dist: usize,
    len: usize,
    limit: usize,
) -> Result<(), CodecErrorKind> {
    let have = out.len().saturating_sub(start);
    if dist == 0 || dist > have {
        return Err(CodecErrorKind::BadDistance);
    }
    if len > limit.saturating_sub(have) {
        return Err(CodecErrorKind::OutputLimit);
    }
    let from = out.len().saturating_sub(dist);
    if dist >= len {
        out.extend_from_within(from..from.saturating_add(len));
    } else {
        // Overlapping: the pattern of `dist` bytes repeats.
        let mut left = len;
        while left > 0 {
            let n = left.min(out.len().saturating_sub(from));
            out.extend_from_within(from..from.saturating_add(n));
            left = left.saturating_sub(n);
        }
    }
    Ok(())
}

/// Appends `lit` to `out` unless that passes `limit` bytes after `start`.
pub(crate) fn push_literals(
    out: &mut Vec<u8>,
    start: usize,
    lit: &[u8],
    limit: usize,
) -> Result<(), CodecErrorKind> {
    let have = out.len().saturating_sub(start);
    if lit.len() > limit.saturating_sub(have) {
        return Err(CodecErrorKind::OutputLimit);
    }
    out.extend_from_slice(lit);
    Ok(())
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as `.xz` uses it.
pub(crate) fn crc32_ieee(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// The committed test vectors (`testdata/make.py` says which library
/// call made each).
#[cfg(test)]
pub(crate) mod tests_vectors {
    /// What every vector decodes to.
    pub(crate) const ORIGINAL: &[u8] = include_bytes!("testdata/original.bin");

    /// A committed stream of codec `name`: for zlib the longest of the
    /// vectors a real zlib made (tests/inflate_vectors.txt), else
    /// [`read_vector`]'s.
    #[allow(
        clippy::unwrap_used,
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing
    )]
    pub(crate) fn stream(name: &str) -> Vec<u8> {
        if name != "zlib" {
            return read_vector(name);
        }
        let text = include_str!("../tests/inflate_vectors.txt");
        let line = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .max_by_key(|l| l.len())
            .unwrap();
        let hex = line.split(' ').nth(2).unwrap();
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The bytes of `testdata/<name>`.
    #[allow(clippy::unwrap_used)]
    pub(crate) fn read_vector(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/testdata")
            .join(name);
        std::fs::read(&p).unwrap()
    }

    /// How a cut reference vector may decode.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Cuts {
        /// Every cut is an error.
        Error,
        /// Every cut is an error, or decodes to a shorter prefix of
        /// [`ORIGINAL`] (an LZ4 block cut right after literals is a valid
        /// shorter block).
        ErrorOrPrefix,
    }

    /// A codec's `decompress`: all of the input, appending at most the
    /// limit to the output, the bytes produced.
    pub(crate) type Decompress = fn(&[u8], &mut Vec<u8>, usize) -> Result<usize, super::Error>;

    /// Checks `decompress` against `testdata/<name>`: it decodes to
    /// [`ORIGINAL`]; appended after it with a limit one byte short, it is
    /// an `OutputLimit` error that never appends more than the limit; every
    /// cut of it is as `cuts` says. Returns the vector and the limit error.
    #[allow(
        clippy::unwrap_used,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )]
    pub(crate) fn check_reference(
        name: &str,
        decompress: Decompress,
        cuts: Cuts,
    ) -> (Vec<u8>, super::Error) {
        let v = read_vector(name);
        let mut out = Vec::new();
        assert_eq!(
            decompress(&v, &mut out, ORIGINAL.len()).unwrap(),
            ORIGINAL.len()
        );
        assert_eq!(out, ORIGINAL);
        // One byte short of the output: a limit error, never more.
        let e = decompress(&v, &mut out, ORIGINAL.len() - 1).unwrap_err();
        assert_eq!(e.sk(), super::CodecErrorKind::OutputLimit, "{name}");
        assert!(out.len() < 2 * ORIGINAL.len(), "{name}");
        assert_eq!(out[..ORIGINAL.len()], *ORIGINAL, "{name}");
        for cut in 0..v.len() {
            let mut o = Vec::new();
            match decompress(&v[..cut], &mut o, 1 << 20) {
                Err(_) => {}
                Ok(n) => assert!(
                    cuts == Cuts::ErrorOrPrefix && n < ORIGINAL.len() && o[..] == ORIGINAL[..n],
                    "{name}: cut at {cut} decodes"
                ),
            }
        }
        (v, e)
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_copies_repeat_the_pattern() {
        let mut out = b"xxab".to_vec();
        copy_match(&mut out, 2, 2, 5, 100).unwrap();
        assert_eq!(out, b"xxabababa");
        assert_eq!(
            copy_match(&mut out, 2, 8, 1, 100),
            Err(CodecErrorKind::BadDistance)
        );
        assert_eq!(
            copy_match(&mut out, 2, 0, 1, 100),
            Err(CodecErrorKind::BadDistance)
        );
        assert_eq!(
            copy_match(&mut out, 2, 1, 4, 10),
            Err(CodecErrorKind::OutputLimit)
        );
        copy_match(&mut out, 2, 1, 3, 10).unwrap();
        assert_eq!(out.len(), 12);
    }

    /// Every copy path of the sink (words of 16 and 8, the 24-byte short
    /// copy at each distance, periods under 8) gives what a byte-by-byte
    /// copy gives, and nothing past its end survives the run.
    #[test]
    fn sink_copies_are_byte_by_byte_copies() {
        let prefix: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
        for dist in 1..=64usize {
            for len in 1..=80usize {
                let mut naive = prefix.clone();
                for _ in 0..len {
                    naive.push(naive[naive.len() - dist]);
                }
                for short in [false, true] {
                    let mut out = Vec::new();
                    let r = grow_run(
                        &mut out,
                        1000,
                        1000,
                        |_: &CodecErrorKind| false,
                        |s| {
                            s.literals(&prefix)?;
                            if short {
                                s.copy_short(dist, len)?;
                            } else {
                                s.copy(dist, len)?;
                            }
                            s.literals(b"!")
                        },
                    );
                    r.unwrap();
                    naive.push(b'!');
                    assert_eq!(out, naive, "dist {dist} len {len} short {short}");
                    naive.pop();
                }
            }
        }
    }

    /// Every decoder on mutated reference vectors and on their cuts, at
    /// several limits (page sizes and one byte short of the output):
    /// never a panic, never more output than the limit, and a success
    /// reports what was appended. The fast loops (LZ4, LZO, Snappy,
    /// inflate) run on these too: the vectors are long enough.
    #[test]
    fn mutated_streams_never_panic_or_pass_the_limit() {
        use crate::common::tests_vectors::{stream, ORIGINAL};
        type Dec = fn(&[u8], &mut Vec<u8>, usize, &mut Scratch) -> Result<usize, Error>;
        let zlib: Dec = |i, o, l, _| {
            crate::inflate::inflate_zlib(i, o, l)
                .map_err(|e| Error::new(CodecErrorKind::BadData, e.offset))
        };
        let cases: [(&str, Dec); 6] = [
            ("lz4.block", |i, o, l, _| crate::lz4::decompress(i, o, l)),
            ("lzo.raw", |i, o, l, _| crate::lzo::decompress(i, o, l)),
            ("snappy.raw", |i, o, l, _| {
                crate::snappy::decompress(i, o, l)
            }),
            ("lzma-crc32.xz", crate::lzma::decompress_xz),
            ("bzip2.bz2", crate::bzip2::decompress),
            ("zlib", zlib),
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut scratch = Scratch::new();
        for (name, dec) in cases {
            let v = stream(name);
            for round in 0..400 {
                let mut w = v.clone();
                let flips = 1 + (next() % 4) as usize;
                for _ in 0..flips {
                    let at = (next() as usize) % w.len();
                    w[at] = next() as u8;
                }
                if round % 3 == 0 {
                    w.truncate((next() as usize) % w.len());
                }
                for limit in [1024, 16384, ORIGINAL.len() - 1, 65536] {
                    let mut out = vec![7u8; 5];
                    if let Ok(n) = dec(&w, &mut out, limit, &mut scratch) {
                        assert_eq!(out.len(), 5 + n, "{name} round {round}");
                    }
                    assert!(out.len() <= 5 + limit, "{name} round {round} limit {limit}");
                    assert_eq!(out[..5], [7u8; 5], "{name}: the caller's bytes kept");
                }
            }
        }
    }

    /// A [`PageOut`] reused from page to page holds the bytes of earlier
    /// pages past its output's end (it is never zero-filled again): every
    /// decoder that writes through a window must give, on the reference
    /// vectors, their mutations and cuts, the same result into such a
    /// buffer (filled with noise first) as into a fresh `Vec`.
    #[test]
    fn a_reused_output_decodes_as_a_fresh_one() {
        use crate::common::tests_vectors::stream;
        type Fresh = fn(&[u8], &mut Vec<u8>, usize) -> Result<usize, Error>;
        type Reused = fn(&[u8], &mut PageOut, usize) -> Result<usize, Error>;
        let cases: [(&str, Fresh, Reused); 4] = [
            (
                "lz4.block",
                |i, o, l| crate::lz4::decompress(i, o, l),
                |i, o, l| crate::lz4::decompress(i, o, l),
            ),
            (
                "lzo.raw",
                |i, o, l| crate::lzo::decompress(i, o, l),
                |i, o, l| crate::lzo::decompress(i, o, l),
            ),
            (
                "snappy.raw",
                |i, o, l| crate::snappy::decompress(i, o, l),
                |i, o, l| crate::snappy::decompress(i, o, l),
            ),
            (
                "zlib",
                |i, o, l| crate::inflate::inflate_zlib(i, o, l),
                |i, o, l| crate::inflate::inflate_zlib(i, o, l),
            ),
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (name, fresh, reused) in cases {
            let v = stream(name);
            let mut page = PageOut::new();
            for round in 0..600 {
                let mut w = v.clone();
                if round > 0 {
                    for _ in 0..1 + next() % 4 {
                        let at = (next() as usize) % w.len();
                        w[at] = next() as u8;
                    }
                    if round % 3 == 0 {
                        w.truncate((next() as usize) % w.len());
                    }
                }
                for limit in [16384, 65536] {
                    // Noise where the last page was (the window grows to
                    // the limit and its slack on the first round).
                    let _ = reused(&v, &mut page, limit);
                    for b in page.allocation() {
                        *b = next() as u8;
                    }
                    page.clear();
                    let mut out = Vec::new();
                    let a = fresh(&w, &mut out, limit);
                    let b = reused(&w, &mut page, limit);
                    assert_eq!(a, b, "{name} round {round} limit {limit}");
                    if a.is_ok() {
                        assert_eq!(out, page.bytes(), "{name} round {round} limit {limit}");
                    }
                }
            }
        }
    }

    #[test]
    fn crc32_of_the_check_string() {
        // The CRC-32 check value of "123456789" (the xz spec's §6 names
        // this CRC; the value is the one every CRC catalogue gives).
        assert_eq!(crc32_ieee(b"123456789"), 0xCBF4_3926);
    }
}
