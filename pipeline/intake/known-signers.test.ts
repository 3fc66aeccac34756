// The signers the process already knows (known-signers.ts): the intake takes them instead of recovering a
// signature again, and only what recovery returned (or the agent's own signature) is ever taken.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { getSettlementDomain, signOrder, type Order } from "../../sdk/eip712";
import { DEFAULT_MARKET_GRIDS, type MarketSpec } from "../markets";
import { typedOrder } from "../testing/orders";
import { PipelineError } from "../errors";
import { agentAccount } from "./agent-signer";
import { validateSignedOrder, type IntakeContext } from "./intake";
import { KNOWN_SIGNERS_MAX, SignerCache } from "./known-signers";
import { createOrderDigester, getDomainSeparator } from "../../runtime/order-digest";
import { recoverSigner } from "./recover";

const domain = getSettlementDomain(31337n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const digest = createOrderDigester(getDomainSeparator(domain));
const market: MarketSpec = {
  symbol: "WETH-USD",
  baseToken: "0x00000000000000000000000000000000000000e1" as Address,
  quoteToken: "0x00000000000000000000000000000000000000d1" as Address,
  ...DEFAULT_MARKET_GRIDS["WETH-USD"]!,
};
let nonce = 1n;
const orderOf = (trader: Address): Order => ({
  trader,
  baseToken: market.baseToken,
  quoteToken: market.quoteToken,
  side: 0,
  price: 200_000n * market.tickSize,
  amount: market.lotSize,
  expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
  nonce: nonce++,
  flags: 0,
});
const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

test("a recovered signer is taken once, for exactly its digest and signature; a failed recovery is not remembered", async () => {
  const signers = new SignerCache();
  const w = privateKeyToAccount(generatePrivateKey());
  const o = orderOf(w.address);
  const sig = await signOrder(w, domain, o);
  assert.equal(signers.recoverAndRemember(digest(o), sig), w.address.toLowerCase());
  assert.equal(signers.take(digest({ ...o, nonce: o.nonce + 1n }), sig), undefined, "another digest, same signature");
  assert.equal(
    signers.take(digest(o), (sig.slice(0, -2) + (sig.endsWith("1b") ? "1c" : "1b")) as Hex),
    undefined,
    "same digest, other v",
  );
  assert.equal(signers.take(digest(o), sig), w.address.toLowerCase());
  assert.equal(signers.take(digest(o), sig), undefined, "taken once");
  // high s (n - s, v flipped) recovers nothing under the contract's rule: nothing remembered
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const high = (sig.slice(0, 66) + (n - s).toString(16).padStart(64, "0") + (sig.endsWith("1b") ? "1c" : "1b")) as Hex;
  assert.equal(signers.recoverAndRemember(digest(o), high), null);
  assert.equal(signers.size, 0);
});

test("at most KNOWN_SIGNERS_MAX are held: at the bound all stay, one past it the oldest goes", () => {
  const signers = new SignerCache();
  const a = "0x00000000000000000000000000000000000000aa" as Address;
  for (let i = 0; i < KNOWN_SIGNERS_MAX; i++) signers.remember(h(i), "0x01", a);
  assert.equal(signers.size, KNOWN_SIGNERS_MAX);
  signers.remember(h(0), "0x01", a); // the same pair again: nothing evicted
  assert.equal(signers.size, KNOWN_SIGNERS_MAX);
  signers.remember(h(KNOWN_SIGNERS_MAX), "0x01", a);
  assert.equal(signers.size, KNOWN_SIGNERS_MAX);
  assert.equal(signers.take(h(0), "0x01"), undefined, "the oldest went");
  assert.equal(signers.take(h(1), "0x01"), a);
  assert.equal(signers.take(h(KNOWN_SIGNERS_MAX), "0x01"), a);
});

test("the intake does not recover an agent's own signature nor one the API recovered; any other it recovers", async () => {
  const signers = new SignerCache();
  const trader = privateKeyToAccount(generatePrivateKey());
  const agent = agentAccount(generatePrivateKey());
  let recoveries = 0;
  const ctx: IntakeContext = {
    marketOf: (s) => (s === market.symbol ? market : undefined),
    digest,
    nowMs: () => Date.now(),
    expiryMarginMs: 5_000,
    agentExpiry: (t, a) =>
      t === trader.address.toLowerCase() && a.toLowerCase() === agent.address.toLowerCase()
        ? BigInt(Math.floor(Date.now() / 1000) + 86_400)
        : 0n,
    nonceProblem: () => null,
    knownSigners: signers,
    async recoverSigner(d, s) {
      recoveries++;
      return recoverSigner(d, s);
    },
  };
  const input = (order: Order, signature: Hex) => ({
    ...typedOrder(market, { priceTicks: 200_000n, sizeLots: 1n, type: "limit", timeInForce: "GTC" }),
    order,
    signature,
  });

  const byAgent = orderOf(trader.address);
  const v1 = await validateSignedOrder(
    ctx,
    input(byAgent, signers.signAsAgent(agent.address, agent.signDigest, digest(byAgent))),
  );
  assert.equal(v1.signer.toLowerCase(), agent.address.toLowerCase());
  assert.equal(recoveries, 0);

  const byWallet = orderOf(trader.address);
  const sig = await signOrder(trader, domain, byWallet);
  signers.recoverAndRemember(digest(byWallet), sig);
  assert.equal((await validateSignedOrder(ctx, input(byWallet, sig))).signer, trader.address);
  assert.equal(recoveries, 0);
  // the same order again (a replay): recovered, and its nonce is the service's business, not this memo's
  assert.equal((await validateSignedOrder(ctx, input(byWallet, sig))).signer, trader.address);
  assert.equal(recoveries, 1);

  // an agent's signature over another trader's order: taken from the memo, and still refused (not approved)
  const stranger = orderOf(privateKeyToAccount(generatePrivateKey()).address);
  await assert.rejects(
    validateSignedOrder(ctx, input(stranger, signers.signAsAgent(agent.address, agent.signDigest, digest(stranger)))),
    (e: unknown) => e instanceof PipelineError && e.code === "INVALID_SIGNATURE",
  );
  assert.equal(recoveries, 1);
  assert.equal(signers.size, 0);
});
