//! One model of a tablespace that every command reads: the file's
//! detection, the trust of every page (what `check` says of it), the space
//! map, the B-trees, and the table definition with its index names when any
//! source gives one. Each part is computed the first time a command asks
//! for it and then shared, so a command that needs the map and the trees
//! builds each once, and every command draws the same conclusions from the
//! same facts.

use crate::definition::DefOpts;
use crate::definition::{self, Def};
use crate::diagnostic::Diagnostic;
use ibdscope_core::extents::Owner;
use ibdscope_core::summary::{BadPage, SummaryAsks, SummaryFold};
use ibdscope_core::{
    Btrees, Engine, Finding, FindingKind, IndexId, PageNo, SpaceMap, SpaceProblem, Summary,
    Tablespace,
};
use std::cell::{Cell, OnceCell};
use std::path::Path;

/// The index id MySQL 8.0+ gives the SDI index of every tablespace
/// (`dict_sdi_get_index_id`, mysql-server 8.0 storage/innobase/include/dict0sdi.h:
/// `std::numeric_limits<space_index_t>::max()`).
pub const SDI_INDEX_ID: u64 = u64::MAX;

/// An index id for a column of numbers: the SDI index's id (the largest
/// u64) is shown as `SDI`.
pub fn id_text(id: IndexId) -> String {
    if id.0 == SDI_INDEX_ID {
        "SDI".to_string()
    } else {
        id.to_string()
    }
}

/// The model of one file.
pub struct Analysis<'t> {
    path: &'t Path,
    physical: Tablespace<'t>,
    ts: Tablespace<'t>,
    engine: Engine<'t>,
    def_opts: DefOpts,
    summary: OnceCell<Summary>,
    file_findings: OnceCell<Vec<Finding>>,
    map: OnceCell<SpaceMap>,
    trees: OnceCell<Btrees>,
    /// The B-trees with their leaf chains, when a command reads the leaves.
    chained: OnceCell<Btrees>,
    freed_with_data: OnceCell<Vec<PageNo>>,
    def: OnceCell<Result<Def, crate::error::Error>>,
    /// The system tablespace's index names, from its own dictionary.
    system_names: OnceCell<Vec<(u64, String)>>,
    /// Opens the files a definition is read from (a datadir's system
    /// tablespace); files are read whole without one.
    host: Option<&'t dyn crate::host::Host>,
    /// `--data-file-path`'s file names.
    data_files: Option<&'t [std::path::PathBuf]>,
    /// Told each diagnostic as it is found.
    sink: Option<&'t dyn Fn(&Diagnostic)>,
    /// The command reads the B-trees (with their leaf chains: `Some(true)`):
    /// the space map's build folds their pass in its own.
    plan_trees: Option<bool>,
    /// The command reads the map's owners and roots only
    /// ([`Analysis::reading_roots_only`]).
    roots_only: bool,
    /// The pages whose listing the summary's pass keeps
    /// ([`Analysis::listing_pages`]).
    listing: Cell<Option<(u32, u32)>>,
}

impl<'t> Analysis<'t> {
    /// The model of the file at `path`: `physical` is its pages as stored,
    /// `ts` the space the structure is read from (the logical image of a
    /// page_compressed space, else the same space); `engine` runs every
    /// whole-file pass the model makes (the summary, the map, the trees);
    /// `def` says where a table definition may come from.
    pub fn new(
        path: &'t Path,
        physical: &Tablespace<'t>,
        ts: &Tablespace<'t>,
        engine: Engine<'t>,
        def: DefOpts,
    ) -> Self {
        Analysis {
            path,
            physical: physical.clone(),
            ts: ts.clone(),
            engine,
            def_opts: def,
            summary: OnceCell::new(),
            file_findings: OnceCell::new(),
            map: OnceCell::new(),
            trees: OnceCell::new(),
            chained: OnceCell::new(),
            freed_with_data: OnceCell::new(),
            def: OnceCell::new(),
            system_names: OnceCell::new(),
            host: None,
            data_files: None,
            sink: None,
            plan_trees: None,
            roots_only: false,
            listing: Cell::new(None),
        }
    }

