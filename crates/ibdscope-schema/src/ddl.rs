//! `CREATE TABLE` statements: a table definition from the text MySQL ≤ 5.7
//! and MariaDB print (`SHOW CREATE TABLE`, mysqldump) or a person writes,
//! for files that have neither an SDI nor a `.frm`.
//!
//! Sources, as read (docs/format.md §15 has the facts with their files):
//! MySQL 5.6 `sql/sql_yacc.yy` (the grammar: `create_table_element`,
//! `type`, `opt_attribute`, `key_def`, `create_table_option`), `sql/lex.h`
//! (keywords, type synonyms), `sql/sql_lex.cc` (comments: `-- `, `#`,
//! `/* */`, `/*!NNNNN … */` version comments, MariaDB `/*M!NNNNNN … */`;
//! quoting), `sql/sql_table.cc` (`mysql_prepare_create_table`: implicit
//! NOT NULL of PRIMARY KEY columns, key names, `sort_keys`, prefix
//! lengths in bytes, SPATIAL parts of `4 * sizeof(double)`), `sql/field.cc`
//! (`Create_field::init`, `create_length_to_internal_length`: the lengths
//! the `.frm` stores), MariaDB `sql/sql_table.cc` (long UNIQUE keys on
//! BLOB/TEXT: a hidden hash column, `add_hash_field`).
//!
//! What it builds: [`DdlTable`], then [`DdlTable::to_table_def`] makes the
//! same [`TableDef`] the `.frm` route makes for the same table (the InnoDB
//! part is shared: [`crate::frm::innodb_table_def`]); the library's tests
//! check that for every fixture table against its `.frm`.
//!
//! | input | rule |
//! |---|---|
//! | identifiers | `` `a``b` ``, bare, or `"a"` where an identifier is expected; keywords without case |
//! | comments | `-- ` to end of line, `#` to end of line, `/* … */`; `/*!NNNNN … */` and `/*M!NNNNNN … */` are read as statement text; `/* mariadb-5.3 */` after a temporal type means MariaDB 5.3's format (MariaDB 10.5.1+ prints it) |
//! | statements | every `CREATE [OR REPLACE] [TEMPORARY] TABLE` in the text; other statements are skipped |
//! | charsets | the servers' own `INFORMATION_SCHEMA.COLLATIONS` (MySQL 5.6.24, MariaDB 10.11), `utf8` = `utf8mb3`; no table charset: `latin1` (both servers' default) |
//!
//! Not carried (named, so callers know): table CHECK and
//! FOREIGN KEY constraints (a FOREIGN KEY without a covering key adds the
//! key InnoDB needs), partitioning (the partitions share the definition),
//! MySQL 8 functional key parts. MariaDB system versioning adds `row_start`
//! and `row_end` as the server does for `WITH SYSTEM VERSIONING`.
//!
//! Input is bounded ([`MAX_DDL_BYTES`], [`MAX_COLUMNS`], [`MAX_KEYS`],
//! [`MAX_KEY_PARTS`]); every walk is over the tokens once; errors name the
//! line and column (1-based, in characters).

use crate::collation::Charset;
/// Defined with the crate's error, re-exported here.
pub use crate::error::{DdlErrorKind, MAX_DDL_BYTES};
use crate::error::{Error, ErrorKind, Place};
use crate::frm::{key_flag, FrmKey, FrmKeyPart, FrmRowType};
use crate::table::{ColType, Column, ColumnDefault, DefSource, Hidden, TableDef};

/// Most columns in one table (MySQL's and MariaDB's limit is 4096).
pub(crate) const MAX_COLUMNS: usize = 4096;
/// Most keys in one table (the servers' `MAX_KEY` is 64).
pub(crate) const MAX_KEYS: usize = 128;
/// Most parts of one key (`MAX_REF_PARTS`: 16 in MySQL, 32 in MariaDB).
pub(crate) const MAX_KEY_PARTS: usize = 64;
/// Most ENUM elements (65535) — SET has at most 64.
pub(crate) const MAX_ELEMENTS: usize = 65535;

/// A statement that cannot be read ([`ErrorKind::Ddl`]) at line `line`,
/// column `col` (1-based; line 0: not tied to a place).
fn ddl_err(line: u32, col: u32, kind: DdlErrorKind) -> Error {
    let place = if line > 0 {
        Place::Line { line, column: col }
    } else {
        Place::Whole
    };
    Error::new(ErrorKind::Ddl(kind), place)
}

// ---------------------------------------------------------------- tokens

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// A bare word (identifier or keyword).
    Word(String),
    /// `` `quoted` `` identifier.
    Quoted(String),
    /// `'single'` string.
    Str(String),
    /// `"double"`: a string, or an identifier where one is expected.
    DStr(String),
    /// A number as written.
    Num(String),
    /// One punctuation character.
    Punct(char),
    /// MariaDB 10.5.1+'s `/* mariadb-5.3 */` after a TIME, DATETIME or
    /// TIMESTAMP in the old (MariaDB 5.3) format: a comment that means
    /// something.
    OldTemporal,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: u32,
    col: u32,
}

impl Tok {
    fn describe(&self) -> String {
        let s = match self {
            Tok::Word(w) | Tok::Num(w) => w.clone(),
            Tok::Quoted(w) => format!("`{w}`"),
            Tok::Str(w) => format!("'{w}'"),
            Tok::DStr(w) => format!("\"{w}\""),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::OldTemporal => "/* mariadb-5.3 */".to_string(),
        };
        if s.chars().count() > 40 {
            let mut t: String = s.chars().take(40).collect();
            t.push('…');
            t
        } else {
            s
        }
    }
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    col: u32,
}

impl Lexer<'_> {
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }
    fn peek2(&self) -> Option<char> {
        let mut it = self.chars.clone();
        it.next();
        it.next()
    }
    fn err(&self, kind: DdlErrorKind) -> Error {
        ddl_err(self.line, self.col, kind)
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || !c.is_ascii()
}

/// Splits the text into tokens; comments go, version comments' text stays.
fn tokenize(text: &str) -> Result<(Vec<Token>, bool), Error> {
    let mut lx = Lexer {
        chars: text.chars().peekable(),
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    let mut in_version = false;
    let mut maria = false;
    while let Some(c) = lx.peek() {
        let (line, col) = (lx.line, lx.col);
        let push = |out: &mut Vec<Token>, tok| out.push(Token { tok, line, col });
        match c {
            _ if c.is_whitespace() => {
                lx.bump();
            }
            '#' => skip_line(&mut lx),
            '-' if lx.peek2() == Some('-') => {
                let mut it = lx.chars.clone();
                it.next();
                it.next();
                if it
                    .next()
                    .is_none_or(|c| c.is_whitespace() || c.is_control())
                {
                    skip_line(&mut lx);
                } else {
                    lx.bump();
                    push(&mut out, Tok::Punct('-'));
                }
            }
            '*' if in_version && lx.peek2() == Some('/') => {
                lx.bump();
                lx.bump();
                in_version = false;
            }
            '/' if lx.peek2() == Some('*') => {
                lx.bump();
                lx.bump();
                let mut it = lx.chars.clone();
                let version = match it.next() {
                    Some('!') => Some(1),
                    Some('M') if it.next() == Some('!') => Some(2),
                    _ => None,
                };
                match version {
                    Some(n) if !in_version => {
                        maria |= n == 2;
                        for _ in 0..n {
                            lx.bump();
                        }
                        while lx.peek().is_some_and(|c| c.is_ascii_digit()) {
                            lx.bump();
                        }
                        in_version = true;
                    }
                    _ => {
                        // A plain comment (or a hint): to the first `*/`.
                        let mut prev = ' ';
                        let mut text = String::new();
                        loop {
                            match lx.bump() {
                                None => return Err(lx.err(DdlErrorKind::Unterminated("comment"))),
                                Some('/') if prev == '*' => break,
                                Some(c) => {
                                    if text.len() < 16 {
                                        text.push(c);
                                    }
                                    prev = c;
                                }
                            }
                        }
                        if text.trim_end_matches('*').trim() == "mariadb-5.3" {
                            maria = true;
                            push(&mut out, Tok::OldTemporal);
                        }
                    }
                }
            }
            '`' => {
                lx.bump();
                let s = quoted(&mut lx, '`', false, "quoted identifier")?;
                push(&mut out, Tok::Quoted(s));
            }
            '\'' => {
                lx.bump();
                let s = quoted(&mut lx, '\'', true, "string")?;
                push(&mut out, Tok::Str(s));
            }
            '"' => {
                lx.bump();
                let s = quoted(&mut lx, '"', true, "string")?;
                push(&mut out, Tok::DStr(s));
            }
            '0'..='9' => {
                let mut s = String::new();
                while let Some(c) = lx.peek() {
                    if c.is_ascii_digit() || c == '.' {
                        s.push(c);
                        lx.bump();
                    } else if (c == 'e' || c == 'E')
                        && lx
                            .peek2()
                            .is_some_and(|d| d.is_ascii_digit() || d == '-' || d == '+')
                    {
                        s.push(c);
                        lx.bump();
                        if let Some(d) = lx.bump() {
                            s.push(d);
                        }
                    } else {
                        break;
                    }
                }
                if lx.peek().is_some_and(is_word_char) {
                    // `1abc`, `0x1F`: a word that starts with digits.
                    while let Some(c) = lx.peek().filter(|&c| is_word_char(c)) {
                        s.push(c);
                        lx.bump();
                    }
                    push(&mut out, Tok::Word(s));
                } else {
                    push(&mut out, Tok::Num(s));
                }
            }
            _ if is_word_char(c) => {
                let mut s = String::new();
                while let Some(c) = lx.peek().filter(|&c| is_word_char(c)) {
                    s.push(c);
                    lx.bump();
                }
                push(&mut out, Tok::Word(s));
            }
            _ => {
                lx.bump();
                push(&mut out, Tok::Punct(c));
            }
        }
    }
    Ok((out, maria))
}

/// The DEFAULT a column without a DEFAULT clause has: NULL when it is
/// nullable, not AUTO_INCREMENT, not generated and not BLOB or TEXT
/// (mysql-server 5.6 `sql/unireg.cc` `make_empty_rec`
/// sets the null bit of every nullable column; `sql/sql_show.cc`
/// `print_default_clause` leaves `FIELD_TYPE_BLOB` columns without one; MariaDB
/// prints `DEFAULT NULL` on those too, and its statements say so).
fn implicit_default(c: &mut DdlColumn) {
    let d = &mut c.def;
    let lob = matches!(
        d.col_type,
        ColType::TinyBlob | ColType::Blob | ColType::MediumBlob | ColType::LongBlob
    );
    if d.default.is_none() && d.nullable && !d.auto_increment && c.generated.is_none() && !lob {
        d.default = Some(ColumnDefault::Null);
    }
    if c.generated.is_some() {
        d.default = None;
    }
}

fn skip_line(lx: &mut Lexer<'_>) {
    while let Some(c) = lx.bump() {
        if c == '\n' {
            break;
        }
    }
}

/// The rest of a quoted token after its opening quote: a doubled quote is
/// one; in strings a backslash escapes (`sql_lex.cc` `get_text`).
fn quoted(lx: &mut Lexer<'_>, q: char, escapes: bool, what: &'static str) -> Result<String, Error> {
    let mut s = String::new();
    loop {
        let Some(c) = lx.bump() else {
            return Err(lx.err(DdlErrorKind::Unterminated(what)));
        };
        if c == q {
            if lx.peek() == Some(q) {
                lx.bump();
                s.push(q);
                continue;
            }
            return Ok(s);
        }
        if c == '\\' && escapes {
            let Some(e) = lx.bump() else {
                return Err(lx.err(DdlErrorKind::Unterminated(what)));
            };
            match e {
                '0' => s.push('\0'),
                'b' => s.push('\u{8}'),
                'n' => s.push('\n'),
                'r' => s.push('\r'),
                't' => s.push('\t'),
                'Z' => s.push('\u{1a}'),
                // `\%` and `\_` keep their backslash.
                '%' | '_' => {
                    s.push('\\');
                    s.push(e);
                }
                e => s.push(e),
            }
            continue;
        }
        s.push(c);
    }
}

// ------------------------------------------------------------ the result

/// One column as the statement defines it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DdlColumn {
    /// The column as [`TableDef`] holds it (lengths in bytes, collation
    /// id, elements; InnoDB's view).
    pub def: Column,
    /// The type as written, lowercase (`int(10) unsigned`).
    pub type_text: String,
    /// AUTO_INCREMENT.
    pub auto_increment: bool,
    /// INVISIBLE (MariaDB 10.3+, MySQL 8.0.23+).
    pub invisible: bool,
    /// Generated column: the expression text, and whether it is stored.
    pub generated: Option<(String, bool)>,
    /// COMMENT.
    pub comment: String,
}

