// `npm run bench`: every benchmark, one after the other, even when one fails (a FAIL of one goal must not
// hide the others' figures); exits 1 at the end if any failed, naming them.
import { spawnSync } from "node:child_process";

const BENCHES = ["bench:gas", "bench:matcher", "bench:e2e", "bench:api", "bench:bridge", "bench:restart"];
const failed = [];
for (const name of BENCHES) {
  const r = spawnSync("npm", ["run", "--silent", name], { stdio: "inherit" });
  if (r.status !== 0) failed.push(`${name} (exit ${r.status ?? r.signal})`);
}
console.log(failed.length ? `bench: failed: ${failed.join(", ")}` : "bench: all passed");
process.exit(failed.length ? 1 : 0);
