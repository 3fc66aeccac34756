// /ws: each browser socket gets its own socket to the DEX WebSocket; messages relayed both ways (a few
// early messages held until the upstream is open).
import type http from "node:http";
import { WebSocket, WebSocketServer } from "ws";
import type { WebServerOptions } from "./server";

export function relayWebSockets(server: http.Server, to: WebServerOptions["upstream"]): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on("upgrade", (req, socket, head) => {
    if (new URL(req.url ?? "/", "http://web.local").pathname !== "/ws") return socket.destroy();
    wss.handleUpgrade(req, socket, head, (client) => {
      const upstream = new WebSocket(to.dexWs, {
        maxPayload: 16 * 1024 * 1024,
        localAddress: to.localAddress,
        headers: { "x-forwarded-for": req.socket.remoteAddress ?? "" },
      });
      const pending: { data: unknown; binary: boolean }[] = [];
      client.on("message", (data, binary) => {
        if (upstream.readyState === WebSocket.OPEN) upstream.send(data as Buffer, { binary });
        else if (pending.length < 64) pending.push({ data, binary });
        else client.close(1013, "feed not ready");
      });
      upstream.on("open", () => {
        for (const m of pending.splice(0)) upstream.send(m.data as Buffer, { binary: m.binary });
      });
      upstream.on("message", (data, binary) => {
        if (client.readyState === WebSocket.OPEN) client.send(data as Buffer, { binary });
      });
      const end = () => {
        if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING)
          client.close(1011, "feed closed");
        if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING)
          upstream.terminate();
      };
      upstream.on("close", end);
      upstream.on("error", end);
      client.on("close", end);
      client.on("error", end);
    });
  });
  return wss;
}
