//! `.frm` table definition files: the file MySQL ≤ 5.7 and MariaDB keep
//! beside every table (`db/table.frm`), read from bytes.
//!
//! Sources, as read (docs/format.md §15 has every fact with its file):
//! MySQL 5.7 `sql/unireg.cc` (`mysql_create_frm`, `pack_header`,
//! `pack_keys`, `pack_fields`), MySQL 5.6 `sql/table.cc` (`create_frm`,
//! `open_binary_frm`) and `sql/field.h` (`FIELDFLAG_*`), MariaDB `sql/table.cc`
//! (`TABLE_SHARE::init_from_binary_frm_image`, `create_key_infos`,
//! `read_extra2`, `parse_vcol_defs`), MariaDB `sql/unireg.cc`
//! (`build_frm_image`, `pack_expression`) and `sql/unireg.h` (the extra2
//! value types); `include/mysql_com.h` (`enum_field_types`).
//!
//! Layout (all integers little-endian, `uint2korr` … `uint4korr`):
//!
//! | at | size | what |
//! |---|---:|---|
//! | 0 | 64 | header ("fileinfo"): magic `FE 01`, frm version, engine, positions, table options |
//! | 64 | header\[4..6\] | MySQL: the form names `"//\0"`; MariaDB 10.0+: the extra2 segment (type, length, value entries) |
//! | 64 + header\[4..6\] | 4 | position of the forminfo block |
//! | header\[6..8\] | header\[28..30\] | keys: counts, 8 bytes per key, 9 per key part, key names, key comments |
//! | header\[6..8\] + key buffer length | header\[16..18\] | the default-values record |
//! | after it | header\[55..59\] | extra segment: connect string, engine name, partition info, fulltext parsers, long table comment, format section |
//! | forminfo | 288 | counts and lengths of the column sections, short table comment |
//! | forminfo + 288 | forminfo\[260..262\] | MySQL's "screens" (unused) |
//! | then | 17 per column | column records |
//! | then | forminfo\[268..270\] | column names, `0xFF`-separated |
//! | then | forminfo\[274..276\] | ENUM/SET element lists |
//! | then | forminfo\[284..286\] | column comments |
//! | then | forminfo\[286..288\] | generated columns and expressions (MySQL 5.7, MariaDB) |
//!
//! Every offset and length read from the file is checked against the
//! file's length before use; a damaged file gives an [`Error`] naming
//! the byte offset of the value that does not fit. Walks are bounded by the
//! counts in the file and by its length.
//!
//! Not read (named, so callers know): the default values record (only its
//! position), the partition definition text beyond keeping it, MySQL's
//! format section (tablespace name, column storage and format), MariaDB's
//! engine-defined options (`EXTRA2_ENGINE_TABLEOPTS` and the legacy text
//! options), periods beyond their column numbers, and `.frm` files before
//! MySQL 4.1 (11-byte column records).

pub use crate::collation::Charset;
/// Defined with the crate's error, re-exported here.
pub use crate::error::FrmErrorKind;
use crate::error::{Error, ErrorKind, Place};
use std::fmt;

/// Size of the header (`FRM_HEADER_SIZE`).
pub(crate) const FRM_HEADER_SIZE: usize = 64;
/// Size of the forminfo block (`FRM_FORMINFO_SIZE`).
pub(crate) const FRM_FORMINFO_SIZE: usize = 288;
/// `FRM_VER` (`mysql_version.h`): the frm version of MySQL 3.23.
pub(crate) const FRM_VER: u8 = 6;
/// `FRM_VER_TRUE_VARCHAR` (FRM_VER + 4): MySQL 5.0+ and MariaDB.
pub const FRM_VER_TRUE_VARCHAR: u8 = 10;
/// `FRM_VER_EXPRESSSIONS` (FRM_VER + 5): MariaDB 10.2+ tables with
/// generated columns, DEFAULT expressions or CHECK constraints.
pub(crate) const FRM_VER_EXPRESSIONS: u8 = 11;
/// Bytes of a column record (`FCOMP`, 4.1+).
pub(crate) const FCOMP: usize = 17;
/// The separator before, between and after names (`NAMES_SEP_CHAR`).
pub const NAMES_SEP_CHAR: u8 = 255;
/// Column number bits of a key part's first word (`FIELD_NR_MASK`).
pub(crate) const FIELD_NR_MASK: u16 = 16383;
/// Header of MariaDB's expression section (`FRM_VCOL_NEW_BASE_SIZE`).
pub(crate) const FRM_VCOL_NEW_BASE_SIZE: usize = 16;
/// Header of one MariaDB 10.2+ expression (`FRM_VCOL_NEW_HEADER_SIZE`).
pub(crate) const FRM_VCOL_NEW_HEADER_SIZE: usize = 6;
/// Header of one MySQL 5.7 generated column (`FRM_GCOL_HEADER_SIZE`).
pub(crate) const FRM_GCOL_HEADER_SIZE: usize = 4;

/// `pack_flag` bits (`sql/field.h`, "the interface with the .frm file").
pub mod pack_flag {
    /// Signed (numeric fields) or binary (4.0 strings).
    pub(crate) const FIELDFLAG_DECIMAL: u16 = 1;
    /// A numeric field.
    pub(crate) const FIELDFLAG_NUMBER: u16 = 2;
    /// ZEROFILL.
    pub(crate) const FIELDFLAG_ZEROFILL: u16 = 4;
    /// The pack type bits (`f_packtype`: `(flag >> 3) & 15`).
    pub(crate) const FIELDFLAG_PACK: u16 = 120;
    /// ENUM/SET ("mangled with decimals").
    pub(crate) const FIELDFLAG_INTERVAL: u16 = 256;
    /// BIT.
    pub const FIELDFLAG_BITFIELD: u16 = 512;
    /// BLOB/TEXT.
    pub const FIELDFLAG_BLOB: u16 = 1024;
    /// GEOMETRY.
    pub const FIELDFLAG_GEOM: u16 = 2048;
    /// BIT stored as characters (`Field_bit_as_char`); MySQL 5.7 JSON uses
    /// the same bit.
    pub(crate) const FIELDFLAG_TREAT_BIT_AS_CHAR: u16 = 4096;
    /// MariaDB 10.2+: sixth bit of the decimals (DECIMAL scale up to 38).
    pub const FIELDFLAG_LONG_DECIMAL: u16 = 8192;
    /// The column has no DEFAULT.
    pub(crate) const FIELDFLAG_NO_DEFAULT: u16 = 16384;
    /// NULL allowed.
    pub(crate) const FIELDFLAG_MAYBE_NULL: u16 = 32768;
    /// `FIELDFLAG_DEC_SHIFT`.
    pub(crate) const FIELDFLAG_DEC_SHIFT: u16 = 8;
    /// `FIELDFLAG_PACK_SHIFT`.
    pub(crate) const FIELDFLAG_PACK_SHIFT: u16 = 3;
}

/// Key flags (`include/my_base.h`), as the key record stores them after
/// `flags ^ HA_NOSAME` is undone.
pub mod key_flag {
    /// Unique.
    pub(crate) const HA_NOSAME: u16 = 1;
    /// FULLTEXT.
    pub(crate) const HA_FULLTEXT: u16 = 128;
    /// SPATIAL.
    pub(crate) const HA_SPATIAL: u16 = 1024;
    /// The key has a comment in the key section.
    pub(crate) const HA_USES_COMMENT: u16 = 4096;
    /// Generated by the server (for a foreign key).
    pub const HA_GENERATED_KEY: u16 = 8192;
    /// A fulltext parser name is in the extra segment.
    pub(crate) const HA_USES_PARSER: u16 = 16384;
}

/// A MySQL field type code (`enum_field_types`, `include/mysql_com.h` /
/// `field_types.h`), with the names of the codes .frm files hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldType(pub u8);

#[allow(missing_docs)]
impl FieldType {
    pub const DECIMAL: FieldType = FieldType(0);
    pub const TINY: FieldType = FieldType(1);
    pub const SHORT: FieldType = FieldType(2);
    pub const LONG: FieldType = FieldType(3);
    pub const FLOAT: FieldType = FieldType(4);
    pub const DOUBLE: FieldType = FieldType(5);
    pub const NULL: FieldType = FieldType(6);
    pub const TIMESTAMP: FieldType = FieldType(7);
    pub const LONGLONG: FieldType = FieldType(8);
    pub const INT24: FieldType = FieldType(9);
    pub const DATE: FieldType = FieldType(10);
    pub const TIME: FieldType = FieldType(11);
    pub const DATETIME: FieldType = FieldType(12);
    pub const YEAR: FieldType = FieldType(13);
    pub const NEWDATE: FieldType = FieldType(14);
    pub const VARCHAR: FieldType = FieldType(15);
    pub const BIT: FieldType = FieldType(16);
    pub const TIMESTAMP2: FieldType = FieldType(17);
    pub const DATETIME2: FieldType = FieldType(18);
    pub const TIME2: FieldType = FieldType(19);
    /// MariaDB: compressed BLOB (replication only, never in a .frm).
    pub const BLOB_COMPRESSED: FieldType = FieldType(140);
    /// MariaDB: compressed VARCHAR (replication only, never in a .frm).
    pub const VARCHAR_COMPRESSED: FieldType = FieldType(141);
    /// MySQL 5.7 JSON; in MariaDB 5.2–10.1 .frm files the same code marks
    /// a virtual column (`MYSQL_TYPE_VIRTUAL`).
    pub const JSON: FieldType = FieldType(245);
    pub const NEWDECIMAL: FieldType = FieldType(246);
    pub const ENUM: FieldType = FieldType(247);
    pub const SET: FieldType = FieldType(248);
    pub const TINY_BLOB: FieldType = FieldType(249);
    pub const MEDIUM_BLOB: FieldType = FieldType(250);
    pub const LONG_BLOB: FieldType = FieldType(251);
    pub const BLOB: FieldType = FieldType(252);
    pub const VAR_STRING: FieldType = FieldType(253);
    pub const STRING: FieldType = FieldType(254);
    pub const GEOMETRY: FieldType = FieldType(255);

    /// The `MYSQL_TYPE_` name without the prefix, or `None` for a code
    /// that is not one.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "DECIMAL",
            1 => "TINY",
            2 => "SHORT",
            3 => "LONG",
            4 => "FLOAT",
            5 => "DOUBLE",
            6 => "NULL",
            7 => "TIMESTAMP",
            8 => "LONGLONG",
            9 => "INT24",
            10 => "DATE",
            11 => "TIME",
            12 => "DATETIME",
            13 => "YEAR",
            14 => "NEWDATE",
            15 => "VARCHAR",
            16 => "BIT",
            17 => "TIMESTAMP2",
            18 => "DATETIME2",
            19 => "TIME2",
            140 => "BLOB_COMPRESSED",
            141 => "VARCHAR_COMPRESSED",
            245 => "JSON",
            246 => "NEWDECIMAL",
            247 => "ENUM",
            248 => "SET",
            249 => "TINY_BLOB",
            250 => "MEDIUM_BLOB",
            251 => "LONG_BLOB",
            252 => "BLOB",
            253 => "VAR_STRING",
            254 => "STRING",
            255 => "GEOMETRY",
            _ => return None,
        })
    }

    /// Integer types.
    pub(crate) fn is_integer(self) -> bool {
        matches!(self.0, 1 | 2 | 3 | 8 | 9)
    }

    /// TIME, DATETIME, TIMESTAMP in either format.
    pub(crate) fn is_temporal_with_fraction(self) -> bool {
        matches!(self.0, 7 | 11 | 12 | 17 | 18 | 19)
    }

    /// DECIMAL (old and new), FLOAT, DOUBLE: types with a scale.
    pub(crate) fn has_scale(self) -> bool {
        matches!(self.0, 0 | 4 | 5 | 246)
    }

    /// The four BLOB types.
    pub fn is_blob(self) -> bool {
        matches!(self.0, 249..=252)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "MYSQL_TYPE_{n}"),
            None => write!(f, "type {}", self.0),
        }
    }
}

/// GEOMETRY subtypes (`Field::geometry_type`), byte 14 of a GEOMETRY
/// column record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeometryType {
    /// GEOMETRY (0).
    Geometry,
    /// POINT (1).
    Point,
    /// LINESTRING (2).
    LineString,
    /// POLYGON (3).
    Polygon,
    /// MULTIPOINT (4).
    MultiPoint,
    /// MULTILINESTRING (5).
    MultiLineString,
    /// MULTIPOLYGON (6).
    MultiPolygon,
    /// GEOMETRYCOLLECTION (7).
    GeometryCollection,
    /// Another value.
    Other(u8),
}

impl GeometryType {
    fn from_byte(b: u8) -> GeometryType {
        use GeometryType::*;
        match b {
            0 => Geometry,
            1 => Point,
            2 => LineString,
            3 => Polygon,
            4 => MultiPoint,
            5 => MultiLineString,
            6 => MultiPolygon,
            7 => GeometryCollection,
            n => Other(n),
        }
    }

    /// Lowercase SQL name.
    pub fn name(self) -> &'static str {
        use GeometryType::*;
        match self {
            Geometry | Other(_) => "geometry",
            Point => "point",
            LineString => "linestring",
            Polygon => "polygon",
            MultiPoint => "multipoint",
            MultiLineString => "multilinestring",
            MultiPolygon => "multipolygon",
            GeometryCollection => "geometrycollection",
        }
    }
}

/// The table's `ROW_FORMAT` (`enum row_type`, header byte 40).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrmRowType {
    /// Not given in CREATE TABLE (0): the engine's default.
    Default,
    /// FIXED (1).
    Fixed,
    /// DYNAMIC (2).
    Dynamic,
    /// COMPRESSED (3).
    Compressed,
    /// REDUNDANT (4).
    Redundant,
    /// COMPACT (5).
    Compact,
    /// PAGE (6, MariaDB Aria).
    Page,
    /// Another value.
    Other(u8),
}

impl FrmRowType {
    fn from_byte(b: u8) -> FrmRowType {
        use FrmRowType::*;
        match b {
            0 => Default,
            1 => Fixed,
            2 => Dynamic,
            3 => Compressed,
            4 => Redundant,
            5 => Compact,
            6 => Page,
            n => Other(n),
        }
    }

    /// The code as stored.
    pub fn code(self) -> u8 {
        use FrmRowType::*;
        match self {
            Default => 0,
            Fixed => 1,
            Dynamic => 2,
            Compressed => 3,
            Redundant => 4,
            Compact => 5,
            Page => 6,
            Other(n) => n,
        }
    }

    /// The `ROW_FORMAT=` keyword, `None` for Default and unknown codes.
    pub fn name(self) -> Option<&'static str> {
        use FrmRowType::*;
        match self {
            Fixed => Some("FIXED"),
            Dynamic => Some("DYNAMIC"),
            Compressed => Some("COMPRESSED"),
            Redundant => Some("REDUNDANT"),
            Compact => Some("COMPACT"),
            Page => Some("PAGE"),
            Default | Other(_) => None,
        }
    }
}

/// What a generated column or expression is (MariaDB `enum_vcol_info_type`;
/// MySQL 5.7 has the first two only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExprKind {
    /// `AS (…) VIRTUAL`: not stored in the row.
    Virtual,
    /// `AS (…) STORED` / `PERSISTENT`.
    Stored,
    /// `DEFAULT (expression)`.
    Default,
    /// A column's CHECK constraint.
    CheckField,
    /// A table CHECK constraint.
    CheckTable,
    /// MariaDB: the hash of a long UNIQUE key (not in the file: the last
    /// columns of a table with such keys, `VCOL_USING_HASH`), not stored.
    UsingHash,
    /// Another code.
    Other(u8),
}

/// A generated column's or a DEFAULT/CHECK expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrmExpr {
    /// What it is.
    pub kind: ExprKind,
    /// Constraint name (MariaDB CHECK), empty otherwise.
    pub name: String,
    /// The expression text as the server printed it.
    pub text: String,
}

