// The agent-approval relayer: submits wallets' signed AgentApprovals (Settlement.approveAgentWithSig), and
// the agents' own signed AgentRenouncements of a deleted API key (renounceAgentWithSig), from its own key,
// which holds no role on any contract, within a gas budget. The internet-facing API reaches the chain's gas
// only through here:
//   - one account, its nonces from the account's one NonceLane (runtime/nonces.ts; the stack hands the same
//     lane to every sender of the account): concurrent approvals never collide on a nonce;
//   - every approval is simulated first: one the contract would refuse costs nothing;
//   - only a wallet with funds in Settlement may spend the budget: its balance there of one of the
//     exchange's tokens is at least that token's minimum (`fundingMinimums`), read on chain before anything
//     is reserved; a fresh wallet costs the relayer nothing (it may still send approveAgent itself);
//   - a daily budget in wei, in total and per wallet (UTC days): the cost is reserved before sending
//     (estimated gas x gas price) and replaced by the receipt's actual cost once mined;
//   - a renouncement is a security action: it is never refused for the budget (a spent budget must not
//     keep a deleted key's agent approved) but its cost is charged like an approval's. It is bounded all the
//     same: the API sends one only for an agent approved on chain, and approvals are within the budget.
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  defineChain,
  http,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DexServiceError, type AgentApproval } from "../service";
import type { AgentRenouncement } from "../../sdk/eip712";
import { settlementAbi } from "../../sdk/abi";
import { createNonceLane, type NonceLane } from "../../runtime/nonces";

const DAY_MS = 86_400_000;

export interface AgentRelayerBudget {
  /** wei the relayer may spend per UTC day on all approvals */
  dailyWei: bigint;
  /** wei it may spend per UTC day on one wallet's approvals */
  perOwnerDailyWei: bigint;
}

/** A wallet holding at least `minUnits` of `token` in Settlement has funds there. */
export interface FundingMinimum {
  token: Address;
  minUnits: bigint;
}

export interface AgentRelayerDeps {
  client: PublicClient;
  chainId: number;
  rpcUrl: string;
  settlement: Address;
  /** the relayer's key: funded with ETH, no contract role */
  relayerKey: Hex;
  budget: AgentRelayerBudget;
  /** who may spend the budget: a wallet with at least one of these balances in Settlement (read each time:
   *  the exchange's markets may change) */
  fundingMinimums: () => readonly FundingMinimum[];
  /** the relayer account's nonce lane on this chain, shared with every other sender of the account (the
   *  stack's); default: a lane of its own */
  nonces?: NonceLane;
  now?: () => number;
}

export interface AgentRelayerSpend {
  day: number;
  spentWei: bigint;
  /** transactions sent today */
  transactions: number;
}

export interface AgentRelayer {
  readonly address: Address;
  /** Checks the wallet's funds, simulates, then sends approveAgentWithSig and waits for its receipt. Throws
   *  DexServiceError: FORBIDDEN (reason no_funds_in_settlement: the wallet holds none of the minimums),
   *  INVALID_SIGNATURE (the contract refuses it), RATE_LIMIT_EXCEEDED (this wallet's daily budget is
   *  spent), SERVICE_UNAVAILABLE (the relayer's daily budget is spent). */
  submit(approval: AgentApproval, signature: Hex): Promise<{ txHash: Hex; costWei: bigint }>;
  /** Simulates, then sends renounceAgentWithSig (an agent's signed renouncement) and waits for its receipt.
   *  Never refused for the budget (both caps are bypassed) but its cost is charged to the trader and the
   *  day. Throws DexServiceError: INVALID_SIGNATURE (the contract refuses it), SERVICE_UNAVAILABLE (not
   *  sent or not confirmed: try again). */
  renounce(renouncement: AgentRenouncement, signature: Hex): Promise<{ txHash: Hex; costWei: bigint }>;
  spent(): AgentRelayerSpend;
}

/** Wei spent per UTC day, in total and per owner. `reserve` refuses a cost that would take either past
 *  its cap (equal to the cap is allowed) and returns the undo; `charge` books an actual cost. */
export class GasBudget {
  private day: number;
  private total = 0n;
  private transactions = 0;
  private perOwner = new Map<string, bigint>();

  constructor(
    private readonly caps: AgentRelayerBudget,
    private readonly now: () => number = Date.now,
  ) {
    this.day = Math.floor(now() / DAY_MS);
  }

  private roll(): void {
    const d = Math.floor(this.now() / DAY_MS);
    if (d === this.day) return;
    this.day = d;
    this.total = 0n;
    this.transactions = 0;
    this.perOwner = new Map();
  }

  private secondsToNextDay(): number {
    return Math.ceil(((this.day + 1) * DAY_MS - this.now()) / 1000);
  }

