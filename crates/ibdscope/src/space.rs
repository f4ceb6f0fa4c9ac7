//! The front door: a [`File`] opened (its bytes, its detection checked,
//! the logical image of a page_compressed or MariaDB encrypted space
//! made), then its [`Space`]: detection and evidence, the named indexes,
//! every page's verdict, the findings with their places.
//!
//! A `Space` borrows its `File` (the pages are read in place, never
//! copied); every part of its model (the one-pass summary, the space
//! map, the B-trees, the table definition) is made the first time it is
//! asked for, and then shared.

use crate::analysis::{Analysis, SDI_INDEX_ID};
use crate::definition::Def;
use crate::diagnostic::Diagnostic;
use crate::error::{Error, ErrorKind};
use crate::instance;
use crate::logical::Logical;
use crate::open::{Input, OpenOptions};
use ibdscope_core::space::Detection;
use ibdscope_core::summary::Judge;
use ibdscope_core::verdict::PageJudgement;
use ibdscope_core::{Engine, IndexId, PageNo, Tablespace};
use ibdscope_forensics::history::{Clustered, History};
use ibdscope_schema::row::FieldText;
use ibdscope_schema::rows::{
    index_layout, root_page, Decoding, RowScan, ScanInput, ScanOptions, Value,
};
use ibdscope_schema::table::Column;
use ibdscope_schema::table::TableDef;
use ibdscope_schema::value::Rendered;
use std::cell::{OnceCell, RefCell};
use std::fmt;
use std::path::{Path, PathBuf};

/// An opened tablespace file: its bytes (one file, or a system
/// tablespace's data files side by side), and the image its structure is
/// read from when that is not the file itself (a MariaDB page_compressed
/// space decompressed, a MariaDB encrypted space decrypted with its key).
pub struct File {
    path: PathBuf,
    how: OpenOptions,
    input: Input,
    logical: Option<Logical>,
    diagnostics: Vec<Diagnostic>,
}

impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("File")
            .field("path", &self.path)
            .field("files", &self.input.files)
            .field("logical", &self.logical.is_some())
            .finish_non_exhaustive()
    }
}

impl File {
    /// Opens `path` with the default options: read whole, page size
    /// detected; `ibdata1` with the `ibdata2`… that continue it is the
    /// whole system tablespace.
    pub fn open(path: impl AsRef<Path>) -> Result<File, Error> {
        File::open_with(path, &OpenOptions::new())
    }

    /// Opens `path` as `how` says (page size, keys, datadir, host).
    pub fn open_with(path: impl AsRef<Path>, how: &OpenOptions) -> Result<File, Error> {
        let path = path.as_ref();
        let input = crate::open::open(path, how)?;
        let mut diagnostics = input.diagnostics.clone();
        diagnostics.extend(
            input
                .problems
                .iter()
                .map(|p| Diagnostic::line(path, p.as_str())),
        );
        let ts = input
            .tablespace()
            .map_err(|error| Error::new(ErrorKind::Parse(error), path))?;
        if let Some(d) = crate::logical::crypt_data_blocks(path, &ts) {
            return Err(Error::new(ErrorKind::Unreadable(d), path));
        }
        let engine = Engine::new(how.threads);
        let keys = how.key_file.as_deref();
        let logical = crate::logical::expand(path, &ts, &engine, keys, &mut diagnostics);
        drop(ts);
        Ok(File {
            path: path.to_path_buf(),
            how: how.clone(),
            input,
            logical,
            diagnostics,
        })
    }

    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Each file read (one, or the system tablespace's data files) and
    /// its length.
    pub fn files(&self) -> &[(PathBuf, u64)] {
        &self.input.files
    }

    /// What opening had to tell (a key that does not open the space,
    /// pages that do not decompress or decrypt, a data file that does not
    /// continue the ones before it), in order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The space: its detection, indexes, verdicts and findings.
    pub fn space(&self) -> Result<Space<'_>, Error> {
        let physical = self
            .input
            .tablespace()
            .map_err(|error| Error::new(ErrorKind::Parse(error), &self.path))?;
        let ts = match &self.logical {
            Some(l) => l.tablespace(&physical),
            None => physical.clone(),
        };
        let analysis = Analysis::new(
            &self.path,
            &physical,
            &ts,
            Engine::new(self.how.threads),
            self.how.definition.clone(),
        )
        .with_host(&*self.how.host, self.how.data_files.as_deref());
        Ok(Space {
            file: self,
            analysis,
            keyed: RefCell::new(Vec::new()),
            table: OnceCell::new(),
        })
    }
}

