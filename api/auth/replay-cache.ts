// Remembers every accepted signature for at least twice the allowed clock skew, so one signature is used
// once. Two generations rotated every 2 x window: O(1) inserts, memory bounded by the traffic of 4 windows.
import { systemClock, type Clock } from "../../runtime/clock";

export class ReplayCache {
  private current = new Set<string>();
  private previous = new Set<string>();
  private rotatedAtMs: number;

  constructor(
    private readonly windowMs: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.rotatedAtMs = clock.now();
  }

  /** True when `id` was not seen (and records it); false for a replay. */
  firstUse(id: string, nowMs: number = this.clock.now()): boolean {
    if (nowMs - this.rotatedAtMs >= 2 * this.windowMs) {
      this.previous = nowMs - this.rotatedAtMs >= 4 * this.windowMs ? new Set() : this.current;
      this.current = new Set();
      this.rotatedAtMs = nowMs;
    }
    if (this.current.has(id) || this.previous.has(id)) return false;
    this.current.add(id);
    return true;
  }
}
