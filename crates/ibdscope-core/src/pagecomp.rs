//! MariaDB page compression (`PAGE_COMPRESSED=1`): each page compressed in
//! place, and the logical image of a whole space that the structure code
//! reads as a normal tablespace.
//!
//! Sources: MariaDB 10.11 `storage/innobase/fil/fil0pagecompress.cc`
//! (`fil_page_compress_for_full_crc32`, `fil_page_compress_for_non_full_crc32`,
//! `fil_page_decompress_low`, `fil_page_decompress_for_full_crc32`,
//! `fil_page_decompress_for_non_full_crc32`), `include/fil0fil.h`
//! (`FIL_PAGE_COMP_ALGO`, `FIL_PAGE_COMP_SIZE`, `FIL_PAGE_COMP_METADATA_LEN`,
//! `FIL_PAGE_ENCRYPT_COMP_ALGO`, `fil_space_t::full_crc32_page_compressed_len`),
//! `include/fsp0types.h` (`PAGE_*_ALGORITHM`), `buf/buf0buf.cc`
//! (`buf_page_full_crc32_size`), `buf/buf0flu.cc`
//! (`buf_flush_assign_full_crc32_checksum`).
//!
//! Outside full_crc32 (type 34354 `FIL_PAGE_PAGE_COMPRESSED`, 37401
//! `FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED`):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! |      0 |    4 | `BUF_NO_CHECKSUM_MAGIC` 0xDEADBEEF (the server refuses anything else) |
//! |      4 |   20 | page number, prev, next, LSN: the original page's |
//! |     24 |    2 | 34354 (or 37401) |
//! |     26 |    8 | `FIL_PAGE_COMP_ALGO`: the algorithm, big-endian (first 6 bytes 0); on 37401 key version and checksum |
//! |     34 |    4 | space id |
//! |     38 |    2 | `FIL_PAGE_COMP_SIZE`: payload bytes |
//! |     40 |    2 | 37401 only: the algorithm |
//! | 40 (42) | size | payload: the whole original page, compressed; zeros to the block size |
//!
//! full_crc32 (bit 15 of FIL_PAGE_TYPE set):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! |      0 |   24 | key version (0 unless encrypted), page number, prev, next, LSN: the original page's |
//! |     24 |    2 | bit 15 marker, bits 0..14: the stored size / 256 (payload + 26 + 4, rounded up to 256) |
//! |     26 |    … | payload: the whole original page, compressed with the algorithm of FSP flags bits 5..7 |
//! | size − 5 | 1 | lz4, lzo, snappy only: the exact payload end (`full_crc32_page_compressed_len`): `(payload + 26 + 5) mod 256`; 0 means size − 5 |
//! | size − 4 | 4 | CRC-32C of bytes 0..size − 4 |
//!
//! What the decoder is given, as `fil_page_decompress_low` gives it: outside
//! full_crc32 exactly `FIL_PAGE_COMP_SIZE` bytes; under full_crc32 the exact
//! payload for lz4, lzo and snappy (their decoders need the end), and for
//! zlib, lzma and bzip2 everything from byte 26 to the stored size, padding
//! and checksum included (their streams end themselves). Every algorithm
//! must give back exactly one page. The decoders are `ibdscope_codec::inflate`
//! (zlib) and the other modules of `ibdscope_codec`.
//!
//! The decompressed page is the page as it was in the buffer pool, so its
//! FIL header is the original one (its own type, bytes 26..38). The server
//! compresses FIL_PAGE_TYPE_ALLOCATED (0), FSP_HDR and XDES pages never, so
//! page 0 and every XDES page are always plain.
//!
//! Checksums on the image. `pages` and `lsn` report the physical page (for
//! full_crc32 its CRC-32C over the compressed bytes; outside full_crc32 no
//! checksum: `Unverifiable::PageCompressed`); the one-pass summary behind
//! `check`, `types` and `info` verifies a page outside full_crc32 after
//! decompressing it (every algorithm), as the server does, and under
//! full_crc32 decompresses every compressed page whose CRC-32C verifies
//! ([`crate::summary::SummaryFold::add`]). On the
//! image the checksum fields are whatever the original page held: outside
//! full_crc32 the server computed the page's crc32 before compressing, so
//! an image page verifies; under full_crc32 the CRC-32C is computed only for
//! uncompressed pages (`buf_flush_assign_full_crc32_checksum`), so the
//! decompressed page's checksum field is stale (0 in the fixtures). Nothing
//! that reads the image looks at checksums: the structure code reads FIL
//! headers and bodies only ([`crate::flst::page_readable`] asks for no
//! checksum on a page whose key version is 0), and the image is opened with
//! the physical space's detection (`Tablespace::with_source`), never
//! detected again. So a stale checksum field cannot make a page corrupt for
//! the structure commands; damage to a compressed page shows up as a
//! decompression failure (an [`Expansion::failures`] entry with its byte
//! offset) and that page keeps its physical bytes in the image, where the
//! structure code sees a page_compressed type and skips it as unreadable.
//!
//! Memory: the image is one logical copy of the file, allocated once; the
//! decoder's output buffer is one page per shard.

use crate::bytes::{be_u16, be_u32, be_u64};
use crate::checksum::{Scheme, BUF_NO_CHECKSUM_MAGIC};
use crate::error::{Error, ErrorKind};
use crate::fil::{FIL_PAGE_DATA, FIL_PAGE_FILE_FLUSH_LSN, FIL_PAGE_TYPE};
use crate::ids::PageNo;
use crate::page_type::PageType;
use crate::parallel::Engine;
use crate::source::{PageSource, Scratch as SourceScratch, Transform};
use crate::space::Tablespace;
use ibdscope_codec as codec;
use ibdscope_codec::inflate::inflate_zlib;
/// The types of the decoders that this module's API carries (the decoders
/// themselves are the internal crate `ibdscope-codec`).
pub use ibdscope_codec::{inflate::InflateErrorKind, CodecErrorKind, PageOut, Scratch};

