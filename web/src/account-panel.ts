// The account panel: who is connected, balances (wallet, Settlement on chain, available and in orders,
// pending withdrawal), the deposit and withdrawal form, open orders and history. Live data (a trade)
// refreshes the balances and orders around the funds form, which is built once per wallet.
import { loadAccount, units, type AccountState } from "./account";
import { explain } from "./api";
import { h, replace, thead } from "./dom";
import { group } from "./format";
import { renderFunds } from "./funds-form";
import { ordersView } from "./orders-view";
import type { AppState, Message } from "./state";
import type { ConnectedWallet } from "./wallet";

export class AccountPanel {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly messages: { funds: Message; cancel: Message } = {
    funds: { text: "", kind: "" },
    cancel: { text: "", kind: "" },
  };
  private readonly parts = { head: h("div"), top: h("div"), funds: h("div", { id: "funds-box" }), orders: h("div") };
  private fundsFor: { wallet: ConnectedWallet; hint: HTMLElement } | null = null;

  constructor(
    private readonly state: AppState,
    section: HTMLElement,
  ) {
    section.append(this.parts.head, this.parts.top, this.parts.funds, this.parts.orders);
  }

  refreshSoon(delayMs = 400): void {
    if (!this.state.wallet?.autoSign) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), delayMs);
  }

  async refresh(): Promise<void> {
    const state = this.state;
    this.timer = null;
    const w = state.wallet;
    if (!w || !state.info || !state.pub) return this.render();
    state.accountLoading = true;
    this.render();
    try {
      const a = await loadAccount(state.info, w, state.pub);
      if (state.wallet !== w) return;
      state.account = a;
      state.accountError = "";
    } catch (err) {
      state.accountError = `The account could not be loaded: ${explain(err)}`;
    } finally {
      state.accountLoading = false;
    }
    this.render();
    // while a fill waits for its settlement transaction, or a withdrawal for its delay, look again
    const pending =
      state.account?.history.some((o) => o.fills?.some((f) => f.settlement === "pending")) ||
      state.account?.balances.some((b) => b.pendingUnits > 0n);
    if (pending) this.refreshSoon(2000);
  }

  private show(children: (Node | null)[], orders: (Node | null)[] = []): void {
    const [header, ...rest] = children;
    replace(this.parts.head, header);
    replace(this.parts.top, ...rest);
    replace(this.parts.orders, ...orders);
  }

  render(): void {
    const state = this.state;
    const header = h("div", { class: "panel-head" }, h("h2", { id: "account-h" }, "Account"));
    const w = state.wallet;
    if (!w || !state.account || this.fundsFor?.wallet !== w) {
      this.fundsFor = null;
      replace(this.parts.funds);
    }
    if (!w) return this.show([header, h("p", { class: "empty" }, "Connect a wallet to see balances and orders.")]);
    header.append(
      h(
        "button",
        { type: "button", onclick: () => void this.refresh() },
        w.autoSign ? "Refresh" : "Load (signs a request for each read)",
      ),
    );
    const a = state.account;
    const children: (Node | null)[] = [
      header,
      h("p", { class: "who" }, `${w.label} · `, h("code", { id: "account-address" }, w.address)),
    ];
    if (state.accountError) children.push(h("p", { class: "error", role: "alert" }, state.accountError));
    if (!a) {
      children.push(
        h("p", { class: "loading" }, state.accountLoading ? "Loading balances and orders…" : "Not loaded yet."),
      );
      return this.show(children);
    }
    children.push(h("h3", {}, "Balances"), balancesTable(a));
    const refresh = () => void this.refresh();
    if (!this.fundsFor) {
      const hint = renderFunds(this.parts.funds, {
        info: state.info!,
        wallet: w,
        pub: state.pub!,
        chain: state.chain!,
        message: this.messages.funds,
        refresh,
      });
      this.fundsFor = { wallet: w, hint };
    }
    const delayHint = `the withdrawal delay is ${a.withdrawalDelaySec} s: request, wait, then execute`;
    if (this.fundsFor.hint.textContent !== delayHint) this.fundsFor.hint.textContent = delayHint;
    this.show(
      children,
      ordersView({ info: state.info, wallet: w, account: a, message: this.messages.cancel, refresh }),
    );
  }
}

function balancesTable(a: AccountState): HTMLElement {
  const columns = ["Token", "Wallet", "In Settlement (chain)", "Available", "In orders", "Withdrawal pending"];
  return h(
    "table",
    { id: "balances" },
    thead(columns),
    h(
      "tbody",
      {},
      a.balances.map((b) => {
        const d = b.token.decimals;
        const ready =
          b.pendingUnits > 0n && b.availableAt <= a.chainNowSec + BigInt(Math.floor((Date.now() - a.loadedAt) / 1000));
        return h(
          "tr",
          { "data-token": b.token.symbol },
          h("th", { scope: "row" }, b.token.symbol),
          h("td", { class: "wallet-bal" }, units(b.walletUnits, d)),
          h("td", { class: "settlement-bal" }, units(b.settlementUnits, d)),
          h("td", { class: "available-bal" }, b.api ? group(b.api.available) : "—"),
          h("td", {}, b.api ? group(b.api.locked) : "—"),
          h(
            "td",
            {},
            b.pendingUnits === 0n
              ? "—"
              : [
                  `${units(b.pendingUnits, d)} `,
                  ready
                    ? "(ready to execute)"
                    : `(ready at ${new Date(Number(b.availableAt) * 1000).toLocaleTimeString()}, chain time)`,
                ],
          ),
        );
      }),
    ),
  );
}
