// Draws report.html's charts (arena/charts.py's model, embedded as JSON) with Chart.js and its
// error-bar plugin, both inlined before this script. Nothing here fetches anything.
"use strict";

(function () {
  const { BarWithErrorBarsController, BarWithErrorBar, LineWithErrorBarsController, PointWithErrorBar } =
    window.ChartErrorBars;
  Chart.register(BarWithErrorBarsController, BarWithErrorBar, LineWithErrorBarsController, PointWithErrorBar);

  const charts = JSON.parse(document.getElementById("arena-charts").textContent);

  // One colour per line of the tables in every chart: a series' label without what only says which
  // repetition or source it is ("go", "go (seed)" and "go rep 1" share one; "fake @ run-1" and
  // "fake @ run-2" of a comparison do not).
  const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#843c39", "#7b4173", "#3182bd"];
  const keyOf = (label) => label.replace(/ \(seed\)$/, "").replace(/ rep \d+$/, "");
  const keys = [...new Set(charts.flatMap((c) => c.series.map((s) => keyOf(s.label))))].sort();
  const colourOf = (label) => PALETTE[keys.indexOf(keyOf(label)) % PALETTE.length];
  const faded = (hex) => hex + "55";
  const FLAGGED = "#c00000";

  // A log axis of 1/(1-p): 1, 10, 100, ... are labelled 0%, 90%, 99%, ...
  function percentileLabel(x) {
    const decades = Math.log10(x);
    if (Math.abs(decades - Math.round(decades)) > 1e-9) return "";
    return x === 1 ? "0%" : (100 - 100 / x).toFixed(Math.max(0, Math.round(decades) - 2)) + "%";
  }

  function axis(scale, label) {
    const made = { title: { display: true, text: label } };
    if (scale === "log") made.type = "logarithmic";
    else if (scale === "percentile") {
      made.type = "logarithmic";
      made.ticks = { autoSkip: false, callback: (x) => percentileLabel(x) };
      made.afterBuildTicks = (a) => {
        a.ticks = a.ticks.filter((t) => percentileLabel(t.value) !== "");
      };
    } else if (scale === "linear") made.type = "linear";
    else made.type = "category";
    return made;
  }

  // A mark above every flagged bar or point; the flags themselves are in its tooltip.
  const flagMarks = {
    id: "arenaFlags",
    afterDatasetsDraw(chart) {
      const { ctx } = chart;
      ctx.save();
      ctx.fillStyle = FLAGGED;
      ctx.font = "bold 12px sans-serif";
      ctx.textAlign = "center";
      chart.data.datasets.forEach((dataset, i) => {
        const meta = chart.getDatasetMeta(i);
        if (meta.hidden) return;
        dataset.data.forEach((value, j) => {
          if (value && value.flags && value.flags.length && meta.data[j]) {
            const { x, y } = meta.data[j].getProps(["x", "y"], true);
            ctx.fillText("!", x, y - 6);
          }
        });
      });
      ctx.restore();
    },
  };

  const bound = (v, key) => (v[key] === null || v[key] === undefined ? v.y : v[key]);

  function barDatasets(chart) {
    return chart.series.map((s) => {
      const colour = colourOf(s.label);
      const data = s.values.map((v) =>
        v ? { y: v.y, yMin: bound(v, "low"), yMax: bound(v, "high"), flags: v.flags } : { y: NaN, yMin: NaN, yMax: NaN });
      return {
        label: s.label,
        data,
        backgroundColor: s.seed ? faded(colour) : colour,
        borderColor: data.map((v) => (v.flags && v.flags.length ? FLAGGED : colour)),
        borderWidth: data.map((v) => (v.flags && v.flags.length ? 3 : 1)),
        errorBarColor: "#222",
        errorBarWhiskerColor: "#222",
      };
    });
  }

  function lineDatasets(chart) {
    return chart.series.map((s) => {
      const colour = colourOf(s.label);
      const data = s.xs.map((x, i) => {
        const v = s.values[i];
        return v ? { x, y: v.y, yMin: bound(v, "low"), yMax: bound(v, "high"), flags: v.flags } : { x, y: null };
      });
      const dashedBefore = s.dashed_before;
      return {
        label: s.label,
        data,
        borderColor: s.seed ? faded(colour) : colour,
        backgroundColor: s.seed ? faded(colour) : colour,
        borderDash: s.seed ? [2, 3] : [],
        pointRadius: s.xs.length > 40 ? 0 : 2,
        spanGaps: false,
        segment: dashedBefore === null ? {} : { borderDash: (ctx) => (ctx.p1.parsed.x <= dashedBefore ? [5, 4] : []) },
      };
    });
  }

  function tooltipFlags(items) {
    const flags = items.flatMap((item) => item.raw.flags || []);
    return flags.length ? "flags: " + [...new Set(flags)].join(", ") : "";
  }

  function config(chart) {
    const bar = chart.kind === "bar";
    const withIntervals = chart.series.some((s) => s.values.some((v) => v && v.low !== null));
    return {
      type: bar ? "barWithErrorBars" : withIntervals ? "lineWithErrorBars" : "line",
      data: bar ? { labels: chart.categories, datasets: barDatasets(chart) } : { datasets: lineDatasets(chart) },
      plugins: [flagMarks],
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: { x: axis(chart.x_scale, chart.x_label), y: axis(chart.y_scale, chart.y_label) },
        plugins: {
          legend: { position: "bottom", labels: { boxWidth: 12 } },
          tooltip: { callbacks: { footer: tooltipFlags } },
        },
      },
    };
  }

  let drawn = 0;
  document.querySelectorAll("canvas[data-chart]").forEach((canvas) => {
    try {
      new Chart(canvas, config(charts[Number(canvas.dataset.chart)]));
      drawn += 1;
    } catch (error) {
      canvas.dataset.error = String(error);
      console.error("chart " + canvas.dataset.chart + " not drawn:", error);
    }
  });
  document.body.dataset.chartsDrawn = String(drawn);
})();