/// A tablespace and its model (see the [module](self)).
pub struct Space<'f> {
    file: &'f File,
    analysis: Analysis<'f>,
    /// What reading the keyed summary had to tell.
    keyed: RefCell<Vec<Diagnostic>>,
    /// The definition made ready for decoding, once asked for.
    table: OnceCell<Result<Table, Error>>,
}

/// The table definition a space's records are decoded with: the
/// definition found for the file (its SDI, `.frm`, the datadir's
/// dictionary, a `CREATE TABLE`), fitted to what the records show
/// (MariaDB instant ALTER's record shape, old temporal formats).
pub struct Table {
    def: Def,
    decoding: Decoding,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("name", &self.def.table.name)
            .finish_non_exhaustive()
    }
}

impl Table {
    /// The table: its columns and indexes.
    pub fn def(&self) -> &TableDef {
        &self.def.table
    }
    /// The definition as found, with where it came from (the `.frm`,
    /// the `CREATE TABLE`, the dictionary's datadir) and its notes.
    pub fn definition(&self) -> &Def {
        &self.def
    }
}

impl fmt::Debug for Space<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Space")
            .field("file", &self.file.path)
            .field("detection", self.detection())
            .finish_non_exhaustive()
    }
}

/// One index of a space, as its B-tree and its definition give it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Index {
    /// The index id (`u64::MAX` for the SDI index of MySQL 8.0+:
    /// [`Index::is_sdi`]).
    pub id: IndexId,
    /// Its name: the definition's index with this id (the SDI, the
    /// InnoDB dictionary) or, where the definition has no ids (a `.frm`,
    /// a `CREATE TABLE`), the one whose root page it is; `SDI` for the
    /// SDI index; `None` when no definition names it.
    pub name: Option<String>,
    /// The root page.
    pub root: PageNo,
    /// Levels of the tree (1: the root is a leaf), as the root says.
    pub height: u32,
    /// Leaf pages in use (its leaf segment).
    pub leaf_pages: u32,
    /// Non-leaf pages in use (its internal segment).
    pub internal_pages: u32,
    /// Pages its segments reserve.
    pub reserved_pages: u32,
    /// Records in its leaves, as the walk of the tree counts them (`None`
    /// when the tree could not be walked).
    pub records: Option<u64>,
    /// Mean fill of its pages, 0 to 1 (`None` when the tree could not be
    /// walked).
    pub fill: Option<f32>,
    /// Pages of the index that do not verify.
    pub damaged_pages: usize,
}

impl Index {
    /// Whether this is the SDI index of a MySQL 8.0+ space.
    pub fn is_sdi(&self) -> bool {
        self.id.0 == SDI_INDEX_ID
    }

    /// The id as a column shows it: the number, or `SDI`.
    pub fn id_text(&self) -> String {
        crate::analysis::id_text(self.id)
    }
}

/// Where a finding is: the file holding the page (a data file of the
/// system tablespace, for a page past `ibdata1`), the page, and the byte
/// offset in that file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Place {
    /// The file.
    pub file: PathBuf,
    /// The page, when the finding is about one.
    pub page: Option<PageNo>,
    /// Byte offset in `file`.
    pub offset: u64,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::names::path(&self.file))?;
        if let Some(p) = self.page {
            write!(f, ", page {}", p.0)?;
        }
        write!(f, ", byte offset {}", self.offset)
    }
}

/// Something wrong in the file, with its one place.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// Where.
    pub place: Place,
    /// The page's verdict, for a page that does not verify.
    pub verdict: Option<ibdscope_core::verdict::PageVerdict>,
    /// What, in words.
    pub what: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.what)
    }
}

