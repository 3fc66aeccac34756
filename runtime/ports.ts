// A free TCP port, for listeners whose URL must be known before they start (a child process told its
// port, a stack's config). Another process may take it between this check and the listen, which callers
// that can should avoid by listening on port 0 themselves.
//
// The port is drawn at random from below the OS's ephemeral range (Linux: ip_local_port_range, usually
// 32768-60999), not from it: a port the OS hands out for "listen on 0" or for an outgoing connection is
// from that range, so a port picked there can be taken by a Hardhat node started on port 0 (or any client
// socket) before its owner listens on it. That happened in CI: a stack's chain proxy found its port taken
// by its own node. Where the range cannot be read, the OS picks (listen on 0).
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

const LOWEST = 10_000;

function ephemeralLow(): number | null {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1_000 ? low : null;
  } catch {
    return null;
  }
}

function tryListen(port: number, host: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (e: NodeJS.ErrnoException) =>
      e.code === "EADDRINUSE" || e.code === "EACCES" ? resolve(null) : reject(e),
    );
    server.listen(port, host, () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

export async function freePort(host = "127.0.0.1"): Promise<number> {
  const low = ephemeralLow();
  if (low !== null) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = LOWEST + Math.floor(Math.random() * (low - LOWEST));
      const bound = await tryListen(port, host);
      if (bound !== null) return bound;
    }
  }
  return (await tryListen(0, host))!;
}
