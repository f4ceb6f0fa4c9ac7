//! The system tablespace (space 0: `ibdata1`, continued by `ibdata2`… as
//! `innodb_data_file_path` lists them, one page numbering across the
//! files): its fixed pages, the transaction system header and the data
//! dictionary header.
//!
//! Fixed pages (`fsp0types.h`):
//!
//! | page | what |
//! |---|---|
//! | 3 `FSP_IBUF_HEADER_PAGE_NO` | change buffer header |
//! | 4 `FSP_IBUF_TREE_ROOT_PAGE_NO` | change buffer B-tree root |
//! | 5 `FSP_TRX_SYS_PAGE_NO` | transaction system header |
//! | 6 `FSP_FIRST_RSEG_PAGE_NO` | first rollback segment header |
//! | 7 `FSP_DICT_HDR_PAGE_NO` | data dictionary header |
//!
//! TRX_SYS page (`trx0sys.h`), offsets from `TRX_SYS` = `FSEG_PAGE_DATA`
//! (38):
//!
//! | offset | field |
//! |---|---|
//! | 0 | `TRX_SYS_TRX_ID_STORE` (8): the highest transaction id, written every `TRX_SYS_TRX_ID_WRITE_MARGIN` (256) ids |
//! | 8 | `TRX_SYS_FSEG_HEADER` (10): space, page, offset of the segment inode |
//! | 18 | `TRX_SYS_RSEGS`: 128 slots of (space 4, page 4); page `FIL_NULL` = unused |
//!
//! At page size − 1000, `TRX_SYS_MYSQL_LOG_INFO`: magic (873422344),
//! offset high, offset low, the binlog file name (up to 512 bytes). At page
//! size − 200, `TRX_SYS_DOUBLEWRITE`: FSEG header (10), magic (536853855),
//! block 1, block 2 (first pages of the two `FSP_EXTENT_SIZE` blocks), the
//! same three repeated at +12, and `SPACE_ID_STORED` (1783657386) at +24
//! (after the FSEG header).
//!
//! Dictionary header (`dict0boot.h`), offsets from `DICT_HDR` =
//! `FSEG_PAGE_DATA`: `ROW_ID` 0 (8), `TABLE_ID` 8 (8), `INDEX_ID` 16 (8),
//! `MAX_SPACE_ID` 24 (4), `MIX_ID_LOW` 28 (4), roots of `SYS_TABLES` 32,
//! `SYS_TABLE_IDS` 36, `SYS_COLUMNS` 40, `SYS_INDEXES` 44, `SYS_FIELDS` 48
//! (4 each), `DICT_HDR_FSEG_HEADER` 56.

use ibdscope_core::{PageNo, Tablespace, FIL_NULL};
use ibdscope_prims::bytes::{be_u16, be_u32, be_u64};

/// `FSEG_PAGE_DATA` (`fsp0types.h`): where a page's payload starts after
/// the FIL header.
pub const FSEG_PAGE_DATA: usize = 38;
/// `FSP_IBUF_HEADER_PAGE_NO`.
pub(crate) const FSP_IBUF_HEADER_PAGE_NO: u32 = 3;
/// `FSP_IBUF_TREE_ROOT_PAGE_NO`.
pub const FSP_IBUF_TREE_ROOT_PAGE_NO: u32 = 4;
/// `FSP_TRX_SYS_PAGE_NO`.
pub const FSP_TRX_SYS_PAGE_NO: u32 = 5;
/// `FSP_FIRST_RSEG_PAGE_NO`.
pub const FSP_FIRST_RSEG_PAGE_NO: u32 = 6;
/// `FSP_DICT_HDR_PAGE_NO`.
pub const FSP_DICT_HDR_PAGE_NO: u32 = 7;
/// `TRX_SYS_N_RSEGS`.
pub const TRX_SYS_N_RSEGS: usize = 128;
/// `TRX_SYS_RSEGS`: the rollback segment slots, from `TRX_SYS`.
pub const TRX_SYS_RSEGS: usize = 18;
/// `TRX_SYS_RSEG_SLOT_SIZE`: space (4), page (4).
pub(crate) const TRX_SYS_RSEG_SLOT_SIZE: usize = 8;
/// `TRX_SYS_DOUBLEWRITE_MAGIC_N`.
pub(crate) const TRX_SYS_DOUBLEWRITE_MAGIC_N: u32 = 536_853_855;
/// `TRX_SYS_DOUBLEWRITE_SPACE_ID_STORED_N`.
pub(crate) const TRX_SYS_DOUBLEWRITE_SPACE_ID_STORED_N: u32 = 1_783_657_386;
/// `TRX_SYS_MYSQL_LOG_MAGIC_N`.
pub(crate) const TRX_SYS_MYSQL_LOG_MAGIC_N: u32 = 873_422_344;
/// `TRX_SYS_MYSQL_LOG_NAME_LEN`.
pub(crate) const TRX_SYS_MYSQL_LOG_NAME_LEN: usize = 512;

