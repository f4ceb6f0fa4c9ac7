//! The import rules, checked from the sources (std only, no parser crate):
//!
//! - in every crate under `crates/`, the modules (the crate root's children)
//!   form no cycle: module `a` depends on module `b` when a non-test line of
//!   `a` (its file and its submodules' files) names `crate::b` (a path, or a
//!   `use crate::{b::.., c::..}` group) or reaches it through `super::`;
//! - a non-test module imports an item from the module that defines it, not
//!   through the crate root: `crate::X` where `X` is not a module of the
//!   crate (a re-export in `lib.rs`) is refused; the root is the front door
//!   for other crates only;
//! - the crates form no cycle (`Cargo.toml`, every kind of dependency), the
//!   page core `ibdscope-core` is built from no other workspace crate but
//!   the internal ones ([`INTERNAL`]), which are built from none,
//!   `ibdscope-render` from no `ibdscope*` crate, and the front door
//!   `ibdscope` only from the library crates (core, schema, forensics, the
//!   internal ones), and the web explorer `ibdscope-serve` only from the
//!   report and render crates (their `[dependencies]`; test support in
//!   `[dev-dependencies]` is allowed);
//! - the report opens a space only through the front door
//!   (`ibdscope::open`): no `Tablespace::new`/`with_options`, no
//!   `Host::open`/`open_joined` of its own outside tests.
//!
//! Code under `#[cfg(test)]` (a `mod tests { .. }` to its closing brace, a
//! `mod tests;` file, any other item) is not read: tests may reach anywhere.
//! Comments and string literals are blanked first, so a doc link is no
//! import.
//!
//! Every crate's graph is printed; only the crates in [`CHECKED`] fail the
//! test, the others are reported.
#![allow(clippy::disallowed_macros)] // Prints the module graphs.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use ibdscope_testkit::source::{blank, is_cfg_test, is_ident, matching, tokens, Tok};

/// The crates whose module rules fail the test: every crate.
const CHECKED: &[&str] = &[
    "ibdscope",
    "ibdscope-codec",
    "ibdscope-core",
    "ibdscope-cli",
    "ibdscope-forensics",
    "ibdscope-prims",
    "ibdscope-render",
    "ibdscope-report",
    "ibdscope-schema",
    "ibdscope-serve",
    "ibdscope-testkit",
];

/// Crates of [`CHECKED`] whose imports through the root are reported, not
/// failed: none.
const THROUGH_ROOT_LATER: &[&str] = &[];

/// The page core: built from no other workspace crate but [`INTERNAL`].
const CORE: &str = "ibdscope-core";

/// Internal crates (not a public API): the page core may depend on them;
/// they depend on no workspace crate.
const INTERNAL: &[&str] = &["ibdscope-codec", "ibdscope-prims"];

/// Knows nothing of InnoDB: built from no `ibdscope*` crate.
const RENDER: &str = "ibdscope-render";

/// The front door: built from the library crates only.
const FRONT: &str = "ibdscope";

/// The web explorer: a user of the reports (their values and JSON) and of
/// the render crate's palette, nothing below them.
const SERVE: &str = "ibdscope-serve";

/// What the web explorer is built from.
const SERVE_DEPS: &[&str] = &["ibdscope-report", "ibdscope-render"];

/// What the front door is built from.
const FRONT_DEPS: &[&str] = &["ibdscope-core", "ibdscope-schema", "ibdscope-forensics"];

