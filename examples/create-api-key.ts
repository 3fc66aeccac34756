// Create an API key from a wallet, have its agent approved on chain, and use the key.
//   npx tsx examples/create-api-key.ts
// Env: DEX_API_URL (default http://127.0.0.1:3001, what `npm start` serves), PRIVATE_KEY (default: the
// sandbox's demo trader, Hardhat development account #4; never use it with anything of value).
// Prints one JSON line: the key's id, the key and its secret (shown once: keep it), and the balances read with it.
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const API = process.env.DEX_API_URL ?? "http://127.0.0.1:3001";
const wallet = privateKeyToAccount((process.env.PRIVATE_KEY ?? "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a") as Hex);

/** A request signed by the wallet: EIP-191 signature of timestamp + METHOD + host + path + body. */
async function walletRequest(method: string, path: string, body?: unknown) {
  const text = body === undefined ? "" : JSON.stringify(body);
  const timestamp = String(Date.now());
  const signature = await wallet.signMessage({ message: `${timestamp}${method}${new URL(API).host}${path}${text}` });
  const headers = { "content-type": "application/json", "X-Wallet-Address": wallet.address, "X-Wallet-Timestamp": timestamp, "X-Wallet-Signature": signature };
  return send(method, path, headers, body === undefined ? undefined : text);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers' shapes: GET /v1/openapi.json
async function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<any> {
  const res = await fetch(API + path, { method, headers, body });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function main() {
  // 1. the key, created by the wallet's signature; its secret is in this answer only
  const key = await walletRequest("POST", "/v1/api-keys", { permissions: ["read", "trade"], label: "example" });

  // 2. the wallet approves the key's agent: it signs the EIP-712 AgentApproval the API prepared, and the
  //    API's relayer submits it to the Settlement contract (orders placed with the key are signed by the agent)
  const { domain, types, primaryType, message } = key.agent_approval;
  const signature = await wallet.signTypedData({
    domain,
    types,
    primaryType,
    message: { ...message, expiry: BigInt(message.expiry), nonce: BigInt(message.nonce), deadline: BigInt(message.deadline) },
  });
  const approved = await send("POST", `/v1/api-keys/${key.id}/agent-approval`, { "content-type": "application/json" }, JSON.stringify({ approval: message, signature }));

  // 3. the key at work: X-API-Key + X-API-Secret (or the HMAC scheme, see api/README.md)
  const { balances } = await send("GET", "/v1/balances", { "X-API-Key": key.api_key, "X-API-Secret": key.api_secret });
  console.log(JSON.stringify({ id: key.id, api_key: key.api_key, api_secret: key.api_secret, agent_status: approved.agent_status, balances }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
