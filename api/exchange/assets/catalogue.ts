// The exchange's listed assets (spec 1, 2.1-2.3): three rails, seven categories, each asset with its
// offering facts (accreditation, offering type, resale regime) and, when tokenized, its ERC-20 on the home
// chain and the grid of its `SYMBOL-USD` book. One table: the provisioning child deploys the tokens from it
// (scripts/stack/assets.ts), the pipeline builds the books from its grids, the API lists it. Prices are
// never here: every price, candle and book comes from real orders and trades.

/** The grid of a book in human units (pipeline/markets.ts HumanGrid): tick in USD, lot in asset units. */
export interface AssetGrid {
  tick: string;
  lot: string;
  minLots: bigint;
  maxLots: bigint;
}

export const MARKET_RAILS = ["public", "private", "digital"] as const;
export type MarketRail = (typeof MARKET_RAILS)[number];

export const ASSET_CATEGORIES = [
  "stocks",
  "fixed-income",
  "commodities",
  "forex",
  "privates",
  "pre-ipo",
  "crypto",
] as const;
export type AssetCategory = (typeof ASSET_CATEGORIES)[number];

/** Spec 1: which categories each rail holds, in navigation order, with their labels. */
export const NAVIGATION: readonly {
  id: MarketRail;
  label: string;
  categories: readonly { id: AssetCategory; label: string }[];
}[] = [
  {
    id: "public",
    label: "Public markets",
    categories: [
      { id: "stocks", label: "Stocks" },
      { id: "fixed-income", label: "Fixed income" },
      { id: "commodities", label: "Commodities" },
      { id: "forex", label: "Forex" },
    ],
  },
  {
    id: "private",
    label: "Private markets",
    categories: [
      { id: "privates", label: "Private companies" },
      { id: "pre-ipo", label: "Pre-IPO" },
    ],
  },
  { id: "digital", label: "Digital assets", categories: [{ id: "crypto", label: "Crypto" }] },
];

/** Spec 4.A's resale regimes: reg-d (506(b)/(c), 12-month hold), reg-cf (12 months), reg-s (12 months for
 *  US investors), reg-a (freely tradeable); retail: a public-market asset, freely tradeable. */
export const RESALE_REGIMES = ["reg-d", "reg-cf", "reg-s", "reg-a", "retail"] as const;
export type ResaleRegime = (typeof RESALE_REGIMES)[number];

export type AccreditationType = "506c" | "506b" | null;

export interface CatalogueAsset {
  /** used in paths; the asset's symbol (upper case) */
  id: string;
  symbol: string;
  name: string;
  category: AssetCategory;
  /** the venue of the underlying listing; null for crypto (spec 2.2) */
  exchange: string | null;
  accreditationType: AccreditationType;
  offeringType: string;
  regime: ResaleRegime;
  /** the offering's reference price (USD per unit, an exact decimal): what the quote and the list show while
   *  the asset has never traded (docs/decisions/api.md "Numbers, never null"), and where the simulated market
   *  starts a book without trades. Round figures of the kind of asset, not market data. */
  referencePrice: string;
  /** the asset's home-chain token (its symbol in the deployments; its book is `SYMBOL-USD`). null: listed,
   *  not tokenized (never tradeable). */
  token: AssetToken | ExchangeToken | null;
}

/** A token the asset factory deploys (scripts/stack/assets.ts): its decimals, the whole units deposited for
 *  each sandbox demo trader, and the grid of its book. */
export interface AssetToken {
  deployedBy: "asset-factory";
  symbol: string;
  /** the token's name: the asset's */
  name: string;
  decimals: number;
  seedWholeUnits: bigint;
  grid: AssetGrid;
}

/** One of the exchange's own tokens (scripts/deploy-exchange.ts), with its existing book and grid. */
export interface ExchangeToken {
  deployedBy: "exchange";
  symbol: string;
}

const MAX_LOTS = 100_000_000n;
/** 18-decimal asset tokens against the 6-decimal demo USD: tick (USD) x lot (units) must be a multiple of
 *  1e-6 for every fill to be exact on chain, and one lot at the lowest resting price worth 0.01 USD. */