/// `FIL_PAGE_COMP_ALGO`: where the payload starts in full_crc32, and the
/// 8-byte algorithm field outside it.
pub(crate) const FIL_PAGE_COMP_ALGO: usize = FIL_PAGE_FILE_FLUSH_LSN;
/// `FIL_PAGE_DATA + FIL_PAGE_COMP_SIZE`: the payload size outside
/// full_crc32 (2 bytes).
pub const FIL_PAGE_COMP_SIZE: usize = FIL_PAGE_DATA;
/// `FIL_PAGE_COMP_METADATA_LEN`: bytes after FIL_PAGE_DATA before the
/// payload (not encrypted).
pub(crate) const FIL_PAGE_COMP_METADATA_LEN: usize = 2;
/// `FIL_PAGE_DATA + FIL_PAGE_ENCRYPT_COMP_ALGO`: the algorithm of an
/// encrypted page_compressed page outside full_crc32.
pub const FIL_PAGE_ENCRYPT_COMP_ALGO: usize = FIL_PAGE_DATA + 2;
/// `FIL_PAGE_ENCRYPT_COMP_METADATA_LEN`.
pub const FIL_PAGE_ENCRYPT_COMP_METADATA_LEN: usize = 4;
/// full_crc32: bytes of the trailing CRC-32C.
const FCRC32_CHECKSUM: usize = 4;

/// A page compression algorithm (defined with the crate's error, whose
/// page_compressed kinds name it).
pub use crate::error::Algorithm;

/// How a space marks its compressed pages: fixed by its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Not full_crc32: page types 34354 and 37401, the algorithm in the page.
    Classic,
    /// full_crc32: FIL_PAGE_TYPE bit 15; the algorithm from FSP flags bits
    /// 5..7 (0: the flags say the space is not page_compressed).
    FullCrc32 {
        /// `FSP_FLAGS_FCRC32_GET_COMPRESSED_ALGO`.
        algorithm: u8,
    },
}

impl Layout {
    /// The layout of `ts`'s pages.
    pub fn of(ts: &Tablespace<'_>) -> Self {
        match ts.scheme() {
            Scheme::FullCrc32 => Layout::FullCrc32 {
                algorithm: ts.format().compression_algorithm,
            },
            Scheme::Classic | Scheme::Zip => Layout::Classic,
        }
    }

    /// Whether `page` is a page_compressed page in this layout (its type
    /// says so; nothing else is read).
    pub fn is_compressed(self, page: &[u8]) -> bool {
        let t = be_u16(page, FIL_PAGE_TYPE).map(PageType);
        match self {
            Layout::Classic => matches!(
                t,
                Some(
                    PageType::FIL_PAGE_PAGE_COMPRESSED
                        | PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED
                )
            ),
            Layout::FullCrc32 { .. } => {
                t.is_some_and(|t| t.0 & PageType::FCRC32_COMPRESSED_MARKER != 0)
            }
        }
    }
}

/// What decompressing one page found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Decoded {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Where the payload starts in the physical page.
    pub header: usize,
    /// The payload bytes the page states (full_crc32: the stored size less
    /// the header, padding and checksum included, as the server passes it).
    pub payload: usize,
}

/// Why a page_compressed page was not decompressed (defined with the
/// crate's error).
pub use crate::error::PageCompErrorKind;

/// The page's kind of a decoder's failure on a stream of algorithm `a`.
fn stream_kind(a: Algorithm, k: codec::ErrorKind) -> PageCompErrorKind {
    match k {
        codec::ErrorKind::Inflate(k) => PageCompErrorKind::Inflate(k),
        codec::ErrorKind::Stream(k) => PageCompErrorKind::Codec(a, k),
        _ => PageCompErrorKind::Codec(a, CodecErrorKind::BadData),
    }
}

fn fail(kind: PageCompErrorKind, offset: usize) -> Error {
    Error::in_page(ErrorKind::PageComp(kind), offset)
}

/// Decompresses `page` into `out` (cleared first; on success it holds
/// exactly `page.len()` bytes, never more). `Ok(None)`: the page is not
/// page_compressed in `layout` (`out` is left empty). The decoder is
/// bounded by the page size whatever the payload says. Tables the decoders
/// need are allocated for this call: [`decompress_with`] reuses them.
pub fn decompress(
    page: &[u8],
    layout: Layout,
    out: &mut Vec<u8>,
) -> Result<Option<Decoded>, Error> {
    let mut page_out = PageOut::new();
    let r = decompress_with(page, layout, &mut page_out, &mut Scratch::new());
    out.clear();
    out.extend_from_slice(page_out.bytes());
    r
}

/// [`decompress`] with the decoders' tables kept in `scratch` and the
/// output buffer `out` kept from page to page (it is not zero-filled
/// again: the decoders write every byte of the page they give back).
pub(crate) fn decompress_with(
    page: &[u8],
    layout: Layout,
    out: &mut PageOut,
    scratch: &mut Scratch,
) -> Result<Option<Decoded>, Error> {
    out.clear();
    if !layout.is_compressed(page) {
        return Ok(None);
    }
    let (algorithm, header, payload) = match layout {
        Layout::Classic => classic_header(page)?,
        Layout::FullCrc32 { algorithm } => full_crc32_header(page, algorithm)?,
    };
    let len = page.len();
    let end = header.saturating_add(payload);
    let input = page.get(header..end).unwrap_or(&[]);
    let at = |o: usize| header.saturating_add(o);
    let res = match algorithm {
        Algorithm::Zlib => inflate_zlib(input, out, len)
            .map(|_| ())
            .map_err(|e| fail(stream_kind(Algorithm::Zlib, e.kind), at(e.offset))),
        a => {
            let r = match a {
                Algorithm::Lz4 => codec::lz4::decompress(input, out, len),
                Algorithm::Lzo => codec::lzo::decompress(input, out, len),
                Algorithm::Lzma => {
                    out.with_vec(|v| codec::lzma::decompress_xz(input, v, len, scratch))
                }
                Algorithm::Bzip2 => {
                    out.with_vec(|v| codec::bzip2::decompress(input, v, len, scratch))
                }
                _ => codec::snappy::decompress(input, out, len),
            };
            r.map(|_| ())
                .map_err(|e| fail(stream_kind(a, e.kind), at(e.offset)))
        }
    };
    match res {
        Ok(()) if out.bytes().len() == len => Ok(Some(Decoded {
            algorithm,
            header,
            payload,
        })),
        Ok(()) => {
            let got = out.bytes().len();
            out.clear();
            Err(fail(PageCompErrorKind::ShortPage { got }, end))
        }
        Err(e) => {
            out.clear();
            Err(e)
        }
    }
}

