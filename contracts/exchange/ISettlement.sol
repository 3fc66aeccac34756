// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title ISettlement
/// @notice Custody and atomic batch settlement of the order book exchange: internal balances, EIP-712
///         signed orders, delegated signers (agents), cancellation, two-step withdrawals and fees.
/// @dev Amounts are token base units. A price is quote-token base units per 1e18 base-token base units
///      (`PRICE_SCALE`), so the quote amount of a fill is `baseAmount * price / 1e18` and must divide exactly.
interface ISettlement {
    // ---------------------------------------------------------------- types

    /// @notice An order as the trader signs it (EIP-712 struct `Order`).
    /// @param trader the account whose balances the order moves (an EOA or an ERC-1271 wallet)
    /// @param baseToken the token bought or sold
    /// @param quoteToken the token paid or received
    /// @param side 0 = buy base, 1 = sell base
    /// @param price limit price: quote base units per 1e18 base base units
    /// @param amount base-token base units the order may fill in total
    /// @param expiry unix seconds; the order is dead from this second on (block.timestamp >= expiry)
    /// @param nonce per-trader bitmap nonce below 2^128 (two bits per nonce: word = nonce / 127, bits 2 * (nonce % 127))
    /// @param flags bit 0 = POST_ONLY (maker only); other bits reserved and must be 0
    struct Order {
        address trader;
        address baseToken;
        address quoteToken;
        uint8 side;
        uint256 price;
        uint256 amount;
        uint64 expiry;
        uint256 nonce;
        uint8 flags;
    }

    /// @notice One trade of a batch: indexes into the batch's `orders`, the size and the price.
    /// @dev uint128 size and price keep `baseAmount * price` inside uint256.
    struct Fill {
        uint32 makerIndex;
        uint32 takerIndex;
        uint128 baseAmount;
        uint128 price;
    }

    /// @notice A withdrawal requested and not yet executed or cancelled (one per trader and token).
    struct PendingWithdrawal {
        uint192 amount;
        uint64 availableAt;
    }

    // ---------------------------------------------------------------- events (fixed: the indexer reads them)

    /// @notice `amount` of `token` was credited to `trader`'s internal balance.
    event Deposited(address indexed trader, address indexed token, uint256 amount);
    /// @notice `trader` asked to withdraw `amount` of `token`; it can be executed from `availableAt` on.
    event WithdrawalRequested(address indexed trader, address indexed token, uint256 amount, uint64 availableAt);
    /// @notice `trader` cancelled its pending withdrawal of `amount` of `token`.
    event WithdrawalCancelled(address indexed trader, address indexed token, uint256 amount);
    /// @notice `amount` of `token` left `trader`'s internal balance to its wallet.
    event WithdrawalExecuted(address indexed trader, address indexed token, uint256 amount);
    /// @notice Batch `batchId` applied, with `tradeCount` trades, under these fee rates (one event per batch).
    /// @dev The trades are not in the log: they are the fills of the calldata of the transaction that emitted
    ///      it, a direct call of `settle` or `settlePacked` naming this `batchId` (a batch applies whole, so every
    ///      fill of it settled, in calldata order). Readers (sdk/settled-trades.ts `settledTradesOf`) recompute
    ///      each order's EIP-712 hash, each fill's quote amount (baseAmount * price / 1e18, exact) and fees: the
    ///      maker's is ceil(received * makerFeeBps / 10_000) on what it received (base for a buyer, quote for a
    ///      seller), the taker's likewise with takerFeeBps.
    event BatchSettled(uint64 indexed batchId, uint256 tradeCount, uint16 makerFeeBps, uint16 takerFeeBps);
    /// @notice `trader` (or its agent) cancelled the order(s) with `nonce`.
    event OrderCancelled(address indexed trader, uint256 nonce);
    /// @notice Every order of `trader` with a nonce below `minNonce` is dead.
    event OrdersCancelledBelow(address indexed trader, uint256 minNonce);
    /// @notice `agent` may sign orders for `trader` until `expiry` (unix seconds, exclusive).
    event AgentApproved(address indexed trader, address indexed agent, uint64 expiry);
    /// @notice `agent` may no longer sign orders for `trader`.
    event AgentRevoked(address indexed trader, address indexed agent);
    /// @notice `amount` of collected `token` fees were sent to `to`.
    event FeesWithdrawn(address indexed token, address indexed to, uint256 amount);
    /// @notice New fee rates, in basis points of what each party receives.
    event FeesUpdated(uint16 makerFeeBps, uint16 takerFeeBps);
    /// @notice Collected fees are now withdrawn to `feeRecipient`.
    event FeeRecipientUpdated(address feeRecipient);
    /// @notice Withdrawals requested from now on wait `withdrawalDelaySec` seconds.
    event WithdrawalDelayUpdated(uint64 withdrawalDelaySec);

