// Sorts a failed settle into fatal (a revert, decoded to the Settlement contract's custom error, or a node
// refusal no retry can fix) and retryable (network, node restart, nonce race).
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, type Hex } from "viem";
import { settlementAbi } from "../../sdk/abi";
import { FatalChainError, RetryableChainError } from "../errors";

/** failure messages that a retry (after a nonce resync) can get past */
const RETRYABLE =
  /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|timed? ?out|nonce too (low|high)|nonce has already been used|replacement transaction underpriced|already known|HTTP request failed/i;

const settlementErrorsAbi = settlementAbi;

/** The contract's custom error inside a viem error (a revert), or null when `e` is no revert. */
export function decodeSettleRevert(e: unknown): FatalChainError | null {
  if (!(e instanceof BaseError)) return null;
  const reverted = e.walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (reverted?.data)
    return new FatalChainError(
      `settle reverted: ${reverted.data.errorName}`,
      reverted.data.errorName,
      reverted.data.args ?? [],
      {
        cause: e,
      },
    );
  // the revert data as the error's `data`, or nested as `data.data` (Hardhat answers some eth_calls with
  // -32603 {message, data: {message, data: "0x..."}}: a wallet that burns its gas inside a simulation)
  const revertDataOf = (x: unknown): Hex | undefined => {
    const d = (x as { data?: unknown }).data;
    const hex = typeof d === "string" ? d : (d as { data?: unknown } | undefined)?.data;
    return typeof hex === "string" && /^0x[0-9a-f]{8}/i.test(hex) ? (hex as Hex) : undefined;
  };
  const withData = e.walk((x) => revertDataOf(x) !== undefined);
  const revertData = withData ? revertDataOf(withData) : undefined;
  if (revertData) {
    try {
      const d = decodeErrorResult({ abi: settlementErrorsAbi, data: revertData });
      return new FatalChainError(`settle reverted: ${d.errorName}`, d.errorName, d.args ?? [], { cause: e });
    } catch {
      return new FatalChainError(`settle reverted with data ${revertData}`, undefined, undefined, { cause: e });
    }
  }
  if (/revert/i.test(e.message) && !RETRYABLE.test(e.message))
    return new FatalChainError(`settle reverted: ${e.shortMessage}`, undefined, undefined, { cause: e });
  return null;
}

/** Sorts a failed send: a revert (decoded to the contract's error) or a node refusal that no retry can fix
 *  is fatal; anything else (network, node restart, nonce race) is retryable. The batcher then decides
 *  whether a fatal revert is one order's fault (pipeline/settle/poison.ts) or stops the venue. */
export function classifySettleError(e: unknown): FatalChainError | RetryableChainError {
  const fatal = decodeSettleRevert(e);
  if (fatal) return fatal;
  // (a nonce race stays retryable even when viem reports it as "invalid parameters": Hardhat's -32602
  // "Nonce too low" over HTTP; Anvil's is a plain "nonce too low")
  const text = e instanceof BaseError ? `${e.shortMessage} ${e.details ?? ""}` : "";
  if (
    e instanceof BaseError &&
    /invalid parameters|exceeds|intrinsic gas|insufficient funds/i.test(text) &&
    !/nonce too (low|high)|nonce has already been used/i.test(text)
  ) {
    return new FatalChainError(
      `settle refused by the node: ${e.shortMessage} ${e.details ?? ""}`,
      undefined,
      undefined,
      { cause: e },
    );
  }
  const msg = e instanceof BaseError ? `${e.shortMessage} ${e.details ?? ""}` : String((e as Error)?.message ?? e);
  return new RetryableChainError(msg, { cause: e });
}