    /// The same model, for a command that reads the B-trees (`chains`:
    /// with their leaf chains, [`Analysis::trees_with_leaf_chains`]): the
    /// space map is built with them, their pass over the file folded in
    /// the map's second ([`SpaceMap::build_with_trees`]).
    pub fn reading_trees(mut self, chains: bool) -> Self {
        self.plan_trees = Some(chains);
        self
    }

    /// The same model, for a command that reads the space map's owners and
    /// index roots and nothing the pages hold (`schema`, `sdi`): the map's
    /// pass keeps no facts of the pages and folds no summary in (a later
    /// reader of either reads the pages for it).
    pub fn reading_roots_only(mut self) -> Self {
        self.roots_only = true;
        self
    }

    /// The same model, opening the files a definition is read from (a
    /// datadir's system tablespace) through `host` (mapped, not copied).
    /// `data_files` names the system tablespace's files
    /// (`--data-file-path`; else `ibdata1`, `ibdata2`…).
    pub fn with_host(
        mut self,
        host: &'t dyn crate::host::Host,
        data_files: Option<&'t [std::path::PathBuf]>,
    ) -> Self {
        self.host = Some(host);
        self.data_files = data_files;
        self
    }

    /// The same model, telling `sink` each diagnostic as it is found
    /// (they are also kept: [`Analysis::diagnostics`]).
    pub fn with_sink(mut self, sink: &'t dyn Fn(&Diagnostic)) -> Self {
        self.sink = Some(sink);
        self
    }

