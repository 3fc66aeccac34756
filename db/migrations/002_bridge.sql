-- Bridge relayer progress and the bridge API's transfers and tenants (docs/decisions.md "Bridge relayer,
-- API and tenants"). Amounts are numeric(78,0) base units; chain timestamps are unix seconds (bigint).

-- One row per on-chain source event (a vault deposit or a wrapped-token burn) of one bridge deployment,
-- keyed by the source contract's nonce: a second relayer, or a restart, finds the same row and never
-- signs or submits it as a new transfer. A worker owns a row only while its lease runs.
CREATE TABLE bridge_relayer_transfers (
  bridge text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('deposit', 'withdrawal')),
  nonce numeric(20, 0) NOT NULL,
  status text NOT NULL CHECK (status IN ('deposited', 'burned', 'signed', 'minted', 'release_queued', 'disputed', 'released', 'failed')),
  src_chain_id bigint NOT NULL,
  src_contract text NOT NULL,
  dst_chain_id bigint NOT NULL,
  dst_contract text NOT NULL,
  token text NOT NULL,
  sender text NOT NULL,
  recipient text NOT NULL,
  amount_wei numeric(78, 0) NOT NULL,
  src_tx_hash text NOT NULL,
  src_block bigint NOT NULL,
  key_epoch bigint,
  signers text,
  signature text,
  hsm_signature text,
  dst_tx_hash text,
  execute_tx_hash text,
  ready_at bigint,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  lease_owner text,
  lease_until timestamptz,
  observed_at timestamptz NOT NULL DEFAULT now(),
  signed_at timestamptz,
  minted_at timestamptz,
  release_queued_at timestamptz,
  disputed_at timestamptz,
  released_at timestamptz,
  failed_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (bridge, kind, nonce)
);
CREATE INDEX bridge_relayer_transfers_due ON bridge_relayer_transfers (next_attempt_at) WHERE status NOT IN ('minted', 'released', 'disputed', 'failed');
CREATE INDEX bridge_relayer_transfers_src_tx ON bridge_relayer_transfers (src_tx_hash);

-- How far each follower has read a source contract's events: the next block to read.
CREATE TABLE bridge_relayer_cursors (
  bridge text NOT NULL,
  chain_id bigint NOT NULL,
  contract text NOT NULL,
  next_block bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (bridge, chain_id, contract)
);

-- White-label tenants by hostname (a tenant may answer on several). `config` is what GET /api/tenant serves.
CREATE TABLE bridge_tenants (
  hostname text PRIMARY KEY,
  tenant_id text NOT NULL,
  name text NOT NULL,
  signing_mode text NOT NULL CHECK (signing_mode IN ('native', 'custody', 'custom')),
  bridge text NOT NULL,
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Transfers started through the API. `initiated` until the wallet's deposit / burn is attached
-- (POST /complete); from then on its progress is the relayer row with the same (bridge, kind, nonce).
CREATE TABLE bridge_transfers (
  id uuid PRIMARY KEY,
  tenant_id text NOT NULL,
  bridge text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('deposit', 'withdrawal')),
  token text NOT NULL,
  amount_wei numeric(78, 0) NOT NULL,
  sender text NOT NULL,
  recipient text NOT NULL,
  src_tx_hash text,
  nonce numeric(20, 0),
  initiated_at timestamptz NOT NULL DEFAULT now(),
  linked_at timestamptz,
  UNIQUE (bridge, direction, nonce)
);