/// One column as the .frm describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrmColumn {
    /// Name.
    pub name: String,
    /// The type code in the column record (byte 13).
    pub field_type: FieldType,
    /// The type the server makes of it (`make_field`): ENUM/SET for a
    /// STRING with an interval and a packed pack_flag, the BLOB type by its
    /// length-bytes for BLOB and TEXT, JSON for MySQL 5.7's code 245, and
    /// old MariaDB virtual columns' real type.
    pub real_type: FieldType,
    /// MariaDB 10.5+ plugin types (`uuid`, `inet6`, `inet4`) from
    /// `EXTRA2_FIELD_DATA_TYPE_INFO`: the server opens the column with the
    /// type handler of this name.
    pub type_name: Option<String>,
    /// `field_length` (bytes 3..5): display width of numbers, byte length
    /// of strings (characters × mbmaxlen), bits of BIT, digits + signs of
    /// DECIMAL, characters of temporal values.
    pub length: u32,
    /// Position in the default-values record, 1-based (bytes 5..8).
    pub rec_pos: u32,
    /// `pack_flag` (bytes 8..10), see [`pack_flag`].
    pub pack_flag: u16,
    /// `unireg_check` (byte 10): 15 = AUTO_INCREMENT, 21–23 TIMESTAMP
    /// DEFAULT/ON UPDATE NOW(), 24 MariaDB compressed column; MySQL 5.7 sets
    /// bit 128 for generated columns.
    pub unireg_check: u8,
    /// ENUM/SET: the 1-based number of its element list (byte 12).
    pub interval_nr: u8,
    /// Collation id (bytes 11 and 14), 63 (binary) when 0 or GEOMETRY.
    pub collation_id: u16,
    /// GEOMETRY subtype (byte 14 of a GEOMETRY column).
    pub geometry_type: Option<GeometryType>,
    /// Decimals: DECIMAL scale, FLOAT/DOUBLE digits after the point
    /// (31 or more: not fixed), fractional-second digits of TIME, DATETIME
    /// and TIMESTAMP.
    pub decimals: u8,
    /// UNSIGNED (numeric columns).
    pub unsigned: bool,
    /// ZEROFILL (numeric columns).
    pub zerofill: bool,
    /// NULL allowed.
    pub nullable: bool,
    /// ENUM/SET element names as stored, in the column's charset
    /// (UCS-2/UTF-16/UTF-32 lists are stored as hex and decoded here).
    pub elements: Vec<Vec<u8>>,
    /// Column comment (the server writes it in utf8).
    pub comment: String,
    /// Generated column expression (virtual or stored).
    pub generated: Option<FrmExpr>,
    /// DEFAULT expression (MariaDB 10.2+).
    pub default_expr: Option<FrmExpr>,
    /// CHECK constraint on the column (MariaDB 10.2+).
    pub check: Option<FrmExpr>,
    /// MariaDB `EXTRA2_FIELD_FLAGS` visibility: 0 visible, 1 INVISIBLE
    /// (user), 2 system (versioning row_start/row_end), 3 fully hidden (the
    /// hash of a long UNIQUE key).
    pub invisible: u8,
    /// What the default-values record holds for the column (see
    /// [`FrmDefault`]); `None` when the column has no place there (BLOB,
    /// TEXT and the like keep only a pointer) or the record is short.
    pub default_raw: Option<FrmDefault>,
}

/// A column's value in the `.frm`'s default-values record (mysql-server
/// 5.6 `sql/unireg.cc` `make_empty_rec` writes it; `sql/table.cc`
/// `open_binary_frm` and MariaDB `sql/table.cc`
/// `init_from_binary_frm_image` read it as the `default_values` record):
/// null bits first (bit 0 of byte 0 is skipped unless the table has
/// `HA_OPTION_PACK_RECORD`), each nullable column's bit in column order,
/// a BIT column's bits beyond whole bytes right after its null bit, then
/// each column at [`FrmColumn::rec_pos`] − 1 in the server's row format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrmDefault {
    /// The null bit is set: DEFAULT NULL.
    Null,
    /// The value's bytes in the server's row format (integers and the old
    /// temporal types little-endian, VARCHAR with its length bytes).
    Bytes(Vec<u8>),
    /// A BIT column's value (its whole bytes and its bits in the null
    /// bytes).
    Bits(u64),
}

impl FrmColumn {
    /// AUTO_INCREMENT (`unireg_check` NEXT_NUMBER = 15).
    pub fn auto_increment(&self) -> bool {
        self.unireg_check & 127 == 15
    }

    /// MariaDB `COMPRESSED` column (`unireg_check` TMYSQL_COMPRESSED = 24).
    pub fn compressed(&self) -> bool {
        self.unireg_check & 127 == 24
    }

    /// Stored in the row (not a virtual generated column).
    pub fn stored(&self) -> bool {
        !matches!(
            self.generated,
            Some(FrmExpr {
                kind: ExprKind::Virtual | ExprKind::UsingHash,
                ..
            })
        )
    }

    /// No DEFAULT clause (`FIELDFLAG_NO_DEFAULT`).
    pub(crate) fn no_default(&self) -> bool {
        self.pack_flag & pack_flag::FIELDFLAG_NO_DEFAULT != 0
    }

    /// The column's charset, `None` when the collation id is not one of
    /// MySQL 5.6's or MariaDB 10.11's.
    pub fn charset(&self) -> Option<Charset> {
        Charset::of_collation(self.collation_id)
    }

    fn binary(&self) -> bool {
        self.collation_id == 63
    }

    /// Bytes of the length prefix of a BLOB/TEXT/GEOMETRY, or of an
    /// ENUM/SET value (`f_packtype` → `calc_pack_length`): 1, 2, 3, 4 (or 8
    /// for a SET of 33–64 elements).
    pub(crate) fn packed_bytes(&self) -> Option<u32> {
        match (self.pack_flag >> pack_flag::FIELDFLAG_PACK_SHIFT) & 15 {
            1 => Some(1),
            2 => Some(2),
            9 => Some(3),
            3 => Some(4),
            8 => Some(8),
            _ => None,
        }
    }

    /// Bytes the value takes in the server's row image (`Field::pack_length`;
    /// BLOBs: length bytes + an 8-byte pointer, `portable_sizeof_char_ptr`).
    /// BIT's bits beyond whole bytes go to the null-bit bytes.
    pub fn pack_length(&self) -> Option<u32> {
        let frac = |d: u8| u32::from(d.min(6)).div_ceil(2);
        // MariaDB plugin types (`sql/plugin/type_inet`, `type_uuid`): fixed
        // binary values.
        match self.type_name.as_deref() {
            Some("uuid" | "inet6") => return Some(16),
            Some("inet4") => return Some(4),
            Some(_) => return None,
            None => {}
        }
        Some(match self.real_type.0 {
            1 | 13 => 1,
            2 => 2,
            9 | 14 => 3,
            3 | 4 | 7 | 10 => 4,
            8 | 5 | 12 => 8,
            11 => 3,
            17 => frac(self.decimals).saturating_add(4),
            18 => frac(self.decimals).saturating_add(5),
            19 => frac(self.decimals).saturating_add(3),
            246 => crate::table::decimal_bin_size(self.precision()?, u32::from(self.decimals))?,
            16 => {
                if self.pack_flag & pack_flag::FIELDFLAG_TREAT_BIT_AS_CHAR != 0 {
                    self.length.checked_add(7)? / 8
                } else {
                    self.length / 8
                }
            }
            0 | 254 | 253 => self.length,
            15 => self
                .length
                .checked_add(if self.length < 256 { 1 } else { 2 })?,
            247 | 248 => self.packed_bytes()?,
            245 | 249..=252 | 255 => self.packed_bytes()?.checked_add(8)?,
            _ => return None,
        })
    }

    /// Bytes a key part covering the whole column has
    /// (`Field::key_length`): 0 for BLOB/TEXT/GEOMETRY/JSON (always
    /// prefixes), the byte length for strings, the pack length otherwise.
    pub(crate) fn key_length(&self) -> Option<u32> {
        if self.type_name.is_some() {
            return self.pack_length();
        }
        match self.real_type.0 {
            245 | 249..=252 | 255 => Some(0),
            0 | 15 | 253 | 254 => Some(self.length),
            _ => self.pack_length(),
        }
    }

    /// DECIMAL precision (`my_decimal_length_to_precision`): the length
    /// less one for the point when scale > 0 and one for the sign when
    /// signed.
    pub fn precision(&self) -> Option<u32> {
        if self.real_type != FieldType::NEWDECIMAL && self.real_type != FieldType::DECIMAL {
            return None;
        }
        let point = u32::from(self.decimals > 0);
        let sign = u32::from(!self.unsigned);
        self.length.checked_sub(point)?.checked_sub(sign)
    }

    /// Characters of CHAR/VARCHAR/TEXT (bytes / mbmaxlen), when the
    /// charset is known.
    pub fn char_length(&self) -> Option<u32> {
        let max = self.charset()?.mbmaxlen;
        // A MariaDB COMPRESSED column's length counts one more byte.
        self.length
            .saturating_sub(u32::from(self.compressed()))
            .checked_div(u32::from(max))
    }

    /// The charset of a column that holds text (CHAR, VARCHAR, TEXT, ENUM,
    /// SET in a non-binary collation), `None` for every other column.
    pub(crate) fn text_charset(&self) -> Option<Charset> {
        if self.binary() || self.type_name.is_some() {
            return None;
        }
        match self.real_type.0 {
            0 if self.pack_flag & pack_flag::FIELDFLAG_NUMBER == 0 => self.charset(),
            15 | 247..=254 => self.charset(),
            _ => None,
        }
    }

    /// Most bytes a value can have: the byte length of CHAR/VARCHAR, 2^(8 ×
    /// length bytes) − 1 for BLOB/TEXT.
    pub fn max_octets(&self) -> Option<u64> {
        match self.real_type.0 {
            _ if self.type_name.is_some() => None,
            15 | 253 | 254 => Some(u64::from(
                self.length.saturating_sub(u32::from(self.compressed())),
            )),
            249..=252 => {
                let n = self.packed_bytes()?;
                1u64.checked_shl(n.checked_mul(8)?)?.checked_sub(1)
            }
            _ => None,
        }
    }

    /// ENUM/SET element names as text: UTF-8 stays, latin1 is Windows-1252
    /// as MySQL's latin1 is, UCS-2/UTF-16 and UTF-32 are big-endian; other
    /// charsets are read as UTF-8 with replacement characters.
    pub fn element_names(&self) -> Vec<String> {
        let cs = self.charset().map_or("", |c| c.name);
        self.elements.iter().map(|e| decode_text(cs, e)).collect()
    }

    /// The SQL data type name, as `INFORMATION_SCHEMA.COLUMNS.DATA_TYPE`
    /// gives it (lowercase, no length).
    pub fn data_type(&self) -> String {
        if let Some(t) = &self.type_name {
            return t.clone();
        }
        let bin = self.binary();
        let s = match self.real_type.0 {
            0 | 246 => "decimal",
            1 => "tinyint",
            2 => "smallint",
            3 => "int",
            4 => "float",
            5 => "double",
            6 => "null",
            7 | 17 => "timestamp",
            8 => "bigint",
            9 => "mediumint",
            10 | 14 => "date",
            11 | 19 => "time",
            12 | 18 => "datetime",
            13 => "year",
            15 | 253 if bin => "varbinary",
            15 | 253 => "varchar",
            16 => "bit",
            245 => "json",
            247 => "enum",
            248 => "set",
            249 if bin => "tinyblob",
            249 => "tinytext",
            250 if bin => "mediumblob",
            250 => "mediumtext",
            251 if bin => "longblob",
            251 => "longtext",
            252 if bin => "blob",
            252 => "text",
            254 if bin => "binary",
            254 => "char",
            255 => {
                return self
                    .geometry_type
                    .unwrap_or(GeometryType::Geometry)
                    .name()
                    .to_string()
            }
            _ => "unknown",
        };
        s.to_string()
    }

    /// The full column type, as `SHOW CREATE TABLE` and
    /// `INFORMATION_SCHEMA.COLUMNS.COLUMN_TYPE` give it (MySQL 5.6 /
    /// MariaDB 10.11 spelling: integer display widths, `year(4)`).
    pub fn column_type(&self) -> String {
        let base = self.data_type();
        let mut s = match self.real_type.0 {
            1 | 2 | 3 | 8 | 9 | 13 => format!("{base}({})", self.length),
            0 | 246 => format!(
                "{base}({},{})",
                self.precision().unwrap_or(0),
                self.decimals
            ),
            4 | 5 if self.decimals < 31 => format!("{base}({},{})", self.length, self.decimals),
            16 => format!("{base}({})", self.length),
            7 | 11 | 12 | 17 | 18 | 19 if self.decimals > 0 => {
                format!("{base}({})", self.decimals)
            }
            15 | 253 | 254 if self.type_name.is_none() => {
                format!("{base}({})", self.char_length().unwrap_or(self.length))
            }
            247 | 248 => {
                let names: Vec<String> = self
                    .element_names()
                    .iter()
                    .map(|n| format!("'{}'", n.replace('\'', "''")))
                    .collect();
                format!("{base}({})", names.join(","))
            }
            _ => base,
        };
        if self.real_type.is_integer() || matches!(self.real_type.0, 0 | 4 | 5 | 246) {
            if self.unsigned {
                s.push_str(" unsigned");
            }
            if self.zerofill {
                s.push_str(" zerofill");
            }
        }
        if self.compressed() {
            s.push_str(" /*M!100301 COMPRESSED*/");
        }
        s
    }
}

/// Windows-1252 bytes 0x80–0x9F as MySQL's latin1 maps them
/// (`strings/ctype-latin1.c` `cs_to_uni`; the five undefined bytes map to
/// the C1 control of the same number).
const CP1252_80: [u16; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

fn decode_text(charset: &str, b: &[u8]) -> String {
    match charset {
        "latin1" => b
            .iter()
            .map(|&c| {
                let u = match c {
                    0x80..=0x9F => CP1252_80
                        .get(usize::from(c.wrapping_sub(0x80)))
                        .copied()
                        .unwrap_or(u16::from(c)),
                    _ => u16::from(c),
                };
                char::from_u32(u32::from(u)).unwrap_or(char::REPLACEMENT_CHARACTER)
            })
            .collect(),
        "ucs2" | "utf16" => {
            let units: Vec<u16> = b
                .chunks(2)
                .map(|p| p.iter().fold(0u16, |a, &x| (a << 8) | u16::from(x)))
                .collect();
            String::from_utf16_lossy(&units)
        }
        "utf16le" => {
            let units: Vec<u16> = b
                .chunks(2)
                .map(|p| p.iter().rev().fold(0u16, |a, &x| (a << 8) | u16::from(x)))
                .collect();
            String::from_utf16_lossy(&units)
        }
        "utf32" => b
            .chunks(4)
            .map(|p| {
                let u = p.iter().fold(0u32, |a, &x| (a << 8) | u32::from(x));
                char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER)
            })
            .collect(),
        _ => String::from_utf8_lossy(b).into_owned(),
    }
}

/// One key part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrmKeyPart {
    /// The column, 0-based position in [`Frm::columns`].
    pub column: usize,
    /// Bytes of the key part (`KEY_PART_INFO::length`).
    pub length: u16,
    /// Offset of the column in the record, 0-based.
    pub offset: u16,
    /// `key_part_flag` (byte 4).
    pub flags: u8,
    /// `key_type` (bytes 5..7).
    pub key_type: u16,
    /// The indexed prefix in bytes, when the part is a prefix of the
    /// column (its length differs from the column's key length).
    pub prefix_len: Option<u32>,
}

/// One key (index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrmKey {
    /// Name (`PRIMARY` for the primary key).
    pub name: String,
    /// Flags, see [`key_flag`].
    pub flags: u16,
    /// `key_length`: bytes of the key.
    pub key_length: u16,
    /// Algorithm (`enum ha_key_alg`): 0 undefined, 1 BTREE, 2 RTREE, 3
    /// HASH, 4 FULLTEXT, 5 MariaDB long unique hash.
    pub algorithm: u8,
    /// KEY_BLOCK_SIZE of the key.
    pub block_size: u16,
    /// Parts in key order.
    pub parts: Vec<FrmKeyPart>,
    /// Comment.
    pub comment: String,
    /// MariaDB `IGNORED` index (`EXTRA2_INDEX_FLAGS`).
    pub ignored: bool,
}

impl FrmKey {
    /// UNIQUE (primary keys are unique too).
    pub fn unique(&self) -> bool {
        self.flags & key_flag::HA_NOSAME != 0
    }
    /// Named `PRIMARY` (the server compares without case).
    pub fn primary(&self) -> bool {
        self.name.eq_ignore_ascii_case("PRIMARY")
    }
    /// FULLTEXT.
    pub fn fulltext(&self) -> bool {
        self.flags & key_flag::HA_FULLTEXT != 0
    }
    /// SPATIAL.
    pub fn spatial(&self) -> bool {
        self.flags & key_flag::HA_SPATIAL != 0
    }
}

/// An extra2 entry (MariaDB 10.0+) the reader keeps but does not
/// interpret, or one it did not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extra2Entry {
    /// Type code (`extra2_frm_value_type`); 128 and above are "important":
    /// a server that does not know one refuses the table.
    pub kind: u8,
    /// Offset of the value in the file.
    pub offset: usize,
    /// Value bytes.
    pub value: Vec<u8>,
}

