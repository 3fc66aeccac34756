// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {ISettlement} from "../ISettlement.sol";

/// @title OrderHashing
/// @notice EIP-712 hashing of orders. The TypeScript twin is `sdk/eip712.ts`; a test checks they agree.
library OrderHashing {
    bytes32 internal constant ORDER_TYPEHASH = keccak256(
        "Order(address trader,address baseToken,address quoteToken,uint8 side,uint256 price,uint256 amount,uint64 expiry,uint256 nonce,uint8 flags)"
    );

    bytes32 internal constant AGENT_APPROVAL_TYPEHASH =
        keccak256("AgentApproval(address trader,address agent,uint64 expiry,uint256 nonce,uint64 deadline)");

    /// @dev Signed by the agent, not the trader; `nonce` is the agent's own `nonces(agent)`, so a renouncement
    ///      is spent once used and cannot remove a later re-approval of the same agent.
    bytes32 internal constant AGENT_RENOUNCEMENT_TYPEHASH =
        keccak256("AgentRenouncement(address trader,address agent,uint256 nonce,uint64 deadline)");

    uint8 internal constant SIDE_BUY = 0;
    uint8 internal constant SIDE_SELL = 1;
    uint8 internal constant FLAG_POST_ONLY = 1;

    /// @notice hashStruct(order) = keccak256(ORDER_TYPEHASH ‖ abi.encode(fields)).
    /// @dev Order is nine static 32-byte words in calldata, already in EIP-712 `encodeData` order, so the
    ///      words are copied as they are. A field with dirty high bits gives a hash nobody signed, so the
    ///      signature check fails; Solidity's own reads of such a field revert anyway.
    function hashStruct(ISettlement.Order calldata order) internal pure returns (bytes32 structHash) {
        bytes32 typehash = ORDER_TYPEHASH;
        // Memory-safe: writes only scratch memory past the free memory pointer and never moves it.
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, typehash)
            calldatacopy(add(ptr, 0x20), order, 0x120)
            structHash := keccak256(ptr, 0x140)
        }
    }

    /// @notice The order hash: the EIP-712 digest the trader signs, also the order's id on chain.
    function hashOrder(bytes32 domainSeparator, ISettlement.Order calldata order) internal pure returns (bytes32) {
        return MessageHashUtils.toTypedDataHash(domainSeparator, hashStruct(order));
    }

    /// @notice hashStruct of an AgentApproval.
    function hashAgentApproval(address trader, address agent, uint64 expiry, uint256 nonce, uint64 deadline)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(AGENT_APPROVAL_TYPEHASH, trader, agent, expiry, nonce, deadline));
    }

    /// @notice hashStruct of an AgentRenouncement.
    function hashAgentRenouncement(address trader, address agent, uint256 nonce, uint64 deadline)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(AGENT_RENOUNCEMENT_TYPEHASH, trader, agent, nonce, deadline));
    }
}