/// One table from a `CREATE TABLE` statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DdlTable {
    /// Schema, when the name is qualified (`db.t`).
    pub schema: Option<String>,
    /// Table name.
    pub name: String,
    /// Where the statement starts: line, column.
    pub at: (u32, u32),
    /// User columns in table order.
    pub columns: Vec<DdlColumn>,
    /// Keys in the server's order (`sort_keys`), as the `.frm` model has
    /// them: part columns index [`DdlTable::columns`] (and the hash columns
    /// after them), prefixes in bytes.
    pub keys: Vec<FrmKey>,
    /// MariaDB long UNIQUE keys' hash columns, one per such key, added
    /// after the user columns.
    pub hash_columns: Vec<Column>,
    /// ROW_FORMAT.
    pub row_type: FrmRowType,
    /// Default collation id of the table.
    pub table_collation: u16,
    /// ENGINE, as written.
    pub engine: Option<String>,
    /// KEY_BLOCK_SIZE (0: not given).
    pub key_block_size: u32,
    /// AUTO_INCREMENT= (the next value), when given.
    pub auto_increment: Option<u64>,
    /// STATS_PERSISTENT, STATS_AUTO_RECALC (`None`: not given or
    /// DEFAULT), STATS_SAMPLE_PAGES (0: not given).
    pub stats: (Option<bool>, Option<bool>, u32),
    /// MariaDB engine-defined options (`PAGE_COMPRESSED`, `ENCRYPTED`,
    /// `ENCRYPTION_KEY_ID`, `PAGE_COMPRESSION_LEVEL`, or any backquoted
    /// option name): name as written and value.
    pub engine_options: Vec<(String, String)>,
    /// MariaDB `PAGE_COMPRESSED=1`.
    pub page_compressed: bool,
    /// MariaDB `WITH SYSTEM VERSIONING`.
    pub system_versioning: bool,
    /// Partitioned (`PARTITION BY`).
    pub partitioned: bool,
    /// Table COMMENT.
    pub comment: String,
    /// Written by MariaDB, by what the statement shows (`/*M!` comments,
    /// a table or column COLLATE that is the charset's default, DEFAULT
    /// NULL on BLOB/TEXT, MariaDB-only types and options). It decides one
    /// thing: the collation id the `.frm` gives columns that hold no text
    /// (MySQL 5.6: the table's; MariaDB: 8 for integers, BIT and temporal
    /// types, 63 for DECIMAL/FLOAT/DOUBLE), which no decoding uses.
    pub mariadb: bool,
}

impl DdlTable {
    /// The definition, with InnoDB's hidden columns and index fields as
    /// for a `.frm` ([`crate::frm::innodb_table_def`]). `schema` is used
    /// when the statement's name is not qualified.
    pub fn to_table_def(&self, schema: &str) -> TableDef {
        let mut columns: Vec<Column> = self.columns.iter().map(|c| c.def.clone()).collect();
        let first_hash = columns.len();
        columns.extend(self.hash_columns.iter().cloned());
        let hash_cols: Vec<usize> = (0..self.hash_columns.len())
            .map(|i| first_hash.saturating_add(i))
            .collect();
        let mut t = crate::frm::innodb_table_def(
            &self.name,
            self.schema.as_deref().unwrap_or(schema),
            self.row_type,
            columns,
            &self.keys,
            &hash_cols,
        );
        t.source = DefSource::Ddl;
        t.options = crate::table::TableOptions {
            collation_id: u32::from(self.table_collation),
            auto_increment: self.auto_increment,
            key_block_size: self.key_block_size,
            comment: self.comment.clone(),
            stats_persistent: self.stats.0,
            stats_auto_recalc: self.stats.1,
            stats_sample_pages: self.stats.2,
            engine_options: self.engine_options.clone(),
            row_format_implicit: false,
        };
        t
    }
}

/// The bounds of what a statement names beyond its identifiers: ENUM/SET
/// elements, column, index and table comments.
fn bound_table(t: &DdlTable) -> Result<(), crate::table::TooLong> {
    use crate::table::{bound, bound_column, COLUMN_COMMENT_MAXLEN, TABLE_COMMENT_MAXLEN};
    for (i, c) in t.columns.iter().enumerate() {
        let n = i.saturating_add(1);
        bound_column(n, &c.def)?;
        bound("comment of column", n, &c.comment, COLUMN_COMMENT_MAXLEN)?;
    }
    for (i, k) in t.keys.iter().enumerate() {
        bound(
            "comment of index",
            i.saturating_add(1),
            &k.comment,
            COLUMN_COMMENT_MAXLEN,
        )?;
    }
    bound("table comment", 0, &t.comment, TABLE_COMMENT_MAXLEN)
}

/// Every `CREATE TABLE` in `input` (other statements are skipped).
pub fn parse(input: &[u8]) -> Result<Vec<DdlTable>, Error> {
    if input.len() > MAX_DDL_BYTES {
        return Err(ddl_err(0, 0, DdlErrorKind::TooLarge(input.len())));
    }
    let text = String::from_utf8_lossy(input);
    let (toks, maria_comments) = tokenize(&text)?;
    let mut tables = Vec::new();
    let mut start = 0usize;
    while start < toks.len() {
        let end = toks
            .iter()
            .skip(start)
            .position(|t| t.tok == Tok::Punct(';'))
            .map_or(toks.len(), |p| start.saturating_add(p));
        let stmt = toks.get(start..end).unwrap_or_default();
        let mut p = Parser {
            t: stmt,
            i: 0,
            mariadb: maria_comments,
        };
        if p.create_table_head() {
            tables.push(p.create_table(stmt.first())?);
        }
        start = end.saturating_add(1);
    }
    Ok(tables)
}

/// The one table of `input`: the only `CREATE TABLE`, or the one named
/// `name` (case-insensitive) when there are several.
pub fn parse_one(input: &[u8], name: Option<&str>) -> Result<DdlTable, Error> {
    let mut tables = parse(input)?;
    if tables.len() > 1 {
        if let Some(n) = name {
            let hits: Vec<usize> = tables
                .iter()
                .enumerate()
                .filter(|(_, t)| t.name.eq_ignore_ascii_case(n))
                .map(|(i, _)| i)
                .collect();
            if let [i] = hits.as_slice() {
                return Ok(tables.swap_remove(*i));
            }
        }
        return Err(ddl_err(
            0,
            0,
            DdlErrorKind::Ambiguous(tables.iter().map(|t| t.name.clone()).collect()),
        ));
    }
    tables
        .pop()
        .ok_or_else(|| ddl_err(0, 0, DdlErrorKind::NoTable))
}

// ---------------------------------------------------------- charsets

pub use crate::collation::{charset_default_collation, collation_id, collation_name};

fn charset_of(id: u16) -> Option<Charset> {
    Charset::of_collation(id)
}

/// The collation a COLLATE clause names, else the default collation of
/// the charset a CHARACTER SET clause names, `None` when neither is given
/// (each clause with where it starts).
fn clause_collation(
    collate: &Option<(String, u32, u32)>,
    charset: &Option<(String, u32, u32)>,
) -> Result<Option<u16>, Error> {
    Ok(match (collate, charset) {
        (Some((c, l, k)), cs) => Some(
            collation_id(c)
                // MariaDB 10.10+ names a collation without its charset
                // (`CHARACTER SET utf8mb4 COLLATE uca1400_ai_ci`).
                .or_else(|| {
                    cs.as_ref()
                        .and_then(|(cs, _, _)| collation_id(&format!("{cs}_{c}")))
                })
                .ok_or_else(|| ddl_err(*l, *k, DdlErrorKind::UnknownCollation(c.clone())))?,
        ),
        (None, Some((c, l, k))) => Some(
            charset_default_collation(c)
                .ok_or_else(|| ddl_err(*l, *k, DdlErrorKind::UnknownCharset(c.clone())))?,
        ),
        (None, None) => None,
    })
}

/// The collation `<charset>_bin` of a collation's charset (the BINARY
/// attribute of CHAR/VARCHAR/TEXT).
fn bin_collation(id: u16) -> Option<u16> {
    let cs = charset_of(id)?;
    if cs.name == "binary" {
        return Some(63);
    }
    collation_id(&format!("{}_bin", cs.name))
}

// ---------------------------------------------------------- the parser

struct Parser<'a> {
    t: &'a [Token],
    i: usize,
    /// MariaDB-only syntax seen (see [`DdlTable::mariadb`]).
    mariadb: bool,
}

/// A base type as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    Int(ColType, u32, u32),
    Decimal,
    Float,
    Double,
    Date,
    Time,
    DateTime,
    Timestamp,
    Year,
    Char,
    Varchar,
    Binary,
    Varbinary,
    Blob(ColType),
    Text(ColType),
    /// TEXT(n) / BLOB(n): the type follows n.
    SizedText,
    SizedBlob,
    Enum,
    Set,
    Bit,
    Json,
    Geometry,
    Uuid,
    Inet6,
    Inet4,
    Vector,
}

#[derive(Default)]
struct TypeSpec {
    len: Option<u32>,
    dec: Option<u32>,
    unsigned: bool,
    zerofill: bool,
    charset: Option<(String, u32, u32)>,
    collate: Option<(String, u32, u32)>,
    binary_attr: bool,
    elements: Vec<String>,
    default_null: bool,
    /// `/* mariadb-5.3 */`: the old TIME/DATETIME/TIMESTAMP format.
    old_temporal: bool,
}

/// A column before its type is resolved: where it starts.
type Pending = (DdlColumn, TypeSpec, Base, (u32, u32));

