-- Issue #14: custody (each exchange account's own address in Settlement, its key sealed at rest) and
-- funding (simulated bank deposits and withdrawals). api/exchange/custody and api/exchange/funding.
-- Every movement of money is a row here BEFORE any chain call (the intent), and each chain step is
-- idempotent: a deposit is credited by SandboxFunding.credit under the row's transfer id (refused on chain
-- if repeated); a withdrawal's steps are signed transactions of the account's key stored here before they
-- are sent, so a restart sends the very same transaction again (one nonce: mined at most once).
CREATE TABLE exchange_custody_accounts (
  account_id text PRIMARY KEY,
  address text NOT NULL UNIQUE,
  -- the account's private key, AES-256-GCM (api/auth/secret-box.ts) with the account id as AAD
  sealed_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE exchange_funding_transfers (
  id uuid PRIMARY KEY,
  account_id text NOT NULL,
  -- deposit, withdrawal
  direction text NOT NULL,
  -- ach, wire, instant; sandbox (the test funds preloaded on account creation: no limit applies)
  method text NOT NULL,
  -- demo USD base units (6 decimals)
  amount_units numeric(78, 0) NOT NULL,
  -- pending, completed, failed
  status text NOT NULL,
  -- deposit: new, credited; withdrawal: new, requested, executed, returned (see api/exchange/funding)
  chain_step text NOT NULL,
  -- the funding clock (ms since the epoch; the sandbox clock can be advanced) at creation, and the UTC day
  -- (YYYY-MM-DD) the daily limit counts it in
  created_ms bigint NOT NULL,
  limit_day text NOT NULL,
  -- when the simulated bank side completes (funding clock, ms)
  completes_ms bigint NOT NULL,
  completed_ms bigint,
  -- the chain transaction of the current withdrawal step, signed and stored before it is sent
  pending_raw_tx text,
  pending_tx_hash text,
  -- withdrawal: when Settlement lets the requested withdrawal be executed (chain seconds)
  withdraw_available_at bigint,
  -- the chain transactions done, in order
  tx_hashes text[] NOT NULL DEFAULT '{}',
  failure_reason text,
  attempts integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX exchange_funding_transfers_account ON exchange_funding_transfers (account_id, created_ms);
CREATE INDEX exchange_funding_transfers_limit ON exchange_funding_transfers (account_id, direction, method, limit_day);
CREATE INDEX exchange_funding_transfers_open ON exchange_funding_transfers (status) WHERE status = 'pending';
-- the one preload of test funds per account
CREATE UNIQUE INDEX exchange_funding_transfers_preload ON exchange_funding_transfers (account_id) WHERE method = 'sandbox';

-- The sandbox's funding clock: how far it has been advanced beyond the wall clock (one row).
CREATE TABLE exchange_funding_clock (
  id integer PRIMARY KEY CHECK (id = 1),
  offset_ms bigint NOT NULL
);
