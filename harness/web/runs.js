// The runs page: filter the table as you type, open a comparison of two runs or of two
// implementations of one run, or one implementation's history.
"use strict";

(function () {
  const runs = JSON.parse(document.getElementById("arena-runs").textContent);
  const problem = document.getElementById("problem");

  document.getElementById("filter").addEventListener("input", (event) => {
    const words = event.target.value.toLowerCase().split(/\s+/).filter(Boolean);
    document.querySelectorAll("#runs tbody tr").forEach((row) => {
      const text = row.textContent.toLowerCase();
      row.hidden = !words.every((word) => text.includes(word));
    });
  });

  const picked = (name) => (document.querySelector(`input[name=${name}]:checked`) || {}).value;
  document.getElementById("compare-runs").addEventListener("click", () => {
    const a = picked("a");
    const b = picked("b");
    if (!a || !b) {
      problem.textContent = "Pick a run in column A and one in column B.";
      return;
    }
    window.location.href = "/compare?" + new URLSearchParams({ a, b });
  });

  const oneRun = document.getElementById("one-run");
  const selects = [document.getElementById("impl-a"), document.getElementById("impl-b")];
  function fillImpls() {
    const run = runs.find((r) => r.name === oneRun.value);
    selects.forEach((select, i) => {
      select.replaceChildren(...(run ? run.impls : []).map((impl) => new Option(impl, impl)));
      if (select.options.length > i) select.selectedIndex = i;
    });
  }
  oneRun.addEventListener("change", fillImpls);
  fillImpls();
  document.getElementById("compare-impls").addEventListener("click", () => {
    const [a, b] = selects.map((s) => s.value);
    if (!a || !b || a === b) {
      problem.textContent = "Choose two different implementations of the run.";
      return;
    }
    window.location.href = "/compare?" + new URLSearchParams({ run: oneRun.value, a, b });
  });

  const historyImpl = document.getElementById("history-impl");
  const everyImpl = [...new Set(runs.flatMap((r) => r.impls))].sort();
  historyImpl.replaceChildren(...everyImpl.map((impl) => new Option(impl, impl)));
  document.getElementById("show-history").addEventListener("click", () => {
    const query = new URLSearchParams({ impl: historyImpl.value });
    const experiment = document.getElementById("history-experiment").value.trim();
    if (experiment) query.append("experiment", experiment);
    window.location.href = "/history?" + query;
  });
})();
