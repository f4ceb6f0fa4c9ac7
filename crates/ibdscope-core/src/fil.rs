//! FIL header and trailer: the 38 bytes that open and the 8 bytes that close
//! every page (storage/innobase/include/fil0types.h, MySQL 8.0; MariaDB
//! storage/innobase/include/fil0fil.h for the full_crc32 trailer).
//!
//! | offset | size | field                          |
//! |-------:|-----:|--------------------------------|
//! |      0 |    4 | FIL_PAGE_SPACE_OR_CHKSUM       |
//! |      4 |    4 | FIL_PAGE_OFFSET (page number)  |
//! |      8 |    4 | FIL_PAGE_PREV                  |
//! |     12 |    4 | FIL_PAGE_NEXT                  |
//! |     16 |    8 | FIL_PAGE_LSN                   |
//! |     24 |    2 | FIL_PAGE_TYPE                  |
//! |     26 |    8 | FIL_PAGE_FILE_FLUSH_LSN        |
//! |     34 |    4 | FIL_PAGE_SPACE_ID              |
//!
//! Trailer of a page of `size` bytes, in every format but full_crc32 and
//! ROW_FORMAT=COMPRESSED: at `size - 8` the old-style checksum (4 bytes),
//! at `size - 4` the low 32 bits of FIL_PAGE_LSN. MariaDB full_crc32 puts
//! the low 32 LSN bits at `size - 8` and a CRC-32C of all bytes before it at
//! `size - 4`. ROW_FORMAT=COMPRESSED pages have no trailer.
//!
//! Traps: in MariaDB, bytes 26..30 hold the encryption key version on
//! encrypted pages (FIL_PAGE_FILE_FLUSH_LSN_OR_KEY_VERSION), and in
//! full_crc32 bytes 0..4 hold the key version (FIL_PAGE_FCRC32_KEY_VERSION),
//! not a checksum. FIL_PAGE_TYPE is trustworthy only in pages written by
//! 5.1.7 and later (older servers left it unset on some pages).

use crate::bytes::{be_u16_at, be_u32, be_u32_at, be_u64_at};
use crate::ids::{Lsn, PageNo, SpaceId};
use crate::page_type::PageType;

/// Checksum (or, before 4.0.14, space id; in full_crc32, key version).
pub const FIL_PAGE_SPACE_OR_CHKSUM: usize = 0;
/// Page number of this page.
pub const FIL_PAGE_OFFSET: usize = 4;
/// Previous page at the same B-tree level, or FIL_NULL.
pub const FIL_PAGE_PREV: usize = 8;
/// Next page at the same B-tree level, or FIL_NULL.
pub const FIL_PAGE_NEXT: usize = 12;
/// LSN of the last modification of this page.
pub const FIL_PAGE_LSN: usize = 16;
/// Page type.
pub const FIL_PAGE_TYPE: usize = 24;
/// Flush LSN (page 0 of the system tablespace) or MariaDB key version.
pub const FIL_PAGE_FILE_FLUSH_LSN: usize = 26;
/// Space id.
pub const FIL_PAGE_SPACE_ID: usize = 34;
/// Start of page data: the FIL header size.
pub const FIL_PAGE_DATA: usize = 38;
/// Size of the trailer: old checksum plus low 32 bits of the LSN.
pub(crate) const FIL_PAGE_DATA_END: usize = 8;
/// Distance from the page end of the old-style checksum.
pub const FIL_PAGE_END_LSN_OLD_CHKSUM: usize = 8;
/// full_crc32: distance from the page end of the CRC-32C.
pub(crate) const FIL_PAGE_FCRC32_CHECKSUM: usize = 4;
/// full_crc32: distance from the page end of the low 32 LSN bits.
pub(crate) const FIL_PAGE_FCRC32_END_LSN: usize = 8;
/// MySQL 8 encrypted and transparently compressed pages keep their original
/// type here (fil0types.h FIL_PAGE_ORIGINAL_TYPE_V1, inside the
/// FIL_PAGE_FILE_FLUSH_LSN field).
pub(crate) const FIL_PAGE_ORIGINAL_TYPE_V1: usize = 28;

/// A view of the FIL header of one page. Length-checked once in [`Self::new`].
#[derive(Clone, Copy, Debug)]
pub struct FilHeader<'a>(&'a [u8; FIL_PAGE_DATA]);

impl<'a> FilHeader<'a> {
    /// The header of `page`, or `None` if it is shorter than 38 bytes.
    pub fn new(page: &'a [u8]) -> Option<Self> {
        page.first_chunk().map(Self)
    }
    /// FIL_PAGE_SPACE_OR_CHKSUM as stored.
    pub fn checksum(&self) -> u32 {
        be_u32_at(self.0, FIL_PAGE_SPACE_OR_CHKSUM)
    }
    /// FIL_PAGE_OFFSET: the page number the page claims.
    pub fn page_no(&self) -> PageNo {
        PageNo(be_u32_at(self.0, FIL_PAGE_OFFSET))
    }
    /// FIL_PAGE_PREV.
    pub fn prev(&self) -> PageNo {
        PageNo(be_u32_at(self.0, FIL_PAGE_PREV))
    }
    /// FIL_PAGE_NEXT.
    pub fn next(&self) -> PageNo {
        PageNo(be_u32_at(self.0, FIL_PAGE_NEXT))
    }
    /// FIL_PAGE_LSN.
    pub fn lsn(&self) -> Lsn {
        Lsn(be_u64_at(self.0, FIL_PAGE_LSN))
    }
    /// FIL_PAGE_TYPE.
    pub fn page_type(&self) -> PageType {
        PageType(be_u16_at(self.0, FIL_PAGE_TYPE))
    }
    /// FIL_PAGE_FILE_FLUSH_LSN (or MariaDB key version in its high 4 bytes).
    pub fn flush_lsn(&self) -> Lsn {
        Lsn(be_u64_at(self.0, FIL_PAGE_FILE_FLUSH_LSN))
    }
    /// The 4 bytes at FIL_PAGE_FILE_FLUSH_LSN_OR_KEY_VERSION (MariaDB).
    pub fn key_version(&self) -> u32 {
        be_u32_at(self.0, FIL_PAGE_FILE_FLUSH_LSN)
    }
    /// The original page type saved by MySQL 8 page encryption.
    pub fn original_type(&self) -> PageType {
        PageType(be_u16_at(self.0, FIL_PAGE_ORIGINAL_TYPE_V1))
    }
    /// FIL_PAGE_SPACE_ID.
    pub fn space_id(&self) -> SpaceId {
        SpaceId(be_u32_at(self.0, FIL_PAGE_SPACE_ID))
    }
}

/// The 8-byte trailer of an uncompressed page, read as the classic layout
/// (old checksum, LSN low bits). `None` for a page shorter than 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilTrailer {
    /// Bytes `size-8..size-4`: old checksum (full_crc32: LSN low 32 bits).
    pub first: u32,
    /// Bytes `size-4..size`: LSN low 32 bits (full_crc32: CRC-32C).
    pub second: u32,
}

impl FilTrailer {
    /// Reads the trailer of `page`.
    pub fn new(page: &[u8]) -> Option<Self> {
        let at = page.len().checked_sub(FIL_PAGE_DATA_END)?;
        Some(FilTrailer {
            first: be_u32(page, at)?,
            second: be_u32(page, at.checked_add(4)?)?,
        })
    }
}