/// What the fixed page `n` of the system tablespace is, if it is one.
pub fn special_page(n: u32) -> Option<&'static str> {
    match n {
        FSP_IBUF_HEADER_PAGE_NO => Some("change buffer header (FSP_IBUF_HEADER_PAGE_NO)"),
        FSP_IBUF_TREE_ROOT_PAGE_NO => Some("change buffer tree root (FSP_IBUF_TREE_ROOT_PAGE_NO)"),
        FSP_TRX_SYS_PAGE_NO => Some("transaction system header (FSP_TRX_SYS_PAGE_NO)"),
        FSP_FIRST_RSEG_PAGE_NO => Some("first rollback segment (FSP_FIRST_RSEG_PAGE_NO)"),
        FSP_DICT_HDR_PAGE_NO => Some("data dictionary header (FSP_DICT_HDR_PAGE_NO)"),
        _ => None,
    }
}

/// An FSEG header: where a segment's inode is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FsegRef {
    /// `FSEG_HDR_SPACE`.
    pub space: u32,
    /// `FSEG_HDR_PAGE_NO`.
    pub page: u32,
    /// `FSEG_HDR_OFFSET`.
    pub offset: u16,
}

fn fseg_at(page: &[u8], at: usize) -> Option<FsegRef> {
    Some(FsegRef {
        space: be_u32(page, at)?,
        page: be_u32(page, at.checked_add(4)?)?,
        offset: be_u16(page, at.checked_add(8)?)?,
    })
}

/// One used rollback segment slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RsegSlot {
    /// Slot number (0–127).
    pub slot: u32,
    /// `TRX_SYS_RSEG_SPACE`.
    pub space: u32,
    /// `TRX_SYS_RSEG_PAGE_NO`.
    pub page: u32,
}

/// The doublewrite buffer header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Doublewrite {
    /// The FSEG header of its segment.
    pub fseg: FsegRef,
    /// The magic equals `TRX_SYS_DOUBLEWRITE_MAGIC_N`.
    pub magic_ok: bool,
    /// First page of block 1.
    pub block1: u32,
    /// First page of block 2.
    pub block2: u32,
    /// The repeated magic and block numbers equal the first copy.
    pub repeat_ok: bool,
    /// `SPACE_ID_STORED` equals its magic (4.1+ pages carry space ids).
    pub space_id_stored: bool,
}

/// The binlog position InnoDB kept (`TRX_SYS_MYSQL_LOG_INFO`), when its
/// magic is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinlogInfo {
    /// Offset in the binlog file (high and low halves).
    pub offset: u64,
    /// The binlog file name (up to its NUL).
    pub name: Vec<u8>,
}

/// The TRX_SYS page, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrxSys {
    /// `TRX_SYS_TRX_ID_STORE`.
    pub trx_id_store: u64,
    /// `TRX_SYS_FSEG_HEADER`.
    pub fseg: FsegRef,
    /// The used rollback segment slots (page not `FIL_NULL`).
    pub rsegs: Vec<RsegSlot>,
    /// The doublewrite header, when its magic or a block number is set.
    pub doublewrite: Option<Doublewrite>,
    /// The binlog info, when its magic is set.
    pub binlog: Option<BinlogInfo>,
}