struct RawKey {
    name: Option<String>,
    primary: bool,
    unique: bool,
    fulltext: bool,
    spatial: bool,
    /// From a FOREIGN KEY: only added when no other key covers it.
    foreign: bool,
    parts: Vec<(String, Option<u32>, u32, u32)>,
    at: (u32, u32),
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.t.get(self.i)
    }
    fn peek_at(&self, n: usize) -> Option<&'a Token> {
        self.t.get(self.i.saturating_add(n))
    }
    fn next(&mut self) -> Option<&'a Token> {
        let t = self.t.get(self.i);
        if t.is_some() {
            self.i = self.i.saturating_add(1);
        }
        t
    }
    fn here(&self) -> (u32, u32) {
        match self.peek().or_else(|| self.t.last()) {
            Some(t) => (t.line, t.col),
            None => (0, 0),
        }
    }
    fn err(&self, kind: DdlErrorKind) -> Error {
        let (line, col) = self.here();
        ddl_err(line, col, kind)
    }
    fn expected(&self, what: &'static str) -> Error {
        let found = self.peek().map_or_else(
            || "the end of the statement".to_string(),
            |t| t.tok.describe(),
        );
        self.err(DdlErrorKind::Expected { what, found })
    }
    fn is_kw_at(&self, n: usize, kw: &str) -> bool {
        matches!(self.peek_at(n), Some(Token { tok: Tok::Word(w), .. }) if w.eq_ignore_ascii_case(kw))
    }
    fn is_kw(&self, kw: &str) -> bool {
        self.is_kw_at(0, kw)
    }
    fn eat_kw(&mut self, kw: &str) -> bool {
        let hit = self.is_kw(kw);
        if hit {
            self.i = self.i.saturating_add(1);
        }
        hit
    }
    fn eat_kws(&mut self, kws: &[&str]) -> bool {
        let hit = kws.iter().enumerate().all(|(n, k)| self.is_kw_at(n, k));
        if hit {
            self.i = self.i.saturating_add(kws.len());
        }
        hit
    }
    fn expect_kw(&mut self, kw: &str, what: &'static str) -> Result<(), Error> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }
    fn is_punct(&self, c: char) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(p), .. }) if *p == c)
    }
    fn eat_punct(&mut self, c: char) -> bool {
        let hit = self.is_punct(c);
        if hit {
            self.i = self.i.saturating_add(1);
        }
        hit
    }
    fn expect_punct(&mut self, c: char, what: &'static str) -> Result<(), Error> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }
    fn ident(&mut self, what: &'static str) -> Result<String, Error> {
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Word(w) | Tok::Quoted(w) | Tok::DStr(w)) => {
                // Every identifier either server accepts has at most
                // NAME_CHAR_LEN characters.
                crate::table::bound("identifier", 0, w, crate::table::NAME_CHAR_LEN)
                    .map_err(|t| self.err(DdlErrorKind::TooLong(t)))?;
                self.i = self.i.saturating_add(1);
                Ok(w.clone())
            }
            _ => Err(self.expected(what)),
        }
    }
    /// A string literal, with an optional charset introducer (`_utf8mb4`,
    /// `N`) and adjacent strings joined.
    fn string(&mut self, what: &'static str) -> Result<String, Error> {
        if matches!(self.peek().map(|t| &t.tok), Some(Tok::Word(w)) if w.starts_with('_') || w.eq_ignore_ascii_case("n"))
            && matches!(
                self.peek_at(1).map(|t| &t.tok),
                Some(Tok::Str(_) | Tok::DStr(_))
            )
        {
            self.i = self.i.saturating_add(1);
        }
        let mut s = match self.peek().map(|t| &t.tok) {
            Some(Tok::Str(w) | Tok::DStr(w)) => w.clone(),
            _ => return Err(self.expected(what)),
        };
        self.i = self.i.saturating_add(1);
        while let Some(Tok::Str(w) | Tok::DStr(w)) = self.peek().map(|t| &t.tok) {
            s.push_str(w);
            self.i = self.i.saturating_add(1);
        }
        Ok(s)
    }
    fn number(&mut self, what: &'static str) -> Result<u32, Error> {
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Num(n)) => {
                let v = n
                    .parse::<u32>()
                    .map_err(|_| self.err(DdlErrorKind::BadNumber(n.clone())))?;
                self.i = self.i.saturating_add(1);
                Ok(v)
            }
            _ => Err(self.expected(what)),
        }
    }
    /// Skips one balanced `( … )` group; the cursor is on `(`.
    fn skip_group(&mut self) -> Result<String, Error> {
        let start = self.here();
        self.expect_punct('(', "'('")?;
        let mut depth = 1usize;
        let mut text = String::new();
        while let Some(t) = self.next() {
            match t.tok {
                Tok::Punct('(') => depth = depth.saturating_add(1),
                Tok::Punct(')') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(text);
                    }
                }
                _ => {}
            }
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&t.tok.describe());
        }
        Err(ddl_err(
            start.0,
            start.1,
            DdlErrorKind::Unterminated("parenthesis"),
        ))
    }
    /// `=` is optional between an option and its value.
    fn opt_eq(&mut self) {
        self.eat_punct('=');
    }
    /// One value: a word, number, string, or group; a call `f(…)` whole;
    /// signs and charset introducers included.
    fn skip_value(&mut self) -> Result<(), Error> {
        while self.eat_punct('-') || self.eat_punct('+') {}
        if self.is_punct('(') {
            self.skip_group()?;
            return Ok(());
        }
        match self.peek().map(|t| &t.tok) {
            Some(Tok::Str(_) | Tok::DStr(_)) => {
                self.string("a value")?;
            }
            Some(Tok::Word(_)) => {
                if matches!(
                    self.peek_at(1).map(|t| &t.tok),
                    Some(Tok::Str(_) | Tok::DStr(_))
                ) {
                    self.string("a value")?;
                } else {
                    self.i = self.i.saturating_add(1);
                    if self.is_punct('(') {
                        self.skip_group()?;
                    }
                }
            }
            Some(Tok::Num(_) | Tok::Quoted(_)) => self.i = self.i.saturating_add(1),
            _ => return Err(self.expected("a value")),
        }
        Ok(())
    }

    /// `CREATE [OR REPLACE] [TEMPORARY] TABLE`: true and past it when the
    /// statement is one.
    fn create_table_head(&mut self) -> bool {
        if !self.eat_kw("create") {
            return false;
        }
        self.eat_kws(&["or", "replace"]);
        self.eat_kw("temporary");
        self.eat_kw("table")
    }

    fn create_table(&mut self, first: Option<&Token>) -> Result<DdlTable, Error> {
        let at = first.map_or((0, 0), |t| (t.line, t.col));
        self.eat_kws(&["if", "not", "exists"]);
        let mut name = self.ident("a table name")?;
        let mut schema = None;
        if self.eat_punct('.') {
            schema = Some(name);
            name = self.ident("a table name")?;
        }
        if self.is_kw("like") || (self.is_punct('(') && self.is_kw_at(1, "like")) {
            return Err(self.err(DdlErrorKind::Unsupported(
                "CREATE TABLE … LIKE (give the other table's statement)".into(),
            )));
        }
        self.expect_punct('(', "'(' and the column definitions")?;
        let mut cols: Vec<Pending> = Vec::new();
        let mut raw_keys: Vec<RawKey> = Vec::new();
        loop {
            self.create_definition(&mut cols, &mut raw_keys)?;
            if self.eat_punct(')') {
                break;
            }
            self.expect_punct(',', "',' or ')'")?;
        }
        let mut t = DdlTable {
            schema,
            name,
            at,
            columns: Vec::new(),
            keys: Vec::new(),
            hash_columns: Vec::new(),
            row_type: FrmRowType::Default,
            table_collation: 0,
            engine: None,
            key_block_size: 0,
            auto_increment: None,
            stats: (None, None, 0),
            engine_options: Vec::new(),
            page_compressed: false,
            system_versioning: false,
            partitioned: false,
            comment: String::new(),
            mariadb: false,
        };
        let (mut t_charset, mut t_collate) = (None, None);
        self.table_options(&mut t, &mut t_charset, &mut t_collate)?;
        // The table's default collation.
        // Both servers' compiled-in default: latin1_swedish_ci.
        t.table_collation = clause_collation(&t_collate, &t_charset)?.unwrap_or(8);
        // MySQL 5.x prints a table COLLATE only when it is not the
        // charset's default; MariaDB 10.2+ always.
        if let (Some((cl, _, _)), Some((cs, _, _))) = (&t_collate, &t_charset) {
            self.mariadb |= collation_id(cl) == charset_default_collation(cs);
        }
        self.resolve(&mut t, cols, raw_keys)?;
        t.mariadb = self.mariadb;
        bound_table(&t).map_err(|k| ddl_err(t.at.0, t.at.1, DdlErrorKind::TooLong(k)))?;
        Ok(t)
    }

    fn create_definition(
        &mut self,
        cols: &mut Vec<Pending>,
        keys: &mut Vec<RawKey>,
    ) -> Result<(), Error> {
        let at = self.here();
        let mut constraint = None;
        if self.eat_kw("constraint")
            && !["primary", "unique", "foreign", "check"]
                .iter()
                .any(|k| self.is_kw(k))
        {
            constraint = Some(self.ident("a constraint name")?);
        }
        let key = |primary, unique, fulltext, spatial| RawKey {
            name: None,
            primary,
            unique,
            fulltext,
            spatial,
            foreign: false,
            parts: Vec::new(),
            at,
        };
        if self.eat_kws(&["primary", "key"]) {
            let k = self.key_body(key(true, true, false, false), false)?;
            keys.push(k);
        } else if self.eat_kw("unique") {
            let _ = self.eat_kw("key") || self.eat_kw("index");
            let mut k = key(false, true, false, false);
            k.name = constraint;
            let k = self.key_body(k, true)?;
            keys.push(k);
        } else if self.eat_kw("key") || self.eat_kw("index") {
            let k = self.key_body(key(false, false, false, false), true)?;
            keys.push(k);
        } else if self.eat_kw("fulltext") || self.eat_kw("spatial") {
            let fulltext = self.t.get(self.i.saturating_sub(1)).is_some_and(
                |t| matches!(&t.tok, Tok::Word(w) if w.eq_ignore_ascii_case("fulltext")),
            );
            let _ = self.eat_kw("key") || self.eat_kw("index");
            let k = self.key_body(key(false, false, fulltext, !fulltext), true)?;
            keys.push(k);
        } else if self.eat_kws(&["foreign", "key"]) {
            let mut k = key(false, false, false, false);
            k.foreign = true;
            k.name = constraint;
            let mut k = self.key_body(k, true)?;
            self.expect_kw("references", "REFERENCES")?;
            self.ident("a table name")?;
            if self.eat_punct('.') {
                self.ident("a table name")?;
            }
            if self.is_punct('(') {
                self.skip_group()?;
            }
            self.references_tail();
            if k.name.is_none() {
                k.name = k.parts.first().map(|p| p.0.clone());
            }
            keys.push(k);
        } else if self.is_kw("check") && self.peek_at(1).is_some_and(|t| t.tok == Tok::Punct('(')) {
            self.i = self.i.saturating_add(1);
            self.skip_group()?;
            self.eat_kws(&["not", "enforced"]);
            self.eat_kw("enforced");
        } else if self.eat_kws(&["period", "for"]) {
            self.ident("a period name")?;
            self.skip_group()?;
        } else {
            if constraint.is_some() {
                return Err(self.expected("PRIMARY KEY, UNIQUE, FOREIGN KEY or CHECK"));
            }
            self.column(cols, keys)?;
        }
        Ok(())
    }

    fn references_tail(&mut self) {
        loop {
            if self.eat_kw("match") {
                self.next();
            } else if self.eat_kw("on") {
                self.next(); // DELETE | UPDATE
                if !(self.eat_kws(&["set", "null"])
                    || self.eat_kws(&["set", "default"])
                    || self.eat_kws(&["no", "action"]))
                {
                    self.next(); // RESTRICT | CASCADE
                }
            } else {
                break;
            }
        }
    }

    /// `[name] [USING t] (part, …) [options]`.
    fn key_body(&mut self, mut k: RawKey, named: bool) -> Result<RawKey, Error> {
        if named && !self.is_punct('(') && !self.is_kw("using") && !self.is_kw("type") {
            k.name = Some(self.ident("a key name or '('")?);
        } else if !named && !self.is_punct('(') && !self.is_kw("using") && !self.is_kw("type") {
            // PRIMARY KEY `name` (…): the name is ignored.
            self.ident("'('")?;
        }
        self.index_options()?;
        self.expect_punct('(', "'(' and the key's columns")?;
        loop {
            let at = self.here();
            if self.is_punct('(') {
                return Err(self.err(DdlErrorKind::Unsupported(
                    "functional key parts (MySQL 8.0.13+)".into(),
                )));
            }
            let col = self.ident("a column name")?;
            let len = if self.eat_punct('(') {
                let n = self.number("a prefix length")?;
                self.expect_punct(')', "')'")?;
                Some(n)
            } else {
                None
            };
            let _ = self.eat_kw("asc") || self.eat_kw("desc");
            if k.parts.len() >= MAX_KEY_PARTS {
                return Err(self.err(DdlErrorKind::TooMany("key parts")));
            }
            k.parts.push((col, len, at.0, at.1));
            if self.eat_punct(')') {
                break;
            }
            self.expect_punct(',', "',' or ')'")?;
        }
        self.index_options()?;
        Ok(k)
    }

    fn index_options(&mut self) -> Result<(), Error> {
        loop {
            if self.eat_kw("using") || self.eat_kw("type") {
                self.ident("BTREE, HASH or RTREE")?;
            } else if self.eat_kw("key_block_size") {
                self.opt_eq();
                self.number("a number")?;
            } else if self.eat_kw("comment") {
                self.string("a comment string")?;
            } else if self.eat_kws(&["with", "parser"]) {
                self.ident("a parser name")?;
            } else if self.eat_kws(&["not", "ignored"]) || self.eat_kw("ignored") {
                self.mariadb = true;
            } else if self.eat_kw("visible") || self.eat_kw("invisible") {
            } else if self.eat_kw("clustering") {
                self.opt_eq();
                self.skip_value()?;
            } else if self.eat_kw("engine_attribute") || self.eat_kw("secondary_engine_attribute") {
                self.opt_eq();
                self.string("a string")?;
            } else {
                return Ok(());
            }
        }
    }

    /// `CHARACTER SET x` / `CHARSET x` / `CHAR SET x`: the name.
    fn charset_clause(&mut self) -> Result<Option<(String, u32, u32)>, Error> {
        if self.eat_kws(&["character", "set"])
            || self.eat_kw("charset")
            || self.eat_kws(&["char", "set"])
        {
            self.opt_eq();
            let (l, c) = self.here();
            let n = if self.is_kw("binary") {
                self.i = self.i.saturating_add(1);
                "binary".to_string()
            } else {
                self.ident("a character set name")?
            };
            return Ok(Some((n, l, c)));
        }
        Ok(None)
    }

    fn collate_clause(&mut self) -> Result<Option<(String, u32, u32)>, Error> {
        if self.eat_kw("collate") {
            self.opt_eq();
            let (l, c) = self.here();
            let n = match self.peek().map(|t| &t.tok) {
                Some(Tok::Str(s)) => {
                    let s = s.clone();
                    self.i = self.i.saturating_add(1);
                    s
                }
                _ => self.ident("a collation name")?,
            };
            return Ok(Some((n, l, c)));
        }
        Ok(None)
    }

    /// `(n)` or `(m, d)`.
    fn params(&mut self, spec: &mut TypeSpec) -> Result<(), Error> {
        if self.eat_punct('(') {
            spec.len = Some(self.number("a length")?);
            if self.eat_punct(',') {
                spec.dec = Some(self.number("a scale")?);
            }
            self.expect_punct(')', "')'")?;
        }
        Ok(())
    }

    /// `type` (`sql_yacc.yy`): the type name with its synonyms, then its
    /// parameters or ENUM/SET element list, then the type modifiers.
    fn data_type(&mut self, spec: &mut TypeSpec) -> Result<(Base, String), Error> {
        use Base::*;
        let at = self.here();
        let word = match self.peek().map(|t| &t.tok) {
            Some(Tok::Word(w)) => w.to_ascii_lowercase(),
            _ => return Err(self.expected("a data type")),
        };
        self.i = self.i.saturating_add(1);
        let (base, national) = self.base_type(&word, spec, at)?;
        if national {
            spec.charset = Some(("utf8mb3".into(), at.0, at.1));
        }
        let mut text = word.clone();
        if matches!(base, Enum | Set) {
            self.element_list(base, spec)?;
        } else {
            self.params(spec)?;
            if let Some(n) = spec.len {
                text.push_str(&format!("({n}"));
                if let Some(d) = spec.dec {
                    text.push_str(&format!(",{d}"));
                }
                text.push(')');
            }
        }
        self.type_modifiers(spec, &mut text, at)?;
        Ok((base, text))
    }

    /// The base type a type name (`word`, already read) and the keywords
    /// after it name (`sql/lex.h` synonyms); true when it is a NATIONAL
    /// (utf8) character type.
    fn base_type(
        &mut self,
        word: &str,
        spec: &mut TypeSpec,
        at: (u32, u32),
    ) -> Result<(Base, bool), Error> {
        use Base::*;
        let int = |t, signed, unsigned| Int(t, signed, unsigned);
        let base = match word {
            "tinyint" | "int1" => int(ColType::Tiny, 4, 3),
            "bool" | "boolean" => {
                spec.len = Some(1);
                int(ColType::Tiny, 1, 1)
            }
            "smallint" | "int2" => int(ColType::Short, 6, 5),
            "mediumint" | "int3" | "middleint" => int(ColType::Int24, 9, 8),
            "int" | "integer" | "int4" => int(ColType::Long, 11, 10),
            "bigint" | "int8" => int(ColType::LongLong, 20, 20),
            "serial" => {
                spec.unsigned = true;
                int(ColType::LongLong, 20, 20)
            }
            "decimal" | "dec" | "numeric" | "fixed" => Decimal,
            "float" | "float4" => Float,
            "double" | "float8" | "real" => {
                self.eat_kw("precision");
                Double
            }
            "date" => Date,
            "time" => Time,
            "datetime" => DateTime,
            "timestamp" => Timestamp,
            "year" => Year,
            "national" | "nchar" | "nvarchar" => return Ok((self.national_type(word)?, true)),
            "char" | "character" => {
                if self.eat_kw("varying") {
                    Varchar
                } else {
                    Char
                }
            }
            "varchar" | "varcharacter" => Varchar,
            "binary" => Binary,
            "varbinary" => Varbinary,
            "tinyblob" => Blob(ColType::TinyBlob),
            "blob" => SizedBlob,
            "mediumblob" => Blob(ColType::MediumBlob),
            "longblob" => Blob(ColType::LongBlob),
            "tinytext" => Text(ColType::TinyBlob),
            "text" => SizedText,
            "mediumtext" => Text(ColType::MediumBlob),
            "longtext" => Text(ColType::LongBlob),
            "long" => {
                if self.eat_kw("varbinary") {
                    Blob(ColType::MediumBlob)
                } else {
                    let _ = self.eat_kw("varchar") || self.eat_kw("varcharacter");
                    Text(ColType::MediumBlob)
                }
            }
            "enum" => Enum,
            "set" => Set,
            "bit" => Bit,
            "json" => Json,
            "geometry" | "point" | "linestring" | "polygon" | "multipoint" | "multilinestring"
            | "multipolygon" | "geometrycollection" | "geomcollection" => Geometry,
            "uuid" => {
                self.mariadb = true;
                Uuid
            }
            "inet6" => {
                self.mariadb = true;
                Inet6
            }
            "inet4" => {
                self.mariadb = true;
                Inet4
            }
            "vector" => Vector,
            _ => {
                return Err(ddl_err(
                    at.0,
                    at.1,
                    DdlErrorKind::Unsupported(format!("data type {word}")),
                ))
            }
        };
        Ok((base, false))
    }

    /// `NATIONAL CHAR|VARCHAR`, `NCHAR [VARCHAR|VARYING]`, `NVARCHAR`: the
    /// character types in the national charset (`word` is the first).
    fn national_type(&mut self, word: &str) -> Result<Base, Error> {
        use Base::*;
        Ok(match word {
            "national" => {
                if self.eat_kw("varchar") || self.eat_kw("varcharacter") {
                    Varchar
                } else if self.eat_kw("char") || self.eat_kw("character") {
                    if self.eat_kw("varying") {
                        Varchar
                    } else {
                        Char
                    }
                } else {
                    return Err(self.expected("CHAR or VARCHAR"));
                }
            }
            "nchar" => {
                if self.eat_kw("varchar") || self.eat_kw("varying") {
                    Varchar
                } else {
                    Char
                }
            }
            // "nvarchar"
            _ => Varchar,
        })
    }

    /// An ENUM/SET element list: `(` strings separated by `,` `)`, at most
    /// [`MAX_ELEMENTS`] (SET: 64).
    fn element_list(&mut self, base: Base, spec: &mut TypeSpec) -> Result<(), Error> {
        self.expect_punct('(', "'(' and the element list")?;
        loop {
            let e = self.string("an element string")?;
            if spec.elements.len() >= MAX_ELEMENTS {
                return Err(self.err(DdlErrorKind::TooMany("ENUM/SET elements")));
            }
            spec.elements.push(e);
            if self.eat_punct(')') {
                break;
            }
            self.expect_punct(',', "',' or ')'")?;
        }
        if base == Base::Set && spec.elements.len() > 64 {
            return Err(self.err(DdlErrorKind::TooMany("SET elements (64 at most)")));
        }
        Ok(())
    }

    /// Type modifiers, in any order: UNSIGNED, SIGNED, ZEROFILL, BINARY,
    /// ASCII, UNICODE, BYTE, CHARACTER SET, `/* mariadb-5.3 */`.
    fn type_modifiers(
        &mut self,
        spec: &mut TypeSpec,
        text: &mut String,
        at: (u32, u32),
    ) -> Result<(), Error> {
        loop {
            if self.eat_kw("unsigned") {
                spec.unsigned = true;
                text.push_str(" unsigned");
            } else if self.eat_kw("signed") {
            } else if self.eat_kw("zerofill") {
                spec.zerofill = true;
                spec.unsigned = true;
                text.push_str(" zerofill");
            } else if self.eat_kw("binary") {
                spec.binary_attr = true;
            } else if self.eat_kw("ascii") {
                spec.charset = Some(("latin1".into(), at.0, at.1));
            } else if self.eat_kw("unicode") {
                spec.charset = Some(("ucs2".into(), at.0, at.1));
            } else if self.eat_kw("byte") {
                spec.charset = Some(("binary".into(), at.0, at.1));
            } else if let Some(cs) = self.charset_clause()? {
                spec.charset = Some(cs);
            } else if self.peek().is_some_and(|t| t.tok == Tok::OldTemporal) {
                self.i = self.i.saturating_add(1);
                spec.old_temporal = true;
            } else {
                break;
            }
        }
        Ok(())
    }

    fn column(&mut self, cols: &mut Vec<Pending>, keys: &mut Vec<RawKey>) -> Result<(), Error> {
        let at = self.here();
        let name = self.ident("a column name or a key")?;
        if cols.len() >= MAX_COLUMNS {
            return Err(self.err(DdlErrorKind::TooMany("columns")));
        }
        if cols
            .iter()
            .any(|c| c.0.def.name.eq_ignore_ascii_case(&name))
        {
            return Err(ddl_err(at.0, at.1, DdlErrorKind::DuplicateColumn(name)));
        }
        let mut spec = TypeSpec::default();
        let (base, type_text) = self.data_type(&mut spec)?;
        let mut c = DdlColumn {
            def: Column::new(&name, ColType::Unknown(0)),
            type_text,
            auto_increment: false,
            invisible: false,
            generated: None,
            comment: String::new(),
        };
        let mut not_null = false;
        let key_at = at;
        // SERIAL: BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE.
        let serial = c.type_text == "serial";
        let inline_key = |primary: bool| RawKey {
            name: if primary { None } else { Some(name.clone()) },
            primary,
            unique: true,
            fulltext: false,
            spatial: false,
            foreign: false,
            parts: vec![(name.clone(), None, key_at.0, key_at.1)],
            at: key_at,
        };
        if serial {
            not_null = true;
            c.auto_increment = true;
            keys.push(inline_key(false));
        }
        loop {
            if self.is_punct(',') || self.is_punct(')') {
                break;
            }
            if self.eat_kws(&["not", "null"]) {
                not_null = true;
            } else if self.eat_kw("null") {
                not_null = false;
            } else if self.eat_kw("default") {
                spec.default_null = self.is_kw("null");
                c.def.default = Some(self.default_value()?);
            } else if self.eat_kws(&["on", "update"]) {
                c.def.on_update = Some(self.on_update()?);
            } else if self.eat_kw("auto_increment") {
                c.auto_increment = true;
            } else if self.eat_kws(&["serial", "default", "value"]) {
                not_null = true;
                c.auto_increment = true;
                keys.push(inline_key(false));
            } else if self.eat_kw("unique") {
                self.eat_kw("key");
                keys.push(inline_key(false));
            } else if self.eat_kws(&["primary", "key"]) || self.eat_kw("key") {
                keys.push(inline_key(true));
            } else if self.eat_kw("comment") {
                c.comment = self.string("a comment string")?;
            } else if let Some(cl) = self.collate_clause()? {
                spec.collate = Some(cl);
            } else if let Some(cs) = self.charset_clause()? {
                spec.charset = Some(cs);
            } else if self.eat_kws(&["generated", "always", "as"]) || self.eat_kw("as") {
                if self.eat_kw("row") {
                    // MariaDB system-versioning ROW START / ROW END: stored.
                    let _ = self.eat_kw("start") || self.eat_kw("end");
                    c.generated = None;
                } else {
                    let text = self.skip_group()?;
                    c.generated = Some((text, false));
                }
            } else if self.eat_kw("virtual") {
                if let Some(g) = c.generated.as_mut() {
                    g.1 = false;
                }
            } else if self.eat_kw("persistent") {
                self.mariadb = true;
                if let Some(g) = c.generated.as_mut() {
                    g.1 = true;
                }
            } else if self.eat_kw("stored") {
                if let Some(g) = c.generated.as_mut() {
                    g.1 = true;
                }
            } else if self.eat_kw("invisible") {
                c.invisible = true;
            } else if self.eat_kw("visible") {
                c.invisible = false;
            } else if self.eat_kw("column_format") || self.eat_kw("storage") {
                self.ident("a value")?;
            } else if self.eat_kw("check") {
                let open = self.i;
                self.skip_group()?;
                c.def.check =
                    Some(self.text_between(open.saturating_add(1), self.i.saturating_sub(1)));
            } else if self.eat_kw("references") {
                self.ident("a table name")?;
                if self.eat_punct('.') {
                    self.ident("a table name")?;
                }
                if self.is_punct('(') {
                    self.skip_group()?;
                }
                self.references_tail();
            } else if self.eat_kw("compressed") {
                if self.eat_punct('=') {
                    self.ident("a compression method")?;
                }
            } else if self.eat_kws(&["with", "system", "versioning"])
                || self.eat_kws(&["without", "system", "versioning"])
            {
            } else if self.eat_kw("srid") {
                self.number("an SRID")?;
            } else if self.eat_kw("engine_attribute") || self.eat_kw("secondary_engine_attribute") {
                self.opt_eq();
                self.string("a string")?;
            } else if self.eat_kw("constraint") {
                // CONSTRAINT name CHECK (…) on a column.
                if !self.is_kw("check") {
                    self.ident("a constraint name")?;
                }
            } else {
                return Err(self.expected("a column attribute, ',' or ')'"));
            }
        }
        c.def.nullable = !not_null;
        c.def.auto_increment = c.auto_increment;
        c.def.comment = c.comment.clone();
        if c.auto_increment {
            c.def.default = None;
        }
        cols.push((c, spec, base, at));
        Ok(())
    }

    /// The value after ON UPDATE: CURRENT_TIMESTAMP's fractional digits.
    fn on_update(&mut self) -> Result<u32, Error> {
        let at = self.i;
        match self.default_value()? {
            ColumnDefault::Now(fsp) => Ok(fsp),
            _ => {
                self.i = at;
                Err(self.expected("CURRENT_TIMESTAMP after ON UPDATE"))
            }
        }
    }

    /// A DEFAULT (or ON UPDATE) value: NULL, a string (an introducer and
    /// adjacent strings joined), a signed number, `b'…'`/`X'…'`, TRUE or
    /// FALSE, CURRENT_TIMESTAMP and its synonyms with or without `(n)`,
    /// or an expression (in parentheses or a function call) as text.
    fn default_value(&mut self) -> Result<ColumnDefault, Error> {
        if self.eat_kw("null") {
            return Ok(ColumnDefault::Null);
        }
        let mut sign = String::new();
        while let Some(c) = ['-', '+'].into_iter().find(|&c| self.is_punct(c)) {
            self.i = self.i.saturating_add(1);
            if c == '-' {
                sign = if sign.is_empty() {
                    "-".into()
                } else {
                    String::new()
                };
            }
        }
        if self.is_punct('(') {
            let at = self.i;
            self.skip_group()?;
            return Ok(ColumnDefault::Expr(
                self.text_between(at.saturating_add(1), self.i.saturating_sub(1)),
            ));
        }
        let (tok, next) = (self.peek().map(|t| &t.tok), self.peek_at(1).map(|t| &t.tok));
        match (tok, next) {
            (Some(Tok::Num(n)), _) => {
                let v = format!("{sign}{n}");
                self.i = self.i.saturating_add(1);
                Ok(ColumnDefault::Value(v))
            }
            (Some(Tok::Word(w)), Some(Tok::Str(bits))) if w.eq_ignore_ascii_case("b") => {
                let v = u64::from_str_radix(if bits.is_empty() { "0" } else { bits }, 2)
                    .map_err(|_| self.expected("a BIT value"))?;
                self.i = self.i.saturating_add(2);
                Ok(ColumnDefault::Bits(v))
            }
            (Some(Tok::Word(w)), Some(Tok::Str(hex))) if w.eq_ignore_ascii_case("x") => {
                let b = crate::table::hex_bytes(hex).ok_or_else(|| self.expected("a hex value"))?;
                self.i = self.i.saturating_add(2);
                Ok(match String::from_utf8(b) {
                    Ok(t) => ColumnDefault::Value(t),
                    Err(e) => ColumnDefault::Bytes(e.into_bytes()),
                })
            }
            (Some(Tok::Str(_) | Tok::DStr(_)), _) => {
                Ok(ColumnDefault::Value(self.string("a value")?))
            }
            (Some(Tok::Word(w)), Some(Tok::Str(_) | Tok::DStr(_)))
                if w.starts_with('_') || w.eq_ignore_ascii_case("n") =>
            {
                Ok(ColumnDefault::Value(self.string("a value")?))
            }
            (Some(Tok::Word(w)), _) => {
                let lower = w.to_ascii_lowercase();
                let at = self.i;
                self.i = self.i.saturating_add(1);
                let args = if self.is_punct('(') {
                    let open = self.i;
                    self.skip_group()?;
                    Some(self.text_between(open.saturating_add(1), self.i.saturating_sub(1)))
                } else {
                    None
                };
                match lower.as_str() {
                    "true" if args.is_none() => return Ok(ColumnDefault::Value("1".into())),
                    "false" if args.is_none() => return Ok(ColumnDefault::Value("0".into())),
                    "current_timestamp" | "now" | "localtime" | "localtimestamp" => {
                        let fsp = match args.as_deref() {
                            None | Some("") => Some(0),
                            Some(n) => n.parse().ok(),
                        };
                        if let Some(fsp) = fsp {
                            return Ok(ColumnDefault::Now(fsp));
                        }
                    }
                    _ => {}
                }
                Ok(ColumnDefault::Expr(self.text_between(at, self.i)))
            }
            _ => Err(self.expected("a value")),
        }
    }

    /// Tokens `from..to` as SQL text the way the servers print an
    /// expression: no space around `(`, `)`, `,` and `.`, one around other
    /// operators and between words.
    fn text_between(&self, from: usize, to: usize) -> String {
        let mut s = String::new();
        let mut prev_tight = true;
        for t in self.t.get(from..to).unwrap_or(&[]) {
            if !prev_tight && !matches!(t.tok, Tok::Punct('(' | ')' | ',' | '.')) {
                s.push(' ');
            }
            match &t.tok {
                Tok::Str(w) => crate::table::quote_string(w, &mut s),
                Tok::Word(w) | Tok::Num(w) => s.push_str(w),
                Tok::Quoted(w) => crate::table::quote_ident(w, &mut s),
                Tok::DStr(w) => {
                    s.push('"');
                    s.push_str(w);
                    s.push('"');
                }
                Tok::Punct(c) => s.push(*c),
                Tok::OldTemporal => {}
            }
            prev_tight = matches!(t.tok, Tok::Punct('(' | ',' | '.'));
        }
        s
    }

    fn table_options(
        &mut self,
        t: &mut DdlTable,
        charset: &mut Option<(String, u32, u32)>,
        collate: &mut Option<(String, u32, u32)>,
    ) -> Result<(), Error> {
        loop {
            if self.peek().is_none() {
                return Ok(());
            }
            if self.eat_punct(',') {
                continue;
            }
            if self.is_kw("partition") {
                // Partitions share the table's definition.
                t.partitioned = true;
                self.i = self.t.len();
                return Ok(());
            }
            if self.is_kw("as")
                || self.is_kw("select")
                || self.is_kw("ignore")
                || self.is_kw("replace")
            {
                return Err(self.err(DdlErrorKind::Unsupported(
                    "CREATE TABLE … SELECT (its columns come from the query)".into(),
                )));
            }
            self.eat_kw("default");
            if let Some(cs) = self.charset_clause()? {
                *charset = Some(cs);
                continue;
            }
            if let Some(cl) = self.collate_clause()? {
                *collate = Some(cl);
                continue;
            }
            if self.eat_kws(&["with", "system", "versioning"]) {
                t.system_versioning = true;
                self.mariadb = true;
                continue;
            }
            if self.eat_kw("union") {
                self.opt_eq();
                self.skip_group()?;
                continue;
            }
            if self.eat_kws(&["data", "directory"]) || self.eat_kws(&["index", "directory"]) {
                self.opt_eq();
                self.string("a directory")?;
                continue;
            }
            if self.eat_kw("tablespace") {
                self.opt_eq();
                self.ident("a tablespace name")?;
                if self.eat_kw("storage") {
                    self.ident("DISK or MEMORY")?;
                }
                continue;
            }
            let (l, c) = self.here();
            let quoted = matches!(self.peek().map(|t| &t.tok), Some(Tok::Quoted(_)));
            let written = self.ident("a table option")?;
            let opt = written.to_ascii_lowercase();
            self.opt_eq();
            let engine_option = quoted
                || matches!(
                    opt.as_str(),
                    "page_compressed"
                        | "page_compression_level"
                        | "encrypted"
                        | "encryption_key_id"
                );
            if engine_option {
                let v = match self.peek().map(|t| &t.tok) {
                    Some(Tok::Num(n) | Tok::Str(n) | Tok::Word(n)) => n.clone(),
                    _ => return Err(self.expected("an option value")),
                };
                self.i = self.i.saturating_add(1);
                if opt == "page_compressed" {
                    t.page_compressed = v == "1" || v.eq_ignore_ascii_case("yes");
                }
                self.mariadb = true;
                t.engine_options.push((written, v));
                continue;
            }
            let flag = |v: Option<&Tok>| match v {
                Some(Tok::Num(n)) => Some(n != "0"),
                _ => None,
            };
            match opt.as_str() {
                "stats_persistent" => {
                    t.stats.0 = flag(self.peek().map(|t| &t.tok));
                    self.i = self.i.saturating_add(1);
                }
                "stats_auto_recalc" => {
                    t.stats.1 = flag(self.peek().map(|t| &t.tok));
                    self.i = self.i.saturating_add(1);
                }
                "stats_sample_pages" => {
                    if let Some(Tok::Num(n)) = self.peek().map(|t| &t.tok) {
                        t.stats.2 = n.parse().unwrap_or(0);
                    }
                    self.i = self.i.saturating_add(1);
                }
                "engine" | "type" => t.engine = Some(self.ident("an engine name")?),
                "row_format" => {
                    let v = self.ident("a row format")?.to_ascii_lowercase();
                    t.row_type = match v.as_str() {
                        "default" => FrmRowType::Default,
                        "fixed" => FrmRowType::Fixed,
                        "dynamic" => FrmRowType::Dynamic,
                        "compressed" => FrmRowType::Compressed,
                        "redundant" => FrmRowType::Redundant,
                        "compact" => FrmRowType::Compact,
                        "page" => FrmRowType::Page,
                        _ => {
                            return Err(ddl_err(
                                l,
                                c,
                                DdlErrorKind::Unsupported(format!("ROW_FORMAT={v}")),
                            ))
                        }
                    };
                }
                "key_block_size" => t.key_block_size = self.number("a number")?,
                "auto_increment" => match self.peek().map(|t| &t.tok) {
                    Some(Tok::Num(n)) => {
                        t.auto_increment = n.parse().ok();
                        self.i = self.i.saturating_add(1);
                    }
                    _ => return Err(self.expected("a number")),
                },
                "comment" => t.comment = self.string("a comment string")?,
                _ => self.skip_value()?,
            }
        }
    }

    /// Types, lengths and collations; keys checked, sorted, named.
    fn resolve(
        &mut self,
        t: &mut DdlTable,
        cols: Vec<Pending>,
        raw_keys: Vec<RawKey>,
    ) -> Result<(), Error> {
        let mut columns = Vec::with_capacity(cols.len());
        // Key lengths of whole columns (`Field::key_length`) for prefixes.
        let mut key_lens = Vec::with_capacity(cols.len());
        let mut mbmax = Vec::with_capacity(cols.len());
        self.note_mariadb_spelling(&cols);
        for (mut c, spec, base, at) in cols {
            let (key_len, mb) = self.column_type(&mut c, &spec, base, at, t.table_collation)?;
            implicit_default(&mut c);
            key_lens.push(key_len);
            mbmax.push(mb);
            columns.push(c);
        }
        if t.system_versioning && !columns.iter().any(|c| c.def.name == "row_end") {
            add_period_columns(&mut columns, &mut key_lens, &mut mbmax);
        }
        let names: Vec<String> = columns.iter().map(|c| c.def.name.clone()).collect();
        let find = |name: &str| names.iter().position(|n| n.eq_ignore_ascii_case(name));
        // PRIMARY KEY columns are NOT NULL.
        let mut pk_cols = Vec::new();
        for k in raw_keys.iter().filter(|k| k.primary) {
            for p in &k.parts {
                if let Some(i) = find(&p.0) {
                    pk_cols.push(i);
                }
            }
        }
        for i in pk_cols {
            if let Some(c) = columns.get_mut(i) {
                c.def.nullable = false;
                if c.def.default == Some(ColumnDefault::Null) {
                    c.def.default = None;
                }
            }
        }
        let lens = ColumnLens {
            columns: &columns,
            key_lens: &key_lens,
            mbmax: &mbmax,
        };
        let mut keys: Vec<SortKey> = Vec::new();
        let mut hash_columns = Vec::new();
        let mut used_names: Vec<String> = Vec::new();
        for rk in raw_keys.iter() {
            if rk.primary && keys.iter().any(|k| k.key.primary()) {
                return Err(ddl_err(
                    rk.at.0,
                    rk.at.1,
                    DdlErrorKind::Unsupported("two PRIMARY KEYs".into()),
                ));
            }
            let (parts, long_hash) = key_parts(rk, &lens, find)?;
            let null_part = parts
                .iter()
                .any(|p| columns.get(p.column).is_some_and(|c| c.def.nullable));
            let part_seg = parts.iter().any(|p| p.prefix_len.is_some());
            if rk.foreign && foreign_key_covered(&raw_keys, &parts, find) {
                continue;
            }
            if keys.len() >= MAX_KEYS {
                return Err(ddl_err(rk.at.0, rk.at.1, DdlErrorKind::TooMany("keys")));
            }
            let name = key_name(rk, &used_names);
            used_names.push(name.clone());
            let mut flags = 0u16;
            if rk.unique || rk.primary {
                flags |= key_flag::HA_NOSAME;
            }
            if rk.fulltext {
                flags |= key_flag::HA_FULLTEXT;
            }
            if rk.spatial {
                flags |= key_flag::HA_SPATIAL;
            }
            if long_hash {
                let n = hash_columns.len().saturating_add(1);
                hash_columns.push(hash_column(n, t.table_collation));
            }
            keys.push(SortKey {
                key: FrmKey {
                    name,
                    flags,
                    key_length: 0,
                    algorithm: if long_hash { 5 } else { 0 },
                    block_size: 0,
                    parts,
                    comment: String::new(),
                    ignored: false,
                },
                null_part,
                part_seg,
                orig: keys.len(),
            });
        }
        sort_keys(&mut keys);
        hash_and_period_parts(&mut keys, &columns, t.system_versioning);
        t.columns = columns;
        t.keys = keys.into_iter().map(|k| k.key).collect();
        t.hash_columns = hash_columns;
        Ok(())
    }

    /// MariaDB 10.2+ prints DEFAULT NULL on BLOB/TEXT and both CHARACTER
    /// SET and COLLATE (the default one too); MySQL 5.x not.
    fn note_mariadb_spelling(&mut self, cols: &[Pending]) {
        for (_, spec, base, _) in cols {
            let lob = matches!(
                base,
                Base::Blob(_) | Base::Text(_) | Base::SizedBlob | Base::SizedText
            );
            self.mariadb |= lob && spec.default_null;
            if let (Some((cl, _, _)), Some((cs, _, _))) = (&spec.collate, &spec.charset) {
                self.mariadb |= collation_id(cl) == charset_default_collation(cs);
            }
        }
    }

    /// Fills the column's type, lengths and collation; returns the whole
    /// column's key length (0: BLOB-like, always a prefix; `None`: not
    /// indexable by prefix) and the charset's most bytes per character.
    fn column_type(
        &self,
        c: &mut DdlColumn,
        spec: &TypeSpec,
        base: Base,
        at: (u32, u32),
        table_collation: u16,
    ) -> Result<(Option<u32>, u32), Error> {
        use Base::*;
        let d = &mut c.def;
        d.unsigned = false;
        // What the `.frm` holds for columns without text: MySQL 5.6 the
        // table's collation; MariaDB 8 (`my_charset_numeric`, latin1) for
        // integers, BIT and temporal types, 63 for DECIMAL/FLOAT/DOUBLE.
        let numeric_collation = match (self.mariadb, base) {
            (false, _) => table_collation,
            (true, Decimal | Float | Double) => 63,
            (true, _) => 8,
        };
        let cx = TypeCtx {
            spec,
            base,
            at,
            table_collation,
            numeric_collation,
        };
        let (key_len, mb): (Option<u32>, u32) = match base {
            Int(t, signed_w, unsigned_w) => (cx.int_type(d, t, signed_w, unsigned_w), 1),
            Decimal => (cx.decimal_type(d)?, 1),
            Float | Double => (cx.float_type(d)?, 1),
            Date => {
                d.col_type = ColType::NewDate;
                d.length = 10;
                d.collation_id = u32::from(numeric_collation);
                (Some(3), 1)
            }
            Time | DateTime | Timestamp => (cx.time_type(d)?, 1),
            Year => {
                d.col_type = ColType::Year;
                d.length = spec.len.unwrap_or(4);
                d.collation_id = u32::from(numeric_collation);
                (Some(1), 1)
            }
            Bit => (cx.bit_type(d)?, 1),
            Char | Varchar | Binary | Varbinary => cx.char_type(d)?,
            Blob(t) | Text(t) => cx.lob_type(d, t)?,
            SizedBlob | SizedText => cx.sized_lob_type(d)?,
            Enum | Set => cx.enum_set_type(d)?,
            Json if self.mariadb => cx.mariadb_json_type(d)?,
            Json => {
                // MySQL 5.7+ binary JSON (the `.frm` length is not checked
                // against a server's file: no fixture has one).
                d.col_type = ColType::Json;
                d.length = u32::MAX;
                d.collation_id = 63;
                (Some(0), 1)
            }
            Geometry => {
                d.col_type = ColType::Geometry;
                // What both servers' `.frm` files hold for GEOMETRY.
                d.length = 8;
                d.collation_id = 63;
                (Some(0), 1)
            }
            Uuid | Inet6 | Inet4 => (cx.plugin_type(d), 1),
            Vector => (cx.vector_type(d)?, 1),
        };
        if let Some((_, stored)) = &c.generated {
            c.def.is_virtual = !stored;
        }
        Ok((key_len, mb))
    }
}