/// Outside full_crc32 (`fil_page_decompress_for_non_full_crc32`): the
/// algorithm, where the payload starts and its length.
fn classic_header(page: &[u8]) -> Result<(Algorithm, usize, usize), Error> {
    let t = be_u16(page, FIL_PAGE_TYPE).map(PageType);
    if t == Some(PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED) {
        return Err(fail(PageCompErrorKind::Encrypted, FIL_PAGE_TYPE));
    }
    let magic = be_u32(page, 0).unwrap_or(0);
    if magic != BUF_NO_CHECKSUM_MAGIC {
        return Err(fail(PageCompErrorKind::NoChecksumMagic { found: magic }, 0));
    }
    let field = be_u64(page, FIL_PAGE_COMP_ALGO).unwrap_or(0);
    if field >> 16 != 0 {
        return Err(fail(PageCompErrorKind::AlgorithmField, FIL_PAGE_COMP_ALGO));
    }
    let algorithm = Algorithm::from_number(field);
    let header = FIL_PAGE_DATA.saturating_add(FIL_PAGE_COMP_METADATA_LEN);
    let size = usize::from(be_u16(page, FIL_PAGE_COMP_SIZE).unwrap_or(0));
    if let Algorithm::Other(_) = algorithm {
        return Err(fail(
            PageCompErrorKind::NotDecoded(algorithm),
            FIL_PAGE_COMP_ALGO.saturating_add(6),
        ));
    }
    if size == 0 || size > page.len().saturating_sub(header) {
        return Err(fail(
            PageCompErrorKind::PayloadSize { size },
            FIL_PAGE_COMP_SIZE,
        ));
    }
    Ok((algorithm, header, size))
}

/// full_crc32 (`fil_page_decompress_for_full_crc32`): the algorithm of the
/// flags, the payload from byte 26, and its length: exact for lz4, lzo and
/// snappy (the byte at size − 5), otherwise up to the stored size.
fn full_crc32_header(page: &[u8], algo: u8) -> Result<(Algorithm, usize, usize), Error> {
    if be_u32(page, 0).unwrap_or(0) != 0 {
        return Err(fail(PageCompErrorKind::Encrypted, 0));
    }
    let algorithm = Algorithm::from_number(u64::from(algo));
    if let Algorithm::Other(_) = algorithm {
        return Err(fail(
            PageCompErrorKind::NotDecoded(algorithm),
            FIL_PAGE_TYPE,
        ));
    }
    let t = be_u16(page, FIL_PAGE_TYPE).unwrap_or(0);
    let mut size = usize::from(t & !PageType::FCRC32_COMPRESSED_MARKER) << 8;
    // buf_page_full_crc32_size: the stored size must be below the page
    // size; it covers the header and the checksum too.
    if size >= page.len() || size <= FIL_PAGE_COMP_ALGO.saturating_add(FCRC32_CHECKSUM) {
        return Err(fail(PageCompErrorKind::PayloadSize { size }, FIL_PAGE_TYPE));
    }
    if matches!(
        algorithm,
        Algorithm::Lz4 | Algorithm::Lzo | Algorithm::Snappy
    ) {
        // fil_space_t::full_crc32_page_compressed_len: the low byte of
        // the exact end, at size − 5 (0: the end is size − 5 itself).
        let at = size.saturating_sub(FCRC32_CHECKSUM.saturating_add(1));
        let lsb = usize::from(page.get(at).copied().unwrap_or(0));
        if lsb != 0 {
            size = size.saturating_add(lsb).saturating_sub(0x100);
        }
        size = size.saturating_sub(FCRC32_CHECKSUM.saturating_add(1));
        if size <= FIL_PAGE_COMP_ALGO {
            return Err(fail(PageCompErrorKind::PayloadSize { size }, at));
        }
    }
    Ok((
        algorithm,
        FIL_PAGE_COMP_ALGO,
        size.saturating_sub(FIL_PAGE_COMP_ALGO),
    ))
}

/// Whether `ts` needs a logical image: its flags say page_compressed, or
/// (page 0 unusable) one of its first 64 pages is typed page_compressed.
pub fn applies(ts: &Tablespace<'_>) -> bool {
    if ts.format().page_compressed {
        return true;
    }
    if ts.detection().page0_ok {
        return false;
    }
    let layout = Layout::of(ts);
    (1..ts.n_pages().min(64)).any(|n| ts.page(PageNo(n)).is_some_and(|p| layout.is_compressed(p)))
}

/// A page that is page_compressed but was not decompressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageFailure {
    /// The page.
    pub page: PageNo,
    /// Why, and where in the page.
    pub error: Error,
}

/// The logical view of a page_compressed space: every page as the server
/// would hold it in its buffer pool, where it could be decompressed, read
/// through a page source (each page decompressed as a reader reaches it;
/// no image of the file is made).
#[derive(Debug)]
#[non_exhaustive]
pub struct Expansion {
    source: PageSource,
    /// Pages decompressed.
    pub decompressed: u32,
    /// Pages marked page_compressed that were not decompressed, in page
    /// order; they read as stored.
    pub failures: Vec<PageFailure>,
}

impl Expansion {
    /// The space read decompressed, with `physical`'s detection (the space
    /// this expansion was made of): each compressed page decompressed as a
    /// reader reaches it ([`Tablespace::page_ref`], the scan engine's
    /// folds), no image made.
    pub fn tablespace<'b, 'a: 'b>(&'b self, physical: &Tablespace<'a>) -> Tablespace<'b> {
        physical.with_source(&self.source)
    }

    /// The whole logical image as one buffer, as long as the file, page
    /// for page (a torn tail as stored): a copy for tests and tools; the
    /// commands read pages through [`Expansion::tablespace`].
    pub fn image(&self, physical: &Tablespace<'_>) -> Vec<u8> {
        image_of(&self.tablespace(physical))
    }
}

/// Every page of `ts` as it reads, and its torn tail, in one buffer.
pub(crate) fn image_of(ts: &Tablespace<'_>) -> Vec<u8> {
    let mut image = Vec::with_capacity(ts.data().len());
    for n in 0..ts.n_pages() {
        match ts.page_ref(PageNo(n)) {
            Some(p) => image.extend_from_slice(&p),
            None => break,
        }
    }
    image.extend_from_slice(ts.data().get(image.len()..).unwrap_or(&[]));
    image
}

