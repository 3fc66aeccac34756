-- Issue #11: deleting an API key renounces its agent on chain. The agent's signed AgentRenouncement is
-- written by the same UPDATE that revokes the key and wipes the agent key, so the key is never gone before
-- what revokes its approval is stored: a durable queue the DEX API drains (and retries after a restart).
-- The renouncement can only take the approval away (its nonce is used up on chain), so it is kept in clear.
ALTER TABLE dex_api_keys ADD COLUMN agent_renouncement jsonb;
-- NULL: nothing stored (a key revoked before this migration); pending, done, failed
ALTER TABLE dex_api_keys ADD COLUMN agent_renouncement_status text;
ALTER TABLE dex_api_keys ADD COLUMN agent_renouncement_tx text;
-- the last attempt's start: an attempt holds the row for a while, so two senders do not both pay gas
ALTER TABLE dex_api_keys ADD COLUMN agent_renouncement_attempt_at timestamptz;
CREATE INDEX dex_api_keys_renouncement_pending ON dex_api_keys (agent_renouncement_status) WHERE agent_renouncement_status = 'pending';