impl<'f> Space<'f> {
    /// The file.
    pub fn file(&self) -> &'f File {
        self.file
    }

    /// How the format was detected, and the evidence.
    pub fn detection(&self) -> &Detection {
        self.analysis.physical().detection()
    }

    /// The pages as stored.
    pub fn tablespace(&self) -> &Tablespace<'f> {
        self.analysis.physical()
    }

    /// The model every `ibdscope` command reads (the summary, the space
    /// map, the B-trees, the definition), for what the front door does
    /// not show.
    pub fn model(&self) -> &Analysis<'f> {
        &self.analysis
    }

    /// The indexes of the space in the order the space map finds them
    /// (its inodes), with their names, roots, levels, pages and fill.
    pub fn indexes(&self) -> Vec<Index> {
        let a = &self.analysis;
        let trees = a.trees();
        a.map()
            .indexes
            .iter()
            .map(|i| {
                let tree = trees.index(i.index_id);
                Index {
                    id: i.index_id,
                    name: a.index_name(i.index_id).map(str::to_string),
                    root: i.root,
                    height: i.height,
                    leaf_pages: i.leaf_pages_used,
                    internal_pages: i.internal_pages_used,
                    reserved_pages: i.reserved_pages,
                    records: tree.map(|t| t.n_recs),
                    fill: tree.map(|t| t.mean_fill),
                    damaged_pages: a.damaged_pages_of(i.index_id).len(),
                }
            })
            .collect()
    }

    /// The summary every verdict comes from: with a key file that opens
    /// a MariaDB encrypted space, each encrypted page judged after
    /// decryption (as `ibdscope check --key-file`).
    fn summary(&self) -> &ibdscope_core::Summary {
        let a = &self.analysis;
        if a.summary_made().is_none() {
            let keys = self.file.how.key_file.as_deref();
            let path = self.file.path.as_path();
            let keyed = crate::logical::key_verdicts(path, a.physical(), a.engine(), keys);
            if let Some((s, d)) = keyed {
                a.set_summary(s);
                self.keyed.borrow_mut().extend(d);
            }
        }
        a.summary()
    }

    /// Every page's verdict, in page order, as `ibdscope pages` gives it:
    /// the word, its evidence and the byte offset of the evidence in the
    /// file. The first call makes the one pass over the file the verdicts
    /// need (a torn write is judged against the newest LSN of the pages
    /// that verify); the iterator then reads each page once.
    pub fn verdicts(&self) -> impl Iterator<Item = PageJudgement> + '_ {
        let summary = self.summary();
        let ts = self.analysis.physical();
        let mut judge = Judge::default();
        (0..ts.n_pages()).filter_map(move |n| {
            let f = ts.facts(PageNo(n))?;
            let f = judge.judge(ts, f).0;
            Some(summary.verdict(ts, &f))
        })
    }

    /// The findings `ibdscope check` reports: the file's own (it ends
    /// inside a page, it is shorter than its FSP_SIZE, page 0 does not
    /// verify), then every page whose verdict is a finding (damaged or
    /// foreign), each at its place.
    pub fn findings(&self) -> Vec<Finding> {
        let s = self.summary();
        let place = |page: Option<PageNo>, at: u64| {
            let (file, offset) = self.file.input.locate(at);
            Place {
                file: file.to_path_buf(),
                page,
                offset,
            }
        };
        let file = s.file_findings.iter().map(|f| Finding {
            place: place(f.page, f.file_offset),
            verdict: None,
            what: f.kind.to_string(),
        });
        let pages = (s.bad.iter())
            .filter(|b| b.judgement.verdict.is_finding())
            .map(|b| Finding {
                place: place(Some(b.facts.page_no), b.judgement.file_offset),
                verdict: Some(b.judgement.verdict),
                what: b.judgement.to_string(),
            });
        file.chain(pages).collect()
    }

    /// What opening and reading the space had to tell so far, in order
    /// (the file's, then the keyed verdicts', then the definition's).
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut d = self.file.diagnostics.clone();
        d.extend(self.keyed.borrow().iter().cloned());
        d.extend(self.analysis.diagnostics().iter().cloned());
        d
    }

    /// The definition has no index `name`.
    fn no_index(&self, name: &str) -> Error {
        Error::new(ErrorKind::NoIndex(name.to_string()), &self.file.path)
    }

    /// The index's rows cannot be read.
    fn rows_error(&self, e: ibdscope_schema::Error) -> Error {
        Error::new(ErrorKind::Rows(e), &self.file.path)
    }

    /// The table definition the records are decoded with (made once).
    pub fn table(&self) -> Result<&Table, Error> {
        let t = self.table.get_or_init(|| {
            let mut def = self.analysis.definition().map_err(Error::clone)?.clone();
            let decoding = Decoding::new(self.analysis.ts(), &mut def.table);
            Ok(Table { def, decoding })
        });
        t.as_ref().map_err(|e| {
            Error::new(
                ErrorKind::NoDefinition(Box::new(e.clone())),
                &self.file.path,
            )
        })
    }

    /// The typed rows of the index named `index` (`None`: the clustered
    /// index), in key order, as `ibdscope rows` gives them: an
    /// `Iterator` of [`Row`]s, each with its values, its page and byte
    /// offset in the file, and its page's verdict. ROW_FORMAT=COMPRESSED
    /// leaves are read through their rebuilt pages; where the leaf chain
    /// breaks the index's other leaves are found and read in key order
    /// ([`RowScan::lost`] names what damage took). Deleted rows come with
    /// [`ScanOptions::deleted`].
    pub fn rows(&self, index: Option<&str>, opts: ScanOptions) -> Result<RowScan<'_>, Error> {
        let table = self.table()?;
        let t = table.def();
        let ix = match index {
            None => t.clustered().ok_or_else(|| self.no_index("(clustered)"))?,
            Some(name) => t
                .indexes
                .iter()
                .find(|i| i.name == name)
                .ok_or_else(|| self.no_index(name))?,
        };
        let a = &self.analysis;
        let input = ScanInput {
            ts: a.ts(),
            engine: a.engine(),
            summary: self.summary(),
            trees: Some(a.trees_with_leaf_chains()),
        };
        RowScan::over(input, t, ix, &table.decoding, opts).map_err(|e| self.rows_error(e))
    }

    /// The source map of a carved image (`carve`'s `IMAGE.sources`:
    /// `given`, or else the one beside the file), read and checked
    /// against the pages; `None` when there is none. Its
    /// [`locate`](crate::sources::Sources::locate) gives a row's byte
    /// offset in the source carved from its page and offset.
    pub fn sources(&self, given: Option<&Path>) -> Option<crate::sources::Sources> {
        crate::sources::read(self.file.path(), given, self.analysis.physical())
    }

    /// Every row's older versions, from its `DB_ROLL_PTR` through the undo
    /// logs not yet purged (MySQL ≤ 5.7 and MariaDB: the system tablespace
    /// and the `undoNNN` files of the datadir beside the file, or the one
    /// [`OpenOptions::datadir`] names), oldest first, each with the
    /// transaction that wrote it; where a chain ends (the insert, purged,
    /// lost with a damaged undo page) is said per row. `key`: only the
    /// row whose clustered key reads so (`1`, `a,b`).
    pub fn history(&self, key: Option<&str>) -> Result<History, Error> {
        let table = self.table()?;
        let t = table.def();
        let ix = t.clustered().ok_or_else(|| self.no_index("(clustered)"))?;
        let how = &self.file.how;
        let path = self.file.path.as_path();
        let ts = self.analysis.ts();
        let data_files = how.data_files.as_deref();
        let datadir = instance::find_datadir(path, how.definition.datadir.as_deref(), data_files)
            .ok_or_else(|| Error::new(ErrorKind::NoDatadir, path))?;
        let files = crate::undo::read_undo_files(&*how.host, &datadir, how.threads, data_files)
            .map_err(|e| Error::new(ErrorKind::UndoFiles(Box::new(e)), path))?;
        let (spaces, _) = crate::undo::parse_spaces(&files);
        let u = crate::undo::read_undo(&spaces)
            .ok_or_else(|| Error::new(ErrorKind::NoTrxSys, &datadir))?;
        let table_id = instance::dictionary(&*how.host, &datadir, data_files)
            .ok()
            .and_then(|(d, _)| instance::table_for(&d, path, ts.space_id().0).map(|t| t.id));
        let (root, root_rp) = root_page(ts, ix).map_err(|e| self.rows_error(e))?;
        let layout = index_layout(t, ix, &table.decoding.instant, &root_rp)
            .map_err(|e| self.rows_error(e))?;
        let clustered = Clustered::new(t, &layout, root, root_rp.header().index_id(), table_id);
        ibdscope_forensics::history::history(ts, &clustered, &u, key)
            .map_err(|e| Error::new(ErrorKind::History(e), path))
    }
}

