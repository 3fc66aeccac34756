// A chain fixture (pipeline/testing/fixture.ts) and an empty data dir for one test that starts its own pipeline.
import { startFixture, type Fixture, type FixtureOptions } from "../../pipeline/testing/fixture";
import { withTempDir } from "./temp-dir";

/** Runs `fn` over a fresh fixture and a temporary data dir named `prefix`…; stops the fixture, then removes the dir,
 *  whatever `fn` does. */
export async function withPipelineFixture<T>(
  o: FixtureOptions,
  prefix: string,
  fn: (f: Fixture, dataDir: string) => Promise<T>,
): Promise<T> {
  const f = await startFixture(o);
  return withTempDir(prefix, async (dataDir) => {
    try {
      return await fn(f, dataDir);
    } finally {
      await f.stop();
    }
  });
}
