// autotune web page: reads the JSON API under /v1 and renders jobs, a job's tuning curves
// and the fleet. No framework, no CDN; the curves are inline SVG drawn here.
// The bearer token lives in this tab's sessionStorage (see service/web/routes.py).
"use strict";

const TOKEN_KEY = "autotune.token";
const REFRESH_MS = { jobs: 5000, job: 2000, fleet: 5000 };
const LIVE_STATES = new Set(["queued", "waiting_for_worker", "pending", "running"]);
const SVG_NS = "http://www.w3.org/2000/svg";

// -- token -------------------------------------------------------------------------------

function takeTokenFromAddress() {
  const url = new URL(window.location.href);
  const token = url.searchParams.get("token");
  if (token) {
    sessionStorage.setItem(TOKEN_KEY, token);
    url.searchParams.delete("token");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(path) {
  const headers = { Accept: "application/json" };
  if (token()) headers.Authorization = "Bearer " + token();
  const response = await fetch(path, { headers, cache: "no-store" });
  if (!response.ok) {
    let detail = response.statusText;
    try {
      const body = await response.json();
      if (body && body.detail) detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    } catch (_) { /* not JSON: keep the status text */ }
    throw new ApiError(response.status, detail);
  }
  return response.json();
}

// -- small DOM helpers -------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function table(id, headings, rows) {
  const head = el("tr", null, ...headings.map((h) => el("th", { scope: "col" }, h)));
  return el("table", { id }, el("thead", null, head), el("tbody", null, ...rows));
}

function setStatus(text, kind) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.className = kind || "";
}

function fmtNumber(value, digits) {
  if (value === null || value === undefined || !isFinite(value)) return "–";
  return Number(value).toFixed(digits === undefined ? 2 : digits);
}

function fmtCost(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  if (seconds < 1e-3) return fmtNumber(seconds * 1e6, 1) + " µs";
  if (seconds < 1) return fmtNumber(seconds * 1e3, 2) + " ms";
  return fmtNumber(seconds, 2) + " s";
}

function fmtTime(epochS) {
  if (epochS === null || epochS === undefined) return "–";
  return new Date(epochS * 1000).toLocaleString();
}

function fmtAgo(epochS) {
  if (epochS === null || epochS === undefined) return "–";
  const seconds = Math.max(0, Date.now() / 1000 - epochS);
  if (seconds < 90) return Math.round(seconds) + " s ago";
  if (seconds < 5400) return Math.round(seconds / 60) + " min ago";
  return Math.round(seconds / 3600) + " h ago";
}

function progress(done, total) {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  return el("progress", { max: 1, value: fraction.toFixed(4), title: done + " / " + total });
}

// -- tuning curve (inline SVG) -----------------------------------------------------------

// A round step (1, 2, 2.5 or 5 times a power of ten) so that 4 steps cover `value`.
function niceStep(value) {
  const raw = value > 0 ? value / 4 : 0.25;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= raw) return step * power;
  return 10 * power;
}

// A step line of best GFLOPS (y) against trials (x), with labelled axes.
function curveSvg(points, label) {
  const width = 420, height = 190, left = 48, right = 12, top = 22, bottom = 30;
  const known = points.filter((p) => p.best_gflops !== null && p.best_gflops !== undefined);
  const root = svg("svg", {
    class: "curve", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": label, "data-points": known.length,
  });
  root.append(svg("title", {}, label));
  const trialStep = Math.max(1, Math.ceil(niceStep(Math.max(1, ...points.map((p) => p.trials)))));
  const gflopsStep = niceStep(Math.max(0, ...known.map((p) => p.best_gflops)));
  const maxTrials = 4 * trialStep, maxGflops = 4 * gflopsStep;
  const x = (trials) => left + (trials / maxTrials) * (width - left - right);
  const y = (gflops) => top + (1 - gflops / maxGflops) * (height - top - bottom);
  for (let i = 0; i <= 4; i++) {  // horizontal grid with GFLOPS labels
    const value = gflopsStep * i;
    root.append(svg("line", { class: "grid", x1: left, x2: width - right, y1: y(value), y2: y(value) }));
    root.append(svg("text", { class: "tick", x: left - 6, y: y(value) + 4, "text-anchor": "end" },
      Number(value.toPrecision(3)).toString()));
  }
  for (let i = 0; i <= 4; i++) {
    const value = trialStep * i;
    root.append(svg("text", { class: "tick", x: x(value), y: height - bottom + 16, "text-anchor": "middle" }, value));
  }
  root.append(svg("line", { class: "axis", x1: left, x2: left, y1: top, y2: height - bottom }));
  root.append(svg("line", { class: "axis", x1: left, x2: width - right, y1: height - bottom, y2: height - bottom }));
  root.append(svg("text", { class: "axis-label", x: width - right, y: height - 2, "text-anchor": "end" }, "trials"));
  root.append(svg("text", { class: "axis-label", x: 4, y: 12 }, "best GFLOPS"));
  if (known.length === 0) {
    root.append(svg("text", { class: "empty", x: width / 2, y: height / 2, "text-anchor": "middle" }, "no measurement yet"));
    return root;
  }
  const sorted = known.slice().sort((a, b) => a.trials - b.trials);
  let path = "";
  let previous = null;
  for (const point of sorted) {  // best-so-far only rises: draw it as steps
    if (previous === null) path += `M${x(point.trials)},${y(point.best_gflops)}`;
    else path += `H${x(point.trials)}V${y(point.best_gflops)}`;
    previous = point;
  }
  root.append(svg("path", { class: "curve-line", d: path }));
  const last = sorted[sorted.length - 1];
  root.append(svg("circle", { class: "curve-end", cx: x(last.trials), cy: y(last.best_gflops), r: 3 }));
  return root;
}

