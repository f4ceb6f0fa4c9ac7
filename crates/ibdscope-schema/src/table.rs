//! Table definitions: one type, whatever the source (the SDI of MySQL 8.0+,
//! a `.frm` file, a `CREATE TABLE` statement), and the physical field
//! layout of an index's records derived from it.
//!
//! Sources, as read:
//! - MySQL `sql/dd/types/column.h`: `enum_column_types` (the `type` number
//!   of an SDI column, DECIMAL = 1 … JSON = 31; 9.x adds VECTOR = 32,
//!   **derived** from the corpus SDI whose column is `vector(4)`), and
//!   `enum_hidden_type` (1 visible, 2 hidden by the storage engine:
//!   DB_ROW_ID, DB_TRX_ID, DB_ROLL_PTR, 3 hidden from SQL).
//! - SDI columns (MySQL 8.0+ `sql/dd/impl/types/column_impl.cc`
//!   `serialize`): `char_length` is the maximum length **in bytes**,
//!   `elements[].name` of ENUM/SET columns is base64, `se_private_data`
//!   holds `physical_pos`, `version_added`, `version_dropped` (8.0.29+),
//!   `default` / `default_null` (instant ADD COLUMN).
//! - SDI indexes: `elements[]` in index order, each with `column_opx` (the
//!   column's 0-based position in `columns`), `length` (key bytes;
//!   4294967295 = the whole column) and `hidden` (added by InnoDB: the
//!   system columns and the primary key columns of a secondary index);
//!   `se_private_data` holds `id`, `root`, `space_id`.
//! - InnoDB's clustered index order (`dict0dict.cc`
//!   `dict_index_build_internal_clust`): key columns, DB_TRX_ID,
//!   DB_ROLL_PTR, then the other columns.
//! - Stored sizes (`dict0mem.h` `dict_col_get_fixed_size`, `data0type.h`
//!   `DATA_BIG_COL`, `ha_innodb.cc` `get_innobase_type_from_mysql_type`):
//!   see [`Column::fixed_len`] and [`Column::is_big`].
//! - 8.0.29+ records store fields in physical order (`rem0rec.cc`
//!   `rec_init_offsets_comp_ordinary`, `index->get_physical_field(i)`):
//!   by `physical_pos`, dropped columns included.
//!
//! [`TableDef`] has public fields so a `.frm` or DDL reader can fill it.

use crate::error::{Error, ErrorKind};
/// Defined with the crate's error, re-exported here.
pub use crate::error::{FromSpaceErrorKind, LayoutErrorKind, SdiDefErrorKind, TooLong};
use crate::json::Value;

/// Column type, as `sql/dd/types/column.h` `enum_column_types` numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ColType {
    /// Old (pre-5.0.3) DECIMAL, stored as a string.
    Decimal,
    /// TINYINT.
    Tiny,
    /// SMALLINT.
    Short,
    /// INT.
    Long,
    /// FLOAT.
    Float,
    /// DOUBLE.
    Double,
    /// NULL type.
    Null,
    /// Old TIMESTAMP (4 bytes, before 5.6.4).
    Timestamp,
    /// BIGINT.
    LongLong,
    /// MEDIUMINT.
    Int24,
    /// Old DATE (4 bytes).
    Date,
    /// Old TIME (3 bytes, before 5.6.4).
    Time,
    /// Old DATETIME (8 bytes, before 5.6.4).
    DateTime,
    /// YEAR.
    Year,
    /// DATE (3 bytes).
    NewDate,
    /// VARCHAR / VARBINARY.
    Varchar,
    /// BIT.
    Bit,
    /// TIMESTAMP with fractional seconds format (5.6.4+).
    Timestamp2,
    /// DATETIME (5.6.4+ format).
    DateTime2,
    /// TIME (5.6.4+ format).
    Time2,
    /// DECIMAL (binary).
    NewDecimal,
    /// ENUM.
    Enum,
    /// SET.
    Set,
    /// TINYBLOB / TINYTEXT.
    TinyBlob,
    /// MEDIUMBLOB / MEDIUMTEXT.
    MediumBlob,
    /// LONGBLOB / LONGTEXT.
    LongBlob,
    /// BLOB / TEXT.
    Blob,
    /// Old VARCHAR.
    VarString,
    /// CHAR / BINARY.
    String,
    /// GEOMETRY and its subtypes.
    Geometry,
    /// JSON (MySQL binary JSON).
    Json,
    /// VECTOR (MySQL 9.0+): float32 array.
    Vector,
    /// MariaDB UUID (16 bytes).
    MariaUuid,
    /// MariaDB INET6 (16 bytes).
    MariaInet6,
    /// MariaDB INET4 (4 bytes, network order).
    MariaInet4,
    /// A number this reader does not know.
    Unknown(u32),
}

impl ColType {
    /// The type for an SDI column `type` number.
    pub(crate) fn from_dd(n: u64) -> ColType {
        use ColType::*;
        match n {
            1 => Decimal,
            2 => Tiny,
            3 => Short,
            4 => Long,
            5 => Float,
            6 => Double,
            7 => Null,
            8 => Timestamp,
            9 => LongLong,
            10 => Int24,
            11 => Date,
            12 => Time,
            13 => DateTime,
            14 => Year,
            15 => NewDate,
            16 => Varchar,
            17 => Bit,
            18 => Timestamp2,
            19 => DateTime2,
            20 => Time2,
            21 => NewDecimal,
            22 => Enum,
            23 => Set,
            24 => TinyBlob,
            25 => MediumBlob,
            26 => LongBlob,
            27 => Blob,
            28 => VarString,
            29 => String,
            30 => Geometry,
            31 => Json,
            32 => Vector,
            n => Unknown(u32::try_from(n).unwrap_or(u32::MAX)),
        }
    }

    /// Lowercase SQL-ish name.
    pub fn name(self) -> &'static str {
        use ColType::*;
        match self {
            Decimal | NewDecimal => "decimal",
            Tiny => "tinyint",
            Short => "smallint",
            Long => "int",
            Float => "float",
            Double => "double",
            Null => "null",
            Timestamp | Timestamp2 => "timestamp",
            LongLong => "bigint",
            Int24 => "mediumint",
            Date | NewDate => "date",
            Time | Time2 => "time",
            DateTime | DateTime2 => "datetime",
            Year => "year",
            Varchar | VarString => "varchar",
            Bit => "bit",
            Enum => "enum",
            Set => "set",
            TinyBlob => "tinyblob",
            MediumBlob => "mediumblob",
            LongBlob => "longblob",
            Blob => "blob",
            String => "char",
            Geometry => "geometry",
            Json => "json",
            Vector => "vector",
            MariaUuid => "uuid",
            MariaInet6 => "inet6",
            MariaInet4 => "inet4",
            Unknown(_) => "unknown",
        }
    }

    /// BLOB, TEXT, JSON, GEOMETRY, VECTOR: stored as InnoDB `DATA_BLOB` /
    /// `DATA_GEOMETRY` (`DATA_LARGE_MTYPE`), lengths in 1 or 2 bytes and
    /// possibly off-page.
    pub(crate) fn is_lob(self) -> bool {
        // VECTOR: MySQL 9's Field_vector is a Field_blob, so InnoDB stores
        // it as DATA_BLOB (**unconfirmed** in `ha_innodb.cc`; the corpus
        // values are all shorter than 128 bytes and cannot tell).
        // docs/format.md §14.
        matches!(
            self,
            ColType::TinyBlob
                | ColType::MediumBlob
                | ColType::LongBlob
                | ColType::Blob
                | ColType::Geometry
                | ColType::Json
                | ColType::Vector
        )
    }
}

/// A character set, as far as layout and decoding need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Charset {
    /// `binary` (collation 63): bytes.
    Binary,
    /// MySQL's latin1 (Windows-1252 with five undefined bytes kept).
    Latin1,
    /// ASCII.
    Ascii,
    /// utf8mb3 (1–3 bytes).
    Utf8mb3,
    /// utf8mb4 (1–4 bytes).
    Utf8mb4,
    /// UCS-2 (2 bytes).
    Ucs2,
    /// UTF-16 (2 or 4 bytes).
    Utf16,
    /// UTF-32 (4 bytes).
    Utf32,
    /// Another single-byte set: decoded as hex, but its layout is known.
    OtherSingleByte,
    /// A collation id this reader does not know.
    Unknown(u32),
}

impl Charset {
    /// The charset of a MySQL collation id (`strings/ctype-*.cc`; ids from
    /// `INFORMATION_SCHEMA.COLLATIONS`). Unknown ids give `Unknown`.
    pub(crate) fn of_collation(id: u32) -> Charset {
        use Charset::*;
        match id {
            63 => Binary,
            5 | 8 | 15 | 31 | 47 | 48 | 49 | 94 => Latin1,
            11 | 65 => Ascii,
            33 | 76 | 83 | 192..=215 | 223 => Utf8mb3,
            45 | 46 | 224..=247 | 255..=323 => Utf8mb4,
            35 | 90 | 128..=151 | 159 => Ucs2,
            54 | 55 | 101..=124 | 56 | 62 => Utf16,
            60 | 61 | 160..=183 => Utf32,
            // Single-byte sets: dec8, cp850, hp8, koi8r, latin2, swe7, cp1251,
            // hebrew, tis620, koi8u, greek, cp1250, latin5, armscii8, cp866,
            // keybcs2, macce, macroman, cp852, latin7, cp1256, cp1257, geostd8.
            3
            | 69
            | 4
            | 80
            | 6
            | 72
            | 7
            | 74
            | 2
            | 9
            | 21
            | 27
            | 77
            | 10
            | 82
            | 14
            | 23
            | 50..=52
            | 16
            | 71
            | 18
            | 89
            | 22
            | 75
            | 25
            | 70
            | 26
            | 34
            | 44
            | 66
            | 99
            | 30
            | 78
            | 32
            | 64
            | 36
            | 68
            | 37
            | 73
            | 38
            | 43
            | 39
            | 53
            | 40
            | 81
            | 20
            | 41
            | 42
            | 79
            | 57
            | 67
            | 29
            | 58
            | 59
            | 92
            | 93 => OtherSingleByte,
            // The rest by their charset's name: MariaDB's UCA 14.0.0
            // collations (2048+) and nopad ones, MySQL 8.0's gb18030.
            n => {
                let named = u16::try_from(n)
                    .ok()
                    .and_then(crate::collation::Charset::of_collation);
                match named.map(|c| (c.name, c.mbmaxlen)) {
                    Some(("utf8mb3", _)) => Utf8mb3,
                    Some(("utf8mb4", _)) => Utf8mb4,
                    Some(("ucs2", _)) => Ucs2,
                    Some(("utf16" | "utf16le", _)) => Utf16,
                    Some(("utf32", _)) => Utf32,
                    Some(("latin1", _)) => Latin1,
                    Some(("ascii", _)) => Ascii,
                    Some(("binary", _)) => Binary,
                    Some((_, 1)) => OtherSingleByte,
                    _ => Unknown(n),
                }
            }
        }
    }

