-- Issue #14: the exchange API's accounts and its tenant-token signing keys.
-- An account is one per (identity issuer, organization, user): the `owner` claim of the identity token
-- names the organization, and every query of the exchange API is scoped by (issuer, org_id).
CREATE TABLE exchange_accounts (
  id uuid PRIMARY KEY,
  issuer text NOT NULL,
  org_id text NOT NULL,
  user_id text NOT NULL,
  phone text,
  email text,
  -- not_started, pending, approved, rejected
  kyc_status text NOT NULL,
  kyb_status text NOT NULL,
  -- none, self_certified, pending, verified, rejected
  accreditation_status text NOT NULL,
  -- none, 506b, 506c
  accreditation_type text NOT NULL,
  -- custody.ensureAccount ran to completion (its on-chain address exists, sandbox funds preloaded)
  custody_ready boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (issuer, org_id, user_id)
);
CREATE INDEX exchange_accounts_org ON exchange_accounts (issuer, org_id);
-- The exchange API's own ES256 keys that sign tenant tokens; the private JWK sealed with AES-256-GCM
-- (api/auth/secret-box.ts, the API key encryption key, never stored beside the data), the kid as AAD.
CREATE TABLE exchange_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  sealed_private_jwk text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