// -- pages -------------------------------------------------------------------------------

async function renderJobs(main) {
  const jobs = await api("/v1/jobs");
  const rows = jobs.items.map((job) => el("tr", { class: "job-row", "data-job-id": job.id },
    el("td", null, el("a", { href: "/jobs/" + encodeURIComponent(job.id) }, job.id)),
    el("td", { class: "state state-" + job.state }, job.state),
    el("td", { class: "target" }, job.target),
    el("td", null, progress(job.trials_done, job.trials), ` ${job.trials_done} / ${job.trials}`),
    el("td", null, fmtTime(job.created_at)),
    el("td", null, job.finished_at ? fmtTime(job.finished_at) : job.error || "")));
  main.replaceChildren(
    el("h1", null, "Jobs"),
    el("p", { class: "summary" }, `${jobs.total} job${jobs.total === 1 ? "" : "s"}`),
    rows.length ? table("jobs-table", ["job", "state", "target", "trials", "created", "finished"], rows)
      : el("p", { class: "empty" }, "No jobs yet: submit one with `autotune submit MODEL.onnx --target llvm --trials N`."));
  return false;
}

async function renderJob(main, jobId) {
  const job = await api("/v1/jobs/" + encodeURIComponent(jobId));
  const facts = [
    ["state", job.state], ["target", job.target], ["trials", `${job.trials_done} / ${job.trials}`],
    ["model", job.model_id || "(single workload)"], ["created", fmtTime(job.created_at)],
    ["finished", fmtTime(job.finished_at)],
  ];
  if (job.error) facts.push([job.state === "waiting_for_worker" ? "waiting" : "error", job.error]);
  const summary = el("dl", { class: "facts" }, ...facts.flatMap(([k, v]) => [el("dt", null, k), el("dd", null, v)]));
  const tasks = (job.tasks || []).map((task) => el("section", { class: "task", "data-workload": task.workload_key },
    el("h2", null, `#${task.position} ${task.name}`),
    el("p", { class: "task-facts" },
      `weight ${task.weight} · ${fmtNumber(task.flops / 1e6, 1)} MFLOP · ${task.trials} trials · best `,
      el("strong", null, fmtNumber(task.best_gflops) + " GFLOPS"), ` (${fmtCost(task.best_cost_s)})`),
    curveSvg(task.curve || [], `best GFLOPS of ${task.name} against trials`)));
  main.replaceChildren(
    el("h1", null, "Job ", el("code", null, job.id)), progress(job.trials_done, job.trials), summary,
    el("div", { class: "tasks" }, ...tasks));
  return LIVE_STATES.has(job.state);
}

async function renderFleet(main) {
  const fleet = await api("/v1/workers");
  const rows = fleet.items.map((worker) => el("tr", { class: "worker-row", "data-worker-id": worker.id },
    el("td", null, worker.name),
    el("td", { class: "target" }, worker.target),
    el("td", null, worker.device && worker.device.model ? `${worker.device.model} (${worker.device.cores} cores)` : ""),
    el("td", { class: "state state-" + worker.state }, worker.state + (worker.batch_id ? ` (${worker.batch_id})` : "")),
    el("td", { class: worker.healthy ? "healthy" : "unhealthy" }, worker.healthy ? "healthy" : "lost"),
    el("td", { class: "number" }, worker.measured),
    el("td", { class: "number" }, worker.failed),
    el("td", { class: "number" }, worker.live_leases),
    el("td", null, fmtAgo(worker.last_seen_at))));
  main.replaceChildren(
    el("h1", null, "Fleet"),
    el("p", { class: "summary" }, `${fleet.items.length} worker${fleet.items.length === 1 ? "" : "s"}, ` +
      `${fleet.items.filter((w) => w.healthy).length} healthy`),
    rows.length ? table("fleet-table", ["worker", "target", "device", "state", "health", "measured", "failed", "leases", "last seen"], rows)
      : el("p", { class: "empty" }, "No workers: start one with `autotune worker --server URL --token SECRET`."));
  return true;
}

// -- wiring ------------------------------------------------------------------------------

let timer = null;

async function refresh() {
  const page = document.body.dataset.page;
  const main = document.getElementById("content");
  clearTimeout(timer);
  if (!token()) {
    setStatus("Paste an API token above (the admin token is in the service's data directory, admin.token).", "warning");
    document.getElementById("token-input").focus();
    return;
  }
  try {
    let live;
    if (page === "job") live = await renderJob(main, document.body.dataset.job);
    else if (page === "fleet") live = await renderFleet(main);
    else live = await renderJobs(main);
    setStatus("updated " + new Date().toLocaleTimeString(), "ok");
    if (live || page === "jobs") timer = setTimeout(refresh, REFRESH_MS[page] || 5000);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      setStatus(`The API refused the token (${err.status}: ${err.message}); paste another one above.`, "error");
      return;
    }
    setStatus(err instanceof ApiError ? `${err.status}: ${err.message}` : `cannot reach the service: ${err}`, "error");
    timer = setTimeout(refresh, 5000);
  }
}

function start() {
  takeTokenFromAddress();
  const input = document.getElementById("token-input");
  document.getElementById("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value.trim()) sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    input.value = "";
    refresh();
  });
  document.getElementById("token-forget").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    document.getElementById("content").replaceChildren();
    refresh();
  });
  const current = { jobs: "nav-jobs", job: "nav-jobs", fleet: "nav-fleet" }[document.body.dataset.page];
  if (current) document.getElementById(current).setAttribute("aria-current", "page");
  refresh();
}

document.addEventListener("DOMContentLoaded", start);