    /// Fewest and most bytes per character, when known.
    pub(crate) fn mb_len(self) -> Option<(u32, u32)> {
        use Charset::*;
        match self {
            Binary | Latin1 | Ascii | OtherSingleByte => Some((1, 1)),
            Utf8mb3 => Some((1, 3)),
            Utf8mb4 => Some((1, 4)),
            Ucs2 => Some((2, 2)),
            Utf16 => Some((2, 4)),
            Utf32 => Some((4, 4)),
            Unknown(_) => None,
        }
    }
}

/// Whether and how a column is hidden (`enum_hidden_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hidden {
    /// A normal column.
    Visible,
    /// Hidden by the storage engine (DB_ROW_ID, DB_TRX_ID, DB_ROLL_PTR,
    /// and dropped columns kept for old row versions).
    Se,
    /// Hidden from SQL (functional index parts), or `FTS_DOC_ID`.
    Sql,
}

/// InnoDB's system columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SysCol {
    /// DB_ROW_ID: 6 bytes, the clustered key of a table without one.
    RowId,
    /// DB_TRX_ID: 6 bytes.
    TrxId,
    /// DB_ROLL_PTR: 7 bytes.
    RollPtr,
    /// FTS_DOC_ID: 8 bytes, BIGINT UNSIGNED.
    FtsDocId,
}

impl SysCol {
    /// The system column named `name`, if it is one.
    pub(crate) fn of_name(name: &str) -> Option<SysCol> {
        match name {
            "DB_ROW_ID" => Some(SysCol::RowId),
            "DB_TRX_ID" => Some(SysCol::TrxId),
            "DB_ROLL_PTR" => Some(SysCol::RollPtr),
            "FTS_DOC_ID" => Some(SysCol::FtsDocId),
            _ => None,
        }
    }
    /// Stored length (`data0type.h` `DATA_ROW_ID_LEN`, `DATA_TRX_ID_LEN`,
    /// `DATA_ROLL_PTR_LEN`; FTS_DOC_ID is a BIGINT).
    pub(crate) fn stored_len(self) -> u16 {
        match self {
            SysCol::RowId | SysCol::TrxId => 6,
            SysCol::RollPtr => 7,
            SysCol::FtsDocId => 8,
        }
    }
}

/// The value an instantly added column has in rows written before it was
/// added (`se_private_data` `default_null=1`, or `default=` the stored
/// bytes as lowercase hex: `dict0dd.cc` `dd_write_default_value`,
/// `DD_instant_col_val_coder::encode`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstantDefault {
    /// NULL.
    Null,
    /// These bytes, in InnoDB's stored format.
    Bytes(Vec<u8>),
    /// A `default=` value that is not hex, as written.
    Malformed(String),
}

/// A column's DEFAULT as its definition holds it (`SHOW CREATE TABLE`
/// prints it from the same: mysql-server 5.6 `sql/sql_show.cc`
/// `print_default_clause`, 8.0 the same function reading the DD's
/// `default_value_utf8` / `default_option`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ColumnDefault {
    /// DEFAULT NULL.
    Null,
    /// A constant, as the server prints it (the text between the quotes,
    /// unescaped: `-12.50`, `2020-02-29`, `a,c`).
    Value(String),
    /// A constant of a binary string column that is not printable UTF-8.
    Bytes(Vec<u8>),
    /// A BIT constant (printed `b'101'`).
    Bits(u64),
    /// CURRENT_TIMESTAMP with this many fractional digits.
    Now(u32),
    /// Another expression (MySQL 8.0.13+, MariaDB 10.2+), as SQL text.
    Expr(String),
}

/// Table options a definition holds beyond its columns and indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TableOptions {
    /// The table's default collation id (0: not known).
    pub collation_id: u32,
    /// `AUTO_INCREMENT=` (the next value), when the definition holds it.
    pub auto_increment: Option<u64>,
    /// `KEY_BLOCK_SIZE=` (0: not given).
    pub key_block_size: u32,
    /// Table COMMENT (empty: none).
    pub comment: String,
    /// STATS_PERSISTENT=1/0, when given.
    pub stats_persistent: Option<bool>,
    /// STATS_AUTO_RECALC=1/0, when given.
    pub stats_auto_recalc: Option<bool>,
    /// STATS_SAMPLE_PAGES (0: not given).
    pub stats_sample_pages: u32,
    /// MariaDB engine-defined table options (`PAGE_COMPRESSED`,
    /// `ENCRYPTED`, …): name and value as given.
    pub engine_options: Vec<(String, String)>,
    /// The row format is the server's default, not stated in CREATE
    /// TABLE (an SDI whose `options` have no `row_type`): `SHOW CREATE
    /// TABLE` leaves ROW_FORMAT out.
    pub row_format_implicit: bool,
}

/// One column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Name (dropped columns keep the server's `!hidden!_dropped_…` name).
    pub name: String,
    /// Type.
    pub col_type: ColType,
    /// Maximum length in bytes (SDI `char_length`): for strings the byte
    /// length (characters × mbmaxlen), for BIT the bits.
    pub length: u32,
    /// Numeric precision (DECIMAL digits, BIT bits).
    pub precision: u32,
    /// Numeric scale (DECIMAL).
    pub scale: u32,
    /// Fractional seconds digits (0–6) of TIME, DATETIME, TIMESTAMP.
    pub fsp: u32,
    /// UNSIGNED.
    pub unsigned: bool,
    /// NULL allowed.
    pub nullable: bool,
    /// Collation id (63 = binary).
    pub collation_id: u32,
    /// ENUM / SET element names, in order.
    pub elements: Vec<String>,
    /// Hidden kind.
    pub hidden: Hidden,
    /// Virtual generated column (not stored in the clustered index).
    pub is_virtual: bool,
    /// 8.0.29+: `version_added` (0 = in the table from the start).
    pub version_added: u32,
    /// 8.0.29+: `version_dropped` (`None` = not dropped).
    pub version_dropped: Option<u32>,
    /// 8.0.29+: `physical_pos`, the field's place in the record.
    pub physical_pos: Option<u32>,
    /// Instant ADD COLUMN: the value of rows written before the column.
    pub instant_default: Option<InstantDefault>,
    /// DEFAULT (`None`: the definition has none, or does not say).
    pub default: Option<ColumnDefault>,
    /// ON UPDATE CURRENT_TIMESTAMP, with this many fractional digits.
    pub on_update: Option<u32>,
    /// AUTO_INCREMENT.
    pub auto_increment: bool,
    /// Column COMMENT (empty: none).
    pub comment: String,
    /// A column CHECK constraint (MariaDB 10.2+), its expression as text.
    pub check: Option<String>,
}

impl Column {
    /// A visible column with everything else at its default: for callers
    /// building a definition by hand.
    pub fn new(name: &str, col_type: ColType) -> Column {
        Column {
            name: name.to_string(),
            col_type,
            length: 0,
            precision: 0,
            scale: 0,
            fsp: 0,
            unsigned: false,
            nullable: true,
            collation_id: 63,
            elements: Vec::new(),
            hidden: Hidden::Visible,
            is_virtual: false,
            version_added: 0,
            version_dropped: None,
            physical_pos: None,
            instant_default: None,
            default: None,
            on_update: None,
            auto_increment: false,
            comment: String::new(),
            check: None,
        }
    }

    /// The system column this is, by name (hidden columns only, and
    /// FTS_DOC_ID).
    pub fn sys(&self) -> Option<SysCol> {
        // A visible column is a system column only as FTS_DOC_ID: most
        // names are told apart by their length, with no comparison.
        if self.hidden == Hidden::Visible && self.name != "FTS_DOC_ID" {
            return None;
        }
        let s = SysCol::of_name(&self.name)?;
        if self.hidden == Hidden::Visible && s != SysCol::FtsDocId {
            return None;
        }
        Some(s)
    }

    /// The charset, from the collation.
    pub fn charset(&self) -> Charset {
        Charset::of_collation(self.collation_id)
    }

    /// Bytes of the fractional seconds part (`my_time.h`
    /// `my_datetime_binary_length` and friends: (fsp + 1) / 2).
    pub(crate) fn frac_bytes(&self) -> u32 {
        self.fsp.min(6).saturating_add(1) / 2
    }

    /// The stored length of a fixed-length column, `None` when the column
    /// is variable-length in this record format (`compact`: COMPACT,
    /// DYNAMIC, COMPRESSED), or `Err` when it depends on something this
    /// reader does not know (the column's charset). Follows
    /// `dict_col_get_fixed_size`: CHAR in a multi-byte charset is
    /// variable-length in COMPACT (`row0mysql.cc` strips its trailing
    /// spaces) and fixed (characters × mbmaxlen) in REDUNDANT; fixed
    /// lengths above 768 bytes (`DICT_MAX_FIXED_COL_LEN`) are stored as
    /// variable (`dict_index_add_col`).
    pub(crate) fn fixed_len(&self, compact: bool) -> Result<Option<u32>, LayoutErrorKind> {
        use ColType::*;
        if let Some(s) = self.sys() {
            return Ok(Some(u32::from(s.stored_len())));
        }
        if let Some(n) = hires_len(self.col_type, self.fsp) {
            // MariaDB's hires TIME/DATETIME/TIMESTAMP (old type, a fraction)
            return Ok(Some(n));
        }
        let n = match self.col_type {
            Tiny | Year => 1,
            Short => 2,
            Int24 | NewDate | Time => 3,
            Long | Float | Timestamp | Date => 4,
            LongLong | Double | DateTime => 8,
            Timestamp2 => 4u32.saturating_add(self.frac_bytes()),
            DateTime2 => 5u32.saturating_add(self.frac_bytes()),
            Time2 => 3u32.saturating_add(self.frac_bytes()),
            NewDecimal => decimal_bin_size(self.precision, self.scale)
                .ok_or(LayoutErrorKind::BadDecimal(self.precision, self.scale))?,
            Enum => {
                if self.elements.len() < 256 {
                    1
                } else {
                    2
                }
            }
            Set => {
                // Field_set pack length: (n + 7) / 8, 8 when above 4.
                let b = u32::try_from(self.elements.len().saturating_add(7) / 8).unwrap_or(8);
                if b > 4 {
                    8
                } else {
                    b.max(1)
                }
            }
            Bit => self.precision.max(self.length).saturating_add(7) / 8,
            MariaUuid | MariaInet6 => 16,
            MariaInet4 => 4,
            String => match self.charset().mb_len() {
                Some((min, max)) if min == max || !compact => self.length,
                Some(_) => return Ok(None),
                None => return Err(LayoutErrorKind::UnknownCharset(self.collation_id)),
            },
            Decimal | Varchar | VarString | TinyBlob | MediumBlob | LongBlob | Blob | Geometry
            | Json | Vector | Null => return Ok(None),
            Unknown(t) => return Err(LayoutErrorKind::UnknownType(t)),
        };
        if n > DICT_MAX_FIXED_COL_LEN {
            return Ok(None);
        }
        Ok(Some(n))
    }

    /// `DATA_BIG_COL`: the length of a variable-length field takes two
    /// bytes when 128 or more (and may flag off-page storage), because
    /// the column's maximum length is above 255 bytes or it is a BLOB.
    pub(crate) fn is_big(&self) -> bool {
        self.col_type.is_lob() || self.length > 255
    }