/// `value` of column `col` as `SELECT … INTO OUTFILE` writes it and
/// `ibdscope rows --format tsv` prints it: NULL as `\N`; `\`, tab,
/// newline and NUL escaped ([`tsv_escape`]); binary values as uppercase hex; values the
/// library cannot render as the server does (an off-page value it cannot
/// read, one longer than the cap) as the hex it read.
pub fn tsv(value: &Value, col: &Column) -> String {
    let mut s = String::new();
    match value.render(col, &mut s) {
        Some(FieldText::Null) => "\\N".into(),
        Some(FieldText::Value(Rendered::Bytes)) => s.trim_start_matches("0x").to_ascii_uppercase(),
        Some(FieldText::Value(Rendered::Bits)) => bits_decimal(&s),
        _ => {
            let mut out = String::with_capacity(s.len());
            tsv_escape(&s, &mut out);
            out
        }
    }
}

/// `SELECT … INTO OUTFILE` escaping with `ESCAPED BY '\\'`: `\`, tab,
/// newline and NUL.
pub fn tsv_escape(s: &str, out: &mut String) {
    // One pass: the runs between escaped bytes copied whole, eight bytes
    // looked at a time while none is one to escape.
    let b = s.as_bytes();
    let mut from = 0;
    let mut i = 0;
    while i < b.len() {
        if let Some(w) = b.get(i..i.saturating_add(8)) {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            if !tsv_special(w) {
                i = i.saturating_add(8);
                continue;
            }
        }
        let Some(esc) = b.get(i).copied().and_then(tsv_escape_of) else {
            i = i.saturating_add(1);
            continue;
        };
        // `i` is an ASCII byte's index: a character boundary.
        out.push_str(s.get(from..i).unwrap_or_default());
        out.push_str(esc);
        i = i.saturating_add(1);
        from = i;
    }
    out.push_str(s.get(from..).unwrap_or_default());
}

