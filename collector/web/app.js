// claimwatch dashboard: renders panels defined as data (dashboards/*.yaml) from named queries.
// Live mode fetches /api/query/<name> from the collector; static mode (claimwatch report) reads
// the results embedded in the page. No request ever leaves the page's own origin.
(function () {
  "use strict";
  const CW = window.CLAIMWATCH || { mode: "live", dashboard: "overview" };
  const STATIC = CW.mode === "static";
  const COLORS = { pass: "#2e9d5b", flag: "#d99a1e", block: "#c8413a", error_fallback: "#8a94a3",
                   flag_pct: "#d99a1e", block_pct: "#c8413a", blocks: "#c8413a" };
  const PALETTE = ["#3b6fd4", "#2e9d5b", "#d99a1e", "#c8413a", "#7a55c7", "#1f9aa8", "#8a94a3", "#d4663b"];
  const RANGES = { "15m": 15 * 60, "1h": 3600, "6h": 6 * 3600, "24h": 86400, "7d": 7 * 86400, "30d": 30 * 86400 };
  const state = { spec: null, range: "24h", from: null, to: null, refresh: 0, timer: null,
                  charts: {}, data: {}, filters: {}, sort: {} };

  const $ = (sel) => document.querySelector(sel);
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const child of children) if (child != null) node.append(child);
    return node;
  };

  // With service.api.token set, query data needs the token: open the dashboard once as
  // /dashboard?token=...; it is kept in this tab's sessionStorage and taken out of the address bar.
  function apiToken() {
    if (STATIC) return "";
    const url = new URL(window.location.href);
    const given = url.searchParams.get("token");
    if (given) {
      sessionStorage.setItem("claimwatch.token", given);
      url.searchParams.delete("token");
      window.history.replaceState(null, "", url.pathname + url.search + url.hash);
    }
    return sessionStorage.getItem("claimwatch.token") || "";
  }
  const TOKEN = apiToken();

  async function getJSON(url) {
    const headers = { Accept: "application/json" };
    if (TOKEN) headers.Authorization = `Bearer ${TOKEN}`;
    const response = await fetch(url, { headers });
    const body = await response.json();
    if (response.status === 401) throw new Error(`${body.error} (open this page as /dashboard?token=<token>)`);
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  }

  function windowSeconds() {
    if (state.range !== "custom") return RANGES[state.range];
    return Math.max(60, (Date.parse(state.to) - Date.parse(state.from)) / 1000);
  }

  function bucketFor(seconds) {
    if (seconds <= 3600) return "1 minute";
    if (seconds <= 6 * 3600) return "5 minutes";
    if (seconds <= 2 * 86400) return "1 hour";
    if (seconds <= 8 * 86400) return "6 hours";
    return "1 day";
  }

  function panelParams(panel) {
    const params = Object.assign({}, panel.params || {});
    const takes = new Set(panel.queryParams || []);
    if (state.range === "custom") {
      if (takes.has("since") && state.from) params.since = new Date(state.from).toISOString();
      if (takes.has("until") && state.to) params.until = new Date(state.to).toISOString();
    } else if (takes.has("since")) {
      params.since = state.range;
    }
    if (takes.has("bucket")) params.bucket = bucketFor(windowSeconds());
    for (const [k, v] of Object.entries(state.filters[panel.id] || {})) if (v) params[k] = v;
    return params;
  }

  async function loadPanel(panel) {
    if (STATIC) return CW.data[panel.id];
    const query = new URLSearchParams(panelParams(panel)).toString();
    return getJSON(`/api/query/${encodeURIComponent(panel.query)}${query ? "?" + query : ""}`);
  }

  function format(value, column) {
    if (value === null || value === undefined) return "";
    if (Array.isArray(value)) return value.join(", ");
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (/time|bucket|last_seen/.test(column) && typeof value === "string") return value.replace("T", " ").slice(0, 19);
    if (typeof value === "number" && !Number.isInteger(value)) return value.toFixed(2);
    return String(value);
  }

  function columnsOf(data) { return data.columns.reduce((acc, c, i) => (acc[c] = i, acc), {}); }

  // --- charts ----------------------------------------------------------------------------------
  function renderChart(panel, box, data) {
    const idx = columnsOf(data);
    const labels = data.rows.map((r) => format(r[idx[panel.x]], panel.x));
    const doughnut = panel.chart === "doughnut";
    const datasets = panel.series.map((name, i) => ({
      label: name,
      data: data.rows.map((r) => r[idx[name]]),
      backgroundColor: doughnut ? data.rows.map((_, j) => PALETTE[j % PALETTE.length])
                                : (COLORS[name] || PALETTE[i % PALETTE.length]),
    }));
    const existing = state.charts[panel.id];
    if (existing) {
      existing.data.labels = labels;
      existing.data.datasets = datasets;
      existing.update("none");
      return;
    }
    const stacked = panel.chart === "stacked_bar";
    const type = doughnut ? "doughnut" : panel.chart === "line" ? "line" : "bar";
    const options = {
      responsive: true, maintainAspectRatio: false, animation: false,
      plugins: { legend: { position: "bottom", labels: { boxWidth: 12 } } },
    };
    if (!doughnut) {
      options.indexAxis = panel.chart === "hbar" ? "y" : "x";
      options.scales = { x: { stacked, ticks: { autoSkip: true, maxRotation: 0 } }, y: { stacked, beginAtZero: true } };
    }
    const canvas = el("canvas", { "aria-label": panel.title, role: "img" });
    box.append(canvas);
    state.charts[panel.id] = new Chart(canvas, { type, data: { labels, datasets }, options });
  }

  // --- tables ----------------------------------------------------------------------------------
  function sortedRows(panel, data) {
    const sort = state.sort[panel.id];
    if (!sort) return data.rows;
    const i = columnsOf(data)[sort.column];
    const dir = sort.dir === "asc" ? 1 : -1;
    return data.rows.slice().sort((a, b) => {
      const x = a[i], y = b[i];
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * dir;
    });
  }

  function header(panel, data, columns, rerender) {
    const row = el("tr");
    for (const column of columns) {
      const th = el("th", { text: column, "data-column": column });
      const sort = state.sort[panel.id];
      if (sort && sort.column === column) th.classList.add(`sorted-${sort.dir}`);
      th.addEventListener("click", () => {
        const current = state.sort[panel.id];
        state.sort[panel.id] = { column, dir: current && current.column === column && current.dir === "desc" ? "asc" : "desc" };
        rerender();
      });
      row.append(th);
    }
    return el("thead", {}, row);
  }

  function renderTable(panel, box, data) {
    const columns = (panel.columns && panel.columns.length) ? panel.columns : data.columns;
    const idx = columnsOf(data);
    const rerender = () => renderTable(panel, box, data);
    const body = el("tbody");
    const violations = panel.chart === "violations";
    for (const r of sortedRows(panel, data)) {
      const tr = el("tr", { class: violations ? "main" : "" });
      for (const column of columns) {
        const value = r[idx[column]];
        const td = el("td", { class: /claims|reasons|assertions/.test(column) ? "wrap" : "" });
        if (column === "verdict" || column === "action") td.append(el("span", { class: `badge ${value}`, text: format(value, column) }));
        else td.textContent = format(value, column);
        tr.append(td);
      }
      body.append(tr);
      if (violations) {
        const explain = el("td", { colspan: String(columns.length) },
          el("span", { text: `why: ${r[idx.reason] || ""}` }), " ",
          el("span", { class: "ids", text: `trace ${r[idx.trace_id]} · span ${r[idx.span_id]}` }));
        body.append(el("tr", { class: "explain" }, explain));
      }
    }
    const table = el("table", { "data-panel": panel.id }, header(panel, data, columns, rerender), body);
    box.replaceChildren(data.rows.length ? el("div", { class: "table-wrap" }, table)
                                         : el("div", { class: "empty", text: "no rows in this range" }));
  }

  // --- violations filters ----------------------------------------------------------------------
  const CHOICES = { tier: ["untrusted", "restricted", "standard", "trusted", "privileged"],
                    category: ["system_state", "entity_name", "existence", "operational_status", "capability", "self_referential"],
                    verdict: ["flag", "block"], mode: ["audit", "enforce"] };

  function filterBar(panel) {
    const bar = el("div", { class: "filters" });
    const current = state.filters[panel.id] = state.filters[panel.id] || {};
    for (const name of panel.filters || []) {
      let input;
      if (CHOICES[name]) {
        input = el("select", { name }, el("option", { value: "", text: "any" }));
        for (const choice of CHOICES[name]) input.append(el("option", { value: choice, text: choice }));
      } else {
        input = el("input", { name, placeholder: name === "agent" || name === "detector" ? "glob, e.g. worker-*" : "" });
        if (name === "agent") input.setAttribute("list", `${panel.id}-agents`);
      }
      input.addEventListener("change", () => { current[name] = input.value.trim(); refreshPanel(panel); });
      bar.append(el("label", {}, name, input));
    }
    bar.append(el("datalist", { id: `${panel.id}-agents` }));
    return bar;
  }

  function staticFilter(panel, data) {
    const filters = state.filters[panel.id] || {};
    const idx = columnsOf(data);
    const column = { agent: "agent_id", session: "session_id", tier: "trust_tier", detector: "detector_id",
                     fact: "fact_id", trace: "trace_id" };
    const glob = (pattern) => new RegExp("^" + pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") + "$");
    const rows = data.rows.filter((r) => Object.entries(filters).every(([k, v]) => {
      if (!v) return true;
      const value = String(r[idx[column[k] || k]] ?? "");
      return (k === "agent" || k === "detector") ? glob(v).test(value) : value === v;
    }));
    return { columns: data.columns, rows };
  }

  // --- panels ----------------------------------------------------------------------------------
  function buildPanels() {
    const main = $("#panels");
    main.replaceChildren();
    for (const panel of state.spec.panels) {
      const box = el("div", { class: panel.chart === "table" || panel.chart === "violations" ? "table-box" : "chart-box" });
      const node = el("section", { class: `panel w${panel.width}`, id: `panel-${panel.id}`, "data-chart": panel.chart },
        el("h2", { text: panel.title }), el("p", { class: "desc muted", text: panel.description || "" }),
        panel.chart === "violations" ? filterBar(panel) : null, box);
      panel._box = box;
      main.append(node);
    }
  }

  async function refreshPanel(panel) {
    const box = panel._box;
    try {
      let data = await loadPanel(panel);
      if (STATIC && panel.chart === "violations") data = staticFilter(panel, data);
      state.data[panel.id] = data;
      box.closest(".panel").setAttribute("data-rows", String(data.rows.length));
      if (panel.chart === "table" || panel.chart === "violations") renderTable(panel, box, data);
      else if (!data.rows.length) {
        if (state.charts[panel.id]) { state.charts[panel.id].destroy(); delete state.charts[panel.id]; }
        box.replaceChildren(el("div", { class: "empty", text: "no data in this range" }));
      } else {
        if (!state.charts[panel.id]) box.replaceChildren();
        renderChart(panel, box, data);
      }
      if (panel.chart === "violations") {
        const list = document.getElementById(`${panel.id}-agents`);
        const agents = [...new Set(data.rows.map((r) => r[columnsOf(data).agent_id]))].sort();
        list.replaceChildren(...agents.map((a) => el("option", { value: a })));
      }
    } catch (err) {
      box.replaceChildren(el("div", { class: "error", text: `could not load: ${err.message}` }));
    }
  }

  async function refreshAll() {
    await Promise.all(state.spec.panels.map(refreshPanel));
    $("#updated").textContent = STATIC ? `report for ${CW.range || ""}, generated ${CW.generated || ""}`
                                       : `updated ${new Date().toISOString().slice(11, 19)} UTC`;
    document.body.setAttribute("data-ready", "true");
  }

  function schedule() {
    if (state.timer) clearInterval(state.timer);
    state.timer = state.refresh > 0 && !STATIC ? setInterval(refreshAll, state.refresh * 1000) : null;
  }

  async function init() {
    state.spec = STATIC ? CW.spec : await getJSON(`/api/dashboards/${encodeURIComponent(CW.dashboard)}`);
    document.title = state.spec.title;
    $("#title").textContent = state.spec.title;
    state.range = STATIC ? "custom" : state.spec.defaultRange;
    state.refresh = STATIC ? 0 : state.spec.refreshSeconds;
    $("#range").value = state.range;
    $("#refresh").value = String(state.refresh);
    if (STATIC) { $("#range").disabled = true; $("#refresh").disabled = true; }
    $("#range").addEventListener("change", (e) => {
      state.range = e.target.value;
      $("#custom-range").hidden = state.range !== "custom";
      if (state.range !== "custom") refreshAll();
    });
    $("#apply-range").addEventListener("click", () => {
      state.from = $("#from").value; state.to = $("#to").value;
      if (state.from && state.to) refreshAll();
    });
    $("#refresh").addEventListener("change", (e) => { state.refresh = Number(e.target.value); schedule(); });
    buildPanels();
    await refreshAll();
    schedule();
  }

  init().catch((err) => {
    $("#panels").replaceChildren(el("div", { class: "panel w3 error", text: `dashboard failed to load: ${err.message}` }));
  });
})();
