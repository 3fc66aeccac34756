// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";
import {IBridgeMinter} from "./interfaces/IBridgeMinter.sol";
import {IBridgeSignatureVerifier} from "./interfaces/IBridgeSignatureVerifier.sol";
import {BridgeMessageHash} from "./libraries/BridgeMessageHash.sol";
import {BridgeTokenBucket} from "./libraries/BridgeTokenBucket.sol";
import {BridgeWrappedToken} from "./BridgeWrappedToken.sol";

/// @title BridgeMinter
/// @notice Remote chain: mints wrapped tokens for threshold-signed vault deposits, burns them for releases.
///         Minting is immediate (no challenge period); the daily limit and the at-most-once nonce bitmap bound
///         it. The admin and guardian are a Safe. See IBridgeMinter for the flow, events and errors.
contract BridgeMinter is IBridgeMinter, AccessControl {
    using BitMaps for BitMaps.BitMap;
    using BridgeTokenBucket for BridgeTokenBucket.Bucket;

    /// @notice May point the contract at the verifier of a newer key epoch (key rotation, signing-mode change).
    bytes32 public constant ROTATION_ROLE = keccak256("ROTATION_ROLE");

    /// @notice May pause.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    /// @dev Read on every mint: one slot. keyEpoch caches verifier.keyEpoch() (verifiers are immutable) so a
    ///      mint makes one external call, not two.
    struct Core {
        address verifier;
        bool paused;
        uint64 keyEpoch;
    }

    uint256 private immutable _homeChainId;
    Core private _core;
    address private _vault;
    uint64 private _burnNonce;
    mapping(address homeToken => address wrappedToken) private _wrappedOf;
    mapping(address wrappedToken => address homeToken) private _homeOf;
    mapping(address homeToken => BridgeTokenBucket.Bucket) private _limits;
    /// @dev One bit per deposit nonce: sequential nonces share words, so most mints rewrite a warm-valued slot
    ///      (5,000 gas) instead of filling a fresh one (22,100).
    BitMaps.BitMap private _minted;

    /// @param admin the Safe: DEFAULT_ADMIN_ROLE and GUARDIAN_ROLE
    /// @param verifier the signature verifier (signing mode)
    /// @param homeChainId the chain id of the home chain (where the vault lives)
    constructor(address admin, address verifier, uint256 homeChainId) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(GUARDIAN_ROLE, admin);
        _grantRole(ROTATION_ROLE, admin);
        _homeChainId = homeChainId;
        _core = Core({verifier: verifier, paused: false, keyEpoch: IBridgeSignatureVerifier(verifier).keyEpoch()});
        emit BridgeMinterVerifierSet(verifier);
    }

    // ---------------------------------------------------------------- mint and burn

    /// @inheritdoc IBridgeMinter
    function mint(uint64 depositNonce, address homeToken, address recipient, uint256 amount, bytes calldata signature)
        external
    {
        Core memory core = _core;
        if (core.paused) revert BridgeMinterOperationPaused();
        // Checked before the signature so that a racing second relayer fails fast and cheaply.
        if (_minted.get(depositNonce)) revert BridgeMinterDepositAlreadyMinted(depositNonce);
        address wrapped = _wrappedOf[homeToken];
        if (wrapped == address(0)) revert BridgeMinterTokenNotRegistered(homeToken);

        uint64 epoch = core.keyEpoch;
        bytes32 digest = _mintDigest(depositNonce, homeToken, recipient, amount, epoch);
        bytes4 magic = IBridgeSignatureVerifier(core.verifier).isValidBridgeSignature(digest, signature);
        if (magic != IBridgeSignatureVerifier.isValidBridgeSignature.selector) {
            revert IBridgeSignatureVerifier.BridgeSignatureInvalid(digest);
        }

        _limits[homeToken].consume(homeToken, amount, block.timestamp);
        _minted.set(depositNonce);
        BridgeWrappedToken(wrapped).mint(recipient, amount);
        emit BridgeMinted(depositNonce, homeToken, recipient, wrapped, amount, epoch);
    }

    /// @inheritdoc IBridgeMinter
    function burn(address wrappedToken, uint256 amount, address recipient) external returns (uint64 nonce) {
        if (_core.paused) revert BridgeMinterOperationPaused();
        address homeToken = _homeOf[wrappedToken];
        if (homeToken == address(0)) revert BridgeMinterWrappedTokenUnknown(wrappedToken);
        if (amount == 0) revert BridgeMinterAmountZero();
        if (recipient == address(0)) revert BridgeMinterRecipientZero();
        address vault = _vault;
        if (vault == address(0)) revert BridgeMinterVaultUnset();

        BridgeWrappedToken(wrappedToken).burn(msg.sender, amount);
        nonce = ++_burnNonce;
        emit BridgeBurned(nonce, wrappedToken, msg.sender, homeToken, recipient, amount, _homeChainId, vault);
    }

    // ---------------------------------------------------------------- pause and configuration

    /// @notice Stops mints and burns. Guardian or admin.
    function pause() external {
        if (!hasRole(GUARDIAN_ROLE, msg.sender) && !hasRole(DEFAULT_ADMIN_ROLE, msg.sender)) {
            revert BridgeMinterCallerNotGuardian(msg.sender);
        }
        _core.paused = true;
        emit BridgeMinterPaused(msg.sender);
    }

    /// @notice Resumes. Admin only.
    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _core.paused = false;
        emit BridgeMinterUnpaused(msg.sender);
    }

    /// @notice Rotates the key or changes the signing mode: points at `verifier`, whose key epoch must be above the
    ///         current verifier's, so signatures bound to the old epoch stop working. ROTATION_ROLE only.
    function setVerifier(address verifier) external onlyRole(ROTATION_ROLE) {
        uint64 currentEpoch = _core.keyEpoch;
        uint64 nextEpoch = IBridgeSignatureVerifier(verifier).keyEpoch();
        if (nextEpoch <= currentEpoch) revert BridgeMinterKeyEpochNotAdvanced(currentEpoch, nextEpoch);
        _core.verifier = verifier;
        _core.keyEpoch = nextEpoch;
        emit BridgeMinterVerifierSet(verifier);
    }

    /// @notice Sets the home vault (wiring after both sides are deployed). Admin only.
    function setVault(address vault) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _vault = vault;
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
        if (_wrappedOf[homeToken] != address(0)) revert BridgeMinterTokenAlreadyRegistered(homeToken);
        wrapped = address(new BridgeWrappedToken(name_, symbol_, decimals_, homeToken));
        _wrappedOf[homeToken] = wrapped;
        _homeOf[wrapped] = homeToken;
        emit BridgeWrappedTokenCreated(homeToken, wrapped, decimals_);
        _setLimit(homeToken, dailyLimitWei, refillPeriodSec);
    }

    /// @notice Sets a token's daily mint limit; the bucket starts full. Admin only.
    function setLimit(address homeToken, uint96 dailyLimitWei, uint32 refillPeriodSec)
        external
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        if (_wrappedOf[homeToken] == address(0)) revert BridgeMinterTokenNotRegistered(homeToken);
        _setLimit(homeToken, dailyLimitWei, refillPeriodSec);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IBridgeMinter
    function mintDigest(uint64 depositNonce, address homeToken, address recipient, uint256 amount)
        external
        view
        returns (bytes32)
    {
        return _mintDigest(depositNonce, homeToken, recipient, amount, _core.keyEpoch);
    }

    /// @inheritdoc IBridgeMinter
    function isMinted(uint64 depositNonce) external view returns (bool) {
        return _minted.get(depositNonce);
    }

    /// @inheritdoc IBridgeMinter
    function wrappedTokenOf(address homeToken) external view returns (address) {
        return _wrappedOf[homeToken];
    }

    /// @notice The home token a wrapped token stands for (zero if unknown).
    function homeTokenOf(address wrappedToken) external view returns (address) {
        return _homeOf[wrappedToken];
    }

    /// @notice Verifier, pause flag, current key epoch and the last burn nonce.
    function core() external view returns (address verifier, bool paused, uint64 keyEpoch, uint64 burnCount) {
        Core memory c = _core;
        return (c.verifier, c.paused, c.keyEpoch, _burnNonce);
    }

    /// @notice The home vault and the home chain id.
    function wiring() external view returns (address vault, uint256 homeChainId) {
        return (_vault, _homeChainId);
    }

    /// @notice What `homeToken`'s daily mint bucket holds now.
    function availableToMint(address homeToken) external view returns (uint256) {
        return BridgeTokenBucket.available(_limits[homeToken], block.timestamp);
    }

    // ---------------------------------------------------------------- internals

    function _mintDigest(uint64 depositNonce, address homeToken, address recipient, uint256 amount, uint64 epoch)
        private
        view
        returns (bytes32)
    {
        address vault = _vault;
        if (vault == address(0)) revert BridgeMinterVaultUnset();
        return BridgeMessageHash.digest(
            BridgeMessageHash.Message({
                kind: BridgeMessageHash.KIND_MINT,
                srcChainId: _homeChainId,
                srcContract: vault,
                dstChainId: block.chainid,
                dstContract: address(this),
                nonce: depositNonce,
                token: homeToken,
                recipient: recipient,
                amount: amount,
                keyEpoch: epoch
            })
        );
    }

    function _setLimit(address homeToken, uint96 dailyLimitWei, uint32 refillPeriodSec) private {
        _limits[homeToken].configure(dailyLimitWei, refillPeriodSec, block.timestamp);
        emit BridgeMinterLimitSet(homeToken, dailyLimitWei, refillPeriodSec);
    }
}
