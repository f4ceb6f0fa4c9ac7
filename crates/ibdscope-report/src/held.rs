//! Commands over a space kept open: the file is opened, detected and
//! (page_compressed, or encrypted with a key that opens it) expanded
//! once, and its model ([`Analysis`]: the summary, the space map, the
//! B-trees, the definition) is made once, when a command first needs it,
//! then kept for every command after. `ibdscope serve` answers each
//! request of a file with [`hold`]'s runner, so a page view reads that
//! page, not the file.
//!
//! Each command run through the runner prints what the same command
//! prints on the command line (`run` with the same options): the same
//! model, the same printer, the same outcome; the commands that do not
//! read one space (and a file that cannot be opened) run as [`crate::run`]
//! runs them.

use crate::args::{Cmd, DefOpts, Opts};
use crate::cmd::{self, check, info, levels, page, pages, records, rows, space};
use crate::open::{key_finding, key_summary, opened_space, say, say_one};
use crate::outcome::Outcome;
use ibdscope::analysis::Analysis;
use std::cell::Cell;
use std::io::{self, Write};
use std::path::Path;

/// What a runner is asked.
#[derive(Clone, Copy, Debug)]
pub enum Ask<'o> {
    /// A command (its options: the command, its format and flags; `files`
    /// is ignored), printing what it prints on the command line.
    Run(&'o Opts),
    /// Page `n`'s place in its B-tree, extent and segment, as JSON
    /// ([`links`]).
    Links(&'o Opts, u32),
}

/// Answers one [`Ask`] over the space kept open, writing what it prints.
type Runner<'r> = dyn FnMut(Ask<'_>, &mut dyn Write) -> io::Result<Outcome> + 'r;

/// Opens the space `path` names with `opts` (its host, threads, page
/// size, keys, `--datadir` as the definition's source) and calls `serve`
/// once with a runner over it; returns when `serve` does, closing the
/// space. When the space cannot be opened, the runner runs each command
/// as [`crate::run`] does (which says why, as the command line does).
pub fn hold(opts: &Opts, path: &Path, serve: &mut dyn FnMut(&mut Runner<'_>)) {
    let mut served = false;
    // What opening says goes to stderr; no capture wraps the requests
    // (each request's run captures its own lines: an outer one would keep
    // every line said while the server runs).
    let _ = opened_space(path, opts, |ts, engine, problems| {
        served = true;
        let keys = key_finding(path, ts, opts);
        let blocks = ibdscope::logical::crypt_data_blocks(path, ts);
        let mut diags = Vec::new();
        let logical =
            ibdscope::logical::expand(path, ts, engine, opts.key_file.as_ref(), &mut diags);
        say(&diags);
        let mut logical = logical;
        let made = logical.as_mut().and_then(|l| l.take_summary());
        let damaged = logical.as_ref().is_some_and(ibdscope::logical::damaged);
        let image = logical.as_ref().map(|l| l.tablespace(ts));
        let def = DefOpts {
            datadir: opts.datadir.clone(),
            ..DefOpts::default()
        };
        let model = |lts| {
            Analysis::new(path, ts, lts, *engine, def.clone())
                .with_host(&*opts.host, opts.data_files.as_deref())
                .with_sink(&say_one)
        };
        // The pages as stored; the structure (the same model when the
        // space is read as stored: one summary, one map).
        let plain = image.is_none();
        let stored = if plain {
            model(ts).reading_trees(true)
        } else {
            model(ts)
        };
        let own = image.as_ref().map(|i| model(i).reading_trees(true));
        if let Some(s) = made {
            if let Some(st) = &own {
                st.set_summary(s.clone());
            }
            stored.set_summary(s);
        }
        let structure = own.as_ref().unwrap_or(&stored);
        // `check` with a key judges with the keyed summary (one pass
        // that decrypts the encrypted pages), as the command does.
        let checked = opts.key_file.as_ref().map(|_| model(ts));
        let keyed: Cell<Option<Outcome>> = Cell::new(None);
        let held = Held {
            open: opts,
            stored: &stored,
            structure,
            checked: checked.as_ref(),
            keyed: &keyed,
            keys,
            blocks: blocks.as_ref(),
            damaged,
            problems,
        };
        serve(&mut |ask: Ask<'_>, out: &mut dyn Write| match ask {
            Ask::Run(o) => crate::errobj::run_with(o, out, |o, out| {
                let outcome = held.run(o, out)?;
                cmd::finish(o, out, outcome)
            }),
            Ask::Links(o, n) => crate::errobj::run_with(o, out, |o, out| {
                let outcome = held.links(n, out)?;
                cmd::finish(o, out, outcome)
            }),
        });
        Ok(Outcome::Clean)
    });
    if !served {
        serve(&mut |ask: Ask<'_>, out: &mut dyn Write| {
            let Ask::Run(o) = ask else {
                return Ok(Outcome::Unreadable);
            };
            let mut one = Opts::new(
                o.cmd.clone(),
                vec![path.to_path_buf()],
                o.format,
                o.host.clone(),
            );
            copy_flags(o, &mut one);
            crate::errobj::run_with(&one, out, crate::cmd::run)
        });
    }
}