  reserve(owner: string, wei: bigint): () => void {
    this.roll();
    const ownerSpent = this.perOwner.get(owner) ?? 0n;
    if (this.total + wei > this.caps.dailyWei) {
      throw new DexServiceError(
        "SERVICE_UNAVAILABLE",
        "the relayer's daily gas budget for agent approvals is spent; try again tomorrow (UTC)",
        {
          reason: "relayer_budget_exhausted",
          retry_after: this.secondsToNextDay(),
        },
      );
    }
    if (ownerSpent + wei > this.caps.perOwnerDailyWei) {
      throw new DexServiceError(
        "RATE_LIMIT_EXCEEDED",
        "this wallet's daily gas budget for agent approvals is spent; try again tomorrow (UTC)",
        {
          reason: "owner_gas_budget_exhausted",
          retry_after: this.secondsToNextDay(),
        },
      );
    }
    this.total += wei;
    this.perOwner.set(owner, ownerSpent + wei);
    const day = this.day;
    let undone = false;
    return () => {
      if (undone || day !== this.day) return;
      undone = true;
      this.total -= wei;
      this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0n) - wei);
    };
  }

  charge(owner: string, wei: bigint): void {
    this.roll();
    this.total += wei;
    this.transactions += 1;
    this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0n) + wei);
  }

  spent(): AgentRelayerSpend {
    this.roll();
    return { day: this.day, spentWei: this.total, transactions: this.transactions };
  }

  spentBy(owner: string): bigint {
    this.roll();
    return this.perOwner.get(owner) ?? 0n;
  }
}

type RelayedFunction = "approveAgentWithSig" | "renounceAgentWithSig";

export function createAgentRelayer(deps: AgentRelayerDeps): AgentRelayer {
  return new SettlementAgentRelayer(deps);
}

/** The relayer over one Settlement: simulate, reserve, send in nonce order, confirm, charge. */
class SettlementAgentRelayer implements AgentRelayer {
  readonly address: Address;
  private readonly account: ReturnType<typeof privateKeyToAccount>;
  private readonly chain: ReturnType<typeof defineChain>;
  private readonly wallet: ReturnType<typeof createWalletClient>;
  private readonly nonces: NonceLane;
  private readonly budget: GasBudget;

