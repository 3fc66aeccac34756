// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IndexerBridgeEventEmitter
/// @notice Test-only (indexer/bridge.test.ts): emits the bridge contracts' events with arbitrary fields, so the
///         indexer's bridge handlers are tested on both chains without threshold signatures. Not compiled by
///         Hardhat (it lives outside contracts/); the test compiles it with solc-js.
contract IndexerBridgeEventEmitter {
    event BridgeDeposited(uint64 indexed nonce, address indexed token, address indexed sender, address recipient, uint256 amount, uint256 dstChainId, address dstContract);
    event BridgeReleaseQueued(uint64 indexed burnNonce, address indexed token, address indexed recipient, uint256 amount, uint64 readyAt, uint64 keyEpoch);
    event BridgeReleaseDisputed(uint64 indexed burnNonce, address indexed guardian);
    event BridgeReleaseExecuted(uint64 indexed burnNonce, address indexed token, address indexed recipient, uint256 amount);
    event BridgeVaultMinterSet(address indexed minter);
    event BridgeMinted(uint64 indexed depositNonce, address indexed homeToken, address indexed recipient, address wrappedToken, uint256 amount, uint64 keyEpoch);
    event BridgeBurned(uint64 indexed nonce, address indexed wrappedToken, address indexed sender, address homeToken, address recipient, uint256 amount, uint256 dstChainId, address dstContract);
    event BridgeMinterVaultSet(address indexed vault);

    function deposited(uint64 nonce, address token, address sender, address recipient, uint256 amount, uint256 dstChainId, address dstContract) external {
        emit BridgeDeposited(nonce, token, sender, recipient, amount, dstChainId, dstContract);
    }

    function releaseQueued(uint64 burnNonce, address token, address recipient, uint256 amount, uint64 readyAt) external {
        emit BridgeReleaseQueued(burnNonce, token, recipient, amount, readyAt, 1);
    }

    function releaseDisputed(uint64 burnNonce) external {
        emit BridgeReleaseDisputed(burnNonce, msg.sender);
    }

    function releaseExecuted(uint64 burnNonce, address token, address recipient, uint256 amount) external {
        emit BridgeReleaseExecuted(burnNonce, token, recipient, amount);
    }

    function vaultMinterSet(address minter) external {
        emit BridgeVaultMinterSet(minter);
    }

    function minted(uint64 depositNonce, address homeToken, address recipient, address wrappedToken, uint256 amount) external {
        emit BridgeMinted(depositNonce, homeToken, recipient, wrappedToken, amount, 1);
    }

    function burned(uint64 nonce, address wrappedToken, address sender, address homeToken, address recipient, uint256 amount, uint256 dstChainId, address dstContract) external {
        emit BridgeBurned(nonce, wrappedToken, sender, homeToken, recipient, amount, dstChainId, dstContract);
    }

    function minterVaultSet(address vault) external {
        emit BridgeMinterVaultSet(vault);
    }
}
