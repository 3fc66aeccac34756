// The simulated market's agents are investors the eligibility registry knows from the stack's provisioning on,
// before any component starts (so the simulator's replay trades the restricted books at once), with the facts
// the exchange API's compliance sync keeps: the sync then has nothing to write for them, and a restart records
// nothing again.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { Address } from "viem";
import { createComplianceClient } from "../../api/exchange/compliance/client";
import { recordInvestorFacts, sandboxAgentInvestors, sandboxAgents } from "../../api/exchange/compliance/sync";
import { rpcCall } from "../chain";
import { recordAgentInvestors } from "./agents-registry";
import { exchangeApiComponent } from "./components/exchange-api";
import { createTestConfig, startStack } from ".";
import type { Component, StackContext } from "./types";

test("sandbox agents: the demo traders in the sandbox, none in production", async () => {
  const { config } = await createTestConfig(fs.mkdtempSync(path.join(os.tmpdir(), "agents-registry-unit-")));
  assert.deepEqual(
    sandboxAgents(config),
    config.keys.demoTraders.map((k) => k.address),
  );
  assert.ok(sandboxAgents(config).length >= 2);
  assert.deepEqual(sandboxAgents({ ...config, mode: "production" }), []);
});

test("provisioning records the agents in the registry before any component starts, as the compliance sync would", {
  timeout: 240_000,
}, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "agents-registry-"));
  const { config } = await createTestConfig(dataDir);
  let seen: { known: boolean[]; syncWouldWrite: boolean[]; complianceNonce: number; again: number } | undefined;
  // the first component to start: the exchange API's provisioning has run, nothing has started yet
  const probe: Component = {
    name: "probe",
    provision: exchangeApiComponent.provision,
    async start(ctx: StackContext) {
      const registry = ctx.deployments.home.contracts.EligibilityRegistry as Address;
      const client = createComplianceClient({
        chainId: ctx.chains.home.chainId,
        rpcUrl: ctx.chains.home.rpcUrl,
        complianceKey: ctx.config.keys.compliance.privateKey,
        registry,
      });
      const agents = sandboxAgentInvestors(sandboxAgents(ctx.config));
      const facts = await Promise.all(agents.map((a) => client.investor(a.address)));
      const known = facts.map((f, i) => JSON.stringify(f) === JSON.stringify(agents[i]!.facts));
      const complianceNonce = Number(
        await rpcCall<string>(ctx.chains.home.rpcUrl, "eth_getTransactionCount", [client.address, "latest"]),
      );
      // the sync's own investor job: it finds each agent recorded with its facts and writes nothing
      const syncWouldWrite = await Promise.all(agents.map((a) => recordInvestorFacts(client, a)));
      seen = { known, syncWouldWrite, complianceNonce, again: await recordAgentInvestors(ctx) };
      return { stop: async () => {} };
    },
  };
  const stack = await startStack({ config, components: [probe], onComponentError: "fail" });
  try {
    const n = sandboxAgents(config).length;
    assert.deepEqual(seen?.known, Array(n).fill(true), "every agent known, verified 506c and non-US");
    assert.equal(seen?.complianceNonce, n, "one record each, signed by the compliance key");
    assert.deepEqual(seen?.syncWouldWrite, Array(n).fill(false), "the compliance sync has nothing to write");
    assert.equal(seen?.again, 0, "a restart records nothing again");
  } finally {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
