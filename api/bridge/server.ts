// The bridge API's own listener ({bridge_url}, port 3002 by default from config/).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createBridgeApp, type BridgeAppDeps } from "./app";

export interface RunningBridgeApi {
  url: string;
  port: number;
  server: Server;
  stop(): Promise<void>;
}

export async function startBridgeApi(deps: BridgeAppDeps & { port: number; host?: string }): Promise<RunningBridgeApi> {
  const server = createServer(createBridgeApp(deps));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(deps.port, deps.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${deps.host ?? "127.0.0.1"}:${port}`;
  return {
    url,
    port,
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
