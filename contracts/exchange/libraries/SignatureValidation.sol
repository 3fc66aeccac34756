// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ISettlement} from "../ISettlement.sol";

/// @title SignatureValidation
/// @notice Who may sign an order for a trader: the trader's own key (low-s ECDSA), an unexpired agent of
///         the trader, or, when the trader is a contract, the trader itself through ERC-1271.
library SignatureValidation {
    /// @notice Reverts with a named error unless `signature` over `digest` is valid for `trader`.
    /// @dev ecrecover first (cheap, the common case); ERC-1271 only when the trader has code and the
    ///      recovered key is neither the trader nor one of its agents.
    /// @param recovered the signer the caller already recovered from a 65-byte low-s signature, or zero
    function verifyOrderSigner(
        mapping(address trader => mapping(address agent => uint64 expiry)) storage agents,
        address trader,
        bytes32 digest,
        bytes calldata signature,
        address recovered
    ) internal view {
        address signer = recovered;
        ECDSA.RecoverError err = ECDSA.RecoverError.NoError;
        if (signer == address(0)) (signer, err,) = ECDSA.tryRecoverCalldata(digest, signature);
        uint64 agentExpiry;
        if (err == ECDSA.RecoverError.NoError) {
            if (signer == trader) return;
            agentExpiry = agents[trader][signer];
            if (agentExpiry > block.timestamp) return;
        }
        if (trader.code.length != 0) {
            verifyContractSignature(trader, digest, signature);
            return;
        }
        if (err == ECDSA.RecoverError.InvalidSignatureS) revert ISettlement.SettlementSignatureHighS(trader);
        if (err != ECDSA.RecoverError.NoError) revert ISettlement.SettlementSignatureMalformed(trader);
        if (agentExpiry != 0) revert ISettlement.SettlementAgentExpired(trader, signer, agentExpiry);
        revert ISettlement.SettlementSignerNotAuthorized(trader, signer);
    }

    /// @notice Reverts unless `wallet.isValidSignature(digest, signature)` returns exactly the ERC-1271 magic.
    function verifyContractSignature(address wallet, bytes32 digest, bytes calldata signature) internal view {
        (bool ok, bytes memory ret) =
            wallet.staticcall(abi.encodeCall(IERC1271.isValidSignature, (digest, signature)));
        bytes32 word;
        if (ok && ret.length >= 32) {
            // Memory-safe: reads the first word of `ret`, whose length was just checked.
            assembly ("memory-safe") {
                word := mload(add(ret, 0x20))
            }
        }
        if (word != bytes32(IERC1271.isValidSignature.selector)) {
            revert ISettlement.SettlementContractSignatureInvalid(wallet);
        }
    }
}
