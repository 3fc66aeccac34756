-- The sandbox clock per account (#26): each advance of an account's clock is a row (from that wall time on,
-- the account's clock is the wall clock plus offset_ms); offsets only grow. One account's advance moves no
-- other account's funding dates, resale holds or Reg CF window. Replaces the one global offset.
CREATE TABLE exchange_sandbox_clocks (
  account_id text NOT NULL,
  from_wall_ms bigint NOT NULL,
  offset_ms bigint NOT NULL,
  PRIMARY KEY (account_id, from_wall_ms)
);
DROP TABLE exchange_funding_clock;
