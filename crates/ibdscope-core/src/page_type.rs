//! Page types: the value of FIL_PAGE_TYPE (storage/innobase/include/fil0fil.h
//! in MySQL 8.0 and 8.4; MariaDB 10.11 storage/innobase/include/fil0fil.h for
//! its own values).
//!
//! Most values mean the same in both servers. The differences:
//! - 18 is `FIL_PAGE_SDI_BLOB` in MySQL 8.0+, but `FIL_PAGE_TYPE_INSTANT` in
//!   MariaDB 10.3+ (the root page of a clustered index carrying instant
//!   ALTER TABLE metadata: an index page).
//! - MariaDB page_compressed pages: 34354 (`FIL_PAGE_PAGE_COMPRESSED`) and
//!   37401 (`FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED`) in the non-full_crc32
//!   format; in full_crc32 a compressed page has bit 15 set and its
//!   compressed size / 256 in bits 0..14 (`FIL_PAGE_COMPRESS_FCRC32_MARKER`).
//!
//! Unknown values are kept and shown as numbers, never an error.

use std::fmt;

/// A FIL_PAGE_TYPE value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PageType(pub u16);

/// Which server family's meaning applies to values that differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TypeNames {
    /// MySQL 8.0+ (and Percona): 18 is SDI_BLOB.
    MySql8,
    /// MySQL before 8.0 and MariaDB: 18 is MariaDB's INSTANT.
    Classic,
}

