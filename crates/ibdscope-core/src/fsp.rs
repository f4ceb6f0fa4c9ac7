//! FSP header (page 0) and FSP flags (storage/innobase/include/fsp0fsp.h and
//! fsp0types.h in MySQL 8.0; MariaDB 10.11 fsp0types.h, fsp0fsp.h and
//! fil0fil.h for its layouts).
//!
//! The FSP header starts at FSP_HEADER_OFFSET = FIL_PAGE_DATA (38):
//!
//! | offset | size | field                |
//! |-------:|-----:|----------------------|
//! |      0 |    4 | FSP_SPACE_ID         |
//! |      4 |    4 | FSP_NOT_USED         |
//! |      8 |    4 | FSP_SIZE (pages)     |
//! |     12 |    4 | FSP_FREE_LIMIT       |
//! |     16 |    4 | FSP_SPACE_FLAGS      |
//! |     20 |    4 | FSP_FRAG_N_USED      |
//! |     24 |   16 | FSP_FREE (list base) |
//! |     40 |   16 | FSP_FREE_FRAG        |
//! |     56 |   16 | FSP_FULL_FRAG        |
//! |     72 |    8 | FSP_SEG_ID           |
//! |     80 |   16 | FSP_SEG_INODES_FULL  |
//! |     96 |   16 | FSP_SEG_INODES_FREE  |
//!
//! FSP_SPACE_FLAGS has three on-disk layouts:
//!
//! | bits  | MySQL 5.6+ / MariaDB 10.1.21+ | MariaDB 10.1.0–10.1.20 | MariaDB full_crc32 |
//! |-------|-------------------------------|------------------------|--------------------|
//! | 0     | POST_ANTELOPE                 | POST_ANTELOPE          | PAGE_SSIZE (0–3)   |
//! | 1–4   | ZIP_SSIZE (bit 4 always 0)    | ZIP_SSIZE              | bit 4: marker      |
//! | 5     | ATOMIC_BLOBS                  | ATOMIC_BLOBS           | COMPRESSED_ALGO 5–7|
//! | 6–9   | PAGE_SSIZE (0 = 16K)          | 6 PAGE_COMPRESSION, 7–10 level | —       |
//! | 10    | DATA_DIR                      |                        | —                  |
//! | 11–14 | 5.7: SHARED, TEMPORARY, ENCRYPTION; 8.0: SDI | 11–12 ATOMIC_WRITES, 13–16 PAGE_SSIZE | — |
//! | 16    | MariaDB PAGE_COMPRESSION      | 17 DATA_DIR            | —                  |
//!
//! Sizes: a PAGE_SSIZE or ZIP_SSIZE of `s` means `512 << s` bytes; PAGE_SSIZE
//! 0 means 16 KiB (UNIV_PAGE_SSIZE_ORIG), ZIP_SSIZE 0 means not compressed.
//! Files from before MySQL 5.6 (and 5.0) have flags 0: 16 KiB, Antelope.

use crate::bytes::{be_u32_at, be_u64_at};
use crate::fil::FIL_PAGE_DATA;
use crate::ids::SpaceId;

/// Offset of the FSP header in page 0.
pub const FSP_HEADER_OFFSET: usize = FIL_PAGE_DATA;
/// Space id, relative to the FSP header.
pub const FSP_SPACE_ID: usize = 0;
/// Size of the space in pages.
pub const FSP_SIZE: usize = 8;
/// Pages below this are initialised.
pub const FSP_FREE_LIMIT: usize = 12;
/// FSP_SPACE_FLAGS.
pub const FSP_SPACE_FLAGS: usize = 16;
/// Number of used pages in the FSP_FREE_FRAG list.
pub const FSP_FRAG_N_USED: usize = 20;
/// List of free extents.
pub const FSP_FREE: usize = 24;
/// List of partially free extents not in a segment.
pub const FSP_FREE_FRAG: usize = 40;
/// List of full extents not in a segment.
pub const FSP_FULL_FRAG: usize = 56;
/// The next segment id to hand out.
pub const FSP_SEG_ID: usize = 72;
/// List of full INODE pages.
pub const FSP_SEG_INODES_FULL: usize = 80;
/// List of INODE pages with free slots.
pub const FSP_SEG_INODES_FREE: usize = 96;
/// Size of the FSP header.
pub(crate) const FSP_HEADER_SIZE: usize = 112;
/// Absolute offset of FSP_SPACE_FLAGS in page 0.
pub(crate) const FSP_FLAGS_OFFSET: usize = FSP_HEADER_OFFSET + FSP_SPACE_FLAGS;