  constructor(private readonly deps: AgentRelayerDeps) {
    this.chain = defineChain({
      id: deps.chainId,
      name: "home",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [deps.rpcUrl] } },
    });
    this.account = privateKeyToAccount(deps.relayerKey);
    this.address = this.account.address;
    this.wallet = createWalletClient({ chain: this.chain, transport: http(deps.rpcUrl), account: this.account });
    // Every send takes the account's next nonce from its lane, one send at a time in nonce order (a node that
    // mines on arrival refuses a nonce that overtakes: "nonce too high"); receipts are awaited concurrently.
    const address = this.account.address;
    this.nonces =
      deps.nonces ??
      createNonceLane(deps.chainId, address, () => deps.client.getTransactionCount({ address, blockTag: "pending" }));
    if (this.nonces.chainId !== deps.chainId || this.nonces.address.toLowerCase() !== address.toLowerCase()) {
      throw new Error(
        `agent relayer: the nonce lane is ${this.nonces.address} on chain ${this.nonces.chainId}, not the relayer's ${address} on chain ${deps.chainId}`,
      );
    }
    this.budget = new GasBudget(deps.budget, deps.now ?? Date.now);
  }

  spent(): AgentRelayerSpend {
    return this.budget.spent();
  }

  async submit(approval: AgentApproval, signature: Hex): Promise<{ txHash: Hex; costWei: bigint }> {
    await this.requireFunds(approval.trader);
    const a = approval;
    const args = [a.trader, a.agent, a.expiry, a.nonce, a.deadline, signature] as const;
    let gas: bigint;
    try {
      gas = await this.simulate("approveAgentWithSig", args);
    } catch (err) {
      throw new DexServiceError(
        "INVALID_SIGNATURE",
        "the contract refuses this agent approval (signature, nonce, deadline or expiry)",
        {},
        { cause: err },
      );
    }
    const gasPrice = await this.deps.client.getGasPrice();
    const owner = approval.trader.toLowerCase();
    const release = this.budget.reserve(owner, gas * gasPrice);
    let hash: Hex;
    try {
      hash = await this.send("approveAgentWithSig", args, gas);
    } catch (err) {
      release();
      throw unavailable("the agent approval could not be sent", { reason: "relayer_send_failed" }, err);
    }
    const r = await this.deps.client.waitForTransactionReceipt({ hash });
    // The reservation becomes the actual cost (a reverted transaction costs too).
    const cost = r.gasUsed * r.effectiveGasPrice;
    release();
    this.budget.charge(owner, cost);
    if (r.status !== "success")
      throw new DexServiceError("INVALID_SIGNATURE", "approveAgentWithSig reverted", { tx_hash: hash });
    return { txHash: hash, costWei: cost };
  }

  async renounce(renouncement: AgentRenouncement, signature: Hex): Promise<{ txHash: Hex; costWei: bigint }> {
    const m = renouncement;
    const args = [m.trader, m.agent, m.nonce, m.deadline, signature] as const;
    let gas: bigint;
    try {
      gas = await this.simulate("renounceAgentWithSig", args);
    } catch (err) {
      // only the contract's refusal is final; anything else (node down, timeout) is worth another try
      if (contractRefused(err)) {
        throw new DexServiceError(
          "INVALID_SIGNATURE",
          "the contract refuses this agent renouncement (signature, nonce or deadline)",
          {},
          { cause: err },
        );
      }
      throw unavailable("the agent renouncement could not be simulated", { reason: "relayer_send_failed" }, err);
    }
    let hash: Hex;
    try {
      hash = await this.send("renounceAgentWithSig", args, gas);
    } catch (err) {
      throw unavailable("the agent renouncement could not be sent", { reason: "relayer_send_failed" }, err);
    }
    let r: Awaited<ReturnType<PublicClient["waitForTransactionReceipt"]>>;
    try {
      r = await this.deps.client.waitForTransactionReceipt({ hash });
    } catch (err) {
      throw unavailable(
        "the agent renouncement was sent but not confirmed",
        { reason: "relayer_receipt_failed", tx_hash: hash },
        err,
      );
    }
    // No reservation: a renouncement bypasses the caps; what it cost still counts against them.
    const cost = r.gasUsed * r.effectiveGasPrice;
    this.budget.charge(m.trader.toLowerCase(), cost);
    if (r.status !== "success")
      throw new DexServiceError("INVALID_SIGNATURE", "renounceAgentWithSig reverted", { tx_hash: hash });
    return { txHash: hash, costWei: cost };
  }

  /** Simulates the call from the relayer's account (throws the contract's refusal) and returns its gas. */
  private async simulate(functionName: RelayedFunction, args: readonly unknown[]): Promise<bigint> {
    const call = {
      address: this.deps.settlement,
      abi: settlementAbi,
      functionName,
      args,
      account: this.account.address,
    } as never;
    await this.deps.client.simulateContract(call);
    return this.deps.client.estimateContractGas(call);
  }

  /** FORBIDDEN unless `owner` holds one of the funding minimums in Settlement (a read failure is the node's:
   *  SERVICE_UNAVAILABLE, to be retried). */
  private async requireFunds(owner: Address): Promise<void> {
    const minimums = this.deps.fundingMinimums();
    let balances: bigint[];
    try {
      balances = await Promise.all(
        minimums.map(
          (m) =>
            this.deps.client.readContract({
              address: this.deps.settlement,
              abi: settlementAbi,
              functionName: "balanceOf",
              args: [owner, m.token],
            }) as Promise<bigint>,
        ),
      );
    } catch (err) {
      throw unavailable(
        "the wallet's funds in Settlement could not be read",
        { reason: "relayer_funds_unreadable" },
        err,
      );
    }
    if (balances.some((b, i) => b >= minimums[i].minUnits)) return;
    throw new DexServiceError(
      "FORBIDDEN",
      "the relayer pays agent approvals only for wallets with funds in Settlement: deposit first, or send Settlement.approveAgent from the wallet",
      {
        reason: "no_funds_in_settlement",
        minimums: minimums.map((m) => ({ token: m.token, min_units: m.minUnits.toString() })),
      },
    );
  }

  /** One send with the lane's next nonce; after a failed one the lane reads the count again. */
  private send(functionName: RelayedFunction, args: readonly unknown[], gas: bigint): Promise<Hex> {
    const { account, chain } = this;
    return this.nonces.send((nonce) =>
      this.wallet.writeContract({
        address: this.deps.settlement,
        abi: settlementAbi,
        functionName,
        args,
        account,
        chain,
        gas,
        nonce,
      } as never),
    );
  }
}

function unavailable(message: string, details: Record<string, unknown>, cause: unknown): DexServiceError {
  return new DexServiceError("SERVICE_UNAVAILABLE", message, details, { cause });
}

/** Whether a simulation failed because the contract reverted (as opposed to the node or the network). */
function contractRefused(err: unknown): boolean {
  return (
    err instanceof BaseError &&
    err.walk((e) => e instanceof ContractFunctionRevertedError) instanceof ContractFunctionRevertedError
  );
}
