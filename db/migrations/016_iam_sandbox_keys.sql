-- The sandbox's stand-ins for possession (#26): a phone's simulated SIM (whoever holds its key reads the
-- codes sent to it and may place it in an organization) and an organization's key (whoever holds it may
-- add users to it). Keys are 32 random bytes given once; only their SHA-256 is kept.
CREATE TABLE iam_sandbox_phone_keys (
  phone text PRIMARY KEY,
  key_hash text NOT NULL,
  created_at_ms bigint NOT NULL
);

CREATE TABLE iam_sandbox_organization_keys (
  organization_id text PRIMARY KEY REFERENCES iam_organizations (id),
  key_hash text NOT NULL
);