/// A parsed `.frm` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frm {
    /// frm version (header byte 2): 9 (MySQL 4.1–5.0), 10
    /// (`FRM_VER_TRUE_VARCHAR`), 11 (MariaDB with expressions).
    pub frm_version: u8,
    /// `legacy_db_type` (byte 3): 12 = InnoDB, 9 = MyISAM, 42 = Aria…
    pub legacy_db_type: u8,
    /// Engine name from the extra segment (`InnoDB`; `partition` for a
    /// partitioned table), when present.
    pub engine: Option<String>,
    /// A partitioned table's engine (`default_part_db_type`, byte 61, a
    /// `legacy_db_type`: 12 = InnoDB).
    pub partition_db_type: u8,
    /// `MYSQL_VERSION_ID` of the server that wrote it (bytes 51..55):
    /// 50624 = 5.6.24, 101119 = 10.11.19.
    pub mysql_version: u32,
    /// ROW_FORMAT given in CREATE TABLE (byte 40).
    pub row_type: FrmRowType,
    /// Default collation id of the table (bytes 38 and 41).
    pub table_collation: u16,
    /// KEY_BLOCK_SIZE (bytes 62..64), 0 when not given.
    pub key_block_size: u16,
    /// STATS_SAMPLE_PAGES (bytes 42..44), 0 when not given.
    pub stats_sample_pages: u16,
    /// STATS_AUTO_RECALC (byte 44): 0 not given, 1 on, 2 off
    /// (`HA_STATS_AUTO_RECALC_*`).
    pub stats_auto_recalc: u8,
    /// `db_create_options` (bytes 30..32, `HA_OPTION_*`).
    pub create_options: u16,
    /// MAX_ROWS.
    pub max_rows: u32,
    /// MIN_ROWS.
    pub min_rows: u32,
    /// AVG_ROW_LENGTH.
    pub avg_row_length: u32,
    /// Bytes of the default-values record (`reclength`).
    pub reclength: u16,
    /// Offset of the default-values record in the file.
    pub record_offset: usize,
    /// Table comment (short in forminfo, long in the extra segment).
    pub comment: String,
    /// CONNECTION string.
    pub connect_string: String,
    /// Partition definition text (`PARTITION BY …`), when partitioned.
    pub partition_info: Option<String>,
    /// Columns in table order (hidden ones included, see
    /// [`FrmColumn::invisible`]).
    pub columns: Vec<FrmColumn>,
    /// Keys in the file's order (the server sorts PRIMARY first, then
    /// unique keys).
    pub keys: Vec<FrmKey>,
    /// Table CHECK constraints (MariaDB).
    pub checks: Vec<FrmExpr>,
    /// MariaDB: the table definition version UUID (`EXTRA2_TABLEDEF_VERSION`).
    pub tabledef_version: Option<Vec<u8>>,
    /// MariaDB system versioning: the row_start and row_end columns.
    pub system_period: Option<(usize, usize)>,
    /// MariaDB extra2 entries kept raw (engine options, GIS options,
    /// application periods, unknown kinds).
    pub extra2_other: Vec<Extra2Entry>,
}

/// A `.frm` read error ([`ErrorKind::Frm`]) at byte `offset` of the file.
fn frm_err(kind: FrmErrorKind, offset: usize) -> Error {
    Error::new(ErrorKind::Frm(kind), Place::File { offset })
}

/// Bounds-checked little-endian reads over the file.
struct R<'a> {
    b: &'a [u8],
}

impl<'a> R<'a> {
    /// `at` is where the value was read; a read that starts past the end
    /// (a walk run out of file) names the end.
    fn err(&self, what: &'static str, at: usize, value: u64) -> Error {
        frm_err(
            FrmErrorKind::OutOfFile {
                what,
                value,
                len: self.b.len(),
            },
            at.min(self.b.len()),
        )
    }
    fn slice(&self, what: &'static str, at: usize, len: usize) -> Result<&'a [u8], Error> {
        at.checked_add(len)
            .and_then(|end| self.b.get(at..end))
            .ok_or_else(|| self.err(what, at, u64::try_from(len).unwrap_or(u64::MAX)))
    }
    fn u8(&self, what: &'static str, at: usize) -> Result<u8, Error> {
        self.b.get(at).copied().ok_or_else(|| self.err(what, at, 1))
    }
    fn u16(&self, what: &'static str, at: usize) -> Result<u16, Error> {
        let s = self.slice(what, at, 2)?;
        Ok(s.iter().rev().fold(0u16, |a, &x| (a << 8) | u16::from(x)))
    }
    fn u32(&self, what: &'static str, at: usize) -> Result<u32, Error> {
        let s = self.slice(what, at, 4)?;
        Ok(s.iter().rev().fold(0u32, |a, &x| (a << 8) | u32::from(x)))
    }
    /// `base + add`, which must lie inside the file (or at its end).
    fn pos(&self, what: &'static str, at: usize, base: usize, add: u64) -> Result<usize, Error> {
        usize::try_from(add)
            .ok()
            .and_then(|a| base.checked_add(a))
            .filter(|&p| p <= self.b.len())
            .ok_or_else(|| self.err(what, at, add))
    }
    /// A NUL-terminated string at `at`, without the NUL.
    fn cstr(&self, what: &'static str, at: usize) -> Result<&'a [u8], Error> {
        let rest = self.b.get(at..).ok_or_else(|| self.err(what, at, 0))?;
        let n = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or_else(|| frm_err(FrmErrorKind::BadNames(what), at))?;
        rest.get(..n).ok_or_else(|| self.err(what, at, 0))
    }
}

/// Splits one TYPELIB as `fix_type_pointers` reads it: a separator byte,
/// values each followed by the separator, then NUL; a lone NUL is an empty
/// list. Returns the values and the position after the list. Bounded by
/// `end`.
fn typelib<'a>(
    b: &'a [u8],
    at: usize,
    end: usize,
    what: &'static str,
) -> Result<(Vec<&'a [u8]>, usize), Error> {
    let bad = || frm_err(FrmErrorKind::BadNames(what), at);
    let region = b.get(at..end).ok_or_else(bad)?;
    let (&sep, rest) = region.split_first().ok_or_else(bad)?;
    if sep == 0 {
        return Ok((Vec::new(), at.checked_add(1).ok_or_else(bad)?));
    }
    let mut values = Vec::new();
    let mut i = 0usize; // index into rest
    loop {
        let tail = rest.get(i..).ok_or_else(bad)?;
        // strchr stops at NUL: the list ends where NUL comes before the
        // separator.
        let n = tail
            .iter()
            .position(|&c| c == sep || c == 0)
            .ok_or_else(bad)?;
        let hit = *tail.get(n).ok_or_else(bad)?;
        if hit == 0 {
            // The last separator must have been right before the NUL.
            if n != 0 {
                return Err(bad());
            }
            let used = i.checked_add(2).ok_or_else(bad)?; // separator + NUL
            return Ok((values, at.checked_add(used).ok_or_else(bad)?));
        }
        values.push(tail.get(..n).ok_or_else(bad)?);
        i = i
            .checked_add(n)
            .and_then(|x| x.checked_add(1))
            .ok_or_else(bad)?;
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Hex-decodes an element of a UCS-2/UTF-16/UTF-32 list (`unhex_type2`);
/// leaves it as is when it is not hex.
fn unhex(b: &[u8]) -> Vec<u8> {
    let val = |c: u8| (c as char).to_digit(16);
    if !b.len().is_multiple_of(2) {
        return b.to_vec();
    }
    let out: Option<Vec<u8>> = b
        .chunks(2)
        .map(|p| match p {
            [h, l] => u8::try_from(val(*h)?.checked_mul(16)?.checked_add(val(*l)?)?).ok(),
            _ => None,
        })
        .collect();
    out.unwrap_or_else(|| b.to_vec())
}

/// `net_field_length`: MariaDB's length-encoded integers in
/// `EXTRA2_FIELD_DATA_TYPE_INFO`.
fn lenenc(b: &[u8], pos: &mut usize) -> Option<u64> {
    let first = *b.get(*pos)?;
    let (n, skip) = match first {
        0..=250 => (u64::from(first), 1),
        252 => (le(b.get(pos.checked_add(1)?..pos.checked_add(3)?)?), 3),
        253 => (le(b.get(pos.checked_add(1)?..pos.checked_add(4)?)?), 4),
        254 => (le(b.get(pos.checked_add(1)?..pos.checked_add(9)?)?), 9),
        _ => return None,
    };
    *pos = pos.checked_add(skip)?;
    Some(n)
}

fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x))
}

/// The header ("fileinfo", 64 bytes) values the reader uses
/// (`create_frm`, `pack_header`).
struct Header {
    frm_version: u8,
    legacy_db_type: u8,
    extra2_len: u16,
    key_pos: usize,
    key_len16: u16,
    reclength: u16,
    max_rows: u32,
    min_rows: u32,
    create_options: u16,
    avg_row_length: u32,
    row_type: FrmRowType,
    key_len32: u32,
    mysql_version: u32,
    extra_size: u32,
    key_block_size: u16,
    partition_db_type: u8,
    table_collation: u16,
    stats_sample_pages: u16,
    stats_auto_recalc: u8,
}

impl Header {
    /// Reads the header: not a view, the magic, the frm version, then the
    /// positions, lengths and table options at their fixed offsets.
    fn read(r: &R<'_>) -> Result<Header, Error> {
        use FrmErrorKind::*;
        let b = r.b;
        if b.starts_with(b"TYPE=VIEW\n") {
            return Err(frm_err(View, 0));
        }
        if b.len() < FRM_HEADER_SIZE {
            return Err(frm_err(TooShort, b.len()));
        }
        if r.u8("magic", 0)? != 254 || r.u8("magic", 1)? != 1 {
            return Err(frm_err(BadMagic, 0));
        }
        let frm_version = r.u8("frm version", 2)?;
        // 4.1+ column records (17 bytes) need new_frm_ver >= 3.
        if !(FRM_VER + 3..=FRM_VER_EXPRESSIONS).contains(&frm_version) {
            return Err(frm_err(UnsupportedVersion(frm_version), 2));
        }
        let legacy_db_type = r.u8("engine", 3)?;
        let extra2_len = r.u16("extra2 length", 4)?;
        let key_pos = usize::from(r.u16("key section position", 6)?);
        let key_len16 = r.u16("key buffer length", 14)?;
        let reclength = r.u16("record length", 16)?;
        let max_rows = r.u32("max rows", 18)?;
        let min_rows = r.u32("min rows", 22)?;
        let create_options = r.u16("create options", 30)?;
        let new_charset = r.u8("file name byte", 32)? == 0;
        let avg_row_length = r.u32("avg row length", 34)?;
        let cs_lo = r.u8("table charset", 38)?;
        let row_type = FrmRowType::from_byte(r.u8("row type", 40)?);
        let cs_hi = r.u8("table charset high byte", 41)?;
        let key_len32 = r.u32("key buffer length", 47)?;
        let mysql_version = r.u32("server version", 51)?;
        let extra_size = r.u32("extra segment size", 55)?;
        let key_block_size = r.u16("key block size", 62)?;
        let partition_db_type = r.u8("partition engine", 61)?;
        let stats_sample_pages = r.u16("stats sample pages", 42)?;
        let stats_auto_recalc = r.u8("stats auto recalc", 44)?;
        let table_collation = if new_charset {
            u16::from(cs_hi) << 8 | u16::from(cs_lo)
        } else {
            0
        };
        Ok(Header {
            frm_version,
            legacy_db_type,
            extra2_len,
            key_pos,
            key_len16,
            reclength,
            max_rows,
            min_rows,
            create_options,
            avg_row_length,
            row_type,
            key_len32,
            mysql_version,
            extra_size,
            key_block_size,
            partition_db_type,
            table_collation,
            stats_sample_pages,
            stats_auto_recalc,
        })
    }
}

/// The forminfo position (4 bytes after the extra2 segment), which must
/// leave room for the 288-byte forminfo block.
fn forminfo_position(r: &R<'_>, e2_end: usize) -> Result<usize, Error> {
    let forminfo = usize::try_from(r.u32("forminfo position", e2_end)?).unwrap_or(usize::MAX);
    if forminfo == 0
        || forminfo
            .checked_add(FRM_FORMINFO_SIZE)
            .is_none_or(|e| e > r.b.len())
    {
        return Err(r.err("forminfo position", e2_end, forminfo as u64));
    }
    Ok(forminfo)
}

/// The key section at header bytes 6..8 and the default-values record
/// after its buffer (header bytes 14..16, or 47..51 when those are
/// `0xFFFF`; record length at 16..18): the keys, the record's offset and
/// its end.
fn read_key_section(r: &R<'_>, h: &Header) -> Result<(Vec<FrmKey>, usize, usize), Error> {
    let key_pos = h.key_pos;
    if key_pos.checked_add(6).is_none_or(|e| e > r.b.len()) {
        return Err(r.err("key section position", 6, key_pos as u64));
    }
    let keys = read_keys(r, key_pos)?;
    let key_buf = if h.key_len16 == 0xffff {
        u64::from(h.key_len32)
    } else {
        u64::from(h.key_len16)
    };
    let record_offset = r.pos("key buffer length", 14, key_pos, key_buf)?;
    let rec_end = r.pos("record length", 16, record_offset, u64::from(h.reclength))?;
    Ok((keys, record_offset, rec_end))
}

/// The forminfo block's counts and lengths of the column sections.
struct FormInfo {
    /// Offset of the block in the file.
    at: usize,
    n_fields: u16,
    screens: u16,
    n_length: u16,
    interval_count: u16,
    int_length: u16,
    com_length: u16,
    vcol_length: u16,
    short_comment_len: u8,
}

impl FormInfo {
    /// Reads the forminfo block at `at` (inside the file, see
    /// [`forminfo_position`]).
    fn read(r: &R<'_>, at: usize) -> Result<FormInfo, Error> {
        let fi = |off: usize| at.saturating_add(off);
        Ok(FormInfo {
            at,
            n_fields: r.u16("column count", fi(258))?,
            screens: r.u16("screens length", fi(260))?,
            n_length: r.u16("column names length", fi(268))?,
            interval_count: r.u16("ENUM/SET list count", fi(270))?,
            int_length: r.u16("ENUM/SET lists length", fi(274))?,
            com_length: r.u16("column comments length", fi(284))?,
            vcol_length: r.u16("expressions length", fi(286))?,
            short_comment_len: r.u8("table comment length", fi(46))?,
        })
    }

    /// The file offset of byte `off` of the block.
    fn fi(&self, off: usize) -> usize {
        self.at.saturating_add(off)
    }
}

/// What the extra segment gives, with the table comment.
struct ExtraSegment {
    engine: Option<String>,
    connect_string: String,
    partition_info: Option<String>,
    comment: String,
}

/// The table comment (short in forminfo byte 46 on, or long in the extra
/// segment) and the extra segment after the default-values record:
/// connect string, engine name, partition info, fulltext parser names.
fn read_extra_segment(
    r: &R<'_>,
    h: &Header,
    rec_end: usize,
    keys: &[FrmKey],
    fi: &FormInfo,
) -> Result<ExtraSegment, Error> {
    let short_comment_len = fi.short_comment_len;
    let mut engine = None;
    let mut connect_string = String::new();
    let mut partition_info = None;
    let mut comment = String::new();
    if short_comment_len != 255 {
        comment = lossy(r.slice("table comment", fi.fi(47), usize::from(short_comment_len))?);
    }
    if h.extra_size > 0 {
        let end = r.pos("extra segment size", 55, rec_end, u64::from(h.extra_size))?;
        let mut p = rec_end;
        let cl = r.u16("connect string length", p)?;
        connect_string = lossy(r.slice("connect string", p.saturating_add(2), usize::from(cl))?);
        p = r.pos("connect string length", p, p, u64::from(cl) + 2)?;
        if p.saturating_add(2) < end {
            let el = r.u16("engine name length", p)?;
            engine = Some(lossy(r.slice(
                "engine name",
                p.saturating_add(2),
                usize::from(el),
            )?));
            p = r.pos("engine name length", p, p, u64::from(el) + 2)?;
        }
        if p.saturating_add(5) < end {
            let pl = r.u32("partition info length", p)?;
            if pl > 0 {
                partition_info = Some(lossy(r.slice(
                    "partition info",
                    p.saturating_add(4),
                    pl as usize,
                )?));
            }
            p = r.pos("partition info length", p, p, u64::from(pl) + 5)?;
        }
        if h.mysql_version >= 50110 && p < end {
            p = p.saturating_add(1); // auto_partitioned
        }
        let parsers = keys
            .iter()
            .filter(|k| k.flags & key_flag::HA_USES_PARSER != 0)
            .count();
        for _ in 0..parsers {
            let s = r.cstr("fulltext parser name", p)?;
            p = r.pos(
                "fulltext parser name",
                p,
                p,
                (s.len() as u64).saturating_add(1),
            )?;
        }
        if short_comment_len == 255 {
            let l = r.u16("table comment length", p)?;
            comment = lossy(r.slice("table comment", p.saturating_add(2), usize::from(l))?);
        }
        // Not read: the format section (MySQL: tablespace, column
        // storage), MariaDB's legacy text options.
    }
    Ok(ExtraSegment {
        engine,
        connect_string,
        partition_info,
        comment,
    })
}

/// Where the column sections lie: after forminfo and the screens, the
/// 17-byte column records, then the names, ENUM/SET lists, column
/// comments and expressions, each end checked against the file.
struct ColumnSections {
    field_start: usize,
    names_at: usize,
    names_end: usize,
    ints_end: usize,
    com_end: usize,
    vcol_end: usize,
}

