//! The public surface of each library crate, counted from the sources (std
//! only, no parser crate), and held under a ceiling: a crate's surface may
//! shrink, it grows only by raising its ceiling here, in the same commit
//! as the change that needs it (and ARCHITECTURE.md's table with it).
//!
//! What counts, reading from `src/lib.rs` down the `mod` declarations:
//!
//! - a module is *reachable* when it and every module above it is declared
//!   `pub` (not `pub(crate)`, `pub(super)`, `pub(in ..)`) and not
//!   `#[doc(hidden)]`; the crate root is reachable;
//! - **modules**: reachable modules other than the root;
//! - **items**: `pub` `fn`, `struct`, `enum`, `trait`, `const`, `static`,
//!   `type`, `union` at the top level of a reachable module;
//! - **methods**: `pub` `fn`, `const`, `type` of inherent `impl` blocks
//!   (any module) whose type is public: declared `pub` in a reachable
//!   module, or re-exported (trait impls add no name);
//! - **re-exports**: each name a `pub use` in a reachable module makes
//!   (`a::{b, c as d}` is two, a glob is one).
//!
//! The table also gives, apart from the total, the public type names
//! ending in `Error` (declared in a reachable module or re-exported,
//! each name once): the crate's error types, of which each crate has at
//! most one (its kinds are variants of its `ErrorKind`, not types of
//! their own).
//!
//! Items under `#[cfg(test)]` (a test module, a test file) are not read.
//! Enum variants and fields are not counted. The total is the sum of the
//! four. Run with `--nocapture` to see the table.
#![allow(clippy::disallowed_macros)] // Prints the counts.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use ibdscope_testkit::source::{blank, is_cfg_test, is_ident, matching, tokens, Tok};

/// The ceiling of each library crate's total (before the surface was cut,
/// at `cc64abd`: core 766, forensics 219, render 82, report 108, schema
/// 322). A crate under `crates/` with a `src/lib.rs` and no row here is
/// counted and printed, not checked.
const CEILINGS: &[(&str, usize)] = &[
    // +1 for `space::tsv_escape_tail` (TSV escaping in place); +1 for
    // `host::Error` (the error a `Host` returns, named where the report's
    // own `Error` took the root's name).
    // +2 for `Analysis::reading_roots_only` and `host::UNSWEPT_BYTES`.
    // +1 for `Analysis::listing_pages` (`pages` in one pass).
    // +10 for a carved image's source map (`sources`: `Sources`, its
    // `map` and `locate`, `read`, `Space::sources`, and the forensics'
    // four map types re-exported).
    ("ibdscope", 195),
    // +7 for the output a decoder writes into (`Output`; `PageOut`, reused
    // from page to page without zero-filling, and its `new`, `bytes`,
    // `clear`, `with_vec`, `allocation`).
    ("ibdscope-codec", 30),
    // 591 before the page source (+3: `Tablespace::page_ref`, `PageRef`,
    // `RecPage::read`), what the audit asks of the one summary pass
    // (+10: `SummaryAsks`, `LsnSpan`, `NewerThan`, the links kept,
    // `SpaceMap::build_folding`) and the B-trees folded in the map's
    // second pass with the summary in its first (+2:
    // `SpaceMap::build_with_trees`, `Tablespace::reads_as_stored`); one
    // error type instead of six (-1); the image builders gone (-2); the
    // window a host watches the reads through (+5: the `window` module,
    // `Window`, `Window::new`, `Residency`, `Tablespace::with_window`); a
    // page's type and fill from what the transform pass kept (+1:
    // `Tablespace::type_and_fill`, now `SpaceMap::type_and_fill`: the
    // heads the map's own first pass kept too); a map without the pages'
    // facts and the size of file the window never sweeps (+2:
    // `SpaceMap::build_without_facts`, `window::UNSWEPT_BYTES`); `pages`
    // in one read of each page after the summary's pass (+2:
    // `parallel::map_pages_in_order`, `Summary::facts_of`).
    // The decoders' reused page buffer and whether two spaces read alike
    // (+2: `pagecomp::PageOut`, `Tablespace::reads_like`).
    // `pages` in one pass, its rows kept by the summary's (+3:
    // `SummaryAsks::listing`, `Summary::listed`, `summary::Listed`).
    // The space map's root rule for a definition that finds no root in the
    // map (+1: `extents::root_candidate`).
    ("ibdscope-core", 620),
    // +23 for `carve` (the scan, its page facts, the grouping into
    // spaces and indexes, page 0 synthesized); +1: `CarvedSpace::page0_synthesized`
    // (an index gathered gets its own page 0). +12 for the source map
    // of a carved image (`SourceMap`, `PageSource`, `Stored`,
    // `SourcesFinding`, `SourcesProblem`; `SourceMap::{of, to_text, parse,
    // fits, page, locate}`, `PageSource::offset_of`).
    ("ibdscope-forensics", 251),
    ("ibdscope-prims", 58),
    // +1: the undo pages' colour (`UNDO_ANSI`), with the maps' others;
    // +1: an index's segment-page tint (`SEGMENT_TINT`, once for the
    // terminal, picture and browser maps); +2: a map cell's colour
    // (`picture::cell_color`, `HeatScale::color_at`: the one rule the files
    // are drawn by and `serve`'s maps are sent).
    ("ibdscope-render", 86),
    // +6 for its own error (`Error`, `ErrorKind`, `Place`, and `kind`,
    // `place`, `page`, `file_offset`) in place of the front door's.
    // +3: commands over a space kept open for `serve` (the `held`
    // module, `hold`, `Ask`); +1 for `args::CarveOpts` (`carve`'s options);
    // +1: `out::picture_json` (a map's picture as JSON, for `serve`).
    ("ibdscope-report", 53),
    // The web explorer: `Server` (`bind`, `url`, `port`, `run`,
    // `stopper`), `Limits`, `Bounds`.
    ("ibdscope-serve", 8),
    // +2 for `rows::RowView` and its `render` (rows rendered from the page);
    // +5 for the printers' fast path (`value::Plain`, `Plain::of`,
    // `PlainOut`, `render_plain`, `RowView::inline_bytes`); +13 for `infer`
    // (a definition inferred from the records); +1: `infer::complete_from_records`
    // (a dictionary definition's DECIMAL scale from the records).
    ("ibdscope-schema", 298),
];

