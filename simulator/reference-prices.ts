// Where each simulated book starts when it has never traded (USD per unit, exact decimal strings). Once a
// book has a last trade (a restart, or real users' orders) the agents start from the book's own price.
// Round figures of the kind of asset, not market data: every price shown comes from the agents' and users'
// orders and trades.
export const REFERENCE_PRICES: Readonly<Record<string, string>> = {
  AAPL: "190",
  MSFT: "420",
  JPM: "200",
  UST2Y: "99.5",
  UST10Y: "96",
  XAU: "2300",
  XAG: "27",
  WTI: "78",
  EUR: "1.08",
  GBP: "1.27",
  NRTH: "12",
  CNTS: "5",
  HRBR: "8",
  FBRK: "10",
  AURA: "45",
  LMNL: "30",
  WETH: "3000",
  WBTC: "60000",
};

/** the starting price of an asset without one in the table */
export const DEFAULT_REFERENCE_PRICE = "100";
