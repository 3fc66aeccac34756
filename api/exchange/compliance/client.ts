// The exchange API's writer of the eligibility registry (contracts/exchange/compliance/EligibilityRegistry.sol):
// it records an investor's eligibility (accreditation, US or not) and a holder's restricted lots of an asset
// token, signed by the compliance key (COMPLIANCE_ROLE and nothing else; docs/decisions/security.md). The
// registry makes the asset tokens refuse a transfer the resale rules refuse (api/exchange/orders/resale.ts).
//
// Lots are recorded as a whole (the holder's current restricted lots of a token, oldest first, from the
// exchange's own ledger) under a sequence number that must grow: a retried or reordered call never counts a
// lot twice, and an older record never overwrites a newer one (the registry refuses it: LotsStale).
import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { eligibilityRegistryAbi } from "../../../sdk/abi";
import { createNonceLane } from "../../../runtime/nonces";
import { homeChainClient, revertName, signCall } from "../home-chain";
import { REGISTRY_ACCREDITATION, type RegistryAccreditation } from "./regime";
import { ComplianceError, type InvestorEligibility, registryLotArgs, type RestrictedLot } from "./registry-values";

export interface ComplianceClient {
  readonly registry: Address;
  readonly address: Address;
  recordInvestor(investor: Address, facts: InvestorEligibility): Promise<TransactionReceipt>;
  /** Replaces `holder`'s restricted lots of `token` with `lots` (oldest first) as of `sequence` (> the last). */
  recordLots(
    token: Address,
    holder: Address,
    sequence: bigint,
    lots: readonly RestrictedLot[],
  ): Promise<TransactionReceipt>;
  /** The registry's view: units of `token` of `holder` inside a hold now, and free to go anywhere. */
  holding(token: Address, holder: Address): Promise<{ restricted: bigint; free: bigint }>;
  /** What the registry holds now: an investor's facts, and a holder's lots of a token (hold ends in seconds). */
  investor(investor: Address): Promise<InvestorEligibility>;
  lotsOf(token: Address, holder: Address): Promise<{ amount: bigint; holdEnd: bigint }[]>;
  /** Only the lots recorded by this key (what recordLots replaces; not the lots received by direct transfers). */
  recordedLotsOf(token: Address, holder: Address): Promise<{ amount: bigint; holdEnd: bigint }[]>;
}

export interface ComplianceClientOptions {
  chainId: number;
  rpcUrl: string;
  complianceKey: Hex;
  registry: Address;
  pollingIntervalMs?: number;
}

/** The chain connection every call shares: the reader, the compliance key and its nonce lane. */
interface RegistryConnection {
  opts: ComplianceClientOptions;
  client: PublicClient;
  account: PrivateKeyAccount;
  lane: ReturnType<typeof createNonceLane>;
  pollingInterval: number;
}

export function createComplianceClient(opts: ComplianceClientOptions): ComplianceClient {
  const c = connect(opts);
  return {
    registry: opts.registry,
    address: c.account.address,
    recordInvestor(investor, facts) {
      return send(c, "recordInvestor", [investor, REGISTRY_ACCREDITATION[facts.accreditation], !facts.usPerson]);
    },
    recordLots(token, holder, sequence, lots) {
      return send(c, "recordLots", [token, holder, sequence, registryLotArgs(sequence, lots)]);
    },
    async holding(token, holder) {
      const [restricted, free] = await Promise.all([
        read<bigint>(c, "restrictedOf", [token, holder]),
        read<bigint>(c, "freeOf", [token, holder]),
      ]);
      return { restricted, free };
    },
    async investor(investor) {
      const [acc, nonUS] = await read<readonly [number, boolean]>(c, "investor", [investor]);
      const accreditation =
        (Object.keys(REGISTRY_ACCREDITATION) as RegistryAccreditation[]).find(
          (k) => REGISTRY_ACCREDITATION[k] === Number(acc),
        ) ?? "none";
      return { accreditation, usPerson: !nonUS };
    },
    lotsOf: (token, holder) => readLots(c, "lotsOf", token, holder),
    recordedLotsOf: (token, holder) => readLots(c, "recordedLotsOf", token, holder),
  };
}

function connect(opts: ComplianceClientOptions): RegistryConnection {
  const pollingInterval = opts.pollingIntervalMs ?? 20;
  const client = homeChainClient(opts.chainId, opts.rpcUrl, pollingInterval);
  const account = privateKeyToAccount(opts.complianceKey);
  const lane = createNonceLane(opts.chainId, account.address, () =>
    client.getTransactionCount({ address: account.address, blockTag: "pending" }),
  );
  return { opts, client, account, lane, pollingInterval };
}

async function read<T>(c: RegistryConnection, functionName: string, args: readonly unknown[]): Promise<T> {
  return (await c.client.readContract({
    address: c.opts.registry,
    abi: eligibilityRegistryAbi,
    functionName,
    args,
  } as never)) as T;
}

async function readLots(
  c: RegistryConnection,
  functionName: "lotsOf" | "recordedLotsOf",
  token: Address,
  holder: Address,
): Promise<{ amount: bigint; holdEnd: bigint }[]> {
  const lots = await read<readonly { amount: bigint; holdEnd: bigint | number }[]>(c, functionName, [token, holder]);
  return lots.map((l) => ({ amount: l.amount, holdEnd: BigInt(l.holdEnd) }));
}

/** Signs and sends one registry call on the key's nonce lane and waits for its receipt. */
async function send(
  c: RegistryConnection,
  functionName: "recordInvestor" | "recordLots",
  args: readonly unknown[],
): Promise<TransactionReceipt> {
  const { client, account, opts } = c;
  const call = { address: opts.registry, abi: eligibilityRegistryAbi, functionName, args };
  const gas = await estimate(c, functionName, args);
  const gasPrice = (await client.getGasPrice()) * 2n;
  const hash = await c.lane.send(async (nonce) =>
    client.sendRawTransaction({
      serializedTransaction: await signCall(account, call, { gas, gasPrice, nonce, chainId: opts.chainId }),
    }),
  );
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: c.pollingInterval });
  if (receipt.status !== "success")
    throw new ComplianceError(`eligibility registry: ${functionName} transaction ${hash} reverted`);
  return receipt;
}

/** The call's gas; a refusal (no role, a stale sequence, too many lots) shows here, named, before a nonce is
 *  taken. */
async function estimate(c: RegistryConnection, functionName: string, args: readonly unknown[]): Promise<bigint> {
  const call = {
    address: c.opts.registry,
    abi: eligibilityRegistryAbi,
    functionName,
    args,
    account: c.account.address,
  };
  try {
    return await c.client.estimateContractGas(call as never);
  } catch (err) {
    const name = revertName(err);
    throw new ComplianceError(`eligibility registry refused ${functionName}${name ? `: ${name}` : ""}`, name, {
      cause: err,
    });
  }
}