impl TrxSys {
    /// Decodes a TRX_SYS page (`None` when the page is too short for its
    /// fixed fields).
    pub fn read(page: &[u8]) -> Option<TrxSys> {
        let base = FSEG_PAGE_DATA;
        let trx_id_store = be_u64(page, base)?;
        let fseg = fseg_at(page, base.checked_add(8)?)?;
        let mut rsegs = Vec::new();
        let rs = base.checked_add(TRX_SYS_RSEGS)?;
        for slot in 0..TRX_SYS_N_RSEGS {
            let at = rs.checked_add(slot.checked_mul(TRX_SYS_RSEG_SLOT_SIZE)?)?;
            let space = be_u32(page, at)?;
            let pno = be_u32(page, at.checked_add(4)?)?;
            if pno != FIL_NULL {
                rsegs.push(RsegSlot {
                    slot: u32::try_from(slot).ok()?,
                    space,
                    page: pno,
                });
            }
        }
        let dw = page.len().checked_sub(200)?;
        let magic = be_u32(page, dw.checked_add(10)?)?;
        let block1 = be_u32(page, dw.checked_add(14)?)?;
        let block2 = be_u32(page, dw.checked_add(18)?)?;
        let doublewrite = (magic != 0 || block1 != 0).then(|| Doublewrite {
            fseg: fseg_at(page, dw).unwrap_or(FsegRef {
                space: 0,
                page: 0,
                offset: 0,
            }),
            magic_ok: magic == TRX_SYS_DOUBLEWRITE_MAGIC_N,
            block1,
            block2,
            repeat_ok: page.get(dw.saturating_add(10)..dw.saturating_add(22))
                == page.get(dw.saturating_add(22)..dw.saturating_add(34)),
            space_id_stored: be_u32(page, dw.saturating_add(34))
                == Some(TRX_SYS_DOUBLEWRITE_SPACE_ID_STORED_N),
        });
        let li = page.len().checked_sub(1000)?;
        let binlog = (be_u32(page, li) == Some(TRX_SYS_MYSQL_LOG_MAGIC_N)).then(|| {
            let hi = u64::from(be_u32(page, li.saturating_add(4)).unwrap_or(0));
            let lo = u64::from(be_u32(page, li.saturating_add(8)).unwrap_or(0));
            let name = page.get(li.saturating_add(12)..).unwrap_or(&[]);
            let name = name.get(..TRX_SYS_MYSQL_LOG_NAME_LEN).unwrap_or(name);
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            BinlogInfo {
                offset: hi.wrapping_shl(32) | lo,
                name: name.get(..end).unwrap_or(&[]).to_vec(),
            }
        });
        Some(TrxSys {
            trx_id_store,
            fseg,
            rsegs,
            doublewrite,
            binlog,
        })
    }
}

/// The data dictionary header, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DictHeader {
    /// `DICT_HDR_ROW_ID`: the latest row id (written every 256).
    pub row_id: u64,
    /// `DICT_HDR_TABLE_ID`: the latest table id assigned.
    pub table_id: u64,
    /// `DICT_HDR_INDEX_ID`: the latest index id assigned.
    pub index_id: u64,
    /// `DICT_HDR_MAX_SPACE_ID`: the latest space id assigned.
    pub max_space_id: u32,
    /// `DICT_HDR_MIX_ID_LOW` (obsolete).
    pub mix_id_low: u32,
    /// Root of SYS_TABLES' clustered index.
    pub sys_tables: u32,
    /// Root of SYS_TABLE_IDS (SYS_TABLES by id).
    pub sys_table_ids: u32,
    /// Root of SYS_COLUMNS.
    pub sys_columns: u32,
    /// Root of SYS_INDEXES.
    pub sys_indexes: u32,
    /// Root of SYS_FIELDS.
    pub sys_fields: u32,
    /// `DICT_HDR_FSEG_HEADER`.
    pub fseg: FsegRef,
}

impl DictHeader {
    /// Decodes the dictionary header page (`None` when too short).
    pub fn read(page: &[u8]) -> Option<DictHeader> {
        let b = FSEG_PAGE_DATA;
        Some(DictHeader {
            row_id: be_u64(page, b)?,
            table_id: be_u64(page, b.saturating_add(8))?,
            index_id: be_u64(page, b.saturating_add(16))?,
            max_space_id: be_u32(page, b.saturating_add(24))?,
            mix_id_low: be_u32(page, b.saturating_add(28))?,
            sys_tables: be_u32(page, b.saturating_add(32))?,
            sys_table_ids: be_u32(page, b.saturating_add(36))?,
            sys_columns: be_u32(page, b.saturating_add(40))?,
            sys_indexes: be_u32(page, b.saturating_add(44))?,
            sys_fields: be_u32(page, b.saturating_add(48))?,
            fseg: fseg_at(page, b.saturating_add(56))?,
        })
    }
}

/// The system tablespace's headers, as far as its pages give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemSpace {
    /// The TRX_SYS page (5), when the file has it.
    pub trx_sys: Option<TrxSys>,
    /// The dictionary header (page 7), when the file has it.
    pub dict: Option<DictHeader>,
    /// Those of pages 5 and 7 that the file has and that do not verify
    /// (their fields above are read as they are, and may be wrong).
    pub unverified: Vec<u32>,
}

