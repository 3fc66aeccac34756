// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IBridgeMinter
/// @notice The remote-chain side of the bridge: mints wrapped tokens on a threshold-signed MINT message for a
///         home-chain vault deposit (immediately: no challenge period), and burns them to withdraw.
interface IBridgeMinter {
    /// @notice Wrapped tokens were minted for a vault deposit.
    /// @param depositNonce the vault's deposit nonce
    /// @param homeToken the home-chain token
    /// @param recipient who received the wrapped tokens
    /// @param wrappedToken the wrapped token minted
    /// @param amount base units
    /// @param keyEpoch the epoch of the key that signed
    event BridgeMinted(
        uint64 indexed depositNonce,
        address indexed homeToken,
        address indexed recipient,
        address wrappedToken,
        uint256 amount,
        uint64 keyEpoch
    );

    /// @notice Wrapped tokens were burned to release `amount` of `homeToken` to `recipient` on the home chain;
    ///         carries every field of the RELEASE message except the key epoch.
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

    /// @notice A wrapped token was created for a home-chain token.
    event BridgeWrappedTokenCreated(address indexed homeToken, address indexed wrappedToken, uint8 decimals);
    /// @notice The minter was paused by `account`.
    event BridgeMinterPaused(address indexed account);
    /// @notice The minter was unpaused by `account`.
    event BridgeMinterUnpaused(address indexed account);
    /// @notice The signature verifier (signing mode) changed.
    event BridgeMinterVerifierSet(address indexed verifier);
    /// @notice The home vault (source of MINT messages, destination of burns) changed.
    event BridgeMinterVaultSet(address indexed vault);
    /// @notice A token's daily mint limit changed.
    event BridgeMinterLimitSet(address indexed homeToken, uint256 dailyLimitWei, uint32 refillPeriodSec);

    /// @notice A new verifier must sign for a later key epoch than the current one.
    /// @param currentEpoch the current verifier's epoch
    /// @param proposedEpoch the proposed verifier's epoch
    error BridgeMinterKeyEpochNotAdvanced(uint64 currentEpoch, uint64 proposedEpoch);
    /// @notice Mints and burns are paused.
    error BridgeMinterOperationPaused();
    /// @notice This deposit was already minted (a restart or a second relayer): nothing was minted again.
    error BridgeMinterDepositAlreadyMinted(uint64 depositNonce);
    /// @notice No wrapped token exists for this home-chain token.
    error BridgeMinterTokenNotRegistered(address homeToken);
    /// @notice A wrapped token already exists for this home-chain token.
    error BridgeMinterTokenAlreadyRegistered(address homeToken);
    /// @notice The token is not a wrapped token of this minter.
    error BridgeMinterWrappedTokenUnknown(address wrappedToken);
    /// @notice The amount is zero.
    error BridgeMinterAmountZero();
    /// @notice The recipient is the zero address.
    error BridgeMinterRecipientZero();
    /// @notice The vault (source of MINT messages) is not configured yet.
    error BridgeMinterVaultUnset();
    /// @notice Neither the guardian nor the admin role.
    error BridgeMinterCallerNotGuardian(address caller);

    /// @notice Mints the wrapped tokens of vault deposit `depositNonce` on a signature over the recomputed MINT
    ///         digest. Anyone may submit; each deposit mints at most once.
    /// @param depositNonce the vault's deposit nonce
    /// @param homeToken the home-chain token deposited
    /// @param recipient who receives the wrapped tokens
    /// @param amount base units
    /// @param signature the verifier's signature (FROST: Rx || Ry || z)
    function mint(uint64 depositNonce, address homeToken, address recipient, uint256 amount, bytes calldata signature)
        external;

    /// @notice Burns `amount` of the caller's `wrappedToken` to release the home token to `recipient`.
    /// @return nonce the burn nonce (the RELEASE message nonce and release id)
    function burn(address wrappedToken, uint256 amount, address recipient) external returns (uint64 nonce);

    /// @notice The MINT digest the minter would check now for these details (current key epoch).
    function mintDigest(uint64 depositNonce, address homeToken, address recipient, uint256 amount)
        external
        view
        returns (bytes32);

    /// @notice True once deposit `depositNonce` was minted.
    function isMinted(uint64 depositNonce) external view returns (bool);

    /// @notice The wrapped token of `homeToken` (zero if none).
    function wrappedTokenOf(address homeToken) external view returns (address);
}