    // ---------------------------------------------------------------- errors: batches and fills

    /// @notice The batch does not carry the next sequence number (replayed or skipped batch).
    error SettlementBatchOutOfOrder(uint64 expected, uint64 got);
    /// @notice `orders` and `signatures` differ in length.
    error SettlementBatchLengthMismatch(uint256 orders, uint256 signatures);
    /// @notice Orders must be listed by strictly increasing order hash (this makes a duplicate impossible).
    error SettlementOrdersNotSorted(uint256 index);
    /// @notice The packed batch is truncated, has trailing bytes, or names a token index it does not carry.
    error SettlementPackedBatchMalformed(uint256 offset);
    /// @notice A fill points at an order index outside `orders`.
    error SettlementFillIndexOutOfRange(uint256 fillIndex);
    /// @notice The two orders of a fill trade different base or quote tokens.
    error SettlementFillPairMismatch(uint256 fillIndex);
    /// @notice The two orders of a fill are on the same side.
    error SettlementFillSameSide(uint256 fillIndex);
    /// @notice Maker and taker are the same trader (self-trade prevention).
    error SettlementSelfTrade(uint256 fillIndex, address trader);
    /// @notice A POST_ONLY order was used as the taker.
    error SettlementPostOnlyTaker(uint256 fillIndex, bytes32 orderHash);
    /// @notice A fill of zero base or with a zero quote amount.
    error SettlementFillAmountZero(uint256 fillIndex);
    /// @notice The fill price is worse than the order's limit (above a buy limit, below a sell limit).
    error SettlementFillPriceWorseThanLimit(uint256 fillIndex, bytes32 orderHash, uint256 limitPrice, uint256 fillPrice);
    /// @notice `baseAmount * price` is not a multiple of 1e18: the fill is rejected, never rounded.
    error SettlementFillNotExact(uint256 baseAmount, uint256 price);
    /// @notice A fill whose base amount or quote amount is below `MIN_FILL_UNITS` base units: fees round up by
    ///         at most one unit, so a dust fill would let the operator take most of it in fees.
    /// @param fillIndex the fill's index in the batch
    /// @param makerOrderHash the maker order of the fill
    /// @param takerOrderHash the taker order of the fill
    error SettlementFillTooSmall(
        uint256 fillIndex, bytes32 makerOrderHash, bytes32 takerOrderHash, uint256 baseAmount, uint256 quoteAmount
    );
    /// @notice The fill would take the order past its amount.
    error SettlementOrderOverfilled(bytes32 orderHash, uint256 amount, uint256 filledAfter);

    // ---------------------------------------------------------------- errors: orders

    /// @notice The order expired (block.timestamp >= expiry).
    error SettlementOrderExpired(bytes32 orderHash, uint64 expiry);
    /// @notice The order's nonce is used: the order was fully filled or cancelled.
    error SettlementOrderNonceUsed(address trader, uint256 nonce);
    /// @notice The order's nonce is below the trader's minimum (cancel-all).
    error SettlementOrderNonceBelowMinimum(address trader, uint256 nonce, uint256 minNonce);
    /// @notice The order's side is neither 0 (buy) nor 1 (sell).
    error SettlementOrderSideInvalid(bytes32 orderHash, uint8 side);
    /// @notice An order field is not a clean ABI encoding of its type (dirty high bits), or its nonce is not below
    ///         2^128 (the highest minimum nonce).
    error SettlementOrderEncodingInvalid(uint256 index);
    /// @notice The order's trader is the zero address: it could pass with no valid signature at all
    ///         (ecrecover yields zero for garbage), so it is refused outright.
    /// @param index the order's index in the batch
    error SettlementOrderTraderZero(uint256 index);
    /// @notice The order sets reserved flag bits.
    error SettlementOrderFlagsInvalid(bytes32 orderHash, uint8 flags);

