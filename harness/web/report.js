// Draws report.html's charts (arena/report/charts.py's model, embedded as JSON) with Chart.js and its
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
  const keys = [...new Set(charts.flatMap((c) => c.series.filter((s) => !s.mark_of).map((s) => keyOf(s.label))))].sort();
  // Beyond the palette, hues a golden angle apart, so no two lines share a colour.
  function colourOf(label) {
    const i = keys.indexOf(keyOf(label));
    if (i < PALETTE.length) return PALETTE[i];
    const [r, g, b] = hslToRgb(((i - PALETTE.length) * 137.508) % 360, 0.55, 0.42);
    return "#" + [r, g, b].map((c) => Math.round(c * 255).toString(16).padStart(2, "0")).join("");
  }
  function hslToRgb(h, s, l) {
    const k = (n) => (n + h / 30) % 12;
    const a = s * Math.min(l, 1 - l);
    const f = (n) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
    return [f(0), f(8), f(4)];
  }
  const faded = (hex) => hex + "55";
  const FLAGGED = "#c00000";
  // How a mark on a line is drawn (charts.py): a capacity's edge, a probe that passed, one that failed.
  const MARKS = {
    edge: { style: "rectRot", radius: 8 },
    passed: { style: "circle", radius: 3 },
    failed: { style: "crossRot", radius: 6 },
  };

  // A log axis of 1/(1-p): 1, 10, 100, ... are labelled 0%, 90%, 99%, ...
  function percentileLabel(x) {
    const decades = Math.log10(x);
    if (Math.abs(decades - Math.round(decades)) > 1e-9) return "";
    return x === 1 ? "0%" : (100 - 100 / x).toFixed(Math.max(0, Math.round(decades) - 2)) + "%";
  }

  // A log axis labels 1 and 3 of every decade, in as few digits as they need.
  function logLabel(v) {
    const mantissa = v / 10 ** Math.floor(Math.log10(v));
    return [1, 3].some((d) => Math.abs(mantissa - d) < 1e-6) ? String(Number(v.toPrecision(3))) : "";
  }

  // `whole`: every value on the axis is a whole number (runs, clients), so no tick falls between.
  function axis(scale, label, whole = false) {
    const made = { title: { display: true, text: label } };
    if (scale === "log") {
      made.type = "logarithmic";
      made.ticks = { callback: (v) => logLabel(v) };
    }
    else if (scale === "percentile") {
      made.type = "logarithmic";
      made.ticks = { autoSkip: false, callback: (x) => percentileLabel(x) };
      made.afterBuildTicks = (a) => {
        a.ticks = a.ticks.filter((t) => percentileLabel(t.value) !== "");
      };
    } else if (scale === "linear") {
      made.type = "linear";
      if (whole) made.ticks = { precision: 0 };
    } else made.type = "category";
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

  // Chart.js gives a legend at most half the canvas and leaves out the rows beyond, so after every
  // layout (a fold opened, the window resized) the canvas's box is made tall enough for the plot's
  // own room and each row of the legend; the box's new height lays the chart out once more.
  const PLOT_HEIGHT = 308; // the plot and its axes: with a one-row legend, the stylesheet's 340 px
  const legendRoom = {
    id: "arenaLegendRoom",
    afterLayout(chart) {
      const boxes = chart.legend ? chart.legend.legendHitBoxes : [];
      if (!chart.width || !boxes.length) return;
      const rowHeight = boxes[0].height + chart.legend.options.labels.padding;
      const legend = (boxes[boxes.length - 1].row + 1) * rowHeight + 10; // Chart.js's own 10 px under it
      const wanted = Math.max(PLOT_HEIGHT + legend, 2 * legend);
      const holder = chart.canvas.parentNode;
      if (Math.abs(holder.clientHeight - wanted) > 1) holder.style.height = `${wanted}px`;
    },
  };

  // An interval's end, or the value itself when there is none. On a log axis a lower end at or
  // below zero cannot be drawn: the whisker stops at the value (the table gives the interval).
  function bound(v, key, log) {
    const end = v[key] === null || v[key] === undefined ? v.y : v[key];
    return log && end <= 0 ? v.y : end;
  }

  function barDatasets(chart) {
    const log = chart.y_scale !== "linear" && chart.y_scale !== "category";
    // Where each category holds one series' bar (a runtime named on the axis), that bar takes the
    // whole slot instead of a sliver beside empty ones.
    const grouped = chart.categories.some((_, i) => chart.series.filter((s) => s.values[i]).length > 1);
    return chart.series.map((s) => {
      const colour = colourOf(s.label);
      const data = s.values.map((v) =>
        v ? { y: v.y, yMin: bound(v, "low", log), yMax: bound(v, "high", log), flags: v.flags } : { y: NaN, yMin: NaN, yMax: NaN });
      return {
        label: s.label,
        data,
        grouped,
        ...(chart.base === null ? {} : { base: chart.base }),
        backgroundColor: s.seed ? faded(colour) : colour,
        borderColor: data.map((v) => (v.flags && v.flags.length ? FLAGGED : colour)),
        borderWidth: data.map((v) => (v.flags && v.flags.length ? 3 : 1)),
        errorBarColor: "#222",
        errorBarWhiskerColor: "#222",
      };
    });
  }

  function lineDatasets(chart) {
    const log = chart.y_scale !== "linear" && chart.y_scale !== "category";
    return chart.series.map((s) => {
      const colour = colourOf(s.mark_of || s.label);
      const data = s.xs.map((x, i) => {
        const v = s.values[i];
        return v
          ? { x, y: v.y, yMin: bound(v, "low", log), yMax: bound(v, "high", log), flags: v.flags, tip: v.tip }
          : { x, y: null };
      });
      const dashedBefore = s.dashed_before;
      return {
        label: s.label,
        data,
        borderColor: s.seed ? faded(colour) : colour,
        backgroundColor: s.seed ? faded(colour) : colour,
        borderDash: s.seed ? [2, 3] : [],
        pointRadius: s.mark_of ? MARKS[s.mark].radius : s.xs.length > 40 ? 0 : 2,
        pointStyle: s.mark_of ? MARKS[s.mark].style : "circle",
        pointBorderWidth: s.mark_of ? 2 : 1,
        showLine: !s.mark_of,
        markOf: s.mark_of,
        spanGaps: false,
        segment: dashedBefore === null ? {} : { borderDash: (ctx) => (ctx.p1.parsed.x <= dashedBefore ? [5, 4] : []) },
      };
    });
  }

  function tooltipFooter(items) {
    const flags = items.flatMap((item) => item.raw.flags || []);
    const tips = [...new Set(items.map((item) => item.raw.tip).filter(Boolean))];
    return [...tips, ...(flags.length ? ["flags: " + [...new Set(flags)].join(", ")] : [])];
  }

  function config(chart) {
    const bar = chart.kind === "bar";
    const withIntervals = chart.series.some((s) => s.values.some((v) => v && v.low !== null));
    return {
      type: bar ? "barWithErrorBars" : withIntervals ? "lineWithErrorBars" : "line",
      data: bar ? { labels: chart.categories, datasets: barDatasets(chart) } : { datasets: lineDatasets(chart) },
      plugins: [flagMarks, legendRoom],
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: axis(chart.x_scale, chart.x_label, !bar && chart.series.every((s) => s.xs.every(Number.isInteger))),
          y: axis(chart.y_scale, chart.y_label),
        },
        plugins: {
          // A series that marks another's line has no entry of its own.
          legend: {
            position: "bottom",
            labels: { boxWidth: 12, filter: (item, data) => !data.datasets[item.datasetIndex].markOf },
          },
          tooltip: { callbacks: { footer: tooltipFooter } },
        },
      },
    };
  }

  let drawn = 0;
  document.querySelectorAll("canvas[data-chart]").forEach((canvas) => {
    try {
      const chart = charts[Number(canvas.dataset.chart)];
      new Chart(canvas, config(chart));
      drawn += 1;
    } catch (error) {
      canvas.dataset.error = String(error);
      console.error("chart " + canvas.dataset.chart + " not drawn:", error);
    }
  });
  document.body.dataset.chartsDrawn = String(drawn);
})();