/// What resolving one column's type needs besides the column: the type as
/// written, where the column starts and the collations it falls back on.
struct TypeCtx<'s> {
    spec: &'s TypeSpec,
    base: Base,
    at: (u32, u32),
    table_collation: u16,
    /// The collation the `.frm` holds for a column without text.
    numeric_collation: u16,
}

impl TypeCtx<'_> {
    /// A length, precision, scale or fsp the servers refuse.
    fn bad(&self, what: String) -> Error {
        ddl_err(self.at.0, self.at.1, DdlErrorKind::BadNumber(what))
    }

    /// The collation of a text column: COLLATE, else the CHARACTER SET's
    /// default, else the table's; the BINARY attribute makes it `_bin`.
    fn text_collation(&self) -> Result<u16, Error> {
        let spec = self.spec;
        let mut id =
            clause_collation(&spec.collate, &spec.charset)?.unwrap_or(self.table_collation);
        if spec.binary_attr {
            id = bin_collation(id).unwrap_or(id);
        }
        Ok(id)
    }

    /// TINYINT … BIGINT: the display width by sign unless given; the key
    /// length is the integer's bytes.
    fn int_type(&self, d: &mut Column, t: ColType, signed_w: u32, unsigned_w: u32) -> Option<u32> {
        let spec = self.spec;
        d.col_type = t;
        d.unsigned = spec.unsigned;
        d.length = spec
            .len
            .unwrap_or(if spec.unsigned { unsigned_w } else { signed_w });
        d.collation_id = u32::from(self.numeric_collation);
        Some(match t {
            ColType::Tiny => 1,
            ColType::Short => 2,
            ColType::Int24 => 3,
            ColType::Long => 4,
            _ => 8,
        })
    }

    /// DECIMAL(p,s): p ≤ 65, s ≤ 30 and ≤ p; the length counts the point
    /// and the sign.
    fn decimal_type(&self, d: &mut Column) -> Result<Option<u32>, Error> {
        let spec = self.spec;
        let p = spec.len.unwrap_or(10);
        let s = spec.dec.unwrap_or(0);
        if p > 65 || s > 30 || s > p || p == 0 {
            return Err(self.bad(format!("DECIMAL({p},{s})")));
        }
        d.col_type = ColType::NewDecimal;
        d.unsigned = spec.unsigned;
        d.precision = p;
        d.scale = s;
        d.length = p
            .saturating_add(u32::from(s > 0))
            .saturating_add(u32::from(!spec.unsigned));
        d.collation_id = u32::from(self.numeric_collation);
        Ok(Some(u32::MAX))
    }

    /// FLOAT/DOUBLE[(m,s)]: FLOAT(p) above 24 is a DOUBLE.
    fn float_type(&self, d: &mut Column) -> Result<Option<u32>, Error> {
        let spec = self.spec;
        let double =
            self.base == Base::Double || spec.len.is_some_and(|p| p > 24 && spec.dec.is_none());
        d.col_type = if double {
            ColType::Double
        } else {
            ColType::Float
        };
        d.unsigned = spec.unsigned;
        match (spec.len, spec.dec) {
            (Some(m), Some(s)) => {
                if s > 30 || s > m || m > 255 {
                    return Err(self.bad(format!("FLOAT/DOUBLE({m},{s})")));
                }
                d.length = m;
                d.scale = s;
            }
            _ => d.length = if double { 22 } else { 12 },
        }
        d.collation_id = u32::from(self.numeric_collation);
        Ok(Some(if double { 8 } else { 4 }))
    }

    /// TIME, DATETIME, TIMESTAMP[(fsp)]: the 5.6.4+ types, or MariaDB
    /// 5.3's under `/* mariadb-5.3 */`; the length counts point and digits.
    fn time_type(&self, d: &mut Column) -> Result<Option<u32>, Error> {
        use Base::*;
        let fsp = self.spec.len.unwrap_or(0);
        if fsp > 6 {
            return Err(self.bad(format!("fractional seconds {fsp}")));
        }
        let (t, w) = match (self.base, self.spec.old_temporal) {
            (Time, false) => (ColType::Time2, 10u32),
            (DateTime, false) => (ColType::DateTime2, 19),
            (_, false) => (ColType::Timestamp2, 19),
            // MariaDB 5.3's formats (`/* mariadb-5.3 */`).
            (Time, true) => (ColType::Time, 10),
            (DateTime, true) => (ColType::DateTime, 19),
            (_, true) => (ColType::Timestamp, 19),
        };
        d.col_type = t;
        d.fsp = fsp;
        d.length = if fsp > 0 {
            w.saturating_add(1).saturating_add(fsp)
        } else {
            w
        };
        d.collation_id = u32::from(self.numeric_collation);
        Ok(Some(u32::MAX))
    }

    /// BIT(n), 1 ≤ n ≤ 64.
    fn bit_type(&self, d: &mut Column) -> Result<Option<u32>, Error> {
        let n = self.spec.len.unwrap_or(1);
        if n == 0 || n > 64 {
            return Err(self.bad(format!("BIT({n})")));
        }
        d.col_type = ColType::Bit;
        d.length = n;
        d.precision = n;
        d.collation_id = u32::from(self.numeric_collation);
        Ok(Some(u32::MAX))
    }

    /// CHAR, VARCHAR, BINARY, VARBINARY: the byte length is characters ×
    /// the charset's most bytes per character.
    fn char_type(&self, d: &mut Column) -> Result<(Option<u32>, u32), Error> {
        use Base::*;
        let base = self.base;
        let binary_type = matches!(base, Binary | Varbinary);
        let id = if binary_type {
            63
        } else {
            self.text_collation()?
        };
        let mb = charset_of(id).map_or(1, |c| u32::from(c.mbmaxlen));
        let n = match (base, self.spec.len) {
            (Char | Binary, None) => 1,
            (_, Some(n)) => n,
            (_, None) => return Err(self.bad("VARCHAR without a length".into())),
        };
        d.col_type = if matches!(base, Char | Binary) {
            ColType::String
        } else {
            ColType::Varchar
        };
        d.collation_id = u32::from(id);
        d.length = n
            .checked_mul(mb)
            .filter(|&l| l <= 65535 * 4)
            .ok_or_else(|| self.bad(format!("length {n}")))?;
        Ok((Some(d.length), mb))
    }

    /// TINYBLOB … LONGBLOB and TINYTEXT … LONGTEXT (`t`): always key
    /// prefixes.
    fn lob_type(&self, d: &mut Column, t: ColType) -> Result<(Option<u32>, u32), Error> {
        let id = if matches!(self.base, Base::Blob(_)) {
            63
        } else {
            self.text_collation()?
        };
        let mb = charset_of(id).map_or(1, |c| u32::from(c.mbmaxlen));
        d.col_type = t;
        d.collation_id = u32::from(id);
        d.length = blob_max(t);
        Ok((Some(0), mb))
    }

    /// BLOB(n) and TEXT(n): the type follows the byte length.
    fn sized_lob_type(&self, d: &mut Column) -> Result<(Option<u32>, u32), Error> {
        let id = if self.base == Base::SizedBlob {
            63
        } else {
            self.text_collation()?
        };
        let mb = charset_of(id).map_or(1, |c| u32::from(c.mbmaxlen));
        // `get_blob_type_from_length` on the byte length.
        let t = match self
            .spec
            .len
            .map(|n| u64::from(n).saturating_mul(u64::from(mb)))
        {
            None => ColType::Blob,
            Some(b) if b < 256 => ColType::TinyBlob,
            Some(b) if b < 65536 => ColType::Blob,
            Some(b) if b < 1 << 24 => ColType::MediumBlob,
            Some(_) => ColType::LongBlob,
        };
        d.col_type = t;
        d.collation_id = u32::from(id);
        d.length = blob_max(t);
        Ok((Some(0), mb))
    }

    /// ENUM and SET: the length is the longest element (ENUM) or all of
    /// them with separators (SET), in bytes.
    fn enum_set_type(&self, d: &mut Column) -> Result<(Option<u32>, u32), Error> {
        let spec = self.spec;
        let base = self.base;
        let id = self.text_collation()?;
        let mb = charset_of(id).map_or(1, |c| u32::from(c.mbmaxlen));
        let chars = spec
            .elements
            .iter()
            .map(|e| u32::try_from(e.chars().count()).unwrap_or(u32::MAX));
        let n = if base == Base::Enum {
            chars.max().unwrap_or(0)
        } else {
            let count = u32::try_from(spec.elements.len()).unwrap_or(u32::MAX);
            chars
                .fold(0u32, |a, b| a.saturating_add(b))
                .saturating_add(count.saturating_sub(1))
        };
        d.col_type = if base == Base::Enum {
            ColType::Enum
        } else {
            ColType::Set
        };
        d.collation_id = u32::from(id);
        d.length = n.saturating_mul(mb);
        d.elements = spec.elements.clone();
        Ok((Some(u32::MAX), mb))
    }

    /// MariaDB's JSON is an alias: LONGTEXT CHARACTER SET utf8mb4
    /// COLLATE utf8mb4_bin with a json_valid CHECK (SHOW CREATE TABLE
    /// prints it so).
    fn mariadb_json_type(&self, d: &mut Column) -> Result<(Option<u32>, u32), Error> {
        let id = match &self.spec.collate {
            Some(_) => self.text_collation()?,
            None => collation_id("utf8mb4_bin").unwrap_or(46),
        };
        let mb = charset_of(id).map_or(1, |c| u32::from(c.mbmaxlen));
        d.col_type = ColType::LongBlob;
        d.collation_id = u32::from(id);
        d.length = blob_max(ColType::LongBlob);
        Ok((Some(0), mb))
    }

    /// MariaDB's UUID, INET6 and INET4: fixed binary values.
    fn plugin_type(&self, d: &mut Column) -> Option<u32> {
        let base = self.base;
        d.col_type = match base {
            Base::Uuid => ColType::MariaUuid,
            Base::Inet6 => ColType::MariaInet6,
            _ => ColType::MariaInet4,
        };
        d.length = if base == Base::Inet4 { 4 } else { 16 };
        d.collation_id = 63;
        Some(d.length)
    }

    /// VECTOR(n), 1 ≤ n ≤ 16383 float32 values.
    fn vector_type(&self, d: &mut Column) -> Result<Option<u32>, Error> {
        let n = self.spec.len.unwrap_or(2048);
        if n == 0 || n > 16383 {
            return Err(self.bad(format!("VECTOR({n})")));
        }
        d.col_type = ColType::Vector;
        d.length = n.saturating_mul(4);
        d.collation_id = 63;
        Ok(Some(0))
    }
}