/// A view of the FSP header of page 0, length-checked once.
#[derive(Clone, Copy, Debug)]
pub struct FspHeader<'a>(&'a [u8; FSP_HEADER_SIZE]);

impl<'a> FspHeader<'a> {
    /// The FSP header of `page0`, or `None` if the page is too short.
    pub fn new(page0: &'a [u8]) -> Option<Self> {
        page0.get(FSP_HEADER_OFFSET..)?.first_chunk().map(Self)
    }
    /// FSP_SPACE_ID.
    pub fn space_id(&self) -> SpaceId {
        SpaceId(be_u32_at(self.0, FSP_SPACE_ID))
    }
    /// FSP_SIZE: the size of the space in pages, as the server last set it.
    pub fn size(&self) -> u32 {
        be_u32_at(self.0, FSP_SIZE)
    }
    /// FSP_FREE_LIMIT: pages from here on are not initialised.
    pub fn free_limit(&self) -> u32 {
        be_u32_at(self.0, FSP_FREE_LIMIT)
    }
    /// FSP_SPACE_FLAGS.
    pub fn flags(&self) -> FspFlags {
        FspFlags(be_u32_at(self.0, FSP_SPACE_FLAGS))
    }
    /// FSP_FRAG_N_USED.
    pub fn frag_n_used(&self) -> u32 {
        be_u32_at(self.0, FSP_FRAG_N_USED)
    }
    /// FSP_SEG_ID: the next segment id.
    pub fn next_seg_id(&self) -> u64 {
        be_u64_at(self.0, FSP_SEG_ID)
    }
}

/// Which layout FSP_SPACE_FLAGS was read with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FlagsLayout {
    /// MySQL 5.6+ and MariaDB 10.1.21+ outside full_crc32 (and flags 0).
    MySql,
    /// MariaDB 10.1.0 to 10.1.20 (`fsp_flags_convert_from_101`).
    MariaDb101,
    /// MariaDB 10.5+ full_crc32 (`FSP_FLAGS_FCRC32_MASK_MARKER`).
    FullCrc32,
}

/// Raw FSP_SPACE_FLAGS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FspFlags(pub u32);

/// What FSP_SPACE_FLAGS say about a space, in one layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpaceFormat {
    /// The layout the flags were read in.
    pub layout: FlagsLayout,
    /// Logical page size: the size of a page in the buffer pool.
    pub logical_size: u32,
    /// Physical page size: the size of a page in the file.
    pub physical_size: u32,
    /// ROW_FORMAT is not REDUNDANT (COMPACT, DYNAMIC or COMPRESSED).
    pub post_antelope: bool,
    /// DYNAMIC or COMPRESSED: long columns stored fully off-page.
    pub atomic_blobs: bool,
    /// Created with DATA DIRECTORY.
    pub data_dir: bool,
    /// MySQL 5.7+ general (shared) tablespace.
    pub shared: bool,
    /// MySQL 5.7+ temporary tablespace.
    pub temporary: bool,
    /// MySQL 5.7+ ENCRYPTION flag.
    pub encryption: bool,
    /// MySQL 8.0+ SDI flag: the space holds serialized dictionary info.
    pub sdi: bool,
    /// MariaDB PAGE_COMPRESSED.
    pub page_compressed: bool,
    /// MariaDB full_crc32 compression algorithm (bits 5–7), 0 = none.
    pub compression_algorithm: u8,
    /// MariaDB 10.1.0–10.1.20 PAGE_COMPRESSION_LEVEL.
    pub compression_level: Option<u8>,
}

