// ibdscope serve: the browser side. Every value shown comes from the JSON
// endpoints, which print what the commands print; colours come from
// /api/palette (the render crate's palette of the terminal and PNG maps).
"use strict";
const TOKEN = new URLSearchParams(location.search).get("t") || "";
const view = document.getElementById("view");
const where = document.getElementById("where");
const tip = document.getElementById("tip");
let palette = null;

function api(path, params) {
  const q = new URLSearchParams(params || {});
  q.set("t", TOKEN);
  return fetch(path + "?" + q.toString()).then(r => {
    if (!r.ok) throw new Error(path + ": " + r.status);
    return r.json();
  });
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
  api("/api/files").then(d => {
    const t = el("table", {}, el("tr", {}, ...["#", "file", "verdict", "vendor", "format",
      "page size", "size", "pages", "damaged", ""].map(h => el("th", {}, h))));
    for (const f of d.files) {
      const r = f.report || {};
      const size = r.pages && r.physical_page_size ? fmtBytes(r.pages * r.physical_page_size) : "";
      t.append(el("tr", { id: "file-" + f.index },
        el("td", {}, f.index),
        el("td", {}, r.file || (r.datadirs && r.datadirs[0] ? r.datadirs[0].path + " (datadir, " + r.summary.files + " files)" : "")),
        el("td", { class: f.outcome }, f.outcome + (r.error ? ": " + r.error : "")),
        el("td", {}, r.vendor || ""), el("td", {}, r.format || ""),
        el("td", {}, r.page_size || ""), el("td", {}, size), el("td", {}, r.pages || ""),
        el("td", {}, r.damaged_pages ?? (r.summary ? r.summary.damaged : "")),
        el("td", {}, f.kind === "file" ? link("map", "#map/" + f.index) : "",
          " ", f.kind === "file" ? link("levels", "#levels/" + f.index) : "")));
    }
    view.replaceChildren(el("h2", {}, "Files"), t);
  }).catch(fail);
}
function fail(e) { view.replaceChildren(el("p", { class: "findings" }, String(e))); }

