// Custody's types and constants (custody.ts): the cash token, the accounts' balances and the transfer rows
// every money movement is written to before the chain is touched.
import type { Logger } from "pino";
import { type Address, type Hex, pad, parseEther } from "viem";
import type { Db } from "../../../db";
import type { SecretBox } from "../../auth/secret-box";
import type { CustodyChain } from "./chain";

/** Demo USD has 6 decimals (scripts/deploy-exchange.ts DEMO_TOKENS). */
export const USD_DECIMALS = 6;
export const USD_UNIT = 10n ** BigInt(USD_DECIMALS);
/** Test funds preloaded on a sandbox account's creation (spec 5.5): 100,000 demo USD. */
export const DEFAULT_SANDBOX_PRELOAD_UNITS = 100_000n * USD_UNIT;
/** An account's own transactions (withdrawals) need gas: below MIN the funding key sends TOP_UP. */
export const DEFAULT_MIN_GAS_WEI = parseEther("0.005");
export const DEFAULT_GAS_TOP_UP_WEI = parseEther("0.05");

export interface CustodyTokens {
  /** by symbol; "USD" is the cash token */
  readonly [symbol: string]: { readonly address: Address; readonly decimals: number };
}

export interface CustodyDeps {
  db: Db;
  chain: CustodyChain;
  settlement: Address;
  /** SandboxFunding (the sandbox bank); funding is unavailable without it */
  funding: Address | undefined;
  tokens: CustodyTokens;
  secretBox: SecretBox;
  mode: "sandbox" | "production";
  /** the account's sandbox clock (ms); default the system clock */
  accountNow?: (accountId: string) => number;
  preloadUnits?: bigint;
  minGasWei?: bigint;
  gasTopUpWei?: bigint;
  logger?: Logger;
  /** test seam for the crash test: runs after each chain send, before its outcome is written */
  afterChainSend?: (step: string, transferId: string) => void | Promise<void>;
}

export interface CustodyAccount {
  accountId: string;
  address: Address;
}

export interface TokenBalance {
  symbol: string;
  token: Address;
  decimals: number;
  /** Settlement.balanceOf(address, token), base units */
  units: bigint;
}

export interface CustodyBalances {
  accountId: string;
  address: Address;
  /** every token of the exchange, as the chain has it */
  tokens: TokenBalance[];
  /** demo USD in Settlement (base units): the chain's figure */
  cashUnits: bigint;
  /** withdrawals accepted whose demo USD has not left Settlement yet (base units) */
  pendingWithdrawalUnits: bigint;
  /** cash less pending withdrawals (never below 0): what a new withdrawal or a buy may use */
  availableCashUnits: bigint;
}

/** A row of exchange_funding_transfers as SQL returns it. */
export interface TransferRow {
  id: string;
  account_id: string;
  direction: "deposit" | "withdrawal";
  method: "ach" | "wire" | "instant" | "sandbox";
  amount_units: string;
  status: "pending" | "completed" | "failed";
  chain_step: string;
  created_ms: string;
  limit_day: string;
  completes_ms: string;
  completed_ms: string | null;
  pending_raw_tx: string | null;
  pending_tx_hash: string | null;
  withdraw_available_at: string | null;
  tx_hashes: string[];
  failure_reason: string | null;
  attempts: number;
}

/** Withdrawal steps: each names what the chain has done; the next transaction follows from it. */
export const NEXT_WITHDRAWAL_STEP: Record<string, string> = {
  new: "requested",
  requested: "executed",
  executed: "returned",
  cancelling: "cancelled",
};
/** Steps whose demo USD is still in Settlement. */
export const WITHDRAWAL_STEPS_IN_SETTLEMENT = ["new", "requested", "cancelling"];

/** The on-chain transfer id of a transfer row: its uuid as 32 bytes. */
export function transferIdOf(id: string): Hex {
  return pad(`0x${id.replace(/-/g, "")}`, { size: 32 });
}

export class CustodyUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CustodyUnavailableError";
  }
}