    /// What building the model had to tell so far, in order (reading the
    /// definition: its dictionary's problems, a `.frm` read instead).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.def
            .get()
            .and_then(|d| d.as_ref().ok())
            .map_or(&[], |d| d.diagnostics.as_slice())
    }

    /// The file as the user named it.
    pub fn path(&self) -> &'t Path {
        self.path
    }

    /// The space the structure is read from.
    pub fn ts(&self) -> &Tablespace<'t> {
        &self.ts
    }

    /// The pages as stored (what checksums are computed on).
    pub fn physical(&self) -> &Tablespace<'t> {
        &self.physical
    }

    /// The scan engine every whole-file pass over this file runs on.
    pub fn engine(&self) -> &Engine<'t> {
        &self.engine
    }

    /// Tells the engine's progress hook that `done` of `total` pages of a
    /// walk the command makes itself (a leaf chain, the pages listed) are
    /// done: every 256 pages and at the last, so that the hook costs
    /// nothing per page.
    pub fn progress(&self, done: usize, total: usize) {
        if done.is_multiple_of(256) || done == total {
            self.engine.progress(done as u64, total as u64);
        }
    }

    /// Gives the model the summary of the stored pages made elsewhere (in
    /// the pass that built the logical image): [`Analysis::summary`] then
    /// makes no pass. It must be `Summary::of` the physical space; ignored
    /// once the summary is made.
    pub fn set_summary(&self, s: Summary) {
        let _ = self.summary.set(s);
    }

    /// Asks the summary's pass, wherever it is made (its own, or folded
    /// in the space map's first), to keep what `pages` lists of pages
    /// `from..end` ([`SummaryAsks::listing`], [`Summary::listed`]), so
    /// that the listing reads no page again. Nothing when the summary is
    /// made already.
    pub fn listing_pages(&self, from: u32, end: u32) {
        self.listing.set(Some((from, end)));
    }

    /// What the summary's pass is asked beyond what every command reads.
    fn summary_asks(&self) -> SummaryAsks<'static> {
        match self.listing.get() {
            Some((from, end)) => SummaryAsks::default().listing(from, end),
            None => SummaryAsks::default(),
        }
    }

    /// The summary when it was made or set already (no pass of its own).
    pub fn summary_made(&self) -> Option<&Summary> {
        self.summary.get()
    }

    /// The one-pass summary of the stored pages: every page's verdict.
    pub fn summary(&self) -> &Summary {
        self.summary.get_or_init(|| {
            let (ts, asks) = (&self.physical, self.summary_asks());
            ibdscope_core::parallel::fold_pages(ts, &self.engine, || SummaryFold::with(ts, asks))
                .finish()
        })
    }

    /// The space map (built on first use). Its passes over the file make
    /// what else the model will need and has not made: the summary, when
    /// the structure is read from the pages as stored (folded in the map's
    /// first pass), and the B-trees of a command reading them
    /// ([`Analysis::reading_trees`]: folded in its second).
    pub fn map(&self) -> &SpaceMap {
        self.map.get_or_init(|| self.build_map())
    }

    /// Builds the space map, with the summary and the B-trees folded in
    /// its passes where they are still to be made ([`Analysis::map`]).
    fn build_map(&self) -> SpaceMap {
        let asks = self.summary_asks();
        // The summary is of the pages as `physical` reads them: it is
        // folded in the map's pass when the map reads them alike (as
        // stored, or both through a keyring space's page source), and not
        // for a command that reads the roots only.
        let fold_summary =
            !self.roots_only && self.summary.get().is_none() && self.ts.reads_like(&self.physical);
        let trees = self.plan_trees.filter(|&c| {
            if c {
                self.chained.get()
            } else {
                self.trees.get()
            }
            .is_none()
        });
        let (ts, engine, physical) = (&self.ts, &self.engine, &self.physical);
        let (map, summary) = match (trees, fold_summary) {
            (Some(chains), true) => {
                let fold = Some(|| SummaryFold::with(physical, asks));
                let (map, fold, trees) = SpaceMap::build_with_trees(ts, engine, fold, chains);
                self.set_trees(chains, trees);
                (map, fold.map(SummaryFold::finish))
            }
            (Some(chains), false) => {
                let (map, _, trees) = SpaceMap::build_with_trees(ts, engine, None::<fn()>, chains);
                self.set_trees(chains, trees);
                (map, None)
            }
            (None, true) => {
                let (map, fold) =
                    SpaceMap::build_folding(ts, engine, || SummaryFold::with(physical, asks));
                (map, Some(fold.finish()))
            }
            (None, false) if self.roots_only => (SpaceMap::build_without_facts(ts, engine), None),
            (None, false) => (SpaceMap::build(ts, engine), None),
        };
        if let Some(s) = summary {
            let _ = self.summary.set(s);
        }
        map
    }

    /// Keeps the B-trees built with the map.
    fn set_trees(&self, chains: bool, trees: Btrees) {
        let _ = if chains {
            self.chained.set(trees)
        } else {
            self.trees.set(trees)
        };
    }

    /// The B-trees (built on first use; the ones with leaf chains when
    /// those were built first).
    pub fn trees(&self) -> &Btrees {
        // The map first: it may build the trees ([`Analysis::reading_trees`]).
        let map = self.map();
        match self.chained.get() {
            Some(t) => t,
            None => self
                .trees
                .get_or_init(|| Btrees::build(&self.ts, &self.engine, map)),
        }
    }

    /// The B-trees with each index's leaf pages in chain order
    /// (`IndexTree::leaf_chain`), for the commands that read the leaves
    /// (`rows`, `records`): built on first use, the same trees and
    /// findings as [`Analysis::trees`] otherwise, which then gives them.
    pub fn trees_with_leaf_chains(&self) -> &Btrees {
        let map = self.map();
        self.chained
            .get_or_init(|| Btrees::build_with_leaf_chains(&self.ts, &self.engine, map))
    }

    /// The free pages that still hold an index page with records (the
    /// space map's findings), in page order.
    pub fn freed_with_data(&self) -> &[PageNo] {
        self.freed_with_data.get_or_init(|| {
            let mut v: Vec<PageNo> = (self.map().findings.iter())
                .filter(|f| {
                    matches!(
                        f.kind,
                        FindingKind::Space(SpaceProblem::FreePageWithData { .. })
                    )
                })
                .filter_map(|f| f.page)
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
    }

    /// Why there is no definition, when one was looked for and none found
    /// (without looking for one).
    pub fn definition_error(&self) -> Option<&crate::error::Error> {
        self.def.get().and_then(|d| d.as_ref().err())
    }

    /// How many problems the dictionary the definition came from had
    /// (0 when the definition was not read, or not from a dictionary).
    pub fn definition_problems(&self) -> usize {
        self.def
            .get()
            .and_then(|d| d.as_ref().ok())
            .map_or(0, |d| d.dict_problems.len())
    }

    /// The table definition, or why there is none (a message naming the
    /// sources tried).
    pub fn definition(&self) -> Result<&Def, &crate::error::Error> {
        self.def
            .get_or_init(|| {
                let host = self.host.unwrap_or(&crate::host::ReadHost);
                let def = definition::load(
                    self.path,
                    &self.ts,
                    || self.map(),
                    &self.def_opts,
                    (host, self.data_files),
                );
                if let (Some(sink), Ok(d)) = (self.sink, &def) {
                    d.diagnostics.iter().for_each(sink);
                }
                def
            })
            .as_ref()
    }

    /// Findings about the file as a whole: it ends inside a page, it is
    /// shorter than its FSP_SIZE says, page 0 does not verify. The same in
    /// every command, and each one is a finding (exit 1).
    pub fn file_findings(&self) -> &[Finding] {
        // Read from the file's size and page 0, without the pass over the
        // pages (`Summary` holds the same list).
        match self.summary.get() {
            Some(s) => &s.file_findings,
            None => self
                .file_findings
                .get_or_init(|| ibdscope_core::summary::file_findings(&self.physical)),
        }
    }

    /// The pages of index `id` that do not verify, in page order.
    pub fn damaged_pages_of(&self, id: IndexId) -> Vec<PageNo> {
        self.damaged_pages()
            .iter()
            .map(|b| b.facts.page_no)
            .filter(|&n| {
                matches!(
                    self.map().owner(&self.ts, n),
                    Some(Owner::Segment { index: Some(i), .. }) if i == id
                )
            })
            .collect()
    }

    /// The pages that do not verify (checksum, LSN halves, page number or
    /// space id), in page order.
    pub fn damaged_pages(&self) -> &[BadPage] {
        &self.summary().bad
    }

    /// The name of index `id`: the SDI index of a MySQL 8.0+ space, else
    /// the definition's index with that id or, when the definition has no
    /// ids (a `.frm`, a `CREATE TABLE`), the one whose root page it is.
    pub fn index_name(&self, id: IndexId) -> Option<&str> {
        if id.0 == SDI_INDEX_ID {
            return Some("SDI");
        }
        if self.ts.space_id().0 == 0 && self.def_opts.table.is_none() {
            // The system tablespace: every table's indexes, from the
            // dictionary in the space itself.
            let names = self.system_names.get_or_init(|| {
                ibdscope_forensics::dict::Dictionary::read(&self.ts)
                    .map(|d| d.index_names(0))
                    .unwrap_or_default()
            });
            return names
                .iter()
                .find(|(i, _)| *i == id.0)
                .map(|(_, n)| n.as_str());
        }
        let def = self.definition().ok()?;
        let by_id = def
            .table
            .indexes
            .iter()
            .find(|ix| ix.id == Some(id.0))
            .map(|ix| ix.name.as_str());
        by_id.or_else(|| {
            let root = self.map().index(id)?.root;
            def.table
                .indexes
                .iter()
                .find(|ix| ix.id.is_none() && ix.root == Some(root.0))
                .map(|ix| ix.name.as_str())
        })
    }

    /// The widest name of the space's indexes (at least `min`), for a
    /// name column.
    pub fn name_width(&self, min: usize) -> usize {
        self.map()
            .indexes
            .iter()
            .filter_map(|i| self.index_name(i.index_id))
            .map(|n| crate::names::name(n).to_string().chars().count())
            .max()
            .unwrap_or(0)
            .max(min)
    }

    /// `id` with its name when one is known: `29 PRIMARY`, `30 k_b`, `SDI`,
    /// or `29`; for text (control characters in the name escaped).
    pub fn index_label(&self, id: IndexId) -> String {
        match self.index_name(id) {
            Some("SDI") if id.0 == SDI_INDEX_ID => "SDI".to_string(),
            Some(name) => format!("{id} {}", crate::names::name(name)),
            None => id.to_string(),
        }
    }
}