    /// Present in records of row version `v` (8.0.29+): added at or
    /// before `v` and not dropped at or before `v` (`dict_col_t`
    /// `is_added_after`, `is_dropped_in_or_before`).
    pub fn in_version(&self, v: u32) -> bool {
        self.version_added <= v && self.version_dropped.is_none_or(|d| d > v)
    }
}

/// MariaDB 5.3's "hires" TIME, DATETIME, TIMESTAMP: the old type codes
/// with a fraction, what MariaDB makes when `mysql56_temporal_format` is
/// OFF (sql/field.cc `Field_time_hires`, `Field_datetime_hires`,
/// `Field_timestamp_hires`; `sec_part_shift`, `pack_time`). Stored as the
/// server writes them (InnoDB `DATA_FIXBINARY`), big-endian:
/// - TIME: `pack_time / 10^(6-fsp) + zero`, zero = 3020400·10^6 / 10^(6-fsp)
///   (838:59:59 + 1 s), in `TIME_HIRES_BYTES[fsp]` bytes;
/// - DATETIME: `((((((y·13+m)·32+d)·24+h)·60+mi)·60+s)·10^6+µs) /
///   10^(6-fsp)` in `DATETIME_HIRES_BYTES[fsp]` bytes;
/// - TIMESTAMP: 4 bytes of seconds, then µs / 10^(6-fsp) in (fsp+1)/2
///   bytes.
const TIME_HIRES_BYTES: [u32; 7] = [3, 4, 4, 5, 5, 5, 6];
const DATETIME_HIRES_BYTES: [u32; 7] = [8, 6, 6, 7, 7, 7, 8];

/// The stored length of a MariaDB hires column (`None`: not one).
pub(crate) fn hires_len(t: ColType, fsp: u32) -> Option<u32> {
    let i = usize::try_from(fsp)
        .ok()
        .filter(|&f| (1..=6).contains(&f))?;
    match t {
        ColType::Time => TIME_HIRES_BYTES.get(i).copied(),
        ColType::DateTime => DATETIME_HIRES_BYTES.get(i).copied(),
        ColType::Timestamp => Some(4u32.saturating_add(fsp.saturating_add(1) / 2)),
        _ => None,
    }
}

/// `DICT_MAX_FIXED_COL_LEN` (`dict0mem.h`): longer fixed columns are stored
/// as variable-length.
pub(crate) const DICT_MAX_FIXED_COL_LEN: u32 = 768;

/// Bytes of a binary DECIMAL(precision, scale) (`strings/decimal.cc`
/// `decimal_bin_size`): 4 bytes per 9 digits, `dig2bytes` for the rest.
pub fn decimal_bin_size(precision: u32, scale: u32) -> Option<u32> {
    const DIG2BYTES: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let intg = precision.checked_sub(scale)?;
    let part = |digits: u32| -> Option<u32> {
        let full = (digits / 9).checked_mul(4)?;
        full.checked_add(*DIG2BYTES.get(usize::try_from(digits % 9).ok()?)?)
    };
    part(intg)?.checked_add(part(scale)?)
}

/// The kind of an index (SDI index `type`: 1 PRIMARY, 2 UNIQUE, 3
/// MULTIPLE, 4 FULLTEXT, 5 SPATIAL).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexKind {
    /// The primary key (the clustered index).
    Primary,
    /// A unique secondary index.
    Unique,
    /// A non-unique secondary index.
    Multiple,
    /// FULLTEXT (its data is in auxiliary tables).
    Fulltext,
    /// SPATIAL (an R-tree).
    Spatial,
}

/// One element (field) of an index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexElement {
    /// Position of the column in [`TableDef::columns`].
    pub column: usize,
    /// Key prefix length in bytes, when only a prefix is indexed.
    pub prefix_len: Option<u32>,
    /// Added by InnoDB (system columns; primary key columns of a secondary
    /// index).
    pub hidden: bool,
}

/// One index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexDef {
    /// Name.
    pub name: String,
    /// Kind.
    pub kind: IndexKind,
    /// InnoDB index id (`se_private_data` `id`).
    pub id: Option<u64>,
    /// Root page (`se_private_data` `root`).
    pub root: Option<u32>,
    /// Hidden index (InnoDB's clustered index of a table without a key).
    pub hidden: bool,
    /// Elements in index order, hidden ones included.
    pub elements: Vec<IndexElement>,
}

/// The table's row format (SDI `row_format`: 1 FIXED, 2 DYNAMIC, 3
/// COMPRESSED, 4 REDUNDANT, 5 COMPACT, 6 PAGED).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowFormat {
    /// DYNAMIC: off-page columns keep only the 20-byte reference.
    Dynamic,
    /// COMPRESSED: zlib pages.
    Compressed,
    /// REDUNDANT: field end offsets.
    Redundant,
    /// COMPACT: off-page columns keep a 768-byte prefix.
    Compact,
    /// Another or unknown value (the number).
    Other(u32),
}

impl RowFormat {
    /// From the SDI number.
    pub(crate) fn from_dd(n: u64) -> RowFormat {
        match n {
            2 => RowFormat::Dynamic,
            3 => RowFormat::Compressed,
            4 => RowFormat::Redundant,
            5 => RowFormat::Compact,
            n => RowFormat::Other(u32::try_from(n).unwrap_or(u32::MAX)),
        }
    }
    /// Uppercase name.
    pub fn name(self) -> &'static str {
        match self {
            RowFormat::Dynamic => "DYNAMIC",
            RowFormat::Compressed => "COMPRESSED",
            RowFormat::Redundant => "REDUNDANT",
            RowFormat::Compact => "COMPACT",
            RowFormat::Other(_) => "OTHER",
        }
    }
}

/// Where a definition came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefSource {
    /// The SDI in the tablespace.
    Sdi,
    /// A `.frm` file.
    Frm,
    /// A `CREATE TABLE` statement.
    Ddl,
    /// Built by the caller.
    Manual,
    /// The InnoDB dictionary in the system tablespace (MySQL ≤ 5.7,
    /// MariaDB): SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS.
    Dictionary,
}

/// A table definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDef {
    /// Table name.
    pub name: String,
    /// Schema (database) name.
    pub schema: String,
    /// Row format.
    pub row_format: RowFormat,
    /// Columns in table order (SDI `ordinal_position`), hidden ones
    /// included.
    pub columns: Vec<Column>,
    /// Indexes; the clustered one first when the source says which.
    pub indexes: Vec<IndexDef>,
    /// MySQL 8.0.12–8.0.28 instant ADD COLUMN: user columns before the
    /// first instant ADD (table `se_private_data` `instant_col`).
    pub instant_cols: Option<u32>,
    /// Where the definition came from.
    pub source: DefSource,
    /// Default collation, AUTO_INCREMENT, KEY_BLOCK_SIZE, comment.
    pub options: TableOptions,
}

/// Most characters in a table, column or index name: `NAME_CHAR_LEN`
/// (mysql-server 8.0 `include/mysql_com.h`; MariaDB/server
/// `include/mysql_com.h` has the same 64).
pub const NAME_CHAR_LEN: usize = 64;
/// Most characters in one ENUM/SET element: `MAX_INTERVAL_VALUE_LENGTH`
/// (mysql-server 8.0 `sql/sql_const.h`).
pub(crate) const MAX_INTERVAL_VALUE_LENGTH: usize = 255;
/// Most ENUM elements: `MAX_ENUM_VALUES` (mysql-server `sql/sql_const.h`).
pub(crate) const MAX_ENUM_VALUES: usize = 65535;
/// Most SET elements (one bit each in 8 bytes).
pub(crate) const MAX_SET_VALUES: usize = 64;
/// Most characters in a column or index comment: `COLUMN_COMMENT_MAXLEN`,
/// `INDEX_COMMENT_MAXLEN` (1024, MariaDB/server and mysql-server
/// `include/mysql_com.h`).
pub(crate) const COLUMN_COMMENT_MAXLEN: usize = 1024;
/// Most characters in a table comment: `TABLE_COMMENT_MAXLEN` (2048, same
/// files).
pub(crate) const TABLE_COMMENT_MAXLEN: usize = 2048;

impl std::error::Error for TooLong {}

/// `Err` when `text` has more than `max` characters.
pub fn bound(what: &'static str, number: usize, text: &str, max: usize) -> Result<(), TooLong> {
    // Bytes bound characters from above: most names are short and ASCII.
    if text.len() <= max {
        return Ok(());
    }
    let len = text.chars().count();
    if len <= max {
        return Ok(());
    }
    Err(TooLong {
        what,
        number,
        len,
        max,
    })
}

/// The bounds a column's name and ENUM/SET elements must keep (column
/// number `n`, 1-based).
pub(crate) fn bound_column(n: usize, c: &Column) -> Result<(), TooLong> {
    bound("column name", n, &c.name, NAME_CHAR_LEN)?;
    bound("comment of column", n, &c.comment, COLUMN_COMMENT_MAXLEN)?;
    let max = if c.col_type == ColType::Set {
        MAX_SET_VALUES
    } else {
        MAX_ENUM_VALUES
    };
    if c.elements.len() > max {
        return Err(TooLong {
            what: "ENUM/SET element count of column",
            number: n,
            len: c.elements.len(),
            max,
        });
    }
    for (i, e) in c.elements.iter().enumerate() {
        bound(
            "ENUM/SET element",
            i.saturating_add(1),
            e,
            MAX_INTERVAL_VALUE_LENGTH,
        )?;
    }
    Ok(())
}

impl TableDef {
    /// Every name and element within the servers' bounds ([`TooLong`]
    /// otherwise): the table's name, its columns' names and ENUM/SET
    /// elements, its indexes' names.
    pub(crate) fn check_bounds(&self) -> Result<(), TooLong> {
        bound("table name", 0, &self.name, NAME_CHAR_LEN)?;
        bound("schema name", 0, &self.schema, NAME_CHAR_LEN)?;
        for (i, c) in self.columns.iter().enumerate() {
            bound_column(i.saturating_add(1), c)?;
        }
        for (i, ix) in self.indexes.iter().enumerate() {
            bound("index name", i.saturating_add(1), &ix.name, NAME_CHAR_LEN)?;
        }
        bound(
            "table comment",
            0,
            &self.options.comment,
            TABLE_COMMENT_MAXLEN,
        )?;
        Ok(())
    }
}

/// `key=value;key=value;` as the DD writes `se_private_data` and `options`.
pub(crate) fn dd_property<'a>(props: &'a str, key: &str) -> Option<&'a str> {
    props.split(';').find_map(|kv| {
        kv.split_once('=')
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v)
    })
}

/// Decodes standard base64 (RFC 4648, with padding), as the SDI writes
/// ENUM/SET element names. `None` on a character outside the alphabet.
pub(crate) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c.wrapping_sub(b'A'))),
            b'a'..=b'z' => Some(u32::from(c.wrapping_sub(b'a')).wrapping_add(26)),
            b'0'..=b'9' => Some(u32::from(c.wrapping_sub(b'0')).wrapping_add(52)),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    };
    let mut out = Vec::with_capacity((s.len() / 4).saturating_mul(3));
    let mut acc = 0u32;
    let mut bits = 0u32;
    for &c in s.as_bytes() {
        if c == b'=' {
            break;
        }
        acc = ((acc << 6) | val(c)?) & 0xFF_FFFF;
        bits = bits.wrapping_add(6);
        if bits >= 8 {
            bits = bits.wrapping_sub(8);
            out.push(u8::try_from((acc >> bits) & 0xFF).ok()?);
        }
    }
    Some(out)
}

