// The Settlement contract's events, written from their fixed signatures so that the indexer never
// depends on build artifacts; indexer/abis.test.ts checks they equal the events ISettlement declares.
import { parseAbi } from "viem";

export const SettlementAbi = parseAbi([
  "event Deposited(address indexed trader, address indexed token, uint256 amount)",
  "event WithdrawalRequested(address indexed trader, address indexed token, uint256 amount, uint64 availableAt)",
  "event WithdrawalCancelled(address indexed trader, address indexed token, uint256 amount)",
  "event WithdrawalExecuted(address indexed trader, address indexed token, uint256 amount)",
  "event TradeSettled(uint64 indexed batchId, bytes32 indexed makerOrderHash, bytes32 indexed takerOrderHash, address maker, address taker, address baseToken, address quoteToken, bool takerIsBuy, uint256 price, uint256 baseAmount, uint256 quoteAmount, uint256 makerFee, uint256 takerFee)",
  "event BatchSettled(uint64 indexed batchId, uint256 tradeCount)",
  "event OrderCancelled(address indexed trader, uint256 nonce)",
  "event OrdersCancelledBelow(address indexed trader, uint256 minNonce)",
  "event AgentApproved(address indexed trader, address indexed agent, uint64 expiry)",
  "event AgentRevoked(address indexed trader, address indexed agent)",
  "event FeesWithdrawn(address indexed token, address indexed to, uint256 amount)",
  "event FeesUpdated(uint16 makerFeeBps, uint16 takerFeeBps)",
  "event FeeRecipientUpdated(address feeRecipient)",
  "event WithdrawalDelayUpdated(uint64 withdrawalDelaySec)",
]);
