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
  return new SettlementFollower(deps);
}

type RawLog = Omit<Log, "blockNumber" | "logIndex"> & { blockNumber: Hex; logIndex: Hex };

class SettlementFollower implements ChainFollower {
  private next: bigint;
  private readonly selectors: Hex[];
  private running = false;
  private loop: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private prefetched: Promise<{ head: bigint; logs: RawLog[] }> | undefined;

  constructor(private readonly deps: ChainFollowerDeps) {
    this.next = deps.fromBlock;
    this.selectors = deps.abi
      .filter((x): x is AbiEvent => x.type === "event" && deps.eventNames.includes(x.name))
      .map((e) => toEventSelector(e));
  }

  get lastBlock(): bigint {
    return this.next - 1n;
  }

  private async fetchLogs(from: bigint, to: bigint): Promise<RawLog[]> {
    return (await this.deps.client.request({
      method: "eth_getLogs",
      params: [
        {
          address: this.deps.address,
          fromBlock: `0x${from.toString(16)}`,
          toBlock: `0x${to.toString(16)}`,
          topics: [this.selectors],
        },
      ],
    })) as unknown as RawLog[];
  }

  private async apply(logs: RawLog[], live: boolean): Promise<void> {
    for (const log of logs) {
      let decoded;
      try {
        decoded = decodeEventLog({ abi: this.deps.abi, data: log.data, topics: log.topics });
      } catch {
        continue; // an event this ABI does not know (e.g. OpenZeppelin role events it does know; fine)
      }
      await this.deps.onEvent(
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

  private async readUpTo(head: bigint, live: boolean): Promise<void> {
    while (this.next <= head) {
      const to = this.next + CHUNK - 1n < head ? this.next + CHUNK - 1n : head;
      await this.apply(await this.fetchLogs(this.next, to), live);
      this.next = to + 1n;
    }
  }

  prefetch(): void {
    if (this.prefetched) return;
    const from = this.next;
    this.prefetched = (async () => {
      const head = await this.deps.client.getBlockNumber({ cacheTime: 0 });
      const logs: RawLog[] = [];
      for (let at = from; at <= head; at += CHUNK)
        logs.push(...(await this.fetchLogs(at, at + CHUNK - 1n < head ? at + CHUNK - 1n : head)));
      return { head, logs };
    })();
    this.prefetched.catch(() => undefined); // the catchUp that takes it sees the failure
  }

  async catchUp(): Promise<bigint> {
    if (this.prefetched) {
      const taken = this.prefetched;
      this.prefetched = undefined;
      const { head, logs } = await taken;
      await this.apply(logs, false);
      if (head >= this.next) this.next = head + 1n;
      return head;
    }
    const head = await this.deps.client.getBlockNumber({ cacheTime: 0 });
    await this.readUpTo(head, false);
    return head;
  }

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          const head = await this.deps.client.getBlockNumber({ cacheTime: 0 });
          await this.readUpTo(head, true);
        } catch (e) {
          this.deps.onError?.(e);
        }
        await new Promise<void>((r) => {
          this.wake = r;
          this.timer = setTimeout(r, this.deps.pollMs ?? 50);
        });
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
  }
}
