// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IBridgeVault
/// @notice The home-chain side of the bridge: locks deposits (each becomes a MINT message for the remote minter)
///         and releases them on a threshold-signed RELEASE message for a remote burn, after a challenge period
///         during which a guardian can dispute the release.
interface IBridgeVault {
    /// @notice Where a queued release stands.
    enum ReleaseStatus {
        None,
        Queued,
        Disputed,
        Executed
    }

    /// @notice A deposit was locked; the event carries every field of the MINT message except the key epoch.
    /// @param nonce the vault's deposit sequence number (the message nonce)
    /// @param token the home-chain token locked
    /// @param sender who paid
    /// @param recipient who receives the wrapped tokens on the remote chain
    /// @param amount base units locked (exactly what the vault received)
    /// @param dstChainId the remote chain id
    /// @param dstContract the remote minter
    event BridgeDeposited(
        uint64 indexed nonce,
        address indexed token,
        address indexed sender,
        address recipient,
        uint256 amount,
        uint256 dstChainId,
        address dstContract
    );

    /// @notice A signed release was accepted and waits out the challenge period.
    /// @param burnNonce the minter's burn nonce (also the release id)
    /// @param token the home-chain token
    /// @param recipient who receives the tokens
    /// @param amount base units
    /// @param readyAt first timestamp at which executeRelease succeeds
    /// @param keyEpoch the epoch of the key that signed (the HSM co-signed too iff amount >= the token's HSM
    ///        threshold, see tokenConfig)
    event BridgeReleaseQueued(
        uint64 indexed burnNonce,
        address indexed token,
        address indexed recipient,
        uint256 amount,
        uint64 readyAt,
        uint64 keyEpoch
    );

    /// @notice A guardian disputed a queued release: it will never execute and the funds stay locked.
    event BridgeReleaseDisputed(uint64 indexed burnNonce, address indexed guardian);

    /// @notice A release was paid out.
    event BridgeReleaseExecuted(uint64 indexed burnNonce, address indexed token, address indexed recipient, uint256 amount);

    /// @notice The vault was paused by `account`.
    event BridgeVaultPaused(address indexed account);
    /// @notice The vault was unpaused by `account`.
    event BridgeVaultUnpaused(address indexed account);
    /// @notice The signature verifier (signing mode) changed.
    event BridgeVaultVerifierSet(address indexed verifier);
    /// @notice The remote minter (source of RELEASE messages, destination of deposits) changed.
    event BridgeVaultMinterSet(address indexed minter);
    /// @notice The HSM co-signer changed.
    event BridgeVaultHsmSet(address indexed hsm);
    /// @notice The challenge period changed.
    event BridgeVaultChallengePeriodSet(uint32 challengePeriodSec);
    /// @notice A token's configuration changed.
    event BridgeVaultTokenConfigured(
        address indexed token,
        bool allowed,
        uint256 maxDepositWei,
        uint256 hsmThresholdWei,
        uint256 dailyLimitWei,
        uint32 refillPeriodSec
    );

    /// @notice A new verifier must sign for a later key epoch than the current one.
    /// @param currentEpoch the current verifier's epoch
    /// @param proposedEpoch the proposed verifier's epoch
    error BridgeVaultKeyEpochNotAdvanced(uint64 currentEpoch, uint64 proposedEpoch);
    /// @notice Deposits, releases and executions are paused.
    error BridgeVaultOperationPaused();
    /// @notice The token is not on the vault's allow-list.
    error BridgeVaultTokenNotAllowed(address token);
    /// @notice The vault received a different amount than asked (fee-on-transfer or rebasing token).
    error BridgeVaultTransferAmountMismatch(address token, uint256 expectedWei, uint256 receivedWei);
    /// @notice The amount is zero or above the token's maximum deposit.
    error BridgeVaultAmountOutOfRange(uint256 amountWei, uint256 maxWei);
    /// @notice The recipient is the zero address.
    error BridgeVaultRecipientZero();
    /// @notice The destination chain is not the remote chain this vault bridges to.
    error BridgeVaultChainUnsupported(uint256 dstChainId);
    /// @notice The minter (source of RELEASE messages) is not configured yet.
    error BridgeVaultMinterUnset();
    /// @notice This burn nonce was already queued (or disputed, or executed): a burn releases at most once.
    error BridgeVaultBurnAlreadyReleased(uint64 burnNonce);
    /// @notice The amount needs the HSM co-signature and none was given.
    error BridgeVaultHsmSignatureMissing(uint256 amountWei, uint256 hsmThresholdWei);
    /// @notice The HSM co-signature is malformed, high-s, or not by the configured HSM.
    error BridgeVaultHsmSignatureInvalid(address recovered);
    /// @notice No queued release has this burn nonce, or its details differ from the ones queued.
    error BridgeVaultReleaseNotQueued(uint64 burnNonce);
    /// @notice The release was disputed by a guardian and never executes.
    error BridgeVaultReleaseDisputed(uint64 burnNonce);
    /// @notice The release was already executed.
    error BridgeVaultReleaseAlreadyExecuted(uint64 burnNonce);
    /// @notice The challenge period of the release has not ended.
    error BridgeVaultChallengePeriodActive(uint64 burnNonce, uint64 readyAt);
    /// @notice The challenge period is over: the release can no longer be disputed.
    error BridgeVaultChallengePeriodOver(uint64 burnNonce, uint64 readyAt);
    /// @notice Neither the guardian nor the admin role.
    error BridgeVaultCallerNotGuardian(address caller);

    /// @notice Locks `amount` of `token` (pull, needs an allowance) for `recipient` on `dstChainId`.
    /// @return nonce the deposit's nonce
    function deposit(address token, uint256 amount, address recipient, uint256 dstChainId)
        external
        returns (uint64 nonce);

    /// @notice Accepts a threshold-signed RELEASE of a remote burn and queues it for the challenge period.
    /// @param burnNonce the minter's burn nonce (release id)
    /// @param token the home-chain token
    /// @param recipient who receives the tokens
    /// @param amount base units
    /// @param signature the verifier's signature over the recomputed RELEASE digest
    /// @param hsmSignature 65-byte ECDSA (r, s, v) by the HSM over the same digest; empty below the threshold
    /// @return readyAt first timestamp at which executeRelease succeeds
    function queueRelease(
        uint64 burnNonce,
        address token,
        address recipient,
        uint256 amount,
        bytes calldata signature,
        bytes calldata hsmSignature
    ) external returns (uint64 readyAt);

    /// @notice Disputes a queued release during its challenge period. Guardian or admin.
    function disputeRelease(uint64 burnNonce) external;

    /// @notice Pays a queued, undisputed release once its challenge period is over. Anyone may call; the details
    ///         must equal the queued ones (the vault keeps only their hash).
    function executeRelease(uint64 burnNonce, address token, address recipient, uint256 amount) external;

    /// @notice The RELEASE digest the vault would check now for these details (current key epoch).
    function releaseDigest(uint64 burnNonce, address token, address recipient, uint256 amount)
        external
        view
        returns (bytes32);

    /// @notice The status of a release and the hash of its details.
    function getRelease(uint64 burnNonce) external view returns (ReleaseStatus status, bytes32 detailsHash);
}
