// The clock every service reads time through (the matcher core takes time as an argument; services take a
// Clock). Wall-clock milliseconds, as Date.now(). The composition root passes `systemClock`; a test passes
// its own: `{ now: () => t }`. Timers (setTimeout, setInterval) stay real.

export interface Clock {
  /** milliseconds since the Unix epoch */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
