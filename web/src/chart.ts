// Candles of settled trades from the indexer (GET /indexer/candles, forwarded by the web server), drawn
// with lightweight-charts, with volume bars under them and an OHLC + volume legend for the candle under
// the pointer (the last candle otherwise). The indexer keeps prices as the contract's integers (Order.price units):
// formatDecimal at the market's price exponent gives the exact decimal; the chart itself takes numbers.
import {
  CandlestickSeries,
  createChart,
  HistogramSeries,
  type IChartApi,
  type ISeriesApi,
  type MouseEventParams,
  type UTCTimestamp,
} from "lightweight-charts";
import { formatDecimal } from "../../sdk/decimal";
import { explain, getJson } from "./api";
import { group } from "./format";
import type { MarketInfo } from "./order";

export const CANDLE_INTERVALS = ["1m", "5m", "15m", "1h", "1d"] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

interface LegendRow {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

interface IndexerCandle {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  baseVolume: string;
  tradeCount: number;
}

export class CandleChart {
  private chart: IChartApi;
  private series: ISeriesApi<"Candlestick">;
  private volume: ISeriesApi<"Histogram">;
  /** each candle's exact decimals by its time, for the legend */
  private rows = new Map<number, LegendRow>();
  private last: LegendRow | null = null;
  private current: { market: MarketInfo; interval: CandleInterval } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly host: HTMLElement,
    private readonly note: HTMLElement,
    private readonly legend: HTMLElement,
  ) {
    this.chart = createChart(host, {
      autoSize: true,
      layout: { background: { color: "#ffffff" }, textColor: "#1f2933" },
      timeScale: { timeVisible: true },
    });
    this.series = this.chart.addSeries(CandlestickSeries, {
      upColor: "#0a7d36",
      downColor: "#b3261e",
      wickUpColor: "#0a7d36",
      wickDownColor: "#b3261e",
      borderVisible: false,
    });
    this.volume = this.chart.addSeries(HistogramSeries, {
      priceScaleId: "volume",
      priceFormat: { type: "volume" },
      color: "#9fb3c8",
    });
    this.chart.priceScale("volume").applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    this.series.priceScale().applyOptions({ scaleMargins: { top: 0.05, bottom: 0.25 } });
    this.chart.subscribeCrosshairMove((p: MouseEventParams) => {
      const row = p.time === undefined ? null : this.rows.get(Number(p.time));
      this.showLegend(row ?? this.last);
    });
  }

  private showLegend(row: LegendRow | null): void {
    const host = this.legend;
    host.dataset.time = row ? String(row.time) : "";
    if (!row) return void host.replaceChildren();
    const unit = this.current?.market.base.symbol ?? "";
    const parts: [string, string, string][] = [
      ["O", "open", row.open],
      ["H", "high", row.high],
      ["L", "low", row.low],
      ["C", "close", row.close],
      ["V", "volume", `${group(row.volume)} ${unit}`],
    ];
    host.replaceChildren(
      ...parts.map(([k, name, v]) => {
        const span = document.createElement("span");
        span.dataset.field = name;
        span.textContent = `${k} ${v}`;
        return span;
      }),
    );
  }

  async load(market: MarketInfo, interval: CandleInterval): Promise<void> {
    this.current = { market, interval };
    this.note.textContent = "Loading candles…";
    try {
      const r = await getJson<{ candles: IndexerCandle[] }>(
        `/indexer/candles?pair=${encodeURIComponent(market.symbol)}&interval=${interval}&order=desc&limit=300`,
      );
      if (this.current?.market !== market || this.current.interval !== interval) return;
      const exp = market.signed_order.price_exponent;
      const text = (v: string) => formatDecimal(BigInt(v), exp);
      const rows: LegendRow[] = r.candles
        .slice()
        .reverse()
        .map((c) => ({
          time: Math.floor(c.time / 1000),
          open: text(c.open),
          high: text(c.high),
          low: text(c.low),
          close: text(c.close),
          volume: formatDecimal(BigInt(c.baseVolume), market.base.decimals),
        }));
      const data = rows.map((c) => ({
        time: c.time as UTCTimestamp,
        open: Number(c.open),
        high: Number(c.high),
        low: Number(c.low),
        close: Number(c.close),
      }));
      this.series.setData(data);
      this.volume.setData(
        rows.map((c, i) => ({
          time: c.time as UTCTimestamp,
          value: Number(c.volume),
          color: data[i].close >= data[i].open ? "rgba(10,125,54,0.45)" : "rgba(179,38,30,0.45)",
        })),
      );
      this.host.dataset.candles = String(data.length);
      this.host.dataset.volumeBars = String(rows.filter((c) => Number(c.volume) > 0).length);
      this.rows = new Map(rows.map((c) => [c.time, c]));
      this.last = rows.at(-1) ?? null;
      this.showLegend(this.last);
      this.note.textContent =
        data.length === 0
          ? "No settled trade yet: candles appear once trades settle on chain."
          : `${data.length} candles of settled trades (${interval}).`;
    } catch (err) {
      this.note.textContent = `Candles are unavailable: ${explain(err)}`;
    }
  }

  /** After a trade: candles count it once its batch settles and is indexed, so reload a little later. */
  refreshSoon(): void {
    if (this.timer || !this.current) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.current) void this.load(this.current.market, this.current.interval);
    }, 2500);
  }

  destroy(): void {
    if (this.timer) clearTimeout(this.timer);
    this.chart.remove();
    this.host.replaceChildren();
  }
}
