// membench view: renders the run bundle in the browser. Routes live in the
// URL hash so the served app and the exported file behave the same.
(function () {
  "use strict";
  var B = null; // the bundle
  var PAGE = 50;
  var MARK = "\u0000context\u0000"; // runlog.ContextMark
  var app = document.getElementById("app");

  // h builds an element; text always goes through textContent.
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") el.className = v;
        else if (k === "text") el.textContent = v;
        else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), v);
        else el.setAttribute(k, v === true ? "" : v);
      }
    }
    for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function add(el, c) {
    if (arguments.length > 2) { for (var i = 1; i < arguments.length; i++) add(el, arguments[i]); return; }
    if (c === null || c === undefined || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { add(el, x); }); return; }
    el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
  function link(href, text, attrs) { attrs = attrs || {}; attrs.href = href; return h("a", attrs, text); }
  function fmt(x, d) { return (x === undefined || x === null) ? "" : Number(x).toFixed(d === undefined ? 1 : d); }
  function int(x) { return Number(x || 0).toLocaleString("en-US"); }
  function enc(s) { return encodeURIComponent(s); }

  // ---------- loading ----------
  // The index (runs, questions, verdicts, conversations) loads first; each
  // conversation's transcripts load when a page needs them.
  function decode(el) {
    var s = el.textContent.trim().replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s), u = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    var stream = new Blob([u]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  function getJSON(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(url + ": " + (t.trim() || "HTTP " + r.status)); });
      return r.json();
    });
  }
  // The packed data follows this script in the page: read it once the
  // document is parsed.
  function parsed() {
    return new Promise(function (ok) {
      if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { ok(); });
      else ok();
    });
  }
  function load() {
    return parsed().then(function () {
      var el = document.getElementById("bundle");
      return el ? decode(el) : getJSON("data.json");
    });
  }
  var pending = {};
  // needTx resolves when the transcripts of run i's question q are there.
  function needTx(i, q) {
    var r = B.runs[i], k = q.tk;
    if (!r.chunkDone || r.chunkDone[k]) return null;
    var key = i + "-" + k;
    if (!pending[key]) {
      var el = document.getElementById("tx-" + key);
      pending[key] = (el ? decode(el) : getJSON("tx/" + i + "/" + k + ".json")).then(function (ch) {
        // Contexts and item lists are stored once per chunk; the answer
        // request holds a mark where the context goes.
        r.chunkQs[k].forEach(function (x, n) {
          var t = ch.tx[n];
          if (t) {
            t.context = ch.ctx[t.c];
            t.items = ch.items[t.i];
            (t.answer.messages || []).forEach(function (m) { m.content = m.content.split(MARK).join(t.context); });
          }
          x.tx = t;
        });
        r.chunkDone[k] = true;
      });
    }
    return pending[key];
  }
  // withTx renders a page once the transcripts it needs are loaded.
  function withTx(list, then) {
    var ps = list.map(function (x) { return needTx(x[0], x[1]); }).filter(Boolean);
    if (!ps.length) return then();
    app.textContent = "Loading the transcripts…";
    var want = location.hash;
    Promise.all(ps).then(function () { if (location.hash === want) then(); }).catch(function (e) {
      app.textContent = "Cannot load the transcripts: " + e.message;
    });
  }
  function index() {
    // Go writes empty lists as null.
    B.pairs = B.pairs || [];
    B.convs = B.convs || {};
    // A bundle without groups (made by hand) is one group.
    if (!B.groups || !B.groups.length) B.groups = [{ name: "", dataset: "", runs: B.runs.map(function (_, i) { return i; }) }];
    B.groups.forEach(function (g, gi) { g.runs.forEach(function (i) { B.runs[i].group = gi; }); });
    B.runs.forEach(function (r) {
      ["qs", "judges", "table", "costs", "facts", "chunks", "notes"].forEach(function (k) { r[k] = r[k] || []; });
      r.head = r.head || { dollars: [] };
      r.byId = {};
      r.groups = [];
      r.chunkQs = r.chunks.map(function () { return []; });
      r.chunkDone = r.chunks.map(function () { return false; });
      r.qs.forEach(function (q) {
        r.byId[q.id] = q;
        if (r.groups.indexOf(q.group) < 0) r.groups.push(q.group);
        r.chunkQs[q.tk].push(q);
      });
    });
  }

  // ---------- routing ----------
  function parseHash() {
    var raw = location.hash.replace(/^#/, "") || "/";
    var qi = raw.indexOf("?");
    var path = qi < 0 ? raw : raw.slice(0, qi);
    var params = {};
    if (qi >= 0) raw.slice(qi + 1).split("&").forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf("=");
      params[decodeURIComponent(i < 0 ? kv : kv.slice(0, i))] = i < 0 ? "" : decodeURIComponent(kv.slice(i + 1));
    });
    return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), params: params };
  }
  function hashOf(parts, params) {
    var q = [];
    for (var k in params) if (params[k] !== "" && params[k] !== undefined && params[k] !== null) q.push(enc(k) + "=" + enc(params[k]));
    return "#/" + parts.map(enc).join("/") + (q.length ? "?" + q.join("&") : "");
  }
  function render() {
    var r = parseHash(), p = r.parts;
    var started = performance.now();
    try {
      if (B.partial && p[0] && p[0] !== "costs") { app.textContent = "Reading the questions…"; }
      else if (p[0] === "q" && p.length === 2) browse(+p[1], r.params);
      else if (p[0] === "question" && p.length === 3) question(+p[1], p[2]);
      else if (p[0] === "ab" && p.length === 3) ab(+p[1], +p[2], r.params);
      else if (p[0] === "pair" && p.length === 4) pair(+p[1], +p[2], p[3]);
      else if (p[0] === "costs") costs();
      else runs();
    } catch (e) {
      app.textContent = "";
      add(app, h("div", { class: "note" }, "Cannot show this page: " + e.message));
    }
    var picker = document.getElementById("nav-q");
    if (picker) picker.value = p[0] === "q" && p.length === 2 ? p[1] : "";
    document.body.setAttribute("data-rendered-ms", String(Math.round(performance.now() - started)));
    document.body.setAttribute("data-route", p.join("/") || "runs");
  }
  function nav() {
    var n = document.getElementById("nav");
    n.textContent = "";
    add(n, link("#/", "Runs"), " · ");
    // One picker, not a link per run: a results folder holds dozens.
    add(n, sel("nav-q", [["", "Questions of…"]].concat(B.runs.map(function (r, i) { return [String(i), label(i)]; })), "", function (v) { if (v !== "") location.hash = "#/q/" + v; }), " · ");
    if (B.pairs.length) add(n, link("#/ab/" + B.pairs[0].a + "/" + B.pairs[0].b, "A/B"), " · ");
    add(n, link("#/costs", "Costs"));
  }
  function letter(i) { return String.fromCharCode(65 + (i % 26)) + (i >= 26 ? i : ""); }
  // short names a run by its letter, system and what sets it apart from
  // the other runs of its group (k, options, models, key, judges); label
  // adds the group's dataset when the view holds several groups, where a
  // short label could be another group's too.
  function short(i) { return letter(i) + ": " + (B.runs[i].label || B.runs[i].system); }
  function label(i) {
    var g = B.groups.length > 1 ? B.groups[B.runs[i].group] : null;
    return short(i) + (g && g.dataset ? " (" + g.dataset + ")" : "");
  }
  function offlineTag(r) { return r.head && r.head.offline ? " (" + r.head.offline + ")" : ""; }
  function run(i) {
    var r = B.runs[i];
    if (!r) throw new Error("no run #" + i + " (this view has " + B.runs.length + ")");
    return r;
  }

  // ---------- runs ----------
  function scoreTable(r, i) {
    var head = h("tr", null, h("th", null, "group"), h("th", { class: "num" }, "n"));
    r.judges.forEach(function (j) {
      head.appendChild(h("th", { class: "num", title: j.desc || "" }, j.name + (j.metric ? " (mean)" : " (acc.)")));
    });
    var body = r.table.map(function (row) {
      var tr = h("tr", null,
        h("td", null, row.name === "overall" ? h("b", null, "overall") : link(hashOf(["q", i], { group: row.name }), row.name)),
        h("td", { class: "num" }, row.n));
      r.judges.forEach(function (j) {
        var c = row.cells[j.name];
        tr.appendChild(h("td", { class: "num" }, c ? [fmt(c.v), " ", h("span", { class: "ci", title: c.ci || "" }, "[" + fmt(c.lo) + "–" + fmt(c.hi) + "]" + (c.n < row.n ? " n=" + c.n : ""))] : "—"));
      });
      return tr;
    });
    return h("table", { class: "scores" }, h("thead", null, head), h("tbody", null, body));
  }
  // barTable draws labelled horizontal bars as an HTML table, so labels
  // and values wrap instead of being cut off. rows: {label, value (0-max),
  // lo, hi (optional interval), text, strong}.
  function barTable(cls, title, rows, max) {
    if (!rows.length) return null;
    max = max || rows.reduce(function (m, x) { return Math.max(m, x.value); }, 0) || 1;
    var pct = function (v) { return (100 * Math.max(0, Math.min(max, v)) / max).toFixed(2) + "%"; };
    return h("table", { class: "bars " + cls },
      h("caption", null, title),
      rows.map(function (x) {
        var bar = h("div", { class: "track" }, h("div", { class: "bar" + (x.strong ? " strong" : ""), style: "width:" + pct(x.value) }));
        if (x.lo !== undefined) add(bar, h("div", { class: "whisker", style: "left:" + pct(x.lo) + ";width:calc(" + pct(x.hi) + " - " + pct(x.lo) + ")" }));
        return h("tr", null, h("th", { class: "lbl" }, x.label), h("td", { class: "barcell" }, bar), h("td", { class: "lbl val" }, x.text));
      }));
  }
  // scoreChart draws the primary judge's score per group with its interval.
  function scoreChart(r) {
    var rows = r.table.filter(function (x) { return x.cells[r.primary]; });
    return barTable("score-chart", r.primary + " by group, ×100, with 95% intervals" + offlineTag(r), rows.map(function (row) {
      var c = row.cells[r.primary];
      return { label: row.name, value: c.v, lo: c.lo, hi: c.hi, text: fmt(c.v) + " [" + fmt(c.lo) + "–" + fmt(c.hi) + "]", strong: row.name === "overall" };
    }), 100);
  }
  function dollarsOf(r, stage) {
    var d = r.head.dollars.filter(function (x) { return x[0] === stage; })[0];
    return d ? d[1] : "—";
  }
  function costTable(r) {
    var rows = r.costs.map(function (c) {
      return h("tr", null, h("td", null, c.stage), h("td", { class: "num" }, int(c.calls)), h("td", { class: "num" }, int(c.cached)),
        h("td", { class: "num" }, int(c.in)), h("td", { class: "num" }, int(c.out)), h("td", { class: "num" }, fmt(c.seconds, 2)),
        h("td", { class: "num" }, dollarsOf(r, c.stage)));
    });
    return h("table", { class: "costs" },
      h("tr", null, h("th", null, "stage"), h("th", { class: "num" }, "calls"), h("th", { class: "num" }, "cached"),
        h("th", { class: "num" }, "input tokens"), h("th", { class: "num" }, "output tokens"),
        h("th", { class: "num", title: "seconds spent in the stage's model calls, summed over calls (calls made in parallel overlap, so this is not the stage's wall time)" }, "call seconds"),
        h("th", { class: "num", title: "priced as report --table dollars prices them" }, "dollars")), rows,
      h("tr", null, h("td", null, h("b", null, "total")), h("td", { colspan: "5" }), h("td", { class: "num" }, h("b", null, r.head.total || "—"))));
  }
  // headlineTable is the landing page's answer for one group of
  // comparable runs: per run (rows, labelled by what sets it apart in the
  // group) the primary judge's overall score with its interval and n,
  // its score per category, then its cost in dollars and tokens. A group
  // of many runs shows its first ROWS until asked for all, so the first
  // screen holds a whole table.
  var ROWS = 10, shownAll = {};
  function headlineTable(gi) {
    var g = B.groups[gi], cats = [];
    var emb = g.runs.some(function (i) { return B.runs[i].head.embedded; });
    g.runs.forEach(function (i) { B.runs[i].table.forEach(function (row) { if (row.name !== "overall" && cats.indexOf(row.name) < 0) cats.push(row.name); }); });
    var rowOf = function (r, name) { return r.table.filter(function (x) { return x.name === name; })[0]; };
    var score = function (r, i, name) {
      var row = rowOf(r, name), c = row && row.cells[r.primary], all = name === "overall";
      return h("td", { class: "num score" + (all ? " overall" : ""), "data-run": String(i), "data-col": name }, c ? [all ? h("b", null, fmt(c.v)) : fmt(c.v), " ",
        h("span", { class: "ci" }, "[" + fmt(c.lo) + "–" + fmt(c.hi) + "]" + (all ? " n=" + c.n : ""))] : "—");
    };
    var head = h("tr", null, h("th", null, "run"), h("th", { class: "num" }, "overall"),
      cats.map(function (c) { return h("th", { class: "num cat" }, c); }),
      h("th", { class: "num", title: "priced as report --table dollars prices them" }, "cost, dollars"), h("th", { class: "num" }, "model tokens in / out"), h("th", { class: "num", title: "model requests; texts sent to the embedder are counted apart" }, "model calls"));
    var list = shownAll[gi] ? g.runs : g.runs.slice(0, ROWS);
    var body = list.map(function (i) {
      var r = B.runs[i];
      return h("tr", { "data-run": String(i) },
        h("th", { class: "lbl" }, h("a", { href: "#run-" + i, onclick: function (ev) { ev.preventDefault(); var el = document.getElementById("run-" + i); if (el) el.scrollIntoView(); } }, short(i)),
          " ", h("span", { class: "ci" }, r.head.judge + (r.head.offline ? ", " + r.head.offline : ""))),
        score(r, i, "overall"), cats.map(function (c) { return score(r, i, c); }),
        h("td", { class: "num", "data-col": "dollars" }, r.head.total || "—"), h("td", { class: "num", "data-col": "tokens" }, int(r.head.in) + " / " + int(r.head.out)),
        // Texts sent to the embedder are not model calls: their own line.
        h("td", { class: "num", "data-col": "calls" }, h("span", { class: "calls" }, int(r.head.calls)),
          emb ? [h("br"), h("span", { class: "ci", "data-col": "embedded" }, int(r.head.embedded || 0) + " texts embedded")] : null));
    });
    if (list.length < g.runs.length) {
      body.push(h("tr", { class: "more" }, h("td", { colspan: String(cats.length + 5) },
        h("button", { onclick: function () { shownAll[gi] = true; var t = document.getElementById("headline-" + gi); t.parentNode.replaceChild(headlineTable(gi), t); } },
          "show all " + g.runs.length + " runs (" + (g.runs.length - list.length) + " more)"))));
    }
    return h("table", { class: "scores headline", id: "headline-" + gi }, h("thead", null, head), h("tbody", null, body));
  }
  function runCount(n) { return n === 1 ? "1 run" : n + " runs"; }
  // pairLinks links the A/B pages of the pairs keep() accepts.
  function pairLinks(keep) {
    var seen = {}, links = [];
    B.pairs.forEach(function (p) {
      var k = p.a + "/" + p.b;
      if (seen[k] || !keep(p)) return;
      seen[k] = 1;
      links.push(link("#/ab/" + k, letter(p.a) + " vs " + letter(p.b)));
    });
    return links.map(function (l, k) { return [k ? " · " : "", l]; });
  }
  // tableNote says which questions the overall leaves out and how the
  // intervals were taken.
  function tableNote(r) {
    var parts = [];
    if (r.head.left) parts.push("overall leaves out the " + r.head.left + " questions whose right answer is to decline (abstention), as the summary and compare do");
    var wilson = r.table.some(function (row) { return Object.keys(row.cells).some(function (k) { var ci = row.cells[k].ci || ""; return ci.indexOf("fewer than 5 conversations") >= 0; }); });
    if (wilson) parts.push("fewer than 5 conversations: metric judges' intervals are Wilson's over questions, not a bootstrap over conversations");
    return parts.length ? h("p", { class: "muted table-note" }, parts.join("; ") + ".") : null;
  }
  function runs() {
    app.textContent = "";
    var left = B.runs.map(function (r) { return r.head.left; }).filter(function (n) { return n > 0; });
    var offline = B.runs.some(function (r) { return r.head.offline; });
    var asOf = B.runs.map(function (r) { return r.head.as_of; }).filter(Boolean)[0];
    var many = B.groups.length > 1;
    add(app, h("p", { class: "muted", id: "headline-note" }, "Each run's primary judge, ×100 with 95% intervals (Wilson for verdict judges; for metric judges a bootstrap over conversations, Wilson's over questions with fewer than 5). " +
      (left.length ? "Overall leaves out the questions whose right answer is to decline, as the summary and compare do. " : "") +
      (asOf ? "Dollars at prices as of " + asOf + ". " : "") +
      (offline ? "Runs marked " + "offline heuristics" + " measure the pipeline, not model quality. " : "") + "Facts and manifests below."));
    if (many) {
      add(app, h("p", { id: "groups" }, B.runs.length + " runs in " + B.groups.length + " groups of comparable runs (the same dataset file, question set, primary judge and answer key): ",
        B.groups.map(function (g, gi) { return [gi ? " · " : "", link("#group-" + gi, g.name + " (" + runCount(g.runs.length) + ")", { onclick: function (ev) { ev.preventDefault(); document.getElementById("group-" + gi).scrollIntoView(); } })]; })));
    }
    B.groups.forEach(function (g, gi) {
      var inGroup = function (i) { return B.runs[i].group === gi; };
      var links = pairLinks(function (p) { return inGroup(p.a) && inGroup(p.b); });
      add(app, h("section", { class: "group", id: "group-" + gi },
        many || g.name ? h("h2", { class: "lbl group-name" }, g.name + " — " + runCount(g.runs.length)) : null,
        headlineTable(gi),
        links.length ? h("p", { class: "ab-links" }, "Side by side (paired as compare pairs them): ", links,
          B.runs.length > B.max_pair_runs && g.runs.length > B.max_pair_runs ? " (a group of more than " + B.max_pair_runs + " runs pairs its first run with each other; pick runs with --run to pair others)" : "") : null));
    });
    var across = pairLinks(function (p) { return B.runs[p.a].group !== B.runs[p.b].group; });
    if (across.length) add(app, h("p", { class: "ab-links" }, "Runs of different groups side by side (compare refuses what keeps them apart): ", across));
    B.runs.forEach(function (r, i) {
      var card = h("div", { class: "card run", id: "run-" + i },
        h("h2", { class: "lbl" }, label(i), " ", h("span", { class: "muted" }, r.id)),
        r.notes.map(function (n) { return h("div", { class: "note" }, n); }),
        h("h3", null, "Scores by category, every judge" + offlineTag(r)), scoreTable(r, i), tableNote(r), scoreChart(r),
        h("h3", null, "Costs" + offlineTag(r)), costTable(r),
        h("p", null, link("#/q/" + i, "Browse the " + r.nq + " questions →")),
        h("h3", null, "Manifest"),
        h("table", { class: "facts" }, r.facts.map(function (f) { return h("tr", null, h("td", null, f[0]), h("td", null, f[1])); })));
      add(app, card);
    });
  }

  // ---------- question browser ----------
  function verdictBadges(r, q) {
    return r.judges.map(function (j) {
      var v = q.v[j.name];
      if (!v) return h("span", { class: "badge muted" }, j.name + " —");
      return h("span", { class: "badge " + (v.c ? "ok" : "bad"), title: v.r || "" }, j.name + " " + (v.c ? "✓" : "✗") + (j.metric ? " " + fmt(100 * v.s, 0) : ""));
    });
  }
  function disagree(r, q) {
    var seen = {};
    r.judges.forEach(function (j) { var v = q.v[j.name]; if (v) seen[v.c] = 1; });
    return seen["true"] && seen["false"];
  }
  function filterQs(r, f) {
    var text = (f.text || "").toLowerCase();
    var out = r.qs.filter(function (q) {
      if (f.group && q.group !== f.group) return false;
      if (f.abs === "only" && !q.abs) return false;
      if (f.abs === "none" && q.abs) return false;
      if (f.dis === "1" && !disagree(r, q)) return false;
      for (var ji = 0; ji < r.judges.length; ji++) {
        var want = f["j." + r.judges[ji].name];
        if (!want) continue;
        var v = q.v[r.judges[ji].name];
        if (!v || (want === "correct") !== v.c) return false;
      }
      if (text && (q.id + "\n" + q.q + "\n" + q.gold + "\n" + q.pred).toLowerCase().indexOf(text) < 0) return false;
      return true;
    });
    var key = f.sort || "id";
    var primary = r.primary;
    var cmp = {
      id: null,
      group: function (a, b) { return a.cat - b.cat || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0); },
      "tokens-desc": function (a, b) { return b.tok - a.tok; },
      "tokens-asc": function (a, b) { return a.tok - b.tok; },
      "score-asc": function (a, b) { return ((a.v[primary] || {}).s || 0) - ((b.v[primary] || {}).s || 0); },
      "recall-asc": function (a, b) { return rec(a) - rec(b); }
    }[key];
    if (cmp) out = out.slice().sort(cmp);
    return out;
  }
  function rec(q) { return q.ev && q.ev.length ? q.hit / q.ev.length : 2; }
  function browse(i, f) {
    var r = run(i);
    var existing = document.getElementById("browser");
    if (!existing || existing.getAttribute("data-run") !== String(i)) {
      app.textContent = "";
      add(app, h("h2", { id: "browse-title" }, "Questions of " + label(i) + offlineTag(r)), h("div", { id: "browser", "data-run": String(i) },
        controls(r, i, f), h("div", { id: "results" })));
    } else syncControls(r, f);
    results(r, i, f);
  }
  function setParam(i, k, v) {
    var f = parseHash().params;
    f[k] = v;
    if (k !== "page") delete f.page;
    // replaceState keeps the text box focused: only the results re-render.
    history.replaceState(null, "", hashOf(["q", i], f));
    results(run(i), i, f);
  }
  // A picker never grows past its line whatever a run's label is: an
  // option's text is cut at SELCUT characters and keeps its whole text as its
  // title, and the picker's title is the chosen option's whole text (hover).
  var SELCUT = 64;
  function sel(id, opts, value, onchange) {
    var s = h("select", { id: id, onchange: function () { s.title = full(); onchange(s.value); } },
      opts.map(function (o) {
        var t = String(o[1]);
        return h("option", { value: o[0], title: t }, t.length > SELCUT ? t.slice(0, SELCUT - 1) + "…" : t);
      }));
    function full() { var o = s.options[s.selectedIndex]; return o ? o.title : ""; }
    s.value = value || "";
    s.title = full();
    return s;
  }
  function controls(r, i, f) {
    var box = h("div", { class: "controls" },
      h("label", null, "category ", sel("f-group", [["", "all"]].concat(r.groups.map(function (g) { return [g, g]; })), f.group, function (v) { setParam(i, "group", v); })));
    r.judges.forEach(function (j) {
      add(box, h("label", null, j.name + " ", sel("f-j-" + j.name, [["", "any"], ["correct", "correct"], ["wrong", "wrong"]], f["j." + j.name], function (v) { setParam(i, "j." + j.name, v); })));
    });
    var dis = h("input", { type: "checkbox", id: "f-dis", onchange: function () { setParam(i, "dis", dis.checked ? "1" : ""); } });
    dis.checked = f.dis === "1";
    var timer = null;
    var text = h("input", { type: "search", id: "f-text", placeholder: "question, gold or answer", value: f.text || "",
      oninput: function () { clearTimeout(timer); timer = setTimeout(function () { setParam(i, "text", text.value); }, 120); } });
    add(box,
      h("label", null, dis, " judges disagree"),
      h("label", null, "abstention ", sel("f-abs", [["", "any"], ["only", "only"], ["none", "leave out"]], f.abs, function (v) { setParam(i, "abs", v); })),
      h("label", null, "text ", text),
      h("label", null, "sort ", sel("f-sort", [["id", "question id"], ["group", "category"], ["score-asc", r.primary + " score, low first"],
        ["tokens-desc", "context tokens, most first"], ["tokens-asc", "context tokens, fewest first"], ["recall-asc", "evidence recall, lowest first"]], f.sort || "id", function (v) { setParam(i, "sort", v); })));
    return box;
  }
  function syncControls(r, f) {
    var set = function (id, v) { var el = document.getElementById(id); if (el && el.value !== (v || "")) el.value = v || ""; };
    set("f-group", f.group); set("f-abs", f.abs); set("f-sort", f.sort || "id");
    r.judges.forEach(function (j) { set("f-j-" + j.name, f["j." + j.name]); });
    var d = document.getElementById("f-dis"); if (d) d.checked = f.dis === "1";
  }
  function pager(total, page, go) {
    var pages = Math.max(1, Math.ceil(total / PAGE));
    return h("div", { class: "pager" },
      h("button", { disabled: page <= 1, onclick: function () { go(page - 1); } }, "← prev"),
      h("span", { class: "page-of" }, "page " + page + " of " + pages),
      h("button", { disabled: page >= pages, onclick: function () { go(page + 1); } }, "next →"));
  }
  function results(r, i, f) {
    var box = document.getElementById("results");
    var qs = filterQs(r, f);
    var pages = Math.max(1, Math.ceil(qs.length / PAGE));
    var page = Math.min(Math.max(1, +f.page || 1), pages);
    box.textContent = "";
    var go = function (p) { setParam(i, "page", String(p)); };
    add(box, h("p", { id: "count" }, qs.length + " of " + r.qs.length + " questions"), pager(qs.length, page, go));
    var rows = qs.slice((page - 1) * PAGE, page * PAGE).map(function (q) {
      return h("tr", { class: "qrow", "data-qid": q.id },
        h("td", null, link("#/question/" + i + "/" + enc(q.id), q.id)),
        h("td", null, q.group + (q.abs ? " (abstain)" : "")),
        h("td", null, q.q), h("td", null, q.gold), h("td", null, q.pred),
        h("td", null, verdictBadges(r, q)),
        h("td", { class: "num" }, q.tok),
        h("td", { class: "num" }, q.ev && q.ev.length ? q.hit + "/" + q.ev.length : "—"));
    });
    add(box, h("table", { id: "qtable" },
      h("tr", null, ["id", "category", "question", "gold", "answer", "verdicts", "ctx tokens", "evidence"].map(function (t) { return h("th", null, t); })), rows),
      pager(qs.length, page, go));
  }

  // ---------- question page ----------
  function messages(msgs) {
    if (!msgs || !msgs.length) return h("p", { class: "muted" }, "no request (not a model call)");
    return msgs.map(function (m) { return h("div", null, h("b", null, m.role), h("pre", null, m.content)); });
  }
  function itemsTable(items, cls) {
    if (!items || !items.length) return h("p", { class: "muted" }, "none");
    return h("table", { class: cls },
      h("tr", null, ["#", "id", "kind", "time", "speaker", "sources", "score", "text"].map(function (t) { return h("th", null, t); })),
      items.map(function (it, k) {
        return h("tr", null, h("td", { class: "num" }, k + 1), h("td", null, it.id), h("td", null, it.kind || ""),
          h("td", null, (it.time || "").replace("T", " ").replace(/:00Z$|Z$/, "")), h("td", null, it.speaker || ""),
          h("td", null, (it.sources || []).join(" ")), h("td", { class: "num" }, fmt(it.score, 3)), h("td", null, it.text));
      }));
  }
  function verdictTable(r, q) {
    var tx = q.tx || {};
    var calls = {};
    // A repeated judge's verdict shown is its first repeat's, so is its call.
    (tx.judges || []).forEach(function (j) { if (!calls[j.judge] || !j.repeat) calls[j.judge] = j; });
    return h("table", { id: "verdicts" },
      h("tr", null, ["judge", "verdict", "score", "reason", "request and raw reply"].map(function (t) { return h("th", null, t); })),
      r.judges.map(function (j) {
        var v = q.v[j.name], c = calls[j.name];
        if (!v) return h("tr", null, h("td", null, j.name), h("td", { colspan: "4", class: "muted" }, "not judged"));
        var raw = c ? c.raw : v.raw;
        return h("tr", { class: "verdict", "data-judge": j.name },
          h("td", { title: j.desc || "" }, j.name),
          h("td", { class: v.c ? "ok" : "bad" }, v.c ? "correct" : "wrong"),
          h("td", { class: "num" }, fmt(v.s, 3)),
          h("td", null, v.r || ""),
          h("td", null, (c && c.messages && c.messages.length) || raw ? h("details", null, h("summary", null, c && c.seconds !== undefined ? fmt(c.seconds, 3) + " s" : "show"),
            c ? messages(c.messages) : null, raw ? [h("b", null, "raw reply"), h("pre", null, raw)] : null) : h("span", { class: "muted" }, "metric")));
      }));
  }
  function conversation(q, retrieved) {
    var conv = B.convs[q.conv];
    if (!conv) return h("p", { class: "muted" }, "the conversation text is not available (see the run's notes)");
    var ev = {};
    (q.ev || []).forEach(function (e) { ev[e] = 1; });
    var box = h("div", { id: "conversation" },
      h("p", { class: "legend" }, h("span", { class: "swatch evidence" }, "evidence"), h("span", { class: "swatch retrieved" }, "retrieved"),
        h("span", { class: "swatch evidence retrieved" }, "evidence and retrieved"),
        h("span", { class: "muted" }, "sessions holding neither are folded")));
    var sessions = conv.sessions;
    // Long haystacks (LongMemEval) are paginated by session; the first
    // page shown is the one holding the first evidence turn.
    var per = sessions.length > 30 ? 10 : sessions.length;
    var hot = sessions.map(function (s) { return s.turns.some(function (t) { return ev[t[0]] || retrieved[t[0]]; }); });
    var start = 0;
    if (per < sessions.length) {
      var first = -1;
      sessions.forEach(function (s, k) { if (first < 0 && s.turns.some(function (t) { return ev[t[0]]; })) first = k; });
      if (first < 0) first = hot.indexOf(true);
      start = Math.max(0, first) - (Math.max(0, first) % per);
    }
    var list = h("div");
    function show(from) {
      list.textContent = "";
      if (per < sessions.length) {
        add(list, h("div", { class: "pager" },
          h("button", { disabled: from === 0, onclick: function () { show(from - per); } }, "← sessions"),
          "sessions " + (from + 1) + "–" + Math.min(sessions.length, from + per) + " of " + sessions.length,
          h("button", { disabled: from + per >= sessions.length, onclick: function () { show(from + per); } }, "sessions →")));
      }
      sessions.slice(from, from + per).forEach(function (s, k) {
        var d = h("details", { class: "session", open: hot[from + k] },
          h("summary", null, h("b", null, s.id), " ", h("span", { class: "muted" }, s.date + " · " + s.turns.length + " turns")),
          s.turns.map(function (t) {
            var cls = "turn" + (ev[t[0]] ? " evidence" : "") + (retrieved[t[0]] ? " retrieved" : "");
            return h("div", { class: cls, "data-turn": t[0] }, h("span", { class: "tid" }, t[0]), h("b", null, t[1] + ": "), t[2]);
          }));
        add(list, d);
      });
    }
    show(start);
    add(box, list);
    return box;
  }
  function retrievedSet(q) {
    var s = {};
    if (q.tx && q.tx.items) q.tx.items.forEach(function (it) { (it.sources || []).forEach(function (x) { s[x] = 1; }); });
    else (q.ret || []).forEach(function (x) { s[x] = 1; });
    return s;
  }
  function question(i, qid) {
    var r = run(i), q = r.byId[qid];
    if (!q) throw new Error("run " + label(i) + " has no question " + qid);
    if (needTx(i, q)) return withTx([[i, q]], function () { question(i, qid); });
    var tx = q.tx;
    // A judge added to a run whose question has no full transcript: only
    // that judge's call is known.
    if (tx && tx.part) tx = null;
    app.textContent = "";
    var others = [];
    B.runs.forEach(function (o, k) {
      if (k !== i && o.byId[qid]) others.push(h("span", null, link("#/question/" + k + "/" + enc(qid), "in " + label(k)), " (",
        link("#/pair/" + Math.min(i, k) + "/" + Math.max(i, k) + "/" + enc(qid), "side by side"), ") "));
    });
    add(app,
      h("p", null, link("#/q/" + i, "← questions of " + label(i)), others.length ? [" · ", others] : null),
      h("h2", { id: "qtitle" }, q.id + " · " + q.group + (q.abs ? " · abstention expected" : "")),
      h("table", { class: "facts" },
        h("tr", null, h("td", null, "question"), h("td", { id: "qtext" }, q.q)),
        h("tr", null, h("td", null, "gold"), h("td", { id: "gold" }, q.gold || "(none)")),
        h("tr", null, h("td", null, "answer"), h("td", { id: "answer" }, h("b", null, q.pred))),
        h("tr", null, h("td", null, "evidence"), h("td", null, (q.ev || []).join(" ") + (q.ev && q.ev.length ? "  (" + q.hit + " of " + q.ev.length + " retrieved)" : ""))),
        tx ? h("tr", null, h("td", null, "time, tokens"), h("td", null,
          "retrieve " + fmt(tx.retrieve_seconds, 3) + " s · answer " + fmt(tx.answer.seconds, 3) + " s, " +
          int(tx.answer.usage.input_tokens) + " in / " + int(tx.answer.usage.output_tokens) + " out tokens" + (tx.answer.cached ? " (cached)" : "") +
          " · context " + int(tx.context_tokens) + " tokens")) : null),
      h("h3", null, "Verdicts" + offlineTag(r)), verdictTable(r, q));
    if (tx) {
      add(app,
        h("h3", null, "Context, as the answer model read it"), h("pre", { id: "context" }, tx.context || "(empty)"),
        h("h3", null, "Retrieved items (" + (tx.items || []).length + ")"), itemsTable(tx.items, "items"),
        tx.candidates && tx.candidates.length ? [h("h3", null, "Candidates of the first stage (" + tx.candidates.length + "), with their scores"), itemsTable(tx.candidates, "candidates")] : null,
        tx.notes ? [h("h3", null, "System notes"), h("pre", null, JSON.stringify(tx.notes, null, 1))] : null,
        h("details", { id: "answer-call" }, h("summary", null, h("b", null, "Answer request and raw reply")), messages(tx.answer.messages), h("b", null, "raw reply"), h("pre", null, tx.answer.raw)));
    } else {
      add(app, h("div", { class: "note", id: "context" }, "no transcript for this question: the context and requests were not saved (run made before transcripts, or with --no-transcripts)"));
    }
    add(app, h("h3", null, "Conversation"), conversation(q, retrievedSet(q)));
    window.scrollTo(0, 0);
  }

  // ---------- A/B ----------
  function pairsOf(a, b) { return B.pairs.filter(function (p) { return p.a === a && p.b === b; }); }
  function ab(a, b, f) {
    if (a > b) { var t = a; a = b; b = t; }
    run(a); run(b);
    var ps = pairsOf(a, b);
    app.textContent = "";
    add(app, h("h2", null, "A/B: " + label(a) + " vs " + label(b)));
    if (B.runs.length > 2) {
      var opts = [];
      B.pairs.forEach(function (p) { var k = p.a + "/" + p.b; if (!opts.some(function (o) { return o[0] === k; })) opts.push([k, label(p.a) + " vs " + label(p.b)]); });
      add(app, h("p", null, "pair ", sel("ab-pair", opts, a + "/" + b, function (v) { location.hash = "#/ab/" + v; })));
    }
    if (!ps.length) { add(app, h("div", { class: "note" }, "these runs share no judge")); return; }
    // With no judge named, the one compare uses (A's primary judge when B has it).
    var def = ps.filter(function (x) { return x.default; })[0] || ps[0];
    var judge = f.judge || def.judge;
    var p = ps.filter(function (x) { return x.judge === judge; })[0] || def;
    judge = p.judge;
    add(app, h("p", null, "judge ", sel("ab-judge", ps.map(function (x) { return [x.judge, x.judge + (x.default ? " (compare's default)" : "")]; }), judge, function (v) { location.hash = hashOf(["ab", a, b], { judge: v }); })),
      h("p", { class: "muted", id: "ab-command" }, "The same figures as: membench compare --run " + run(a).dir + " --run " + run(b).dir + (p.default ? "" : " --judge " + judge) +
        ((p.mixed || []).length ? " --allow-mixed" : "") + " (exclusions: --exclude-group " + (p.exclude || []).join(",") + ", compare's default)"));
    if (p.error) {
      add(app, h("div", { class: "note", id: "ab-error" }, "compare cannot pair these runs under judge " + judge + ": " + p.error +
        ((p.mixed || []).length ? " (the runs differ in " + p.mixed.join("; ") + ")" : "")));
      return;
    }
    var res = p.result;
    var cnt = function (c) { return p.cells[c].length; };
    var cell = function (c, text) {
      return h("td", { class: "cell" + (f.cell === c ? " sel" : ""), "data-cell": c, title: text },
        link(hashOf(["ab", a, b], { judge: judge, cell: c }), String(cnt(c))));
    };
    var pv = res.p_value === null || res.p_value === undefined ? "n/a" : (res.p_value < 1e-4 ? res.p_value.toExponential(2) : fmt(res.p_value, 4));
    add(app,
      h("table", { id: "ab-cells" },
        h("tr", null, h("th", null, ""), h("th", null, "B right"), h("th", null, "B wrong")),
        h("tr", null, h("th", null, "A right"), cell("both", "both right"), cell("a", "only A right")),
        h("tr", null, h("th", null, "A wrong"), cell("b", "only B right"), cell("neither", "neither right"))),
      h("p", { id: "ab-stats" }, res.n + " paired questions · A " + fmt(res.accuracy_a) + "% · B " + fmt(res.accuracy_b) + "% · discordant: only A " + res.only_a +
        ", only B " + res.only_b + " · McNemar exact p = " + pv + (res.kappa !== null && res.kappa !== undefined ? " · Cohen's κ " + fmt(res.kappa, 3) : "") +
        (res.measure !== "verdict" ? " · measure: " + res.measure : "")),
      h("p", { id: "ab-verdict" }, res.verdict),
      (p.notes || []).map(function (n) { return h("div", { class: "note ab-note" }, n); }),
      h("p", { class: "muted" }, "A = " + run(a).id + ", B = " + run(b).id + ". Click a cell to list its questions."));
    if (f.cell && p.cells[f.cell]) {
      var ids = p.cells[f.cell];
      var page = Math.min(Math.max(1, +f.page || 1), Math.max(1, Math.ceil(ids.length / PAGE)));
      var go = function (pg) { location.hash = hashOf(["ab", a, b], { judge: judge, cell: f.cell, page: pg }); };
      var ra = run(a), rb = run(b);
      add(app, h("h3", null, { both: "Both right", a: "Only A right", b: "Only B right", neither: "Neither right" }[f.cell] + " (" + ids.length + ")"),
        pager(ids.length, page, go),
        h("table", { id: "ab-list" },
          h("tr", null, ["id", "category", "question", "gold", "A answer", "B answer", ""].map(function (t) { return h("th", null, t); })),
          ids.slice((page - 1) * PAGE, page * PAGE).map(function (id) {
            var qa = ra.byId[id], qb = rb.byId[id];
            return h("tr", { class: "abrow" }, h("td", null, id), h("td", null, qa.group), h("td", null, qa.q), h("td", null, qa.gold),
              h("td", null, qa.pred), h("td", null, qb.pred), h("td", null, link("#/pair/" + a + "/" + b + "/" + enc(id), "side by side")));
          })));
    }
  }
  function pair(a, b, qid) {
    var ra = run(a), rb = run(b), qa = ra.byId[qid], qb = rb.byId[qid];
    if (!qa || !qb) throw new Error("question " + qid + " is not in both runs");
    if (needTx(a, qa) || needTx(b, qb)) return withTx([[a, qa], [b, qb]], function () { pair(a, b, qid); });
    app.textContent = "";
    add(app, h("p", null, link("#/ab/" + a + "/" + b, "← A/B")),
      h("h2", null, qid + " · " + qa.group),
      h("table", { class: "facts" }, h("tr", null, h("td", null, "question"), h("td", null, qa.q)), h("tr", null, h("td", null, "gold"), h("td", null, qa.gold || "(none)"))));
    var side = function (k, r, q) {
      return h("div", { class: "side", id: "side-" + (k === a ? "a" : "b") },
        h("h3", null, (k === a ? "A · " : "B · ") + label(k)), h("p", null, "answer: ", h("b", null, q.pred)),
        h("div", null, verdictBadges(r, q)),
        h("p", null, link("#/question/" + k + "/" + enc(qid), "question page")),
        h("pre", { class: "context" }, q.tx ? q.tx.context : "(no transcript)"));
    };
    add(app, h("div", { class: "cols" }, side(a, ra, qa), side(b, rb, qb)));
  }

  // ---------- costs ----------
  function costs() {
    app.textContent = "";
    add(app, h("h2", null, "Costs"), h("p", { class: "muted" }, "Model use by stage from each run's costs.jsonl (every attempt, cached calls counted apart), dollars as report --table dollars prices them; latencies per question from the transcripts."));
    var tok = [], secs = [];
    B.runs.forEach(function (r, i) {
      var build = 0, answer = 0, all = 0, s = 0;
      r.costs.forEach(function (c) { all += c.in + c.out; s += c.seconds; if (c.stage === "build") build += c.in + c.out; if (c.stage === "answer") answer += c.in + c.out; });
      tok.push({ label: label(i), value: all, text: int(all) + " (build " + int(build) + ", answer " + int(answer) + ")" + offlineTag(r) });
      secs.push({ label: label(i), value: s, text: fmt(s, 1) + " s" + offlineTag(r) });
      var l = r.latency;
      add(app, h("div", { class: "card" }, h("h3", { class: "lbl" }, label(i) + offlineTag(r)), costTable(r),
        r.build_time ? h("p", { class: "build-time" }, "build time: " + r.build_time) : null,
        l ? h("p", null, "per question (mean over " + l.n + " transcripts): retrieve " + fmt(l.retrieve * 1000, 1) + " ms, answer " + fmt(l.answer * 1000, 1) + " ms" +
          Object.keys(l.judges).sort().map(function (j) { return ", judge " + j + " " + fmt(l.judges[j] * 1000, 1) + " ms"; }).join("")) : null));
    });
    add(app, h("div", { class: "card", id: "cost-charts" }, barTable("chart-tokens", "model tokens, all stages", tok), barTable("chart-seconds", "model-call seconds, all stages", secs)));
  }

  // The landing page is drawn at once from the plain data in the page;
  // the packed questions and verdicts follow.
  var headEl = document.getElementById("head");
  if (headEl && headEl.textContent.trim()) {
    B = JSON.parse(headEl.textContent);
    B.partial = true;
    index();
    nav();
    render();
    window.addEventListener("hashchange", function () { if (B.partial) render(); });
    document.body.setAttribute("data-first", "head");
    // Milliseconds from navigation to the landing page drawn, for the timing test.
    document.body.setAttribute("data-first-ms", String(Math.round(performance.now())));
  }
  else if (!document.getElementById("bundle")) {
    // Served while the runs are read: say how far, and draw the landing
    // page when its data comes.
    var waiting = h("p", { id: "loading" }, "Reading the runs…");
    add(app, waiting);
    var headDone = false;
    var poll = function () {
      getJSON("status.json").then(function (st) {
        if (headDone) return;
        waiting.textContent = "Reading the runs: " + st.read + " of " + st.runs + " read…";
        setTimeout(poll, 250);
      }).catch(function () { });
    };
    poll();
    getJSON("head.json").then(function (hd) {
      headDone = true;
      if (B) return; // the questions came first
      B = hd;
      B.partial = true;
      index();
      nav();
      render();
      window.addEventListener("hashchange", function () { if (B.partial) render(); });
      document.body.setAttribute("data-first", "fetched");
      document.body.setAttribute("data-first-ms", String(Math.round(performance.now())));
    }).catch(function (e) {
      headDone = true;
      if (!B) app.textContent = "Cannot read the runs: " + e.message;
    });
  }
  load().then(function (b) {
    document.body.setAttribute("data-loaded-ms", String(Math.round(performance.now())));
    var route = document.body.getAttribute("data-route");
    B = b;
    index();
    nav();
    window.addEventListener("hashchange", render);
    // The landing page drawn from the head data stays as it is.
    if (route !== "runs" || parseHash().parts.length) render();
    document.body.setAttribute("data-ready", "1");
    // Milliseconds from navigation to the first page drawn, for the timing test.
    document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));
  }).catch(function (e) {
    var msg = "Cannot load the questions of the runs: " + e.message;
    if (B && B.partial) add(app, h("div", { class: "note", id: "load-error" }, msg));
    else app.textContent = msg;
  });
})();