impl SystemSpace {
    /// Reads the fixed pages of `ts`, when it is space 0.
    pub fn read(ts: &Tablespace<'_>) -> Option<SystemSpace> {
        if ts.space_id().0 != 0 {
            return None;
        }
        let unverified = [FSP_TRX_SYS_PAGE_NO, FSP_DICT_HDR_PAGE_NO]
            .into_iter()
            .filter(|&n| {
                ts.page(PageNo(n))
                    .is_some_and(|p| !ibdscope_core::space::verify_page(p, ts.scheme()).is_ok())
            })
            .collect();
        Some(SystemSpace {
            unverified,
            trx_sys: ts.page(PageNo(FSP_TRX_SYS_PAGE_NO)).and_then(TrxSys::read),
            dict: ts
                .page(PageNo(FSP_DICT_HDR_PAGE_NO))
                .and_then(DictHeader::read),
        })
    }
}

/// Whether `first_page` (the first page of a file that follows others in
/// `innodb_data_file_path`) carries the page number `expected`: a data file
/// continues the one before it when its first page is numbered after the
/// pages before it (`FIL_PAGE_OFFSET`, `fil0types.h`). An all-zero page
/// (never written) is taken as continuing.
pub fn continues(first_page: &[u8], expected: u32) -> bool {
    match be_u32(first_page, 4) {
        Some(n) if n == expected => true,
        Some(_) => ibdscope_prims::bytes::is_zeroes(first_page),
        None => false,
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]
mod tests {
    use super::*;

    /// A 16 KiB TRX_SYS page laid out as `trx0sys.h` says.
    fn trx_sys_page() -> Vec<u8> {
        let mut p = vec![0u8; 16384];
        let put = |p: &mut Vec<u8>, at: usize, v: u32| {
            p[at..at + 4].copy_from_slice(&v.to_be_bytes());
        };
        p[38..46].copy_from_slice(&300u64.to_be_bytes());
        for slot in 0..TRX_SYS_N_RSEGS {
            put(&mut p, 38 + 18 + slot * 8 + 4, FIL_NULL);
        }
        put(&mut p, 38 + 18, 0);
        put(&mut p, 38 + 18 + 4, FSP_FIRST_RSEG_PAGE_NO);
        let dw = 16384 - 200;
        for base in [dw + 10, dw + 22] {
            put(&mut p, base, TRX_SYS_DOUBLEWRITE_MAGIC_N);
            put(&mut p, base + 4, 64);
            put(&mut p, base + 8, 128);
        }
        put(&mut p, dw + 34, TRX_SYS_DOUBLEWRITE_SPACE_ID_STORED_N);
        let li = 16384 - 1000;
        put(&mut p, li, TRX_SYS_MYSQL_LOG_MAGIC_N);
        put(&mut p, li + 4, 1);
        put(&mut p, li + 8, 2);
        p[li + 12..li + 22].copy_from_slice(b"bin.000001");
        p
    }

    #[test]
    fn trx_sys_fields_where_trx0sys_h_puts_them() {
        let mut p = trx_sys_page();
        let t = TrxSys::read(&p).expect("decodes");
        assert_eq!(t.trx_id_store, 300);
        assert_eq!(
            t.rsegs,
            vec![RsegSlot {
                slot: 0,
                space: 0,
                page: 6
            }]
        );
        let d = t.doublewrite.expect("doublewrite");
        assert!(d.magic_ok && d.repeat_ok && d.space_id_stored);
        assert_eq!((d.block1, d.block2), (64, 128));
        let b = t.binlog.expect("binlog");
        assert_eq!(
            (b.offset, b.name.as_slice()),
            ((1 << 32) | 2, &b"bin.000001"[..])
        );
        // A half-written header: the repeated copy differs.
        p[16384 - 200 + 26] ^= 1;
        assert!(
            !TrxSys::read(&p)
                .expect("decodes")
                .doublewrite
                .expect("dw")
                .repeat_ok
        );
        // Too short for its fixed fields: nothing, no panic.
        assert_eq!(TrxSys::read(&p[..100]), None);
    }

    #[test]
    fn a_data_file_continues_when_its_first_page_is_numbered_next() {
        let mut p = vec![0u8; 16384];
        assert!(continues(&p, 192), "an all-zero page");
        p[4..8].copy_from_slice(&192u32.to_be_bytes());
        p[100] = 1;
        assert!(continues(&p, 192));
        assert!(!continues(&p, 191));
        assert!(!continues(&p[..2], 192));
    }
}