    // ---------------------------------------------------------------- errors: signatures and agents

    /// @notice The signature recovers to `signer`, which is neither the trader nor one of its agents.
    error SettlementSignerNotAuthorized(address trader, address signer);
    /// @notice The signer was an agent of the trader, but its approval expired at `expiry`.
    error SettlementAgentExpired(address trader, address agent, uint64 expiry);
    /// @notice A malleable ECDSA signature (s in the upper half of the curve order).
    error SettlementSignatureHighS(address trader);
    /// @notice A signature that is not a 65-byte ECDSA signature and the trader is not a contract.
    error SettlementSignatureMalformed(address trader);
    /// @notice The trader is a contract whose ERC-1271 `isValidSignature` did not return the magic value.
    error SettlementContractSignatureInvalid(address wallet);
    /// @notice An agent approval whose expiry is not in the future, or an agent that is zero or the trader.
    error SettlementAgentInvalid(address agent, uint64 expiry);
    /// @notice A signed agent approval submitted after its deadline.
    error SettlementAgentApprovalDeadlinePassed(uint64 deadline);
    /// @notice A signed agent approval that the trader did not sign.
    error SettlementAgentApprovalSignatureInvalid(address trader);
    /// @notice A signed agent renouncement submitted after its deadline.
    /// @param deadline the last second (inclusive) at which it could be submitted
    error SettlementAgentRenouncementDeadlinePassed(uint64 deadline);
    /// @notice A signed agent renouncement that is not a 65-byte ECDSA signature with `v` 27 or 28 and a low `s`
    ///         (the rule orders follow): the agent is an EOA, so no other form is accepted.
    /// @param agent the agent that was to sign it
    error SettlementAgentRenouncementSignatureMalformed(address agent);
    /// @notice A signed agent renouncement that recovers to `signer`, not to the agent it names.
    /// @param agent the agent that was to sign it
    /// @param signer the key that did sign it
    error SettlementAgentRenouncementSignerInvalid(address agent, address signer);
    /// @notice `caller` is neither `trader` nor an unexpired agent of it.
    error SettlementCallerNotTraderOrAgent(address trader, address caller);

    // ---------------------------------------------------------------- errors: cancellation

    /// @notice The nonce is already used (filled or cancelled).
    error SettlementNonceAlreadyUsed(address trader, uint256 nonce);
    /// @notice cancelAllBelow may only raise the minimum nonce.
    error SettlementMinNonceNotIncreasing(uint256 current, uint256 requested);
    /// @notice An agent may raise its trader's minimum nonce by at most `maxStep` per call (so that a rogue agent
    ///         cannot push it past the 2^64 nonces settlePacked carries and stop the account for good).
    error SettlementMinNonceStepTooLarge(uint256 current, uint256 requested, uint256 maxStep);
    /// @notice The minimum nonce may rise to at most `max` (2^128): orders carry nonces below it.
    error SettlementMinNonceTooLarge(uint256 requested, uint256 max);

    // ---------------------------------------------------------------- errors: custody

    /// @notice An amount of zero.
    error SettlementAmountZero();
    /// @notice The token delivered a different amount than requested (a fee-on-transfer token).
    error SettlementDepositAmountMismatch(uint256 expected, uint256 received);
    /// @notice The internal balance does not cover the debit.
    error SettlementInsufficientBalance(address trader, address token, uint256 balance, uint256 needed);
    /// @notice A withdrawal is already pending for this token; cancel it first.
    error SettlementWithdrawalAlreadyPending(address trader, address token);
    /// @notice No withdrawal is pending for this token.
    error SettlementWithdrawalNotPending(address trader, address token);
    /// @notice The withdrawal delay has not passed yet.
    error SettlementWithdrawalNotReady(uint64 availableAt);

