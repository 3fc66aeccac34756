// Linking a wallet's deposit or burn transaction to an initiated transfer (POST /complete): the declared
// sender's signature of `transferLinkMessage(id, txHash)`, and the transaction's event, which must match
// what was initiated (token, amount, sender, recipient).
import { decodeEventLog, getAddress, type Address, type Hex } from "viem";
import { BRIDGE_BURNED, BRIDGE_DEPOSITED } from "../../sdk/bridge-abi";
import { BridgeApiError } from "./errors";
import { transferLinkMessage } from "./portal-app/messages";
import type { ApiRow } from "./transfer-view";
import type { BridgeEndpoint } from "./transfers";

export { transferLinkMessage } from "./portal-app/messages";

/** Binds the link to the transfer's declared sender: anyone can declare a victim as sender, only the
 *  victim can sign. An EOA's signature is checked locally; a contract wallet's through ERC-1271 on the
 *  source chain (where its deposit or burn came from). */
export async function requireSenderSignature(
  b: BridgeEndpoint,
  row: ApiRow,
  txHash: Hex,
  signature: Hex,
): Promise<void> {
  const client = row.direction === "deposit" ? b.home.publicClient : b.remote.publicClient;
  let valid: boolean;
  try {
    valid = await client.verifyMessage({
      address: getAddress(row.sender),
      message: transferLinkMessage(row.id, txHash),
      signature,
      mode: "eoa",
    });
  } catch (err) {
    throw new BridgeApiError(
      "SERVICE_UNAVAILABLE",
      "cannot verify the signature on the source chain now",
      { txHash },
      { cause: err },
    );
  }
  if (!valid)
    throw new BridgeApiError("FORBIDDEN", "the link is not signed by the transfer's sender", {
      reason: "not_signed_by_sender",
      sender: row.sender,
      message: transferLinkMessage(row.id, txHash),
    });
}

interface SourceEventArgs {
  nonce: bigint;
  token?: Address;
  homeToken?: Address;
  sender: Address;
  recipient: Address;
  amount: bigint;
}

/** The event's nonce when it is the initiated transfer's; TRANSFER_MISMATCH when it is another's. */
function matchingNonce(row: ApiRow, a: SourceEventArgs, deposit: boolean): bigint {
  const token = getAddress((deposit ? a.token : a.homeToken)!);
  const matches =
    token === getAddress(row.token) &&
    a.amount === BigInt(row.amount_wei) &&
    getAddress(a.recipient) === getAddress(row.recipient) &&
    getAddress(a.sender) === getAddress(row.sender);
  if (!matches)
    throw new BridgeApiError("TRANSFER_MISMATCH", "the transaction's event does not match the initiated transfer", {
      expected: { token: row.token, amount: row.amount_wei, sender: row.sender, recipient: row.recipient },
      found: { token, amount: a.amount.toString(), sender: a.sender, recipient: a.recipient },
    });
  return a.nonce;
}

/** The source event in `txHash`'s receipt, from this bridge's contract, matching the initiated transfer. */
export async function nonceFromTx(b: BridgeEndpoint, row: ApiRow, txHash: Hex): Promise<bigint> {
  const deposit = row.direction === "deposit";
  const client = deposit ? b.home.publicClient : b.remote.publicClient;
  const contract = deposit ? b.home.vault : b.remote.minter;
  const receipt = await client.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
  if (!receipt)
    throw new BridgeApiError("TRANSFER_NOT_READY", "the transaction is not mined on the source chain (yet)", {
      txHash,
      chainId: deposit ? b.home.chainId : b.remote.chainId,
    });
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== contract.toLowerCase()) continue;
    let args: SourceEventArgs;
    try {
      args = decodeEventLog({
        abi: [deposit ? BRIDGE_DEPOSITED : BRIDGE_BURNED],
        data: log.data,
        topics: log.topics,
      }).args as SourceEventArgs;
    } catch {
      continue; // another event of the contract
    }
    return matchingNonce(row, args, deposit);
  }
  throw new BridgeApiError(
    "TRANSFER_MISMATCH",
    `the transaction holds no ${deposit ? "BridgeDeposited" : "BridgeBurned"} event of this tenant's bridge`,
    { txHash },
  );
}
