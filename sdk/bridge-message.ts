// The one message every bridge signature covers. The Solidity contracts recompute the same digest from
// their own state and the event they emitted; a relayer never hands a digest to a contract.
import { encodeAbiParameters, keccak256, toBytes, type Address, type Hex } from "viem";

export const BRIDGE_MESSAGE_TYPE =
  "BridgeMessage(uint8 kind,uint256 srcChainId,address srcContract,uint256 dstChainId,address dstContract,uint64 nonce,address token,address recipient,uint256 amount,uint64 keyEpoch)";

export const BRIDGE_MESSAGE_TYPEHASH: Hex = keccak256(toBytes(BRIDGE_MESSAGE_TYPE));

/** MINT: a vault deposit on the home chain becomes wrapped tokens on the remote chain.
 *  RELEASE: a wrapped-token burn on the remote chain releases the locked tokens on the home chain. */
export const BridgeMessageKind = { MINT: 0, RELEASE: 1 } as const;
export type BridgeMessageKind = (typeof BridgeMessageKind)[keyof typeof BridgeMessageKind];

export interface BridgeMessage {
  kind: BridgeMessageKind;
  /** chain where the deposit or burn happened */
  srcChainId: bigint;
  /** vault (for MINT) or minter (for RELEASE) that emitted the event */
  srcContract: Address;
  /** chain where the mint or release happens */
  dstChainId: bigint;
  /** minter (for MINT) or vault (for RELEASE) that will verify the signature */
  dstContract: Address;
  /** the source contract's sequence number of the deposit or burn: unique per source contract */
  nonce: bigint;
  /** the HOME-chain token (the minter maps it to its wrapped token) */
  token: Address;
  recipient: Address;
  /** token base units */
  amountWei: bigint;
  /** the signer-set epoch whose group key signs; old epochs stop working after a rotation */
  keyEpoch: bigint;
}

/** keccak256(abi.encode(TYPEHASH, kind, srcChainId, srcContract, dstChainId, dstContract, nonce, token,
 *  recipient, amount, keyEpoch)): the 32 bytes the FROST group (or another verifier) signs. */
export function getBridgeMessageDigest(m: BridgeMessage): Hex {
  return keccak256(
    encodeAbiParameters(
      [
        { type: "bytes32" },
        { type: "uint8" },
        { type: "uint256" },
        { type: "address" },
        { type: "uint256" },
        { type: "address" },
        { type: "uint64" },
        { type: "address" },
        { type: "address" },
        { type: "uint256" },
        { type: "uint64" },
      ],
      [
        BRIDGE_MESSAGE_TYPEHASH,
        m.kind,
        m.srcChainId,
        m.srcContract,
        m.dstChainId,
        m.dstContract,
        m.nonce,
        m.token,
        m.recipient,
        m.amountWei,
        m.keyEpoch,
      ],
    ),
  );
}
