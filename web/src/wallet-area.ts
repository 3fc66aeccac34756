// The header's wallet area: the wallets on offer (the sandbox's development wallets, then the extensions
// found by EIP-6963 discovery), Connect, and once connected the address and Disconnect.
import type { EIP6963ProviderDetail } from "mipd";
import { explain } from "./api";
import { h, replace } from "./dom";
import type { AppState } from "./state";
import { INTEGRATOR_LABEL, developmentWallet, extensionWallet } from "./wallet";

export class WalletArea {
  private extensions: readonly EIP6963ProviderDetail[] = [];

  constructor(
    private readonly state: AppState,
    private readonly area: HTMLElement,
    /** after a connect or a disconnect (state.wallet is set) */
    private readonly onChange: () => void,
  ) {}

  setExtensions(list: readonly EIP6963ProviderDetail[]): void {
    this.extensions = list;
    if (!this.state.wallet) this.render();
  }

  render(): void {
    const w = this.state.wallet;
    if (w) {
      return replace(
        this.area,
        h(
          "span",
          { class: "wallet-label" },
          `${w.label}: `,
          h("code", {}, `${w.address.slice(0, 6)}…${w.address.slice(-4)}`),
        ),
        h("button", { type: "button", onclick: () => this.disconnect() }, "Disconnect"),
      );
    }
    const sel = h("select", { id: "wallet-choice" }) as HTMLSelectElement;
    const keys = this.state.config?.devWalletKeys ?? [];
    if (this.state.config?.integratorKey)
      sel.append(
        h("option", { value: "dev:integrator" }, `${INTEGRATOR_LABEL} (yours: the simulated market never trades it)`),
      );
    keys.forEach((_, i) => sel.append(h("option", { value: `dev:${i}` }, `Development wallet: demo trader ${i + 1}`)));
    for (const d of this.extensions) sel.append(h("option", { value: `ext:${d.info.uuid}` }, d.info.name));
    const err = h("p", { class: "field-error", role: "alert" });
    if (sel.options.length === 0)
      return replace(this.area, h("p", {}, "No wallet found: install a browser wallet (EIP-6963)."));
    const connect = h(
      "button",
      {
        type: "button",
        class: "primary",
        id: "connect",
        onclick: async () => {
          err.textContent = "";
          try {
            await this.connect(sel.value);
          } catch (e) {
            err.textContent = `Could not connect: ${explain(e)}`;
          }
        },
      },
      "Connect",
    );
    replace(this.area, h("label", { for: "wallet-choice" }, "Wallet"), sel, connect, err);
  }

  private async connect(choice: string): Promise<void> {
    const state = this.state;
    const keys = state.config?.devWalletKeys ?? [];
    const [kind, ref] = choice.split(":");
    if (kind === "dev" && ref === "integrator")
      state.wallet = developmentWallet(state.chain!, state.config!.integratorKey!, INTEGRATOR_LABEL);
    else if (kind === "dev")
      state.wallet = developmentWallet(
        state.chain!,
        keys[Number(ref)],
        `Development wallet: demo trader ${Number(ref) + 1}`,
      );
    else state.wallet = await extensionWallet(state.chain!, this.extensions.find((d) => d.info.uuid === ref)!);
    this.render();
    this.onChange();
  }

  private disconnect(): void {
    this.state.wallet = null;
    this.state.account = null;
    this.render();
    this.onChange();
  }
}