/// How a page_compressed space's pages read: decompressed when they are
/// compressed and decompress, else as stored.
struct Decompress {
    layout: Layout,
    size: usize,
}

impl Transform for Decompress {
    fn may_change(&self, _: PageNo, stored: &[u8]) -> bool {
        stored.len() == self.size && self.layout.is_compressed(stored)
    }

    fn apply(&self, _: PageNo, stored: &[u8], out: &mut [u8], scratch: &mut SourceScratch) {
        let SourceScratch { buf, codec } = scratch;
        match decompress_with(stored, self.layout, buf, codec) {
            Ok(Some(_)) if buf.bytes().len() == out.len() => out.copy_from_slice(buf.bytes()),
            _ => copy(out, stored),
        }
    }
}

/// The page source of a page_compressed space.
fn decompress_source(ts: &Tablespace<'_>) -> PageSource {
    let t = Decompress {
        layout: Layout::of(ts),
        size: (ts.page_size() as usize).max(1),
    };
    PageSource::new(Box::new(t), ts.page_size(), ts.n_pages())
}

/// What decompressing one page gave ([`decompress_with`]).
pub(crate) type Decoding = Result<Option<Decoded>, Error>;

/// One shard's result: pages decompressed, failures, and what the
/// caller of [`try_expand_with`] folds alongside.
#[derive(Default)]
pub(crate) struct ShardResult<X> {
    decompressed: u32,
    failures: Vec<PageFailure>,
    /// The index root candidates of the pages as they read.
    roots: Vec<(u16, PageNo)>,
    /// What the later passes need of each page ([`crate::facts`]).
    facts: crate::facts::FactsShard,
    extra: X,
}

/// Reads the whole space once, decompressing every page_compressed page
/// (into a buffer per thread, on `engine.threads()` threads over shards of
/// whole extents, [`crate::parallel::shard_pages`]) to count the pages
/// decompressed and name those that do not decompress; the returned
/// [`Expansion`] reads the space decompressed without an image
/// ([`Expansion::tablespace`]). The engine's image release hook, if set,
/// gets the stored pages as they are read ([`Engine::with_image_release`]).
pub fn expand(ts: &Tablespace<'_>, engine: &Engine<'_>) -> Expansion {
    let page = expand_fn(ts, |_: &mut (), _, _, _| {});
    let results = crate::parallel::transform_pass(ts, engine, new_bufs(ts), page);
    expansion(ts, results).0
}

/// [`expand`], with `also` called for every page the pass reads (not the
/// known-zero ones: the holes of a sparse file,
/// [`Tablespace::with_zero_ranges`]), in page order within a shard:
/// `also(x, page, stored bytes, decompressed)`, `decompressed` what
/// decompressing it gave (the page in the buffer; `None` for a short page,
/// not tried). One `X` per shard, in page order. `Option` for the callers
/// that allocated an image once; none is made now.
pub(crate) fn try_expand_with<X, F>(
    ts: &Tablespace<'_>,
    engine: &Engine<'_>,
    also: F,
) -> Option<(Expansion, Vec<X>)>
where
    X: Default + Send,
    F: Fn(&mut X, PageNo, &[u8], Option<(Decoding, &[u8])>) + Sync,
{
    let results = crate::parallel::transform_pass(ts, engine, new_bufs(ts), expand_fn(ts, also));
    Some(expansion(ts, results))
}

/// A thread's buffers: the page a page is decompressed into (reused from
/// page to page, never zero-filled again) and the codecs' scratch.
type Bufs = (PageOut, Scratch);

fn new_bufs(_: &Tablespace<'_>) -> impl Fn() -> Bufs + Sync {
    || (PageOut::new(), Scratch::new())
}

/// The step of the image pass for one page, `also` called after it.
fn expand_fn<'s, X, F>(
    ts: &'s Tablespace<'_>,
    also: F,
) -> impl Fn(&mut Bufs, &mut ShardResult<X>, PageNo, &[u8], &mut [u8]) + Sync + 's
where
    F: 's,
    F: Fn(&mut X, PageNo, &[u8], Option<(Decoding, &[u8])>) + Sync,
{
    let layout = Layout::of(ts);
    let size = (ts.page_size() as usize).max(1);
    move |bufs, r, page, from, _| {
        let decoded = expand_page(layout, size, bufs, r, page, from);
        // The page as it reads: the decompressed one in the thread's
        // buffer, read there (not copied), or the stored bytes.
        let reads = match decoded {
            Some(Ok(Some(_))) => bufs.0.bytes(),
            _ => from,
        };
        r.roots
            .extend(crate::extents::root_candidate(ts, page, reads));
        r.facts.page(ts, page, reads);
        also(
            &mut r.extra,
            page,
            from,
            decoded.map(|d| (d, bufs.0.bytes())),
        );
    }
}

/// The shards' results (in page order) as one expansion of `ts`, and
/// what was folded alongside, one per shard.
fn expansion<X>(ts: &Tablespace<'_>, results: Vec<ShardResult<X>>) -> (Expansion, Vec<X>) {
    let mut decompressed = 0u32;
    let mut failures = Vec::new();
    let mut extra = Vec::with_capacity(results.len());
    let mut roots = Vec::new();
    let mut facts = Vec::with_capacity(results.len());
    for mut r in results {
        decompressed = decompressed.saturating_add(r.decompressed);
        failures.append(&mut r.failures);
        roots.append(&mut r.roots);
        facts.push(r.facts);
        extra.push(r.extra);
    }
    let facts = crate::facts::Facts::join(ts.n_pages(), facts.into_iter());
    let e = Expansion {
        source: decompress_source(ts)
            .with_roots(roots)
            .with_facts(facts.map(crate::facts::Facts::boxed)),
        decompressed,
        failures,
    };
    (e, extra)
}

/// Decompresses page `page`, whose bytes are `from`, into the thread's
/// buffer when it is page_compressed (a whole page: [`decompress_with`]
/// gives back exactly one page or fails), counting it or naming its
/// failure. What decompressing gave (the page in the buffer), `None` when
/// the page was not tried (a short page).
fn expand_page(
    layout: Layout,
    size: usize,
    (buf, scratch): &mut Bufs,
    r: &mut ShardResult<impl Sized>,
    page: PageNo,
    from: &[u8],
) -> Option<Decoding> {
    let decoded = (from.len() == size).then(|| decompress_with(from, layout, buf, scratch));
    match &decoded {
        Some(Ok(Some(_))) => r.decompressed = r.decompressed.saturating_add(1),
        Some(Err(error)) => r.failures.push(PageFailure {
            page,
            error: *error,
        }),
        _ => {}
    }
    decoded
}

