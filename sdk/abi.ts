// ABIs of the exchange contracts for services (viem). Two forms:
//  - `settlementEventsAbi`: the fixed event signatures as a typed `as const` ABI (no build needed); a Hardhat
//    test (test/contracts/exchange/abi.test.ts) checks it equals the compiled contract's events.
//  - `loadExchangeArtifact(name)`: the full ABI and bytecode from the Hardhat build (`artifacts/`, the
//    full-tree `npx hardhat compile`; `artifacts-exchange/` when only the area was built).
import fs from "node:fs";
import path from "node:path";
import { parseAbi, type Abi, type Hex } from "viem";

export const settlementEventsAbi = parseAbi([
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

/** keccak256("OPERATOR_ROLE"): the role allowed to call settle. */
export const OPERATOR_ROLE: Hex = "0x97667070c54ef182b0f5858b034beac1b6f3089aa2d3188bb1e8929f4fa9b929";

export type ExchangeContractName =
  | "Settlement"
  | "DemoToken"
  | "SettlementTestWallet"
  | "SettlementFeeOnTransferToken"
  | "SettlementReentrantToken";

const SOURCE: Record<ExchangeContractName, string> = {
  Settlement: "Settlement.sol",
  DemoToken: "tokens/DemoToken.sol",
  SettlementTestWallet: "test/SettlementTestWallet.sol",
  SettlementFeeOnTransferToken: "test/SettlementTestTokens.sol",
  SettlementReentrantToken: "test/SettlementTestTokens.sol",
};

const ROOT = path.resolve(__dirname, "..");

/** ABI and creation bytecode of an exchange contract from the Hardhat build. */
export function loadExchangeArtifact(name: ExchangeContractName, artifactsDir?: string): { abi: Abi; bytecode: Hex } {
  const candidates = artifactsDir
    ? [path.join(artifactsDir, "contracts/exchange", SOURCE[name], `${name}.json`)]
    : [
        path.join(ROOT, "artifacts/contracts/exchange", SOURCE[name], `${name}.json`),
        path.join(ROOT, "artifacts-exchange", SOURCE[name], `${name}.json`),
      ];
  for (const file of candidates) {
    if (fs.existsSync(file)) {
      const json = JSON.parse(fs.readFileSync(file, "utf8")) as { abi: Abi; bytecode: Hex };
      return { abi: json.abi, bytecode: json.bytecode };
    }
  }
  throw new Error(`artifact of ${name} not found (run \`npx hardhat compile\`); looked in ${candidates.join(", ")}`);
}