/// Hex digits (either case) as bytes, `None` when not hex.
pub(crate) fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    hex_decode(s)
}

fn hex_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks(2)
        .map(|p| {
            let t = std::str::from_utf8(p).ok()?;
            u8::from_str_radix(t, 16).ok()
        })
        .collect()
}

/// A string member of an SDI object, which must be there.
fn sdi_str(v: &Value, k: &'static str) -> Result<String, SdiDefErrorKind> {
    v.get(k)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or(SdiDefErrorKind::Missing(k))
}

/// A number member of an SDI object, 0 when absent.
fn sdi_num(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

/// A flag member of an SDI object (a boolean or a number), false when
/// absent.
fn sdi_flag(v: &Value, k: &str) -> bool {
    match v.get(k) {
        Some(Value::Bool(b)) => *b,
        Some(n) => n.as_u64().is_some_and(|x| x != 0),
        None => false,
    }
}

/// An SDI number as `u32`, saturated.
fn u32_of(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One SDI `columns[]` entry (`column_impl.cc` `serialize`): its type
/// numbers, base64 ENUM/SET element names and the `se_private_data`
/// row-version and instant-default properties.
fn sdi_column(c: &Value) -> Result<Column, SdiDefErrorKind> {
    let se = c
        .get("se_private_data")
        .and_then(Value::as_str)
        .unwrap_or("");
    let prop = |k: &str| dd_property(se, k).and_then(|v| v.parse::<u32>().ok());
    let hidden = match sdi_num(c, "hidden") {
        2 => Hidden::Se,
        3 | 4 => Hidden::Sql,
        _ => Hidden::Visible,
    };
    let elements = c
        .get("elements")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .map(|e| {
            let raw = e.get("name").and_then(Value::as_str).unwrap_or("");
            base64_decode(raw)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_else(|| raw.to_string())
        })
        .collect();
    let instant_default = if dd_property(se, "default_null").is_some() {
        Some(InstantDefault::Null)
    } else {
        dd_property(se, "default").map(|h| {
            hex_decode(h).map_or_else(
                || InstantDefault::Malformed(h.to_string()),
                InstantDefault::Bytes,
            )
        })
    };
    let auto_increment = sdi_flag(c, "is_auto_increment");
    Ok(Column {
        default: sdi_default(c, auto_increment),
        on_update: sdi_now(sdi_text(c, "update_option")),
        auto_increment,
        comment: sdi_text(c, "comment").to_string(),
        check: None,
        name: sdi_str(c, "name")?,
        col_type: ColType::from_dd(sdi_num(c, "type")),
        length: u32_of(sdi_num(c, "char_length")),
        precision: u32_of(sdi_num(c, "numeric_precision")),
        scale: u32_of(sdi_num(c, "numeric_scale")),
        fsp: u32_of(sdi_num(c, "datetime_precision")),
        unsigned: sdi_flag(c, "is_unsigned"),
        nullable: sdi_flag(c, "is_nullable"),
        collation_id: u32_of(sdi_num(c, "collation_id")),
        elements,
        hidden,
        is_virtual: sdi_flag(c, "is_virtual"),
        version_added: prop("version_added").unwrap_or(0),
        version_dropped: prop("version_dropped"),
        physical_pos: prop("physical_pos"),
        instant_default,
    })
}

/// A string member, empty when missing.
fn sdi_text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// `CURRENT_TIMESTAMP` or `CURRENT_TIMESTAMP(n)` (a DD `default_option` or
/// `update_option`, as `sql/dd_table_share.cc` reads them back): the
/// fractional digits.
fn sdi_now(option: &str) -> Option<u32> {
    let rest = option
        .get(..17)
        .filter(|h| h.eq_ignore_ascii_case("CURRENT_TIMESTAMP"))
        .and_then(|_| option.get(17..))?;
    if rest.is_empty() || rest == "()" {
        return Some(0);
    }
    rest.strip_prefix('(')?.strip_suffix(')')?.parse().ok()
}

/// A column's DEFAULT from its SDI entry (`column_impl.cc` serialises
/// `has_no_default`, `default_value_null`, `default_value_utf8` and
/// `default_option`; `sql/sql_show.cc` `print_default_clause` prints from
/// the same): the `default_option` (CURRENT_TIMESTAMP or, 8.0.13+, an
/// expression) first, then no default (NO_DEFAULT_VALUE_FLAG,
/// AUTO_INCREMENT columns, BLOB and TEXT), NULL, else the value as the
/// server wrote it in UTF-8 (`b'…'` for BIT).
fn sdi_default(c: &Value, auto_increment: bool) -> Option<ColumnDefault> {
    let option = sdi_text(c, "default_option");
    if !option.is_empty() {
        return Some(sdi_now(option).map_or_else(
            || {
                let e = option
                    .strip_prefix('(')
                    .and_then(|x| x.strip_suffix(')'))
                    .unwrap_or(option);
                ColumnDefault::Expr(e.to_string())
            },
            ColumnDefault::Now,
        ));
    }
    // `print_default_clause`: no literal default on `FIELD_TYPE_BLOB`
    // (every BLOB and TEXT size).
    let blob = matches!(
        ColType::from_dd(sdi_num(c, "type")),
        ColType::TinyBlob | ColType::Blob | ColType::MediumBlob | ColType::LongBlob
    );
    if auto_increment || blob || sdi_flag(c, "has_no_default") {
        return None;
    }
    if sdi_flag(c, "default_value_null") {
        return Some(ColumnDefault::Null);
    }
    let v = sdi_text(c, "default_value_utf8");
    if ColType::from_dd(sdi_num(c, "type")) == ColType::Bit {
        let bits = v
            .strip_prefix("b'")
            .and_then(|x| x.strip_suffix('\''))
            .and_then(|x| u64::from_str_radix(x, 2).ok());
        if let Some(b) = bits {
            return Some(ColumnDefault::Bits(b));
        }
    }
    Some(ColumnDefault::Value(v.to_string()))
}

/// One SDI `indexes[]` entry: its kind, the `se_private_data` id and root,
/// and its elements (`column_opx` into `columns`, key length in bytes).
fn sdi_index(ix: &Value, columns: &[Column]) -> Result<IndexDef, SdiDefErrorKind> {
    let se = ix
        .get("se_private_data")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = match sdi_num(ix, "type") {
        1 => IndexKind::Primary,
        2 => IndexKind::Unique,
        4 => IndexKind::Fulltext,
        5 => IndexKind::Spatial,
        _ => IndexKind::Multiple,
    };
    let mut elements = Vec::new();
    for e in ix.get("elements").and_then(Value::as_array).unwrap_or(&[]) {
        let opx = e
            .get("column_opx")
            .and_then(Value::as_u64)
            .ok_or(SdiDefErrorKind::Missing("column_opx"))?;
        let column = usize::try_from(opx)
            .ok()
            .filter(|&i| i < columns.len())
            .ok_or(SdiDefErrorKind::BadColumnRef(opx))?;
        let len = sdi_num(e, "length");
        let full = columns
            .get(column)
            .map_or(0, |c: &Column| u64::from(c.length));
        let prefix_len = if len == u64::from(u32::MAX) || len >= full || full == 0 {
            None
        } else {
            Some(u32_of(len))
        };
        // Fixed-size types report their own size as length.
        let prefix_len = prefix_len.filter(|_| {
            columns.get(column).is_some_and(|c| {
                matches!(
                    c.col_type,
                    ColType::Varchar
                        | ColType::VarString
                        | ColType::String
                        | ColType::TinyBlob
                        | ColType::Blob
                        | ColType::MediumBlob
                        | ColType::LongBlob
                )
            })
        });
        elements.push(IndexElement {
            column,
            prefix_len,
            hidden: sdi_flag(e, "hidden"),
        });
    }
    Ok(IndexDef {
        name: sdi_str(ix, "name")?,
        kind,
        id: dd_property(se, "id").and_then(|v| v.parse().ok()),
        root: dd_property(se, "root").and_then(|v| v.parse().ok()),
        hidden: sdi_flag(ix, "hidden"),
        elements,
    })
}
/// Puts the hidden `FTS_DOC_ID` column into the clustered index's elements,
/// where the SDI leaves it out although every record holds it.
///
/// A table with a FULLTEXT index and no `FTS_DOC_ID` of its own gets one
/// from InnoDB: mysql-server 8.0 `storage/innobase/handler/ha_innodb.cc`
/// `get_extra_columns_and_keys` adds the column `FTS_DOC_ID_COL_NAME`
/// (BIGINT UNSIGNED NOT NULL, `HT_HIDDEN_SE`) after the user columns and
/// the unique index `FTS_DOC_ID_INDEX` on it, then lists in PRIMARY every
/// column "unless it is SE-hidden" — so not FTS_DOC_ID. InnoDB's own
/// dictionary has the column (`fts_add_doc_id_column`, `dict0dict.cc`
/// `dict_index_build_internal_clust` appends every table column not in the
/// key, in table order), so the clustered record stores it: 8 bytes after
/// the columns before it in the table.
fn add_fts_doc_id(columns: &[Column], indexes: &mut [IndexDef]) {
    let Some(clust) = indexes
        .iter()
        .position(|i| i.kind == IndexKind::Primary)
        .or(if indexes.is_empty() { None } else { Some(0) })
    else {
        return;
    };
    let Some(ix) = indexes.get_mut(clust) else {
        return;
    };
    for (col, c) in columns.iter().enumerate() {
        if c.hidden != Hidden::Se
            || c.sys() != Some(SysCol::FtsDocId)
            || c.is_virtual
            || ix.elements.iter().any(|e| e.column == col)
        {
            continue;
        }
        // Before the first non-key column that follows it in the table
        // (system columns are not ordered by table position).
        let at = ix
            .elements
            .iter()
            .position(|e| {
                e.hidden
                    && e.column > col
                    && columns.get(e.column).is_some_and(|c| c.sys().is_none())
            })
            .unwrap_or(ix.elements.len());
        ix.elements.insert(
            at,
            IndexElement {
                column: col,
                prefix_len: None,
                hidden: true,
            },
        );
    }
}

/// Completes a clustered index whose SDI names only its key: InnoDB's FTS
/// auxiliary tables (`fts_…_config`, `fts_…_deleted…`, `fts_…_index_N`).
///
/// Their data-dictionary objects are written by InnoDB itself (mysql-server
/// 8.0 `storage/innobase/dict/dict0dd.cc` `dd_create_fts_common_table`,
/// `dd_create_fts_index_table`): the user columns and a PRIMARY index of
/// the key columns only — no DB_TRX_ID, DB_ROLL_PTR, nor the other
/// columns. The records are laid out by InnoDB's own definition
/// (`fts0fts.cc` `fts_create_one_common_table`,
/// `fts_create_one_index_table`, then `dict0dict.cc`
/// `dict_index_build_internal_clust`): the key, DB_TRX_ID, DB_ROLL_PTR,
/// then every other column in table order. Every SDI the SQL layer writes
/// lists DB_TRX_ID (`ha_innodb.cc` `get_extra_columns_and_keys`): only a
/// definition without one is completed.
fn add_system_columns(columns: &mut Vec<Column>, indexes: &mut [IndexDef]) {
    if columns.iter().any(|c| c.sys() == Some(SysCol::TrxId)) {
        return;
    }
    let Some(ix) = indexes.iter_mut().find(|i| i.kind == IndexKind::Primary) else {
        return;
    };
    // InnoDB's definitions, where the data dictionary's differ: the
    // CONFIG table's `key` (DATA_VARCHAR, prtype 0) and the DELETED
    // tables' `doc_id` (DATA_UNSIGNED only) may be NULL, so the records
    // have a NULL bitmap; `word` has the FULLTEXT column's prtype
    // ([`TableDef::settle_fts_word`]; nullable until the records say).
    if matches!(
        ix.name.as_str(),
        "FTS_COMMON_TABLE_IND" | "FTS_INDEX_TABLE_IND"
    ) {
        for c in columns.iter_mut() {
            if matches!(c.name.as_str(), "key" | "doc_id" | "word") {
                c.nullable = true;
            }
        }
    }
    let sys = |name: &str, t: ColType, len: u32| {
        let mut c = Column::new(name, t);
        c.hidden = Hidden::Se;
        c.nullable = false;
        c.length = len;
        c
    };
    let trx = columns.len();
    columns.push(sys("DB_TRX_ID", ColType::Int24, 6));
    columns.push(sys("DB_ROLL_PTR", ColType::LongLong, 7));
    for column in [trx, trx.saturating_add(1)] {
        ix.elements.push(IndexElement {
            column,
            prefix_len: None,
            hidden: true,
        });
    }
    for (column, c) in columns.iter().enumerate() {
        let whole = ix
            .elements
            .iter()
            .any(|e| e.column == column && e.prefix_len.is_none());
        if !c.is_virtual && !whole {
            ix.elements.push(IndexElement {
                column,
                prefix_len: None,
                hidden: true,
            });
        }
    }
}

impl TableDef {
    /// Reads a definition from an SDI table document (the whole JSON, with
    /// `dd_object`), as MySQL 8.0+ writes it.
    ///
    /// Errors: [`ErrorKind::SdiDef`].
    pub fn from_sdi(doc: &Value) -> Result<TableDef, Error> {
        Self::from_sdi_kind(doc).map_err(|k| Error::whole(ErrorKind::SdiDef(k)))
    }

    fn from_sdi_kind(doc: &Value) -> Result<TableDef, SdiDefErrorKind> {
        let o = doc.get("dd_object").ok_or(SdiDefErrorKind::NoObject)?;
        if let Some(t) = doc.get("dd_object_type").and_then(Value::as_str) {
            if t != "Table" {
                return Err(SdiDefErrorKind::NotTable);
            }
        }
        let name = sdi_str(o, "name")?;
        let schema = o
            .get("schema_ref")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let row_format = RowFormat::from_dd(sdi_num(o, "row_format"));
        let table_se = o
            .get("se_private_data")
            .and_then(Value::as_str)
            .unwrap_or("");
        let instant_cols = dd_property(table_se, "instant_col").and_then(|v| v.parse().ok());
        let cols = o
            .get("columns")
            .and_then(Value::as_array)
            .ok_or(SdiDefErrorKind::Missing("columns"))?;
        let mut columns = Vec::with_capacity(cols.len());
        for c in cols {
            columns.push(sdi_column(c)?);
        }
        let mut indexes = Vec::new();
        for ix in o.get("indexes").and_then(Value::as_array).unwrap_or(&[]) {
            indexes.push(sdi_index(ix, &columns)?);
        }
        add_fts_doc_id(&columns, &mut indexes);
        add_system_columns(&mut columns, &mut indexes);
        let opts = sdi_text(o, "options");
        let key_block_size = dd_property(opts, "key_block_size")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let flag = |k: &str| dd_property(opts, k).and_then(|v| v.parse::<u32>().ok());
        let def = TableDef {
            name,
            schema,
            row_format,
            columns,
            indexes,
            instant_cols,
            source: DefSource::Sdi,
            options: TableOptions {
                collation_id: u32_of(sdi_num(o, "collation_id")),
                auto_increment: None,
                key_block_size,
                comment: sdi_text(o, "comment").to_string(),
                // `table_impl.cc` options: stats_auto_recalc 0 default,
                // 1 on, 2 off; stats_persistent only when given.
                stats_persistent: flag("stats_persistent").map(|v| v != 0),
                stats_auto_recalc: match flag("stats_auto_recalc") {
                    Some(1) => Some(true),
                    Some(2) => Some(false),
                    _ => None,
                },
                stats_sample_pages: flag("stats_sample_pages").unwrap_or(0),
                engine_options: Vec::new(),
                row_format_implicit: dd_property(opts, "row_type").is_none(),
            },
        };
        def.check_bounds().map_err(SdiDefErrorKind::TooLong)?;
        Ok(def)
    }

    /// Reads the definition of the table a MySQL 8.0+ tablespace holds,
    /// from its SDI (the first table document; a file-per-table space
    /// holds one). Allocates the JSON of that document once.
    ///
    /// Errors: [`ErrorKind::FromSpace`] (placed at the SDI page and byte
    /// when the SDI walk failed).
    pub fn from_tablespace(ts: &ibdscope_core::Tablespace<'_>) -> Result<TableDef, Error> {
        Self::from_tablespace_kind(ts).map_err(|k| match k {
            FromSpaceErrorKind::Sdi(f) => {
                Error::in_page(ErrorKind::FromSpace(k), Some(f.page), usize::from(f.offset))
            }
            _ => Error::whole(ErrorKind::FromSpace(k)),
        })
    }

    fn from_tablespace_kind(
        ts: &ibdscope_core::Tablespace<'_>,
    ) -> Result<TableDef, FromSpaceErrorKind> {
        let sdi = crate::sdi::Sdi::read(ts);
        if sdi.root.is_none() {
            return Err(FromSpaceErrorKind::NoSdi);
        }
        if let Some(f) = sdi.findings.first() {
            return Err(FromSpaceErrorKind::Sdi(*f));
        }
        let rec = sdi
            .records
            .iter()
            .find(|r| r.sdi_type == 1 && !r.deleted)
            .ok_or(FromSpaceErrorKind::NoTable)?;
        let (mut z, mut out) = (Vec::new(), Vec::new());
        crate::sdi::sdi_json(ts, rec, &mut z, &mut out).map_err(FromSpaceErrorKind::Sdi)?;
        let doc = crate::json::parse(&out).map_err(FromSpaceErrorKind::Json)?;
        let mut def = TableDef::from_sdi_kind(&doc).map_err(FromSpaceErrorKind::Def)?;
        def.settle_fts_word(ts);
        Ok(def)
    }

    /// An FTS auxiliary index table's `word` has the prtype of the
    /// FULLTEXT index's first column (mysql-server 8.0 `fts0fts.cc`
    /// `fts_create_one_index_table`: `field->col->prtype`), which its SDI
    /// does not carry: NULL-able when that column is, and then every record
    /// has a one-byte NULL bitmap. A word is never NULL nor empty, so the
    /// byte below the 5-byte header of the root's first record tells: 0
    /// is the bitmap, anything else the word's length.
    pub(crate) fn settle_fts_word(&mut self, ts: &ibdscope_core::Tablespace<'_>) {
        let Some(ix) = self.clustered() else { return };
        if ix.name != "FTS_INDEX_TABLE_IND" {
            return;
        }
        let Some(root) = ix.root else { return };
        let Ok(rp) = ibdscope_core::record::RecPage::of(ts, ibdscope_core::PageNo(root)) else {
            return;
        };
        if rp.format() != ibdscope_core::record::RecFormat::Compact || rp.is_compressed() {
            return;
        }
        let mut visited = ibdscope_core::record::Visited::new();
        let Some(mut it) = rp.records(&mut visited) else {
            return;
        };
        let first = loop {
            match it.next() {
                Ok(Some(r)) if r.is_user() => break Some(r),
                Ok(Some(_)) => {}
                _ => break None,
            }
        };
        let Some(below) = first
            .and_then(|r| usize::from(r.origin).checked_sub(6))
            .and_then(|at| rp.bytes().get(at))
        else {
            return;
        };
        if let Some(word) = self.columns.iter_mut().find(|c| c.name == "word") {
            word.nullable = *below == 0;
        }
    }

    /// Names of the visible columns, in table order.
    pub fn visible_columns(&self) -> impl Iterator<Item = &Column> {
        self.columns.iter().filter(|c| c.hidden == Hidden::Visible)
    }

    /// The clustered index: the PRIMARY one, else the first.
    pub fn clustered(&self) -> Option<&IndexDef> {
        self.indexes
            .iter()
            .find(|i| i.kind == IndexKind::Primary)
            .or_else(|| self.indexes.first())
    }

    /// The index whose InnoDB id is `id`.
    pub(crate) fn index_by_id(&self, id: u64) -> Option<&IndexDef> {
        self.indexes.iter().find(|i| i.id == Some(id))
    }

    /// The physical layout of `index`'s leaf records: its fields in the
    /// order they are stored, for the given record format. For the
    /// clustered index of an 8.0.29+ table with row versions, the fields
    /// are ordered by `physical_pos` and include dropped columns;
    /// otherwise they are the index elements in order.
    ///
    /// Errors: [`ErrorKind::Layout`].
    pub fn layout(&self, index: &IndexDef, compact: bool) -> Result<RecordLayout, Error> {
        self.layout_kind(index, compact)
            .map_err(|k| Error::whole(ErrorKind::Layout(k)))
    }

    /// [`TableDef::layout`], giving the kind.
    pub(crate) fn layout_kind(
        &self,
        index: &IndexDef,
        compact: bool,
    ) -> Result<RecordLayout, LayoutErrorKind> {
        let mut fields = Vec::with_capacity(index.elements.len());
        let clustered = self.clustered() == Some(index);
        // Physical order needs every stored column's physical_pos; without
        // them the element order is the record's order.
        let physical = clustered
            && self
                .columns
                .iter()
                .any(|c| c.version_added > 0 || c.version_dropped.is_some())
            && self
                .columns
                .iter()
                .all(|c| c.is_virtual || c.physical_pos.is_some());
        let mut push = |col_idx: usize, prefix: Option<u32>| -> Result<(), LayoutErrorKind> {
            let c = self
                .columns
                .get(col_idx)
                .ok_or(LayoutErrorKind::BadColumn(col_idx))?;
            let mut fixed = c.fixed_len(compact)?;
            if let Some(p) = prefix {
                // A prefix field is variable unless the column is fixed-size
                // in a single-byte charset (`dict_index_add_col`).
                fixed = fixed.map(|_| p);
                if c.charset().mb_len().is_none_or(|(a, b)| a != b) {
                    fixed = None;
                }
            }
            fields.push(LayoutField {
                column: col_idx,
                fixed_len: fixed,
                nullable: c.nullable && c.sys().is_none(),
                // DATA_BIG_COL looks at the column, not the prefix
                // (rec_init_offsets_comp_ordinary: `DATA_BIG_COL(col)`).
                big: c.is_big(),
                version_added: c.version_added,
                version_dropped: c.version_dropped,
                prefix_len: prefix,
                instant_default: c.instant_default.is_some(),
            });
            Ok(())
        };
        if physical {
            let mut order: Vec<(u32, usize)> = self
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| !c.is_virtual)
                .filter_map(|(i, c)| c.physical_pos.map(|p| (p, i)))
                .collect();
            order.sort_unstable();
            for (_, i) in order {
                let prefix = index
                    .elements
                    .iter()
                    .find(|e| e.column == i)
                    .and_then(|e| e.prefix_len);
                push(i, prefix)?;
            }
        } else {
            for e in &index.elements {
                if self.columns.get(e.column).is_some_and(|c| c.is_virtual) && clustered {
                    continue;
                }
                push(e.column, e.prefix_len)?;
            }
        }
        let n_unique = if clustered {
            index.elements.iter().take_while(|e| !e.hidden).count()
        } else {
            index.elements.len()
        };
        let n_before_instant = self
            .instant_cols
            .map(|_| fields.iter().take_while(|f| !f.instant_default).count());
        Ok(RecordLayout {
            fields,
            compact,
            clustered,
            row_versions: physical,
            n_before_instant,
            n_unique: n_unique.max(1),
        })
    }
}

/// One stored field of an index record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutField {
    /// The column ([`TableDef::columns`] position).
    pub column: usize,
    /// Stored length when fixed.
    pub fixed_len: Option<u32>,
    /// Has a NULL bit.
    pub nullable: bool,
    /// `DATA_BIG_COL`: 2-byte lengths possible.
    pub big: bool,
    /// Row version that added it (8.0.29+).
    pub version_added: u32,
    /// Row version that dropped it (8.0.29+).
    pub version_dropped: Option<u32>,
    /// Key prefix length, if a prefix.
    pub prefix_len: Option<u32>,
    /// Added by an instant ADD COLUMN before 8.0.29 (has a default).
    pub instant_default: bool,
}

