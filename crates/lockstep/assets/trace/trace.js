// The trace page: reads the document in #trace-data (docs/trace.md) and
// draws the source, the lanes × steps grid, a step's values and wave
// operations, the findings and, for pixel waves, their quads.
// The document is gzipped JSON in base64.
async function loadTrace() {
  const bytes = Uint8Array.from(atob(document.getElementById("trace-data").textContent.trim()), (c) => c.charCodeAt(0));
  const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  return JSON.parse(text);
}

loadTrace().then((doc) => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const W = doc.wave_size;
  const steps = doc.steps;
  const mask = (hex) => BigInt("0x" + (hex || "0"));
  const has = (m, lane) => ((m >> BigInt(lane)) & 1n) === 1n;
  const lanesOf = (m) => {
    const out = [];
    for (let l = 0; l < W; l++) if (has(m, l)) out.push(l);
    return out;
  };
  // A pixel wave's lanes without a quad are no lanes; so are a vertex
  // wave's lanes past the last vertex, which leave before its first step.
  const firstActive = new Map();
  for (const s of steps) if (!firstActive.has(s.wave)) firstActive.set(s.wave, mask(s.active));
  const waveLanes = doc.waves.map((w, i) => {
    if (w.pixels) return w.pixels.reduce((m, p, l) => (p ? m | (1n << BigInt(l)) : m), 0n) & mask(w.lanes);
    if (doc.stage === "vertex" && firstActive.has(i)) return firstActive.get(i);
    return mask(w.lanes);
  });
  const waveName = (i) => {
    const w = doc.waves[i];
    if (doc.stage !== "compute") return doc.stage + " wave " + w.group[0];
    return "group (" + w.group.join(", ") + ") wave " + w.index;
  };
  const show = (v) => (typeof v === "number" && !Number.isInteger(v) ? String(v) : JSON.stringify(v));
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // ----- header -----
  $("title").textContent = doc.files.length ? "· " + doc.files[0].name : "";
  $("summary").textContent =
    doc.stage + " · wave size " + W + " · " + doc.waves.length + " wave" +
    (doc.waves.length === 1 ? "" : "s") + " · " + steps.length + " steps shown of " +
    doc.total_steps + " run · " + doc.findings.length + " finding" +
    (doc.findings.length === 1 ? "" : "s");
  for (const id of ["truncated", "stopped"]) {
    if (doc[id]) {
      $(id).hidden = false;
      $(id).textContent = doc[id];
    }
  }

  // ----- per statement: hits and divergence -----
  const hits = new Array(doc.statements.length).fill(0);
  const divergent = new Array(doc.statements.length).fill(false);
  steps.forEach((s) => {
    hits[s.statement]++;
    if (mask(s.active) !== waveLanes[s.wave]) divergent[s.statement] = true;
  });
  // Per file and line: the statements that begin there.
  const lineStatements = doc.files.map(() => new Map());
  doc.statements.forEach((st, i) => {
    if (!st.line) return;
    const m = lineStatements[st.file];
    if (!m.has(st.line)) m.set(st.line, []);
    m.get(st.line).push(i);
  });

  // ----- source -----
  let currentFile = 0;
  function drawSource() {
    const pre = $("source");
    pre.textContent = "";
    const text = doc.files.length ? doc.files[currentFile].text : "";
    text.split("\n").forEach((line, i) => {
      const n = i + 1;
      const sts = lineStatements[currentFile] ? lineStatements[currentFile].get(n) || [] : [];
      const count = sts.reduce((a, s) => a + hits[s], 0);
      const row = el("div", "line" + (count ? " ran" : ""));
      row.dataset.line = n;
      row.appendChild(el("span", "hits", count ? String(count) : ""));
      const div = sts.some((s) => divergent[s]);
      const mark = el("span", div ? "div on" : "div");
      if (div) mark.title = "some steps here ran with lanes inactive";
      row.appendChild(mark);
      row.appendChild(el("span", "no", String(n)));
      row.appendChild(el("code", "", line));
      if (count) {
        row.title = count + " step" + (count === 1 ? "" : "s");
        row.addEventListener("click", () => markLine(sts));
      }
      pre.appendChild(row);
    });
  }
  if (doc.files.length > 1) {
    doc.files.forEach((f, i) => {
      const b = el("button", i === 0 ? "current" : "", f.name);
      b.addEventListener("click", () => {
        currentFile = i;
        [...$("files").children].forEach((c, k) => (c.className = k === i ? "current" : ""));
        drawSource();
      });
      $("files").appendChild(b);
    });
  }
  drawSource();

  // ----- grid -----
  const COL = 10;
  const cell = Math.max(3, Math.min(12, Math.floor(320 / W)));
  let shown = steps.map((_, i) => i);
  let selected = -1;
  let marked = new Set();
  const findingSteps = new Set();
  doc.findings.forEach((f) => f.steps.forEach((s) => findingSteps.add(s)));
  const filter = $("wave-filter");
  filter.appendChild(new Option("all waves", "-1"));
  doc.waves.forEach((_, i) => filter.appendChild(new Option(waveName(i), String(i))));
  filter.addEventListener("change", () => {
    const w = Number(filter.value);
    shown = w < 0 ? steps.map((_, i) => i) : steps.map((_, i) => i).filter((i) => steps[i].wave === w);
    drawGrid();
  });
  const scroll = $("grid-scroll");
  scroll.style.height = W * cell + 24 + "px";
  scroll.addEventListener("scroll", drawGrid);
  function column(i) {
    const s = steps[i];
    const col = el("div", "col");
    col.dataset.step = i;
    if (i === selected) col.classList.add("selected");
    if (marked.has(i)) col.classList.add("marked");
    const flag = el("b", s.ops ? "op" : findingSteps.has(i) ? "finding" : "");
    col.appendChild(flag);
    const active = mask(s.active);
    const helpers = mask(s.helpers);
    const lanes = waveLanes[s.wave];
    for (let l = 0; l < W; l++) {
      const kind = !has(lanes, l) ? "absent" : has(helpers, l) && has(active, l) ? "helper" : has(active, l) ? "active" : "inactive";
      const c = el("i", kind);
      c.style.width = COL + "px";
      c.style.height = cell + "px";
      col.appendChild(c);
    }
    col.title = "step " + i + " · " + waveName(s.wave) + " · " + doc.statements[s.statement].location;
    return col;
  }
  function drawGrid() {
    $("grid-spacer").style.width = shown.length * COL + "px";
    const grid = $("grid");
    grid.textContent = "";
    const first = Math.max(0, Math.floor(scroll.scrollLeft / COL) - 2);
    const count = Math.ceil((scroll.clientWidth || 800) / COL) + 4;
    for (let k = first; k < Math.min(shown.length, first + count); k++) {
      const col = column(shown[k]);
      col.style.left = k * COL + "px";
      grid.appendChild(col);
    }
  }
  $("grid").addEventListener("click", (e) => {
    const col = e.target.closest(".col");
    if (col) select(Number(col.dataset.step));
  });
  document.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    const k = shown.indexOf(selected);
    const next = shown[k + (e.key === "ArrowRight" ? 1 : -1)];
    if (next !== undefined) select(next);
  });
  function reveal(i) {
    const k = shown.indexOf(i);
    if (k < 0) return;
    const x = k * COL;
    if (x < scroll.scrollLeft || x > scroll.scrollLeft + scroll.clientWidth - COL) {
      scroll.scrollLeft = Math.max(0, x - scroll.clientWidth / 2);
    }
  }
  function markLine(sts) {
    const set = new Set(sts);
    marked = new Set(steps.map((_, i) => i).filter((i) => set.has(steps[i].statement)));
    const next = shown.find((i) => marked.has(i) && i > selected) ?? shown.find((i) => marked.has(i));
    if (next !== undefined) select(next);
    else drawGrid();
  }

  // ----- a step's values: replayed from the wave's first step -----
  // The n-th recorded lane's value: one for all, an affine run, or a list.
  const valueAt = (values, n) => {
    if (Array.isArray(values)) return values[n];
    if (values !== null && typeof values === "object") return values.first + n * values.step;
    return values;
  };
  // Replays restart from the latest checkpoint at or before the step
  // (one every CHECKPOINT steps of a wave), so going back is as quick as
  // going forward.
  const CHECKPOINT = 4096;
  const checkpoints = doc.waves.map(() => []);
  const copy = (values) => new Map([...values].map(([v, row]) => [v, row.slice()]));
  const laneLists = new Map();
  const lanesOfHex = (hex) => {
    if (!laneLists.has(hex)) laneLists.set(hex, lanesOf(mask(hex)));
    return laneLists.get(hex);
  };
  let replay = { wave: -1, at: -1, values: new Map() };
  function valuesAfter(i) {
    const wave = steps[i].wave;
    if (replay.wave !== wave || replay.at > i) {
      const saved = checkpoints[wave].filter((c) => c.at <= i).pop();
      replay = saved ? { wave, at: saved.at, values: copy(saved.values) } : { wave, at: -1, values: new Map() };
    }
    for (let k = replay.at + 1; k <= i; k++) {
      const s = steps[k];
      if (s.wave !== wave) continue;
      (s.writes || []).forEach((w) => {
        if (!replay.values.has(w.variable)) replay.values.set(w.variable, new Array(W).fill(undefined));
        const row = replay.values.get(w.variable);
        const undef = w.undefined ? mask(w.undefined) : 0n;
        lanesOfHex(w.lanes).forEach((l, n) => {
          row[l] = undef && has(undef, l) ? { undefined: true } : valueAt(w.values, n);
        });
      });
      const list = checkpoints[wave];
      if (k - (list.length ? list[list.length - 1].at : 0) >= CHECKPOINT) {
        list.push({ at: k, values: copy(replay.values) });
      }
    }
    replay.at = i;
    return replay.values;
  }

  function select(i) {
    selected = i;
    const s = steps[i];
    const st = doc.statements[s.statement];
    reveal(i);
    drawGrid();
    $("step-title").textContent = "Step " + i + " · " + waveName(s.wave);
    const info = $("step-info");
    info.textContent = "";
    const active = mask(s.active);
    const helpers = mask(s.helpers);
    const lanes = waveLanes[s.wave];
    const file = doc.files[st.file];
    const text = file ? (file.text.split("\n")[st.line - 1] || "").trim() : "";
    info.appendChild(el("div", "", st.location));
    info.appendChild(el("code", "", text));
    info.appendChild(
      el("div", "", lanesOf(active).length + " of " + lanesOf(lanes).length + " lanes active" +
        (s.helpers ? ", " + lanesOf(helpers).length + " helper lanes" : ""))
    );
    if (st.file !== currentFile && doc.files.length > 1) {
      currentFile = st.file;
      drawSource();
    }
    document.querySelectorAll(".line.current").forEach((r) => r.classList.remove("current"));
    const row = document.querySelector('.line[data-line="' + st.line + '"]');
    if (row) {
      row.classList.add("current");
      const src = $("source");
      if (row.offsetTop < src.scrollTop || row.offsetTop > src.scrollTop + src.clientHeight) {
        src.scrollTop = row.offsetTop - src.clientHeight / 2;
      }
    }
    drawOps(s);
    drawValues(i);
    drawQuads(s);
  }

  function laneClass(s, l) {
    const active = mask(s.active);
    if (!has(active, l)) return "inactive";
    return has(mask(s.helpers), l) ? "helper" : "";
  }

  function drawOps(s) {
    const box = $("ops");
    box.textContent = "";
    (s.ops || []).forEach((op, n) => {
      box.appendChild(el("h2", "", op.op + " (" + op.type + ")"));
      const table = el("table", "op");
      table.dataset.op = n;
      const head = el("tr");
      ["lane", "operand", "result"].forEach((h) => head.appendChild(el("th", "", h)));
      table.appendChild(head);
      const active = mask(op.active);
      const sources = mask(op.sources);
      const inputs = lanesOf(active | sources);
      const outputs = lanesOf(active);
      lanesOf(waveLanes[s.wave]).forEach((l) => {
        const tr = el("tr");
        tr.appendChild(el("td", laneClass(s, l), String(l)));
        const ii = inputs.indexOf(l);
        const input = el("td", has(sources, l) ? "source" : has(active, l) ? "" : "inactive", ii < 0 ? "" : show(op.inputs[ii]));
        if (has(sources, l)) input.title = "read by the operation";
        tr.appendChild(input);
        const oi = outputs.indexOf(l);
        const out = el("td", has(active, l) ? "written" : "inactive", oi < 0 ? "" : show(op.outputs[oi]));
        out.dataset.lane = l;
        tr.appendChild(out);
        table.appendChild(tr);
      });
      box.appendChild(table);
    });
  }

  function drawValues(i) {
    const s = steps[i];
    const box = $("values");
    box.textContent = "";
    const values = valuesAfter(i);
    const written = new Map((s.writes || []).map((w) => [w.variable, mask(w.lanes)]));
    // The variables this step wrote first, then the others in order.
    const vars = [...values.keys()].sort((a, b) => (written.has(b) - written.has(a)) || a - b);
    if (!vars.length) return;
    box.appendChild(el("h2", "", "Values after the step"));
    const table = el("table", "values");
    const head = el("tr");
    head.appendChild(el("th", "", "lane"));
    vars.forEach((v) => {
      const fn = doc.variables[v].function;
      const th = el("th", "", doc.variables[v].name + (fn && fn !== doc.entry ? " (" + fn + ")" : ""));
      th.title = doc.variables[v].type + (doc.variables[v].function ? " in " + doc.variables[v].function : "");
      head.appendChild(th);
    });
    table.appendChild(head);
    lanesOf(waveLanes[s.wave]).forEach((l) => {
      const tr = el("tr");
      tr.appendChild(el("td", laneClass(s, l), String(l)));
      vars.forEach((v) => {
        const value = values.get(v)[l];
        const wrote = written.has(v) && has(written.get(v), l);
        const undef = value && value.undefined;
        const td = el("td", [laneClass(s, l), wrote ? "written" : "", undef ? "undefined" : ""].join(" ").trim(),
          value === undefined ? "" : undef ? "undef" : show(value));
        td.dataset.lane = l;
        td.dataset.var = doc.variables[v].name;
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    box.appendChild(table);
  }

  // ----- findings -----
  doc.findings.forEach((f) => {
    const li = el("li");
    li.appendChild(el("span", "kind", f.kind + " "));
    li.appendChild(el("span", "", f.message));
    if (f.location) li.appendChild(el("div", "where", f.location + " · " + f.steps.length + " step" + (f.steps.length === 1 ? "" : "s")));
    li.addEventListener("click", () => {
      marked = new Set(f.steps);
      if (f.steps.length) select(f.steps[0]);
      else drawGrid();
    });
    $("findings").appendChild(li);
  });
  if (!doc.findings.length) $("findings").appendChild(el("li", "", "none"));

  // ----- quads of pixel waves -----
  function drawQuads(s) {
    const w = doc.waves[s.wave];
    if (!w.pixels) return;
    const px = w.pixels.map((p, l) => (p ? { x: p[0], y: p[1], covered: p[2], lane: l } : null)).filter(Boolean);
    if (!px.length) return;
    $("quads-panel").hidden = false;
    const x0 = Math.min(...px.map((p) => p.x)) - 1, y0 = Math.min(...px.map((p) => p.y)) - 1;
    const x1 = Math.max(...px.map((p) => p.x)) + 2, y1 = Math.max(...px.map((p) => p.y)) + 2;
    const scale = Math.max(4, Math.min(28, Math.floor(300 / Math.max(x1 - x0, y1 - y0))));
    const canvas = $("quads");
    canvas.width = (x1 - x0) * scale;
    canvas.height = (y1 - y0) * scale;
    const g = canvas.getContext("2d");
    g.fillStyle = "#f4f5f7";
    g.fillRect(0, 0, canvas.width, canvas.height);
    const active = mask(s.active);
    const colour = { active: "#2e9e5b", inactive: "#b8bcc4", helper: "#e0a030" };
    px.forEach((p) => {
      const kind = !p.covered ? "helper" : has(active, p.lane) ? "active" : "inactive";
      g.fillStyle = colour[kind];
      g.fillRect((p.x - x0) * scale + 1, (p.y - y0) * scale + 1, scale - 2, scale - 2);
      if (scale >= 14) {
        g.fillStyle = "#fff";
        g.font = Math.floor(scale / 2.2) + "px sans-serif";
        g.textAlign = "center";
        g.fillText(String(p.lane), (p.x - x0 + 0.5) * scale, (p.y - y0 + 0.68) * scale);
      }
    });
    g.strokeStyle = "#1d2330";
    const quads = new Set(px.map((p) => (p.x >> 1) + "," + (p.y >> 1)));
    quads.forEach((q) => {
      const [qx, qy] = q.split(",").map(Number);
      g.strokeRect((qx * 2 - x0) * scale, (qy * 2 - y0) * scale, 2 * scale, 2 * scale);
    });
    const t = doc.target;
    $("quads-note").textContent =
      "pixels " + (x0 + 1) + ".." + (x1 - 2) + " × " + (y0 + 1) + ".." + (y1 - 2) +
      (t ? " of the " + t.width + " × " + t.height + " target " + t.name : "") +
      "; orange: helper lanes; the lane number is in each pixel";
  }

  drawGrid();
  if (steps.length) select(0);
  document.body.dataset.ready = "true";
}).catch((e) => {
  document.body.textContent = "This trace could not be opened: " + e;
});