/// [`tsv_escape`] in place of `line`'s bytes from `at` on (a value
/// rendered straight into the line): nothing moves unless a byte is one to
/// escape, and then only the bytes from the first of them.
pub fn tsv_escape_tail(line: &mut Vec<u8>, at: usize) {
    let b = line.get(at..).unwrap_or_default();
    let mut i = 0usize;
    for w in b.chunks_exact(8) {
        if tsv_special(u64::from_le_bytes(w.try_into().unwrap_or_default())) {
            break;
        }
        i = i.saturating_add(8);
    }
    let first = (b.get(i..).unwrap_or_default())
        .iter()
        .position(|&c| matches!(c, 0 | b'\t' | b'\n' | b'\\'));
    if let Some(j) = first {
        let rest = line.split_off(at.saturating_add(i).saturating_add(j));
        for &c in &rest {
            match tsv_escape_of(c) {
                Some(esc) => line.extend_from_slice(esc.as_bytes()),
                None => line.push(c),
            }
        }
    }
}

/// The escape of byte `c` in [`tsv_escape`], if it has one.
#[inline]
fn tsv_escape_of(c: u8) -> Option<&'static str> {
    match c {
        b'\\' => Some("\\\\"),
        b'\t' => Some("\\\t"),
        b'\n' => Some("\\\n"),
        0 => Some("\\0"),
        _ => None,
    }
}

/// Whether any byte of `w` is NUL, tab, newline or `\` (the classic test
/// for a zero byte, `(x - 0x01…) & !x & 0x80…`, on `w` xor each of them).
fn tsv_special(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let tab = 0x0909_0909_0909_0909;
    let newline = 0x0A0A_0A0A_0A0A_0A0A;
    let backslash = 0x5C5C_5C5C_5C5C_5C5C;
    (zero(w) | zero(w ^ tab) | zero(w ^ newline) | zero(w ^ backslash)) != 0
}

/// A BIT value rendered `b'0101'` as the decimal number the server's text
/// output gives (`5`); anything else (more than 64 bits) as it is.
pub fn bits_decimal(s: &str) -> String {
    let digits = s
        .strip_prefix("b'")
        .and_then(|d| d.strip_suffix('\''))
        .filter(|d| d.len() <= 64 && d.bytes().all(|b| b == b'0' || b == b'1'));
    match digits {
        Some(d) => d
            .bytes()
            .fold(0u64, |acc, b| (acc << 1) | u64::from(b == b'1'))
            .to_string(),
        None => s.to_string(),
    }
}
