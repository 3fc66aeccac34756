// The deposit and withdrawal form (approve + deposit; the two-step withdrawal). Built once per wallet and
// never rebuilt by live data, so an amount being typed keeps its text and focus.
import type { Chain, PublicClient } from "viem";
import { parseDecimal } from "../../sdk/decimal";
import { cancelWithdrawal, deposit, executeWithdrawal, requestWithdrawal, tokensOf, type TokenInfo } from "./account";
import { explain } from "./api";
import { field, h, replace } from "./dom";
import type { MarketsInfo } from "./order";
import { say, type Message } from "./state";
import type { ConnectedWallet } from "./wallet";

export interface FundsDeps {
  info: MarketsInfo;
  wallet: ConnectedWallet;
  pub: PublicClient;
  chain: Chain;
  /** the result line's text, kept across re-renders */
  message: Message;
  /** after a transaction: the account refresh */
  refresh(): void;
}

type Tx = (
  info: MarketsInfo,
  w: ConnectedWallet,
  pub: PublicClient,
  chain: Chain,
  t: TokenInfo,
) => Promise<`0x${string}`>;
type AmountTx = (
  info: MarketsInfo,
  w: ConnectedWallet,
  pub: PublicClient,
  chain: Chain,
  t: TokenInfo,
  amount: bigint,
) => Promise<`0x${string}`>;

/** Fills `box` with the form; returns its hint line (the withdrawal delay, set by the caller). */
export function renderFunds(box: HTMLElement, d: FundsDeps): HTMLElement {
  const tokens = tokensOf(d.info);
  const tokenSel = h("select", { name: "token" }) as HTMLSelectElement;
  for (const t of tokens) tokenSel.append(h("option", { value: t.address }, t.symbol));
  const amount = h("input", { name: "amount", inputmode: "decimal", autocomplete: "off" }) as HTMLInputElement;
  const fTok = field("Token", tokenSel);
  const fAmt = field("Amount", amount, "");
  // results outlive the re-render that the refresh after each action makes
  const out = h(
    "p",
    { class: "result", role: "status", "aria-live": "polite", id: "funds-result", "data-kind": d.message.kind },
    d.message.text,
  );
  const tokenOf = () => tokens.find((t) => t.address === tokenSel.value)!;
  const parsed = (): bigint | null => {
    const t = tokenOf();
    const v = parseDecimal(amount.value.trim(), t.decimals);
    fAmt.error.textContent = "";
    if (amount.value.trim() === "" || v === null || v <= 0n) {
      fAmt.error.textContent = `Enter an amount of ${t.symbol} above zero with at most ${t.decimals} decimals.`;
      return null;
    }
    return v;
  };
  const run = (label: string, fn: () => Promise<`0x${string}`>) => async () => {
    say(out, d.message, `${label}: confirm in the wallet…`);
    try {
      const hash = await fn();
      say(out, d.message, `${label}: done, transaction ${hash}.`, "ok");
      d.refresh();
    } catch (err) {
      say(out, d.message, `${label} failed: ${explain(err)}`, "error");
    }
  };
  const tx = (label: string, fn: Tx) => run(label, () => fn(d.info, d.wallet, d.pub, d.chain, tokenOf()));
  const withAmount = (label: string, fn: AmountTx) => () => {
    const v = parsed();
    if (v === null) return;
    void run(label, () => fn(d.info, d.wallet, d.pub, d.chain, tokenOf(), v))();
  };
  const button = (text: string, onclick: () => unknown) => h("button", { type: "button", onclick }, text);
  replace(
    box,
    h("h3", {}, "Deposit and withdraw"),
    h(
      "div",
      { class: "funds" },
      fTok.wrap,
      fAmt.wrap,
      h(
        "div",
        { class: "buttons" },
        button("Deposit", withAmount("Deposit", deposit)),
        button("Request withdrawal", withAmount("Withdrawal request", requestWithdrawal)),
        button("Execute withdrawal", tx("Withdrawal", executeWithdrawal)),
        button("Cancel withdrawal", tx("Withdrawal cancel", cancelWithdrawal)),
      ),
      out,
    ),
  );
  return fAmt.hint;
}