/// The flags of `from` a command reads, set in `to` (not its files).
fn copy_flags(from: &Opts, to: &mut Opts) {
    to.lib = from.lib;
    to.threads = from.threads;
    to.verbose = from.verbose;
    to.verified_only = from.verified_only;
    to.levels = from.levels;
    to.hex = from.hex;
    to.data_files = from.data_files.clone();
    to.datadir = from.datadir.clone();
}

/// The models of one space and what opening it found.
struct Held<'h, 't> {
    /// The options the space was opened with (its keys).
    open: &'h Opts,
    /// The pages as stored (`info`, `pages`, `check`).
    stored: &'h Analysis<'t>,
    /// The structure (the logical image's model, else `stored`'s twin).
    structure: &'h Analysis<'t>,
    /// `check`'s model with a key.
    checked: Option<&'h Analysis<'t>>,
    /// The keyed summary's outcome, once made.
    keyed: &'h Cell<Option<Outcome>>,
    /// Whether the key (if any) opens the space.
    keys: Outcome,
    /// Encrypted pages no crypt data opens: no structure.
    blocks: Option<&'h ibdscope::diagnostic::Diagnostic>,
    /// A page of the logical image that did not expand or decrypt.
    damaged: bool,
    /// Files left out when opening.
    problems: bool,
}

impl Held<'_, '_> {
    fn links(&self, n: u32, out: &mut dyn Write) -> io::Result<Outcome> {
        if let Some(d) = self.blocks {
            say(std::slice::from_ref(d));
            return Ok(Outcome::Unreadable);
        }
        links(self.structure, n, out)
    }

    fn run(&self, o: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
        let outcome = match &o.cmd {
            Cmd::Info => info::run(o, self.stored, out)?.max(self.keys),
            Cmd::Pages { from, to } => {
                let a = self.stored;
                cmd::with_file_findings(o, a, out, |out| pages::run(o, a, *from, *to, out))?
                    .max(self.keys)
            }
            Cmd::Check => {
                let (a, keyed) = match self.checked {
                    Some(a) => {
                        let k = self
                            .keyed
                            .get()
                            .unwrap_or_else(|| key_summary(a, self.open));
                        self.keyed.set(Some(k));
                        (a, k)
                    }
                    None => (self.stored, Outcome::Clean),
                };
                check::one(o, a, out)?.max(self.keys).max(keyed)
            }
            Cmd::Page { .. }
            | Cmd::Indexes
            | Cmd::Extents
            | Cmd::Segments
            | Cmd::Lists
            | Cmd::Fill
            | Cmd::Records(_)
            | Cmd::Rows(_) => self.structure_cmd(o, out)?,
            _ => {
                return crate::cmd::run(o, out);
            }
        };
        Ok(if self.problems {
            outcome.max(Outcome::Findings)
        } else {
            outcome
        })
    }

