// A bridge transfer: tokens deposited into the vault on the home chain are minted, wrapped, on the remote
// chain once 3 of the 5 FROST signers (and the HSM) have signed the deposit. The bridge API (a tenant's
// hostname) prepares the calls, the wallet sends them (approve + deposit), signs the message that links the
// deposit to the transfer, and the SDK's bridgeTransfer follows the transfer until it is minted.
//   npx tsx examples/bridge-transfer.ts
// Env: BRIDGE_API_URL (http://127.0.0.1:3002, the native tenant under `npm start`), PRIVATE_KEY (the
// integrator wallet, examples/env.ts, given bridged tokens in its wallet on the first start), TOKEN (USD), AMOUNT (25, decimal),
// RECIPIENT (default: the same address), HOME_RPC_URL / REMOTE_RPC_URL (default: the tenant's chains through
// its same-origin proxy, <BRIDGE_API_URL>/portal/rpc/<chainId>).
// Prints one JSON line per status (initiated, deposited, signed, minted) and a last one with the balances.
import {
  bridgeTransfer,
  bridgeWrappedTokenAbi,
  createBridgeClient,
  formatDecimal,
  parseDecimal,
} from "@onchain-exchange/sdk";
import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { exitWith, setting } from "./env";

const API = setting("BRIDGE_API_URL");
const account = privateKeyToAccount(setting("PRIVATE_KEY") as Hex);
const symbol = process.env.TOKEN ?? "USD";
const recipient = (process.env.RECIPIENT ?? account.address) as Address;

async function main() {
  const client = createBridgeClient({ baseUrl: API });
  const tenant = await client.tenant();
  const home = tenant.chains.find((c) => c.role === "home")!;
  const remote = tenant.chains.find((c) => c.role === "remote")!;
  const token = home.tokens.find((t) => t.symbol === symbol);
  const wrapped = remote.tokens.find((t) => t.symbol === symbol);
  if (!token || !wrapped)
    throw new Error(
      `${tenant.name} does not bridge ${symbol} (it bridges ${home.tokens.map((t) => t.symbol).join(", ")})`,
    );
  const amount = parseDecimal(process.env.AMOUNT ?? "25", token.decimals);
  if (amount === null || amount <= 0n)
    throw new Error(`AMOUNT must be a positive decimal with at most ${token.decimals} decimals`);

  const chain = (c: typeof home, url: string | undefined) => {
    const rpc = url ?? c.rpcUrl ?? `${new URL(API).origin}/portal/rpc/${c.chainId}`;
    return defineChain({
      id: c.chainId,
      name: c.name,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpc] } },
    });
  };
  const homeChain = chain(home, process.env.HOME_RPC_URL);
  const remoteChain = chain(remote, process.env.REMOTE_RPC_URL);
  const remoteClient = createPublicClient({ chain: remoteChain, transport: http() });
  const balance = () =>
    remoteClient.readContract({
      address: wrapped.address,
      abi: bridgeWrappedTokenAbi,
      functionName: "balanceOf",
      args: [recipient],
    });

  const before = await balance();
  const transfer = await bridgeTransfer({
    client,
    direction: "deposit",
    token: symbol,
    amount,
    recipient,
    wallets: {
      [home.chainId]: {
        wallet: createWalletClient({ account, chain: homeChain, transport: http() }),
        publicClient: createPublicClient({ chain: homeChain, transport: http() }),
      },
    },
    onStatus: (t) =>
      console.log(JSON.stringify({ id: t.id, status: t.status, signers: t.signers, txHashes: t.txHashes })),
  });
  const after = await balance();
  console.log(
    JSON.stringify({
      done: true,
      id: transfer.id,
      status: transfer.status,
      amount: formatDecimal(amount, token.decimals),
      wrapped_token: wrapped.address,
      balance_before: formatDecimal(before, wrapped.decimals),
      balance_after: formatDecimal(after, wrapped.decimals),
      mint_tx: transfer.txHashes.mint,
    }),
  );
}

main().catch(exitWith);
