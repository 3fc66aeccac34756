// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IBridgeSignatureVerifier} from "../interfaces/IBridgeSignatureVerifier.sol";
import {IBridgeFrostGroupKey} from "../interfaces/IBridgeFrostGroupKey.sol";
import {FrostSecp256k1Verifier} from "./FrostSecp256k1Verifier.sol";

/// @title BridgeSignatureCheck
/// @notice The signature check of the vault and the minter, whatever the signing mode. Both install a verifier
///         (IBridgeSignatureVerifier); a native-mode verifier also answers IBridgeFrostGroupKey, and then its group
///         key is cached by the destination and checked inline: same key, same FROST equation, same named errors
///         as the verifier's own isValidBridgeSignature, without the cold call (2,600 gas account access plus
///         calldata copying) on every mint or release. Custody and custom modes (ERC-1271) are called as before.
library BridgeSignatureCheck {
    /// @notice Call the installed verifier (ERC-1271 modes).
    uint8 internal constant MODE_CALL = 0;
    /// @notice Native FROST, group key with an even y.
    uint8 internal constant MODE_FROST_EVEN_Y = 1;
    /// @notice Native FROST, group key with an odd y.
    uint8 internal constant MODE_FROST_ODD_Y = 2;

    /// @notice The installed verifier and, in the native mode, its cached group key x: two slots, of which a
    ///         check reads only the one its mode needs.
    struct Installed {
        address verifier;
        uint256 frostKeyX;
    }

    /// @notice Installs `verifier` for `epoch` and returns the mode to keep in the caller's hot slot: FROST when it
    ///         answers groupKey() for the same epoch (its key is checked to be on the curve), MODE_CALL otherwise
    ///         (no such function, a revert, an answer of another size or another epoch).
    function install(Installed storage self, address verifier, uint64 epoch) internal returns (uint8 mode) {
        self.verifier = verifier;
        self.frostKeyX = 0;
        (bool ok, bytes memory answer) =
            verifier.staticcall(abi.encodeWithSelector(IBridgeFrostGroupKey.groupKey.selector));
        if (!ok || answer.length != 96) return MODE_CALL;
        (uint64 keyEpoch, uint256 x, uint256 y) = abi.decode(answer, (uint64, uint256, uint256));
        if (keyEpoch != epoch) return MODE_CALL;
        FrostSecp256k1Verifier.checkPublicKey(x, y);
        self.frostKeyX = x;
        return y & 1 == 1 ? MODE_FROST_ODD_Y : MODE_FROST_EVEN_Y;
    }

    /// @notice Reverts with BridgeSignatureInvalid(digest) unless `signature` is valid for `digest` in `mode`
    ///         (FROST malformed signatures revert with the FrostSecp256k1Verifier errors, as the verifier does).
    function check(Installed storage self, uint8 mode, bytes32 digest, bytes calldata signature) internal view {
        bool valid;
        if (mode != MODE_CALL) {
            valid = FrostSecp256k1Verifier.verify(self.frostKeyX, mode == MODE_FROST_ODD_Y, digest, signature);
        } else {
            valid = IBridgeSignatureVerifier(self.verifier).isValidBridgeSignature(digest, signature)
                == IBridgeSignatureVerifier.isValidBridgeSignature.selector;
        }
        if (!valid) revert IBridgeSignatureVerifier.BridgeSignatureInvalid(digest);
    }
}