impl LayoutField {
    /// Present in records of row version `v`.
    pub(crate) fn in_version(&self, v: u32) -> bool {
        self.version_added <= v && self.version_dropped.is_none_or(|d| d > v)
    }
}

/// The stored fields of an index's records, built once per index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordLayout {
    /// Fields in stored order.
    pub fields: Vec<LayoutField>,
    /// COMPACT-family records (else REDUNDANT).
    pub compact: bool,
    /// The clustered index.
    pub clustered: bool,
    /// 8.0.29+ row versions: fields are in physical order, some may be
    /// absent from a given record.
    pub row_versions: bool,
    /// 8.0.12–8.0.28 instant ADD: fields stored by rows written before the
    /// first instant ADD COLUMN.
    pub n_before_instant: Option<usize>,
    /// Fields of a node pointer before the child page number
    /// (`dict_index_get_n_unique_in_tree`: the key of the clustered index,
    /// every field of a secondary one).
    pub n_unique: usize,
}

/// The quoted SQL identifier: backticks, a backtick doubled.
pub fn quote_ident(name: &str, out: &mut String) {
    out.push('`');
    for c in name.chars() {
        if c == '`' {
            out.push('`');
        }
        out.push(c);
    }
    out.push('`');
}

/// A SQL string literal in single quotes, `'` and `\` escaped.
pub(crate) fn quote_string(s: &str, out: &mut String) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('\'');
}