    // ---------------------------------------------------------------- errors: administration

    /// @notice A fee above `MAX_FEE_BPS`.
    error SettlementFeeTooHigh(uint16 feeBps, uint16 maxFeeBps);
    /// @notice A withdrawal delay above `MAX_WITHDRAWAL_DELAY_SEC`.
    error SettlementWithdrawalDelayTooLong(uint64 delaySec, uint64 maxDelaySec);
    /// @notice The zero address where an account is required.
    error SettlementZeroAddress();
    /// @notice More fees asked than collected.
    error SettlementInsufficientFees(address token, uint256 collected, uint256 requested);

    // ---------------------------------------------------------------- settlement

    /// @notice Applies one batch of fills atomically. Operator only, not while paused.
    /// @param batchId must equal `nextBatchIdOfLane(uint8(batchId >> 56))` (lane 0: `nextBatchId()`); it then increments
    /// @param orders every distinct order the fills use, once, sorted by strictly increasing order hash
    /// @param signatures `signatures[i]` is the signature of `orders[i]` (ECDSA by trader or agent, or ERC-1271)
    /// @param fills the trades, applied in this order
    function settle(uint64 batchId, Order[] calldata orders, bytes[] calldata signatures, Fill[] calldata fills)
        external;

    /// @notice The same as `settle`, with the batch in the compact encoding of PackedBatch.sol (about half
    ///         the calldata). Operator only, not while paused.
    /// @param batchId must equal `nextBatchIdOfLane(uint8(batchId >> 56))` (lane 0: `nextBatchId()`); it then increments
    /// @param batch token table, orders (sorted by strictly increasing order hash) with signatures, fills
    function settlePacked(uint64 batchId, bytes calldata batch) external;

    // ---------------------------------------------------------------- custody

    /// @notice Moves `amount` of `token` from the caller into its internal balance.
    function deposit(address token, uint256 amount) external;
    /// @notice Moves `amount` of `token` from the caller into `to`'s internal balance.
    function depositFor(address to, address token, uint256 amount) external;
    /// @notice Starts a withdrawal; it can be executed after the withdrawal delay. Nothing is debited yet.
    function requestWithdrawal(address token, uint256 amount) external;
    /// @notice Executes the caller's pending withdrawal of `token` once its delay has passed.
    function executeWithdrawal(address token) external;
    /// @notice Cancels the caller's pending withdrawal of `token`.
    function cancelWithdrawal(address token) external;

    // ---------------------------------------------------------------- agents and cancellation

    /// @notice Lets `agent` sign orders for the caller until `expiry` (exclusive).
    function approveAgent(address agent, uint64 expiry) external;
    /// @notice Submits an EIP-712 `AgentApproval` signed by `trader` (anyone may submit it).
    function approveAgentWithSig(
        address trader,
        address agent,
        uint64 expiry,
        uint256 nonce,
        uint64 deadline,
        bytes calldata signature
    ) external;
    /// @notice Removes `agent`'s right to sign for the caller.
    function revokeAgent(address agent) external;
    /// @notice The caller, an agent of `trader`, gives up its right to sign for `trader`. Idempotent: renouncing
    ///         an approval that is not there (expired, revoked, never given) succeeds too. Emits AgentRevoked.
    /// @param trader the account the caller stops signing for
    function renounceAgent(address trader) external;
    /// @notice Submits an EIP-712 `AgentRenouncement` signed by `agent` (anyone may submit it: an agent key
    ///         usually holds no ETH): `agent` gives up its right to sign for `trader`. Emits AgentRevoked. Works
    ///         while paused (it only takes a right away).
    /// @dev Replay: `nonce` must equal `nonces(agent)` and is used up, so a renouncement, once submitted, cannot
    ///      remove a later re-approval of the same agent. Only a low-s 65-byte ECDSA signature of `agent`.
    /// @param trader the account `agent` stops signing for
    /// @param agent the agent giving up its approval, the signer
    /// @param nonce the agent's current `nonces(agent)`
    /// @param deadline unix seconds; the last second (inclusive) at which it may be submitted
    /// @param signature the agent's 65-byte ECDSA signature of the AgentRenouncement
    function renounceAgentWithSig(address trader, address agent, uint256 nonce, uint64 deadline, bytes calldata signature)
        external;
    /// @notice Cancels the caller's order(s) with `nonce`.
    function cancelOrder(uint256 nonce) external;
    /// @notice Cancels `trader`'s order(s) with `nonce`; the caller is the trader or its agent.
    function cancelOrderFor(address trader, uint256 nonce) external;
    /// @notice Kills every order of the caller with a nonce below `minNonce` (may only rise, up to 2^128).
    function cancelAllBelow(uint256 minNonce) external;
    /// @notice Kills every order of `trader` with a nonce below `minNonce`; the caller is the trader or its agent.
    ///         An agent may raise the minimum by at most `MAX_AGENT_MIN_NONCE_STEP` per call.
    function cancelAllBelowFor(address trader, uint256 minNonce) external;

