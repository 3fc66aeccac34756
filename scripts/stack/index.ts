export {
  startStack,
  type RunningStack,
  type StartStackOptions,
  type HealthReport,
  type ComponentStatus,
} from "./start-stack";
export { startHealthServer, type HealthServer } from "./health";
export { defaultComponents, indexerComponent } from "./components";
export { readDeployments, writeDeployments, type Deployments, type ChainDeployment } from "./deployments";
export { DEMO_DEPOSIT_WHOLE_TOKENS, type SeededBalance } from "./seed";
export { ensureCompiled } from "./compile";
export type { Component, ComponentHandle, ComponentHealth, StackContext, StackChains } from "./types";
export { createTestConfig } from "./test-config";
export { bridgeComponent } from "./components/bridge";
