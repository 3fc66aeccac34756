// The pure matching engine: commands in, events out. See types.ts for the command and event shapes.
export { MatchingEngine, type EngineOptions } from "./engine";
export { EventCollector, NULL_SINK } from "./collector";
export { takeSnapshot, restoreSnapshot, type EngineSnapshot } from "./snapshot";
export { ORDER_TYPE_RULES, orderTypeRule, validatePlace, type OrderTypeRule } from "./validate";
export * from "./types";

import { MatchingEngine, type EngineOptions } from "./engine";

/** Factory form of `new MatchingEngine(options)`. */
export function createMatchingEngine(options: EngineOptions): MatchingEngine {
  return new MatchingEngine(options);
}