#[test]
fn imports() {
    let crates_dir = ibdscope_testkit::root().join("crates");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&crates_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", crates_dir.display()))
        .map(|e| e.expect("crates/ entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no crate under {}", crates_dir.display());

    let mut failures = Vec::new();
    let manifests: Vec<Manifest> = dirs.iter().map(|d| Manifest::read(d)).collect();
    for name in CHECKED {
        assert!(
            manifests.iter().any(|m| m.name == *name),
            "CHECKED names {name}, which is no crate under crates/"
        );
    }
    check_crate_graph(&manifests, &mut failures);

    for (dir, manifest) in dirs.iter().zip(&manifests) {
        let graph = ModuleGraph::read(&dir.join("src"));
        let name = manifest.name.as_str();
        let checked = CHECKED.contains(&name);
        print!("{}", graph.describe(name, checked));
        let (cycles, through_root) = graph.problems();
        let root_checked = checked && !THROUGH_ROOT_LATER.contains(&name);
        for (p, fails) in cycles
            .iter()
            .map(|p| (p, checked))
            .chain(through_root.iter().map(|p| (p, root_checked)))
        {
            if fails {
                failures.push(format!("{name}: {p}"));
            } else {
                println!("  reported, not failed: {p}");
            }
        }
    }

    assert!(
        failures.is_empty(),
        "import rules broken:\n  {}",
        failures.join("\n  ")
    );
}

// ---------------------------------------------------------------------------
// The crate graph.

/// What one `Cargo.toml` says: the package's name and the dependencies by
/// name, `dev` for `[dev-dependencies]`.
struct Manifest {
    name: String,
    deps: Vec<(String, bool)>,
}

impl Manifest {
    fn read(dir: &Path) -> Self {
        let path = dir.join("Cargo.toml");
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut name = None;
        let mut deps = Vec::new();
        // The current table: [package], a dependency table (dev or not), or other.
        let mut table = Table::Other;
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if let Some(header) = line.strip_prefix('[') {
                let header = header.trim_start_matches('[').trim_end_matches(']').trim();
                table = Table::of(header);
                // `[dependencies.foo]`: the dependency is in the header.
                if let Some((kind, dep)) = header.rsplit_once('.') {
                    if let Table::Deps(dev) = Table::of(kind) {
                        deps.push((unquote(dep).to_string(), dev));
                        table = Table::Other;
                    }
                }
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let key = unquote(key.trim());
            match table {
                Table::Package if key == "name" => name = Some(unquote(value.trim()).to_string()),
                Table::Deps(dev) => {
                    // `alias = { package = "real", .. }` depends on `real`.
                    let real = value
                        .split_once("package")
                        .and_then(|(_, rest)| rest.trim_start().strip_prefix('='))
                        .and_then(|rest| rest.trim_start().strip_prefix('"'))
                        .and_then(|rest| rest.split('"').next());
                    let dep = real.unwrap_or(key).split('.').next().unwrap_or(key);
                    deps.push((dep.to_string(), dev));
                }
                _ => {}
            }
        }
        let name = name.unwrap_or_else(|| panic!("{}: no [package] name", path.display()));
        Manifest { name, deps }
    }
}

#[derive(Clone, Copy)]
enum Table {
    Package,
    /// A dependency table; `true` for `[dev-dependencies]`.
    Deps(bool),
    Other,
}

impl Table {
    fn of(header: &str) -> Self {
        // `[target.'cfg(..)'.dependencies]` counts as `[dependencies]`.
        let last = header.rsplit('.').next().unwrap_or(header).trim();
        match last {
            _ if header == "package" => Table::Package,
            "dependencies" | "build-dependencies" => Table::Deps(false),
            "dev-dependencies" => Table::Deps(true),
            _ => Table::Other,
        }
    }
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches('"').trim_matches('\'')
}

fn check_crate_graph(manifests: &[Manifest], failures: &mut Vec<String>) {
    let members: BTreeSet<&str> = manifests.iter().map(|m| m.name.as_str()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    println!(
        "crates ({}), workspace dependencies (dev in brackets):",
        manifests.len()
    );
    for m in manifests {
        let deps = graph.entry(m.name.clone()).or_default();
        let mut shown = Vec::new();
        for (dep, dev) in &m.deps {
            if !members.contains(dep.as_str()) || (*dev && m.deps.contains(&(dep.clone(), false))) {
                continue;
            }
            deps.insert(dep.clone());
            shown.push(if *dev {
                format!("[{dep}]")
            } else {
                dep.clone()
            });
            if *dev {
                continue;
            }
            if INTERNAL.contains(&m.name.as_str()) {
                failures.push(format!(
                    "crate {} (internal) depends on workspace crate {dep}",
                    m.name
                ));
            }
            if m.name == CORE && !INTERNAL.contains(&dep.as_str()) {
                failures.push(format!(
                    "crate {} (the page core or under it) depends on workspace crate {dep}",
                    m.name
                ));
            }
            if m.name == FRONT
                && !FRONT_DEPS.contains(&dep.as_str())
                && !INTERNAL.contains(&dep.as_str())
            {
                failures.push(format!(
                    "crate {FRONT} (the front door) depends on {dep}: it sits on the library \
                     crates only, below the report"
                ));
            }
            if m.name == SERVE && !SERVE_DEPS.contains(&dep.as_str()) {
                failures.push(format!(
                    "crate {SERVE} depends on {dep}: it serves the reports' JSON and the \
                     render crate's palette, no model of its own"
                ));
            }
            if m.name == RENDER && dep.starts_with("ibdscope") {
                failures.push(format!(
                    "crate {RENDER} depends on {dep}: it knows nothing of InnoDB"
                ));
            }
        }
        println!("  {} -> {}", m.name, list(&shown));
    }
    for (cycle, _) in cycles(&graph) {
        failures.push(format!("crate cycle: {}", cycle.join(" -> ")));
    }
}

// ---------------------------------------------------------------------------
// One way to open a space.

/// Opening a space outside the front door: what the report must not
/// write outside its tests.
const OPENS: &[&str] = &[
    "Tablespace::new(",
    "Tablespace::with_options(",
    "host.open(",
    ".open_joined(",
];

/// Report files that still open a space themselves, and why: none (the
/// undo files `history`, `undo` and `audit` read open through
/// `ibdscope::undo`).
const OPENS_LATER: &[&str] = &[];

#[test]
fn the_report_opens_spaces_through_the_front_door() {
    let src = ibdscope_testkit::root().join("crates/ibdscope-report/src");
    let mut files = Vec::new();
    rust_files(&src, &src, &mut files);
    assert!(!files.is_empty(), "no source under {}", src.display());
    let mut found = Vec::new();
    for rel in &files {
        let shown = rel.display().to_string();
        if OPENS_LATER.contains(&shown.as_str()) {
            continue;
        }
        let text = fs::read_to_string(src.join(rel)).expect("report source");
        let code: String = blank(&text).into_iter().collect();
        // The file's tests (a `#[cfg(test)]` module at its end) may open
        // what they build.
        let code = code.split("\n#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            for o in OPENS.iter().filter(|o| line.contains(*o)) {
                found.push(format!("src/{shown}:{}: {o}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the report opens a space outside ibdscope::open:\n  {}",
        found.join("\n  ")
    );
}

// ---------------------------------------------------------------------------
// The module graph of one crate.

/// Where a reference was read: file (relative to `src/`) and line.
#[derive(Clone)]
struct At {
    file: String,
    line: usize,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "src/{}:{}", self.file, self.line)
    }
}

struct ModuleGraph {
    /// The crate root's child modules (test-only ones left out).
    modules: BTreeSet<String>,
    /// The non-test source files read.
    files: usize,
    /// `from -> to` with where it was first seen.
    edges: BTreeMap<String, BTreeMap<String, At>>,
    /// `crate::X` with `X` not a module: (module, X, where).
    through_root: Vec<(String, String, At)>,
}

impl ModuleGraph {
    fn read(src: &Path) -> Self {
        let mut files = Vec::new();
        rust_files(src, src, &mut files);
        files.sort();
        // Read every file once; the modules a file declares under #[cfg(test)]
        // (`mod tests;`) are test files, dropped afterwards.
        let mut scans = Vec::new();
        let mut test_files: BTreeSet<Vec<String>> = BTreeSet::new();
        let mut modules = BTreeSet::new();
        for rel in &files {
            let Some(path) = module_path(rel) else {
                continue;
            };
            let text = fs::read_to_string(src.join(rel))
                .unwrap_or_else(|e| panic!("{}: {e}", rel.display()));
            let scan = scan(&text, &path);
            for name in &scan.test_mods {
                let mut child = path.clone();
                child.push(name.clone());
                test_files.insert(child);
            }
            if path.is_empty() {
                modules.extend(scan.file_mods.iter().cloned());
                modules.extend(scan.inline_mods.iter().cloned());
            }
            scans.push((rel.display().to_string(), path, scan));
        }
        for m in &test_files {
            if let [name] = m.as_slice() {
                modules.remove(name);
            }
        }

        let mut graph = ModuleGraph {
            modules,
            files: 0,
            edges: BTreeMap::new(),
            through_root: Vec::new(),
        };
        for m in &graph.modules {
            graph.edges.insert(m.clone(), BTreeMap::new());
        }
        for (file, path, scan) in scans {
            if scan.test_file || test_files.iter().any(|t| path.starts_with(t)) {
                continue;
            }
            graph.files += 1;
            // The root (lib.rs, main.rs) is the front door, no node.
            let Some(from) = path.first() else {
                continue;
            };
            if !graph.modules.contains(from) {
                continue;
            }
            for (name, line) in scan.root_refs {
                let at = At {
                    file: file.clone(),
                    line,
                };
                if graph.modules.contains(&name) {
                    if name != *from {
                        let out = graph.edges.entry(from.clone()).or_default();
                        out.entry(name).or_insert(at);
                    }
                } else {
                    graph.through_root.push((from.clone(), name, at));
                }
            }
        }
        graph
    }

    /// The module cycles, and the imports through the root.
    fn problems(&self) -> (Vec<String>, Vec<String>) {
        let mut out = Vec::new();
        let plain: BTreeMap<String, BTreeSet<String>> = self
            .edges
            .iter()
            .map(|(k, v)| (k.clone(), v.keys().cloned().collect()))
            .collect();
        for (cycle, comp) in cycles(&plain) {
            let mut s = format!("module cycle: {}", cycle.join(" -> "));
            if comp.len() > cycle.len() - 1 {
                let comp: Vec<String> = comp.into_iter().collect();
                let _ = write!(s, " (one of the cycles among {})", comp.join(", "));
            }
            for pair in cycle.windows(2) {
                if let [a, b] = pair {
                    let _ = write!(s, "; {a} -> {b} at {}", self.edges[a][b]);
                }
            }
            out.push(s);
        }
        let mut root = Vec::new();
        for (from, name, at) in &self.through_root {
            root.push(format!(
                "module {from} imports crate::{name} through the crate root ({name} is no module; \
                 import it from its module) at {at}"
            ));
        }
        (out, root)
    }

    fn describe(&self, krate: &str, checked: bool) -> String {
        let n_edges: usize = self.edges.values().map(BTreeMap::len).sum();
        let mut s = format!(
            "crate {krate}{}: {} modules, {} files, {} edges, {} imports through the root\n",
            if checked {
                ""
            } else {
                " (reported, not failed)"
            },
            self.modules.len(),
            self.files,
            n_edges,
            self.through_root.len(),
        );
        for (from, to) in &self.edges {
            let to: Vec<String> = to.keys().cloned().collect();
            let _ = writeln!(s, "  {from} -> {}", list(&to));
        }
        if let Some(layers) = self.layers().filter(|l| !l.is_empty()) {
            let layers: Vec<String> = layers.iter().map(|l| l.join(" ")).collect();
            let _ = writeln!(s, "  order, bottom to top: {}", layers.join(" | "));
        }
        s
    }

    /// The modules in layers, bottom first: each imports only modules of
    /// the layers below it. `None` when there is a cycle.
    fn layers(&self) -> Option<Vec<Vec<String>>> {
        let mut placed: BTreeSet<&str> = BTreeSet::new();
        let mut layers = Vec::new();
        while placed.len() < self.edges.len() {
            let layer: Vec<String> = self
                .edges
                .iter()
                .filter(|(m, to)| {
                    !placed.contains(m.as_str()) && to.keys().all(|t| placed.contains(t.as_str()))
                })
                .map(|(m, _)| m.clone())
                .collect();
            if layer.is_empty() {
                return None;
            }
            for m in &layer {
                placed.insert(self.edges.get_key_value(m).expect("a module").0);
            }
            layers.push(layer);
        }
        Some(layers)
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_string()
    } else {
        items.join(", ")
    }
}

/// Every `.rs` file under `dir`, relative to `src`, `src/bin/` left out
/// (each is a crate root of its own).
fn rust_files(src: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("src entry").path();
        let rel = path.strip_prefix(src).expect("under src").to_path_buf();
        if path.is_dir() {
            if rel != Path::new("bin") {
                rust_files(src, &path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(rel);
        }
    }
}

/// The module a file is: `lib.rs` and `main.rs` the root (empty), `a.rs`
/// and `a/mod.rs` `[a]`, `a/b.rs` `[a, b]`.
fn module_path(rel: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if parts.is_empty() && (stem == "lib" || stem == "main") {
        return Some(Vec::new());
    }
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    Some(parts)
}

// ---------------------------------------------------------------------------
// Reading one file.

/// What one file says.
#[derive(Default)]
struct Scan {
    /// `#![cfg(test)]`: the whole file is test code.
    test_file: bool,
    /// Names after `crate::` (or a `super::` reaching the root) outside test
    /// code, with their lines.
    root_refs: Vec<(String, usize)>,
    /// `mod x;` declared outside test code.
    file_mods: Vec<String>,
    /// `mod x { .. }` at the file's top level, outside test code.
    inline_mods: Vec<String>,
    /// `mod x;` declared under `#[cfg(test)]`.
    test_mods: Vec<String>,
    /// Every path outside test code that names a module, from the crate
    /// root: `crate::a::b::..`, `super::..` resolved from this file, and
    /// `x::..` for a module `x` this file declares; with their lines.
    paths: Vec<(Vec<String>, usize)>,
}

/// A `#[cfg(test)]` item being skipped: the brace depth it started at and
/// whether its body brace was opened.
struct TestItem {
    depth: usize,
    opened: bool,
}

fn scan(text: &str, path: &[String]) -> Scan {
    let toks = tokens(&blank(text));
    let mut out = Scan::default();
    // One entry per open brace: the inline module it opens, if it does.
    let mut braces: Vec<Option<String>> = Vec::new();
    let mut pending_test = false;
    let mut pending_mod: Option<String> = None;
    let mut test: Option<TestItem> = None;
    let t = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
    let mut i = 0;
    while i < toks.len() {
        let tok = t(i);
        // Attributes: `#[..]` and `#![..]`.
        if tok == "#" && (t(i + 1) == "[" || (t(i + 1) == "!" && t(i + 2) == "[")) {
            let inner = t(i + 1) == "!";
            let open = if inner { i + 2 } else { i + 1 };
            let close = matching(&toks, open, "[", "]");
            let body: Vec<&str> = (open + 1..close).map(t).collect();
            if is_cfg_test(&body) {
                if inner && braces.is_empty() {
                    out.test_file = true;
                    return out;
                }
                if test.is_none() {
                    pending_test = true;
                }
            }
            i = close + 1;
            continue;
        }
        if pending_test {
            pending_test = false;
            test = Some(TestItem {
                depth: braces.len(),
                opened: false,
            });
        }
        if let Some(item) = &mut test {
            match tok {
                // `#[cfg(test)] mod x;` at the file's top level: a test file.
                "mod"
                    if !item.opened && item.depth == 0 && braces.is_empty() && t(i + 2) == ";" =>
                {
                    out.test_mods.push(t(i + 1).to_string());
                }
                ";" if !item.opened && braces.len() == item.depth => test = None,
                "{" => {
                    if braces.len() == item.depth {
                        item.opened = true;
                    }
                    braces.push(None);
                }
                "}" => {
                    braces.pop();
                    if item.opened && braces.len() == item.depth {
                        test = None;
                    }
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        match tok {
            "mod" if is_ident(t(i + 1)) => {
                let name = t(i + 1).to_string();
                match t(i + 2) {
                    ";" if braces.is_empty() => out.file_mods.push(name),
                    "{" => {
                        if braces.is_empty() {
                            out.inline_mods.push(name.clone());
                        }
                        pending_mod = Some(name);
                    }
                    _ => {}
                }
            }
            "{" => braces.push(pending_mod.take()),
            "}" => {
                braces.pop();
            }
            "crate" if t(i + 1) == "::" && i.checked_sub(1).map_or("", t) != "$" => {
                names_after(&toks, i + 2, &mut out.root_refs);
                paths_after(&toks, i + 2, &[], &mut out.paths);
            }
            "super" if t(i + 1) == "::" && i.checked_sub(1).map_or("", t) != "::" => {
                // `super::super::x`: climb from this module (file and inline
                // modules); only a climb to the root names a sibling.
                let mut here: Vec<&str> = path.iter().map(String::as_str).collect();
                here.extend(braces.iter().flatten().map(String::as_str));
                let mut j = i;
                let mut ok = true;
                while t(j) == "super" && t(j + 1) == "::" {
                    ok &= here.pop().is_some();
                    j += 2;
                }
                if ok && here.is_empty() {
                    names_after(&toks, j, &mut out.root_refs);
                }
                if ok {
                    let here: Vec<String> = here.iter().map(|s| s.to_string()).collect();
                    paths_after(&toks, j, &here, &mut out.paths);
                }
            }
            // `x::..` for a module `x` this file declares (the dispatch of
            // a parent naming its children).
            name if t(i + 1) == "::"
                && i.checked_sub(1).map_or("", t) != "::"
                && out.file_mods.iter().any(|m| m == name) =>
            {
                paths_after(&toks, i, path, &mut out.paths);
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The names a path after `crate::` starts with: `x` in `crate::x::..`,
/// `a` and `b` in `crate::{a::.., b}`, `*` for a glob.
fn names_after(toks: &[Tok], start: usize, out: &mut Vec<(String, usize)>) {
    let Some(first) = toks.get(start) else {
        return;
    };
    if first.text != "{" {
        if is_ident(&first.text) || first.text == "*" {
            out.push((first.text.clone(), first.line));
        }
        return;
    }
    let close = matching(toks, start, "{", "}");
    let mut depth = 0usize;
    let mut at_item = true;
    for tok in toks.get(start + 1..close).unwrap_or(&[]) {
        match tok.text.as_str() {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            "," if depth == 0 => at_item = true,
            s if at_item && depth == 0 => {
                at_item = false;
                if s != "self" && (is_ident(s) || s == "*") {
                    out.push((s.to_string(), tok.line));
                }
            }
            _ => {}
        }
    }
}

/// The paths a path after `crate::` (or a resolved `super::`) names, each
/// from `base`: `[a, b, c]` for `a::b::c`, one per item of a group
/// (`a::{b, c::d}` gives `[a, b]` and `[a, c, d]`).
fn paths_after(toks: &[Tok], start: usize, base: &[String], out: &mut Vec<(Vec<String>, usize)>) {
    let mut path = base.to_vec();
    let mut k = start;
    let line = toks.get(start).map_or(0, |t| t.line);
    while let Some(tok) = toks.get(k) {
        if tok.text == "{" {
            let close = matching(toks, k, "{", "}");
            let mut depth = 0usize;
            let mut at_item = true;
            for j in k + 1..close {
                match toks[j].text.as_str() {
                    "{" => depth += 1,
                    "}" => depth = depth.saturating_sub(1),
                    "," if depth == 0 => at_item = true,
                    _ if at_item && depth == 0 => {
                        at_item = false;
                        paths_after(toks, j, &path, out);
                    }
                    _ => {}
                }
            }
            return;
        }
        if !is_ident(&tok.text) || tok.text == "self" {
            break;
        }
        path.push(tok.text.clone());
        if toks.get(k + 1).is_some_and(|t| t.text == "::") {
            k += 2;
        } else {
            break;
        }
    }
    out.push((path, line));
}

// ---------------------------------------------------------------------------
// The report's files: commands import no other command, and how many
// layers the files stack in.

/// The report crate, whose files are checked one by one.
const REPORT: &str = "ibdscope-report";

/// Imports from one command to another that stay for now, `(from, to)`:
/// none.
const COMMAND_IMPORTS_LATER: &[(&str, &str)] = &[];

/// The most layers the report's files may stack in (each file above
/// everything it imports): 8 when commands imported each other (13 by
/// another count), 6 once the shared pieces left `cmd/`, 7 with the
/// report's one error type below the plain pieces that give it (`args`:
/// `--page-size`).
const REPORT_MOST_LAYERS: usize = 7;

/// The report's files as modules (`cmd::lsn`, `maps`), with the modules
/// each names (the longest module a path it names starts with; the crate
/// root left out, as in the crate graph) and where first.
fn file_graph(src: &Path) -> BTreeMap<String, BTreeMap<String, At>> {
    let mut files = Vec::new();
    rust_files(src, src, &mut files);
    files.sort();
    let mut scans = Vec::new();
    let mut test_files: BTreeSet<Vec<String>> = BTreeSet::new();
    for rel in &files {
        let Some(path) = module_path(rel) else {
            continue;
        };
        let text =
            fs::read_to_string(src.join(rel)).unwrap_or_else(|e| panic!("{}: {e}", rel.display()));
        let scan = scan(&text, &path);
        for name in &scan.test_mods {
            let mut child = path.clone();
            child.push(name.clone());
            test_files.insert(child);
        }
        scans.push((rel.display().to_string(), path, scan));
    }
    scans.retain(|(_, path, scan)| {
        !path.is_empty() && !scan.test_file && !test_files.iter().any(|t| path.starts_with(t))
    });
    let modules: BTreeSet<Vec<String>> = scans.iter().map(|(_, p, _)| p.clone()).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, At>> = BTreeMap::new();
    for (file, path, scan) in &scans {
        let from = path.join("::");
        let out = graph.entry(from.clone()).or_default();
        for (named, line) in &scan.paths {
            let Some(to) = (1..=named.len())
                .rev()
                .map(|n| &named[..n])
                .find(|p| modules.contains(*p))
            else {
                continue;
            };
            let to = to.join("::");
            if to != from {
                out.entry(to).or_insert(At {
                    file: file.clone(),
                    line: *line,
                });
            }
        }
    }
    graph
}

/// The layers of a graph, bottom first, each node above every node it
/// imports; a cycle (a strongly connected component) counts as one node.
fn file_layers(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let comps = components(graph);
    let comp_of: BTreeMap<&str, usize> = comps
        .iter()
        .enumerate()
        .flat_map(|(i, c)| c.iter().map(move |m| (m.as_str(), i)))
        .collect();
    // Tarjan's algorithm gives the components bottom first.
    let mut level = vec![0usize; comps.len()];
    for (i, comp) in comps.iter().enumerate() {
        for m in comp {
            for to in graph.get(m).into_iter().flatten() {
                let j = comp_of[to.as_str()];
                if j != i {
                    level[i] = level[i].max(level[j] + 1);
                }
            }
        }
    }
    let mut layers: Vec<Vec<String>> = Vec::new();
    for (i, comp) in comps.iter().enumerate() {
        if layers.len() <= level[i] {
            layers.resize(level[i] + 1, Vec::new());
        }
        let name: Vec<String> = comp.iter().cloned().collect();
        layers[level[i]].push(name.join("+"));
    }
    for l in &mut layers {
        l.sort();
    }
    layers
}

/// The command modules of the report: `cmd::x` (the dispatch, `cmd`,
/// names them all).
fn command(module: &str) -> Option<&str> {
    module.strip_prefix("cmd::")
}

/// The imports from one command to another, but [`COMMAND_IMPORTS_LATER`].
fn command_imports(graph: &BTreeMap<String, BTreeMap<String, At>>) -> Vec<String> {
    let mut found = Vec::new();
    for (from, to) in graph {
        let Some(f) = command(from) else { continue };
        for (t, at) in to {
            let target = command(t).or((t == "cmd").then_some("the dispatch (cmd/mod.rs)"));
            let Some(target) = target else { continue };
            if COMMAND_IMPORTS_LATER.contains(&(f, target)) {
                continue;
            }
            found.push(format!("command {f} imports {target} at {at}"));
        }
    }
    found
}

#[test]
fn no_command_imports_another() {
    let src = ibdscope_testkit::root()
        .join("crates")
        .join(REPORT)
        .join("src");
    let graph = file_graph(&src);
    assert!(graph.len() > 10, "too few files under {}", src.display());
    let plain: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(k, v)| (k.clone(), v.keys().cloned().collect()))
        .collect();
    let layers = file_layers(&plain);
    println!(
        "{REPORT}: {} files in {} layers, bottom to top:",
        graph.len(),
        layers.len()
    );
    for (n, l) in layers.iter().enumerate() {
        println!("  {:2}: {}", n + 1, l.join(" "));
    }
    let found_cycles = cycles(&plain);
    for (cycle, _) in &found_cycles {
        println!("  cycle: {}", cycle.join(" -> "));
    }
    assert!(
        found_cycles.is_empty(),
        "{REPORT}: files import each other in a circle (above)"
    );
    assert!(
        layers.len() <= REPORT_MOST_LAYERS,
        "{REPORT}: {} layers, more than {REPORT_MOST_LAYERS}",
        layers.len()
    );
    for (f, t) in COMMAND_IMPORTS_LATER {
        let (f, t) = (format!("cmd::{f}"), format!("cmd::{t}"));
        assert!(
            graph.get(&f).is_some_and(|to| to.contains_key(&t)),
            "COMMAND_IMPORTS_LATER names {f} -> {t}, which is no import any more: drop it"
        );
    }
    let found = command_imports(&graph);
    assert!(
        found.is_empty(),
        "a command imports another command (what two commands share lives outside cmd/):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn a_command_importing_another_is_named() {
    let at = |line| At {
        file: "cmd/a.rs".to_string(),
        line,
    };
    let mut graph: BTreeMap<String, BTreeMap<String, At>> = BTreeMap::new();
    graph
        .entry("cmd::a".into())
        .or_default()
        .insert("cmd::b".into(), at(1));
    graph
        .entry("cmd::a".into())
        .or_default()
        .insert("cmd".into(), at(2));
    graph
        .entry("cmd::a".into())
        .or_default()
        .insert("maps".into(), at(3));
    graph
        .entry("cmd::page".into())
        .or_default()
        .insert("cmd::records".into(), at(4));
    graph
        .entry("cmd".into())
        .or_default()
        .insert("cmd::a".into(), at(5));
    assert_eq!(
        command_imports(&graph),
        [
            "command a imports the dispatch (cmd/mod.rs) at src/cmd/a.rs:2",
            "command a imports b at src/cmd/a.rs:1",
            "command page imports records at src/cmd/a.rs:4",
        ]
    );
    let plain: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(k, v)| (k.clone(), v.keys().cloned().collect()))
        .collect();
    // cmd <-> cmd::a is one node, above cmd::b and maps.
    assert_eq!(file_layers(&plain).len(), 2);
}

#[test]
fn paths_are_read_whole() {
    let src =
        "mod m;\nuse crate::cmd::{self, a::X, b::{c, d::Y}};\nfn f() { super::e::g(); m::h(); }\n";
    let s = scan(src, &["x".to_string(), "y".to_string()]);
    let paths: Vec<String> = s.paths.iter().map(|(p, _)| p.join("::")).collect();
    assert_eq!(
        paths,
        [
            "cmd",
            "cmd::a::X",
            "cmd::b::c",
            "cmd::b::d::Y",
            "x::e::g",
            "x::y::m::h"
        ]
    );
}

// ---------------------------------------------------------------------------
// Cycles.

/// One cycle per strongly connected component of more than one node, as
/// `a -> b -> .. -> a` (the shortest through the component's first node),
/// with the component.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<(Vec<String>, BTreeSet<String>)> {
    let mut out = Vec::new();
    for comp in components(graph) {
        if comp.len() < 2 {
            continue;
        }
        let start = comp.iter().next().expect("non-empty").clone();
        // Breadth first from start's successors back to start, inside comp.
        let mut prev: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = VecDeque::from([start.clone()]);
        'search: while let Some(n) = queue.pop_front() {
            for m in graph.get(&n).into_iter().flatten() {
                if !comp.contains(m) {
                    continue;
                }
                if *m == start {
                    prev.insert(start.clone(), n.clone());
                    break 'search;
                }
                if !prev.contains_key(m) {
                    prev.insert(m.clone(), n.clone());
                    queue.push_back(m.clone());
                }
            }
        }
        let mut cycle = vec![start.clone()];
        let mut n = prev[&start].clone();
        while n != start {
            cycle.push(n.clone());
            n = prev[&n].clone();
        }
        cycle.push(start);
        cycle.reverse();
        out.push((cycle, comp));
    }
    out
}

/// The strongly connected components (Tarjan's algorithm).
fn components(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(st: &mut State<'a>, v: &'a str) {
        let n = st.index.len();
        st.index.insert(v, n);
        st.low.insert(v, n);
        st.stack.push(v);
        st.on_stack.insert(v);
        for w in st.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !st.index.contains_key(w) {
                visit(st, w);
                let lw = st.low[w];
                let lv = st.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if st.on_stack.contains(w) {
                let iw = st.index[w];
                let lv = st.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if st.low[v] == st.index[v] {
            let mut comp = BTreeSet::new();
            while let Some(w) = st.stack.pop() {
                st.on_stack.remove(w);
                comp.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            st.out.push(comp);
        }
    }
    let mut st = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !st.index.contains_key(v.as_str()) {
            visit(&mut st, v);
        }
    }
    st.out
}

// ---------------------------------------------------------------------------
// The reader itself.

#[test]
fn reader_sees_code_only() {
    let src = r##"
//! crate::doc_comment is no import
use crate::a::{X, Y};
use crate::{b::Z, c::{self, W}, Root};
const BRACE: char = '{';
const S: &str = "crate::in_string {";
const R: &str = r#"crate::in_raw " {"#;
/* crate::in /* nested */ comment { */
fn f<'a>(x: &'a str) -> usize { crate::d::g(x); $crate::macro_path; 0 }
#[cfg(test)]
#[allow(clippy::all)]
mod tests {
    use crate::test_only;
    fn h() { let _ = '}'; crate::test_too::x(); }
}
#[cfg(test)]
use crate::test_item;
#[cfg(test)]
mod test_file;
mod inner {
    use super::super::up_two;
    use super::e::Q;
}
pub(crate) fn k() { super::f_parent(); }
"##;
    let got = scan(src, &["m".to_string()]);
    let names: Vec<&str> = got.root_refs.iter().map(|(n, _)| n.as_str()).collect();
    // `super::super::up_two` from m::inner is the root's; `super::e` from
    // m::inner is m's own; `super::f_parent` from m is the root's.
    assert_eq!(names, ["a", "b", "c", "Root", "d", "up_two", "f_parent"]);
    assert_eq!(got.test_mods, ["test_file"]);
    assert_eq!(got.inline_mods, ["inner"]);
    assert!(!got.test_file);

    let test_only = scan("#![cfg(test)]\nuse crate::x;\n", &[]);
    assert!(test_only.test_file && test_only.root_refs.is_empty());
}

#[test]
fn cycles_are_named() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", &["b"][..]),
        ("b", &["c"]),
        ("c", &["a", "d"]),
        ("d", &[]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
    .collect();
    let found: Vec<Vec<String>> = cycles(&graph).into_iter().map(|(c, _)| c).collect();
    assert_eq!(found, [["a", "b", "c", "a"]]);
}
