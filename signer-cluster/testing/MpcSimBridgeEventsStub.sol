// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IBridgeMinter} from "../../contracts/bridge/interfaces/IBridgeMinter.sol";
import {IBridgeVault} from "../../contracts/bridge/interfaces/IBridgeVault.sol";

/// @notice Test double for the signer nodes: emits the bridge's deposit and burn events, as BridgeVault and
/// BridgeMinter declare them (their interfaces' own declarations), without moving tokens. Not part of contracts/
/// (never deployed outside signer-cluster tests); compiled by signer-cluster/testing/compile-stub.ts into
/// MpcSimBridgeEventsStub.json.
contract MpcSimBridgeEventsStub {
    function deposit(uint64 nonce, address token, address recipient, uint256 amount, uint256 dstChainId, address dstContract) external {
        emit IBridgeVault.BridgeDeposited(nonce, token, msg.sender, recipient, amount, dstChainId, dstContract);
    }

    function burn(
        uint64 nonce,
        address wrappedToken,
        address homeToken,
        address recipient,
        uint256 amount,
        uint256 dstChainId,
        address dstContract
    ) external {
        emit IBridgeMinter.BridgeBurned(nonce, wrappedToken, msg.sender, homeToken, recipient, amount, dstChainId, dstContract);
    }
}