impl SpaceFormat {
    /// True for ROW_FORMAT=COMPRESSED spaces (physical < logical).
    pub fn is_zip(&self) -> bool {
        self.physical_size < self.logical_size
    }
    /// Pages per extent, `FSP_EXTENT_SIZE` for the logical page size:
    /// 1 MiB extents up to 16K pages, 2 MiB at 32K, 4 MiB at 64K.
    pub fn extent_size(&self) -> u32 {
        extent_size(self.logical_size)
    }
}

/// `FSP_EXTENT_SIZE` for a logical page size (fsp0types.h).
pub fn extent_size(logical_size: u32) -> u32 {
    let extent_bytes: u32 = match logical_size {
        0..=16384 => 1 << 20,
        16385..=32768 => 2 << 20,
        _ => 4 << 20,
    };
    extent_bytes.checked_div(logical_size).unwrap_or(64)
}

/// Size of `512 << ssize` for a valid ssize.
fn ssize_bytes(ssize: u32, min: u32, max: u32) -> Option<u32> {
    (min..=max).contains(&ssize).then(|| 512u32 << ssize)
}

/// The logical and physical page sizes of the MySQL and MariaDB 10.1
/// layouts from their PAGE_SSIZE and ZIP_SSIZE fields (`page_ssize` 0:
/// 16 KiB; `zip_ssize` 0: not compressed, else 512 << it, at most the
/// logical size and only in a space whose rows can be compressed:
/// `compressible`, ATOMIC_BLOBS with POST_ANTELOPE), or `None` when invalid.
fn page_sizes(page_ssize: u32, zip_ssize: u32, compressible: bool) -> Option<(u32, u32)> {
    let logical = if page_ssize == 0 {
        16384
    } else {
        ssize_bytes(page_ssize, 3, 7)?
    };
    if zip_ssize == 0 {
        return Some((logical, logical));
    }
    let max = if page_ssize == 0 { 5 } else { page_ssize };
    if zip_ssize > max || !compressible {
        return None;
    }
    Some((logical, 512 << zip_ssize))
}

fn bit(flags: u32, n: u32) -> bool {
    flags >> n & 1 != 0
}

impl FspFlags {
    /// The full_crc32 marker bit.
    pub(crate) const FCRC32_MARKER: u32 = 1 << 4;

    /// Reads the flags in the MySQL 5.6+ / MariaDB 10.1.21+ layout, or `None`
    /// when they are not valid there (`fsp_flags_is_valid`).
    pub(crate) fn as_mysql(self) -> Option<SpaceFormat> {
        let f = self.0;
        // Known bits: 0..=14 (MySQL 8.0) and 16 (MariaDB PAGE_COMPRESSION).
        if f & !(0x7FFF | 1 << 16) != 0 {
            return None;
        }
        let post_antelope = bit(f, 0);
        let atomic_blobs = bit(f, 5);
        if atomic_blobs && !post_antelope {
            return None;
        }
        let (logical, physical) =
            page_sizes(f >> 6 & 0xF, f >> 1 & 0xF, post_antelope && atomic_blobs)?;
        Some(SpaceFormat {
            layout: FlagsLayout::MySql,
            logical_size: logical,
            physical_size: physical,
            post_antelope,
            atomic_blobs,
            data_dir: bit(f, 10),
            shared: bit(f, 11),
            temporary: bit(f, 12),
            encryption: bit(f, 13),
            sdi: bit(f, 14),
            page_compressed: bit(f, 16),
            compression_algorithm: 0,
            compression_level: None,
        })
    }

    /// Reads the flags in MariaDB's full_crc32 layout, or `None` without the
    /// marker or with an impossible page size.
    pub(crate) fn as_full_crc32(self) -> Option<SpaceFormat> {
        let f = self.0;
        if f & Self::FCRC32_MARKER == 0 || f >> 8 != 0 {
            return None;
        }
        let size = ssize_bytes(f & 0xF, 3, 7)?;
        let algo = (f >> 5 & 7) as u8;
        Some(SpaceFormat {
            layout: FlagsLayout::FullCrc32,
            logical_size: size,
            physical_size: size,
            // full_crc32 flags do not record the row format.
            post_antelope: false,
            atomic_blobs: false,
            data_dir: false,
            shared: false,
            temporary: false,
            encryption: false,
            sdi: false,
            page_compressed: algo != 0,
            compression_algorithm: algo,
            compression_level: None,
        })
    }