    /// A structure command, as `cmd::run` runs it over the logical image.
    fn structure_cmd(&self, o: &Opts, out: &mut dyn Write) -> io::Result<Outcome> {
        if !matches!(o.cmd, Cmd::Page { .. }) {
            if let Some(d) = self.blocks {
                say(std::slice::from_ref(d));
                return Ok(Outcome::Unreadable);
            }
        }
        let a = self.structure;
        let outcome = match &o.cmd {
            Cmd::Extents => space::extents(o, a, out),
            Cmd::Segments => space::segments(o, a, out),
            Cmd::Lists => space::lists(o, a, out),
            Cmd::Indexes if o.levels => levels::run(o, a, out),
            Cmd::Indexes => space::indexes(o, a, out),
            Cmd::Fill => crate::cmd::fill::run(o, a, out),
            Cmd::Records(sel) => {
                cmd::unreadable_file_findings(a, records::run(o, a, sel.clone(), out))
            }
            Cmd::Rows(r) => cmd::unreadable_file_findings(a, rows::run(o, a, r, out)),
            Cmd::Page { page } => {
                cmd::with_file_findings(o, a, out, |out| page::run(o, a, *page, out))
            }
            _ => Ok(Outcome::Unreadable),
        };
        let outcome = match outcome {
            Ok(o) if a.definition_problems() > 0 => Ok(o.max(Outcome::Findings)),
            Ok(x) if o.datadir.is_some() && x != Outcome::Unreadable => {
                match a.definition_error() {
                    Some(e) => {
                        crate::diag::say!("ibdscope: {e}");
                        Ok(x.max(Outcome::Findings))
                    }
                    None => Ok(x),
                }
            }
            other => other,
        }?;
        Ok(if self.damaged {
            outcome.max(Outcome::Findings)
        } else {
            outcome
        })
    }
}

/// The most pages a links request reads along one level's chain.
const MAX_CHAIN_STEPS: usize = 1 << 20;

