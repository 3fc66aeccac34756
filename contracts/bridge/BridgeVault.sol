// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {BridgeAccess} from "./BridgeAccess.sol";
import {IBridgeVault} from "./interfaces/IBridgeVault.sol";
import {IBridgeSignatureVerifier} from "./interfaces/IBridgeSignatureVerifier.sol";
import {BridgeMessageHash} from "./libraries/BridgeMessageHash.sol";
import {BridgeTokenBucket} from "./libraries/BridgeTokenBucket.sol";
import {BridgeReleaseRecord} from "./libraries/BridgeReleaseRecord.sol";
import {BridgeSignatureCheck} from "./libraries/BridgeSignatureCheck.sol";

/// @title BridgeVault
/// @notice Home chain: locks deposits and pays threshold-signed releases after a challenge period. The admin and
///         guardian are a Safe. See IBridgeVault for the flow, events and errors.
contract BridgeVault is IBridgeVault, BridgeAccess, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;
    using BridgeTokenBucket for BridgeTokenBucket.Bucket;

    /// @dev Read together on every release: one slot (160 + 8 + 32 + 48 + 8 bits). The minter (source of RELEASE
    ///      messages) sits here rather than in a slot of its own, and so does the signature mode: in the native
    ///      mode a release reads this slot and the cached FROST key x and calls no verifier. keyEpoch caches
    ///      verifier.keyEpoch() (verifiers are immutable).
    struct Core {
        address minter;
        bool paused;
        uint32 challengePeriodSec;
        uint48 keyEpoch;
        uint8 signatureMode;
    }

    /// @dev Per-token configuration, one slot. The daily limit lives in its own bucket slot.
    struct TokenConfig {
        bool allowed;
        uint96 maxDepositWei;
        uint96 hsmThresholdWei;
    }

    uint256 private immutable _remoteChainId;
    Core private _core;
    /// @dev The verifier (read by a release only in the ERC-1271 modes) and the native mode's cached group key x.
    BridgeSignatureCheck.Installed private _verifier;
    address private _hsm;
    uint64 private _depositNonce;
    mapping(address token => TokenConfig) private _tokens;
    mapping(address token => BridgeTokenBucket.Bucket) private _limits;
    mapping(uint64 burnNonce => uint256 record) private _releases;

    /// @param admin the Safe: every role (BridgeAccess)
    /// @param verifier the signature verifier (signing mode)
    /// @param remoteChainId the chain id of the remote chain (where the minter lives)
    /// @param hsm the HSM co-signer's address
    /// @param challengePeriodSec how long a queued release can be disputed
    constructor(address admin, address verifier, uint256 remoteChainId, address hsm, uint32 challengePeriodSec)
        BridgeAccess(admin)
    {
        _remoteChainId = remoteChainId;
        uint48 epoch = _epochOf(verifier);
        _core = Core({
            minter: address(0),
            paused: false,
            challengePeriodSec: challengePeriodSec,
            keyEpoch: epoch,
            signatureMode: BridgeSignatureCheck.install(_verifier, verifier, epoch)
        });
        _hsm = hsm;
        emit BridgeVaultVerifierSet(verifier);
        emit BridgeVaultHsmSet(hsm);
        emit BridgeVaultChallengePeriodSet(challengePeriodSec);
    }

    // ---------------------------------------------------------------- deposits

    /// @inheritdoc IBridgeVault
    function deposit(address token, uint256 amount, address recipient, uint256 dstChainId)
        external
        nonReentrant
        returns (uint64 nonce)
    {
        Core memory core_ = _core;
        if (core_.paused) revert BridgeVaultOperationPaused();
        if (dstChainId != _remoteChainId) revert BridgeVaultChainUnsupported(dstChainId);
        address minter = core_.minter;
        if (minter == address(0)) revert BridgeVaultMinterUnset();
        if (recipient == address(0)) revert BridgeVaultRecipientZero();
        TokenConfig memory cfg = _tokens[token];
        if (!cfg.allowed) revert BridgeVaultTokenNotAllowed(token);
        if (amount == 0 || amount > cfg.maxDepositWei) revert BridgeVaultAmountOutOfRange(amount, cfg.maxDepositWei);

        uint256 balanceBefore = IERC20(token).balanceOf(address(this));
        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        uint256 receivedWei = IERC20(token).balanceOf(address(this)) - balanceBefore;
        if (receivedWei != amount) revert BridgeVaultTransferAmountMismatch(token, amount, receivedWei);

        nonce = ++_depositNonce;
        emit BridgeDeposited(nonce, token, msg.sender, recipient, amount, dstChainId, minter);
    }

    // ---------------------------------------------------------------- releases

    /// @inheritdoc IBridgeVault
    function queueRelease(
        uint64 burnNonce,
        address token,
        address recipient,
        uint256 amount,
        bytes calldata signature,
        bytes calldata hsmSignature
    ) external returns (uint64 readyAt) {
        Core memory core_ = _core;
        if (core_.paused) revert BridgeVaultOperationPaused();
        if (_releases[burnNonce] != 0) revert BridgeVaultBurnAlreadyReleased(burnNonce);
        uint64 epoch = core_.keyEpoch;
        bytes32 digest = _releaseDigest(core_, burnNonce, token, recipient, amount);
        BridgeSignatureCheck.check(_verifier, core_.signatureMode, digest, signature);
        _checkLimits(token, amount, digest, hsmSignature);
        readyAt = uint64(block.timestamp) + core_.challengePeriodSec;
        _releases[burnNonce] = BridgeReleaseRecord.queued(token, recipient, amount, readyAt);
        emit BridgeReleaseQueued(burnNonce, token, recipient, amount, readyAt, epoch);
    }

    /// @inheritdoc IBridgeVault
    function disputeRelease(uint64 burnNonce) external {
        _checkGuardian();
        uint256 record = _releases[burnNonce];
        _requireQueued(burnNonce, record);
        uint64 readyAt = BridgeReleaseRecord.readyAt(record);
        if (block.timestamp >= readyAt) revert BridgeVaultChallengePeriodOver(burnNonce, readyAt);
        _releases[burnNonce] = BridgeReleaseRecord.withStatus(record, ReleaseStatus.Disputed);
        emit BridgeReleaseDisputed(burnNonce, msg.sender);
    }

    /// @inheritdoc IBridgeVault
    function executeRelease(uint64 burnNonce, address token, address recipient, uint256 amount)
        external
        nonReentrant
    {
        if (_core.paused) revert BridgeVaultOperationPaused();
        uint256 record = _releases[burnNonce];
        _requireQueued(burnNonce, record);
        uint64 readyAt = BridgeReleaseRecord.readyAt(record);
        if (record != BridgeReleaseRecord.queued(token, recipient, amount, readyAt)) {
            revert BridgeVaultReleaseNotQueued(burnNonce);
        }
        if (block.timestamp < readyAt) revert BridgeVaultChallengePeriodActive(burnNonce, readyAt);
        _releases[burnNonce] = BridgeReleaseRecord.withStatus(record, ReleaseStatus.Executed);
        IERC20(token).safeTransfer(recipient, amount);
        emit BridgeReleaseExecuted(burnNonce, token, recipient, amount);
    }

    // ---------------------------------------------------------------- pause and configuration

    /// @notice Rotates the key or changes the signing mode: points at `verifier`, whose key epoch must be above the
    ///         current verifier's, so signatures bound to the old epoch stop working. ROTATION_ROLE only.
    function setVerifier(address verifier) external onlyRole(ROTATION_ROLE) {
        uint64 currentEpoch = _core.keyEpoch;
        uint48 nextEpoch = _epochOf(verifier);
        if (nextEpoch <= currentEpoch) revert BridgeVaultKeyEpochNotAdvanced(currentEpoch, nextEpoch);
        _core.signatureMode = BridgeSignatureCheck.install(_verifier, verifier, nextEpoch);
        _core.keyEpoch = nextEpoch;
        emit BridgeVaultVerifierSet(verifier);
    }

    /// @notice Sets the remote minter (wiring after both sides are deployed). Admin only.
    function setMinter(address minter) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _core.minter = minter;
        emit BridgeVaultMinterSet(minter);
    }

    /// @notice Sets the HSM co-signer. Admin only.
    function setHsm(address hsm) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _hsm = hsm;
        emit BridgeVaultHsmSet(hsm);
    }

    /// @notice Sets the challenge period of releases queued from now on. Admin only.
    function setChallengePeriod(uint32 challengePeriodSec) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _core.challengePeriodSec = challengePeriodSec;
        emit BridgeVaultChallengePeriodSet(challengePeriodSec);
    }

    /// @notice Allows (or stops) a token and sets its limits. The daily-limit bucket starts full the first time;
    ///         later calls keep its level, capped at the new limit (no refill). Admin only.
    /// @param token the home-chain token
    /// @param allowed whether deposits and releases of it are accepted
    /// @param maxDepositWei largest single deposit (keep it <= the remote daily mint limit, or it never mints)
    /// @param hsmThresholdWei releases of at least this amount need the HSM co-signature
    /// @param dailyLimitWei bucket capacity: what may be released per refill period
    /// @param refillPeriodSec the time the bucket takes to refill from empty (86400: a daily limit)
    function configureToken(
        address token,
        bool allowed,
        uint96 maxDepositWei,
        uint96 hsmThresholdWei,
        uint96 dailyLimitWei,
        uint32 refillPeriodSec
    ) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _tokens[token] = TokenConfig({allowed: allowed, maxDepositWei: maxDepositWei, hsmThresholdWei: hsmThresholdWei});
        _limits[token].configure(dailyLimitWei, refillPeriodSec, block.timestamp);
        emit BridgeVaultTokenConfigured(token, allowed, maxDepositWei, hsmThresholdWei, dailyLimitWei, refillPeriodSec);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IBridgeVault
    function releaseDigest(uint64 burnNonce, address token, address recipient, uint256 amount)
        external
        view
        returns (bytes32)
    {
        return _releaseDigest(_core, burnNonce, token, recipient, amount);
    }

    /// @inheritdoc IBridgeVault
    function getRelease(uint64 burnNonce) external view returns (ReleaseStatus status, bytes32 detailsHash) {
        uint256 record = _releases[burnNonce];
        return (BridgeReleaseRecord.status(record), bytes32(record));
    }

    /// @notice The release's readyAt (0 if never queued).
    function releaseReadyAt(uint64 burnNonce) external view returns (uint64) {
        return BridgeReleaseRecord.readyAt(_releases[burnNonce]);
    }

    /// @notice Verifier, pause flag and challenge period.
    function core() external view returns (address verifier, bool paused, uint32 challengePeriodSec, uint64 keyEpoch) {
        Core memory c = _core;
        return (_verifier.verifier, c.paused, c.challengePeriodSec, c.keyEpoch);
    }

    /// @notice The remote minter, the remote chain id and the HSM co-signer.
    function wiring() external view returns (address minter, uint256 remoteChainId, address hsm) {
        return (_core.minter, _remoteChainId, _hsm);
    }

    /// @notice The number of deposits so far (the last deposit nonce).
    function depositCount() external view returns (uint64) {
        return _depositNonce;
    }

    /// @notice A token's configuration and what its daily-limit bucket holds now.
    function tokenConfig(address token)
        external
        view
        returns (bool allowed, uint256 maxDepositWei, uint256 hsmThresholdWei, uint256 availableWei)
    {
        TokenConfig memory cfg = _tokens[token];
        return (cfg.allowed, cfg.maxDepositWei, cfg.hsmThresholdWei, BridgeTokenBucket.available(_limits[token], block.timestamp));
    }

    // ---------------------------------------------------------------- internals

    function _setPaused(bool paused) internal override {
        _core.paused = paused;
        if (paused) emit BridgeVaultPaused(msg.sender);
        else emit BridgeVaultUnpaused(msg.sender);
    }

    /// @dev The RELEASE digest of these details from `c`'s minter (which must be set), under `c`'s key epoch.
    function _releaseDigest(Core memory c, uint64 burnNonce, address token, address recipient, uint256 amount)
        private
        view
        returns (bytes32)
    {
        address minter = c.minter;
        if (minter == address(0)) revert BridgeVaultMinterUnset();
        return BridgeMessageHash.digestTo(
            BridgeMessageHash.KIND_RELEASE, _remoteChainId, minter, burnNonce, token, recipient, amount, c.keyEpoch
        );
    }

    /// @dev Allow-list, HSM co-signature at or above the token's threshold, then the daily-limit bucket.
    function _checkLimits(address token, uint256 amount, bytes32 digest, bytes calldata hsmSignature) private {
        TokenConfig memory cfg = _tokens[token];
        if (!cfg.allowed) revert BridgeVaultTokenNotAllowed(token);
        if (amount >= cfg.hsmThresholdWei) {
            if (hsmSignature.length == 0) revert BridgeVaultHsmSignatureMissing(amount, cfg.hsmThresholdWei);
            (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, hsmSignature);
            if (err != ECDSA.RecoverError.NoError || recovered != _hsm || recovered == address(0)) {
                revert BridgeVaultHsmSignatureInvalid(recovered);
            }
        }
        _limits[token].consume(token, amount, block.timestamp);
    }

    /// @dev A verifier's epoch, which must fit the 48 bits cached in Core.
    function _epochOf(address verifier) private view returns (uint48) {
        uint64 epoch = IBridgeSignatureVerifier(verifier).keyEpoch();
        if (epoch > type(uint48).max) revert BridgeVaultKeyEpochNotAdvanced(0, epoch);
        return uint48(epoch);
    }

    function _requireQueued(uint64 burnNonce, uint256 record) private pure {
        ReleaseStatus s = BridgeReleaseRecord.status(record);
        if (s == ReleaseStatus.Queued) return;
        if (s == ReleaseStatus.Disputed) revert BridgeVaultReleaseDisputed(burnNonce);
        if (s == ReleaseStatus.Executed) revert BridgeVaultReleaseAlreadyExecuted(burnNonce);
        revert BridgeVaultReleaseNotQueued(burnNonce);
    }

    function _checkGuardian() internal view override {
        if (!_isGuardian(msg.sender)) revert BridgeVaultCallerNotGuardian(msg.sender);
    }
}