impl Column {
    /// The most bytes per character of the column's charset (1 when not
    /// known: lengths are then shown in bytes).
    fn mbmaxlen(&self) -> u32 {
        crate::collation::Charset::of_collation(
            u16::try_from(self.collation_id).unwrap_or(u16::MAX),
        )
        .map_or_else(
            || self.charset().mb_len().map_or(1, |(_, max)| max),
            |c| u32::from(c.mbmaxlen),
        )
        .max(1)
    }

    /// The column's length in characters (strings: bytes over the most
    /// bytes per character).
    pub(crate) fn char_len(&self) -> u32 {
        self.length
            .checked_div(self.mbmaxlen())
            .unwrap_or(self.length)
    }

    /// The name of the column's charset, when it is a text column whose
    /// collation is known.
    pub fn charset_name(&self) -> Option<&'static str> {
        if self.collation_id == 63 {
            return None;
        }
        if let Some(c) = u16::try_from(self.collation_id)
            .ok()
            .and_then(crate::collation::Charset::of_collation)
        {
            return Some(c.name);
        }
        match self.charset() {
            Charset::Latin1 => Some("latin1"),
            Charset::Ascii => Some("ascii"),
            Charset::Utf8mb3 => Some("utf8mb3"),
            Charset::Utf8mb4 => Some("utf8mb4"),
            Charset::Ucs2 => Some("ucs2"),
            Charset::Utf16 => Some("utf16"),
            Charset::Utf32 => Some("utf32"),
            Charset::Binary | Charset::OtherSingleByte | Charset::Unknown(_) => None,
        }
    }

    /// The column's type as `SHOW CREATE TABLE` spells it, without
    /// character set and nullability (`int unsigned`, `varchar(40)`,
    /// `decimal(10,2)`, `enum('a','b')`, `datetime(3)`).
    pub fn sql_type(&self) -> String {
        use std::fmt::Write as _;
        use ColType::*;
        let binary = self.collation_id == 63;
        let mut s = std::string::String::new();
        let frac = |s: &mut std::string::String, base: &str, fsp: u32| {
            s.push_str(base);
            if fsp > 0 {
                let _ = write!(s, "({fsp})");
            }
        };
        match self.col_type {
            Tiny | Short | Int24 | Long | LongLong => {
                s.push_str(self.col_type.name());
                if self.unsigned {
                    s.push_str(" unsigned");
                }
            }
            Float | Double => {
                s.push_str(self.col_type.name());
                if self.unsigned {
                    s.push_str(" unsigned");
                }
            }
            Decimal | NewDecimal => {
                let _ = write!(s, "decimal({},{})", self.precision, self.scale);
                if self.unsigned {
                    s.push_str(" unsigned");
                }
            }
            Time | Time2 => frac(&mut s, "time", self.fsp),
            DateTime | DateTime2 => frac(&mut s, "datetime", self.fsp),
            Timestamp | Timestamp2 => frac(&mut s, "timestamp", self.fsp),
            Date | NewDate => s.push_str("date"),
            Year => s.push_str("year"),
            Varchar | VarString => {
                let _ = if binary {
                    write!(s, "varbinary({})", self.length)
                } else {
                    write!(s, "varchar({})", self.char_len())
                };
            }
            String => {
                let _ = if binary {
                    write!(s, "binary({})", self.length)
                } else {
                    write!(s, "char({})", self.char_len())
                };
            }
            Bit => {
                let bits = if self.precision > 0 {
                    self.precision
                } else {
                    self.length
                };
                let _ = write!(s, "bit({bits})");
            }
            Enum | Set => {
                s.push_str(self.col_type.name());
                s.push('(');
                for (i, e) in self.elements.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    quote_string(e, &mut s);
                }
                s.push(')');
            }
            TinyBlob | Blob | MediumBlob | LongBlob => {
                let size = match self.col_type {
                    TinyBlob => "tiny",
                    MediumBlob => "medium",
                    LongBlob => "long",
                    _ => "",
                };
                s.push_str(size);
                s.push_str(if binary { "blob" } else { "text" });
            }
            Vector => {
                let _ = write!(s, "vector({})", self.length.checked_div(4).unwrap_or(0));
            }
            Geometry | Json | MariaUuid | MariaInet6 | MariaInet4 | Null => {
                s.push_str(self.col_type.name())
            }
            Unknown(n) => {
                let _ = write!(s, "/* unknown type {n} */ blob");
            }
        }
        s
    }
}

impl RowFormat {
    /// The row format a space's flags and an index page's record format
    /// tell: COMPRESSED for ROW_FORMAT=COMPRESSED spaces, DYNAMIC when the
    /// flags have ATOMIC_BLOBS, else COMPACT or REDUNDANT by the page's
    /// records (`compact`; MySQL 5.6 writes flags 0 for both).
    pub fn from_space(
        format: &ibdscope_core::fsp::SpaceFormat,
        compact: Option<bool>,
    ) -> RowFormat {
        if format.is_zip() {
            RowFormat::Compressed
        } else if format.atomic_blobs {
            RowFormat::Dynamic
        } else {
            match compact {
                Some(true) => RowFormat::Compact,
                Some(false) => RowFormat::Redundant,
                None if format.post_antelope => RowFormat::Compact,
                None => RowFormat::Other(0),
            }
        }
    }
}

impl TableDef {
    /// Gives the indexes that have no root page (a definition from a
    /// `.frm` or DDL) the roots of the space's B-trees: `trees` are the
    /// space's (index id, root page) pairs; InnoDB creates the clustered
    /// index first and the secondary ones in key order, so index ids
    /// ascend in definition order (FULLTEXT and hidden-less SPATIAL
    /// indexes aside: FULLTEXT data is in other files and is skipped).
    pub fn attach_roots(&mut self, trees: &[(u64, u32)]) {
        let mut sorted: Vec<(u64, u32)> = trees.to_vec();
        sorted.sort_unstable();
        let mut next = sorted.into_iter();
        for ix in self.indexes.iter_mut() {
            if ix.kind == IndexKind::Fulltext || ix.root.is_some() {
                continue;
            }
            if let Some((id, root)) = next.next() {
                ix.id = Some(id);
                ix.root = Some(root);
            }
        }
    }

    /// The index named `name` (case-insensitive), or whose id is `name`.
    pub fn index_by_name_or_id(&self, name: &str) -> Option<&IndexDef> {
        if let Ok(id) = name.parse::<u64>() {
            if let Some(ix) = self.index_by_id(id) {
                return Some(ix);
            }
        }
        self.indexes
            .iter()
            .find(|i| i.name.eq_ignore_ascii_case(name))
    }