// ---- map ---------------------------------------------------------------
function verdictClass(v) {
  if (v === "valid") return "valid";
  if (v === "empty") return "empty";
  if (v && v.startsWith("unverifiable")) return "unverifiable";
  return "damaged";
}
function scale(t) {
  const s = palette.scale;
  const i = Math.max(0, Math.min(s.length - 1, Math.round(t * (s.length - 1))));
  return s[i];
}
function colourer(pages, mode) {
  const ids = [...new Set(pages.filter(p => p.index_id != null).map(p => p.index_id))].sort((a, b) => a - b);
  const slot = new Map(ids.map((id, i) => [id, palette.index[i % palette.index.length]]));
  // LSNs by rank among the pages, as `lsn`'s default scale (`--scale rank`).
  const lsns = pages.map(p => p.lsn).filter(l => l).sort((a, b) => a - b);
  const rank = l => {
    let lo = 0, hi = lsns.length - 1;
    while (lo < hi) { const m = (lo + hi) >> 1; if (lsns[m] < l) lo = m + 1; else hi = m; }
    return lsns.length > 1 ? lo / (lsns.length - 1) : 1;
  };
  return p => {
    const v = verdictClass(p.verdict);
    if (v === "damaged") return palette.damaged;
    if (v === "unverifiable") return palette.unverifiable;
    if (v === "empty") return palette.free_picture;
    if (mode === "lsn") return p.lsn ? scale(palette.lsn_floor + (1 - palette.lsn_floor) * rank(p.lsn)) : palette.free_picture;
    if (mode === "fill") return p.fill == null ? palette.system : scale(p.fill);
    return p.index_id != null ? slot.get(p.index_id) : palette.system;
  };
}
function legend(mode, pages) {
  const item = (c, t) => el("span", {}, el("i", { "data-c": c }), t);
  const items = [item(palette.damaged, "damaged"), item(palette.unverifiable, "unverifiable"),
    item(palette.free_picture, "empty"), item(palette.system, "system / no index")];
  if (mode === "index") {
    const names = new Map(pages.filter(p => p.index_id != null).map(p => [p.index_id, p.index_name || ("index " + p.index_id)]));
    [...names.keys()].sort((a, b) => a - b).forEach((id, i) => items.push(item(palette.index[i % palette.index.length], names.get(id))));
  } else {
    items.push(item(scale(0), mode === "lsn" ? "oldest LSN" : "fill 0"), item(scale(1), mode === "lsn" ? "newest LSN" : "fill 1"));
  }
  const l = el("div", { class: "legend", id: "legend" }, ...items);
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
async function mapView(file) {
  where.textContent = "map of file " + file;
  view.replaceChildren(el("p", {}, "Reading pages…"));
  const files = await api("/api/files");
  const info = (files.files[file] || {}).report || {};
  const pages = await loadPages(file, info.pages || 0);
  let mode = "index", cell = pages.length <= 4096 ? 16 : 4;
  const cols = 64;
  const canvas = el("canvas", { id: "map" });
  const sel = el("select", { id: "mode" }, ...["index", "lsn", "fill"].map(m => el("option", { value: m }, m)));
  const zin = el("button", { id: "zoom-in" }, "+"), zout = el("button", { id: "zoom-out" }, "−");
  const leg = el("div");
  function draw() {
    const rows = Math.ceil(pages.length / cols);
    canvas.width = cols * cell; canvas.height = Math.max(1, rows) * cell;
    const g = canvas.getContext("2d"), colour = colourer(pages, mode);
    g.fillStyle = "#f0f0f0"; g.fillRect(0, 0, canvas.width, canvas.height);
    pages.forEach((p, i) => {
      g.fillStyle = colour(p);
      g.fillRect((i % cols) * cell, Math.floor(i / cols) * cell, Math.max(1, cell - (cell > 4 ? 1 : 0)), Math.max(1, cell - (cell > 4 ? 1 : 0)));
    });
    leg.replaceChildren(legend(mode, pages));
  }
  function at(ev) {
    const r = canvas.getBoundingClientRect();
    const i = Math.floor((ev.clientY - r.top) / cell) * cols + Math.floor((ev.clientX - r.left) / cell);
    return pages[i];
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
  sel.addEventListener("change", () => { mode = sel.value; draw(); });
  zin.addEventListener("click", () => { cell = Math.min(32, cell * 2); draw(); });
  zout.addEventListener("click", () => { cell = Math.max(1, cell / 2); draw(); });
  view.replaceChildren(el("h2", {}, info.file || ("file " + file)),
    el("div", { class: "controls" }, "colour: ", sel, " zoom: ", zout, zin, " ", pages.length + " pages, " + cols + " per row"),
    leg, canvas);
  draw();
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
  let line = [], col = 0, start = 0, i = 0;
  for (const r of ranges || []) {
    const bytes = r.hex.match(/../g) || [];
    const cls = "r" + (i++ % 2);
    for (const b of bytes) {
      if (col === 0) line.push(el("b", {}, ("0000" + start.toString(16)).slice(-5) + "  "));
      const s = el("span", { class: cls, title: r.name + " [" + r.start + ".." + r.end + ")" }, b);
      s.addEventListener("mouseenter", () => { name.textContent = r.name + "  bytes " + r.start + ".." + r.end; });
      line.push(s, " ");
      start++; col++;
      if (col === 16) { line.push("\n"); col = 0; }
    }
  }
  box.append(...line);
  return [name, box];
}
async function pageView(file, page) {
  where.textContent = "file " + file + ", page " + page;
  const p = await api("/api/file/" + file + "/page/" + page);
  const fil = p.fil || {};
  const nav = el("p", { id: "nav" }, link("← map", "#map/" + file), " ",
    page > 0 ? link("previous page", "#page/" + file + "/" + (page - 1)) : "", " ",
    link("next page", "#page/" + file + "/" + (page + 1)), " ",
    fil.prev != null ? link("prev sibling " + fil.prev, "#page/" + file + "/" + fil.prev) : "", " ",
    fil.next != null ? link("next sibling " + fil.next, "#page/" + file + "/" + fil.next) : "");
  const head = {};
  for (const k of ["page", "file_offset", "type", "type_code", "checksum", "verdict", "verdict_offset", "evidence", "content", "note"]) if (k in p) head[k] = p[k];
  const parts = [el("h2", {}, "page " + page), nav, kv(head), el("h3", {}, "FIL header"), kv(fil)];
  if (p.index) parts.push(el("h3", {}, "INDEX header"), kv(p.index));
  if (p.fill) parts.push(el("h3", {}, "fill"), kv(p.fill));
  if (p.records) {
    const t = el("table", { id: "records" }, el("tr", {}, ...["offset", "heap_no", "type", "deleted", "next", "size", "data"].map(h => el("th", {}, h))));
    for (const r of p.records.slice(0, 2000)) t.append(el("tr", {}, ...[r.offset, r.heap_no, r.type, r.deleted, r.next ?? "-", r.size, (r.data || "").slice(0, 64)].map(v => el("td", {}, v))));
    parts.push(el("h3", {}, "records (" + p.records.length + ")"), t);
  }
  if (p.findings && p.findings.length) parts.push(el("h3", {}, "findings"), el("pre", {}, JSON.stringify(p.findings, null, 1)));
  if (p.hex) parts.push(el("h3", {}, "bytes"), ...hexView(p.hex));
  view.replaceChildren(...parts);
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

function route() {
  tip.hidden = true;
  const h = location.hash.replace(/^#/, "").split("/");
  const n = h.slice(1).map(x => parseInt(x, 10));
  if (h[0] === "map") mapView(n[0]).catch(fail);
  else if (h[0] === "page") pageView(n[0], n[1]).catch(fail);
  else if (h[0] === "levels") levelsView(n[0]).catch(fail);
  else overview();
}
api("/api/palette").then(p => { palette = p; window.addEventListener("hashchange", route); route(); }).catch(fail);