/// Most bytes of a BLOB/TEXT type (2^(8 × length bytes) − 1).
fn blob_max(t: ColType) -> u32 {
    match t {
        ColType::TinyBlob => 255,
        ColType::MediumBlob => 16_777_215,
        ColType::LongBlob => u32::MAX,
        _ => 65535,
    }
}

/// MariaDB `vers_prepare_keys` / `add_field`: two invisible TIMESTAMP(6)
/// columns for `WITH SYSTEM VERSIONING`, with their key lengths and bytes
/// per character.
fn add_period_columns(
    columns: &mut Vec<DdlColumn>,
    key_lens: &mut Vec<Option<u32>>,
    mbmax: &mut Vec<u32>,
) {
    for n in ["row_start", "row_end"] {
        let mut d = Column::new(n, ColType::Timestamp2);
        d.length = 26;
        d.fsp = 6;
        d.nullable = false;
        d.hidden = Hidden::Sql;
        d.collation_id = 8;
        columns.push(DdlColumn {
            def: d,
            type_text: "timestamp(6)".into(),
            auto_increment: false,
            invisible: true,
            generated: None,
            comment: String::new(),
        });
        key_lens.push(Some(7));
        mbmax.push(1);
    }
}

/// The resolved columns with, per column, its whole key length and the
/// most bytes per character of its charset.
struct ColumnLens<'c> {
    columns: &'c [DdlColumn],
    key_lens: &'c [Option<u32>],
    mbmax: &'c [u32],
}