macro_rules! page_types {
    ($($(#[$m:meta])* $name:ident = $value:expr, $short:expr;)*) => {
        impl PageType {
            $($(#[$m])* pub const $name: PageType = PageType($value);)*
        }
        const NAMES: &[(u16, &str)] = &[$(($value, $short)),*];
    };
}

page_types! {
    /// Freshly allocated page (type never written).
    FIL_PAGE_TYPE_ALLOCATED = 0, "ALLOCATED";
    /// Undo log page.
    FIL_PAGE_UNDO_LOG = 2, "UNDO_LOG";
    /// File segment inode page.
    FIL_PAGE_INODE = 3, "INODE";
    /// Insert buffer free list page.
    FIL_PAGE_IBUF_FREE_LIST = 4, "IBUF_FREE_LIST";
    /// Insert buffer bitmap page.
    FIL_PAGE_IBUF_BITMAP = 5, "IBUF_BITMAP";
    /// System page.
    FIL_PAGE_TYPE_SYS = 6, "SYS";
    /// Transaction system page.
    FIL_PAGE_TYPE_TRX_SYS = 7, "TRX_SYS";
    /// File space header (page 0).
    FIL_PAGE_TYPE_FSP_HDR = 8, "FSP_HDR";
    /// Extent descriptor page.
    FIL_PAGE_TYPE_XDES = 9, "XDES";
    /// Uncompressed BLOB page.
    FIL_PAGE_TYPE_BLOB = 10, "BLOB";
    /// First compressed BLOB page.
    FIL_PAGE_TYPE_ZBLOB = 11, "ZBLOB";
    /// Subsequent compressed BLOB page.
    FIL_PAGE_TYPE_ZBLOB2 = 12, "ZBLOB2";
    /// Type unknown (written by MySQL 5.7+ in place of garbage types).
    FIL_PAGE_TYPE_UNKNOWN = 13, "UNKNOWN";
    /// MySQL transparent page compression (PAGE_COMPRESSION=...).
    FIL_PAGE_COMPRESSED = 14, "COMPRESSED";
    /// MySQL encrypted page.
    FIL_PAGE_ENCRYPTED = 15, "ENCRYPTED";
    /// MySQL compressed and encrypted page.
    FIL_PAGE_COMPRESSED_AND_ENCRYPTED = 16, "COMPRESSED_AND_ENCRYPTED";
    /// MySQL encrypted R-tree page.
    FIL_PAGE_ENCRYPTED_RTREE = 17, "ENCRYPTED_RTREE";
    /// MySQL 8 SDI BLOB page; MariaDB's INSTANT (see module docs).
    FIL_PAGE_SDI_BLOB = 18, "SDI_BLOB";
    /// MySQL 8 compressed SDI BLOB page.
    FIL_PAGE_SDI_ZBLOB = 19, "SDI_ZBLOB";
    /// Legacy doublewrite buffer page.
    FIL_PAGE_TYPE_LEGACY_DBLWR = 20, "LEGACY_DBLWR";
    /// Rollback segment array page.
    FIL_PAGE_TYPE_RSEG_ARRAY = 21, "RSEG_ARRAY";
    /// LOB index page.
    FIL_PAGE_TYPE_LOB_INDEX = 22, "LOB_INDEX";
    /// LOB data page.
    FIL_PAGE_TYPE_LOB_DATA = 23, "LOB_DATA";
    /// LOB first page.
    FIL_PAGE_TYPE_LOB_FIRST = 24, "LOB_FIRST";
    /// Compressed LOB first page.
    FIL_PAGE_TYPE_ZLOB_FIRST = 25, "ZLOB_FIRST";
    /// Compressed LOB data page.
    FIL_PAGE_TYPE_ZLOB_DATA = 26, "ZLOB_DATA";
    /// Compressed LOB index page.
    FIL_PAGE_TYPE_ZLOB_INDEX = 27, "ZLOB_INDEX";
    /// Compressed LOB fragment page.
    FIL_PAGE_TYPE_ZLOB_FRAG = 28, "ZLOB_FRAG";
    /// Compressed LOB fragment index page.
    FIL_PAGE_TYPE_ZLOB_FRAG_ENTRY = 29, "ZLOB_FRAG_ENTRY";
    /// Serialized dictionary information (MySQL 8).
    FIL_PAGE_SDI = 17853, "SDI";
    /// R-tree index page.
    FIL_PAGE_RTREE = 17854, "RTREE";
    /// B-tree index page.
    FIL_PAGE_INDEX = 17855, "INDEX";
    /// MariaDB page_compressed page (non-full_crc32 format).
    FIL_PAGE_PAGE_COMPRESSED = 34354, "PAGE_COMPRESSED";
    /// MariaDB page_compressed and encrypted page (non-full_crc32 format).
    FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED = 37401, "PAGE_COMPRESSED_ENCRYPTED";
}

impl PageType {
    /// MariaDB's name for 18.
    pub const FIL_PAGE_TYPE_INSTANT: PageType = PageType(18);
    /// Bit 15: a MariaDB full_crc32 page_compressed page
    /// (`FIL_PAGE_COMPRESS_FCRC32_MARKER` in MariaDB fil0fil.h).
    pub const FCRC32_COMPRESSED_MARKER: u16 = 1 << 15;

    /// The short name of this type, or `None` if InnoDB has no such type.
    pub fn name(self, names: TypeNames) -> Option<&'static str> {
        if self.0 == 18 && names == TypeNames::Classic {
            return Some("INSTANT");
        }
        NAMES
            .iter()
            .find(|(v, _)| *v == self.0)
            .map(|(_, n)| *n)
            .or_else(|| {
                // Any other value with bit 15 set is a full_crc32 page_compressed
                // page whose low bits are its size / 256.
                (self.0 & Self::FCRC32_COMPRESSED_MARKER != 0 && names == TypeNames::Classic)
                    .then_some("PAGE_COMPRESSED_FCRC32")
            })
    }

    /// The type to count this page under: full_crc32 page_compressed pages,
    /// whose type word carries their size, all count as
    /// [`Self::FCRC32_COMPRESSED_MARKER`].
    pub fn counted(self, names: TypeNames) -> PageType {
        if self.name(names) == Some("PAGE_COMPRESSED_FCRC32") {
            PageType(Self::FCRC32_COMPRESSED_MARKER)
        } else {
            self
        }
    }

    /// True for pages holding B-tree records: INDEX, RTREE, SDI, and
    /// MariaDB's INSTANT root.
    pub fn is_index(self, names: TypeNames) -> bool {
        matches!(
            self,
            Self::FIL_PAGE_INDEX | Self::FIL_PAGE_RTREE | Self::FIL_PAGE_SDI
        ) || (self.0 == 18 && names == TypeNames::Classic)
    }

    /// A displayable name for `names`, falling back to the number.
    pub fn display(self, names: TypeNames) -> PageTypeDisplay {
        PageTypeDisplay(self, names)
    }
}

/// Displays a [`PageType`] by name, or by number when unknown.
#[derive(Clone, Copy, Debug)]
pub struct PageTypeDisplay(PageType, TypeNames);

impl fmt::Display for PageTypeDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.name(self.1) {
            Some(n) => f.pad(n),
            None => f.pad(&format!("UNKNOWN({})", self.0 .0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_differ_only_where_servers_differ() {
        assert_eq!(PageType(18).name(TypeNames::MySql8), Some("SDI_BLOB"));
        assert_eq!(PageType(18).name(TypeNames::Classic), Some("INSTANT"));
        assert_eq!(PageType(17855).name(TypeNames::Classic), Some("INDEX"));
        assert_eq!(PageType(1).name(TypeNames::MySql8), None);
        assert_eq!(
            PageType(1).display(TypeNames::MySql8).to_string(),
            "UNKNOWN(1)"
        );
        assert!(PageType(18).is_index(TypeNames::Classic));
        assert!(!PageType(18).is_index(TypeNames::MySql8));
    }
}