    /// The definition as a `CREATE TABLE` statement (no trailing newline):
    /// visible and virtual columns (hidden ones left out), the indexes
    /// InnoDB does not add itself, and `ROW_FORMAT=` when `row_format` is
    /// known (the caller passes the one the space tells when the
    /// definition's is not).
    pub fn create_table(&self, row_format: RowFormat) -> String {
        let mut s = String::from("CREATE TABLE ");
        if !self.schema.is_empty() {
            quote_ident(&self.schema, &mut s);
            s.push('.');
        }
        quote_ident(&self.name, &mut s);
        s.push_str(" (");
        let mut first = true;
        let mut sep = |s: &mut String| {
            if !first {
                s.push(',');
            }
            first = false;
            s.push_str("\n  ");
        };
        for c in &self.columns {
            if c.hidden != Hidden::Visible || c.version_dropped.is_some() {
                continue;
            }
            sep(&mut s);
            quote_ident(&c.name, &mut s);
            s.push(' ');
            s.push_str(&c.sql_type());
            if let Some(cs) = c.charset_name() {
                if matches!(
                    c.col_type,
                    ColType::Varchar
                        | ColType::VarString
                        | ColType::String
                        | ColType::TinyBlob
                        | ColType::Blob
                        | ColType::MediumBlob
                        | ColType::LongBlob
                        | ColType::Enum
                        | ColType::Set
                ) {
                    s.push_str(" CHARACTER SET ");
                    s.push_str(cs);
                }
            }
            if let Some(name) = c.collation_suffix() {
                s.push_str(" COLLATE ");
                s.push_str(&name);
            }
            if c.is_virtual {
                s.push_str(" /* virtual generated column: expression not stored in the file */");
            }
            c.push_attributes(&mut s);
        }
        for ix in &self.indexes {
            if ix.hidden {
                continue;
            }
            sep(&mut s);
            match ix.kind {
                IndexKind::Primary => s.push_str("PRIMARY KEY "),
                IndexKind::Unique => s.push_str("UNIQUE KEY "),
                IndexKind::Multiple => s.push_str("KEY "),
                IndexKind::Fulltext => s.push_str("FULLTEXT KEY "),
                IndexKind::Spatial => s.push_str("SPATIAL KEY "),
            }
            if ix.kind != IndexKind::Primary {
                quote_ident(&ix.name, &mut s);
                s.push(' ');
            }
            s.push('(');
            let mut n = 0u32;
            for e in ix.elements.iter().filter(|e| !e.hidden) {
                let Some(c) = self.columns.get(e.column) else {
                    continue;
                };
                if n > 0 {
                    s.push(',');
                }
                n = n.saturating_add(1);
                quote_ident(&c.name, &mut s);
                if let Some(p) = e.prefix_len {
                    use std::fmt::Write as _;
                    let chars = if c.collation_id == 63 {
                        p
                    } else {
                        p.checked_div(c.mbmaxlen()).unwrap_or(p)
                    };
                    let _ = write!(s, "({chars})");
                }
            }
            s.push(')');
        }
        s.push_str("\n) ENGINE=InnoDB");
        self.push_options(row_format, &mut s);
        s
    }

    /// The table options after `ENGINE=InnoDB`, in `SHOW CREATE TABLE`'s
    /// order (mysql-server 5.6 `sql/sql_show.cc` `store_create_info`):
    /// AUTO_INCREMENT, DEFAULT CHARSET (and COLLATE when not the charset's
    /// default), STATS_*, ROW_FORMAT, KEY_BLOCK_SIZE, COMMENT, then
    /// MariaDB's engine-defined options (`` `PAGE_COMPRESSED`='1' ``).
    fn push_options(&self, row_format: RowFormat, s: &mut String) {
        use std::fmt::Write as _;
        let o = &self.options;
        if let Some(n) = o.auto_increment {
            let _ = write!(s, " AUTO_INCREMENT={n}");
        }
        let coll = u16::try_from(o.collation_id).unwrap_or(0);
        if let Some(cs) = crate::collation::Charset::of_collation(coll) {
            s.push_str(" DEFAULT CHARSET=");
            s.push_str(cs.name);
            if crate::collation::charset_default_collation(cs.name) != Some(coll) {
                if let Some(name) = crate::collation::collation_name(coll) {
                    s.push_str(" COLLATE=");
                    s.push_str(&name);
                }
            }
        }
        let flag = |s: &mut String, name: &str, v: Option<bool>| {
            if let Some(v) = v {
                let _ = write!(s, " {name}={}", u8::from(v));
            }
        };
        flag(s, "STATS_PERSISTENT", o.stats_persistent);
        flag(s, "STATS_AUTO_RECALC", o.stats_auto_recalc);
        if o.stats_sample_pages > 0 {
            let _ = write!(s, " STATS_SAMPLE_PAGES={}", o.stats_sample_pages);
        }
        if !matches!(row_format, RowFormat::Other(_)) {
            s.push_str(" ROW_FORMAT=");
            s.push_str(row_format.name());
        }
        if o.key_block_size > 0 {
            let _ = write!(s, " KEY_BLOCK_SIZE={}", o.key_block_size);
        }
        if !o.comment.is_empty() {
            s.push_str(" COMMENT=");
            quote_string(&o.comment, s);
        }
        for (name, value) in &o.engine_options {
            s.push(' ');
            quote_ident(name, s);
            s.push('=');
            quote_string(value, s);
        }
    }
}

/// `CURRENT_TIMESTAMP`, with `(fsp)` when not 0.
pub fn now_sql(fsp: u32) -> String {
    if fsp > 0 {
        format!("CURRENT_TIMESTAMP({fsp})")
    } else {
        "CURRENT_TIMESTAMP".to_string()
    }
}

impl Column {
    /// `COLLATE` for a text column whose collation is not its charset's
    /// default (MySQL 5.6 and MariaDB 10.11 collation names).
    fn collation_suffix(&self) -> Option<String> {
        if !matches!(
            self.col_type,
            ColType::Varchar
                | ColType::VarString
                | ColType::String
                | ColType::TinyBlob
                | ColType::Blob
                | ColType::MediumBlob
                | ColType::LongBlob
                | ColType::Enum
                | ColType::Set
        ) {
            return None;
        }
        let id = u16::try_from(self.collation_id).ok()?;
        let cs = crate::collation::Charset::of_collation(id)?;
        if cs.name == "binary" || crate::collation::charset_default_collation(cs.name) == Some(id) {
            return None;
        }
        crate::collation::collation_name(id)
    }

    /// The DEFAULT clause's value as SQL (`NULL`, `'abc'`, `X'00FF'`,
    /// `b'101'`, `CURRENT_TIMESTAMP(3)`, `(expression)`), `None` without
    /// one.
    pub fn default_sql(&self) -> Option<String> {
        use std::fmt::Write as _;
        let mut s = String::new();
        match self.default.as_ref()? {
            ColumnDefault::Null => s.push_str("NULL"),
            ColumnDefault::Value(v) => quote_string(v, &mut s),
            ColumnDefault::Bytes(b) => {
                s.push_str("X'");
                for x in b {
                    let _ = write!(s, "{x:02X}");
                }
                s.push('\'');
            }
            ColumnDefault::Bits(b) => {
                let _ = write!(s, "b'{b:b}'");
            }
            ColumnDefault::Now(fsp) => s.push_str(&now_sql(*fsp)),
            ColumnDefault::Expr(e) => {
                let _ = write!(s, "({e})");
            }
        }
        Some(s)
    }

