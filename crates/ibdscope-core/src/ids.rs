//! Newtypes for the numbers InnoDB keeps apart: page numbers, space ids,
//! log sequence numbers and index ids (as gimli keeps its offsets apart).

use std::fmt;

/// `FIL_NULL`: the page number meaning "no page" in FIL_PAGE_PREV/NEXT and
/// list nodes (storage/innobase/include/fil0types.h).
pub const FIL_NULL: u32 = 0xFFFF_FFFF;

macro_rules! newtype {
    ($(#[$m:meta])* $name:ident($t:ty)) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub $t);
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
        impl From<$t> for $name {
            fn from(v: $t) -> Self {
                $name(v)
            }
        }
    };
}

newtype!(
    /// A page number within a tablespace (FIL_PAGE_OFFSET).
    PageNo(u32)
);
newtype!(
    /// A tablespace id (FIL_PAGE_SPACE_ID, FSP_SPACE_ID).
    SpaceId(u32)
);
newtype!(
    /// A log sequence number (FIL_PAGE_LSN).
    Lsn(u64)
);
newtype!(
    /// An index id (PAGE_INDEX_ID).
    IndexId(u64)
);

impl PageNo {
    /// True for `FIL_NULL`, "no page".
    pub const fn is_null(self) -> bool {
        self.0 == FIL_NULL
    }
}