fn copy(to: &mut [u8], from: &[u8]) {
    if to.len() == from.len() {
        to.copy_from_slice(from);
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::panic
)]
mod tests {
    use super::*;

    fn pc(e: &Error) -> PageCompErrorKind {
        match e.kind {
            ErrorKind::PageComp(k) => k,
            k => panic!("not a page_compressed error: {k:?}"),
        }
    }
    use crate::fil::{
        FIL_PAGE_LSN, FIL_PAGE_NEXT, FIL_PAGE_OFFSET, FIL_PAGE_PREV, FIL_PAGE_SPACE_ID,
    };
    use crate::space::verify_page;
    use std::path::PathBuf;

    const FIXTURES: [&str; 2] = ["mariadb1011/pagecomp.ibd", "mariadb1011-crc32/pagecomp.ibd"];

    /// A committed fixture: missing is a failure, not a skip.
    fn read(rel: &str) -> Vec<u8> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures")
            .join(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    /// pages.tsv: the page types INNODB_BUFFER_PAGE showed (decompressed).
    fn server_types(rel: &str) -> Vec<(u32, String)> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pages.tsv");
        crate::extents::corpus_tests::tsv(&p)
            .into_iter()
            .filter(|r| r["path"] == rel)
            .map(|r| (r["page_number"].parse().unwrap(), r["page_type"].clone()))
            .collect()
    }

    #[test]
    fn every_compressed_fixture_page_decompresses_with_its_header() {
        for rel in FIXTURES {
            let data = read(rel);
            let ts = Tablespace::new(&data).unwrap();
            assert!(applies(&ts), "{rel}");
            let layout = Layout::of(&ts);
            let mut out = Vec::new();
            let mut n_compressed = 0;
            for (n, page) in ts.pages() {
                let Some(d) = decompress(page, layout, &mut out).unwrap() else {
                    assert!(out.is_empty());
                    continue;
                };
                n_compressed += 1;
                assert_eq!(d.algorithm, Algorithm::Zlib, "{rel} page {n}");
                assert_eq!(out.len(), page.len());
                // Both layouts copy page number, prev, next and LSN
                // (fil0pagecompress.cc: memcpy of the header).
                for (at, len) in [
                    (FIL_PAGE_OFFSET, 4),
                    (FIL_PAGE_PREV, 4),
                    (FIL_PAGE_NEXT, 4),
                    (FIL_PAGE_LSN, 8),
                ] {
                    assert_eq!(
                        out[at..at + len],
                        page[at..at + len],
                        "{rel} page {n} @{at}"
                    );
                }
                match layout {
                    Layout::Classic => {
                        // memcpy(out_buf, buf, FIL_PAGE_DATA) then the
                        // checksum, type and algorithm are overwritten:
                        // the space id stays.
                        assert_eq!(out[FIL_PAGE_SPACE_ID..38], page[FIL_PAGE_SPACE_ID..38]);
                        // The crc32 was computed before compression.
                        assert!(verify_page(&out, ts.scheme()).is_ok(), "{rel} page {n}");
                    }
                    Layout::FullCrc32 { .. } => {
                        // Key version 0 on both; the image's space id is
                        // the space's.
                        assert_eq!(out[0..4], page[0..4]);
                        assert_eq!(
                            u32::from_be_bytes(out[FIL_PAGE_SPACE_ID..38].try_into().unwrap()),
                            ts.space_id().0
                        );
                    }
                }
                // The decompressed type is not a compressed type, and is
                // what INNODB_BUFFER_PAGE showed for the page.
                assert!(!layout.is_compressed(&out), "{rel} page {n}");
            }
            let types = server_types(rel);
            assert!(!types.is_empty(), "{rel}: no pages.tsv rows");
            let exp = expand(&ts, &Engine::default());
            assert_eq!(exp.failures, [], "{rel}");
            assert_eq!(exp.decompressed, n_compressed, "{rel}");
            let img = exp.tablespace(&ts);
            for (page_no, name) in types {
                let t = crate::fil::FilHeader::new(img.page(PageNo(page_no)).unwrap())
                    .unwrap()
                    .page_type();
                let want = match name.as_str() {
                    "INDEX" => PageType::FIL_PAGE_INDEX,
                    "INODE" => PageType::FIL_PAGE_INODE,
                    "IBUF_BITMAP" => PageType::FIL_PAGE_IBUF_BITMAP,
                    "FILE_SPACE_HEADER" => PageType::FIL_PAGE_TYPE_FSP_HDR,
                    other => panic!("{rel}: page type {other} in pages.tsv"),
                };
                assert_eq!(t, want, "{rel} page {page_no}");
            }
            eprintln!("{rel}: {n_compressed} pages decompressed");
            assert!(n_compressed >= 15, "{rel}");
        }
    }

    #[test]
    fn expansion_is_the_same_at_every_thread_count() {
        for rel in FIXTURES {
            let data = read(rel);
            let ts = Tablespace::new(&data).unwrap();
            let one = expand(&ts, &Engine::default());
            let image = one.image(&ts);
            for threads in [2, 3, 7] {
                let e = expand(&ts, &Engine::new(threads));
                assert_eq!(e.decompressed, one.decompressed);
                assert_eq!(e.failures, one.failures);
                // Every reader sees the same pages: a fold on the engine's
                // threads, a borrow, a held page.
                let logical = e.tablespace(&ts);
                let folded = crate::source::tests::folded_image(&logical, threads);
                assert!(folded == image, "{rel} {threads}");
                for n in 0..ts.n_pages() {
                    let page = logical.page(PageNo(n)).unwrap();
                    assert!(page == &image[n as usize * 16384..][..16384], "{rel} {n}");
                }
            }
            // Compressed pages read as `decompress` gives them, the others
            // as they are stored.
            for (n, stored) in ts.pages() {
                let mut out = Vec::new();
                let want = match decompress(stored, Layout::of(&ts), &mut out) {
                    Ok(Some(_)) => &out[..],
                    _ => stored,
                };
                assert!(want == &image[n.0 as usize * 16384..][..16384], "{rel} {n}");
            }
            assert_eq!(image[..16384], data[..16384]);
            assert_eq!(image.len(), data.len());
            assert_eq!(one.tablespace(&ts).n_pages(), ts.n_pages());
        }
    }

