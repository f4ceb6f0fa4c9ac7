// ibdscope serve: the browser side. Every value shown comes from the JSON
// endpoints, which print what the commands print; the maps' colours are
// the pictures' (`/map/M`: what `--out` draws, cell for cell).
"use strict";
const TOKEN = new URLSearchParams(location.search).get("t") || "";
const view = document.getElementById("view");
const where = document.getElementById("where");
const tip = document.getElementById("tip");
let palette = null;
// Requests under way: a view is complete when its route has resolved and
// none is left (what the browser tests wait for).
let pending = 0;

function api(path, params) {
  return apiQ(path, new URLSearchParams(params || {}));
}
function apiQ(path, q) {
  q.set("t", TOKEN);
  pending++;
  return fetch(path + "?" + q.toString()).then(async r => {
    if (!r.ok) throw new Error(path + ": " + r.status);
    const text = await r.text();
    try { return JSON.parse(text); } catch (e) {
      // A command that stopped part way: say so, with its outcome.
      throw new Error(path + ": the answer stops part way (" + (r.headers.get("X-Ibdscope-Outcome") || "?") + ", " + text.length + " bytes)");
    }
  }).finally(() => { pending--; });
}
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : String(k));
  return e;
}
function link(text, hash) { return el("a", { href: hash }, text); }
function fmtBytes(n) {
  const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + " " + u[i];
}

// ---- overview --------------------------------------------------------
function overview() {
  where.textContent = "";
  return api("/api/files").then(d => {
    const t = el("table", { id: "files" }, el("tr", {}, ...["", "#", "file", "verdict", "vendor", "format",
      "page size", "size", "pages", "damaged", "indexes", ""].map(h => el("th", {}, h))));
    const members = new Map();
    for (const f of d.files) if (f.kind === "member") {
      if (!members.has(f.datadir)) members.set(f.datadir, []);
      members.get(f.datadir).push(f);
    }
    for (const f of d.files) {
      if (f.kind === "member") continue;
      const r = f.report || {};
      const size = r.pages && r.physical_page_size ? fmtBytes(r.pages * r.physical_page_size) : "";
      const pick = f.kind === "file" ? el("input", { type: "checkbox", class: "pick", value: f.index }) : "";
      const nIdx = el("td", { id: "indexes-" + f.index }, f.kind === "file" ? "…" : "");
      const dd = f.kind === "datadir" ? (members.get(f.index) || []) : [];
      t.append(el("tr", { id: "file-" + f.index },
        el("td", {}, pick),
        el("td", {}, f.index),
        el("td", {}, r.file || (r.datadirs && r.datadirs[0] ? r.datadirs[0].path + " (datadir, " + r.summary.files + " files)" : "")),
        el("td", { class: f.outcome }, f.outcome + (r.error ? ": " + r.error : "")),
        el("td", {}, r.vendor || ""), el("td", {}, r.format || ""),
        el("td", {}, r.page_size || ""), el("td", {}, size), el("td", {}, r.pages || ""),
        el("td", {}, r.damaged_pages ?? (r.summary ? r.summary.damaged : "")),
        nIdx,
        el("td", {}, ...(f.kind === "file" ? [link("map", "#map/" + f.index), " ", link("levels", "#levels/" + f.index),
          " ", link("rows", "#rows/" + f.index)] : [link("audit", "#datadir/" + f.index), " (" + dd.length + " tablespaces)"]))));
      // The index count, from `indexes` (its B-trees: asked after the
      // table is shown, so the overview does not wait for them).
      if (f.kind === "file" && f.outcome !== "unreadable") {
        api("/api/file/" + f.index + "/indexes").then(x => { nIdx.textContent = (x.indexes || []).length; })
          .catch(() => { nIdx.textContent = "-"; });
      } else if (f.kind === "file") nIdx.textContent = "-";
    }
    const picked = () => [...t.querySelectorAll("input.pick:checked")].map(i => i.value);
    const cmp = el("button", { id: "compare" }, "compare the files ticked");
    const dif = el("button", { id: "diff" }, "diff the two files ticked");
    cmp.addEventListener("click", () => { const p = picked(); if (p.length >= 2) location.hash = "#compare/" + p.join(","); });
    dif.addEventListener("click", () => { const p = picked(); if (p.length === 2) location.hash = "#diff/" + p.join("/"); });
    view.replaceChildren(el("h2", {}, "Files"), t, el("p", { class: "controls" }, cmp, " ", dif));
  });
}
function fail(e) { view.replaceChildren(el("p", { class: "findings" }, String(e))); }