/// A key before `sort_keys`: what the sort compares.
struct SortKey {
    key: FrmKey,
    null_part: bool,
    part_seg: bool,
    orig: usize,
}

/// A key's parts as columns and prefix lengths in bytes
/// (`mysql_prepare_create_table`), and whether it is a MariaDB long UNIQUE
/// (a whole BLOB/TEXT column: a hash).
fn key_parts(
    rk: &RawKey,
    lens: &ColumnLens<'_>,
    find: impl Fn(&str) -> Option<usize>,
) -> Result<(Vec<FrmKeyPart>, bool), Error> {
    let mut parts = Vec::with_capacity(rk.parts.len());
    let mut long_hash = false;
    for (name, len, l, c) in &rk.parts {
        let i =
            find(name).ok_or_else(|| ddl_err(*l, *c, DdlErrorKind::UnknownColumn(name.clone())))?;
        let col = lens.columns.get(i).map(|c| &c.def);
        let full = lens.key_lens.get(i).copied().flatten();
        let mb = lens.mbmax.get(i).copied().unwrap_or(1);
        let binary = col.is_none_or(|c| c.collation_id == 63);
        let bytes = len.map(|n| if binary { n } else { n.saturating_mul(mb) });
        let prefix_len = if rk.fulltext {
            None
        } else if rk.spatial {
            // `4 * sizeof(double)` when no length is given.
            Some(bytes.unwrap_or(32)).filter(|&b| Some(b) != full.filter(|&f| f > 0))
        } else {
            match (bytes, full) {
                (Some(b), Some(f)) if b == f => None,
                (Some(b), Some(f)) if f > 0 && b > f => {
                    return Err(ddl_err(
                        *l,
                        *c,
                        DdlErrorKind::BadNumber(format!("prefix of {b} bytes on a column of {f}")),
                    ))
                }
                (Some(b), _) => Some(b),
                (None, Some(0)) => {
                    // A whole BLOB/TEXT: MariaDB's long UNIQUE (a
                    // hash), else the servers refuse it.
                    if rk.unique && !rk.primary {
                        long_hash = true;
                        None
                    } else {
                        return Err(ddl_err(
                            *l,
                            *c,
                            DdlErrorKind::Unsupported(format!(
                                "BLOB/TEXT column {name} in a key without a prefix length"
                            )),
                        ));
                    }
                }
                (None, _) => None,
            }
        };
        parts.push(FrmKeyPart {
            column: i,
            length: 0,
            offset: 0,
            flags: 0,
            key_type: 0,
            prefix_len,
        });
    }
    Ok((parts, long_hash))
}