    /// Reads the flags in the MariaDB 10.1.0–10.1.20 layout
    /// (`fsp_flags_convert_from_101`), or `None` when invalid there.
    pub(crate) fn as_mariadb101(self) -> Option<SpaceFormat> {
        let f = self.0;
        if f >> 18 != 0 {
            return None;
        }
        let post_antelope = bit(f, 0);
        let atomic_blobs = bit(f, 5);
        if atomic_blobs && !post_antelope {
            return None;
        }
        let page_compressed = bit(f, 6);
        let level = (f >> 7 & 0xF) as u8;
        if level > 9 || (!page_compressed && level != 0) {
            return None;
        }
        let atomic_writes = f >> 11 & 3;
        if atomic_writes == 3 {
            return None;
        }
        let (logical, physical) =
            page_sizes(f >> 13 & 0xF, f >> 1 & 0xF, post_antelope && atomic_blobs)?;
        Some(SpaceFormat {
            layout: FlagsLayout::MariaDb101,
            logical_size: logical,
            physical_size: physical,
            post_antelope,
            atomic_blobs,
            data_dir: bit(f, 17),
            shared: false,
            temporary: false,
            encryption: false,
            sdi: false,
            page_compressed,
            compression_algorithm: 0,
            compression_level: page_compressed.then_some(level),
        })
    }

    /// Every layout these flags are valid in, most likely first.
    pub fn interpretations(self) -> impl Iterator<Item = SpaceFormat> {
        [self.as_full_crc32(), self.as_mysql(), self.as_mariadb101()]
            .into_iter()
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_flag_values_read_as_their_sources_state() {
        // Values from ../shared/corpus/MANIFEST.md.
        let mysql8 = FspFlags(0x4021).as_mysql();
        assert!(matches!(mysql8, Some(f) if f.sdi && f.atomic_blobs && f.logical_size == 16384));
        let zip = FspFlags(0x4029).as_mysql();
        assert!(matches!(zip, Some(f) if f.physical_size == 8192 && f.logical_size == 16384));
        let fcrc = FspFlags(0x15).as_full_crc32();
        assert!(matches!(fcrc, Some(f) if f.logical_size == 16384));
        // innodb_ruby's mistake: read in the MySQL layout, 0x15 is not valid.
        assert_eq!(FspFlags(0x15).as_mysql(), None);
        // MariaDB 4K and 64K full_crc32 (../shared/ENVIRONMENT.md).
        assert_eq!(
            FspFlags(0x13).as_full_crc32().map(|f| f.logical_size),
            Some(4096)
        );
        assert_eq!(
            FspFlags(0x17).as_full_crc32().map(|f| f.logical_size),
            Some(65536)
        );
        assert_eq!(FspFlags(0).as_mysql().map(|f| f.physical_size), Some(16384));
    }

    #[test]
    fn extent_sizes() {
        assert_eq!(extent_size(4096), 256);
        assert_eq!(extent_size(8192), 128);
        assert_eq!(extent_size(16384), 64);
        assert_eq!(extent_size(32768), 64);
        assert_eq!(extent_size(65536), 64);
    }

    #[test]
    fn mariadb101_layout() {
        // PAGE_COMPRESSED=1, level 6, 4K pages (ssize 3 at bits 13..16).
        let f = FspFlags(1 | 1 << 5 | 1 << 6 | 6 << 7 | 3 << 13);
        let m = f.as_mariadb101();
        assert!(
            matches!(m, Some(s) if s.page_compressed && s.compression_level == Some(6) && s.logical_size == 4096)
        );
        assert_eq!(f.as_mysql(), None);
    }
}
