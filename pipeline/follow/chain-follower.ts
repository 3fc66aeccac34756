// Follows the Settlement contract's events with viem (eth_getLogs polling from a known block): deposits,
// withdrawal requests / cancellations / executions, on-chain order cancellations, agents and fees. The
// first `catchUp` reads history up to the head; `start` then polls for new blocks. `prefetch` lets a start
// fetch that history (chain round trips) while it does other work, and apply it later, in order.
import {
  decodeEventLog,
  toEventSelector,
  type Abi,
  type AbiEvent,
  type Address,
  type Hex,
  type Log,
  type PublicClient,
} from "viem";

export interface SettlementEvent {
  name: string;
  args: Record<string, unknown>;
  blockNumber: bigint;
  logIndex: number;
}

export interface ChainFollowerDeps {
  client: PublicClient;
  address: Address;
  abi: Abi;
  fromBlock: bigint;
  /** only these events are fetched (BatchSettled, a batch's trades, is the bulk of the logs and the
   *  pipeline does not need it) */
  eventNames: readonly string[];
  pollMs?: number;
  onEvent(e: SettlementEvent, live: boolean): Promise<void> | void;
  onError?(e: unknown): void;
}

export interface ChainFollower {
  /** Starts reading the logs up to the current head now without applying them: the next catchUp applies
   *  them (a failed read fails that catchUp). */
  prefetch(): void;
  /** Processes every event up to the current head (the prefetched head, when prefetch ran); returns it. */
  catchUp(): Promise<bigint>;
  start(): void;
  stop(): Promise<void>;
  readonly lastBlock: bigint;
}

const CHUNK = 5_000n;

export function createChainFollower(deps: ChainFollowerDeps): ChainFollower {
  let next = deps.fromBlock;
  const selectors: Hex[] = deps.abi
    .filter((x): x is AbiEvent => x.type === "event" && deps.eventNames.includes(x.name))
    .map((e) => toEventSelector(e));
  let running = false;
  let loop: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  type RawLog = Omit<Log, "blockNumber" | "logIndex"> & { blockNumber: Hex; logIndex: Hex };
  let prefetched: Promise<{ head: bigint; logs: RawLog[] }> | undefined;

  const fetchLogs = async (from: bigint, to: bigint): Promise<RawLog[]> =>
    (await deps.client.request({
      method: "eth_getLogs",
      params: [
        {
          address: deps.address,
          fromBlock: `0x${from.toString(16)}`,
          toBlock: `0x${to.toString(16)}`,
          topics: [selectors],
        },
      ],
    })) as unknown as RawLog[];

  async function apply(logs: RawLog[], live: boolean): Promise<void> {
    for (const log of logs) {
      let decoded;
      try {
        decoded = decodeEventLog({ abi: deps.abi, data: log.data, topics: log.topics });
      } catch {
        continue; // an event this ABI does not know (e.g. OpenZeppelin role events it does know; fine)
      }
      await deps.onEvent(
        {
          name: String(decoded.eventName),
          args: (decoded.args ?? {}) as Record<string, unknown>,
          blockNumber: BigInt(log.blockNumber),
          logIndex: Number(log.logIndex),
        },
        live,
      );
    }
  }

  async function readUpTo(head: bigint, live: boolean): Promise<void> {
    while (next <= head) {
      const to = next + CHUNK - 1n < head ? next + CHUNK - 1n : head;
      await apply(await fetchLogs(next, to), live);
      next = to + 1n;
    }
  }

  return {
    get lastBlock() {
      return next - 1n;
    },
    prefetch() {
      if (prefetched) return;
      const from = next;
      prefetched = (async () => {
        const head = await deps.client.getBlockNumber({ cacheTime: 0 });
        const logs: RawLog[] = [];
        for (let at = from; at <= head; at += CHUNK)
          logs.push(...(await fetchLogs(at, at + CHUNK - 1n < head ? at + CHUNK - 1n : head)));
        return { head, logs };
      })();
      prefetched.catch(() => undefined); // the catchUp that takes it sees the failure
    },
    async catchUp() {
      if (prefetched) {
        const taken = prefetched;
        prefetched = undefined;
        const { head, logs } = await taken;
        await apply(logs, false);
        if (head >= next) next = head + 1n;
        return head;
      }
      const head = await deps.client.getBlockNumber({ cacheTime: 0 });
      await readUpTo(head, false);
      return head;
    },
    start() {
      running = true;
      loop = (async () => {
        while (running) {
          try {
            const head = await deps.client.getBlockNumber({ cacheTime: 0 });
            await readUpTo(head, true);
          } catch (e) {
            deps.onError?.(e);
          }
          await new Promise<void>((r) => {
            wake = r;
            timer = setTimeout(r, deps.pollMs ?? 50);
          });
        }
      })();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      wake?.();
      await loop;
    },
  };
}
