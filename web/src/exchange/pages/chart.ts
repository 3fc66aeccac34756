// The asset page's chart: candles of settled trades by range and interval (spec 8), reloaded every minute.
import { CandlestickSeries, createChart, type IChartApi, type UTCTimestamp } from "lightweight-charts";
import { h } from "../../dom";
import { publicGet, type AssetDetail, type Candle } from "../api";
import { CHART_RANGES, explain } from "../model";
import { app, every, onLeave, onScreen } from "../shell";

function rangeControls() {
  const rangeSel = h("select", { id: "range" }) as HTMLSelectElement;
  for (const [r] of CHART_RANGES) rangeSel.append(h("option", { value: r, selected: r === "1d" }, r));
  const intervalSel = h("select", { id: "interval" }) as HTMLSelectElement;
  const fillIntervals = () => {
    const ivs = CHART_RANGES.find(([r]) => r === rangeSel.value)![1];
    intervalSel.replaceChildren(...ivs.map((i, n) => h("option", { value: i, selected: n === 0 }, i)));
  };
  fillIntervals();
  return { rangeSel, intervalSel, fillIntervals };
}

/** The candlestick series, made on the first data (the chart is removed when the page is left). */
function lazySeries(host: HTMLElement) {
  let chart: IChartApi | null = null;
  let series: ReturnType<IChartApi["addSeries"]> | null = null;
  onLeave(() => {
    chart?.remove();
    chart = null;
  });
  return (candles: Candle[]) => {
    if (!chart) {
      chart = createChart(host, {
        autoSize: true,
        layout: { background: { color: "#ffffff" }, textColor: "#1f2933" },
        timeScale: { timeVisible: true },
      });
      series = chart.addSeries(CandlestickSeries, {
        upColor: "#0a7d36",
        downColor: "#b3261e",
        wickUpColor: "#0a7d36",
        wickDownColor: "#b3261e",
        borderVisible: false,
      });
    }
    series!.setData(
      candles.map((c) => ({
        time: Math.floor(c.time / 1000) as UTCTimestamp,
        open: c.open,
        high: c.high,
        low: c.low,
        close: c.close,
      })),
    );
    chart.timeScale().fitContent();
  };
}

export function chartSection(a: AssetDetail): HTMLElement {
  const { rangeSel, intervalSel, fillIntervals } = rangeControls();
  const host = h("div", { class: "chart", id: "chart" });
  const note = h("p", { class: "chart-note", id: "chart-note", "aria-live": "polite" });
  const section = h(
    "section",
    { class: "panel chart-panel", "aria-labelledby": "chart-h" },
    h(
      "div",
      { class: "panel-head" },
      h("h3", { id: "chart-h" }, "Chart"),
      h("label", { for: "range" }, "Range"),
      rangeSel,
      h("label", { for: "interval" }, "Interval"),
      intervalSel,
    ),
    host,
    note,
  );
  const seq = app.seq;
  const draw = lazySeries(host);
  const load = async () => {
    note.textContent = "Loading the chart…";
    try {
      const r = await publicGet<{ data: Candle[] }>(
        `/assets/${encodeURIComponent(a.id)}/chart?range=${rangeSel.value}&interval=${intervalSel.value}`,
      );
      if (!onScreen(seq)) return;
      draw(r.data);
      note.textContent =
        r.data.length === 0
          ? `No settled trade in this range (${rangeSel.value}).`
          : `${r.data.length} candles of ${intervalSel.value}, range ${rangeSel.value}.`;
    } catch (err) {
      if (onScreen(seq)) note.textContent = `The chart is unavailable: ${explain(err)}`;
    }
  };
  rangeSel.addEventListener("change", () => (fillIntervals(), void load()));
  intervalSel.addEventListener("change", () => void load());
  queueMicrotask(() => void load());
  every(60_000, () => void load());
  return section;
}
