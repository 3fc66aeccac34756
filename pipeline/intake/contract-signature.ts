// The intake's ERC-1271 check, run the way Settlement runs it (contracts/exchange/libraries/SignatureValidation.sol
// verifyContractSignature): the wallet gets exactly the same gas stipend, and only the first 32 bytes of its
// answer count, which must be exactly the magic value with zero padding. A wallet that needs more gas than the
// stipend, burns it, reverts or answers anything else is refused here as it would be refused on chain.
import { encodeFunctionData, type Address, type Hex, type PublicClient } from "viem";

/** Settlement's SignatureValidation.ERC1271_GAS_STIPEND: the gas a wallet's isValidSignature gets, exactly.
 *  test/contracts/exchange/erc1271-hostile.test.ts checks the two agree to the unit of gas. */
export const ERC1271_GAS_STIPEND = 200_000n;

const MAGIC_WORD = `0x1626ba7e${"0".repeat(56)}`;
const isValidSignatureAbi = [
  {
    type: "function",
    name: "isValidSignature",
    stateMutability: "view",
    inputs: [{ type: "bytes32" }, { type: "bytes" }],
    outputs: [{ type: "bytes4" }],
  },
] as const;

/** Intrinsic gas of a call transaction carrying `data` (EIP-2028: 16 per non-zero byte, 4 per zero byte). */
export function intrinsicCallGas(data: Hex): bigint {
  let gas = 21_000n;
  for (let i = 2; i < data.length; i += 2) gas += data.slice(i, i + 2) === "00" ? 4n : 16n;
  return gas;
}

/** The gas limit of an eth_call of `data` that leaves its callee exactly `stipend` gas to run with. */
export function stipendCallGas(data: Hex, stipend = ERC1271_GAS_STIPEND): bigint {
  return intrinsicCallGas(data) + stipend;
}

/** True when `answer` (a wallet's raw return data) is what Settlement accepts: at least one word, the first
 *  being the magic value with zero padding. */
export function isMagicAnswer(answer: Hex | undefined): boolean {
  return !!answer && answer.length >= 66 && answer.slice(0, 66).toLowerCase() === MAGIC_WORD;
}

export interface ContractWallets {
  /** The intake's ERC-1271 check: false for an address without code, a refusal, a revert, a wallet that runs
   *  out of its stipend, and a node error (the order is refused; the trader may retry). */
  isValidSignature(wallet: Address, hash: Hex, signature: Hex): Promise<boolean>;
  /** whether `trader` is known to have code (learned by the check above or by learn()): the settle sender
   *  budgets the ERC-1271 stipend for such traders' orders */
  isContract(trader: Address): boolean;
  /** looks `trader`'s code up once (at start, for the orders the journal brought back) */
  learn(trader: Address): Promise<void>;
}

export function createContractWallets(client: Pick<PublicClient, "getCode" | "call">): ContractWallets {
  // only "has code" is remembered: a counterfactual wallet may be deployed after its first refused order
  const contracts = new Set<string>();
  async function learn(trader: Address): Promise<void> {
    const key = trader.toLowerCase();
    if (contracts.has(key)) return;
    const code = await client.getCode({ address: trader });
    if (code && code !== "0x") contracts.add(key);
  }
  return {
    isContract: (trader) => contracts.has(trader.toLowerCase()),
    learn,
    async isValidSignature(wallet, hash, signature) {
      try {
        await learn(wallet);
        if (!contracts.has(wallet.toLowerCase())) return false;
        const data = encodeFunctionData({
          abi: isValidSignatureAbi,
          functionName: "isValidSignature",
          args: [hash, signature],
        });
        const { data: answer } = await client.call({ to: wallet, data, gas: stipendCallGas(data) });
        return isMagicAnswer(answer);
      } catch {
        return false;
      }
    },
  };
}
