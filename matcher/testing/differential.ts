// The differential check: a matching engine and the naive reference engine (naive-engine.ts) must emit
// the same events, command by command, and show the same depth after each command.
import assert from "node:assert/strict";
import type { Command, EngineEvent, MarketConfig } from "../core/types";
import { NaiveEngine } from "./naive-engine";

/** What the comparison needs of the engine under test (MatchingEngine, or a copy of it built elsewhere). */
export interface EngineUnderTest {
  apply(cmd: Command): EngineEvent[];
  getDepth(symbol: string, levels: number): unknown;
}

/** Throws an AssertionError naming the first command on which `engine` and the naive engine differ. */
export function assertSameAsNaive(engine: EngineUnderTest, markets: MarketConfig[], cmds: Command[]): void {
  const naive = new NaiveEngine(markets);
  for (const [i, cmd] of cmds.entries()) {
    assert.deepEqual(engine.apply(cmd), naive.apply(cmd), `command #${i} ${JSON.stringify(cmd)}`);
    for (const m of markets)
      assert.deepEqual(engine.getDepth(m.symbol, 100), { symbol: m.symbol, ...naive.depth(m.symbol) });
  }
}