    // ---------------------------------------------------------------- administration

    /// @notice Sets the fee rates (basis points of what each party receives). Admin only.
    function setFees(uint16 makerFeeBps, uint16 takerFeeBps) external;
    /// @notice Sets where collected fees go. Admin only.
    function setFeeRecipient(address feeRecipient) external;
    /// @notice Sets the delay between a withdrawal request and its execution. Admin only.
    function setWithdrawalDelay(uint64 withdrawalDelaySec) external;
    /// @notice Sends `amount` of collected `token` fees to the fee recipient. Admin only.
    function withdrawFees(address token, uint256 amount) external;
    /// @notice Stops settle, deposits and signed agent approvals (withdrawals stay open). Admin only.
    function pause() external;
    /// @notice Resumes. Admin only.
    function unpause() external;

    // ---------------------------------------------------------------- views

    /// @notice Internal balance of `trader` in `token`.
    function balanceOf(address trader, address token) external view returns (uint256);
    /// @notice Base amount filled so far of a partially filled order (0 once finished or never filled).
    function filledAmount(bytes32 orderHash) external view returns (uint256);
    /// @notice Whether `trader`'s `nonce` bit is set (its order was fully filled or cancelled).
    function isNonceUsed(address trader, uint256 nonce) external view returns (bool);
    /// @notice The cancel-all threshold of `trader`: orders with a lower nonce are dead.
    function minNonce(address trader) external view returns (uint256);
    /// @notice The batch id the next `settle` of settle lane 0 (ids below 2^56) must carry.
    function nextBatchId() external view returns (uint64);
    /// @notice The batch id the next `settle` of settle lane `lane` must carry: lane L's ids run from L << 56,
    ///         each lane in its own sequence (one lane per matcher partition, each with its own operator).
    function nextBatchIdOfLane(uint8 lane) external view returns (uint64);
    /// @notice The pending withdrawal of `trader` in `token` (zero amount when none).
    function pendingWithdrawal(address trader, address token) external view returns (PendingWithdrawal memory);
    /// @notice Until when `agent` may sign for `trader` (0 = not an agent).
    function agentExpiry(address trader, address agent) external view returns (uint64);
    /// @notice Fees collected and not yet withdrawn, in `token`.
    function collectedFees(address token) external view returns (uint256);
    /// @notice The EIP-712 hash of `order` under this contract's domain (the id used everywhere).
    function getOrderHash(Order calldata order) external view returns (bytes32);
    /// @notice This contract's EIP-712 domain separator.
    function domainSeparator() external view returns (bytes32);
    /// @notice Current maker and taker fee rates in basis points.
    function fees() external view returns (uint16 makerFeeBps, uint16 takerFeeBps);
    /// @notice Where collected fees are withdrawn to.
    function feeRecipient() external view returns (address);
    /// @notice The current withdrawal delay in seconds.
    function withdrawalDelay() external view returns (uint64);
}
