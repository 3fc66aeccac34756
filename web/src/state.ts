// The DEX app's shared state: the server's configuration, the markets, the chosen market's live data and
// the connected wallet's account. Every panel reads it; the panels that own a part write that part.
import type { Chain, PublicClient } from "viem";
import { numberToDecimalString } from "../../sdk/decimal";
import type { AccountState } from "./account";
import type { ApiTicker } from "./api";
import type { LiveBook } from "./book";
import type { CandleChart, CandleInterval } from "./chart";
import type { Feed, FeedTrade } from "./feed";
import type { MarketInfo, MarketsInfo } from "./order";
import type { ConnectedWallet } from "./wallet";

export interface WebConfig {
  chainId: number;
  mode: "sandbox" | "production";
  /** sandbox only: the demo traders' (public Hardhat) keys for the development wallet */
  devWalletKeys: `0x${string}`[];
  /** sandbox: the integrator's wallet, offered first (the simulator never trades it) */
  integratorKey?: `0x${string}`;
}

export interface AppState {
  config: WebConfig | null;
  info: MarketsInfo | null;
  chain: Chain | null;
  pub: PublicClient | null;
  market: MarketInfo | null;
  wallet: ConnectedWallet | null;
  trades: FeedTrade[];
  lastTrade: FeedTrade | null;
  ticker: ApiTicker | null;
  account: AccountState | null;
  accountError: string;
  accountLoading: boolean;
  book: LiveBook | null;
  feed: Feed | null;
  chart: CandleChart | null;
  interval: CandleInterval;
}

export function createState(): AppState {
  return {
    config: null,
    info: null,
    chain: null,
    pub: null,
    market: null,
    wallet: null,
    trades: [],
    lastTrade: null,
    ticker: null,
    account: null,
    accountError: "",
    accountLoading: false,
    book: null,
    feed: null,
    chart: null,
    interval: "1m",
  };
}

/** A number from the API as exact decimal text, "—" when there is none. */
export const dec = (n: number | null | undefined) =>
  n === null || n === undefined ? "—" : (numberToDecimalString(n) ?? "—");
export const time = (ms: number) => new Date(ms).toLocaleTimeString();

/** A result line's text and kind, kept across the re-renders that live data makes. */
export interface Message {
  text: string;
  kind: string;
}

/** Sets a result line and remembers it in `keep`. */
export function say(el: HTMLElement, keep: Message, text: string, kind = ""): void {
  keep.text = text;
  keep.kind = kind;
  el.textContent = text;
  el.dataset.kind = kind;
}