impl ColumnSections {
    /// Locates the sections from the forminfo lengths (`e2_end` is where
    /// the forminfo position was read).
    fn locate(r: &R<'_>, e2_end: usize, fi: &FormInfo) -> Result<ColumnSections, Error> {
        let fields = usize::from(fi.n_fields);
        let disk = r.pos("forminfo position", e2_end, fi.at, FRM_FORMINFO_SIZE as u64)?;
        let field_start = r.pos("screens length", fi.fi(260), disk, u64::from(fi.screens))?;
        let names_at = r.pos(
            "column count",
            fi.fi(258),
            field_start,
            (fields as u64).saturating_mul(FCOMP as u64),
        )?;
        let names_end = r.pos(
            "column names length",
            fi.fi(268),
            names_at,
            u64::from(fi.n_length),
        )?;
        let ints_end = r.pos(
            "ENUM/SET lists length",
            fi.fi(274),
            names_end,
            u64::from(fi.int_length),
        )?;
        let com_end = r.pos(
            "column comments length",
            fi.fi(284),
            ints_end,
            u64::from(fi.com_length),
        )?;
        let vcol_end = r.pos(
            "expressions length",
            fi.fi(286),
            com_end,
            u64::from(fi.vcol_length),
        )?;
        Ok(ColumnSections {
            field_start,
            names_at,
            names_end,
            ints_end,
            com_end,
            vcol_end,
        })
    }
}

/// An ENUM/SET element list as [`typelib`] splits it.
type Interval<'a> = Vec<&'a [u8]>;

/// The column names (one TYPELIB, as many as the forminfo column count)
/// and the ENUM/SET element lists (one TYPELIB each) after them.
fn read_names<'a>(
    b: &'a [u8],
    s: &ColumnSections,
    fi: &FormInfo,
) -> Result<(Vec<&'a [u8]>, Vec<Interval<'a>>), Error> {
    let (names, after) = typelib(b, s.names_at, s.names_end, "column name")?;
    if names.len() != usize::from(fi.n_fields) || after > s.names_end {
        return Err(frm_err(
            FrmErrorKind::CountMismatch {
                what: "column names",
                stated: u32::from(fi.n_fields),
                found: u32::try_from(names.len()).unwrap_or(u32::MAX),
            },
            s.names_at,
        ));
    }
    let mut intervals: Vec<Interval<'a>> =
        Vec::with_capacity(usize::from(fi.interval_count.min(fi.int_length)));
    let mut p = s.names_end;
    for _ in 0..fi.interval_count {
        let (vals, next) = typelib(b, p, s.ints_end, "ENUM/SET element")?;
        intervals.push(vals);
        p = next;
    }
    Ok((names, intervals))
}

/// The column records read in order, with what they share: where the next
/// column comment and the next expression entry start.
struct ColumnReader<'r, 'a> {
    r: &'r R<'a>,
    ex: &'r Extra2,
    intervals: &'r [Interval<'a>],
    field_start: usize,
    mysql_version: u32,
    comment_pos: usize,
    vcol_pos: usize,
}

impl ColumnReader<'_, '_> {
    /// Written by MariaDB (server version 10.0 or later).
    fn mariadb(&self) -> bool {
        self.mysql_version >= 100000
    }

    /// Reads column `i`, named `name`: its 17-byte record (`pack_fields`:
    /// length 3..5, record position 5..8, `pack_flag` 8..10,
    /// `unireg_check` 10, charset high byte 11, interval 12, type 13,
    /// charset or geometry type 14, comment length 15..17), its comment and
    /// a generated column's entry, then the type the server makes of it
    /// (`make_field`).
    fn column(&mut self, i: usize, name: &[u8]) -> Result<FrmColumn, Error> {
        let r = self.r;
        let mysql_version = self.mysql_version;
        let mysql57 = (50700..100000).contains(&mysql_version);
        let at = self.field_start.saturating_add(i.saturating_mul(FCOMP));
        let rec = r.slice("column record", at, FCOMP)?;
        let g = |o: usize| rec.get(o).copied().unwrap_or(0);
        let g16 = |o: usize| u16::from(g(o)) | u16::from(g(o.saturating_add(1))) << 8;
        let length = u32::from(g16(3));
        let rec_pos = u32::from(g16(5)) | u32::from(g(7)) << 16;
        let pflag = g16(8);
        let unireg_check = g(10);
        let mut interval_nr = g(12);
        let mut field_type = FieldType(g(13));
        let comment_len = g16(15);
        let comment =
            lossy(r.slice("column comment", self.comment_pos, usize::from(comment_len))?);
        self.comment_pos = r.pos(
            "column comment length",
            at.saturating_add(15),
            self.comment_pos,
            u64::from(comment_len),
        )?;
        let mut generated = None;
        let mut real_type = field_type;
        if field_type == FieldType::JSON && (mysql_version < 50600 || self.mariadb()) {
            let (ty, iv, e) = self.old_virtual_column(at, interval_nr)?;
            interval_nr = iv;
            field_type = ty;
            real_type = field_type;
            generated = Some(e);
        } else if mysql57 && unireg_check & 128 != 0 {
            generated = Some(self.mysql57_generated_column()?);
        }
        let numeric = pflag & pack_flag::FIELDFLAG_NUMBER != 0;
        let packed = pflag & pack_flag::FIELDFLAG_PACK != 0;
        if !numeric && packed && interval_nr > 0 && field_type == FieldType::STRING {
            // make_field: a packed string with an interval is ENUM/SET.
            real_type = if pflag & pack_flag::FIELDFLAG_INTERVAL != 0 {
                FieldType::ENUM
            } else {
                FieldType::SET
            };
        }
        if field_type == FieldType::JSON && mysql57 {
            real_type = FieldType::JSON;
        }
        let mut col = FrmColumn {
            name: lossy(name),
            field_type,
            real_type,
            type_name: self.ex.type_names.get(&i).map(|s| lossy(s)),
            length,
            rec_pos,
            pack_flag: pflag,
            unireg_check,
            interval_nr,
            collation_id: 63,
            geometry_type: None,
            decimals: 0,
            unsigned: false,
            zerofill: false,
            nullable: pflag & pack_flag::FIELDFLAG_MAYBE_NULL != 0,
            elements: Vec::new(),
            comment,
            generated,
            default_expr: None,
            default_raw: None,
            check: None,
            invisible: self
                .ex
                .field_flags
                .as_ref()
                .and_then(|f| f.get(i))
                .map_or(0, |f| f & 3),
        };
        let dec_mask: u16 = if mysql_version >= 100200 { 63 } else { 31 };
        type_details(&mut col, g(11), g(14), dec_mask);
        self.elements(&mut col, at)?;
        Ok(col)
    }

    /// A MariaDB 5.2–10.1 virtual column's entry in the expressions
    /// section (the column record's byte 12 is its length): 1|2, real
    /// type, stored flag, [interval], text. Gives the real type, the
    /// interval number and the expression.
    fn old_virtual_column(
        &mut self,
        at: usize,
        interval_nr: u8,
    ) -> Result<(FieldType, u8, FrmExpr), Error> {
        let r = self.r;
        let vcol_pos = self.vcol_pos;
        let len = usize::from(interval_nr);
        let e = r.slice("virtual column", vcol_pos, len)?;
        let bad = || frm_err(FrmErrorKind::BadExpression, vcol_pos);
        let (&v, rest) = e.split_first().ok_or_else(bad)?;
        let (&ty, rest) = rest.split_first().ok_or_else(bad)?;
        let (&flags, rest) = rest.split_first().ok_or_else(bad)?;
        let (interval_nr, rest) = match v {
            1 => (0, rest),
            2 => {
                let (&iv, rest) = rest.split_first().ok_or_else(bad)?;
                (iv, rest)
            }
            _ => return Err(bad()),
        };
        let generated = generated_expr(flags & 1 != 0, rest);
        self.vcol_pos = r.pos(
            "virtual column",
            at.saturating_add(12),
            vcol_pos,
            len as u64,
        )?;
        Ok((FieldType(ty), interval_nr, generated))
    }

    /// A MySQL 5.7 generated column's entry in the expressions section:
    /// 1, length u16, stored, text.
    fn mysql57_generated_column(&mut self) -> Result<FrmExpr, Error> {
        let r = self.r;
        let vcol_pos = self.vcol_pos;
        let bad = || frm_err(FrmErrorKind::BadExpression, vcol_pos);
        if r.u8("generated column", vcol_pos)? != 1 {
            return Err(bad());
        }
        let len = r.u16("generated column length", vcol_pos.saturating_add(1))?;
        let stored = r.u8("generated column", vcol_pos.saturating_add(3))? != 0;
        let text = r.slice(
            "generated column",
            vcol_pos.saturating_add(4),
            usize::from(len),
        )?;
        let generated = generated_expr(stored, text);
        self.vcol_pos = r.pos(
            "generated column length",
            vcol_pos.saturating_add(1),
            vcol_pos,
            u64::from(len).saturating_add(FRM_GCOL_HEADER_SIZE as u64),
        )?;
        Ok(generated)
    }

    /// An ENUM/SET column's element names, from the list its record's
    /// byte 12 numbers (1-based); UCS-2/UTF-16/UTF-32 lists are hex.
    fn elements(&self, col: &mut FrmColumn, at: usize) -> Result<(), Error> {
        let interval_nr = col.interval_nr;
        if interval_nr > 0 && matches!(col.real_type.0, 247 | 248) {
            let list = self
                .intervals
                .get(usize::from(interval_nr).wrapping_sub(1))
                .ok_or_else(|| {
                    frm_err(
                        FrmErrorKind::BadInterval(interval_nr),
                        at.saturating_add(12),
                    )
                })?;
            let wide = col.charset().is_some_and(|c| c.mbminlen > 1);
            col.elements = list
                .iter()
                .map(|v| if wide { unhex(v) } else { v.to_vec() })
                .collect();
        }
        Ok(())
    }
}

/// A generated column's expression as its entry gives it: stored or
/// virtual, unnamed, the text as written.
fn generated_expr(stored: bool, text: &[u8]) -> FrmExpr {
    FrmExpr {
        kind: if stored {
            ExprKind::Stored
        } else {
            ExprKind::Virtual
        },
        name: String::new(),
        text: lossy(text),
    }
}

/// What a column's type makes of the record's bytes 11 and 14 and of
/// `pack_flag`: the collation or the geometry type, the BLOB type by its
/// length bytes, a number's decimals, sign and ZEROFILL, a temporal
/// column's fractional digits (`dec_mask`: the decimals bits, 6 from
/// MariaDB 10.2 on).
fn type_details(col: &mut FrmColumn, cs_hi: u8, byte14: u8, dec_mask: u16) {
    let pflag = col.pack_flag;
    let length = col.length;
    let numeric = pflag & pack_flag::FIELDFLAG_NUMBER != 0;
    let packed = pflag & pack_flag::FIELDFLAG_PACK != 0;
    if col.real_type == FieldType::GEOMETRY {
        col.geometry_type = Some(GeometryType::from_byte(byte14));
    } else {
        let cs = u16::from(cs_hi) << 8 | u16::from(byte14);
        col.collation_id = if cs == 0 { 63 } else { cs };
    }
    if col.real_type.is_blob() && packed {
        // The BLOB type follows the length bytes (get_blob_type_from_length).
        col.real_type = match col.packed_bytes() {
            Some(1) => FieldType::TINY_BLOB,
            Some(3) => FieldType::MEDIUM_BLOB,
            Some(4) => FieldType::LONG_BLOB,
            _ => FieldType::BLOB,
        };
    }
    let rt = col.real_type;
    if numeric && (rt.is_integer() || rt.has_scale()) {
        // Field_num: unsigned unless FIELDFLAG_DECIMAL; decimals only
        // for DECIMAL/FLOAT/DOUBLE (other fields mangle these bits).
        if rt.has_scale() {
            col.decimals =
                u8::try_from((pflag >> pack_flag::FIELDFLAG_DEC_SHIFT) & dec_mask).unwrap_or(0);
        }
        col.unsigned = pflag & pack_flag::FIELDFLAG_DECIMAL == 0;
        col.zerofill = pflag & pack_flag::FIELDFLAG_ZEROFILL != 0;
    } else if rt.is_temporal_with_fraction() {
        // Length = integer width + point + digits (temporal_dec).
        let width = if matches!(col.real_type.0, 11 | 19) {
            10
        } else {
            19
        };
        col.decimals =
            u8::try_from(length.saturating_sub(width).saturating_sub(1).min(6)).unwrap_or(0);
    }
}

/// MariaDB 10.2+ expressions (after the 16-byte section header): type,
/// column u16, length u16, name length u8, name, text; table CHECKs are
/// returned, the others go to their column.
fn read_expressions(
    r: &R<'_>,
    vcol_pos: usize,
    vcol_end: usize,
    vcol_length: u16,
    columns: &mut [FrmColumn],
) -> Result<Vec<FrmExpr>, Error> {
    let mut checks = Vec::new();
    let mut p = vcol_pos;
    let mut n = 0usize;
    while p < vcol_end {
        n = n.saturating_add(1);
        if n > usize::from(vcol_length) {
            return Err(frm_err(FrmErrorKind::BadExpression, p));
        }
        let kind = r.u8("expression type", p)?;
        let field_nr = r.u16("expression column", p.saturating_add(1))?;
        let len = r.u16("expression length", p.saturating_add(3))?;
        let name_len = r.u8("expression name length", p.saturating_add(5))?;
        let name_at = p.saturating_add(FRM_VCOL_NEW_HEADER_SIZE);
        let name = lossy(r.slice("expression name", name_at, usize::from(name_len))?);
        let text_at = name_at.saturating_add(usize::from(name_len));
        let text = lossy(r.slice("expression", text_at, usize::from(len))?);
        let next = r.pos(
            "expression length",
            p.saturating_add(3),
            text_at,
            u64::from(len),
        )?;
        if next > vcol_end {
            return Err(r.err("expression length", p.saturating_add(3), u64::from(len)));
        }
        let kind = match kind {
            0 => ExprKind::Virtual,
            1 => ExprKind::Stored,
            2 => ExprKind::Default,
            3 => ExprKind::CheckField,
            4 => ExprKind::CheckTable,
            k => ExprKind::Other(k),
        };
        let e = FrmExpr { kind, name, text };
        if kind == ExprKind::CheckTable {
            checks.push(e);
        } else {
            let col = columns
                .get_mut(usize::from(field_nr))
                .ok_or_else(|| frm_err(FrmErrorKind::BadExpression, p.saturating_add(1)))?;
            match kind {
                ExprKind::Virtual | ExprKind::Stored => col.generated = Some(e),
                ExprKind::Default => col.default_expr = Some(e),
                ExprKind::CheckField => col.check = Some(e),
                _ => {}
            }
        }
        p = next;
    }
    Ok(checks)
}

/// Fills [`FrmColumn::default_raw`] from the default-values record
/// `rec` (`reclength` bytes; see [`FrmDefault`]). `pack_record`: the
/// table has `HA_OPTION_PACK_RECORD` (`db_create_options` bit 0), so the
/// null bits start at bit 0, else at bit 1 (`open_binary_frm`:
/// `null_bit_pos= (db_create_options & HA_OPTION_PACK_RECORD) ? 0 : 1`).
fn read_defaults(rec: &[u8], reclength: usize, pack_record: bool, columns: &mut [FrmColumn]) {
    let rec = rec.get(..reclength).unwrap_or(rec);
    let mut bit = usize::from(!pack_record);
    let bit_at = |n: usize| rec.get(n / 8).is_some_and(|b| b >> (n % 8) & 1 == 1);
    for c in columns.iter_mut() {
        let null = if c.nullable {
            let set = bit_at(bit);
            bit = bit.saturating_add(1);
            set
        } else {
            false
        };
        let uneven =
            if c.real_type.0 == 16 && c.pack_flag & pack_flag::FIELDFLAG_TREAT_BIT_AS_CHAR == 0 {
                let n = (c.length & 7) as usize;
                let first = bit;
                bit = bit.saturating_add(n);
                Some((first, n))
            } else {
                None
            };
        if null {
            c.default_raw = Some(FrmDefault::Null);
            continue;
        }
        let Some(len) = c.pack_length() else {
            continue;
        };
        let start = (c.rec_pos as usize).saturating_sub(1);
        let Some(bytes) = start
            .checked_add(len as usize)
            .and_then(|end| rec.get(start..end))
        else {
            continue;
        };
        c.default_raw = Some(match uneven {
            // Field_bit::val_int: the bits in the null bytes are the high
            // part, the whole bytes big-endian below them.
            Some((first, n)) => {
                let mut v = 0u64;
                for i in (0..n).rev() {
                    v = v << 1 | u64::from(bit_at(first.saturating_add(i)));
                }
                for &b in bytes {
                    v = v.checked_shl(8).unwrap_or(0) | u64::from(b);
                }
                FrmDefault::Bits(v)
            }
            // Field_bit_as_char (InnoDB tables): whole bytes, big-endian.
            None if c.real_type.0 == 16 => FrmDefault::Bits(
                bytes
                    .iter()
                    .fold(0u64, |v, &b| v.checked_shl(8).unwrap_or(0) | u64::from(b)),
            ),
            None => FrmDefault::Bytes(bytes.to_vec()),
        });
    }
}

/// MariaDB long UNIQUE keys (algorithm 5): the last that many columns
/// hold their hashes (`init_from_binary_frm_image`: "Last n fields
/// are unique_index_hash fields"); they are not stored.
fn mark_hash_columns(keys: &[FrmKey], columns: &mut [FrmColumn]) {
    let hash_fields = keys.iter().filter(|k| k.algorithm == 5).count();
    let first_hash = columns.len().saturating_sub(hash_fields);
    for c in columns.iter_mut().skip(first_hash) {
        c.generated = Some(FrmExpr {
            kind: ExprKind::UsingHash,
            name: String::new(),
            text: String::new(),
        });
    }
}

