// The simulated market as a stack component (`npm start`, after the exchange API): the agents of
// simulator/market.ts trade every tokenized asset's SYMBOL-USD book of the exchange's catalogue with the demo
// traders' keys (config.keys.demoTraders), through the pipeline's DexService. SIMULATOR=off leaves it out
// (test configs default to off); SIMULATOR_SEED and SIMULATOR_ORDERS_PER_SECOND tune it.
import { privateKeyToAccount } from "viem/accounts";
import { bookSymbolOf, CATALOGUE } from "../../../api/exchange/assets/catalogue";
import { startSimulatedMarket, type SimulatedMarket } from "../../../simulator/market";
import { DEFAULT_REFERENCE_PRICE, REFERENCE_PRICES } from "../../../simulator/reference-prices";
import type { Component, ComponentHandle, StackContext } from "../types";
import type { PipelineHandle } from "./pipeline";

/** the books the agents trade: every tokenized catalogue asset's, with where it starts */
export function simulatedBooks(): { symbol: string; referencePrice: string }[] {
  return CATALOGUE.flatMap((a) => {
    const symbol = bookSymbolOf(a);
    return symbol ? [{ symbol, referencePrice: REFERENCE_PRICES[a.symbol] ?? DEFAULT_REFERENCE_PRICE }] : [];
  });
}

export const simulatorComponent: Component = {
  name: "simulator",
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const log = ctx.logger.child({ component: "simulator" });
    const s = ctx.config.simulator;
    const dex = (ctx.started.get("pipeline") as PipelineHandle | undefined)?.dexService;
    if (!s.enabled || !dex) {
      log.info({ enabled: s.enabled, pipeline: Boolean(dex) }, "simulated market off");
      return { stop: async () => {}, info: { "simulated market": s.enabled ? "off (no pipeline)" : "off (SIMULATOR=off)" } };
    }
    const books = simulatedBooks().filter((b) => dex.listMarkets().some((m) => m.symbol === b.symbol));
    let refusals = 0;
    const market: SimulatedMarket = startSimulatedMarket({
      dex,
      traders: ctx.config.keys.demoTraders.map((k) => privateKeyToAccount(k.privateKey)),
      books,
      seed: s.seed,
      ordersPerSecond: s.ordersPerSecond,
      onError: (err, symbol) => {
        // a refusal (funds, a restart's nonce) is the agents' business; logged now and then, never fatal
        if (refusals++ % 100 === 0) log.warn({ symbol, err: String(err), refusals }, "simulated order refused");
      },
    });
    await market.ready;
    return {
      info: { "simulated market": `${books.length} books, seed ${s.seed}, ${s.ordersPerSecond} orders/s (SIMULATOR=off to stop it)` },
      stop: () => market.stop(),
      async health() {
        const st = market.stats();
        return { ok: true, detail: `placed ${st.placed}, refused ${st.refused}, cancelled ${st.cancelled}` };
      },
    };
  },
};
