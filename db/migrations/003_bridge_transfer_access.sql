-- A transfer's read/complete capability: the SHA-256 (hex) of the 32-byte random token returned once
-- by POST /api/v1/transfer/initiate. Rows from before this column have none and are readable by nobody.
ALTER TABLE bridge_transfers ADD COLUMN access_token_hash text;