/// InnoDB needs an index whose first columns are a FOREIGN KEY's
/// (`foreign_key_prefix`); the server adds one if no other key is one.
fn foreign_key_covered(
    raw_keys: &[RawKey],
    parts: &[FrmKeyPart],
    find: impl Fn(&str) -> Option<usize>,
) -> bool {
    raw_keys
        .iter()
        .filter(|k| !k.foreign && !k.fulltext && !k.spatial)
        .any(|k| {
            k.parts.len() >= parts.len()
                && k.parts
                    .iter()
                    .zip(parts)
                    .all(|(a, b)| find(&a.0) == Some(b.column) && a.1.is_none())
        })
}

/// A key's name: PRIMARY, the given name, else its first column's, made
/// unique against `used_names` as `make_unique_key_name` does.
fn key_name(rk: &RawKey, used_names: &[String]) -> String {
    if rk.primary {
        "PRIMARY".to_string()
    } else {
        let base = rk
            .name
            .clone()
            .or_else(|| rk.parts.first().map(|p| p.0.clone()))
            .unwrap_or_default();
        let taken = |n: &str| {
            n.eq_ignore_ascii_case("PRIMARY")
                || used_names.iter().any(|u| u.eq_ignore_ascii_case(n))
        };
        if rk.name.is_some() || !taken(&base) {
            base
        } else {
            // `make_unique_key_name`: name_2, name_3, …
            (2..100u32)
                .map(|n| format!("{base}_{n}"))
                .find(|n| !taken(n))
                .unwrap_or(base)
        }
    }
}

/// The hidden hash column `n` (1-based) of a MariaDB long UNIQUE key
/// (`add_hash_field`).
fn hash_column(n: usize, table_collation: u16) -> Column {
    let mut h = Column::new(&format!("DB_ROW_HASH_{n}"), ColType::LongLong);
    h.length = 8;
    h.collation_id = u32::from(table_collation);
    h.hidden = Hidden::Sql;
    h.is_virtual = true;
    h.nullable = true;
    h
}

/// `sort_keys` (MySQL 5.6 and MariaDB 10.11 `sql_table.cc`).
fn sort_keys(keys: &mut [SortKey]) {
    keys.sort_by(|a, b| {
        use std::cmp::Ordering::*;
        let (ua, ub) = (a.key.unique(), b.key.unique());
        let (ha, hb) = (a.key.algorithm == 5, b.key.algorithm == 5);
        if ha && hb {
            return a.orig.cmp(&b.orig);
        }
        if ua {
            if !ub {
                return Less;
            }
            if ha != hb {
                return if ha { Greater } else { Less };
            }
            if a.null_part != b.null_part {
                return if a.null_part { Greater } else { Less };
            }
            if a.key.primary() != b.key.primary() {
                return if a.key.primary() { Less } else { Greater };
            }
            if a.part_seg != b.part_seg {
                return if a.part_seg { Greater } else { Less };
            }
        } else if ub {
            return Greater;
        }
        if a.key.fulltext() != b.key.fulltext() {
            return if a.key.fulltext() { Greater } else { Less };
        }
        a.orig.cmp(&b.orig)
    });
}