    // The image built with the summary in the same pass (each page
    // decompressed once for both): the same image and failures as
    // `expand`, and the summary `Summary::of` makes, on any number of
    // threads, over several shards with known-zero pages the image builder
    // skips (inside the file and to its end), a page whose stream is
    // damaged and one whose algorithm no server defines.
    #[test]
    fn the_summary_made_with_the_image_is_the_summary_of_the_stored_pages() {
        let mut all: Vec<&str> = FIXTURES.to_vec();
        all.extend(PROVIDERS.iter().map(|p| p.0));
        for rel in all {
            let mut data = read(rel);
            let size = Tablespace::new(&data).unwrap().page_size() as usize;
            let layout = Layout::of(&Tablespace::new(&data).unwrap());
            let pages = data.len() / size;
            let mut out = Vec::new();
            let compressed: Vec<usize> = (1..pages)
                .filter(|&n| {
                    let p = &data[n * size..(n + 1) * size];
                    decompress(p, layout, &mut out).is_ok_and(|d| d.is_some())
                })
                .collect();
            assert!(compressed.len() >= 2, "{rel}");
            // A byte of one compressed stream changed, and another page's
            // algorithm set to a number no server defines (classic layout:
            // the algorithm is in the page).
            let d = decompress(&data[compressed[0] * size..][..size], layout, &mut out)
                .unwrap()
                .unwrap();
            data[compressed[0] * size + d.header + 40] ^= 0x55;
            if layout == Layout::Classic {
                let at = compressed[1] * size + FIL_PAGE_COMP_ALGO + 6;
                data[at..at + 2].copy_from_slice(&0x77u16.to_be_bytes());
            }
            data.resize(300 * size, 0);
            let zeros = [pages * size..140 * size, 256 * size..300 * size];
            let ts = Tablespace::new(&data).unwrap().with_zero_ranges(&zeros);
            let plain = expand(&ts, &Engine::default());
            let plain_image = plain.image(&ts);
            assert!(!plain.failures.is_empty(), "{rel}");
            for threads in [1, 2, 3] {
                let engine = Engine::new(threads);
                let want = format!("{:?}", crate::Summary::of(&ts, &engine));
                let (e, s) = crate::summary::try_expand_with_summary(&ts, &engine).unwrap();
                assert_eq!(format!("{s:?}"), want, "{rel}, {threads} threads");
                assert!(e.image(&ts) == plain_image, "{rel}, {threads} threads");
                assert_eq!(e.failures, plain.failures, "{rel}, {threads} threads");
                assert_eq!(e.decompressed, plain.decompressed, "{rel}");
            }
        }
    }

    #[test]
    fn damage_is_reported_with_offsets_and_keeps_the_physical_page() {
        for rel in FIXTURES {
            let clean = read(rel);
            let ts = Tablespace::new(&clean).unwrap();
            let layout = Layout::of(&ts);
            let mut out = Vec::new();
            // Page 5 is an INDEX leaf, compressed in both fixtures.
            let at = 5 * 16384;
            let page = &clean[at..at + 16384];
            let d = decompress(page, layout, &mut out).unwrap().unwrap();
            // A flipped byte inside the stream: an inflate error or an
            // Adler-32 mismatch, inside the payload.
            let mut bad = page.to_vec();
            bad[d.header + 100] ^= 0x55;
            let e = decompress(&bad, layout, &mut out).unwrap_err();
            assert!(
                matches!(pc(&e), PageCompErrorKind::Inflate(_)),
                "{rel}: {e}"
            );
            assert!(
                e.page_offset().unwrap() >= d.header && e.page_offset().unwrap() < 16384,
                "{rel}: {e}"
            );
            assert!(out.is_empty());
            // The zlib header.
            let mut bad = page.to_vec();
            bad[d.header] = 0;
            let e = decompress(&bad, layout, &mut out).unwrap_err();
            assert_eq!(
                pc(&e),
                PageCompErrorKind::Inflate(InflateErrorKind::BadZlibHeader)
            );
            assert_eq!(e.page_offset().unwrap(), d.header);
            // The size field.
            let mut bad = page.to_vec();
            match layout {
                Layout::Classic => {
                    bad[FIL_PAGE_COMP_SIZE..FIL_PAGE_COMP_SIZE + 2]
                        .copy_from_slice(&0xFFFFu16.to_be_bytes());
                }
                Layout::FullCrc32 { .. } => {
                    bad[FIL_PAGE_TYPE..FIL_PAGE_TYPE + 2].copy_from_slice(&0xFFFFu16.to_be_bytes());
                }
            }
            let e = decompress(&bad, layout, &mut out).unwrap_err();
            assert!(
                matches!(pc(&e), PageCompErrorKind::PayloadSize { .. }),
                "{rel}: {e}"
            );
            // A whole space with that page damaged: one failure, the
            // physical bytes kept, every other page decompressed.
            let mut data = clean.clone();
            data[at + d.header + 100] ^= 0x55;
            let ts = Tablespace::new(&data).unwrap();
            let exp = expand(&ts, &Engine::default());
            assert_eq!(exp.failures.len(), 1, "{rel}");
            assert_eq!(exp.failures[0].page, PageNo(5));
            assert_eq!(exp.image(&ts)[at..at + 16384], data[at..at + 16384]);
            assert_eq!(
                exp.decompressed,
                expand(&Tablespace::new(&clean).unwrap(), &Engine::default()).decompressed - 1
            );
            assert!(!exp.failures[0].error.to_string().is_empty());
        }
    }

    /// One table per provider (fixtures/gen/pagecomp.sh): full_crc32 with
    /// the algorithm in the FSP flags, crc32 with it in every page.
    const PROVIDERS: [(&str, Algorithm); 8] = [
        ("mariadb1011-pc/pc_lz4.ibd", Algorithm::Lz4),
        ("mariadb1011-pc/pc_lzo.ibd", Algorithm::Lzo),
        ("mariadb1011-pc/pc_lzma.ibd", Algorithm::Lzma),
        ("mariadb1011-pc/pc_bzip2.ibd", Algorithm::Bzip2),
        ("mariadb1011-pc/pc_snappy.ibd", Algorithm::Snappy),
        ("mariadb1011-pc-crc32/pc_lz4.ibd", Algorithm::Lz4),
        ("mariadb1011-pc-crc32/pc_lzma.ibd", Algorithm::Lzma),
        ("mariadb1011-pc-crc32/pc_bzip2.ibd", Algorithm::Bzip2),
    ];

