// What the partition tests share: a memory service narrowed to some markets (a partition's view) and a
// wait for the routed service to see a change.
import type { MemoryDexService } from "../../api/testing/memory-dex-service";
import type { DexService } from "../service";

/** The memory service as a partition owning `symbols` only. */
export function narrowed(svc: MemoryDexService, symbols: string[]): DexService {
  return { ...svc, listMarkets: () => svc.listMarkets().filter((m) => symbols.includes(m.symbol)) };
}

/** Resolves once `f` holds, asking every `everyMs`; throws after `timeoutMs`. */
export async function waitFor(
  what: string,
  f: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs: number,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
