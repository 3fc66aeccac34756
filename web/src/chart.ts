// Candles of settled trades from the indexer (GET /indexer/candles, forwarded by the web server), drawn
// with lightweight-charts. The indexer keeps prices as the contract's integers (Order.price units):
// formatDecimal at the market's price exponent gives the exact decimal; the chart itself takes numbers.
import { CandlestickSeries, createChart, type IChartApi, type ISeriesApi, type UTCTimestamp } from "lightweight-charts";
import { formatDecimal } from "../../sdk/decimal";
import { explain, getJson } from "./api";
import type { MarketInfo } from "./order";

export const CANDLE_INTERVALS = ["1m", "5m", "15m", "1h", "1d"] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

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
  private current: { market: MarketInfo; interval: CandleInterval } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly host: HTMLElement,
    private readonly note: HTMLElement,
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
      const num = (v: string) => Number(formatDecimal(BigInt(v), exp));
      const data = r.candles
        .slice()
        .reverse()
        .map((c) => ({
          time: Math.floor(c.time / 1000) as UTCTimestamp,
          open: num(c.open),
          high: num(c.high),
          low: num(c.low),
          close: num(c.close),
        }));
      this.series.setData(data);
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
