-- Issue #15: exchange orders (api/exchange/orders). Each row maps the exchange's prefix-style order id
-- (ord_...) to the DEX pipeline's order (the pipeline owns its status, fills and settlement) and keeps what
-- the exchange alone knows: the asset, the spec's order type, the pre-IPO flag, the replacement chain of an
-- update, and the two flags of the resale rule on the book (a SELL that gives a restricted lot; a BUY whose
-- buyer may receive one). Amounts are exact integers: asset base units and demo USD base units.
CREATE TABLE exchange_orders (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  dex_order_id uuid NOT NULL UNIQUE,
  asset_id text NOT NULL,
  -- BUY, SELL
  side text NOT NULL,
  -- market, limit
  order_type text NOT NULL,
  quantity_units numeric(78, 0) NOT NULL,
  -- contract price (demo USD base units per 1e18 asset base units); NULL for market orders
  limit_price numeric(78, 0),
  is_pre_ipo boolean NOT NULL DEFAULT false,
  -- the most a BUY may spend (demo USD base units): its hold, counted by the Reg CF limit while open
  max_cost_units numeric(78, 0) NOT NULL DEFAULT 0,
  restricted_sell boolean NOT NULL DEFAULT false,
  -- a BUY whose buyer may receive a restricted lot of the asset's regime on the book
  book_eligible boolean NOT NULL DEFAULT true,
  -- false once the pipeline reported it finished (a cache: the pipeline is the truth)
  open boolean NOT NULL DEFAULT true,
  created_ms bigint NOT NULL,
  cancelled_ms bigint,
  replaces text,
  replaced_by text
);
CREATE INDEX exchange_orders_account ON exchange_orders (account_id, created_ms DESC);
CREATE INDEX exchange_orders_open_asset ON exchange_orders (asset_id) WHERE open;

-- What the investor rules need beyond the account (sandbox: POST /v1/sandbox/investor-profile): annual
-- income and net worth for the Reg CF limit (cents), and whether the investor is a US person (Reg S).
CREATE TABLE exchange_investor_profiles (
  account_id text PRIMARY KEY,
  annual_income_cents numeric(78, 0) NOT NULL DEFAULT 0,
  net_worth_cents numeric(78, 0) NOT NULL DEFAULT 0,
  us_person boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
