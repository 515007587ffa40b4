// The console: a tab per implementation, its server started and stopped through the dashboard,
// requests sent through it (the page never talks to a server itself), every answer logged, and a
// load's response times drawn as they arrive.
"use strict";

(function () {
  let impls = JSON.parse(document.getElementById("arena-impls").textContent);
  let current = impls.length ? impls[0].impl : null;
  const $ = (id) => document.getElementById(id);
  const problem = $("problem");

  async function api(method, path, body) {
    const options = { method, headers: {} };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
    return answer;
  }

  function report(error) {
    problem.textContent = error ? String(error.message || error) : "";
  }

  function drawTabs() {
    $("tabs").replaceChildren(...impls.map((row) => {
      const tab = document.createElement("button");
      tab.type = "button";
      tab.role = "tab";
      tab.textContent = row.impl;
      tab.dataset.impl = row.impl;
      tab.setAttribute("aria-selected", String(row.impl === current));
      tab.classList.toggle("running", row.running);
      tab.addEventListener("click", () => {
        current = row.impl;
        drawTabs();
      });
      return tab;
    }));
    const row = impls.find((r) => r.impl === current);
    if (!row) return;
    const chosen = $("cpus").value;
    $("cpus").replaceChildren(...Array.from({ length: row.max_cpus }, (_, i) => new Option(String(i + 1))));
    if (chosen && Number(chosen) <= row.max_cpus) $("cpus").value = chosen;
    $("status").textContent = row.running
      ? `running at ${row.url} on ${row.cpus} core(s); log ${row.log}`
      : "stopped";
  }

  async function refresh() {
    impls = await api("GET", "/api/servers");
    drawTabs();
  }

  function log(request, answer) {
    const row = document.createElement("tr");
    const cells = [new Date().toLocaleTimeString(), current, request, answer.status || "none",
      answer.ms.toFixed(1), answer.body];
    cells.forEach((text, i) => {
      const cell = document.createElement("td");
      cell.textContent = String(text);
      if (i === 3 || i === 4) cell.className = "num";
      if (i === 5) cell.className = "body";
      row.appendChild(cell);
    });
    $("log").tBodies[0].prepend(row);
  }

  async function send(method, path, body) {
    report();
    try {
      const answer = await api("POST", `/api/servers/${current}/send`, { method, path, body });
      log(`${method} ${path}`, answer);
    } catch (error) {
      report(error);
    }
  }

  function bodyField() {
    const text = $("body").value.trim();
    if (!text) return undefined;
    return JSON.parse(text);
  }

  $("start").addEventListener("click", async () => {
    report();
    $("status").textContent = "starting (a first start builds it, which can take minutes)...";
    try {
      const started = await api("POST", `/api/servers/${current}/start`, { cpus: Number($("cpus").value) });
      if (started.note) report(started.note);
    } catch (error) {
      report(error);
    }
    await refresh();
  });

  $("stop").addEventListener("click", async () => {
    report();
    try {
      await api("POST", `/api/servers/${current}/stop`, {});
    } catch (error) {
      report(error);
    }
    await refresh();
  });

  document.querySelectorAll("button[data-record]").forEach((button) => {
    button.addEventListener("click", () => {
      const method = button.dataset.record;
      const name = $("record-name").value;
      if (method === "GET" || method === "DELETE") {
        send(method, "/record?" + new URLSearchParams({ name }));
      } else {
        send(method, "/record", { name, value: $("record-value").value });
      }
    });
  });

  $("long").addEventListener("click", () => send("GET", "/long-operation?" + new URLSearchParams({ n: $("long-n").value })));

  $("send").addEventListener("click", () => {
    try {
      send($("method").value, $("path").value, bodyField());
    } catch (error) {
      report(new Error("the body is not JSON: " + error.message));
    }
  });

  const chart = new Chart($("load-chart"), {
    type: "scatter",
    data: { datasets: [{ label: "response time", data: [], pointRadius: 2, backgroundColor: "#1f77b4" }] },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: {
        x: { type: "linear", title: { display: true, text: "seconds since the load began" } },
        y: { type: "linear", title: { display: true, text: "ms" }, beginAtZero: true },
      },
    },
  });

  async function follow(impl) {
    let since = 0;
    for (;;) {
      const state = await api("GET", `/api/servers/${impl}/load?since=${since}`);
      since += state.answers.length;
      chart.data.datasets[0].data.push(...state.answers.map(([t, ms]) => ({ x: t, y: ms })));
      chart.update();
      if (state.answered) {
        $("load-stats").textContent = `${state.answered}/${state.count} answered, ${state.errors} not 2xx; ` +
          `mean ${state.mean_ms.toFixed(1)} ms, p50 ${state.p50_ms.toFixed(1)} ms, p99 ${state.p99_ms.toFixed(1)} ms`;
      }
      if (state.done) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  $("load").addEventListener("click", async () => {
    report();
    let body;
    try {
      body = bodyField();
    } catch (error) {
      report(new Error("the body is not JSON: " + error.message));
      return;
    }
    try {
      await api("POST", `/api/servers/${current}/load`, {
        method: $("method").value, path: $("path").value, body,
        count: Number($("count").value), rate: Number($("rate").value),
      });
      chart.data.datasets[0].data = [];
      $("load-stats").textContent = "sending...";
      await follow(current);
    } catch (error) {
      report(error);
    }
  });

  drawTabs();
})();