/// An index page's place in its B-tree: its index and level, its parent
/// (the page of the level above whose node pointers name it) and its
/// children (the pages its node pointers name), and its extent and
/// segment.
///
/// The node pointers of a level, in key order, name the pages of the level
/// below in the order of that level's FIL_PAGE_NEXT chain (InnoDB keeps
/// both in key order: mysql-server 8.0.40 storage/innobase/btr/btr0btr.cc,
/// `btr_page_split_and_insert` links the new page beside the split one and
/// inserts its node pointer beside the split page's). So with PAGE_N_RECS
/// node pointers on each page of level L+1, walked along the chains from
/// the leftmost pages the B-tree walk found, the children of a page are a
/// run of level L's chain, and its parent the page whose run holds it.
/// The B-trees' check of REDUNDANT node pointers matches them with the
/// chain the same way (`BadChild`, `ChildOrder`). A chain that breaks
/// gives what it reached (`complete: false`).
fn links(a: &Analysis<'_>, n: u32, out: &mut dyn Write) -> io::Result<Outcome> {
    use crate::json::Json;
    use ibdscope_core::fil::FilHeader;
    use ibdscope_core::{IndexHeader, PageNo, PageType, FIL_NULL};
    let ts = a.ts();
    let mut j = Json::new(out);
    j.obj()?.kv_path("file", a.path())?.kv_num("page", n)?;
    let Some(page) = ts.page(PageNo(n)) else {
        j.kv_str("error", "past the last page")?.end_obj()?;
        return Ok(Outcome::Unreadable);
    };
    let fil = FilHeader::new(page);
    let link = |p: Option<PageNo>| p.map(|p| p.0).filter(|&p| p != FIL_NULL);
    j.key("prev")?
        .opt_num(link(fil.map(|f| f.prev())).map(u64::from))?;
    j.key("next")?
        .opt_num(link(fil.map(|f| f.next())).map(u64::from))?;
    // The extent and the segment, from the space map.
    let map = a.map();
    match map.account(ts, PageNo(n)) {
        Some(acc) => {
            j.kv_num("extent", acc.extent)?
                .kv_num("extent_first_page", acc.extent_first.0)?
                .kv_num("extent_pages", acc.extent_pages)?;
            match acc.owner {
                ibdscope_core::Owner::Segment { seg_id, .. } => {
                    j.kv_num("segment_id", seg_id)?;
                }
                _ => {
                    j.key("segment_id")?.null()?;
                }
            }
        }
        None => {
            j.key("extent")?.null()?;
        }
    }
    let is_index = fil.is_some_and(|f| f.page_type() == PageType::FIL_PAGE_INDEX);
    let head = IndexHeader::new(page).filter(|_| is_index);
    let Some(head) = head else {
        j.kv_bool("index_page", false)?.end_obj()?;
        return Ok(Outcome::Clean);
    };
    let (id, level) = (head.index_id(), head.level());
    j.kv_bool("index_page", true)?
        .kv_num("index_id", id.0)?
        .kv_num("level", level)?;
    if let Some(name) = a.index_name(id) {
        j.kv_str("index_name", name)?;
    }
    let trees = a.trees_with_leaf_chains();
    let Some(tree) = trees.index(id) else {
        j.key("parent")?.null()?.key("children")?.arr()?.end_arr()?;
        j.kv_bool("complete", false)?.end_obj()?;
        return Ok(Outcome::Clean);
    };
    j.kv_num("root", tree.root.0)?;
    // A level's pages in chain order, from its leftmost page (level 0: the
    // kept leaf chain).
    let chain = |lv: u16| -> Vec<u32> {
        if lv == 0 && !tree.leaf_chain.is_empty() {
            return tree.leaf_chain.iter().map(|p| p.0).collect();
        }
        let Some(start) = tree
            .levels
            .iter()
            .find(|l| l.level == lv)
            .and_then(|l| l.leftmost)
        else {
            return Vec::new();
        };
        let mut v = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut p = start.0;
        while p != FIL_NULL && v.len() < MAX_CHAIN_STEPS && seen.insert(p) {
            v.push(p);
            p = ts
                .page(PageNo(p))
                .and_then(FilHeader::new)
                .map_or(FIL_NULL, |f| f.next().0);
        }
        v
    };
    let n_recs = |p: u32| -> usize {
        ts.page(PageNo(p))
            .and_then(IndexHeader::new)
            .map_or(0, |h| usize::from(h.n_recs()))
    };
    let mut complete = true;
    // Children: the run of level-1's chain P's node pointers name.
    j.key("children")?.arr()?;
    if level > 0 {
        let here = chain(level);
        let below = chain(level.saturating_sub(1));
        let mut first = 0usize;
        let mut found = false;
        for &p in &here {
            if p == n {
                found = true;
                break;
            }
            first = first.saturating_add(n_recs(p));
        }
        let run = below.get(first..first.saturating_add(n_recs(n)).min(below.len()));
        match run.filter(|_| found) {
            Some(run) => {
                if run.len() != n_recs(n) {
                    complete = false;
                }
                for &c in run {
                    j.num(c)?;
                }
            }
            None => complete = false,
        }
    }
    j.end_arr()?;
    // Parent: the page of level+1 whose run holds P's place in its level.
    let top = u16::try_from(tree.height.saturating_sub(1)).unwrap_or(u16::MAX);
    let mut parent = None;
    if level < top {
        let here = chain(level);
        match here.iter().position(|&p| p == n) {
            Some(pos) => {
                let mut end = 0usize;
                for p in chain(level.saturating_add(1)) {
                    end = end.saturating_add(n_recs(p));
                    if pos < end {
                        parent = Some(p);
                        break;
                    }
                }
                if parent.is_none() {
                    complete = false;
                }
            }
            None => complete = false,
        }
    }
    j.key("parent")?.opt_num(parent.map(u64::from))?;
    j.kv_bool("complete", complete)?.end_obj()?;
    writeln!(j.writer())?;
    Ok(Outcome::Clean)
}
