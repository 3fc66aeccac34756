-- DEX API keys. The secret and the agent private key are AES-256-GCM ciphertexts (never plaintext).
CREATE TABLE dex_api_keys (
  id uuid PRIMARY KEY,
  api_key text NOT NULL UNIQUE,
  owner text NOT NULL,
  label text NOT NULL DEFAULT '',
  secret_ciphertext text NOT NULL,
  permissions text[] NOT NULL,
  ip_allowlist text[] NOT NULL DEFAULT '{}',
  -- quote-currency amounts scaled by 1e18 (decimals-independent); NULL = no limit
  position_limit_e18 numeric(78, 0),
  daily_loss_limit_e18 numeric(78, 0),
  agent_address text NOT NULL,
  agent_key_ciphertext text NOT NULL,
  -- pending_approval until the wallet's AgentApproval was accepted; then approved
  agent_status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX dex_api_keys_owner ON dex_api_keys (owner);

-- Idempotency of order placement: one row per (account, client_order_id). The order id is chosen
-- before the service is called, so a retry after a crash places the same order id again (the service
-- is idempotent on order id) and never a second order.
CREATE TABLE dex_client_orders (
  account text NOT NULL,
  client_order_id text NOT NULL,
  order_id uuid NOT NULL UNIQUE,
  request_hash text NOT NULL,
  -- the first response body, once the service accepted the order
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account, client_order_id)
);
