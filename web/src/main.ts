// The DEX trading app: markets, a market's live book / trades / candles / ticker, the order form that
// shows what the wallet signs, and the account (balances, deposit, withdrawal, open orders, history).
// This file wires the panels (each in its own module) to the live feed and the hash route.
import "./style.css";
import { AccountPanel } from "./account-panel";
import { explain, getJson, getMarkets, syncClock } from "./api";
import { ApiKeysPanel } from "./apikeys";
import { h, replace } from "./dom";
import { Feed } from "./feed";
import { buildLayout, setStatus } from "./layout";
import { MarketView } from "./market-view";
import { OrderFormPanel } from "./order-form";
import { createState, type WebConfig } from "./state";
import { discoverExtensions, homeChain, publicClient } from "./wallet";
import { WalletArea } from "./wallet-area";

const state = createState();
const panels = buildLayout(document.getElementById("app")!);
const apiKeys = new ApiKeysPanel(panels.apiKeys);
const market = new MarketView(state, panels);
const account = new AccountPanel(state, panels.account);
const orderForm = new OrderFormPanel(state, panels.order, () => account.refreshSoon(0));
const walletArea = new WalletArea(state, panels.walletArea, () => {
  account.render();
  orderForm.render();
  apiKeys.render(state.wallet);
  if (state.wallet?.autoSign) void account.refresh();
});
panels.book.addEventListener("click", (ev) => {
  const row = (ev.target as Element).closest?.("tr[data-price]") as HTMLElement | null;
  if (row?.dataset.price) orderForm.fillPrice(row.dataset.price);
});

function selectMarket(symbol: string) {
  const m = state.info?.markets.find((x) => x.symbol === symbol) ?? state.info?.markets[0];
  if (!m) return;
  if (state.market?.symbol === m.symbol) return;
  state.market = m;
  state.trades = [];
  state.lastTrade = null;
  state.ticker = null;
  state.feed?.select(m.symbol);
  document.title = `${m.symbol} · DEX`;
  void market.renderMarkets();
  market.renderTicker();
  market.renderBook();
  market.renderTrades();
  market.renderChartPanel();
  orderForm.render();
  void market.loadTrades();
  market.refreshTickerSoon();
}

function route() {
  const match = /^#\/market\/([A-Za-z0-9_.-]{1,32})$/.exec(location.hash);
  selectMarket(match ? match[1] : (state.info?.markets[0]?.symbol ?? ""));
}

function startFeed() {
  const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
  state.feed = new Feed(wsUrl, {
    onBook(book) {
      state.book = book;
      market.renderBook();
      orderForm.live();
      market.renderTicker();
    },
    onTrade(t) {
      state.trades = [t, ...state.trades].slice(0, 50);
      state.lastTrade = t;
      market.renderTrades();
      market.renderTicker();
      market.refreshTickerSoon();
      state.chart?.refreshSoon();
      account.refreshSoon(300);
    },
    onTradeGap() {
      void market.loadTrades();
    },
    onStatus(s) {
      setStatus(panels, s.detail, s.state === "live" ? "ok" : s.state === "down" ? "error" : "warn");
      panels.status.dataset.state = s.state;
    },
  });
}

async function boot() {
  try {
    const [config, info] = await Promise.all([getJson<WebConfig>("/config.json"), getMarkets(), syncClock()]);
    state.config = config;
    state.info = info;
    state.chain = homeChain(info.chain_id);
    state.pub = publicClient(state.chain);
  } catch (err) {
    setStatus(panels, `The exchange could not be reached: ${explain(err)}. Reload when it is running.`, "error");
    replace(
      panels.markets,
      h("h2", { id: "markets-h" }, "Markets"),
      h("p", { class: "error" }, "Markets could not be loaded."),
    );
    return;
  }
  discoverExtensions((list) => walletArea.setExtensions(list));
  walletArea.render();
  walletArea.restore();
  account.render();
  apiKeys.render(null);
  startFeed();
  window.addEventListener("hashchange", route);
  route();
}

void boot();