/// After the sort: long hash keys index their hash column (the hashes
/// follow the keys' order), and with system versioning unique keys get
/// row_end as their last part.
fn hash_and_period_parts(keys: &mut [SortKey], columns: &[DdlColumn], system_versioning: bool) {
    let n_cols = columns.len();
    let mut h = 0usize;
    for k in keys.iter_mut().filter(|k| k.key.algorithm == 5) {
        k.key.parts = vec![FrmKeyPart {
            column: n_cols.saturating_add(h),
            length: 0,
            offset: 0,
            flags: 0,
            key_type: 0,
            prefix_len: None,
        }];
        h = h.saturating_add(1);
    }
    if system_versioning {
        // Unique keys get row_end as their last part.
        if let Some(re) = columns.iter().position(|c| c.def.name == "row_end") {
            for k in keys
                .iter_mut()
                .filter(|k| k.key.unique() && k.key.algorithm != 5)
            {
                k.key.parts.push(FrmKeyPart {
                    column: re,
                    length: 0,
                    offset: 0,
                    flags: 0,
                    key_type: 0,
                    prefix_len: None,
                });
            }
        }
    }
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
    use crate::frm::Frm;
    use std::path::PathBuf;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    /// The first difference between two definitions, in words.
    fn diff(a: &TableDef, b: &TableDef) -> Option<String> {
        // An expression is kept as written: the hand-written variants
        // quote its identifiers differently (bare, "double").
        let bare = |t: &TableDef| {
            let mut t = t.clone();
            for c in &mut t.columns {
                c.check = c.check.take().map(|e| e.replace(['`', '"'], ""));
            }
            t
        };
        let (a, b) = (&bare(a), &bare(b));
        if a == b {
            return None;
        }
        for (i, (x, y)) in a.columns.iter().zip(&b.columns).enumerate() {
            if x != y {
                return Some(format!("column {i}:\n ddl {x:?}\n frm {y:?}"));
            }
        }
        if a.columns.len() != b.columns.len() {
            let n = |t: &TableDef| t.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
            return Some(format!("columns: ddl {:?}\n frm {:?}", n(a), n(b)));
        }
        for (x, y) in a.indexes.iter().zip(&b.indexes) {
            if x != y {
                return Some(format!("index:\n ddl {x:?}\n frm {y:?}"));
            }
        }
        Some(format!(
            "ddl {:?} {} indexes\n frm {:?} {} indexes",
            a.row_format,
            a.indexes.len(),
            b.row_format,
            b.indexes.len()
        ))
    }

    fn compare(what: &str, sql: &[u8], frm: &[u8], fails: &mut Vec<String>) {
        let t = match parse_one(sql, None) {
            Ok(t) => t,
            Err(e) => {
                fails.push(format!("{what}: {e}"));
                return;
            }
        };
        let f = Frm::parse(frm).unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut want = f.to_table_def(&t.name, "s");
        want.source = DefSource::Ddl;
        // SHOW CREATE TABLE's AUTO_INCREMENT= is the engine's counter;
        // the .frm does not hold it.
        want.options.auto_increment = t.auto_increment;

        let got = t.to_table_def("s");
        if let Some(d) = diff(&got, &want) {
            fails.push(format!("{what}: {d}"));
        }
    }

    /// Every fixture table: the definition from the server's `SHOW CREATE
    /// TABLE` (`fixtures/rows/<dir>__<table>.sql`) equals the one from the
    /// `.frm` the same server wrote (`fixtures/<dir>/<table>.frm`).
    #[test]
    fn fixture_statements_equal_their_frm() {
        let fx = root().join("../../fixtures");
        let list = std::fs::read_to_string(fx.join("rows/tables.tsv"))
            .unwrap_or_else(|e| panic!("fixtures/rows/tables.tsv: {e}"));
        let mut lines = list.lines();
        let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
        let (def, frm) = (col("definition"), col("frm"));
        let (mut n, mut fails) = (0, Vec::new());
        for l in lines {
            let f: Vec<&str> = l.split('\t').collect();
            let Ok(frm_bytes) = std::fs::read(fx.join(f[frm])) else {
                continue;
            };
            let sql = std::fs::read(fx.join(f[def])).unwrap();
            compare(f[def], &sql, &frm_bytes, &mut fails);
            n += 1;
        }
        assert!(fails.is_empty(), "{}", fails.join("\n"));
        assert!(n >= 40, "{n} tables");
        eprintln!("{n} fixture tables: CREATE TABLE equals .frm");
    }

    /// The schema step's tables (`fixtures/schema/<server>/`: DEFAULT
    /// literals of many types, NULL, CURRENT_TIMESTAMP and ON UPDATE,
    /// MariaDB DEFAULT expressions, AUTO_INCREMENT, KEY_BLOCK_SIZE,
    /// comments): the server's `SHOW CREATE TABLE` (`<table>.sql`) gives
    /// the definition the `.frm` the same server wrote gives, defaults,
    /// comments and table options included.
    #[test]
    fn schema_step_statements_equal_their_frm() {
        let fx = root().join("../../fixtures/schema");
        let (mut n, mut fails) = (0, Vec::new());
        let (mut values, mut now, mut on_update, mut comments) = (0, 0, 0, 0);
        for server in ["mysql56", "mariadb1011"] {
            let mut names: Vec<_> = std::fs::read_dir(fx.join(server))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "sql"))
                .collect();
            names.sort();
            for sql_path in names {
                let sql = std::fs::read(&sql_path).unwrap();
                let frm = std::fs::read(sql_path.with_extension("frm")).unwrap();
                compare(&sql_path.display().to_string(), &sql, &frm, &mut fails);
                let t = parse_one(&sql, None).unwrap().to_table_def("s");
                for c in &t.columns {
                    values += usize::from(matches!(
                        c.default,
                        Some(ColumnDefault::Value(_) | ColumnDefault::Bits(_))
                    ));
                    now += usize::from(matches!(c.default, Some(ColumnDefault::Now(_))));
                    on_update += usize::from(c.on_update.is_some());
                    comments += usize::from(!c.comment.is_empty());
                }
                comments += usize::from(!t.options.comment.is_empty());
                n += 1;
            }
        }
        assert!(fails.is_empty(), "{}", fails.join("\n"));
        assert_eq!(n, 7, "tables");
        // What the statements hold, so the comparison compares something.
        assert!(
            values >= 50 && now >= 8 && on_update >= 8 && comments >= 15,
            "{values} {now} {on_update} {comments}"
        );
    }

    /// The frm reader's own test tables (`tests/frm/<server>/`): each
    /// table's `SHOW CREATE TABLE` (`show_create.txt`, the server's answer)
    /// gives the definition its `.frm` gives.
    #[test]
    fn frm_test_tables_equal_their_frm() {
        let mut fails = Vec::new();
        let mut n = 0;
        for server in ["mysql56", "mariadb1011"] {
            let dir = root().join("tests/frm").join(server);
            let text = std::fs::read_to_string(dir.join("show_create.txt")).unwrap();
            for l in text.lines().filter(|l| !l.is_empty()) {
                let (table, sql) = l.split_once('\t').unwrap();
                let sql = sql
                    .replace("\\n", "\n")
                    .replace("\\t", "\t")
                    .replace("\\\\", "\\");
                let frm = std::fs::read(dir.join(format!("{table}.frm"))).unwrap();
                compare(
                    &format!("{server}/{table}"),
                    sql.as_bytes(),
                    &frm,
                    &mut fails,
                );
                n += 1;
            }
        }
        assert!(fails.is_empty(), "{}", fails.join("\n"));
        assert!(n >= 20);
    }

    /// The servers' statements rewritten the ways people write them
    /// (lowercase, bare or double-quoted identifiers, every comment form,
    /// version comments, `IF NOT EXISTS`, a qualified name, other
    /// statements around it) mean the same table: the `.frm`'s definition.
    #[test]
    fn hand_written_variants_equal_the_frm() {
        let mut fails = Vec::new();
        let mut n = 0;
        for (server, table) in [
            ("mysql56", "types"),
            ("mariadb1011", "types"),
            ("mariadb1011", "maria_types"),
            ("mysql56", "no_pk"),
            ("mysql56", "rf_dynamic"),
        ] {
            let dir = root().join("tests/frm").join(server);
            let text = std::fs::read_to_string(dir.join("show_create.txt")).unwrap();
            let sql = text
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{table}\t")))
                .unwrap()
                .replace("\\n", "\n");
            let frm = std::fs::read(dir.join(format!("{table}.frm"))).unwrap();
            let f = Frm::parse(&frm).unwrap();
            let lower = sql.to_lowercase();
            let bare = sql.replace('`', "");
            let dquoted = sql.replace('`', "\"");
            let commented = format!(
                "-- a dump\n# written by hand\n/* a block\n comment */ SET NAMES utf8;\n\
                 DROP TABLE IF EXISTS `{table}`;\n\
                 CREATE TABLE other (x int);\n{}\n/*!40101 SET x = 1 */;\n",
                sql.replacen(
                    &format!("CREATE TABLE `{table}` ("),
                    &format!("create table /*!32312 IF NOT EXISTS*/ fx.`{table}` ( -- columns\n"),
                    1
                )
                .replace(",\n", ", /* next */\n# one more\n")
                .replace(") ENGINE=", ") /*!50100 ENGINE=")
                    + " */;"
            );
            for (what, v) in [
                ("lowercase", lower),
                ("bare", bare),
                ("double-quoted", dquoted),
                ("commented", commented),
            ] {
                n += 1;
                let t = match parse_one(v.as_bytes(), Some(table)) {
                    Ok(t) if what == "commented" && t.name != table => {
                        fails.push(format!("{what}: {}\n{v}", t.name));
                        continue;
                    }
                    Ok(t) => t,
                    Err(e) => {
                        fails.push(format!("{server}/{table} {what}: {e}\n{v}"));
                        continue;
                    }
                };
                let got = t.to_table_def("fx");
                let mut want = f.to_table_def(table, "fx");
                want.source = DefSource::Ddl;
                if let Some(d) = diff(&got, &want) {
                    fails.push(format!("{server}/{table} {what}: {d}"));
                }
            }
        }
        assert!(fails.is_empty(), "{}", fails.join("\n"));
        assert_eq!(n, 20);
    }

    fn err(sql: &str) -> Error {
        parse_one(sql.as_bytes(), None).unwrap_err()
    }

    /// Output amplification: names, ENUM/SET elements and comments are
    /// bounded as the servers bound them (NAME_CHAR_LEN 64,
    /// MAX_INTERVAL_VALUE_LENGTH 255, COLUMN_COMMENT_MAXLEN and
    /// INDEX_COMMENT_MAXLEN 1024, TABLE_COMMENT_MAXLEN 2048); at the limit
    /// is read, one past it is an error naming what and how long.
    #[test]
    fn names_elements_and_comments_longer_than_the_servers_allow_are_refused() {
        let sql =
            |table: &str, col: &str, element: &str, comment: &str, key: &str, tcomment: &str| {
                format!(
                    "CREATE TABLE `{table}` (`{col}` INT NOT NULL COMMENT '{comment}', \
                 e ENUM('{element}'), KEY `{key}` (e)) COMMENT='{tcomment}'"
                )
            };
        let at = |n: usize| "é".repeat(n);
        let good = sql(&at(64), &at(64), &at(255), &at(1024), &at(64), &at(2048));
        assert!(parse_one(good.as_bytes(), None).is_ok());
        let too = |e: Error| match e.ddl() {
            DdlErrorKind::TooLong(t) => (t.what, t.len, t.max),
            k => panic!("{k:?}"),
        };
        assert_eq!(
            too(err(&sql(&at(65), "c", "a", "", "k", ""))),
            ("identifier", 65, 64)
        );
        assert_eq!(
            too(err(&sql("t", &at(65), "a", "", "k", ""))),
            ("identifier", 65, 64)
        );
        assert_eq!(
            too(err(&sql("t", "c", "a", "", &at(65), ""))),
            ("identifier", 65, 64)
        );
        assert_eq!(
            too(err(&sql("t", "c", &at(256), "", "k", ""))),
            ("ENUM/SET element", 256, 255)
        );
        assert_eq!(
            too(err(&sql("t", "c", "a", &at(1025), "k", ""))),
            ("comment of column", 1025, 1024)
        );
        assert_eq!(
            too(err(&sql("t", "c", "a", "", "k", &at(2049)))),
            ("table comment", 2049, 2048)
        );
        let e = err(&sql("t", &"c".repeat(1 << 20), "a", "", "k", ""));
        assert_eq!(e.line_col(), (1, 19));
        assert_eq!(
            e.to_string(),
            "line 1, column 19: identifier is 1048576 characters, more than the 64 MySQL and MariaDB allow"
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = err("CREATE TABLE t (\n  a int,\n  b frob\n);");
        assert_eq!(e.line_col(), (3, 5));
        assert!(matches!(e.ddl(), DdlErrorKind::Unsupported(_)), "{e}");
        assert!(e.to_string().starts_with("line 3, column 5: "), "{e}");
        let e = err("CREATE TABLE t (a varchar(10) COMMENT 'oops);");
        assert_eq!(e.ddl(), DdlErrorKind::Unterminated("string"));
        let e = err("CREATE TABLE t (a int /* never closed");
        assert_eq!(e.ddl(), DdlErrorKind::Unterminated("comment"));
        let e = err("CREATE TABLE t (a int, KEY (b));");
        assert_eq!(e.ddl(), DdlErrorKind::UnknownColumn("b".into()));
        assert_eq!(e.line_col(), (1, 29));
        let e = err("CREATE TABLE t (a int, A int);");
        assert_eq!(e.ddl(), DdlErrorKind::DuplicateColumn("A".into()));
        let e = err("CREATE TABLE t (a char(3) COLLATE nope_ci);");
        assert_eq!(e.ddl(), DdlErrorKind::UnknownCollation("nope_ci".into()));
        let e = err("CREATE TABLE t (a int) DEFAULT CHARSET=klingon;");
        assert_eq!(e.ddl(), DdlErrorKind::UnknownCharset("klingon".into()));
        let e = err("CREATE TABLE t (a text, KEY (a));");
        assert!(matches!(e.ddl(), DdlErrorKind::Unsupported(_)), "{e}");
        let e = err("CREATE TABLE t (a int,");
        assert!(matches!(e.ddl(), DdlErrorKind::Expected { .. }), "{e}");
        let e = err("CREATE TABLE t LIKE u;");
        assert!(matches!(e.ddl(), DdlErrorKind::Unsupported(_)), "{e}");
        let e = err("CREATE TABLE t (a decimal(70,2));");
        assert!(matches!(e.ddl(), DdlErrorKind::BadNumber(_)), "{e}");
        let e = err("CREATE TABLE t (a int, KEY k ((a + 1)));");
        assert!(matches!(e.ddl(), DdlErrorKind::Unsupported(_)), "{e}");
        assert_eq!(err("SELECT 1;").ddl(), DdlErrorKind::NoTable);
        assert_eq!(
            err("CREATE TABLE a (x int); CREATE TABLE b (y int);").ddl(),
            DdlErrorKind::Ambiguous(vec!["a".into(), "b".into()])
        );
        let many = format!(
            "CREATE TABLE t ({});",
            (0..=MAX_COLUMNS)
                .map(|i| format!("c{i} int"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(err(&many).ddl(), DdlErrorKind::TooMany("columns"));
        let big = vec![b' '; MAX_DDL_BYTES + 1];
        assert_eq!(
            parse(&big).unwrap_err().ddl(),
            DdlErrorKind::TooLarge(MAX_DDL_BYTES + 1)
        );
    }

    /// Every collation MySQL 8.0–9.x and MariaDB 10.11–11.x have parses in
    /// a COLLATE clause, of a column and of the table
    /// (`utf8mb4_0900_ai_ci`, MySQL 8.0's default, was "unknown"). Ids from
    /// mysql-server 8.0 `strings/ctype-uca.cc` and MariaDB 10.11.19's
    /// `COLLATION_CHARACTER_SET_APPLICABILITY`.
    #[test]
    fn every_server_collation_parses() {
        let t = |sql: &str| parse_one(sql.as_bytes(), None).unwrap().to_table_def("s");
        let mariadb = include_str!("../tests/frm/mariadb1011/collations.tsv");
        let names = mariadb
            .lines()
            .filter_map(|l| l.split('\t').nth(1))
            .chain(crate::collation::MYSQL8.iter().map(|&(_, n)| n));
        let mut n = 0;
        for name in names {
            let id = collation_id(name).unwrap();
            let d = t(&format!(
                "CREATE TABLE t (a varchar(4) COLLATE {name}) ENGINE=InnoDB COLLATE={name};"
            ));
            assert_eq!(d.columns[0].collation_id, u32::from(id), "{name}");
            assert_eq!(d.options.collation_id, u32::from(id), "{name}");
            n += 1;
        }
        assert!(n > 1300, "{n}");
        // As MySQL 8.0 and MariaDB 11 print them.
        let d = t("CREATE TABLE t (a char(2)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;");
        assert_eq!((d.columns[0].collation_id, d.columns[0].length), (255, 8));
        let d = t("CREATE TABLE t (a varchar(2) COLLATE utf8mb4_0900_bin) DEFAULT CHARSET=latin1;");
        assert_eq!((d.columns[0].collation_id, d.columns[0].length), (309, 8));
        let d = t("CREATE TABLE t (a text) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_uca1400_ai_ci;");
        assert_eq!(d.columns[0].collation_id, 2304);
        // MariaDB 10.10+: a collation named without its charset.
        let d = t("CREATE TABLE t (a varchar(3) CHARACTER SET utf8mb4 COLLATE uca1400_as_cs);");
        assert_eq!((d.columns[0].collation_id, d.columns[0].length), (2307, 12));
    }

    /// Rules a hand-written statement relies on, each from the servers'
    /// documented behaviour (`sql_table.cc`, the reference manual's
    /// CREATE TABLE page).
    #[test]
    fn server_rules() {
        let t = |sql: &str| parse_one(sql.as_bytes(), None).unwrap().to_table_def("s");
        // PRIMARY KEY columns are NOT NULL; the PRIMARY KEY clusters.
        let d = t("CREATE TABLE t (a int, b int, PRIMARY KEY (a));");
        assert!(!d.columns[0].nullable && d.columns[1].nullable);
        assert_eq!(d.indexes[0].name, "PRIMARY");
        // Inline keys; unnamed keys take their first column's name, then _2.
        let d = t("CREATE TABLE t (a int NOT NULL UNIQUE, b int, KEY (b), KEY (b));");
        let names: Vec<&str> = d.indexes.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "b_2"]);
        // No key to cluster by: DB_ROW_ID.
        let d = t("CREATE TABLE t (a int, UNIQUE KEY (a));");
        assert_eq!(d.indexes[0].name, "GEN_CLUST_INDEX");
        // Unique keys sort before others, NOT NULL ones first.
        let d = t("CREATE TABLE t (a int, b int NOT NULL, KEY ka (a), UNIQUE KEY ua (a), UNIQUE KEY ub (b));");
        let names: Vec<&str> = d.indexes.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["ub", "ua", "ka"]);
        // A FOREIGN KEY without a covering key gets one.
        let d = t("CREATE TABLE t (id int PRIMARY KEY, p int, CONSTRAINT fk_p FOREIGN KEY (p) REFERENCES u (id) ON DELETE SET NULL);");
        assert_eq!(d.indexes[1].name, "fk_p");
        let d = t("CREATE TABLE t (id int PRIMARY KEY, p int, KEY kp (p, id), FOREIGN KEY (p) REFERENCES u (id));");
        assert_eq!(d.indexes.len(), 2);
        // Character lengths to bytes; prefix lengths in characters.
        let d = t("CREATE TABLE t (a varchar(10) CHARACTER SET utf8mb4, KEY (a(4))) DEFAULT CHARSET=latin1;");
        assert_eq!((d.columns[0].length, d.columns[0].collation_id), (40, 45));
        assert_eq!(d.indexes[1].elements[0].prefix_len, Some(16));
        // TEXT(n) picks the type by bytes; BINARY collation attribute.
        let d = t(
            "CREATE TABLE t (a text(300) CHARACTER SET utf8, b varchar(5) BINARY) CHARSET latin1;",
        );
        assert_eq!(d.columns[0].col_type, ColType::Blob);
        assert_eq!(d.columns[1].collation_id, 47);
        // Virtual generated columns are not stored in the clustered index.
        let d = t("CREATE TABLE t (a int PRIMARY KEY, v int AS (a + 1), s int AS (a * 2) STORED);");
        assert!(d.columns[1].is_virtual && !d.columns[2].is_virtual);
        let n = d.columns.iter().position(|c| c.name == "v").unwrap();
        assert!(d.indexes[0].elements.iter().all(|e| e.column != n));
        // FULLTEXT adds FTS_DOC_ID.
        let d = t("CREATE TABLE t (a int PRIMARY KEY, b text, FULLTEXT KEY (b));");
        assert!(d.columns.iter().any(|c| c.name == "FTS_DOC_ID"));
        // Escapes in ENUM elements; BIT, YEAR, VECTOR, SERIAL.
        let d = t(
            r"CREATE TABLE t (e enum('it''s','a\\b','c\'d'), b bit, y year, v vector(3), s serial);",
        );
        assert_eq!(d.columns[0].elements, ["it's", "a\\b", "c'd"]);
        assert_eq!(
            (d.columns[1].col_type, d.columns[1].length),
            (ColType::Bit, 1)
        );
        assert_eq!(d.columns[3].length, 12);
        assert!(d.columns[4].unsigned && !d.columns[4].nullable);
        // MariaDB's JSON (a statement MariaDB printed) is LONGTEXT utf8mb4_bin.
        let d = t("CREATE TABLE t (j json) DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;");
        assert_eq!(
            (d.columns[0].col_type, d.columns[0].collation_id),
            (ColType::LongBlob, 46)
        );
        let d = t("CREATE TABLE t (j json) DEFAULT CHARSET=latin1;");
        assert_eq!(d.columns[0].col_type, ColType::Json);
        // Partitions and table options are read past.
        let d = t("CREATE TABLE t (a int) ENGINE=InnoDB ROW_FORMAT=DYNAMIC KEY_BLOCK_SIZE=8 COMMENT='x' STATS_PERSISTENT=0 /*!50100 PARTITION BY HASH (a) PARTITIONS 4 */;");
        assert_eq!(d.row_format, crate::table::RowFormat::Dynamic);
    }

    /// Truncated and mutated statements never panic.
    #[test]
    fn damaged_statements_never_panic() {
        let fx = root().join("../../fixtures/rows");
        let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&fx)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "sql"))
            .map(|e| std::fs::read(e.path()).unwrap())
            .collect();
        inputs.push(
            b"CREATE TABLE t (a int /*!50100 , b int */, c enum('x') CHARACTER SET utf8);".to_vec(),
        );
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for b in &inputs {
            for cut in 0..b.len().min(4000) {
                let _ = parse(&b[..cut]);
            }
            for _ in 0..300 {
                let mut m = b.clone();
                for _ in 0..1 + rnd() % 4 {
                    let at = (rnd() as usize) % m.len().max(1);
                    let v = b"()`'\",;/*-#!0 aZ\n\xff"[(rnd() % 17) as usize];
                    match rnd() % 3 {
                        0 if !m.is_empty() => m[at] = v,
                        1 => m.insert(at.min(m.len()), v),
                        _ if !m.is_empty() => {
                            m.remove(at);
                        }
                        _ => {}
                    }
                }
                if let Ok(ts) = parse(&m) {
                    for t in ts {
                        let _ = t.to_table_def("s");
                    }
                }
            }
        }
    }
}