const grid = (tick: string, lot: string): AssetGrid => ({ tick, lot, minLots: 1n, maxLots: MAX_LOTS });
const asset = (a: Omit<CatalogueAsset, "id" | "token"> & { seed: bigint; grid: AssetGrid }): CatalogueAsset => ({
  id: a.symbol,
  symbol: a.symbol,
  name: a.name,
  category: a.category,
  exchange: a.exchange,
  accreditationType: a.accreditationType,
  offeringType: a.offeringType,
  regime: a.regime,
  referencePrice: a.referencePrice,
  token: {
    deployedBy: "asset-factory",
    symbol: a.symbol,
    name: a.name,
    decimals: 18,
    seedWholeUnits: a.seed,
    grid: a.grid,
  },
});

const publicEquity = { accreditationType: null, regime: "retail" } as const;

export const CATALOGUE: readonly CatalogueAsset[] = [
  // public: stocks
  asset({
    symbol: "AAPL",
    name: "Apple Inc.",
    category: "stocks",
    exchange: "NASDAQ",
    offeringType: "Common stock",
    ...publicEquity,
    referencePrice: "190",
    seed: 10_000n,
    grid: grid("0.01", "0.001"),
  }),
  asset({
    symbol: "MSFT",
    name: "Microsoft Corporation",
    category: "stocks",
    exchange: "NASDAQ",
    offeringType: "Common stock",
    ...publicEquity,
    referencePrice: "420",
    seed: 10_000n,
    grid: grid("0.01", "0.001"),
  }),
  asset({
    symbol: "JPM",
    name: "JPMorgan Chase & Co.",
    category: "stocks",
    exchange: "NYSE",
    offeringType: "Common stock",
    ...publicEquity,
    referencePrice: "200",
    seed: 10_000n,
    grid: grid("0.01", "0.001"),
  }),
  // public: fixed income
  asset({
    symbol: "UST2Y",
    name: "US Treasury Note 2-Year",
    category: "fixed-income",
    exchange: "OTC",
    offeringType: "Government bond",
    ...publicEquity,
    referencePrice: "99.5",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  asset({
    symbol: "UST10Y",
    name: "US Treasury Note 10-Year",
    category: "fixed-income",
    exchange: "OTC",
    offeringType: "Government bond",
    ...publicEquity,
    referencePrice: "96",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  // public: commodities
  asset({
    symbol: "XAU",
    name: "Gold (troy ounce)",
    category: "commodities",
    exchange: "COMEX",
    offeringType: "Commodity",
    ...publicEquity,
    referencePrice: "2300",
    seed: 1_000n,
    grid: grid("0.01", "0.0001"),
  }),
  asset({
    symbol: "XAG",
    name: "Silver (troy ounce)",
    category: "commodities",
    exchange: "COMEX",
    offeringType: "Commodity",
    ...publicEquity,
    referencePrice: "27",
    seed: 100_000n,
    grid: grid("0.001", "0.01"),
  }),
  asset({
    symbol: "WTI",
    name: "WTI Crude Oil (barrel)",
    category: "commodities",
    exchange: "NYMEX",
    offeringType: "Commodity",
    ...publicEquity,
    referencePrice: "78",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  // public: forex (the book is the currency pair itself: EUR-USD)
  asset({
    symbol: "EUR",
    name: "Euro",
    category: "forex",
    exchange: "FX",
    offeringType: "Currency",
    ...publicEquity,
    referencePrice: "1.08",
    seed: 10_000_000n,
    grid: grid("0.0001", "1"),
  }),
  asset({
    symbol: "GBP",
    name: "British Pound",
    category: "forex",
    exchange: "FX",
    offeringType: "Currency",
    ...publicEquity,
    referencePrice: "1.27",
    seed: 10_000_000n,
    grid: grid("0.0001", "1"),
  }),
  // private: private companies
  asset({
    symbol: "NRTH",
    name: "Northwind Holdings",
    category: "privates",
    exchange: "PRIVATE",
    accreditationType: "506c",
    offeringType: "Reg D 506(c) private placement",
    regime: "reg-d",
    referencePrice: "12",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  asset({
    symbol: "CNTS",
    name: "Contoso Labs",
    category: "privates",
    exchange: "PRIVATE",
    accreditationType: null,
    offeringType: "Reg CF crowdfunding",
    regime: "reg-cf",
    referencePrice: "5",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  asset({
    symbol: "HRBR",
    name: "Harbor Renewables",
    category: "privates",
    exchange: "PRIVATE",
    accreditationType: null,
    offeringType: "Reg S offshore offering",
    regime: "reg-s",
    referencePrice: "8",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  asset({
    symbol: "FBRK",
    name: "Fabrikam Realty",
    category: "privates",
    exchange: "PRIVATE",
    accreditationType: null,
    offeringType: "Reg A+ Tier 2 offering",
    regime: "reg-a",
    referencePrice: "10",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  // private: pre-IPO
  asset({
    symbol: "AURA",
    name: "Aurora Space",
    category: "pre-ipo",
    exchange: "PRIVATE",
    accreditationType: "506c",
    offeringType: "Reg D 506(c) pre-IPO secondary",
    regime: "reg-d",
    referencePrice: "45",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  asset({
    symbol: "LMNL",
    name: "Luminal AI",
    category: "pre-ipo",
    exchange: "PRIVATE",
    accreditationType: "506b",
    offeringType: "Reg D 506(b) pre-IPO secondary",
    regime: "reg-d",
    referencePrice: "30",
    seed: 100_000n,
    grid: grid("0.01", "0.01"),
  }),
  // listed, not tokenized: shown in the catalogue, never tradeable (the `tradeable` filter leaves it out)
  {
    id: "NOVA",
    symbol: "NOVA",
    name: "Nova Robotics",
    category: "pre-ipo",
    exchange: "PRIVATE",
    accreditationType: "506c",
    offeringType: "Reg D 506(c) pre-IPO secondary (offering closed)",
    regime: "reg-d",
    referencePrice: "25",
    token: null,
  },
  // digital: the home chain's own crypto tokens and their existing books (deployed with the exchange)
  {
    id: "WETH",
    symbol: "WETH",
    name: "Wrapped Ether",
    category: "crypto",
    exchange: null,
    accreditationType: null,
    offeringType: "Cryptocurrency",
    regime: "retail",
    referencePrice: "3000",
    token: { deployedBy: "exchange", symbol: "WETH" },
  },
  {
    id: "WBTC",
    symbol: "WBTC",
    name: "Wrapped Bitcoin",
    category: "crypto",
    exchange: null,
    accreditationType: null,
    offeringType: "Cryptocurrency",
    regime: "retail",
    referencePrice: "60000",
    token: { deployedBy: "exchange", symbol: "WBTC" },
  },
];

/** The rail of a category (spec 1). */
export function railOf(category: AssetCategory): MarketRail {
  return NAVIGATION.find((r) => r.categories.some((c) => c.id === category))!.id;
}

/** The tokens the asset factory deploys (the crypto assets trade the exchange's own tokens). */
export function assetTokensToDeploy(catalogue: readonly CatalogueAsset[] = CATALOGUE): AssetToken[] {
  return catalogue.flatMap((a) => (a.token?.deployedBy === "asset-factory" ? [a.token] : []));
}

export const QUOTE_SYMBOL = "USD";

/** The book of an asset: `SYMBOL-USD`; null when the asset is not tokenized. */
export function bookSymbolOf(a: Pick<CatalogueAsset, "token">): string | null {
  return a.token ? `${a.token.symbol}-${QUOTE_SYMBOL}` : null;
}

/** The grid of every factory-deployed asset token's book, by book symbol: pipeline/markets.ts builds a market
 *  for each whose token is deployed (the exchange's own books keep their grids there). */
export function assetMarketGrids(catalogue: readonly CatalogueAsset[] = CATALOGUE): Record<string, AssetGrid> {
  return Object.fromEntries(assetTokensToDeploy(catalogue).map((t) => [`${t.symbol}-${QUOTE_SYMBOL}`, t.grid]));
}
