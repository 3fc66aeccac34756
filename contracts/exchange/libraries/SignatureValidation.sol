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
        bytes memory signature,
        address recovered
    ) internal view {
        address signer = recovered;
        ECDSA.RecoverError err = ECDSA.RecoverError.NoError;
        if (signer == address(0)) (signer, err,) = ECDSA.tryRecover(digest, signature);
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

    /// @notice Gas an ERC-1271 wallet's `isValidSignature` gets, exactly (never more, never less): enough for a
    ///         Safe (fallback handler, `checkSignatures`) with a dozen owners or an ECDSA smart account; a wallet
    ///         that needs more is refused. The pipeline's intake runs its eth_call with the same stipend.
    uint256 internal constant ERC1271_GAS_STIPEND = 200_000;
    /// @dev Gas that must be left before the call besides the stipend and its 1/64 (EIP-150): the cold account
    ///      access (2,600), the call's own costs and the check and revert after it.
    uint256 internal constant ERC1271_CALL_RESERVE = 5_000;

    /// @notice Reverts unless `wallet.isValidSignature(digest, signature)` returns exactly the ERC-1271 magic in
    ///         its first word.
    /// @dev The wallet is untrusted: it gets a fixed stipend (a wallet that burns its gas costs at most that)
    ///      and at most 32 bytes of its answer are copied (a return-data bomb costs the caller nothing). When
    ///      less gas is left than the stipend needs, the wallet is refused as well rather than handed less: its
    ///      answer would then depend on the batch around it, and the revert still names it.
    function verifyContractSignature(address wallet, bytes32 digest, bytes memory signature) internal view {
        bytes memory data = abi.encodeCall(IERC1271.isValidSignature, (digest, signature));
        bytes32 word;
        if (gasleft() >= ERC1271_GAS_STIPEND + ERC1271_GAS_STIPEND / 63 + ERC1271_CALL_RESERVE) {
            // Memory-safe: reads `data` (allocated above) and writes at most one word of the answer into the
            // scratch space at 0x00; the word is read only when the wallet succeeded with at least 32 bytes.
            assembly ("memory-safe") {
                if staticcall(ERC1271_GAS_STIPEND, wallet, add(data, 0x20), mload(data), 0x00, 0x20) {
                    if iszero(lt(returndatasize(), 0x20)) { word := mload(0x00) }
                }
            }
        }
        if (word != bytes32(IERC1271.isValidSignature.selector)) {
            revert ISettlement.SettlementContractSignatureInvalid(wallet);
        }
    }
}
