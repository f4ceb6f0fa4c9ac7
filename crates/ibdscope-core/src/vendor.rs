//! Which server wrote a file, as far as the bytes can tell.
//!
//! Decisive evidence: the full_crc32 flags marker and the 10.1.0–10.1.20
//! flags layout and PAGE_COMPRESSION bit 16 (MariaDB, fsp0types.h); the SDI
//! flag (bit 14) and the 5.7 SHARED/TEMPORARY/ENCRYPTION bits (MySQL 5.7+ or
//! Percona Server, fsp0types.h); page types only MariaDB writes (INSTANT, 18,
//! outside MySQL 8 spaces; 34354 and 37401). Without any of these a file of
//! MySQL 5.x, Percona Server 5.x and MariaDB 10.0–10.4 looks the same, and
//! ibdscope says so instead of guessing.

use crate::fsp::{FlagsLayout, SpaceFormat};
use crate::page_type::PageType;
use std::fmt;

/// A server family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Vendor {
    /// Oracle MySQL.
    MySql,
    /// Percona Server (same on-disk format as MySQL of its version).
    Percona,
    /// MariaDB.
    MariaDb,
}

impl Vendor {
    /// The name as the vendor spells it.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::MySql => "MySQL",
            Vendor::Percona => "Percona Server",
            Vendor::MariaDb => "MariaDB",
        }
    }
}

/// The vendors a file may come from, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VendorGuess {
    /// Possible vendors, most likely first.
    pub candidates: &'static [Vendor],
    /// The format, in words ("MariaDB 10.5+ full_crc32", …).
    pub format: &'static str,
    /// The evidence, in words.
    pub reason: &'static str,
}

const MARIADB: &[Vendor] = &[Vendor::MariaDb];
const MYSQL: &[Vendor] = &[Vendor::MySql, Vendor::Percona];
const ANY: &[Vendor] = &[Vendor::MySql, Vendor::Percona, Vendor::MariaDb];

impl VendorGuess {
    /// Infers the vendor from the format and whether any page of the given
    /// types occurs (`has_type`).
    pub fn infer(format: &SpaceFormat, has_type: impl Fn(PageType) -> bool) -> Self {
        let g = |candidates, format, reason| VendorGuess {
            candidates,
            format,
            reason,
        };
        match format.layout {
            FlagsLayout::FullCrc32 => {
                return g(
                    MARIADB,
                    "MariaDB 10.5+ full_crc32",
                    "FSP flags carry the full_crc32 marker (bit 4)",
                )
            }
            FlagsLayout::MariaDb101 => {
                return g(
                    MARIADB,
                    "MariaDB 10.1.0-10.1.20",
                    "FSP flags are only valid in MariaDB 10.1.0-10.1.20's layout",
                )
            }
            FlagsLayout::MySql => {}
        }
        if format.page_compressed {
            return g(
                MARIADB,
                "MariaDB 10.1.21+ PAGE_COMPRESSED",
                "FSP flags bit 16 (PAGE_COMPRESSION) is set",
            );
        }
        if has_type(PageType::FIL_PAGE_PAGE_COMPRESSED)
            || has_type(PageType::FIL_PAGE_PAGE_COMPRESSED_ENCRYPTED)
        {
            return g(
                MARIADB,
                "MariaDB page_compressed",
                "pages of MariaDB's page_compressed types (34354/37401)",
            );
        }
        if format.sdi {
            return g(MYSQL, "MySQL 8.0+", "FSP flags bit 14 (SDI) is set");
        }
        if format.shared || format.temporary || format.encryption {
            return g(
                MYSQL,
                "MySQL 5.7+",
                "FSP flags bits 11-13 (SHARED/TEMPORARY/ENCRYPTION) are set",
            );
        }
        if has_type(PageType::FIL_PAGE_TYPE_INSTANT) {
            return g(
                MARIADB,
                "MariaDB 10.3+",
                "a page of type 18 (INSTANT) in a space without SDI",
            );
        }
        if format.atomic_blobs {
            g(
                ANY,
                "Barracuda (DYNAMIC/COMPRESSED)",
                "MySQL 5.6/5.7, Percona Server and MariaDB 10.x write the same flags",
            )
        } else if format.post_antelope {
            g(
                ANY,
                "Antelope COMPACT",
                "MySQL 5.x, Percona Server and MariaDB 10.x write the same flags",
            )
        } else {
            g(ANY, "Antelope (flags 0: REDUNDANT or COMPACT)", "flags are 0, as every server before MySQL 5.6 and MariaDB 10.x write for COMPACT and REDUNDANT tables")
        }
    }

    /// True when exactly one vendor family is possible.
    pub fn is_decisive(&self) -> bool {
        self.candidates == MARIADB || self.candidates == MYSQL
    }
}

impl fmt::Display for VendorGuess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for v in self.candidates {
            if !first {
                f.write_str(" or ")?;
            }
            f.write_str(v.name())?;
            first = false;
        }
        Ok(())
    }
}
