-- The identity provider (api/iam): organizations, users (a phone number is the username), one-time codes,
-- the sandbox's SMS outbox, signing keys (private halves sealed), sealed secrets, and oidc-provider's
-- stored models (grants, codes, refresh tokens, sessions, interactions). Times the IAM's clock decides
-- (codes, lockouts) are Unix milliseconds, so a test clock can move them.
CREATE TABLE iam_organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at_ms bigint NOT NULL
);

CREATE TABLE iam_users (
  id text PRIMARY KEY,
  phone text NOT NULL UNIQUE,
  organization_id text NOT NULL REFERENCES iam_organizations (id),
  name text NOT NULL,
  created_at_ms bigint NOT NULL,
  last_login_at_ms bigint
);
CREATE INDEX iam_users_organization ON iam_users (organization_id);

-- one live code per phone (a new request replaces it); the code is stored as an HMAC under a sealed pepper
CREATE TABLE iam_otp_codes (
  phone text PRIMARY KEY,
  code_hash text NOT NULL,
  created_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL
);

-- when codes were requested, per phone (the per-phone request limit counts a rolling window)
CREATE TABLE iam_otp_requests (
  phone text NOT NULL,
  requested_at_ms bigint NOT NULL
);
CREATE INDEX iam_otp_requests_phone ON iam_otp_requests (phone, requested_at_ms);

-- consecutive wrong codes per phone, and the lockout they led to
CREATE TABLE iam_otp_failures (
  phone text PRIMARY KEY,
  failures integer NOT NULL,
  locked_until_ms bigint NOT NULL DEFAULT 0
);

-- sandbox only: the simulated SMS channel (production mode never writes or serves it)
CREATE TABLE iam_sandbox_outbox (
  id bigserial PRIMARY KEY,
  phone text NOT NULL,
  code text NOT NULL,
  sent_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL
);
CREATE INDEX iam_sandbox_outbox_phone ON iam_sandbox_outbox (phone, id);

-- token signing keys: the newest unretired one signs; a retired one stays in the JWKS until drop_after_ms
CREATE TABLE iam_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk text NOT NULL,
  private_jwk_sealed text NOT NULL,
  created_at_ms bigint NOT NULL,
  retired_at_ms bigint,
  drop_after_ms bigint
);

-- other secrets the IAM generates once (cookie keys, the OTP pepper), sealed
CREATE TABLE iam_secrets (
  name text PRIMARY KEY,
  sealed text NOT NULL
);

-- oidc-provider's adapter: one row per stored model instance
CREATE TABLE iam_oidc_models (
  model text NOT NULL,
  id text NOT NULL,
  payload text NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at_ms bigint,
  consumed_at_ms bigint,
  PRIMARY KEY (model, id)
);
CREATE INDEX iam_oidc_models_grant ON iam_oidc_models (grant_id);
CREATE INDEX iam_oidc_models_uid ON iam_oidc_models (model, uid);
CREATE INDEX iam_oidc_models_user_code ON iam_oidc_models (model, user_code);
