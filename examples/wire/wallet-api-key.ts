// An API key created by a wallet, by hand (no SDK): a wallet-signed request (EIP-191), then the key's
// agent approved with the `{approval, signature}` body (EIP-712 AgentApproval).
//   npx tsx examples/wire/wallet-api-key.ts
// Env: DEX_API_URL, PRIVATE_KEY (default: the integrator wallet). Prints one JSON line: the key's id, the
// key, its secret (shown once) and the agent's status.
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { exitWith, setting } from "../env";

const API = setting("DEX_API_URL");
const account = privateKeyToAccount(setting("PRIVATE_KEY") as Hex);

/** The wallet scheme: X-Wallet-Signature = EIP-191 personal_sign of timestamp + METHOD + host + target + body
 *  (host: the Host header sent; target: path with query; timestamp: Unix ms, within 60 s of the server). */
async function walletSigned(method: string, target: string, body: unknown) {
  const text = JSON.stringify(body);
  const timestamp = String(Date.now());
  const host = new URL(API).host;
  const signature = await account.signMessage({ message: timestamp + method + host + target + text });
  const headers = {
    "Content-Type": "application/json",
    "X-Wallet-Address": account.address,
    "X-Wallet-Timestamp": timestamp,
    "X-Wallet-Signature": signature,
  };
  const r = await fetch(API + target, { method, headers, body: text });
  const answer = (await r.json()) as any;
  if (!r.ok) throw new Error(`${r.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function main() {
  const key = await walletSigned("POST", "/v1/api-keys", { permissions: ["read", "trade"], label: "by hand" });
  // agent_approval is EIP-712 typed data: sign it as given (its integers as bigints), send back the message
  const { domain, types, primaryType, message } = key.agent_approval;
  const signature = await account.signTypedData({
    domain,
    types,
    primaryType,
    message: {
      ...message,
      expiry: BigInt(message.expiry),
      nonce: BigInt(message.nonce),
      deadline: BigInt(message.deadline),
    },
  });
  const r = await fetch(`${API}/v1/api-keys/${key.id}/agent-approval`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ approval: message, signature }),
  });
  const approved = (await r.json()) as { agent_status: string };
  if (!r.ok) throw new Error(`${r.status} ${JSON.stringify(approved)}`);
  console.log(
    JSON.stringify({
      id: key.id,
      api_key: key.api_key,
      api_secret: key.api_secret,
      agent_status: approved.agent_status,
    }),
  );
}

main().catch(exitWith);
