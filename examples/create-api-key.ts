// Create an API key from a wallet, have its agent approved on chain, and use the key.
//   npx tsx examples/create-api-key.ts
// Env: DEX_API_URL (default http://127.0.0.1:3001, what `npm start` serves), PRIVATE_KEY (default: the
// sandbox's integrator wallet, examples/env.ts; never use it with anything of value).
// Prints one JSON line: the key's id, the key and its secret (shown once: keep it), and the balances read with it.
import { createDexClient, fromViem, ok, signAgentApprovalRequest } from "@onchain-exchange/sdk";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { exitWith, setting } from "./env";

const API = setting("DEX_API_URL");
const wallet = fromViem(privateKeyToAccount(setting("PRIVATE_KEY") as Hex));

async function main() {
  // 1. the key, created by the wallet's signature (EIP-191 over timestamp + METHOD + host + path + body, added
  //    by the client); its secret is in this answer only
  const asWallet = createDexClient({ baseUrl: API, auth: { wallet } });
  const key = await ok(asWallet.POST("/v1/api-keys", { body: { permissions: ["read", "trade"], label: "example" } }));

  // 2. the wallet approves the key's agent: it signs the EIP-712 AgentApproval the API prepared, and the
  //    API's relayer submits it to the Settlement contract (orders placed with the key are signed by the agent)
  const body = await signAgentApprovalRequest(wallet, key.agent_approval);
  const approved = await ok(
    createDexClient({ baseUrl: API }).POST("/v1/api-keys/{id}/agent-approval", {
      params: { path: { id: key.id } },
      body,
    }),
  );

  // 3. the key at work: X-API-Key + X-API-Secret (scheme "hmac" signs each request instead)
  const asKey = createDexClient({ baseUrl: API, auth: { apiKey: key.api_key, apiSecret: key.api_secret } });
  const { balances } = await ok(asKey.GET("/v1/balances"));
  console.log(
    JSON.stringify({
      id: key.id,
      api_key: key.api_key,
      api_secret: key.api_secret,
      agent_status: approved.agent_status,
      balances,
    }),
  );
}

main().catch(exitWith);
