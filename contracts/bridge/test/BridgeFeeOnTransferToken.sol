// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

// The fee-on-transfer test token is the exchange's (one definition); importing it here makes the bridge
// area's own build (HARDHAT_AREA=bridge, as the Solidity mutation run compiles it) produce its artifact too.
import {SettlementFeeOnTransferToken} from "../../exchange/test/SettlementTestTokens.sol";
