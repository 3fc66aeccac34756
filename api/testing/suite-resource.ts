// A resource a test suite shares (a server, a harness), for the suite's top level: started before its tests,
// stopped after them.
import { after, before } from "node:test";

/** Starts the resource before the suite's tests and copies its fields onto the returned object (filled in
 *  then, so a test reads them), runs `ready` on it, and stops it after the tests. One `before` hook: node 20
 *  runs a file's top-level hooks at once, so whatever must follow the start goes in `ready`. */
export function suiteResource<T extends object>(
  start: () => Promise<T>,
  stop: (r: T) => unknown,
  ready: (r: T) => Promise<void> = async () => {},
): T {
  const r = {} as T;
  let started = false;
  before(async () => {
    Object.assign(r, await start());
    started = true;
    await ready(r);
  });
  after(async () => {
    if (started) await stop(r);
  });
  return r;
}
