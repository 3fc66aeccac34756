// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";
import {BridgeAccess} from "./BridgeAccess.sol";
import {IBridgeMinter} from "./interfaces/IBridgeMinter.sol";
import {IBridgeSignatureVerifier} from "./interfaces/IBridgeSignatureVerifier.sol";
import {IBridgeWrappedLedger} from "./interfaces/IBridgeWrappedLedger.sol";
import {IBridgeLimitErrors} from "./interfaces/IBridgeLimitErrors.sol";
import {BridgeSignatureCheck} from "./libraries/BridgeSignatureCheck.sol";
import {BridgeMessageHash} from "./libraries/BridgeMessageHash.sol";
import {BridgeTokenBucket} from "./libraries/BridgeTokenBucket.sol";
import {BridgeWrappedToken} from "./BridgeWrappedToken.sol";

/// @title BridgeMinter
/// @notice Remote chain: mints wrapped tokens for threshold-signed vault deposits, burns them for releases.
///         Minting is immediate (no challenge period); the daily limit and the at-most-once nonce bitmap bound
///         it. The admin and guardian are a Safe. See IBridgeMinter for the flow, events and errors.
contract BridgeMinter is IBridgeMinter, IBridgeWrappedLedger, BridgeAccess {
    using BitMaps for BitMaps.BitMap;

    /// @dev Read on every mint and burn: one slot (160 + 64 + 8 + 8 bits). The vault (source of MINT messages) sits
    ///      here, not in a slot of its own, and in the native mode so does what the FROST check needs besides the
    ///      key's x: a mint reads this slot and `_frostKeyX`, and calls no verifier. keyEpoch caches the
    ///      verifier's epoch (verifiers are immutable).
    struct Core {
        address vault;
        uint64 keyEpoch;
        bool paused;
        /// @dev BridgeSignatureCheck mode: call the verifier, or FROST inline with the cached key.
        uint8 signatureMode;
    }

    /// @dev One slot per home token, read on every mint: the wrapped token and the bucket's capacity.
    struct TokenConfig {
        address wrapped;
        uint96 capacityWei;
    }

    /// @dev Bit layout of `_tokenState[homeToken]`, the one slot a mint or burn rewrites: bucket level (96) |
    ///      bucket updatedAt (32) | refill period (32) | wrapped total supply (96).
    uint256 private constant MASK_96 = (1 << 96) - 1;
    uint256 private constant MASK_32 = (1 << 32) - 1;
    uint256 private constant SHIFT_UPDATED_AT = 96;
    uint256 private constant SHIFT_REFILL = 128;
    uint256 private constant SHIFT_SUPPLY = 160;

    uint256 private immutable _homeChainId;
    Core private _core;
    /// @dev The verifier (read by a mint only in the ERC-1271 modes) and the native mode's cached group key x.
    BridgeSignatureCheck.Installed private _verifier;
    uint64 private _burnNonce;
    mapping(address homeToken => TokenConfig) private _tokens;
    mapping(address homeToken => uint256 packed) private _tokenState;
    mapping(address wrappedToken => address homeToken) private _homeOf;
    /// @dev One bit per deposit nonce: sequential nonces share words, so most mints rewrite a warm-valued slot
    ///      (5,000 gas) instead of filling a fresh one (22,100).
    BitMaps.BitMap private _minted;

    /// @param admin the Safe: every role (BridgeAccess)
    /// @param verifier the signature verifier (signing mode)
    /// @param homeChainId the chain id of the home chain (where the vault lives)
    constructor(address admin, address verifier, uint256 homeChainId) BridgeAccess(admin) {
        _homeChainId = homeChainId;
        _installVerifier(verifier, IBridgeSignatureVerifier(verifier).keyEpoch());
    }

    // ---------------------------------------------------------------- mint and burn

    /// @inheritdoc IBridgeMinter
    function mint(uint64 depositNonce, address homeToken, address recipient, uint256 amount, bytes calldata signature)
        external
    {
        Core memory core_ = _core;
        if (core_.paused) revert BridgeMinterOperationPaused();
        // Checked before the signature so that a racing second relayer fails fast and cheaply.
        if (_minted.get(depositNonce)) revert BridgeMinterDepositAlreadyMinted(depositNonce);
        TokenConfig memory config = _tokens[homeToken];
        if (config.wrapped == address(0)) revert BridgeMinterTokenNotRegistered(homeToken);

        bytes32 digest = _mintDigest(core_, depositNonce, homeToken, recipient, amount);
        BridgeSignatureCheck.check(_verifier, core_.signatureMode, digest, signature);

        _tokenState[homeToken] = _consumeAndAddSupply(_tokenState[homeToken], config.capacityWei, homeToken, amount);
        _minted.set(depositNonce);
        BridgeWrappedToken(config.wrapped).mint(recipient, amount);
        emit BridgeMinted(depositNonce, homeToken, recipient, config.wrapped, amount, core_.keyEpoch);
    }

    /// @inheritdoc IBridgeMinter
    function burn(address wrappedToken, uint256 amount, address recipient) external returns (uint64 nonce) {
        Core memory core_ = _core;
        if (core_.paused) revert BridgeMinterOperationPaused();
        address homeToken = _homeOf[wrappedToken];
        if (homeToken == address(0)) revert BridgeMinterWrappedTokenUnknown(wrappedToken);
        if (amount == 0) revert BridgeMinterAmountZero();
        if (recipient == address(0)) revert BridgeMinterRecipientZero();
        if (core_.vault == address(0)) revert BridgeMinterVaultUnset();

        // Reverts (ERC20InsufficientBalance) unless the sender holds `amount`, so supply >= amount below.
        BridgeWrappedToken(wrappedToken).burn(msg.sender, amount);
        uint256 state = _tokenState[homeToken];
        // Safe: supply is the sum of all balances and the burn above took `amount` out of one of them, so
        // supply >= amount and the subtraction in the top 96 bits neither borrows nor touches the lower fields.
        unchecked {
            _tokenState[homeToken] = state - (amount << SHIFT_SUPPLY);
        }
        nonce = ++_burnNonce;
        emit BridgeBurned(nonce, wrappedToken, msg.sender, homeToken, recipient, amount, _homeChainId, core_.vault);
    }

    // ---------------------------------------------------------------- pause and configuration

    /// @notice Rotates the key or changes the signing mode: points at `verifier`, whose key epoch must be above the
    ///         current verifier's, so signatures bound to the old epoch stop working. ROTATION_ROLE only.
    function setVerifier(address verifier) external onlyRole(ROTATION_ROLE) {
        uint64 currentEpoch = _core.keyEpoch;
        uint64 nextEpoch = IBridgeSignatureVerifier(verifier).keyEpoch();
        if (nextEpoch <= currentEpoch) revert BridgeMinterKeyEpochNotAdvanced(currentEpoch, nextEpoch);
        _installVerifier(verifier, nextEpoch);
    }

    /// @notice Sets the home vault (wiring after both sides are deployed). Admin only.
    function setVault(address vault) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _core.vault = vault;
        emit BridgeMinterVaultSet(vault);
    }

    /// @notice Deploys the wrapped token of `homeToken` and sets its daily mint limit. Admin only.
    /// @param homeToken the home-chain token
    /// @param name_ wrapped token name
    /// @param symbol_ wrapped token symbol
    /// @param decimals_ the home token's decimals
    /// @param dailyLimitWei bucket capacity: what may be minted per refill period
    /// @param refillPeriodSec the time the bucket takes to refill from empty (86400: a daily limit)
    function createWrappedToken(
        address homeToken,
        string calldata name_,
        string calldata symbol_,
        uint8 decimals_,
        uint96 dailyLimitWei,
        uint32 refillPeriodSec
    ) external onlyRole(DEFAULT_ADMIN_ROLE) returns (address wrapped) {
        if (_tokens[homeToken].wrapped != address(0)) revert BridgeMinterTokenAlreadyRegistered(homeToken);
        wrapped = address(new BridgeWrappedToken(name_, symbol_, decimals_, homeToken));
        _tokens[homeToken].wrapped = wrapped;
        _homeOf[wrapped] = homeToken;
        emit BridgeWrappedTokenCreated(homeToken, wrapped, decimals_);
        _setLimit(homeToken, dailyLimitWei, refillPeriodSec);
    }

    /// @notice Sets a token's daily mint limit; the bucket keeps its level, capped at the new limit. Admin only.
    function setLimit(address homeToken, uint96 dailyLimitWei, uint32 refillPeriodSec)
        external
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        if (_tokens[homeToken].wrapped == address(0)) revert BridgeMinterTokenNotRegistered(homeToken);
        _setLimit(homeToken, dailyLimitWei, refillPeriodSec);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IBridgeMinter
    function mintDigest(uint64 depositNonce, address homeToken, address recipient, uint256 amount)
        external
        view
        returns (bytes32)
    {
        return _mintDigest(_core, depositNonce, homeToken, recipient, amount);
    }

    /// @inheritdoc IBridgeMinter
    function isMinted(uint64 depositNonce) external view returns (bool) {
        return _minted.get(depositNonce);
    }

    /// @inheritdoc IBridgeMinter
    function wrappedTokenOf(address homeToken) external view returns (address) {
        return _tokens[homeToken].wrapped;
    }

    /// @notice The home token a wrapped token stands for (zero if unknown).
    function homeTokenOf(address wrappedToken) external view returns (address) {
        return _homeOf[wrappedToken];
    }

    /// @notice Verifier, pause flag, current key epoch and the last burn nonce.
    function core() external view returns (address verifier, bool paused, uint64 keyEpoch, uint64 burnCount) {
        Core memory c = _core;
        return (_verifier.verifier, c.paused, c.keyEpoch, _burnNonce);
    }

    /// @notice The home vault and the home chain id.
    function wiring() external view returns (address vault, uint256 homeChainId) {
        return (_core.vault, _homeChainId);
    }

    /// @notice What `homeToken`'s daily mint bucket holds now.
    function availableToMint(address homeToken) external view returns (uint256) {
        return BridgeTokenBucket.available(_bucketOf(_tokenState[homeToken], _tokens[homeToken].capacityWei), block.timestamp);
    }

    /// @inheritdoc IBridgeWrappedLedger
    function wrappedSupply(address homeToken) external view returns (uint256) {
        return _tokenState[homeToken] >> SHIFT_SUPPLY;
    }

    // ---------------------------------------------------------------- internals

    /// @dev The MINT digest of these details from `c`'s vault, under `c`'s key epoch.
    function _mintDigest(Core memory c, uint64 depositNonce, address homeToken, address recipient, uint256 amount)
        private
        view
        returns (bytes32)
    {
        if (c.vault == address(0)) revert BridgeMinterVaultUnset();
        return BridgeMessageHash.digestTo(
            BridgeMessageHash.KIND_MINT, _homeChainId, c.vault, depositNonce, homeToken, recipient, amount, c.keyEpoch
        );
    }

    function _checkGuardian() internal view override {
        if (!_isGuardian(msg.sender)) revert BridgeMinterCallerNotGuardian(msg.sender);
    }

    function _setPaused(bool paused) internal override {
        _core.paused = paused;
        if (paused) emit BridgeMinterPaused(msg.sender);
        else emit BridgeMinterUnpaused(msg.sender);
    }

    function _installVerifier(address verifier, uint64 epoch) private {
        _core.signatureMode = BridgeSignatureCheck.install(_verifier, verifier, epoch);
        _core.keyEpoch = epoch;
        emit BridgeMinterVerifierSet(verifier);
    }

    /// @dev The bucket fields of a token's packed state, as the shared token-bucket library reads them.
    function _bucketOf(uint256 state, uint96 capacityWei) private pure returns (BridgeTokenBucket.Bucket memory) {
        return BridgeTokenBucket.Bucket({
            levelWei: uint96(state),
            capacityWei: capacityWei,
            updatedAt: uint32(state >> SHIFT_UPDATED_AT),
            refillPeriodSec: uint32(state >> SHIFT_REFILL)
        });
    }

    /// @dev Drains `amount` from the bucket (or reverts BridgeDailyLimitExceeded) and adds it to the supply (or
    ///      reverts BridgeMinterSupplyOverflow): returns the new packed state, written once by the caller.
    function _consumeAndAddSupply(uint256 state, uint96 capacityWei, address homeToken, uint256 amount)
        private
        view
        returns (uint256)
    {
        uint256 levelWei = BridgeTokenBucket.available(_bucketOf(state, capacityWei), block.timestamp);
        if (amount > levelWei) revert IBridgeLimitErrors.BridgeDailyLimitExceeded(homeToken, amount, levelWei);
        uint256 supplyWei = state >> SHIFT_SUPPLY;
        // Safe: amount <= levelWei <= capacity < 2^96, so neither sum overflows 256 bits.
        unchecked {
            if (supplyWei + amount > MASK_96) revert BridgeMinterSupplyOverflow(homeToken, supplyWei, amount);
            // Safe: every field fits its bits (level - amount <= level < 2^96, timestamps < 2^32 until 2106, the
            // refill period is kept as it was, supply + amount checked just above).
            return (levelWei - amount) | ((block.timestamp & MASK_32) << SHIFT_UPDATED_AT)
                | (((state >> SHIFT_REFILL) & MASK_32) << SHIFT_REFILL) | ((supplyWei + amount) << SHIFT_SUPPLY);
        }
    }

    /// @dev Sets capacity and refill period and keeps the supply. The bucket starts full the first time and
    ///         otherwise keeps its current level, capped at the new capacity (BridgeTokenBucket.keptLevel).
    function _setLimit(address homeToken, uint96 dailyLimitWei, uint32 refillPeriodSec) private {
        if (refillPeriodSec == 0) revert IBridgeLimitErrors.BridgeLimitConfigInvalid(dailyLimitWei, refillPeriodSec);
        uint256 state = _tokenState[homeToken];
        uint256 levelWei =
            BridgeTokenBucket.keptLevel(_bucketOf(state, _tokens[homeToken].capacityWei), dailyLimitWei, block.timestamp);
        _tokens[homeToken].capacityWei = dailyLimitWei;
        uint256 supplyBits = state & ~(type(uint256).max >> (256 - SHIFT_SUPPLY));
        _tokenState[homeToken] = levelWei | ((block.timestamp & MASK_32) << SHIFT_UPDATED_AT)
            | (uint256(refillPeriodSec) << SHIFT_REFILL) | supplyBits;
        emit BridgeMinterLimitSet(homeToken, dailyLimitWei, refillPeriodSec);
    }
}