/// Key parts point at columns; prefixes follow the column's key length;
/// MariaDB's `EXTRA2_INDEX_FLAGS` mark IGNORED keys.
fn resolve_key_parts(
    keys: &mut [FrmKey],
    columns: &[FrmColumn],
    index_flags: Option<&[u8]>,
    key_pos: usize,
) -> Result<(), Error> {
    for (k, key) in keys.iter_mut().enumerate() {
        if let Some(f) = index_flags.and_then(|f| f.get(k)) {
            key.ignored = f & 1 != 0;
        }
        for part in key.parts.iter_mut() {
            let col = columns.get(part.column).ok_or_else(|| {
                frm_err(
                    FrmErrorKind::BadKeyColumn(
                        u16::try_from(part.column.saturating_add(1)).unwrap_or(u16::MAX),
                    ),
                    key_pos,
                )
            })?;
            let full = if key.flags & key_flag::HA_FULLTEXT != 0 {
                None
            } else {
                col.key_length()
            };
            part.prefix_len = match full {
                Some(f) if f != u32::from(part.length) => Some(u32::from(part.length)),
                _ => None,
            };
        }
    }
    Ok(())
}

/// Column names, ENUM/SET elements and comments within the servers'
/// bounds (`crate::table::NAME_CHAR_LEN` and the others beside it).
fn bound_columns(columns: &[FrmColumn]) -> Result<(), crate::table::TooLong> {
    use crate::table::*;
    for (i, c) in columns.iter().enumerate() {
        let n = i.saturating_add(1);
        bound("column name", n, &c.name, NAME_CHAR_LEN)?;
        if c.elements.len() > MAX_ENUM_VALUES {
            return Err(TooLong {
                what: "ENUM/SET element count of column",
                number: n,
                len: c.elements.len(),
                max: MAX_ENUM_VALUES,
            });
        }
        for (j, e) in c.element_names().iter().enumerate() {
            bound(
                "ENUM/SET element",
                j.saturating_add(1),
                e,
                MAX_INTERVAL_VALUE_LENGTH,
            )?;
        }
        bound("comment of column", n, &c.comment, COLUMN_COMMENT_MAXLEN)?;
    }
    Ok(())
}

/// Key names and comments, and the table comment, within the bounds.
fn bound_keys(keys: &[FrmKey], table_comment: &str) -> Result<(), crate::table::TooLong> {
    use crate::table::*;
    for (i, k) in keys.iter().enumerate() {
        let n = i.saturating_add(1);
        bound("index name", n, &k.name, NAME_CHAR_LEN)?;
        bound("comment of index", n, &k.comment, COLUMN_COMMENT_MAXLEN)?;
    }
    bound("table comment", 0, table_comment, TABLE_COMMENT_MAXLEN)
}

impl Frm {
    /// Reads a `.frm` file. Every offset and length is checked; the error
    /// names the byte offset of the value that does not fit.
    pub fn parse(b: &[u8]) -> Result<Frm, Error> {
        let r = R { b };
        let h = Header::read(&r)?;

        // Extra2 (MariaDB) or the form names "//" (MySQL).
        let e2_start = FRM_HEADER_SIZE;
        let e2_end = r.pos("extra2 length", 4, e2_start, u64::from(h.extra2_len))?;
        let mut ex = Extra2::default();
        if r.u8("extra2", e2_start)? != b'/' {
            ex = read_extra2(&r, e2_start, e2_end)?;
        }
        let forminfo = forminfo_position(&r, e2_end)?;
        let (mut keys, record_offset, rec_end) = read_key_section(&r, &h)?;
        let fi = FormInfo::read(&r, forminfo)?;
        let extra = read_extra_segment(&r, &h, rec_end, &keys, &fi)?;

        // Columns.
        let s = ColumnSections::locate(&r, e2_end, &fi)?;
        let (names, intervals) = read_names(b, &s, &fi)?;
        let mut vcol_pos = s.com_end;
        if h.frm_version >= FRM_VER_EXPRESSIONS && fi.vcol_length > 0 {
            vcol_pos = r.pos(
                "expressions length",
                fi.fi(286),
                vcol_pos,
                FRM_VCOL_NEW_BASE_SIZE as u64,
            )?;
        }
        let mut reader = ColumnReader {
            r: &r,
            ex: &ex,
            intervals: &intervals,
            field_start: s.field_start,
            mysql_version: h.mysql_version,
            comment_pos: s.ints_end,
            vcol_pos,
        };
        let mut columns = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            columns.push(reader.column(i, name)?);
        }
        let vcol_pos = reader.vcol_pos;
        let checks = if h.frm_version >= FRM_VER_EXPRESSIONS {
            read_expressions(&r, vcol_pos, s.vcol_end, fi.vcol_length, &mut columns)?
        } else {
            Vec::new()
        };
        read_defaults(
            b.get(record_offset..).unwrap_or(&[]),
            usize::from(h.reclength),
            h.create_options & 1 != 0,
            &mut columns,
        );
        mark_hash_columns(&keys, &mut columns);
        resolve_key_parts(&mut keys, &columns, ex.index_flags.as_deref(), h.key_pos)?;

        bound_columns(&columns).map_err(|t| frm_err(FrmErrorKind::TooLong(t), s.field_start))?;
        bound_keys(&keys, &extra.comment)
            .map_err(|t| frm_err(FrmErrorKind::TooLong(t), h.key_pos))?;
        let system_period = ex.system_period;
        if let Some((s, e)) = system_period {
            let fields = usize::from(fi.n_fields);
            if s >= fields || e >= fields {
                return Err(frm_err(FrmErrorKind::BadExtra2, e2_start));
            }
        }
        Ok(Frm {
            frm_version: h.frm_version,
            legacy_db_type: h.legacy_db_type,
            engine: extra.engine,
            partition_db_type: h.partition_db_type,
            mysql_version: h.mysql_version,
            row_type: h.row_type,
            table_collation: h.table_collation,
            key_block_size: h.key_block_size,
            stats_sample_pages: h.stats_sample_pages,
            stats_auto_recalc: h.stats_auto_recalc,
            create_options: h.create_options,
            max_rows: h.max_rows,
            min_rows: h.min_rows,
            avg_row_length: h.avg_row_length,
            reclength: h.reclength,
            record_offset,
            comment: extra.comment,
            connect_string: extra.connect_string,
            partition_info: extra.partition_info,
            columns,
            keys,
            checks,
            tabledef_version: ex.tabledef_version,
            system_period,
            extra2_other: ex.other,
        })
    }

    /// The index InnoDB clusters the table by: PRIMARY, else the first
    /// UNIQUE key whose columns are all NOT NULL and whole
    /// (`init_from_binary_frm_image`; the server sorts such a key first),
    /// else none (InnoDB adds DB_ROW_ID).
    pub fn clustered_key(&self) -> Option<&FrmKey> {
        clustered_key_of(&self.keys, |i| self.columns.get(i).map(|c| c.nullable))
    }

    /// The engine that stores the rows: the engine name, or for a
    /// partitioned table the partitions' engine (byte 61: 12 InnoDB, 9
    /// MyISAM, 42 Aria; `legacy_db_type` in `handler.h`).
    pub fn storage_engine(&self) -> Option<&str> {
        let partitioned = match self.engine.as_deref() {
            Some(e) => e == "partition",
            None => self.legacy_db_type == 20, // DB_TYPE_PARTITION_DB
        };
        if !partitioned {
            return self.engine.as_deref();
        }
        match self.partition_db_type {
            12 => Some("InnoDB"),
            9 => Some("MyISAM"),
            42 => Some("Aria"),
            _ => None,
        }
    }

    /// The default-values record in `file` (the bytes this `Frm` was read
    /// from): null bits, then each column's default in the server's row
    /// format at [`FrmColumn::rec_pos`] − 1. Not decoded here.
    pub fn default_record<'a>(&self, file: &'a [u8]) -> Option<&'a [u8]> {
        let end = self
            .record_offset
            .checked_add(usize::from(self.reclength))?;
        file.get(self.record_offset..end)
    }

    /// The table's default charset.
    pub fn table_charset(&self) -> Option<Charset> {
        Charset::of_collation(self.table_collation)
    }
}

impl Frm {
    /// The definition as [`crate::table::TableDef`] (the file holds no table
    /// or schema name: the caller gives them, from the file name), with
    /// InnoDB's additions made the way InnoDB makes them (`dict0dict.cc`
    /// `dict_index_build_internal_clust` / `_non_clust`, `ha_innodb.cc`
    /// `create_table_def`):
    ///
    /// - system columns DB_ROW_ID (when no key can cluster the table),
    ///   DB_TRX_ID and DB_ROLL_PTR after the user columns, and FTS_DOC_ID
    ///   before them when a FULLTEXT key exists and no column has the name;
    /// - the clustered index first: PRIMARY, else the first UNIQUE key on
    ///   NOT NULL whole columns (see [`Frm::clustered_key`]), else a hidden
    ///   `GEN_CLUST_INDEX` on DB_ROW_ID; its elements are the key, DB_TRX_ID,
    ///   DB_ROLL_PTR, then every other stored column (a column in the key
    ///   only as a prefix comes again whole);
    /// - secondary indexes: their parts, then the clustered key's parts not
    ///   already whole in them.
    ///
    /// The row format is `Other(0)` when CREATE TABLE gave none: the
    /// server's default applied, which the tablespace flags tell. Not
    /// carried: a long UNIQUE
    /// key's InnoDB index (it indexes the hash column), SPATIAL keys'
    /// minimum bounding rectangle field.
    pub fn to_table_def(&self, name: &str, schema: &str) -> crate::table::TableDef {
        use crate::table::{ColType, Column, Hidden};
        let columns: Vec<Column> = self
            .columns
            .iter()
            .map(|c| {
                let t = c.real_type;
                let col_type = match c.type_name.as_deref() {
                    Some("uuid") => ColType::MariaUuid,
                    Some("inet6") => ColType::MariaInet6,
                    Some("inet4") => ColType::MariaInet4,
                    Some(_) => ColType::Unknown(u32::from(t.0)),
                    None => match t.0 {
                        // enum_field_types and dd's enum_column_types name
                        // the same types in another order.
                        0 => ColType::Decimal,
                        1 => ColType::Tiny,
                        2 => ColType::Short,
                        3 => ColType::Long,
                        4 => ColType::Float,
                        5 => ColType::Double,
                        6 => ColType::Null,
                        7 => ColType::Timestamp,
                        8 => ColType::LongLong,
                        9 => ColType::Int24,
                        10 => ColType::Date,
                        11 => ColType::Time,
                        12 => ColType::DateTime,
                        13 => ColType::Year,
                        14 => ColType::NewDate,
                        15 => ColType::Varchar,
                        16 => ColType::Bit,
                        17 => ColType::Timestamp2,
                        18 => ColType::DateTime2,
                        19 => ColType::Time2,
                        245 => ColType::Json,
                        246 => ColType::NewDecimal,
                        247 => ColType::Enum,
                        248 => ColType::Set,
                        249 => ColType::TinyBlob,
                        250 => ColType::MediumBlob,
                        251 => ColType::LongBlob,
                        252 => ColType::Blob,
                        253 => ColType::VarString,
                        254 => ColType::String,
                        255 => ColType::Geometry,
                        n => ColType::Unknown(u32::from(n)),
                    },
                };
                let mut col = Column::new(&c.name, col_type);
                col.length = match (c.type_name.as_deref(), t.0) {
                    (Some(_), _) => c.pack_length().unwrap_or(0),
                    (None, 249..=252) => c
                        .max_octets()
                        .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
                    _ => c.length.saturating_sub(u32::from(c.compressed())),
                };
                col.precision = match t.0 {
                    16 => c.length,
                    _ => c.precision().unwrap_or(0),
                };
                col.scale = if t.has_scale() && c.decimals < 31 {
                    u32::from(c.decimals)
                } else {
                    0
                };
                col.fsp = if t.is_temporal_with_fraction() {
                    u32::from(c.decimals)
                } else {
                    0
                };
                col.unsigned = c.unsigned;
                col.nullable = c.nullable;
                col.collation_id = if c.type_name.is_some() {
                    63
                } else {
                    u32::from(c.collation_id)
                };
                col.elements = c.element_names();
                col.hidden = if c.invisible >= 2 {
                    Hidden::Sql
                } else {
                    Hidden::Visible
                };
                col.is_virtual = !c.stored();
                let (default, on_update) = column_default(c, &col, self.mysql_version >= 100000);
                col.default = default;
                col.on_update = on_update;
                col.auto_increment = c.auto_increment();
                col.comment = c.comment.clone();
                col.check = c.check.as_ref().map(|e| e.text.clone());
                col
            })
            .collect();
        let hash_cols: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                matches!(
                    c.generated,
                    Some(FrmExpr {
                        kind: ExprKind::UsingHash,
                        ..
                    })
                )
            })
            .map(|(i, _)| i)
            .collect();
        let mut t = innodb_table_def(name, schema, self.row_type, columns, &self.keys, &hash_cols);
        t.options = crate::table::TableOptions {
            collation_id: u32::from(self.table_collation),
            // The .frm does not hold the table's AUTO_INCREMENT counter
            // (the engine keeps it).
            auto_increment: None,
            key_block_size: u32::from(self.key_block_size),
            comment: self.comment.clone(),
            // HA_OPTION_STATS_PERSISTENT (1 << 12), _NO_ (1 << 13).
            stats_persistent: match self.create_options >> 12 & 3 {
                1 => Some(true),
                2 => Some(false),
                _ => None,
            },
            stats_auto_recalc: match self.stats_auto_recalc {
                1 => Some(true),
                2 => Some(false),
                _ => None,
            },
            stats_sample_pages: u32::from(self.stats_sample_pages),
            engine_options: self.engine_table_options(),
            row_format_implicit: false,
        };
        t
    }

    /// MariaDB's engine-defined table options (`EXTRA2_ENGINE_TABLEOPTS`,
    /// extra2 type 128; MariaDB `sql/create_options.cc`
    /// `engine_table_options_frm_image`): the table's options first, each
    /// a name length byte, the name, a 2-byte value length (bit 15: the
    /// value was quoted) and the value, up to a 0 byte.
    pub(crate) fn engine_table_options(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let Some(e) = self.extra2_other.iter().find(|e| e.kind == 128) else {
            return out;
        };
        let b = e.value.as_slice();
        let mut p = 0usize;
        while let Some(&n) = b.get(p).filter(|&&n| n != 0) {
            let name_at = p.saturating_add(1);
            let len_at = name_at.saturating_add(usize::from(n));
            let (Some(name), Some(lo), Some(hi)) = (
                b.get(name_at..len_at),
                b.get(len_at),
                b.get(len_at.saturating_add(1)),
            ) else {
                break;
            };
            let vlen = usize::from(u16::from(*lo) | u16::from(*hi & 0x7f) << 8);
            let v_at = len_at.saturating_add(2);
            let Some(value) = b.get(v_at..v_at.saturating_add(vlen)) else {
                break;
            };
            out.push((lossy(name), lossy(value)));
            p = v_at.saturating_add(vlen);
        }
        out
    }
}

/// A column's DEFAULT and ON UPDATE as the server reads them from the
/// `.frm` (`open_binary_frm`, `sql_show.cc` `print_default_clause`):
/// none for `FIELDFLAG_NO_DEFAULT`, AUTO_INCREMENT (`unireg_check` 15)
/// and generated columns; CURRENT_TIMESTAMP for `unireg_check`
/// TIMESTAMP_DN_FIELD (21) and TIMESTAMP_DNUN_FIELD (23), ON UPDATE for
/// TIMESTAMP_UN_FIELD (22) and 23; a MariaDB DEFAULT expression; NULL
/// when the null bit is set (MySQL 5.x prints none for BLOB, TEXT,
/// GEOMETRY and JSON); else the value in the default-values record
/// ([`value_default`]).
fn column_default(
    c: &FrmColumn,
    col: &crate::table::Column,
    mariadb: bool,
) -> (Option<crate::table::ColumnDefault>, Option<u32>) {
    use crate::table::{ColType, ColumnDefault};
    let unireg = c.unireg_check & 127;
    let fsp = col.fsp;
    let on_update = matches!(unireg, 22 | 23).then_some(fsp);
    if c.generated.is_some() || c.auto_increment() || c.no_default() {
        return (None, on_update);
    }
    if matches!(unireg, 21 | 23) {
        return (Some(ColumnDefault::Now(fsp)), on_update);
    }
    if let Some(e) = &c.default_expr {
        return (Some(expr_default(&e.text)), on_update);
    }
    // `print_default_clause`: `field->type() != FIELD_TYPE_BLOB` (every
    // BLOB and TEXT size; GEOMETRY and JSON have their own types).
    let lob = matches!(
        col.col_type,
        ColType::TinyBlob | ColType::Blob | ColType::MediumBlob | ColType::LongBlob
    );
    let d = match &c.default_raw {
        Some(FrmDefault::Null) if lob && !mariadb => None,
        Some(FrmDefault::Null) => Some(ColumnDefault::Null),
        Some(FrmDefault::Bits(v)) => Some(ColumnDefault::Bits(*v)),
        Some(FrmDefault::Bytes(b)) if !col.col_type.is_lob() => value_default(c, col, b),
        _ => None,
    };
    (d, on_update)
}