    /// NULL / NOT NULL, DEFAULT, ON UPDATE, AUTO_INCREMENT and COMMENT as
    /// `SHOW CREATE TABLE` prints them (mysql-server 5.6 `sql/sql_show.cc`
    /// `store_create_info`, `print_default_clause`, `print_on_update_clause`):
    /// a nullable TIMESTAMP says NULL (a server without
    /// `explicit_defaults_for_timestamp` would make it NOT NULL).
    fn push_attributes(&self, s: &mut String) {
        use std::fmt::Write as _;
        let timestamp = matches!(self.col_type, ColType::Timestamp | ColType::Timestamp2);
        if !self.nullable {
            s.push_str(" NOT NULL");
        } else if timestamp {
            s.push_str(" NULL");
        }
        if let Some(d) = self.default_sql() {
            s.push_str(" DEFAULT ");
            s.push_str(&d);
        }
        if let Some(fsp) = self.on_update {
            s.push_str(" ON UPDATE ");
            s.push_str(&now_sql(fsp));
        }
        if self.auto_increment {
            s.push_str(" AUTO_INCREMENT");
        }
        if !self.comment.is_empty() {
            s.push_str(" COMMENT ");
            quote_string(&self.comment, s);
        }
        if let Some(c) = &self.check {
            let _ = write!(s, " CHECK ({c})");
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn base64_of_sdi_element_names() {
        // RFC 4648 test vectors.
        assert_eq!(base64_decode("").unwrap(), b"");
        assert_eq!(base64_decode("Zg==").unwrap(), b"f");
        assert_eq!(base64_decode("Zm8=").unwrap(), b"fo");
        assert_eq!(base64_decode("Zm9vYmFy").unwrap(), b"foobar");
        assert!(base64_decode("Zm9v!").is_none());
    }

    #[test]
    fn decimal_sizes_follow_dig2bytes() {
        // decimal.cc: DECIMAL(10,2) = 1 full word? no: intg 8 -> 4 bytes,
        // frac 2 -> 1 byte.
        assert_eq!(decimal_bin_size(10, 2), Some(5));
        assert_eq!(decimal_bin_size(5, 2), Some(3));
        assert_eq!(decimal_bin_size(18, 9), Some(8));
        assert_eq!(decimal_bin_size(65, 30), Some(30));
        assert_eq!(decimal_bin_size(2, 3), None);
    }

    /// Output amplification: a definition with a 1 MB name was repeated on
    /// every row. NAME_CHAR_LEN (64, `include/mysql_com.h`) bounds table,
    /// column and index names; MAX_INTERVAL_VALUE_LENGTH (255) elements;
    /// exactly at the limit is accepted.
    #[test]
    fn sdi_names_longer_than_the_servers_allow_are_refused() {
        let doc = |table: &str, col: &str, index: &str, element: &str| {
            use base64_free::encode;
            let text = format!(
                r#"{{"dd_object_type":"Table","dd_object":{{"name":"{table}","schema_ref":"s","row_format":2,
                "se_private_data":"","columns":[
                 {{"name":"{col}","type":4,"is_nullable":false,"is_unsigned":true,"hidden":1,"char_length":10,
                  "collation_id":8,"se_private_data":""}},
                 {{"name":"e","type":22,"is_nullable":true,"hidden":1,"char_length":4,"collation_id":255,
                  "elements":[{{"name":"{}","index":1}}],"se_private_data":""}}],
                "indexes":[{{"name":"{index}","type":1,"hidden":false,"se_private_data":"",
                  "elements":[{{"column_opx":0,"length":4,"hidden":false}}]}}]}}}}"#,
                encode(element.as_bytes())
            );
            TableDef::from_sdi(&json::parse(text.as_bytes()).unwrap()).map_err(|e| e.kind)
        };
        let ok = |n: usize| "é".repeat(n);
        assert!(doc(&ok(64), &ok(64), &ok(64), &ok(255)).is_ok());
        let too = |what, number, len, max| {
            Err(ErrorKind::SdiDef(SdiDefErrorKind::TooLong(TooLong {
                what,
                number,
                len,
                max,
            })))
        };
        assert_eq!(
            doc(&ok(65), "c", "PRIMARY", "A").map(|_| ()),
            too("table name", 0, 65, 64)
        );
        assert_eq!(
            doc("t", &"c".repeat(1 << 20), "PRIMARY", "A").map(|_| ()),
            too("column name", 1, 1 << 20, 64)
        );
        assert_eq!(
            doc("t", "c", &ok(65), "A").map(|_| ()),
            too("index name", 1, 65, 64)
        );
        assert_eq!(
            doc("t", "c", "PRIMARY", &ok(256)).map(|_| ()),
            too("ENUM/SET element", 1, 256, 255)
        );
        let e = doc("t", &"c".repeat(1 << 20), "PRIMARY", "A").unwrap_err();
        assert_eq!(
            Error::whole(e).to_string(),
            "SDI: column name 1 is 1048576 characters, more than the 64 MySQL and MariaDB allow"
        );
    }

    /// Base64 for the test's SDI element names (RFC 4648, with padding).
    mod base64_free {
        pub fn encode(b: &[u8]) -> String {
            const A: &[u8; 64] =
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            let mut out = String::new();
            for c in b.chunks(3) {
                let n = c
                    .iter()
                    .enumerate()
                    .fold(0u32, |n, (i, &x)| n | u32::from(x) << (16 - 8 * i));
                for i in 0..4 {
                    if i <= c.len() {
                        out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
                    } else {
                        out.push('=');
                    }
                }
            }
            out
        }
    }

    #[test]
    fn sdi_minimal_table() {
        let doc = json::parse(
            br#"{"dd_object_type":"Table","dd_object":{"name":"t","schema_ref":"s","row_format":2,
            "se_private_data":"","columns":[
             {"name":"id","type":4,"is_nullable":false,"is_unsigned":true,"hidden":1,"char_length":10,
              "collation_id":8,"se_private_data":"table_id=1;"},
             {"name":"e","type":22,"is_nullable":true,"hidden":1,"char_length":4,"collation_id":255,
              "elements":[{"name":"QQ==","index":1},{"name":"Qg==","index":2}],"se_private_data":""},
             {"name":"DB_TRX_ID","type":10,"is_nullable":false,"hidden":2,"char_length":6,"collation_id":63},
             {"name":"DB_ROLL_PTR","type":9,"is_nullable":false,"hidden":2,"char_length":7,"collation_id":63}],
            "indexes":[{"name":"PRIMARY","type":1,"hidden":false,"se_private_data":"id=7;root=4;space_id=2;",
              "elements":[{"column_opx":0,"length":4,"hidden":false},{"column_opx":2,"length":4294967295,"hidden":true},
              {"column_opx":3,"length":4294967295,"hidden":true},{"column_opx":1,"length":4294967295,"hidden":true}]}]}}"#,
        )
        .unwrap();
        let t = TableDef::from_sdi(&doc).unwrap();
        assert_eq!(t.name, "t");
        assert_eq!(t.schema, "s");
        assert_eq!(t.row_format, RowFormat::Dynamic);
        assert_eq!(t.columns[1].elements, vec!["A", "B"]);
        assert_eq!(t.columns[2].sys(), Some(SysCol::TrxId));
        let ix = t.clustered().unwrap();
        assert_eq!((ix.id, ix.root), (Some(7), Some(4)));
        let l = t.layout(ix, true).unwrap();
        let cols: Vec<usize> = l.fields.iter().map(|f| f.column).collect();
        assert_eq!(cols, vec![0, 2, 3, 1]);
        assert_eq!(l.fields[1].fixed_len, Some(6));
        assert_eq!(l.fields[2].fixed_len, Some(7));
        assert_eq!(l.fields[3].fixed_len, Some(1));
        assert!(l.fields[3].nullable);
        assert_eq!(l.n_unique, 1);
    }

    #[test]
    fn char_layout_depends_on_charset_and_format() {
        let mut c = Column::new("c", ColType::String);
        c.length = 40;
        c.collation_id = 255; // utf8mb4_0900_ai_ci
        assert_eq!(c.fixed_len(true), Ok(None));
        assert_eq!(c.fixed_len(false), Ok(Some(40)));
        c.collation_id = 8; // latin1_swedish_ci
        assert_eq!(c.fixed_len(true), Ok(Some(40)));
        c.collation_id = 9999;
        assert_eq!(
            c.fixed_len(true),
            Err(LayoutErrorKind::UnknownCharset(9999))
        );
        c.collation_id = 63;
        c.length = 1000;
        assert_eq!(c.fixed_len(true), Ok(None), "above DICT_MAX_FIXED_COL_LEN");
    }

    /// Every MySQL 8.0 / 8.4 / 9.x corpus file whose SDI is readable: the
    /// definition names the columns the corpus MANIFEST.md states for it
    /// (visible columns, in table order), and its clustered index's id is
    /// the manifest's first `leaf_n_recs_read` index id. The
    /// ROW_FORMAT=COMPRESSED file keeps its SDI on a compressed page and
    /// the Percona files are encrypted: they have no readable SDI.
    #[test]
    fn corpus_definitions_name_the_stated_columns() {
        use crate::row::corpus_rows::table_of;
        use ibdscope_testkit::{corpus, leaf_recs};
        let Some(dir) = corpus() else { return };
        // MANIFEST.md "Table(s) (stated)" per file; the 8.0 staff entry
        // points at the 5.6 one, the 8.4 film entry at the 5.0 one.
        let stated: &[(&str, &[&str])] = &[
            (
                "mysql-8.0/sakila_mysql8040_staff.ibd",
                &[
                    "staff_id",
                    "first_name",
                    "last_name",
                    "address_id",
                    "picture",
                    "email",
                    "store_id",
                    "active",
                    "username",
                    "password",
                    "last_update",
                ],
            ),
            (
                "mysql-8.0/sakila_mysql8040_sys_config.ibd",
                &["variable", "value", "set_time", "set_by"],
            ),
            (
                "mysql-8.0/ibdninja_mysql8040_instant_add_drop.ibd",
                &["col_uint", "col_datetime_0", "col_datetime_6"],
            ),
            (
                "mysql-8.4/sakila_mysql8403_film.ibd",
                &[
                    "film_id",
                    "title",
                    "description",
                    "release_year",
                    "language_id",
                    "original_language_id",
                    "rental_duration",
                    "rental_rate",
                    "length",
                    "replacement_cost",
                    "rating",
                    "special_features",
                    "last_update",
                ],
            ),
            (
                "mysql-8.4/ibdninja_mysql848_multi_page.ibd",
                &["id", "data"],
            ),
            (
                "mysql-8.4/ibdninja_mysql848_with_deletes.ibd",
                &["id", "name", "status"],
            ),
            (
                "mysql-9.x/ibdninja_mysql960_vector_test.ibd",
                &[
                    "id",
                    "description",
                    "embedding",
                    "embedding_large",
                    "json_col",
                ],
            ),
            (
                "mysql-9.x/ibdninja_mysql960_blob_external.ibd",
                &["id", "description", "data", "extra"],
            ),
            // tests/9.0/sql/04_data_types.sql names them; the manifest lists
            // the types.
            (
                "mysql-9.x/ibdninja_mysql960_data_types.ibd",
                &[
                    "id",
                    "tiny_col",
                    "small_col",
                    "medium_col",
                    "big_col",
                    "float_col",
                    "double_col",
                    "decimal_col",
                    "char_col",
                    "varchar_col",
                    "text_col",
                    "binary_col",
                    "varbinary_col",
                    "blob_col",
                    "date_col",
                    "time_col",
                    "datetime_col",
                    "timestamp_col",
                    "year_col",
                    "enum_col",
                    "set_col",
                    "bit_col",
                    "json_col",
                ],
            ),
        ];
        let text = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
        let (c_path, c_leaf) = (col("path"), col("leaf_n_recs_read"));
        let mut n = 0;
        for &(f, names) in stated {
            let data = std::fs::read(dir.join(f)).unwrap();
            let ts = ibdscope_core::Tablespace::new(&data).unwrap();
            let t = table_of(&ts).unwrap_or_else(|| panic!("{f}: no definition"));
            let got: Vec<&str> = t.visible_columns().map(|c| c.name.as_str()).collect();
            assert_eq!(got, names, "{f}");
            let row = lines_for(&text, c_path, f);
            let first_index = *leaf_recs(row[c_leaf]).keys().next().unwrap();
            assert_eq!(t.clustered().and_then(|i| i.id), Some(first_index), "{f}");
            n += 1;
        }
        // Every corpus file with a readable SDI is in the list above.
        let with_sdi = lines
            .filter(|l| {
                l.split('\t')
                    .nth(col("sdi_mysqld_version_id"))
                    .is_some_and(|v| !v.trim().is_empty())
            })
            .count();
        assert_eq!(with_sdi, n + 1, "json_partial has no stated column names");
        // Types as stated for the data_types table.
        let data = std::fs::read(dir.join("mysql-9.x/ibdninja_mysql960_data_types.ibd")).unwrap();
        let t = table_of(&ibdscope_core::Tablespace::new(&data).unwrap()).unwrap();
        let ty = |n: &str| t.columns.iter().find(|c| c.name == n).unwrap();
        assert_eq!(ty("decimal_col").col_type, ColType::NewDecimal);
        assert_eq!(
            (ty("decimal_col").precision, ty("decimal_col").scale),
            (10, 2)
        );
        assert_eq!(ty("enum_col").elements, ["A", "B", "C"]);
        assert_eq!(ty("set_col").elements, ["X", "Y", "Z"]);
        assert_eq!(ty("medium_col").col_type, ColType::Int24);
        assert_eq!(ty("json_col").col_type, ColType::Json);
        assert_eq!(ty("bit_col").precision, 8);
    }

    fn lines_for<'t>(text: &'t str, c_path: usize, f: &str) -> Vec<&'t str> {
        text.lines()
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .find(|r| r.get(c_path) == Some(&f))
            .unwrap()
    }

    #[test]
    fn create_table_text() {
        let mut id = Column::new("id", ColType::Long);
        id.unsigned = true;
        id.nullable = false;
        let mut v = Column::new("v`x", ColType::Varchar);
        v.length = 160;
        v.collation_id = 255; // utf8mb4_0900_ai_ci: 4 bytes per character
        let mut e = Column::new("e", ColType::Enum);
        e.elements = vec!["a'b".into(), "c".into()];
        e.collation_id = 8;
        let mut d = Column::new("d", ColType::NewDecimal);
        (d.precision, d.scale) = (10, 2);
        let mut trx = Column::new("DB_TRX_ID", ColType::Int24);
        trx.hidden = Hidden::Se;
        let t = TableDef {
            name: "t".into(),
            schema: String::new(),
            row_format: RowFormat::Other(0),
            columns: vec![id, v, e, d, trx],
            indexes: vec![
                IndexDef {
                    name: "PRIMARY".into(),
                    kind: IndexKind::Primary,
                    id: None,
                    root: None,
                    hidden: false,
                    elements: vec![IndexElement {
                        column: 0,
                        prefix_len: None,
                        hidden: false,
                    }],
                },
                IndexDef {
                    name: "k".into(),
                    kind: IndexKind::Multiple,
                    id: None,
                    root: None,
                    hidden: false,
                    elements: vec![IndexElement {
                        column: 1,
                        prefix_len: Some(40),
                        hidden: false,
                    }],
                },
            ],
            instant_cols: None,
            source: DefSource::Manual,
            options: TableOptions::default(),
        };
        assert_eq!(
            t.create_table(RowFormat::Dynamic),
            "CREATE TABLE `t` (\n  `id` int unsigned NOT NULL,\n  `v``x` varchar(40) \
             CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci,\n  `e` enum('a''b','c') CHARACTER SET latin1,\n  \
             `d` decimal(10,2),\n  PRIMARY KEY (`id`),\n  KEY `k` (`v``x`(10))\n) \
             ENGINE=InnoDB ROW_FORMAT=DYNAMIC"
        );
        let mut t2 = t.clone();
        t2.attach_roots(&[(31, 4), (30, 3)]);
        assert_eq!(t2.indexes[0].root, Some(3));
        assert_eq!(t2.indexes[1].id, Some(31));
        assert_eq!(t2.index_by_name_or_id("K").map(|i| i.root), Some(Some(4)));
        assert_eq!(
            t2.index_by_name_or_id("30").map(|i| i.name.as_str()),
            Some("PRIMARY")
        );
    }
}
