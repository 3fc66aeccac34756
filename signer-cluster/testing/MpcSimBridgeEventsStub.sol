// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @notice Test double for the signer nodes: emits the bridge's deposit and burn events exactly as
/// BridgeVault and BridgeMinter declare them, without moving tokens. Not part of contracts/ (never deployed
/// outside signer-cluster tests); compiled by signer-cluster/testing/compile-stub.ts into MpcSimBridgeEventsStub.json.
contract MpcSimBridgeEventsStub {
    event BridgeDeposited(
        uint64 indexed nonce,
        address indexed token,
        address indexed sender,
        address recipient,
        uint256 amount,
        uint256 dstChainId,
        address dstContract
    );
    event BridgeBurned(
        uint64 indexed nonce,
        address indexed wrappedToken,
        address indexed sender,
        address homeToken,
        address recipient,
        uint256 amount,
        uint256 dstChainId,
        address dstContract
    );

    function deposit(uint64 nonce, address token, address recipient, uint256 amount, uint256 dstChainId, address dstContract) external {
        emit BridgeDeposited(nonce, token, msg.sender, recipient, amount, dstChainId, dstContract);
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
        emit BridgeBurned(nonce, wrappedToken, msg.sender, homeToken, recipient, amount, dstChainId, dstContract);
    }
}