// ---- map ---------------------------------------------------------------
// The maps draw the picture `extents`, `lsn` or `fill --out` draws of the
// file (`/map/M`, one page a cell; compare: `compare --metric M --out`):
// each cell's colour as the render crate colours it, the legend's classes
// and the colour scale. No colour is computed here.
const METRICS = ["extents", "lsn", "fill"];
function legend(pic) {
  const item = (c, t) => el("span", {}, el("i", { "data-c": c }), t);
  const parts = (pic.legend || []).map(l => item(l.color, l.label));
  if (pic.scale) {
    const s = pic.scale;
    const bar = el("span", { class: "scale", id: "scale" }, ...s.colors.map(c => el("i", { "data-c": c })));
    parts.push(el("div", { class: "scale-row" }, s.title, el("br"), el("b", { class: "lo" }, s.lo_label), " ", bar, " ",
      el("b", { class: "hi" }, s.hi_label)));
  }
  const l = el("div", { class: "legend", id: "legend" }, ...parts);
  // Colours set through the CSSOM (the policy allows no inline style attribute).
  l.querySelectorAll("i").forEach(i => { i.style.background = i.getAttribute("data-c"); });
  return l;
}
async function loadPages(file, total) {
  const per = palette.pages_per_request; let all = [];
  for (let from = 0; from < total; from += per) {
    const d = await api("/api/file/" + file + "/pages", { from, to: Math.min(total, from + per) - 1 });
    all = all.concat(d.pages || []);
  }
  return all;
}
// A map of one picture panel (`state.panel()`, 64 cells a row) on a
// canvas: each cell in the colour the picture gives it (a blank one in the
// row slot's), hover names the cell's first page (from `pages`, the
// `pages` JSON by page), a click opens it; `mark` (page -> colour)
// overrides a cell.
function mapCanvas(file, pages, state, mark) {
  const cols = 64;
  const canvas = el("canvas", { id: state.id || "map", class: "map" });
  const pageOf = i => { const g = state.panel(); return g.first_page + i * g.pages_per_cell; };
  function draw() {
    const cell = state.cell, g = state.panel(), slot = state.slot();
    const rows = Math.ceil(g.cells.length / cols);
    canvas.width = cols * cell; canvas.height = Math.max(1, rows) * cell;
    const c2d = canvas.getContext("2d");
    c2d.fillStyle = "#ffffff"; c2d.fillRect(0, 0, canvas.width, canvas.height);
    const side = Math.max(1, cell - (cell > 4 ? 1 : 0)), drawn = [];
    g.cells.forEach((c, i) => {
      const m = mark && mark.get(pageOf(i));
      drawn.push(m || c || "");
      c2d.fillStyle = m || c || slot;
      c2d.fillRect((i % cols) * cell, Math.floor(i / cols) * cell, side, side);
    });
    // The colour of each cell as drawn ("": blank), for tests and for a
    // person to read, and the map drawn.
    canvas.setAttribute("data-cells", drawn.join(","));
    canvas.setAttribute("data-mode", state.mode);
  }
  function at(ev) {
    // Inside the border: the cells start at the canvas's content box.
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left - canvas.clientLeft, y = ev.clientY - r.top - canvas.clientTop;
    if (x < 0 || y < 0 || x >= cols * state.cell) return undefined;
    const i = Math.floor(y / state.cell) * cols + Math.floor(x / state.cell);
    return i < state.panel().cells.length ? pages.get(pageOf(i)) : undefined;
  }
  canvas.addEventListener("mousemove", ev => {
    const p = at(ev);
    if (!p) { tip.hidden = true; return; }
    tip.textContent = "page " + p.page + "\ntype " + p.type + "\nindex " + (p.index_name ?? p.index_id ?? "-") +
      "\nlevel " + (p.level ?? "-") + "\nfill " + (p.fill ?? "-") + "\nLSN " + p.lsn + "\nverdict " + p.verdict;
    tip.style.left = (ev.clientX + 14) + "px"; tip.style.top = (ev.clientY + 14) + "px"; tip.hidden = false;
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  canvas.addEventListener("click", ev => { const p = at(ev); if (p) location.hash = "#page/" + file + "/" + p.page; });
  draw();
  return { canvas, draw };
}
function byPage(pages) { return new Map(pages.map(p => [p.page, p])); }
async function fileInfo(file) {
  const files = await api("/api/files");
  return (files.files[file] || {}).report || {};
}
// A mode selector: the pictures fetched once each, `show` called with
// the mode chosen and its picture.
function modeSelect(modes, first, fetch, show) {
  const pics = {};
  const get = m => pics[m] || (pics[m] = fetch(m));
  const sel = el("select", { id: "mode" }, ...modes.map(m => el("option", { value: m }, m)));
  sel.value = first;
  sel.addEventListener("change", () => {
    const mode = sel.value;
    get(mode).then(pic => { if (sel.value === mode) show(mode, pic); }).catch(fail);
  });
  return { sel, get };
}
async function mapView(file, mode) {
  where.textContent = "map of file " + file;
  view.replaceChildren(el("p", {}, "Reading pages…"));
  const info = await fileInfo(file);
  const first = METRICS.includes(mode) ? mode : "extents";
  const picture = m => api("/api/file/" + file + "/map/" + m);
  const modes = modeSelect(METRICS, first, picture, (m, pic) => {
    state.mode = m; state.pic = pic; redraw();
    history.replaceState(null, "", location.search + "#map/" + file + "/" + m);
  });
  const [pages, pic] = await Promise.all([loadPages(file, info.pages || 0), modes.get(first)]);
  const state = { mode: first, pic, cell: pages.length <= 4096 ? 16 : 4, panel: () => state.pic.panels[0] || { cells: [] },
    slot: () => state.pic.slot };
  const m = mapCanvas(file, byPage(pages), state);
  const zin = el("button", { id: "zoom-in" }, "+"), zout = el("button", { id: "zoom-out" }, "−");
  const leg = el("div");
  const redraw = () => { m.draw(); leg.replaceChildren(legend(state.pic)); };
  zin.addEventListener("click", () => { state.cell = Math.min(32, state.cell * 2); redraw(); });
  zout.addEventListener("click", () => { state.cell = Math.max(1, state.cell / 2); redraw(); });
  view.replaceChildren(el("h2", {}, info.file || ("file " + file)),
    el("div", { class: "controls" }, "colour: ", modes.sel, " zoom: ", zout, zin, " ", pages.length + " pages, 64 per row"),
    leg, m.canvas);
  redraw();
}

// ---- compare and diff ----------------------------------------------------
async function compareView(list) {
  where.textContent = "compare files " + list.join(", ");
  view.replaceChildren(el("p", {}, "Reading pages…"));
  const q = new URLSearchParams(); list.forEach(f => q.append("f", f));
  const c = await apiQ("/api/compare", q);
  const rows = (c.files || []).map((f, i) => el("tr", {}, el("td", {}, list[i]), el("td", {}, f.file), el("td", {}, f.pages),
    el("td", {}, f.index_pages), el("td", {}, f.mean_fill), el("td", {}, f.leaf_jumps), el("td", {}, f.jump_share), el("td", {}, f.findings)));
  const t = el("table", { id: "compare-table" }, el("tr", {}, ...["#", "file", "pages", "index pages", "mean fill",
    "leaf jumps", "jump share", "findings"].map(h => el("th", {}, h))), ...rows);
  const box = el("div", { class: "side" });
  const maps = [];
  const all = [];
  for (const f of list) {
    const info = await fileInfo(f);
    all.push([f, info, await loadPages(f, info.pages || 0)]);
  }
  // `compare --metric M --out`'s picture: one panel a file, at one scale
  // (the same bytes a cell in every file); by LSN first: the key-order
  // picture (AUTO_INCREMENT against UUID keys).
  const picture = m => { const p = new URLSearchParams({ map: m }); list.forEach(f => p.append("f", f)); return apiQ("/api/compare", p); };
  const leg = el("div");
  const modes = modeSelect(METRICS, "lsn", picture, (m, pic) => {
    state.mode = m; state.pic = pic; maps.forEach(x => x.draw()); leg.replaceChildren(legend(pic));
  });
  const state = { mode: "lsn", pic: await modes.get("lsn") };
  const most = Math.max(...state.pic.panels.map(p => p.cells.length));
  state.cell = most <= 1024 ? 16 : most <= 4096 ? 8 : 2;
  all.forEach(([f, info, pages], i) => {
    const m = mapCanvas(f, byPage(pages), { get mode() { return state.mode; }, get cell() { return state.cell; }, id: "map-" + f,
      panel: () => state.pic.panels[i] || { cells: [], first_page: 0, pages_per_cell: 1 }, slot: () => state.pic.slot });
    maps.push(m);
    box.append(el("figure", {}, el("figcaption", {}, "#" + f + " " + (info.file || "") + " (" + pages.length + " pages)"), m.canvas));
  });
  leg.replaceChildren(legend(state.pic));
  view.replaceChildren(el("h2", {}, "compare"), t, el("div", { class: "controls" }, "colour: ", modes.sel,
    " one scale: " + state.cell + " px a cell, 64 cells a row (" + (state.pic.lines[0] || "") + ")"), leg, box);
}
async function diffView(a, b) {
  where.textContent = "diff of files " + a + " and " + b;
  view.replaceChildren(el("p", {}, "Comparing…"));
  const q = new URLSearchParams(); q.append("f", a); q.append("f", b);
  const d = await apiQ("/api/diff", q);
  const info = await fileInfo(b);
  const [pages, pic] = await Promise.all([loadPages(b, info.pages || 0), api("/api/file/" + b + "/map/lsn")]);
  const mark = new Map((d.pages || []).map(p => [p.page, p.move === "corrupt" || p.move === "torn" ? palette.damaged : "#ff9800"]));
  const state = { mode: "lsn", pic, cell: pages.length <= 4096 ? 16 : 4, panel: () => pic.panels[0] || { cells: [] }, slot: () => pic.slot };
  const m = mapCanvas(b, byPage(pages), state, mark);
  const t = el("table", { id: "diff-pages" }, el("tr", {}, ...["page", "type", "index", "move", "LSN in A", "LSN in B",
    "verdict in A", "verdict in B", "first byte", "bytes"].map(h => el("th", {}, h))));
  for (const p of (d.pages || []).slice(0, 5000)) {
    t.append(el("tr", {}, el("td", {}, link(p.page, "#page/" + b + "/" + p.page)), el("td", {}, p.page_type), el("td", {}, p.index ?? "-"),
      el("td", {}, p.move), el("td", {}, p.lsn_a ?? "-"), el("td", {}, p.lsn_b ?? "-"), el("td", {}, p.verdict_a ?? "-"),
      el("td", {}, p.verdict_b ?? "-"), el("td", {}, p.first_byte ?? "-"), el("td", {}, p.bytes ?? "-")));
  }
  const moves = Object.entries(d.moves || {}).map(([k, v]) => k + " " + v).join(", ");
  view.replaceChildren(el("h2", {}, "diff"), kv({ a: d.a, b: d.b, pages_a: d.pages_a, pages_b: d.pages_b,
    identical: d.identical, differ: d.differ, moves: moves || "none" }),
    el("p", {}, "The map of B (#" + b + ") by LSN; the pages that differ in orange, damaged ones in red."), m.canvas,
    el("h3", {}, "pages that differ (" + (d.pages || []).length + ")"), t);
}

// ---- datadir ---------------------------------------------------------------
async function datadirView(n) {
  where.textContent = "datadir " + n;
  const files = await api("/api/files");
  const entry = files.files[n] || {};
  const r = entry.report || {};
  const members = new Map(files.files.filter(f => f.kind === "member" && f.datadir === n).map(f => [f.path, f.index]));
  const parts = [el("h2", {}, "datadir audit")];
  for (const dd of r.datadirs || []) {
    const facts = {};
    for (const k of ["path", "flush_lsn", "flush_lsn_vs_checkpoint", "needs_recovery", "log_reaches_all_pages"]) facts[k] = dd[k];
    if (dd.redo) facts.checkpoint = JSON.stringify(dd.redo).slice(0, 300);
    facts.dictionary = dd.dictionary ? dd.dictionary.tables + " tables, " + dd.dictionary.problems.length + " problems" : "-";
    facts.newer_than_checkpoint = (dd.newer_than_checkpoint || []).length;
    facts.duplicate_space_ids = (dd.duplicate_space_ids || []).length;
    if (dd.lsn_spread) facts.lsn_spread = dd.lsn_spread.spread;
    parts.push(kv(facts));
    if (dd.dictionary && dd.dictionary.problems.length) parts.push(el("pre", {}, JSON.stringify(dd.dictionary.problems, null, 1)));
  }
  const t = el("table", { id: "audit-files" }, el("tr", {}, ...["file", "verdict", "pages", "findings"].map(h => el("th", {}, h))));
  for (const f of r.files || []) {
    const idx = members.get(f.file);
    const finds = el("td", {});
    for (const x of (f.findings || []).slice(0, 200)) {
      const text = "page " + x.page + " @" + x.offset + ": " + x.reason;
      finds.append(idx != null && x.page != null ? link(text, "#page/" + idx + "/" + x.page) : text, el("br"));
    }
    // Named relative to the datadir (its path is in the facts above).
    const base = ((r.datadirs || [])[0] || {}).path;
    const name = base && f.file.startsWith(base + "/") ? f.file.slice(base.length + 1) : f.file;
    t.append(el("tr", {}, el("td", {}, idx != null ? link(name, "#map/" + idx) : name),
      el("td", { class: f.verdict === "clean" ? "clean" : "findings" }, f.verdict), el("td", {}, f.pages ?? "-"), finds));
  }
  parts.push(el("h3", {}, "files"), t);
  // The tables of its dictionary (`tables DATADIR`), each with its file.
  // Its file as the dictionary names it, relative to the datadir.
  const member = rel => { for (const [p, i] of members) if (p === rel || p.endsWith("/" + rel)) return i; };
  const tables = el("table", { id: "tables" }, el("tr", {}, ...["table", "id", "space", "row format", "columns", "file", ""].map(h => el("th", {}, h))));
  parts.push(el("h3", {}, "tables (the dictionary)"), tables);
  view.replaceChildren(...parts);
  api("/api/file/" + n + "/tables").then(d => {
    for (const x of d.tables || []) {
      const idx = x.file != null ? member(x.file) : undefined;
      tables.append(el("tr", {}, el("td", {}, x.name), el("td", {}, x.table_id), el("td", {}, x.space), el("td", {}, x.row_format ?? "-"),
        el("td", {}, (x.columns || []).map(c => c.name + " " + c.type).join(", ").slice(0, 200)), el("td", {}, x.file_status ?? "-"),
        el("td", {}, idx != null ? link("map", "#map/" + idx) : "")));
    }
  }).catch(() => {});
}

// ---- rows ------------------------------------------------------------------
async function rowsView(file, page, deleted) {
  where.textContent = "rows of file " + file;
  if (page == null || isNaN(page)) {
    // The first leaf of the clustered index: the table's lowest index id
    // (MySQL 8.0's SDI index, listed first, has the highest).
    const d = await api("/api/file/" + file + "/levels");
    const ix = (d.indexes || []).reduce((a, x) => (a == null || x.index_id < a.index_id ? x : a), null) || {};
    const leaf = (ix.levels || []).find(l => l.level === 0);
    page = leaf && leaf.leftmost_page != null ? leaf.leftmost_page : ix.root_page;
  }
  const q = deleted ? { deleted: 1 } : {};
  const [r, p] = await Promise.all([api("/api/file/" + file + "/rows/" + page, q), api("/api/file/" + file + "/links/" + page)]);
  const base = "#rows/" + file + "/";
  const tail = deleted ? "/deleted" : "";
  const nav = el("p", { id: "nav" }, p.prev != null ? link("← previous page " + p.prev, base + p.prev + tail) : "", " ",
    p.next != null ? link("next page " + p.next + " →", base + p.next + tail) : "", " ",
    link(deleted ? "live rows only" : "with deleted rows", base + page + (deleted ? "" : "/deleted")), " ",
    link("page " + page, "#page/" + file + "/" + page));
  view.replaceChildren(el("h2", {}, "rows of " + (r.table || "file " + file) + ", page " + page), nav, rowsTable(r));
}
// A value as `rows` gives it: NULL, a value cut at `--max-value-bytes`
// (its first bytes in hex), or the value; long ones cut for the table.
function cell(x) {
  if (x === null) return "NULL";
  if (x && typeof x === "object" && "truncated" in x) return String(x.truncated).slice(0, 66) + "… (truncated)";
  const s = typeof x === "object" ? JSON.stringify(x) : String(x);
  return s.length > 200 ? s.slice(0, 200) + "…" : s;
}
function rowsTable(r) {
  if (r.error) return el("p", { class: "findings" }, r.error);
  const cols = r.columns || [];
  const extra = (r.rows || []).some(x => x.origin) ? ["origin"] : [];
  const t = el("table", { id: "rows" }, el("tr", {}, ...extra.concat(cols).map(h => el("th", {}, h))));
  for (const x of (r.rows || []).slice(0, 5000)) {
    const v = x.row || {};
    t.append(el("tr", { class: x.origin && x.origin !== "live" ? "deleted" : "" }, ...extra.map(k => el("td", {}, x[k])),
      ...cols.map(c => el("td", {}, cell(v[c])))));
  }
  return el("div", {}, el("p", {}, (r.rows || []).length + " rows (" + (r.index || "") + ", definition from " + (r.source || "-") + ")"), t);
}

// ---- page --------------------------------------------------------------
function kv(obj) {
  const t = el("table", {});
  for (const [k, v] of Object.entries(obj || {})) {
    t.append(el("tr", {}, el("th", {}, k), el("td", {}, v === null ? "-" : (typeof v === "object" ? JSON.stringify(v) : v))));
  }
  return t;
}
function hexView(ranges) {
  const box = el("div", { class: "hex", id: "hex" });
  const name = el("div", { id: "hex-name" }, "hover a byte");
  let line = [], col = 0, start = 0, i = 0, lit = [];
  for (const r of ranges || []) {
    const bytes = r.hex.match(/../g) || [];
    const cls = "r" + (i++ % 2);
    const spans = [];
    // Hovering a byte names its range and marks the range's bytes.
    const enter = () => {
      name.textContent = r.name + "  bytes " + r.start + ".." + r.end;
      lit.forEach(x => x.classList.remove("on"));
      lit = spans; lit.forEach(x => x.classList.add("on"));
    };
    for (const b of bytes) {
      if (col === 0) line.push(el("b", {}, ("0000" + start.toString(16)).slice(-5) + "  "));
      const s = el("span", { class: cls, title: r.name + " [" + r.start + ".." + r.end + ")" }, b);
      s.addEventListener("mouseenter", enter);
      spans.push(s);
      line.push(s, " ");
      start++; col++;
      if (col === 16) { line.push("\n"); col = 0; }
    }
  }
  // In pieces: a 64 KiB page is more nodes than one call takes arguments.
  for (let k = 0; k < line.length; k += 4096) box.append(...line.slice(k, k + 4096));
  return [name, box];
}
async function pageView(file, page) {
  where.textContent = "file " + file + ", page " + page;
  const [p, l] = await Promise.all([api("/api/file/" + file + "/page/" + page),
    api("/api/file/" + file + "/links/" + page).catch(() => ({}))]);
  const fil = p.fil || {};
  const go = n => "#page/" + file + "/" + n;
  const nav = el("p", { id: "nav" }, link("← map", "#map/" + file), " ",
    page > 0 ? link("previous page", go(page - 1)) : "", " ",
    link("next page", go(page + 1)), " ",
    fil.prev != null ? link("prev sibling " + fil.prev, go(fil.prev)) : "", " ",
    fil.next != null ? link("next sibling " + fil.next, go(fil.next)) : "");
  // The page's place: its B-tree (parent, children), extent and segment.
  const place = el("p", { id: "links" });
  if (l.parent != null) place.append(link("parent " + l.parent, go(l.parent)), " ");
  if (l.root != null && l.root !== page) place.append(link("root " + l.root, go(l.root)), " ");
  if (l.extent != null) place.append(link("extent " + l.extent + " (pages " + l.extent_first_page + "…" +
    (l.extent_first_page + l.extent_pages - 1) + ")", "#extent/" + file + "/" + l.extent), " ");
  if (l.segment_id != null) place.append(link("segment " + l.segment_id, "#segment/" + file + "/" + l.segment_id), " ");
  if (l.index_page && page != null) place.append(link("rows of this page", "#rows/" + file + "/" + page), " ");
  if (l.children && l.children.length) {
    const kids = el("span", { id: "children" }, "children: ");
    l.children.slice(0, 500).forEach(c => kids.append(link(c, go(c)), " "));
    if (l.children.length > 500) kids.append("… " + l.children.length + " in all");
    place.append(kids);
  }
  if (l.complete === false) place.append(" (chains broken: what they reached)");
  const head = {};
  for (const k of ["page", "file_offset", "type", "type_code", "checksum", "verdict", "verdict_offset", "evidence", "content", "note"]) if (k in p) head[k] = p[k];
  const parts = [el("h2", {}, "page " + page), nav, place, kv(head), el("h3", {}, "FIL header"), kv(fil)];
  if (p.account) parts.push(el("h3", {}, "extent and owner"), kv(p.account));
  if (p.index) parts.push(el("h3", {}, "INDEX header"), kv(p.index));
  if (p.fill) parts.push(el("h3", {}, "fill"), kv(p.fill));
  if (p.byte_map) parts.push(el("h3", {}, "byte map (" + p.byte_map.cell_bytes + " bytes a cell)"), el("pre", { id: "byte-map" }, p.byte_map.map));
  // Typed fields: the page's rows when a definition is known (`rows --page`).
  const typed = el("div", { id: "typed" });
  if (l.index_page && l.level === 0) {
    api("/api/file/" + file + "/rows/" + page, { deleted: 1 }).then(r => {
      if (!r.error && r.columns) typed.replaceChildren(el("h3", {}, "records, typed (" + r.table + "." + r.index + ")"), rowsTable(r));
    }).catch(() => {});
  }
  parts.push(typed);
  if (p.records) {
    const t = el("table", { id: "records" }, el("tr", {}, ...["offset", "heap_no", "type", "deleted", "next", "size", "data"].map(h => el("th", {}, h))));
    for (const r of p.records.slice(0, 2000)) t.append(el("tr", {}, ...[r.offset, r.heap_no, r.type, r.deleted, r.next ?? "-", r.size, (r.data || "").slice(0, 64)].map(v => el("td", {}, v))));
    parts.push(el("h3", {}, "records (" + p.records.length + ")"), t);
  }
  if (p.garbage && p.garbage.length) {
    const t = el("table", { id: "garbage" }, el("tr", {}, ...["offset", "heap_no", "size", "data"].map(h => el("th", {}, h))));
    for (const r of p.garbage.slice(0, 2000)) t.append(el("tr", {}, ...[r.offset, r.heap_no, r.size, (r.data || "").slice(0, 64)].map(v => el("td", {}, v))));
    parts.push(el("h3", {}, "free (garbage) records (" + p.garbage.length + ")"), t);
  }
  if (p.findings && p.findings.length) parts.push(el("h3", {}, "findings"), el("pre", {}, JSON.stringify(p.findings, null, 1)));
  if (p.hex) parts.push(el("h3", {}, "bytes"), ...hexView(p.hex));
  view.replaceChildren(...parts);
}

// ---- extent and segment -------------------------------------------------
async function extentView(file, x) {
  where.textContent = "file " + file + ", extent " + x;
  const d = await api("/api/file/" + file + "/extents");
  const size = d.extent_size || 64;
  const cells = (d.map || []).filter(c => Math.floor(c.page / size) === x);
  const t = el("table", { id: "extent" }, el("tr", {}, ...["page", "owner", "segment", "index", "role"].map(h => el("th", {}, h))));
  for (const c of cells) t.append(el("tr", {}, el("td", {}, link(c.page, "#page/" + file + "/" + c.page)), el("td", {}, c.owner),
    el("td", {}, c.segment != null ? link(c.segment, "#segment/" + file + "/" + c.segment) : "-"), el("td", {}, c.index_name ?? c.index_id ?? "-"), el("td", {}, c.role ?? "-")));
  view.replaceChildren(el("h2", {}, "extent " + x + " (" + size + " pages)"), t);
}
async function segmentView(file, seg) {
  where.textContent = "file " + file + ", segment " + seg;
  const [s, d] = await Promise.all([api("/api/file/" + file + "/segments"), api("/api/file/" + file + "/extents")]);
  const info = (s.segments || []).find(x => x.segment_id === seg) || {};
  const pages = (d.map || []).filter(c => c.segment === seg);
  const list = el("p", { id: "segment-pages" });
  pages.slice(0, 5000).forEach(c => list.append(link(c.page, "#page/" + file + "/" + c.page), " "));
  view.replaceChildren(el("h2", {}, "segment " + seg), kv(info), el("h3", {}, pages.length + " pages"), list);
}

// ---- index levels -------------------------------------------------------
async function levelsView(file) {
  where.textContent = "indexes of file " + file;
  const d = await api("/api/file/" + file + "/levels");
  const parts = [el("h2", {}, "indexes")];
  for (const ix of d.indexes || []) {
    const t = el("table", {}, el("tr", {}, ...["level", "pages", "records", "fill", "leftmost page"].map(h => el("th", {}, h))));
    for (const l of ix.levels || []) t.append(el("tr", {}, el("td", {}, l.level), el("td", {}, l.pages), el("td", {}, l.records),
      el("td", {}, l.fill ?? "-"), el("td", {}, l.leftmost_page != null ? link(l.leftmost_page, "#page/" + file + "/" + l.leftmost_page) : "-")));
    parts.push(el("h3", {}, (ix.index_name || "index") + " (id " + ix.index_id + ", root ",
      link(ix.root_page, "#page/" + file + "/" + ix.root_page), ")"), t);
  }
  view.replaceChildren(...parts);
}

function show(hash) {
  const h = hash.replace(/^#/, "").split("/");
  const n = h.slice(1).map(x => parseInt(x, 10));
  if (h[0] === "map") return mapView(n[0], h[2]);
  if (h[0] === "page") return pageView(n[0], n[1]);
  if (h[0] === "levels") return levelsView(n[0]);
  if (h[0] === "rows") return rowsView(n[0], n[1], h[3] === "deleted");
  if (h[0] === "compare") return compareView((h[1] || "").split(",").map(x => parseInt(x, 10)));
  if (h[0] === "diff") return diffView(n[0], n[1]);
  if (h[0] === "datadir") return datadirView(n[0]);
  if (h[0] === "extent") return extentView(n[0], n[1]);
  if (h[0] === "segment") return segmentView(n[0], n[1]);
  return overview();
}
function route() {
  tip.hidden = true;
  const hash = location.hash;
  delete view.dataset.done;
  // `data-done`: the hash of the view drawn (its own requests answered).
  show(hash).catch(fail).finally(() => { if (location.hash === hash) view.dataset.done = hash; });
}
api("/api/palette").then(p => { palette = p; window.addEventListener("hashchange", route); route(); }).catch(fail);