    #[test]
    fn every_provider_fixture_page_decompresses() {
        let mut scratch = Scratch::new();
        for (rel, algorithm) in PROVIDERS {
            let data = read(rel);
            let ts = Tablespace::new(&data).unwrap();
            assert!(applies(&ts), "{rel}");
            let layout = Layout::of(&ts);
            let mut out = PageOut::new();
            let mut n_compressed = 0u32;
            for (n, page) in ts.pages() {
                let Some(d) = decompress_with(page, layout, &mut out, &mut scratch).unwrap() else {
                    continue;
                };
                n_compressed += 1;
                assert_eq!(d.algorithm, algorithm, "{rel} page {n}");
                assert_eq!(out.bytes().len(), page.len());
                assert_eq!(
                    out.bytes()[FIL_PAGE_OFFSET..FIL_PAGE_OFFSET + 4],
                    page[4..8]
                );
                assert_eq!(out.bytes()[FIL_PAGE_LSN..FIL_PAGE_LSN + 8], page[16..24]);
                assert!(!layout.is_compressed(out.bytes()), "{rel} page {n}");
                match layout {
                    Layout::Classic => {
                        // The algorithm is the page's own (written when
                        // the page was flushed), and the page verifies.
                        assert_eq!(
                            be_u64(page, FIL_PAGE_COMP_ALGO),
                            Some(algorithm_number(algorithm))
                        );
                        assert!(
                            verify_page(out.bytes(), ts.scheme()).is_ok(),
                            "{rel} page {n}"
                        );
                    }
                    Layout::FullCrc32 { algorithm: a } => {
                        assert_eq!(u64::from(a), algorithm_number(algorithm));
                        // lz4, lzo, snappy: the exact payload end.
                        let stored =
                            usize::from(be_u16(page, FIL_PAGE_TYPE).unwrap() & 0x7fff) << 8;
                        let exact = matches!(
                            algorithm,
                            Algorithm::Lz4 | Algorithm::Lzo | Algorithm::Snappy
                        );
                        assert_eq!(d.header + d.payload < stored - 4, exact, "{rel} page {n}");
                    }
                }
            }
            let types = server_types(rel);
            assert!(!types.is_empty(), "{rel}: no pages.tsv rows");
            let exp = expand(&ts, &Engine::new(2));
            assert_eq!(exp.failures, [], "{rel}");
            assert_eq!(exp.decompressed, n_compressed, "{rel}");
            let img = exp.tablespace(&ts);
            for (page_no, name) in types {
                let t = crate::fil::FilHeader::new(img.page(PageNo(page_no)).unwrap())
                    .unwrap()
                    .page_type();
                let want = match name.as_str() {
                    "INDEX" => PageType::FIL_PAGE_INDEX,
                    "INODE" => PageType::FIL_PAGE_INODE,
                    "IBUF_BITMAP" => PageType::FIL_PAGE_IBUF_BITMAP,
                    "FILE_SPACE_HEADER" => PageType::FIL_PAGE_TYPE_FSP_HDR,
                    other => panic!("{rel}: page type {other} in pages.tsv"),
                };
                assert_eq!(t, want, "{rel} page {page_no}");
            }
            // Every page but page 0 (FSP_HDR, never compressed) and the
            // pages never written.
            assert!(n_compressed >= 10, "{rel}: {n_compressed}");
            // The one-pass summary behind `check` verifies every page
            // that is not empty, the compressed ones after decompression.
            let sum = crate::Summary::of(&ts, &Engine::new(2));
            assert!(sum.is_clean(), "{rel}: {:?}", sum.bad);
            assert_eq!(sum.unverifiable, [], "{rel}");
            let valid: u32 = sum.algorithms.iter().map(|a| a.1).sum();
            assert_eq!(valid, ts.n_pages() - sum.empty, "{rel}");
            assert!(valid > n_compressed, "{rel}");
            // One flipped byte inside a compressed page's stream: damage
            // on that page. Outside full_crc32 the page fails to
            // decompress or its checksum fails after decompression;
            // under full_crc32 (the CRC-32C sealed again over the damage)
            // it must fail to decompress, or (lz4, lzo, snappy: a literal
            // byte) decompress into a page that differs.
            let at = 5 * 16384 + 200;
            let mut data = data.clone();
            data[at] ^= 0x5A;
            if let Layout::FullCrc32 { .. } = layout {
                let page = &mut data[5 * 16384..6 * 16384];
                let (size, _) = crate::checksum::full_crc32_size(page).unwrap();
                let c = crate::checksum::full_crc32(&page[..size]).to_be_bytes();
                page[size - 4..size].copy_from_slice(&c);
            }
            let bad = Tablespace::new(&data).unwrap();
            let sum = crate::Summary::of(&bad, &Engine::default());
            match layout {
                Layout::Classic => {
                    assert_eq!(sum.bad.len(), 1, "{rel}");
                    assert_eq!(sum.bad[0].facts.page_no, PageNo(5), "{rel}");
                }
                Layout::FullCrc32 { .. } => {
                    if sum.bad.is_empty() {
                        let mut out = Vec::new();
                        decompress(&data[5 * 16384..6 * 16384], layout, &mut out).unwrap();
                        let img = expand(&ts, &Engine::default());
                        assert_ne!(out[..], img.image(&ts)[5 * 16384..6 * 16384], "{rel}");
                    } else {
                        assert_eq!(sum.bad[0].facts.page_no, PageNo(5), "{rel}");
                    }
                }
            }
        }
    }

    fn algorithm_number(a: Algorithm) -> u64 {
        (1..=6).find(|&n| Algorithm::from_number(n) == a).unwrap()
    }