/// A MariaDB DEFAULT expression: CURRENT_TIMESTAMP (`current_timestamp(n)`)
/// and a lone string or number literal (MariaDB keeps BLOB and TEXT
/// literal defaults as expressions) as such, else the text.
fn expr_default(text: &str) -> crate::table::ColumnDefault {
    use crate::table::ColumnDefault;
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("current_timestamp") {
        let fsp = match rest {
            "" | "()" => Some(0),
            r => r
                .strip_prefix('(')
                .and_then(|x| x.strip_suffix(')'))
                .and_then(|x| x.parse().ok()),
        };
        if let Some(f) = fsp {
            return ColumnDefault::Now(f);
        }
    }
    if let Some(inner) = t.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        if let Some(v) = unquote(inner) {
            return ColumnDefault::Value(v);
        }
    }
    if !t.is_empty() && t.parse::<f64>().is_ok() {
        return ColumnDefault::Value(t.to_string());
    }
    ColumnDefault::Expr(t.to_string())
}

/// The body of a `'…'` literal as MariaDB prints it (`''` and `\x`
/// escapes); `None` when it is not one literal.
fn unquote(inner: &str) -> Option<String> {
    let mut v = String::with_capacity(inner.len());
    let mut it = inner.chars();
    while let Some(ch) = it.next() {
        match ch {
            '\'' => {
                if it.next() != Some('\'') {
                    return None;
                }
                v.push('\'');
            }
            '\\' => v.push(match it.next()? {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '0' => '\0',
                'Z' => '\u{1a}',
                o => o,
            }),
            o => v.push(o),
        }
    }
    Some(v)
}

/// A value in the server's row format as the text the server prints
/// (`Field::val_str`): integers, ENUM, SET and the old temporal types
/// are little-endian there and big-endian (signed ones with the sign bit
/// flipped) in InnoDB, which [`crate::value::render`] reads; DECIMAL,
/// FLOAT, DOUBLE and the MySQL 5.6 temporal types are the same bytes in
/// both. Strings: CHAR without its trailing spaces, VARCHAR after its
/// length bytes, binary strings as bytes unless printable UTF-8.
fn value_default(
    c: &FrmColumn,
    col: &crate::table::Column,
    b: &[u8],
) -> Option<crate::table::ColumnDefault> {
    use crate::table::{ColType, ColumnDefault};
    let binary = col.collation_id == 63;
    let string = |v: &[u8]| -> Option<ColumnDefault> {
        if binary {
            return Some(match std::str::from_utf8(v) {
                Ok(t) if !t.chars().any(char::is_control) => ColumnDefault::Value(t.to_string()),
                _ => ColumnDefault::Bytes(v.to_vec()),
            });
        }
        let cs = c.text_charset()?;
        Some(ColumnDefault::Value(decode_text(cs.name, v)))
    };
    match col.col_type {
        ColType::String => {
            let v = if binary {
                b
            } else {
                let end = b
                    .iter()
                    .rposition(|&x| x != b' ')
                    .map_or(0, |i| i.saturating_add(1));
                b.get(..end).unwrap_or(b)
            };
            return string(v);
        }
        ColType::Varchar | ColType::VarString => {
            let (n, rest) = if c.length < 256 {
                let (&n, rest) = b.split_first()?;
                (usize::from(n), rest)
            } else {
                let n = usize::from(*b.first()?) | usize::from(*b.get(1)?) << 8;
                (n, b.get(2..)?)
            };
            return string(rest.get(..n)?);
        }
        _ => {}
    }
    let mut v = b.to_vec();
    let flip = match col.col_type {
        ColType::Tiny | ColType::Short | ColType::Int24 | ColType::Long | ColType::LongLong => {
            v.reverse();
            !col.unsigned
        }
        ColType::NewDate | ColType::DateTime | ColType::Time if col.fsp == 0 => {
            v.reverse();
            true
        }
        ColType::Timestamp if col.fsp == 0 => {
            v.reverse();
            false
        }
        ColType::Enum | ColType::Set => {
            v.reverse();
            false
        }
        ColType::Year
        | ColType::Float
        | ColType::Double
        | ColType::NewDecimal
        | ColType::Time2
        | ColType::DateTime2
        | ColType::Timestamp2 => false,
        _ => return None,
    };
    if flip {
        if let Some(x) = v.first_mut() {
            *x ^= 0x80;
        }
    }
    let mut out = String::new();
    match crate::value::render(col, &v, &mut out) {
        crate::value::Rendered::Number | crate::value::Rendered::Text => {
            Some(ColumnDefault::Value(out))
        }
        _ => None,
    }
}

/// The key InnoDB clusters by (see [`Frm::clustered_key`]) among `keys` in
/// the server's order; `nullable` tells whether column `i` allows NULL.
pub(crate) fn clustered_key_of(
    keys: &[FrmKey],
    nullable: impl Fn(usize) -> Option<bool>,
) -> Option<&FrmKey> {
    if let Some(k) = keys.iter().find(|k| k.primary()) {
        return Some(k);
    }
    let k = keys.first()?;
    let ok = k.unique()
        && k.algorithm != 5
        && k.parts
            .iter()
            .all(|p| p.prefix_len.is_none() && nullable(p.column) == Some(false));
    ok.then_some(k)
}

/// The part of [`Frm::to_table_def`] that does not depend on where the
/// definition came from (a `.frm` or a `CREATE TABLE` statement, see the
/// `ddl` module): from the user columns (table order, as
/// [`crate::table::Column`]s) and the keys in the server's order, InnoDB's
/// system columns and index elements. `hash_cols` are the columns holding
/// MariaDB long UNIQUE hashes, in key order.
pub(crate) fn innodb_table_def(
    name: &str,
    schema: &str,
    row_type: FrmRowType,
    mut columns: Vec<crate::table::Column>,
    keys: &[FrmKey],
    hash_cols: &[usize],
) -> crate::table::TableDef {
    use crate::table::{DefSource, IndexDef, IndexElement, IndexKind, RowFormat, TableDef};
    let n_user = columns.len();
    let (clustered, sys) = add_system_columns(&mut columns, keys);

    // A long UNIQUE key: InnoDB indexes its hash column.
    let mut hash_no = 0usize;
    let mut key_elements = |k: &FrmKey| -> Vec<IndexElement> {
        if k.algorithm == 5 {
            let e = hash_cols.get(hash_no).map(|&column| IndexElement {
                column,
                prefix_len: None,
                hidden: false,
            });
            hash_no = hash_no.saturating_add(1);
            return e.into_iter().collect();
        }
        k.parts
            .iter()
            .map(|p| IndexElement {
                column: p.column,
                prefix_len: p.prefix_len,
                hidden: false,
            })
            .collect()
    };

    let mut indexes = Vec::with_capacity(keys.len().saturating_add(1));
    let clust_key: Vec<IndexElement> = match clustered {
        Some(k) => key_elements(k),
        None => vec![IndexElement {
            column: sys.row_id.unwrap_or(0),
            prefix_len: None,
            hidden: true,
        }],
    };
    indexes.push(IndexDef {
        name: clustered.map_or_else(|| "GEN_CLUST_INDEX".to_string(), |k| k.name.clone()),
        kind: clustered.map_or(IndexKind::Primary, index_kind),
        id: None,
        root: None,
        hidden: clustered.is_none(),
        elements: clustered_elements(&clust_key, &columns, &sys, n_user),
    });
    for k in keys {
        if clustered.is_some_and(|c| std::ptr::eq(c, k)) {
            continue;
        }
        let mut elements = key_elements(k);
        if !k.fulltext() {
            for e in &clust_key {
                let whole = elements
                    .iter()
                    .any(|x| x.column == e.column && x.prefix_len.is_none());
                if !whole {
                    elements.push(IndexElement { hidden: true, ..*e });
                }
            }
        }
        indexes.push(IndexDef {
            name: k.name.clone(),
            kind: index_kind(k),
            id: None,
            root: None,
            hidden: false,
            elements,
        });
    }
    TableDef {
        name: name.to_string(),
        schema: schema.to_string(),
        row_format: match row_type {
            FrmRowType::Dynamic => RowFormat::Dynamic,
            FrmRowType::Compressed => RowFormat::Compressed,
            FrmRowType::Redundant => RowFormat::Redundant,
            FrmRowType::Compact => RowFormat::Compact,
            other => RowFormat::Other(u32::from(other.code())),
        },
        columns,
        indexes,
        instant_cols: None,
        source: DefSource::Frm,
        options: crate::table::TableOptions::default(),
    }
}

/// Where [`add_system_columns`] put InnoDB's system columns.
struct SystemColumns {
    /// FTS_DOC_ID was added after the user columns.
    fts: bool,
    /// DB_ROW_ID, when no key clusters the table.
    row_id: Option<usize>,
    /// DB_TRX_ID.
    trx_id: usize,
    /// DB_ROLL_PTR.
    roll_ptr: usize,
}

/// Appends InnoDB's system columns to the user columns: FTS_DOC_ID for a
/// FULLTEXT key when no column has the name, DB_ROW_ID when no key can
/// cluster the table, DB_TRX_ID and DB_ROLL_PTR; gives the clustering key.
fn add_system_columns<'k>(
    columns: &mut Vec<crate::table::Column>,
    keys: &'k [FrmKey],
) -> (Option<&'k FrmKey>, SystemColumns) {
    use crate::table::{ColType, Column, Hidden};
    let sys = |n: &str, t: ColType, hidden: Hidden| {
        let mut c = Column::new(n, t);
        c.hidden = hidden;
        c.nullable = false;
        c.unsigned = true;
        c.collation_id = 63;
        c
    };
    let fts = keys.iter().any(FrmKey::fulltext)
        && !columns
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case("FTS_DOC_ID"));
    if fts {
        columns.push(sys("FTS_DOC_ID", ColType::LongLong, Hidden::Sql));
    }
    let clustered = clustered_key_of(keys, |i| columns.get(i).map(|c| c.nullable));
    let row_id = if clustered.is_none() {
        columns.push(sys("DB_ROW_ID", ColType::LongLong, Hidden::Se));
        Some(columns.len().saturating_sub(1))
    } else {
        None
    };
    let trx_id = columns.len();
    columns.push(sys("DB_TRX_ID", ColType::LongLong, Hidden::Se));
    let roll_ptr = columns.len();
    columns.push(sys("DB_ROLL_PTR", ColType::LongLong, Hidden::Se));
    (
        clustered,
        SystemColumns {
            fts,
            row_id,
            trx_id,
            roll_ptr,
        },
    )
}

/// The index kind of a key: PRIMARY, FULLTEXT, SPATIAL, UNIQUE or not.
fn index_kind(k: &FrmKey) -> crate::table::IndexKind {
    use crate::table::IndexKind;
    if k.primary() {
        IndexKind::Primary
    } else if k.fulltext() {
        IndexKind::Fulltext
    } else if k.spatial() {
        IndexKind::Spatial
    } else if k.unique() {
        IndexKind::Unique
    } else {
        IndexKind::Multiple
    }
}

/// The clustered index's elements (`dict_index_build_internal_clust`): the
/// key, DB_TRX_ID, DB_ROLL_PTR, then every other stored user column (and
/// FTS_DOC_ID) not already whole in the key.
fn clustered_elements(
    clust_key: &[crate::table::IndexElement],
    columns: &[crate::table::Column],
    sys: &SystemColumns,
    n_user: usize,
) -> Vec<crate::table::IndexElement> {
    use crate::table::IndexElement;
    let mut elements = clust_key.to_vec();
    elements.push(IndexElement {
        column: sys.trx_id,
        prefix_len: None,
        hidden: true,
    });
    elements.push(IndexElement {
        column: sys.roll_ptr,
        prefix_len: None,
        hidden: true,
    });
    for (i, c) in columns.iter().enumerate().take(if sys.fts {
        n_user.saturating_add(1)
    } else {
        n_user
    }) {
        let whole = clust_key
            .iter()
            .any(|e| e.column == i && e.prefix_len.is_none());
        if !whole && !c.is_virtual {
            elements.push(IndexElement {
                column: i,
                prefix_len: None,
                hidden: true,
            });
        }
    }
    elements
}

#[derive(Default)]
struct Extra2 {
    tabledef_version: Option<Vec<u8>>,
    field_flags: Option<Vec<u8>>,
    index_flags: Option<Vec<u8>>,
    type_names: std::collections::BTreeMap<usize, Vec<u8>>,
    system_period: Option<(usize, usize)>,
    other: Vec<Extra2Entry>,
}

/// `read_extra2`: entries of type (1 byte), length (1 byte, or 0 then 2
/// bytes of at least 256), value, up to the segment's end exactly.
fn read_extra2(r: &R<'_>, start: usize, end: usize) -> Result<Extra2, Error> {
    let mut ex = Extra2::default();
    let mut p = start;
    let bad = |at: usize| frm_err(FrmErrorKind::BadExtra2, at);
    while p.checked_add(3).is_some_and(|x| x <= end) {
        let kind = r.u8("extra2 type", p)?;
        let mut q = p.saturating_add(1);
        let mut len = usize::from(r.u8("extra2 length", q)?);
        q = q.saturating_add(1);
        if len == 0 {
            if q.saturating_add(2) >= end {
                return Err(bad(p));
            }
            len = usize::from(r.u16("extra2 length", q)?);
            q = q.saturating_add(2);
            if len < 256 {
                return Err(bad(p));
            }
        }
        let value = r.slice("extra2 value", q, len)?;
        let next = q
            .checked_add(len)
            .filter(|&n| n <= end)
            .ok_or_else(|| bad(p))?;
        match kind {
            0 => ex.tabledef_version = Some(value.to_vec()),
            4 => {
                // EXTRA2_PERIOD_FOR_SYSTEM_TIME: two 2-byte column numbers.
                let s = value.get(0..2).map(le).ok_or_else(|| bad(q))?;
                let e = value.get(2..4).map(le).ok_or_else(|| bad(q))?;
                if value.len() != 4 {
                    return Err(bad(q));
                }
                ex.system_period = Some((s as usize, e as usize));
            }
            5 => ex.index_flags = Some(value.to_vec()),
            129 => ex.field_flags = Some(value.to_vec()),
            130 => {
                // EXTRA2_FIELD_DATA_TYPE_INFO: (column, name) pairs as
                // length-encoded integers and strings.
                let mut i = 0usize;
                let mut n = 0usize;
                while i < value.len() {
                    n = n.saturating_add(1);
                    if n > value.len() {
                        return Err(bad(q));
                    }
                    let col = lenenc(value, &mut i).ok_or_else(|| bad(q.saturating_add(i)))?;
                    let l = lenenc(value, &mut i).ok_or_else(|| bad(q.saturating_add(i)))?;
                    let l = usize::try_from(l).map_err(|_| bad(q.saturating_add(i)))?;
                    let end_i = i.checked_add(l).ok_or_else(|| bad(q.saturating_add(i)))?;
                    let s = value
                        .get(i..end_i)
                        .ok_or_else(|| bad(q.saturating_add(i)))?;
                    if s.is_empty() {
                        return Err(bad(q.saturating_add(i)));
                    }
                    ex.type_names
                        .insert(usize::try_from(col).unwrap_or(usize::MAX), s.to_vec());
                    i = end_i;
                }
            }
            _ => ex.other.push(Extra2Entry {
                kind,
                offset: q,
                value: value.to_vec(),
            }),
        }
        p = next;
    }
    if p != end {
        return Err(bad(p));
    }
    Ok(ex)
}

