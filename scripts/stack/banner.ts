// The block `npm start` prints once everything is up: every URL, address and demo credential.
import { redactUrl } from "../chain/external-chain";
import type { RunningStack } from "./start-stack";
import { DEMO_DEPOSIT_WHOLE_TOKENS } from "./seed";

export function formatBanner(stack: RunningStack, healthUrl: string): string {
  const { config, chains, deployments } = stack;
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(28)} ${value}`);
  lines.push("", "=== on-chain exchange: running ===", "");
  lines.push("Chains (JSON-RPC; ours keep their state in the data dir, an external node is the operator's)");
  const chainRow = (name: string, c: RunningStack["chains"]["home"]) =>
    row(
      `${name} (chain ${c.chainId})`,
      c.external ? `external node ${redactUrl(c.rpcUrl)}` : `${c.rpcUrl}  ${c.wsUrl}`,
    );
  chainRow("home ", chains.home);
  chainRow("remote", chains.remote);
  lines.push("", "Services");
  row("health", healthUrl);
  for (const c of stack.components) {
    if (!c.handle) {
      row(c.name, `NOT UP (retried in the background; /health tells): ${c.error}`);
      continue;
    }
    for (const [label, url] of Object.entries(c.handle.urls ?? {})) row(`${c.name} ${label}`, url);
    for (const [label, value] of Object.entries(c.handle.info ?? {})) row(`${c.name} ${label}`, value);
  }
  lines.push("", "Contracts");
  for (const side of ["home", "remote"] as const) {
    for (const [name, address] of Object.entries(deployments[side].contracts)) row(`${name} (${side})`, address);
    for (const [symbol, t] of Object.entries(deployments[side].tokens))
      row(`${symbol} (${side}, ${t.decimals} dp)`, t.address);
  }
  lines.push("", "Accounts (Hardhat's public dev keys unless overridden: never use them with real funds)");
  row("deployer / admin", `${config.keys.deployer.address}  (its key: the provisioning step only)`);
  row("operator", `${config.keys.operator.address}  ${config.keys.operator.privateKey}`);
  row("fee recipient", config.keys.feeRecipient.address);
  row("relayer", `${config.keys.relayer.address}  ${config.keys.relayer.privateKey}`);
  const deposits = Object.entries(deployments.home.tokens)
    .filter(([symbol]) => DEMO_DEPOSIT_WHOLE_TOKENS[symbol] !== undefined)
    .map(([symbol]) => `${DEMO_DEPOSIT_WHOLE_TOKENS[symbol].toLocaleString("en-US")} ${symbol}`)
    .join(" + ");
  row(
    "integrator (yours)",
    `${config.keys.integrator.address}  ${config.keys.integrator.privateKey}  (the examples' and web app's default; the simulator never trades it)`,
  );
  config.keys.demoTraders.forEach((k, i) =>
    row(`demo trader ${i + 1}`, `${k.address}  ${k.privateKey}  (the simulator's)`),
  );
  if (deposits && deployments.home.contracts.Settlement)
    lines.push(`  (the integrator and each demo trader start with ${deposits} deposited in Settlement)`);
  lines.push(
    "",
    `Data dir: ${config.dataDir} (deployments: ${config.deploymentsFile}); \`npm start -- --reset\` starts afresh.`,
  );
  lines.push(
    `Started in ${Object.entries(stack.timingsMs)
      .map(([k, v]) => `${k} ${v} ms`)
      .join(", ")}. Ctrl-C stops everything.`,
  );
  lines.push(...nextSteps(stack, healthUrl), "");
  return lines.join("\n");
}

/** The banner's last lines: the examples' variables for the ports in use, and the commands to try. */
export function nextSteps(stack: Pick<RunningStack, "config" | "chains">, healthUrl: string): string[] {
  const { config, chains } = stack;
  const metricsUrl = healthUrl.replace(/\/health$/, "/metrics");
  const vars = [
    `DEX_API_URL=${config.urls.dexRest.replace(/\/v1$/, "")}`,
    `DEX_WS_URL=${config.urls.dexWs}`,
    `DEX_GRPC_ADDRESS=${config.urls.grpc}`,
    `BRIDGE_API_URL=${config.urls.bridgeApi}`,
    `HOME_RPC_URL=${chains.home.external ? redactUrl(chains.home.rpcUrl) : chains.home.rpcUrl}`,
    `REMOTE_RPC_URL=${chains.remote.external ? redactUrl(chains.remote.rpcUrl) : chains.remote.rpcUrl}`,
  ];
  return [
    "",
    "Next steps (in another terminal; the variables match the ports in use):",
    `  export ${vars.join(" \\\n         ")}`,
    "  npx tsx examples/create-api-key.ts            # an API key for demo trader 1's wallet",
    "  SIDE=buy SIZE=0.01 npx tsx examples/place-signed-order.ts   # a wallet-signed order (PRICE=... to choose)",
    "  UPDATES=5 npx tsx examples/subscribe-book.ts   # the WebSocket book",
    "  TOKEN=USD AMOUNT=25 npx tsx examples/bridge-transfer.ts      # a bridge transfer",
    `  buf curl --protocol grpc --http2-prior-knowledge --list-methods http://$DEX_GRPC_ADDRESS`,
    `  curl ${healthUrl}   curl ${metricsUrl}`,
  ];
}