    #[test]
    fn provider_damage_is_an_error_with_an_offset_in_the_payload() {
        let mut scratch = Scratch::new();
        for (rel, algorithm) in PROVIDERS {
            let clean = read(rel);
            let ts = Tablespace::new(&clean).unwrap();
            let layout = Layout::of(&ts);
            let mut out = PageOut::new();
            for n in [3usize, 5, 10] {
                let page = &clean[n * 16384..(n + 1) * 16384];
                let d = decompress_with(page, layout, &mut out, &mut scratch)
                    .unwrap()
                    .unwrap();
                // The payload one byte short (the size field, or under
                // full_crc32 the exact-end byte; zlib-like streams end
                // themselves, so cut their stream instead).
                let mut bad = page.to_vec();
                match layout {
                    Layout::Classic => {
                        let size = be_u16(page, FIL_PAGE_COMP_SIZE).unwrap() - 1;
                        bad[FIL_PAGE_COMP_SIZE..FIL_PAGE_COMP_SIZE + 2]
                            .copy_from_slice(&size.to_be_bytes());
                    }
                    Layout::FullCrc32 { .. } => {
                        let stored =
                            usize::from(be_u16(page, FIL_PAGE_TYPE).unwrap() & 0x7fff) << 8;
                        if d.header + d.payload < stored - 4 {
                            bad[stored - 5] = bad[stored - 5].wrapping_sub(1);
                        } else {
                            bad[d.header..].fill(0);
                        }
                    }
                }
                let e = decompress_with(&bad, layout, &mut out, &mut scratch).unwrap_err();
                assert!(out.bytes().is_empty());
                assert!(
                    matches!(
                        pc(&e),
                        PageCompErrorKind::Codec(a, _) if a == algorithm
                    ) || matches!(pc(&e), PageCompErrorKind::ShortPage { .. }),
                    "{rel} page {n}: {e}"
                );
                assert!(
                    e.page_offset().unwrap() >= d.header && e.page_offset().unwrap() <= 16384,
                    "{rel}: {e}"
                );
                assert!(
                    e.to_string().contains(algorithm.name())
                        || e.to_string().contains("whole page"),
                    "{e}"
                );
                // The stream's first bytes (magic, varint, token...)
                // damaged: an error or a page that is not the original.
                let mut bad = page.to_vec();
                for b in &mut bad[d.header..d.header + 8] {
                    *b ^= 0xA5;
                }
                match decompress_with(&bad, layout, &mut out, &mut scratch) {
                    Err(e) => assert!(e.page_offset().unwrap() >= d.header, "{rel}: {e}"),
                    Ok(_) => {
                        let mut good = Vec::new();
                        decompress(page, layout, &mut good).unwrap();
                        assert_ne!(out.bytes(), &good[..], "{rel} page {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn unknown_algorithms_are_named_not_guessed() {
        let clean = read("mariadb1011-crc32/pagecomp.ibd");
        let page = &clean[5 * 16384..6 * 16384];
        let mut out = Vec::new();
        // A zlib page relabelled with another algorithm: that decoder's
        // error (or a short page), never a zlib guess.
        for n in 2u8..=6 {
            let mut p = page.to_vec();
            p[FIL_PAGE_COMP_ALGO + 7] = n;
            let a = Algorithm::from_number(n.into());
            match pc(&decompress(&p, Layout::Classic, &mut out).unwrap_err()) {
                PageCompErrorKind::Codec(b, _) => assert_eq!(a, b),
                PageCompErrorKind::ShortPage { .. } => {}
                k => panic!("{k:?}"),
            }
        }
        for n in [0u8, 7, 255] {
            let mut p = page.to_vec();
            p[FIL_PAGE_COMP_ALGO + 7] = n;
            let e = decompress(&p, Layout::Classic, &mut out).unwrap_err();
            assert_eq!(
                pc(&e),
                PageCompErrorKind::NotDecoded(Algorithm::Other(n.into()))
            );
            assert!(e.to_string().contains("not decoded"), "{e}");
            assert_eq!(e.page_offset().unwrap(), FIL_PAGE_COMP_ALGO + 6);
        }
        let mut p = page.to_vec();
        p[FIL_PAGE_COMP_ALGO] = 1;
        let e = decompress(&p, Layout::Classic, &mut out).unwrap_err();
        assert_eq!(pc(&e), PageCompErrorKind::AlgorithmField);
        // full_crc32: the algorithm is the flags'.
        let fc = read("mariadb1011/pagecomp.ibd");
        let page = &fc[5 * 16384..6 * 16384];
        let e = decompress(page, Layout::FullCrc32 { algorithm: 2 }, &mut out).unwrap_err();
        assert!(
            matches!(
                pc(&e),
                PageCompErrorKind::Codec(Algorithm::Lz4, _) | PageCompErrorKind::ShortPage { .. }
            ),
            "{e}"
        );
        let e = decompress(page, Layout::FullCrc32 { algorithm: 0 }, &mut out).unwrap_err();
        assert!(e.to_string().contains("no compression algorithm"), "{e}");
        // Encrypted pages are named as such.
        let mut p = page.to_vec();
        p[3] = 1;
        let e = decompress(&p, Layout::FullCrc32 { algorithm: 1 }, &mut out).unwrap_err();
        assert_eq!(pc(&e), PageCompErrorKind::Encrypted);
        // A page that is not compressed is not touched.
        assert_eq!(
            decompress(&fc[..16384], Layout::FullCrc32 { algorithm: 1 }, &mut out),
            Ok(None)
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut out = Vec::new();
        for len in [1024usize, 4096, 16384] {
            for round in 0..200 {
                let mut p: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect();
                if round % 2 == 0 {
                    p[FIL_PAGE_TYPE..FIL_PAGE_TYPE + 2].copy_from_slice(&34354u16.to_be_bytes());
                    p[0..4].copy_from_slice(&BUF_NO_CHECKSUM_MAGIC.to_be_bytes());
                    p[26..34].copy_from_slice(&1u64.to_be_bytes());
                    p[40] = 0x78;
                    p[41] = 0x9c;
                }
                if round % 4 == 2 {
                    p[33] = (round / 4 % 6 + 1) as u8;
                }
                let algorithm = (round % 6 + 1) as u8;
                for layout in [Layout::Classic, Layout::FullCrc32 { algorithm }] {
                    if let Ok(Some(_)) = decompress(&p, layout, &mut out) {
                        assert_eq!(out.len(), len);
                    }
                    assert!(out.len() <= len);
                }
            }
        }
    }
}