/// The key section: counts, 8 bytes per key and 9 per part (4.1+), the
/// `0xFF`-separated names, then a 2-byte-length comment per key that has
/// `HA_USES_COMMENT`.
fn read_keys(r: &R<'_>, at: usize) -> Result<Vec<FrmKey>, Error> {
    let b0 = r.u8("key count", at)?;
    let b1 = r.u8("key count", at.saturating_add(1))?;
    let (n_keys, n_parts) = if b0 & 0x80 != 0 {
        (
            u16::from(b1) << 7 | u16::from(b0 & 0x7f),
            r.u16("key part count", at.saturating_add(2))?,
        )
    } else {
        (u16::from(b0), u16::from(b1))
    };
    let _ = r.u16("key names length", at.saturating_add(4))?;
    let mut p = at.saturating_add(6);
    let mut keys = Vec::with_capacity(usize::from(n_keys).min(r.b.len() / 8));
    let mut total_parts = 0u32;
    for _ in 0..n_keys {
        let flags = r.u16("key flags", p)? ^ key_flag::HA_NOSAME;
        let key_length = r.u16("key length", p.saturating_add(2))?;
        let n = r.u8("key part count", p.saturating_add(4))?;
        let algorithm = r.u8("key algorithm", p.saturating_add(5))?;
        let block_size = r.u16("key block size", p.saturating_add(6))?;
        p = p.saturating_add(8);
        let mut parts = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            let nr = r.u16("key part column", p)? & FIELD_NR_MASK;
            if nr == 0 {
                return Err(frm_err(FrmErrorKind::BadKeyColumn(nr), p));
            }
            let offset = r
                .u16("key part offset", p.saturating_add(2))?
                .wrapping_sub(1);
            let flags = r.u8("key part flags", p.saturating_add(4))?;
            let key_type = r.u16("key part type", p.saturating_add(5))?;
            let length = r.u16("key part length", p.saturating_add(7))?;
            parts.push(FrmKeyPart {
                column: usize::from(nr).saturating_sub(1),
                length,
                offset,
                flags,
                key_type,
                prefix_len: None,
            });
            p = p.saturating_add(9);
        }
        total_parts = total_parts.saturating_add(u32::from(n));
        keys.push(FrmKey {
            name: String::new(),
            flags,
            key_length,
            algorithm,
            block_size,
            parts,
            comment: String::new(),
            ignored: false,
        });
    }
    // MariaDB counts a long unique hash part in the header too; MySQL's
    // count equals the parts.
    if total_parts > u32::from(n_parts).saturating_add(u32::from(n_keys)) {
        return Err(frm_err(
            FrmErrorKind::CountMismatch {
                what: "key parts",
                stated: u32::from(n_parts),
                found: total_parts,
            },
            at,
        ));
    }
    let names = r.cstr("key names", p)?;
    let names_end = p.saturating_add(names.len()).saturating_add(1);
    if keys.is_empty() {
        // "\xff\0" or an empty string.
    } else {
        let (list, _) = typelib(r.b, p, names_end, "key name")?;
        if list.len() != keys.len() {
            return Err(frm_err(
                FrmErrorKind::CountMismatch {
                    what: "key names",
                    stated: u32::from(n_keys),
                    found: u32::try_from(list.len()).unwrap_or(u32::MAX),
                },
                p,
            ));
        }
        for (k, n) in keys.iter_mut().zip(list) {
            k.name = lossy(n);
        }
    }
    p = names_end;
    for k in keys
        .iter_mut()
        .filter(|k| k.flags & key_flag::HA_USES_COMMENT != 0)
    {
        let l = r.u16("key comment length", p)?;
        k.comment = lossy(r.slice("key comment", p.saturating_add(2), usize::from(l))?);
        p = r.pos("key comment length", p, p, u64::from(l) + 2)?;
    }
    Ok(keys)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn dir(server: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/frm")
            .join(server)
    }

    /// A server's TSV answer (mariadb client batch output), rows of fields.
    fn tsv(server: &str, name: &str) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(dir(server).join(name)).unwrap();
        text.lines()
            .map(|l| {
                l.split('\t')
                    .map(|f| {
                        f.replace("\\t", "\t")
                            .replace("\\n", "\n")
                            .replace("\\\\", "\\")
                    })
                    .collect()
            })
            .collect()
    }

    fn frm(server: &str, table: &str) -> Frm {
        let b = std::fs::read(dir(server).join(format!("{table}.frm"))).unwrap();
        Frm::parse(&b).unwrap_or_else(|e| panic!("{server}/{table}.frm: {e}"))
    }

    /// Output amplification: names, ENUM/SET elements and comments read
    /// from a `.frm` are bounded as the servers bound them (NAME_CHAR_LEN
    /// 64, MAX_INTERVAL_VALUE_LENGTH 255, COLUMN_COMMENT_MAXLEN 1024,
    /// TABLE_COMMENT_MAXLEN 2048). Every server-written file here parses
    /// (the other tests), so the bounds hold on them; one past a bound is
    /// refused, naming what and how long.
    #[test]
    fn frm_names_longer_than_the_servers_allow_are_refused() {
        use crate::table::TooLong;
        let f = frm("mysql56", "types");
        assert_eq!(bound_columns(&f.columns), Ok(()));
        assert_eq!(bound_keys(&f.keys, &f.comment), Ok(()));
        let e = f
            .columns
            .iter()
            .position(|c| !c.elements.is_empty())
            .unwrap();
        let too = |what, number, len, max| {
            Err(TooLong {
                what,
                number,
                len,
                max,
            })
        };
        let mut c = f.columns.clone();
        c[0].name = "é".repeat(64);
        assert_eq!(bound_columns(&c), Ok(()));
        c[0].name = "x".repeat(1 << 20);
        assert_eq!(bound_columns(&c), too("column name", 1, 1 << 20, 64));
        let mut c = f.columns.clone();
        c[e].elements[0] = vec![b'x'; 256];
        assert_eq!(bound_columns(&c), too("ENUM/SET element", 1, 256, 255));
        let mut c = f.columns.clone();
        c[e].comment = "x".repeat(1025);
        assert_eq!(
            bound_columns(&c),
            too("comment of column", e + 1, 1025, 1024)
        );
        let mut k = f.keys.clone();
        k[0].name = "x".repeat(65);
        assert_eq!(bound_keys(&k, ""), too("index name", 1, 65, 64));
        assert_eq!(
            bound_keys(&f.keys, &"x".repeat(2049)),
            too("table comment", 0, 2049, 2048)
        );
    }

    fn null(v: Option<String>) -> String {
        v.unwrap_or_else(|| "NULL".to_string())
    }

    /// The server's collation name → id map (its INFORMATION_SCHEMA.COLLATIONS).
    fn collation_ids(server: &str) -> std::collections::HashMap<String, u16> {
        tsv(server, "collations.tsv")
            .into_iter()
            .filter_map(|r| Some((r[1].clone(), r[0].parse().ok()?)))
            .collect()
    }

    fn tables(server: &str) -> Vec<String> {
        tsv(server, "tables.tsv")
            .into_iter()
            .map(|r| r[0].clone())
            .collect()
    }

    const SERVERS: [&str; 2] = ["mysql56", "mariadb1011"];

    /// Every column of every table against the server's
    /// INFORMATION_SCHEMA.COLUMNS answer. Normalisation: MySQL 5.6 says
    /// `utf8` where MariaDB (and this reader) say `utf8mb3`.
    #[test]
    fn columns_match_information_schema() {
        for server in SERVERS {
            let ids = collation_ids(server);
            let rows = tsv(server, "columns.tsv");
            let mut checked = 0;
            for table in tables(server) {
                let f = frm(server, &table);
                let want: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == table).collect();
                let have: Vec<&FrmColumn> = f.columns.iter().filter(|c| c.invisible < 2).collect();
                assert_eq!(have.len(), want.len(), "{server} {table}: column count");
                for (c, w) in have.iter().zip(&want) {
                    let ctx = format!("{server} {table}.{}", w[2]);
                    assert_eq!(c.name, w[2], "{ctx}: name");
                    assert_eq!(c.data_type(), w[3], "{ctx}: DATA_TYPE");
                    assert_eq!(c.column_type(), w[4], "{ctx}: COLUMN_TYPE");
                    assert_eq!(
                        if c.nullable { "YES" } else { "NO" },
                        w[5],
                        "{ctx}: IS_NULLABLE"
                    );
                    let cs = c.text_charset().map(|c| c.name.to_string());
                    assert_eq!(
                        null(cs),
                        w[6].replace("utf8mb3", "utf8")
                            .replace("utf8", "utf8mb3")
                            .replace("utf8mb3mb4", "utf8mb4"),
                        "{ctx}: CHARACTER_SET_NAME"
                    );
                    if w[7] != "NULL" {
                        assert_eq!(
                            Some(&c.collation_id),
                            ids.get(&w[7]),
                            "{ctx}: COLLATION_NAME {}",
                            w[7]
                        );
                    }
                    if !matches!(c.real_type.0, 247 | 248) {
                        assert_eq!(
                            null(c.max_octets().map(|n| n.to_string())),
                            w[9],
                            "{ctx}: CHARACTER_OCTET_LENGTH"
                        );
                    }
                    let scale = if c.real_type.is_integer() {
                        Some(0)
                    } else if c.real_type.has_scale() && c.decimals < 31 {
                        Some(c.decimals)
                    } else {
                        None
                    };
                    assert_eq!(
                        null(scale.map(|n| n.to_string())),
                        w[11],
                        "{ctx}: NUMERIC_SCALE"
                    );
                    let dtp = c
                        .real_type
                        .is_temporal_with_fraction()
                        .then_some(c.decimals);
                    assert_eq!(
                        null(dtp.map(|n| n.to_string())),
                        w[12],
                        "{ctx}: DATETIME_PRECISION"
                    );
                    let mut extra = Vec::new();
                    if c.auto_increment() {
                        extra.push("auto_increment");
                    }
                    match c.generated.as_ref().map(|g| g.kind) {
                        Some(ExprKind::Virtual) => extra.push("VIRTUAL GENERATED"),
                        Some(ExprKind::Stored) => extra.push("STORED GENERATED"),
                        _ => {}
                    }
                    if c.invisible == 1 {
                        extra.push("INVISIBLE");
                    }
                    assert_eq!(extra.join(" "), w[14], "{ctx}: EXTRA");
                    assert_eq!(
                        c.comment,
                        w.get(15).cloned().unwrap_or_default(),
                        "{ctx}: COLUMN_COMMENT"
                    );
                    checked += 1;
                }
            }
            assert!(checked > 60, "{server}: {checked} columns checked");
        }
    }

    /// Every key part against INFORMATION_SCHEMA.STATISTICS (parts on
    /// system-hidden columns, as MariaDB adds row_end to a versioned
    /// table's unique keys, are not listed there).
    #[test]
    fn keys_match_information_schema() {
        for server in SERVERS {
            let mut want: Vec<Vec<String>> = tsv(server, "statistics.tsv");
            let mut have = Vec::new();
            for table in tables(server) {
                let f = frm(server, &table);
                for k in &f.keys {
                    let parts = k.parts.iter().filter(|p| f.columns[p.column].invisible < 2);
                    for (seq, p) in parts.enumerate() {
                        let c = &f.columns[p.column];
                        let sub = p
                            .prefix_len
                            .map(|b| b / u32::from(c.charset().unwrap().mbmaxlen));
                        let ty = if k.fulltext() {
                            "FULLTEXT"
                        } else if k.spatial() {
                            "SPATIAL"
                        } else if k.algorithm == 5 || k.algorithm == 3 {
                            "HASH"
                        } else {
                            "BTREE"
                        };
                        have.push(vec![
                            table.clone(),
                            k.name.clone(),
                            if k.unique() { "0" } else { "1" }.to_string(),
                            (seq + 1).to_string(),
                            c.name.clone(),
                            null(sub.map(|n| n.to_string())),
                            ty.to_string(),
                            k.comment.clone(),
                        ]);
                    }
                }
            }
            for r in want.iter_mut() {
                r.resize(8, String::new());
            }
            want.sort();
            have.sort();
            assert_eq!(have, want, "{server}");
        }
    }

    /// Table options against INFORMATION_SCHEMA.TABLES.
    #[test]
    fn table_options_match_information_schema() {
        for server in SERVERS {
            let ids = collation_ids(server);
            for r in tsv(server, "tables.tsv") {
                let f = frm(server, &r[0]);
                assert_eq!(f.storage_engine(), Some(r[1].as_str()), "{}: ENGINE", r[0]);
                let opts = r[3].to_lowercase();
                match f.row_type.name() {
                    Some(n) => assert!(
                        opts.contains(&format!("row_format={}", n.to_lowercase())),
                        "{}: {opts}",
                        r[0]
                    ),
                    None => assert!(!opts.contains("row_format"), "{}: {opts}", r[0]),
                }
                if f.key_block_size > 0 {
                    assert!(
                        opts.contains(&format!("key_block_size={}", f.key_block_size)),
                        "{}: {opts}",
                        r[0]
                    );
                } else {
                    assert!(!opts.contains("key_block_size"), "{}: {opts}", r[0]);
                }
                assert_eq!(
                    Some(&f.table_collation),
                    ids.get(&r[4]),
                    "{}: TABLE_COLLATION",
                    r[0]
                );
                assert_eq!(
                    f.comment,
                    r.get(5).cloned().unwrap_or_default(),
                    "{}: TABLE_COMMENT",
                    r[0]
                );
                let version: String =
                    std::fs::read_to_string(dir(server).join("version.txt")).unwrap();
                let v: Vec<u32> = version
                    .trim()
                    .split(['.', '-'])
                    .take(3)
                    .map(|x| x.parse().unwrap())
                    .collect();
                assert_eq!(
                    f.mysql_version,
                    v[0] * 10000 + v[1] * 100 + v[2],
                    "{}: version",
                    r[0]
                );
            }
        }
    }

    /// The server placed each stored column right after the one before in
    /// its row image (`rec_pos`): the pack lengths this reader derives
    /// must fill exactly those gaps, and the last must end at `reclength`.
    #[test]
    fn pack_lengths_fill_the_servers_record() {
        for server in SERVERS {
            for table in tables(server) {
                let f = frm(server, &table);
                // Virtual columns have room in the row image too (after the
                // stored ones).
                let mut stored: Vec<&FrmColumn> = f.columns.iter().collect();
                stored.sort_by_key(|c| c.rec_pos);
                for w in stored.windows(2) {
                    let len = w[0]
                        .pack_length()
                        .unwrap_or_else(|| panic!("{table}.{}", w[0].name));
                    assert_eq!(
                        w[0].rec_pos + len,
                        w[1].rec_pos,
                        "{server} {table}.{} ({})",
                        w[0].name,
                        w[0].column_type()
                    );
                }
                let last = stored.last().unwrap();
                assert!(
                    last.rec_pos - 1 + last.pack_length().unwrap() <= u32::from(f.reclength),
                    "{server} {table}"
                );
            }
        }
    }

    #[test]
    fn mariadb_extras() {
        let f = frm("mariadb1011", "maria_types");
        let by = |n: &str| f.columns.iter().find(|c| c.name == n).unwrap();
        assert_eq!(by("u").type_name.as_deref(), Some("uuid"));
        assert_eq!(by("v_virt").generated.as_ref().unwrap().text, "`id` * 2");
        assert!(!by("v_virt").stored());
        assert_eq!(
            by("v_pers").generated.as_ref().unwrap().kind,
            ExprKind::Stored
        );
        assert!(by("c_chk").check.is_some(), "{:?}", by("c_chk"));
        assert!(
            by("j").check.is_some(),
            "JSON is longtext with a json_valid CHECK"
        );
        assert_eq!(by("DB_ROW_HASH_1").invisible, 3);
        let ign = f.keys.iter().find(|k| k.name == "k_ign").unwrap();
        assert!(ign.ignored);
        let v = frm("mariadb1011", "versioned");
        assert_eq!(v.system_period, Some((2, 3)));
        assert_eq!(frm("mysql56", "no_pk").clustered_key().unwrap().name, "ub");
        assert_eq!(
            frm("mysql56", "types").clustered_key().unwrap().name,
            "PRIMARY"
        );
        assert!(frm("mysql56", "long_comment").comment.len() > 60);
        for server in SERVERS {
            let p = frm(server, "part");
            assert_eq!(p.engine.as_deref(), Some("partition"));
            let text = p.partition_info.unwrap();
            assert!(
                text.contains("PARTITION BY HASH") && text.contains("PARTITIONS 3"),
                "{text}"
            );
        }
    }

    fn all_frm_files() -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for server in SERVERS {
            for table in tables(server) {
                let b = std::fs::read(dir(server).join(format!("{table}.frm"))).unwrap();
                out.push((format!("{server}/{table}"), b));
            }
        }
        out
    }

    /// Every prefix of every real file: an error (with an offset inside
    /// the prefix or at its end), never a panic; the whole file parses.
    #[test]
    fn truncated_files_give_errors() {
        for (name, b) in all_frm_files() {
            assert!(Frm::parse(&b).is_ok(), "{name}");
            // The MySQL files end in zero padding to a 4 KiB block; every
            // cut before the last byte that matters must fail.
            let used = b.iter().rposition(|&x| x != 0).unwrap() + 1;
            let step = if name.ends_with("types") { 1 } else { 7 };
            for cut in (0..used).step_by(step) {
                match Frm::parse(&b[..cut]) {
                    Err(e) => assert!(
                        e.file_offset().unwrap() <= cut.max(64),
                        "{name} cut {cut}: {e}"
                    ),
                    Ok(_) => panic!("{name} cut at {cut} of {used} parsed"),
                }
            }
        }
    }

    /// Seeded mutations of real files (one to three bytes set to 0, 0xFF,
    /// a flipped bit or a random value): no panic, and an error names an
    /// offset inside the file.
    #[test]
    fn mutated_files_never_panic() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut errors = 0;
        let mut total = 0;
        for (name, b) in all_frm_files() {
            let used = b.iter().rposition(|&x| x != 0).unwrap() + 1;
            // Every byte once with each of three values (two files) ...
            let exhaustive = name == "mysql56/no_pk" || name == "mariadb1011/maria_types";
            for pos in (0..used).filter(|_| exhaustive) {
                for v in [0u8, 0xFF, b[pos] ^ 0x80] {
                    let mut m = b.clone();
                    m[pos] = v;
                    total += 1;
                    if let Err(e) = Frm::parse(&m) {
                        assert!(
                            e.file_offset().unwrap() <= m.len(),
                            "{name} byte {pos}={v:#x}: {e}"
                        );
                        errors += 1;
                    }
                }
            }
            // ... and random multi-byte damage.
            for _ in 0..300 {
                let mut m = b.clone();
                for _ in 0..(next() % 3 + 1) {
                    let pos = (next() as usize) % used;
                    m[pos] = next() as u8;
                }
                total += 1;
                if let Err(e) = Frm::parse(&m) {
                    assert!(e.file_offset().unwrap() <= m.len(), "{name}: {e}");
                    errors += 1;
                }
            }
        }
        assert!(errors > 500, "{errors} of {total} mutations were errors");
    }

    /// A small hand-made file: header, "//" names, forminfo, one INT
    /// column, no keys.
    fn tiny() -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[0] = 254;
        b[1] = 1;
        b[2] = FRM_VER_TRUE_VARCHAR;
        b[3] = 12;
        b[4] = 3; // names length: "//\0"
        b[6..8].copy_from_slice(&100u16.to_le_bytes()); // keys at 100
        b[14..16].copy_from_slice(&10u16.to_le_bytes()); // key buffer 10
        b[16..18].copy_from_slice(&5u16.to_le_bytes()); // reclength 5
        b[38] = 8;
        b[51..55].copy_from_slice(&50624u32.to_le_bytes());
        b.extend_from_slice(b"//\0");
        b.extend_from_slice(&200u32.to_le_bytes()); // forminfo at 200
        b.resize(100, 0);
        b.extend_from_slice(&[0, 0, 2, 0, 0, 0, 0xff, 0]); // no keys, names "\xff\0"
        b.resize(110, 0);
        b.extend_from_slice(&[1, 0, 0, 0, 0]); // default record
        b.resize(200, 0);
        let fi = b.len();
        b.resize(fi + FRM_FORMINFO_SIZE, 0);
        b[fi + 258] = 1; // one column
        b[fi + 268] = 5; // names length "\xffa\xff\0" + 1
        let mut col = [0u8; FCOMP];
        col[3] = 11; // int(11)
        col[5] = 2; // rec_pos
        col[8..10].copy_from_slice(&0x801bu16.to_le_bytes());
        col[13] = 3; // LONG
        col[14] = 8;
        b.extend_from_slice(&col);
        b.extend_from_slice(&[0xff, b'a', 0xff, 0, 0]);
        b
    }

    #[test]
    fn tiny_file_parses() {
        let f = Frm::parse(&tiny()).unwrap();
        assert_eq!(f.columns.len(), 1);
        assert_eq!(f.columns[0].name, "a");
        assert_eq!(f.columns[0].column_type(), "int(11)");
        assert!(f.columns[0].nullable);
        assert!(f.keys.is_empty());
        assert_eq!(f.table_collation, 8);
        assert_eq!(f.mysql_version, 50624);
    }

    #[test]
    fn damaged_headers_name_their_offset() {
        let err = |b: &[u8]| Frm::parse(b).unwrap_err();
        assert_eq!(
            err(b"TYPE=VIEW\nquery=select 1\n").frm(),
            FrmErrorKind::View
        );
        assert_eq!(err(&[0xfe, 1]).frm(), FrmErrorKind::TooShort);
        let mut b = tiny();
        b[0] = 0;
        assert_eq!(err(&b).frm(), FrmErrorKind::BadMagic);
        let mut b = tiny();
        b[2] = 8;
        assert_eq!(err(&b), frm_err(FrmErrorKind::UnsupportedVersion(8), 2));
        // The forminfo position (at 64 + 3) past the end.
        let mut b = tiny();
        b[67..71].copy_from_slice(&60000u32.to_le_bytes());
        let e = err(&b);
        assert_eq!(e.file_offset().unwrap(), 67);
        assert!(
            matches!(
                e.frm(),
                FrmErrorKind::OutOfFile {
                    what: "forminfo position",
                    value: 60000,
                    ..
                }
            ),
            "{e}"
        );
        // A huge column count: the column records do not fit.
        let mut b = tiny();
        b[200 + 258..200 + 260].copy_from_slice(&60000u16.to_le_bytes());
        let e = err(&b);
        assert_eq!(e.file_offset().unwrap(), 200 + 258, "{e}");
        // The names lose their terminator.
        let mut b = tiny();
        let n = b.len();
        b[n - 2] = b'b';
        assert!(matches!(
            err(&b).frm(),
            FrmErrorKind::BadNames(_) | FrmErrorKind::CountMismatch { .. }
        ));
        // A key section claiming 100 keys.
        let mut b = tiny();
        b[100] = 100;
        assert!(Frm::parse(&b).is_err());
        // A key part naming column 5 of 1.
        let mut b = tiny();
        b[100..108].copy_from_slice(&[1, 1, 0, 0, 0, 0, 0, 0]);
        b[106..108].copy_from_slice(&0u16.to_le_bytes());
        let mut key = vec![1u8 ^ 1, 0, 4, 0, 1, 0, 0, 0]; // flags ^ HA_NOSAME, length 4, 1 part
        key.extend_from_slice(&(5u16 | 0x4000).to_le_bytes());
        key.extend_from_slice(&[2, 0, 0, 0, 0, 4, 0]);
        key.extend_from_slice(b"\xffk\xff\0");
        b.splice(110..110, std::iter::repeat_n(0u8, 20));
        b[106..106 + key.len()].copy_from_slice(&key);
        b[14..16].copy_from_slice(&30u16.to_le_bytes());
        b[67..71].copy_from_slice(&220u32.to_le_bytes());
        let e = err(&b);
        assert_eq!(e.frm(), FrmErrorKind::BadKeyColumn(5), "{e}");
    }

    #[test]
    fn extra2_entries_are_bounded() {
        let r = R { b: &[0u8, 5, 1, 2] };
        // Type 0 with length 5 but two bytes left.
        assert!(read_extra2(&r, 0, 4).is_err());
        let r = R {
            b: &[0u8, 0, 10, 0],
        };
        // Two-byte length below 256.
        assert!(read_extra2(&r, 0, 4).is_err());
        let r = R {
            b: &[130u8, 3, 1, 4, b'u'],
        };
        // Type info: column 1, name of 4 bytes, but one there.
        assert!(read_extra2(&r, 0, 5).is_err());
        let r = R {
            b: &[130u8, 6, 1, 4, b'u', b'u', b'i', b'd'],
        };
        let ex = read_extra2(&r, 0, 8).unwrap();
        assert_eq!(ex.type_names.get(&1).map(Vec::as_slice), Some(&b"uuid"[..]));
    }

    #[test]
    fn typelibs_follow_fix_type_pointers() {
        let b = b"\xffab\xffc\xff\0,x\xffy,z,\0\0";
        let (v, next) = typelib(b, 0, b.len(), "t").unwrap();
        assert_eq!(v, vec![&b"ab"[..], &b"c"[..]]);
        let (v, next) = typelib(b, next, b.len(), "t").unwrap();
        assert_eq!(v, vec![&b"x\xffy"[..], &b"z"[..]]);
        let (v, _) = typelib(b, next, b.len(), "t").unwrap();
        assert!(v.is_empty());
        assert!(typelib(b"\xffab", 0, 3, "t").is_err());
        assert!(
            typelib(b"\xffab\0", 0, 4, "t").is_err(),
            "NUL must follow a separator"
        );
        assert_eq!(unhex(b"0061"), vec![0, 0x61]);
        assert_eq!(decode_text("ucs2", &unhex(b"03B1")), "α");
        assert_eq!(decode_text("latin1", b"x\xff\x80"), "xÿ€");
    }

    #[test]
    fn charsets_match_the_servers() {
        for server in SERVERS {
            for r in tsv(server, "collations.tsv") {
                let Ok(id) = r[0].parse::<u16>() else {
                    continue;
                };
                let cs = Charset::of_collation(id).unwrap_or_else(|| panic!("{server} {id}"));
                assert_eq!(
                    cs.name,
                    r[2].replace("utf8mb3", "utf8")
                        .replace("utf8", "utf8mb3")
                        .replace("utf8mb3mb4", "utf8mb4"),
                    "{server} {id}"
                );
                assert_eq!(cs.mbmaxlen.to_string(), r[3], "{server} {id}");
            }
        }
        assert_eq!(Charset::of_collation(9999), None);
    }

    /// The conversion adds InnoDB's columns and builds every B-tree's
    /// record layout.
    #[test]
    fn table_defs_have_innodb_layouts() {
        use crate::table::{IndexKind, SysCol};
        for server in SERVERS {
            for table in tables(server) {
                let f = frm(server, &table);
                let t = f.to_table_def(&table, "frmt");
                let c = t.clustered().unwrap();
                match f.clustered_key() {
                    Some(k) => assert_eq!(c.name, k.name),
                    None => {
                        assert_eq!(c.name, "GEN_CLUST_INDEX");
                        assert_eq!(t.columns[c.elements[0].column].sys(), Some(SysCol::RowId));
                    }
                }
                for ix in t
                    .indexes
                    .iter()
                    .filter(|i| !matches!(i.kind, IndexKind::Fulltext | IndexKind::Spatial))
                {
                    for compact in [true, false] {
                        let l = t
                            .layout(ix, compact)
                            .unwrap_or_else(|e| panic!("{server} {table} {}: {e}", ix.name));
                        assert!(!l.fields.is_empty());
                    }
                }
                // Key, DB_TRX_ID, DB_ROLL_PTR, then each other stored column once.
                let stored = f.columns.iter().filter(|c| c.stored()).count();
                let n_key = c.elements.iter().take_while(|e| !e.hidden).count().max(1);
                let prefixed = c.elements.iter().filter(|e| e.prefix_len.is_some()).count();
                let fts = usize::from(f.keys.iter().any(FrmKey::fulltext));
                assert_eq!(
                    c.elements.len(),
                    stored + fts + 2 + prefixed + usize::from(f.clustered_key().is_none()),
                    "{server} {table}: {n_key}"
                );
            }
        }
        let t = frm("mysql56", "no_pk").to_table_def("no_pk", "frmt");
        let names: Vec<&str> = t.indexes[0]
            .elements
            .iter()
            .map(|e| t.columns[e.column].name.as_str())
            .collect();
        assert_eq!(names, ["b", "DB_TRX_ID", "DB_ROLL_PTR", "a", "c"]);
        let ua: Vec<&str> = t.indexes[1]
            .elements
            .iter()
            .map(|e| t.columns[e.column].name.as_str())
            .collect();
        assert_eq!(ua, ["a", "b"]);
        let t = frm("mysql56", "types").to_table_def("types", "frmt");
        let kp = t.indexes.iter().find(|i| i.name == "k_prefix").unwrap();
        let kp: Vec<(&str, Option<u32>)> = kp
            .elements
            .iter()
            .map(|e| (t.columns[e.column].name.as_str(), e.prefix_len))
            .collect();
        assert_eq!(
            kp,
            [("c_varchar", Some(10)), ("c_text", Some(20)), ("id", None)]
        );
    }

    /// MySQL 5.7 generated columns and JSON, by the 5.7 writer's layout
    /// (`pack_fields`: `unireg_check | 128`, then 1, length, stored flag,
    /// text after the comments).
    #[test]
    fn mysql57_generated_column_and_json() {
        let mut b = tiny();
        b[51..55].copy_from_slice(&50722u32.to_le_bytes());
        let fi = 200;
        let col = fi + FRM_FORMINFO_SIZE;
        b[col + 10] = 128; // generated
        b[col + 13] = 245; // MYSQL_TYPE_JSON
        b[col + 8..col + 10].copy_from_slice(&(0x8000u16 | 0x1000 | 0x18).to_le_bytes());
        let text = b"json_object()";
        b[fi + 286..fi + 288].copy_from_slice(&((text.len() + 4) as u16).to_le_bytes());
        b.extend_from_slice(&[1, text.len() as u8, 0, 1]);
        b.extend_from_slice(text);
        let f = Frm::parse(&b).unwrap();
        let c = &f.columns[0];
        assert_eq!(c.real_type, FieldType::JSON);
        assert_eq!(c.data_type(), "json");
        let g = c.generated.as_ref().unwrap();
        assert_eq!(
            (g.kind, g.text.as_str()),
            (ExprKind::Stored, "json_object()")
        );
        // The entry claims more text than the section has.
        let n = b.len();
        b[n - text.len() - 3] = 200;
        assert!(Frm::parse(&b).is_err());
    }

    /// MariaDB 5.2–10.1 virtual columns: type 245 and the entry's length
    /// in byte 12 (`init_from_binary_frm_image`: 1|2, real type, flags,
    /// [list], text).
    #[test]
    fn old_mariadb_virtual_column() {
        let mut b = tiny();
        b[51..55].copy_from_slice(&100138u32.to_le_bytes());
        let fi = 200;
        let col = fi + FRM_FORMINFO_SIZE;
        let text = b"a + 1";
        b[col + 12] = (3 + text.len()) as u8;
        b[col + 13] = 245;
        b[fi + 286..fi + 288].copy_from_slice(&((3 + text.len()) as u16).to_le_bytes());
        b.extend_from_slice(&[1, 3, 0]);
        b.extend_from_slice(text);
        let f = Frm::parse(&b).unwrap();
        let c = &f.columns[0];
        assert_eq!(c.real_type, FieldType::LONG);
        assert_eq!(c.interval_nr, 0);
        let g = c.generated.as_ref().unwrap();
        assert_eq!((g.kind, g.text.as_str()), (ExprKind::Virtual, "a + 1"));
        assert!(!c.stored());
        // Version byte 3 is not an entry kind.
        let n = b.len();
        b[n - text.len() - 3] = 3;
        assert_eq!(
            Frm::parse(&b).unwrap_err().frm(),
            FrmErrorKind::BadExpression
        );
    }

    #[test]
    fn default_record_is_where_the_header_says() {
        let b = std::fs::read(dir("mysql56").join("types.frm")).unwrap();
        let f = Frm::parse(&b).unwrap();
        let rec = f.default_record(&b).unwrap();
        assert_eq!(rec.len(), usize::from(f.reclength));
        // c_smallint DEFAULT 7 (little-endian in the server's row image).
        let c = f.columns.iter().find(|c| c.name == "c_smallint").unwrap();
        let at = c.rec_pos as usize - 1;
        assert_eq!(&rec[at..at + 2], &[7, 0]);
    }

    /// The fixtures' `.frm` files (fixtures/generate writes them beside
    /// the `.ibd`s) parse and convert; where `fixtures/rows/tables.tsv`
    /// lists the table, its column names equal the server's, and each
    /// column's type and NOT NULL are as the server's `SHOW CREATE TABLE`
    /// (`rows/<dir>__<table>.sql`) states them.
    #[test]
    fn fixture_frm_files_match_show_create() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let listed: Vec<Vec<String>> = std::fs::read_to_string(root.join("rows/tables.tsv"))
            .unwrap_or_else(|e| panic!("fixtures/rows/tables.tsv: {e}"))
            .lines()
            .skip(1)
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect();
        let (mut n, mut compared) = (0, 0);
        let dirs = std::fs::read_dir(&root).unwrap_or_else(|e| panic!("fixtures/: {e}"));
        for d in dirs.map(|d| d.unwrap()).filter(|d| d.path().is_dir()) {
            for e in std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap()) {
                let p = e.path();
                if p.extension().is_none_or(|x| x != "frm") {
                    continue;
                }
                let b = std::fs::read(&p).unwrap();
                let f = Frm::parse(&b).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                let t = f.to_table_def("t", "s");
                for ix in t.indexes.iter().filter(|i| {
                    !matches!(
                        i.kind,
                        crate::table::IndexKind::Fulltext | crate::table::IndexKind::Spatial
                    )
                }) {
                    t.layout(ix, true)
                        .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                }
                n += 1;
                let rel = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let Some(row) = listed.iter().find(|r| r.get(8) == Some(&rel)) else {
                    continue;
                };
                let names: Vec<&str> = f
                    .columns
                    .iter()
                    .filter(|c| c.invisible < 2)
                    .map(|c| c.name.as_str())
                    .collect();
                assert_eq!(names.join(","), row[9], "{rel}: columns");
                let sql = std::fs::read_to_string(root.join(&row[7])).unwrap();
                for c in f.columns.iter().filter(|c| c.invisible < 2) {
                    let head = format!("  `{}` {}", c.name, c.column_type());
                    let line = sql
                        .lines()
                        .find(|l| l.starts_with(&format!("  `{}` ", c.name)))
                        .unwrap_or_else(|| panic!("{rel}: {} not in SHOW CREATE", c.name));
                    let rest = line
                        .strip_prefix(&head)
                        .unwrap_or_else(|| panic!("{rel}: {line:?} vs {head:?}"));
                    assert!(
                        rest.is_empty() || rest.starts_with([' ', ',']),
                        "{rel}: {line:?} vs {head:?}"
                    );
                    assert_eq!(line.contains(" NOT NULL"), !c.nullable, "{rel}: {line}");
                    compared += 1;
                }
            }
        }
        assert!(n > 0, "no .frm file in fixtures/");
        assert!(compared > 0, "no .frm of fixtures/rows/tables.tsv compared");
        eprintln!("{n} fixture .frm files, {compared} columns against SHOW CREATE TABLE");
    }
}