/// Crates not counted: test support, not a library anyone embeds.
const NOT_COUNTED: &[&str] = &["ibdscope-testkit"];

#[test]
fn public_surface_stays_under_its_ceiling() {
    let crates_dir = ibdscope_testkit::root().join("crates");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&crates_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", crates_dir.display()))
        .map(|e| e.expect("crates/ entry").path())
        .filter(|p| p.join("src/lib.rs").is_file())
        .collect();
    dirs.sort();
    for (name, _) in CEILINGS {
        assert!(
            dirs.iter().any(|d| package_name(d) == *name),
            "CEILINGS names {name}, which is no library crate under crates/"
        );
    }
    let mut failures = Vec::new();
    println!(
        "{:<22} {:>7} {:>6} {:>7} {:>10} {:>6} {:>8} {:>6}",
        "crate", "modules", "items", "methods", "re-exports", "total", "ceiling", "errors"
    );
    for dir in &dirs {
        let name = package_name(dir);
        if NOT_COUNTED.contains(&name.as_str()) {
            continue;
        }
        let c = count_crate(&dir.join("src"));
        let ceiling = CEILINGS.iter().find(|(n, _)| *n == name).map(|&(_, c)| c);
        println!(
            "{:<22} {:>7} {:>6} {:>7} {:>10} {:>6} {:>8} {:>6}",
            name,
            c.modules,
            c.items,
            c.methods,
            c.reexports,
            c.total(),
            ceiling.map_or("-".to_string(), |c| c.to_string()),
            c.errors
        );
        if c.errors > 1 {
            failures.push(format!(
                "{name}: {} public error types, more than one",
                c.errors
            ));
        }
        if let Some(ceiling) = ceiling {
            if c.total() > ceiling {
                failures.push(format!(
                    "{name}: {} public items, above its ceiling of {ceiling}",
                    c.total()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The crates that print (the report and the binary) keep their errors as
/// typed values too: one error type each, declared in the crate (a type
/// whose name ends in `Error`; the report's is also counted above), and no
/// `Result<_, String>` anywhere outside their tests: a failure carries
/// its kind and place, and is put into words where it is printed.
#[test]
fn the_printing_crates_have_one_error_type_and_no_string_errors() {
    let crates_dir = ibdscope_testkit::root().join("crates");
    let mut failures = Vec::new();
    for name in ["ibdscope-report", "ibdscope-cli"] {
        let src = crates_dir.join(name).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        assert!(!files.is_empty(), "{}: no sources", src.display());
        let mut errors = BTreeSet::new();
        for path in &files {
            let text =
                fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let toks = outside_tests(tokens(&blank(&text)));
            let t = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
            for i in 0..toks.len() {
                if matches!(t(i), "struct" | "enum" | "type") && t(i + 1).ends_with("Error") {
                    errors.insert(t(i + 1).to_string());
                }
                if t(i) == "Result" && t(i + 1) == "<" {
                    if let Some(err) = second_argument(&toks, i + 1) {
                        if err == ["String"] {
                            failures.push(format!(
                                "{}:{}: Result<_, String>",
                                path.display(),
                                toks[i].line
                            ));
                        }
                    }
                }
            }
        }
        println!("{name}: error types {errors:?}");
        if errors.len() > 1 {
            failures.push(format!("{name}: {} error types: {errors:?}", errors.len()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The tokens without the items under `#[cfg(test)]` (nothing of a file
/// that starts `#![cfg(test)]`).
fn outside_tests(toks: Vec<Tok>) -> Vec<Tok> {
    let t = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
    let mut kept = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if t(i) == "#" && (t(i + 1) == "[" || (t(i + 1) == "!" && t(i + 2) == "[")) {
            let inner = t(i + 1) == "!";
            let open = if inner { i + 2 } else { i + 1 };
            let close = matching(&toks, open, "[", "]");
            let body: Vec<&str> = (open + 1..close).map(t).collect();
            if is_cfg_test(&body) {
                if inner {
                    return Vec::new();
                }
                // The item: to its body's end, or its `;`.
                let mut j = close + 1;
                while j < toks.len() && t(j) != "{" && t(j) != ";" {
                    j += 1;
                }
                i = if t(j) == "{" {
                    matching(&toks, j, "{", "}") + 1
                } else {
                    j + 1
                };
                continue;
            }
        }
        kept.push(toks[i].clone());
        i += 1;
    }
    kept
}

/// The tokens of the second generic argument of the `<` at `open`, when
/// there are two.
fn second_argument(toks: &[Tok], open: usize) -> Option<Vec<&str>> {
    let mut depth = 0usize;
    let mut second: Option<Vec<&str>> = None;
    for tok in toks.get(open..)? {
        let s = tok.text.as_str();
        match s {
            "<" | "(" | "[" => depth += 1,
            ">" | ")" | "]" => {
                depth -= 1;
                if depth == 0 {
                    return second;
                }
            }
            "," if depth == 1 => {
                second = Some(Vec::new());
                continue;
            }
            _ => {}
        }
        if depth >= 1 && !(depth == 1 && matches!(s, "<" | "(" | "[")) {
            if let Some(v) = second.as_mut() {
                v.push(s);
            }
        }
    }
    None
}

#[test]
fn string_errors_are_found_outside_tests_only() {
    let src = "fn a() -> Result<u32, String> { Ok(1) }\n\
               fn b() -> Result<Vec<(u8, u8)>, Error> { Ok(Vec::new()) }\n\
               #[cfg(test)]\nmod tests { fn c() -> Result<(), String> { Ok(()) } }\n";
    let toks = outside_tests(tokens(&blank(src)));
    let found: Vec<Vec<&str>> = (0..toks.len())
        .filter(|&i| toks[i].text == "Result" && toks.get(i + 1).is_some_and(|t| t.text == "<"))
        .filter_map(|i| second_argument(&toks, i + 1))
        .collect();
    assert_eq!(found, [vec!["String"], vec!["Error"]]);
}

fn package_name(dir: &Path) -> String {
    let path = dir.join("Cargo.toml");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "name").then(|| v.trim().trim_matches('"').to_string())
        })
        .unwrap_or_else(|| panic!("{}: no package name", path.display()))
}

/// A crate's surface, by kind.
#[derive(Debug, Default, PartialEq)]
struct Count {
    modules: usize,
    items: usize,
    methods: usize,
    reexports: usize,
    /// Public type names ending in `Error` (not in the total).
    errors: usize,
}

impl Count {
    fn total(&self) -> usize {
        self.modules + self.items + self.methods + self.reexports
    }
}

/// What one module declares.
#[derive(Debug, Default)]
struct Module {
    reachable: bool,
    /// Public items at its top level (modules aside).
    items: usize,
    /// Public type names declared at its top level.
    types: Vec<String>,
    /// Names made by `pub use`, each with the name it was defined as.
    reexports: Vec<(String, String)>,
    /// Inherent impls: the type's name and its public members.
    impls: Vec<(String, usize)>,
    /// Reachable child modules declared here.
    pub_mods: usize,
}

fn count_crate(src: &Path) -> Count {
    let mut modules = Vec::new();
    read_file(&src.join("lib.rs"), src, true, &mut modules);
    count_modules(&modules)
}

fn count_modules(modules: &[Module]) -> Count {
    let mut public_types: BTreeSet<&str> = BTreeSet::new();
    let mut c = Count::default();
    for m in modules.iter().filter(|m| m.reachable) {
        c.modules += m.pub_mods;
        c.items += m.items;
        c.reexports += m.reexports.len();
        public_types.extend(m.types.iter().map(String::as_str));
        public_types.extend(m.reexports.iter().map(|(orig, _)| orig.as_str()));
    }
    c.methods = modules
        .iter()
        .flat_map(|m| &m.impls)
        .filter(|(ty, _)| public_types.contains(ty.as_str()))
        .map(|(_, n)| n)
        .sum();
    c.errors = public_types.iter().filter(|t| t.ends_with("Error")).count();
    c
}

/// Reads one module file (`dir` is where its child modules' files are).
fn read_file(path: &Path, dir: &Path, reachable: bool, out: &mut Vec<Module>) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let toks = tokens(&blank(&text));
    read_module(&toks, dir, reachable, out);
}

/// Reads the items of one module's tokens.
fn read_module(toks: &[Tok], dir: &Path, reachable: bool, out: &mut Vec<Module>) {
    let me = out.len();
    out.push(Module {
        reachable,
        ..Module::default()
    });
    let t = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
    let mut i = 0;
    let mut test = false;
    let mut hidden = false;
    while i < toks.len() {
        // Attributes.
        if t(i) == "#" && (t(i + 1) == "[" || (t(i + 1) == "!" && t(i + 2) == "[")) {
            let inner = t(i + 1) == "!";
            let open = if inner { i + 2 } else { i + 1 };
            let close = matching(toks, open, "[", "]");
            let body: Vec<&str> = (open + 1..close).map(t).collect();
            if is_cfg_test(&body) {
                if inner {
                    return; // A test file.
                }
                test = true;
            }
            if body.windows(3).any(|w| w == ["doc", "(", "hidden"]) {
                hidden = true;
            }
            i = close + 1;
            continue;
        }
        let (public, next) = visibility(toks, i);
        i = next;
        let kw = t(i);
        let counted = public && !test && !hidden;
        match kw {
            "mod" if is_ident(t(i + 1)) => {
                let name = t(i + 1).to_string();
                let child_reachable = reachable && counted;
                if child_reachable {
                    out[me].pub_mods += 1;
                }
                if t(i + 2) == "{" {
                    let close = matching(toks, i + 2, "{", "}");
                    if !test {
                        let inner = toks.get(i + 3..close).unwrap_or(&[]);
                        read_module(inner, &dir.join(&name), child_reachable, out);
                    }
                    i = close + 1;
                } else {
                    if !test {
                        let file = dir.join(format!("{name}.rs"));
                        let (file, child_dir) = if file.is_file() {
                            (file, dir.join(&name))
                        } else {
                            (dir.join(&name).join("mod.rs"), dir.join(&name))
                        };
                        read_file(&file, &child_dir, child_reachable, out);
                    }
                    i += 3;
                }
            }
            "use" => {
                let end = item_end(toks, i);
                if counted && reachable {
                    let names = use_names(toks.get(i + 1..end).unwrap_or(&[]));
                    out[me].reexports.extend(names);
                }
                i = end + 1;
            }
            "impl" => {
                let open = header_end(toks, i);
                let close = if t(open) == "{" {
                    matching(toks, open, "{", "}")
                } else {
                    open
                };
                if !test {
                    if let Some(ty) = inherent_type(toks.get(i + 1..open).unwrap_or(&[])) {
                        let members = public_members(toks.get(open + 1..close).unwrap_or(&[]));
                        out[me].impls.push((ty, members));
                    }
                }
                i = close + 1;
            }
            "fn" | "struct" | "enum" | "trait" | "const" | "static" | "type" | "union"
                if is_ident(t(i + 1)) || t(i + 1) == "mut" =>
            {
                if counted && reachable {
                    out[me].items += 1;
                    if matches!(kw, "struct" | "enum" | "trait" | "type" | "union") {
                        out[me].types.push(t(i + 1).to_string());
                    }
                }
                i = item_end(toks, i) + 1;
            }
            "macro_rules" => i = item_end(toks, i) + 1,
            _ if is_ident(kw) && t(i + 1) == "!" => i = item_end(toks, i) + 1,
            _ => i += 1,
        }
        test = false;
        hidden = false;
    }
}

/// Whether the item at `i` is `pub` (bare: not `pub(..)`), and the index
/// of its keyword past the visibility and `unsafe`, `async`, `extern`,
/// `default`.
fn visibility(toks: &[Tok], mut i: usize) -> (bool, usize) {
    let t = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
    let mut public = false;
    if t(i) == "pub" {
        if t(i + 1) == "(" {
            i = matching(toks, i + 1, "(", ")") + 1;
        } else {
            public = true;
            i += 1;
        }
    }
    while matches!(t(i), "unsafe" | "async" | "extern" | "default") {
        i += 1;
    }
    (public, i)
}

/// The index of the token ending the item starting at `start`: its `;` or
/// its body's closing `}` (at bracket depth 0).
fn item_end(toks: &[Tok], start: usize) -> usize {
    let mut depth = 0usize;
    let mut k = start;
    while let Some(tok) = toks.get(k) {
        match tok.text.as_str() {
            "(" | "[" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            ";" if depth == 0 => return k,
            "{" if depth == 0 => {
                let close = matching(toks, k, "{", "}");
                // `struct S { .. }`, a fn body, `const X: T = T { .. };`.
                return if toks.get(close + 1).is_some_and(|t| t.text == ";") {
                    close + 1
                } else {
                    close
                };
            }
            "{" => {
                k = matching(toks, k, "{", "}");
            }
            _ => {}
        }
        k += 1;
    }
    toks.len()
}

/// The index of the `{` opening an `impl`'s body (or its `;`).
fn header_end(toks: &[Tok], start: usize) -> usize {
    toks.iter()
        .enumerate()
        .skip(start)
        .find(|(_, t)| t.text == "{" || t.text == ";")
        .map_or(toks.len(), |(k, _)| k)
}

/// The type of an inherent impl's header (after `impl`), or `None` for a
/// trait impl.
fn inherent_type(header: &[Tok]) -> Option<String> {
    let mut k = 0;
    // Generic parameters: `<..>` right after `impl`.
    if header.first().is_some_and(|t| t.text == "<") {
        let mut depth = 0usize;
        for (j, t) in header.iter().enumerate() {
            match t.text.as_str() {
                "<" => depth += 1,
                ">" => {
                    depth -= 1;
                    if depth == 0 {
                        k = j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let rest = header.get(k..).unwrap_or(&[]);
    if rest.iter().any(|t| t.text == "for") {
        return None;
    }
    // The path's last segment before its own generics or a `where`.
    let mut name = None;
    for t in rest {
        match t.text.as_str() {
            "<" | "where" => break,
            "::" | "&" | "'" | "mut" | "dyn" => {}
            s if is_ident(s) => name = Some(s.to_string()),
            _ => {}
        }
    }
    name
}

/// Public (bare `pub`) `fn`, `const` and `type` members of an impl body,
/// test members aside.
fn public_members(body: &[Tok]) -> usize {
    let t = |i: usize| body.get(i).map_or("", |t| t.text.as_str());
    let mut n = 0;
    let mut i = 0;
    let mut test = false;
    while i < body.len() {
        if t(i) == "#" && t(i + 1) == "[" {
            let close = matching(body, i + 1, "[", "]");
            let attr: Vec<&str> = (i + 2..close).map(t).collect();
            test |= is_cfg_test(&attr) || attr.windows(3).any(|w| w == ["doc", "(", "hidden"]);
            i = close + 1;
            continue;
        }
        let (public, next) = visibility(body, i);
        i = next;
        if matches!(t(i), "fn" | "const" | "type") && is_ident(t(i + 1)) {
            if public && !test {
                n += 1;
            }
            i = item_end(body, i) + 1;
        } else {
            i += 1;
        }
        test = false;
    }
    n
}

/// The names a `use` tree (after `use`, before `;`) makes, each with the
/// name it had: each leaf's last segment, or its `as` name; `self` is the
/// module it names; a glob `*`.
fn use_names(tree: &[Tok]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // The segment before each open brace, for `self` inside it.
    let mut stack: Vec<String> = Vec::new();
    let mut last = String::new();
    let mut orig = String::new();
    let mut i = 0;
    let leaf = |out: &mut Vec<(String, String)>, orig: &str, last: &str, stack: &[String]| {
        let orig = if orig.is_empty() { last } else { orig };
        let orig = if orig == "self" {
            stack.last().map_or("", String::as_str)
        } else {
            orig
        };
        let name = if last == "self" { orig } else { last };
        if !name.is_empty() {
            out.push((orig.to_string(), name.to_string()));
        }
    };
    while let Some(tok) = tree.get(i) {
        match tok.text.as_str() {
            "{" => {
                stack.push(std::mem::take(&mut last));
            }
            "}" => {
                leaf(&mut out, &orig, &last, &stack);
                last.clear();
                orig.clear();
                stack.pop();
            }
            "," => {
                leaf(&mut out, &orig, &last, &stack);
                last.clear();
                orig.clear();
            }
            "as" => {
                orig = std::mem::take(&mut last);
                last = tree.get(i + 1).map_or(String::new(), |t| t.text.clone());
                i += 1;
            }
            "::" => {}
            s if is_ident(s) || s == "*" => last = s.to_string(),
            _ => {}
        }
        i += 1;
    }
    leaf(&mut out, &orig, &last, &stack);
    out
}

#[test]
fn the_count_reads_what_rust_exports() {
    let src = r##"
//! pub fn in_doc() {}
pub mod open {
    pub fn a() {}
    pub(crate) fn b() {}
    fn c() {}
    pub struct S { pub x: u8 }
    pub const N: [u8; 2] = [0; 2];
    pub struct T(pub u8);
    impl S {
        pub fn new() -> Self { S { x: 0 } }
        pub(crate) fn inner(&self) {}
        pub const K: u8 = 1;
    }
    impl Default for S { fn default() -> Self { S::new() } }
    #[cfg(test)]
    mod tests { pub fn t() {} }
}
mod closed {
    pub struct Hidden;
    impl Hidden { pub fn h() {} }
    pub struct Shown;
    impl<'a> Shown { pub fn s(&self) {} pub fn s2() {} }
    pub fn f() {}
}
#[doc(hidden)]
pub mod testing { pub fn t() {} }
pub use closed::{f, Shown as Seen, self};
pub(crate) use closed::Hidden;
"##;
    let toks = tokens(&blank(src));
    let mut modules = Vec::new();
    read_module(&toks, Path::new("/nonexistent"), true, &mut modules);
    let c = count_modules(&modules);
    // The module `open`; a, S, N, T; S::new, S::K, Shown::s, Shown::s2
    // (re-exported as `Seen`); f, Seen, closed. Not `Hidden` (re-exported
    // within the crate only), not `testing` (hidden), not the tests.
    assert_eq!(
        c,
        Count {
            modules: 1,
            items: 4,
            methods: 4,
            reexports: 3,
            errors: 0,
        }
    );
}
