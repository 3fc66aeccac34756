// The wallet's transfers: from the server for the connected wallet (a signed read: the wallet signs once,
// the page keeps the signature until it expires and sends it with every read), merged with what this
// browser knows of the transfers it started (their capability and the transactions sent before the API
// knew them, in localStorage). A fresh browser shows the same history after one signature.
import { WALLET_READ_HEADERS, walletReadMessage } from "./messages";
import type { HistoryEntry, Portal, TransferView, Wallet } from "./types";

/** A signed read as the page keeps and sends it. */
export interface WalletReadAuth {
  address: string;
  validUntil: string;
  signature: string;
}

/** How long the page asks a signed read to be valid for, and how early before its end it asks for a new one. */
const READ_VALID_MS = 24 * 3600_000;
const READ_RENEW_MS = 10 * 60_000;

export class TransferHistory {
  /** the server's list for the connected wallet, by id (empty until read) */
  private server = new Map<string, HistoryEntry>();
  private read: WalletReadAuth | undefined;

  constructor(
    private readonly p: Portal,
    private readonly host: string,
  ) {}

  private localKey = () => `bridge-portal:${this.host}:${this.p.tenant.tenantId}`;
  private readKey = (address: string) =>
    `bridge-portal-read:${this.host}:${this.p.tenant.tenantId}:${address.toLowerCase()}`;

  /** The transfers this browser started (newest first). */
  local(): HistoryEntry[] {
    try {
      return JSON.parse(localStorage.getItem(this.localKey()) ?? "[]") as HistoryEntry[];
    } catch {
      return [];
    }
  }

  save(entry: HistoryEntry): void {
    const list = this.local().filter((e) => e.id !== entry.id);
    list.unshift(entry);
    try {
      localStorage.setItem(this.localKey(), JSON.stringify(list.slice(0, 50)));
    } catch {
      /* private mode: the transfer still runs, it is just not remembered here (the server lists it) */
    }
  }

  /** The transfer as both sides know it: the server's fields, this browser's capability and sent hashes. */
  entry(id: string): HistoryEntry | undefined {
    const mine = this.local().find((e) => e.id === id);
    const listed = this.server.get(id);
    if (!mine) return listed;
    return listed ? { ...listed, ...mine, status: listed.status } : mine;
  }

  /** The wallet's transfers, newest first: the server's list and any this browser started that it lacks. */
  forWallet(address: string | undefined): HistoryEntry[] {
    const ids = new Set(this.server.keys());
    const local = this.local().filter((e) => !address || e.sender.toLowerCase() === address.toLowerCase());
    const all = [...this.server.values(), ...local.filter((e) => !ids.has(e.id))].map((e) => this.entry(e.id) ?? e);
    return all.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  }

  /** The headers of the connected wallet's signed read (none before it signed). */
  readHeaders(): Record<string, string> {
    if (!this.read) return {};
    return {
      [WALLET_READ_HEADERS.address]: this.read.address,
      [WALLET_READ_HEADERS.validUntil]: this.read.validUntil,
      [WALLET_READ_HEADERS.signature]: this.read.signature,
    };
  }

  /** The wallet's signed read: the one kept in this browser while valid, else a new one it signs now. */
  async authorize(wallet: Wallet): Promise<void> {
    this.server.clear();
    this.read = undefined;
    const key = this.readKey(wallet.address);
    try {
      const kept = JSON.parse(localStorage.getItem(key) ?? "null") as WalletReadAuth | null;
      if (kept && Date.parse(kept.validUntil) - Date.now() > READ_RENEW_MS) {
        this.read = kept;
        return;
      }
    } catch {
      /* a damaged entry: sign again */
    }
    const validUntil = new Date(Date.now() + READ_VALID_MS).toISOString();
    const signature = await wallet.signMessage(walletReadMessage(this.p.tenant.tenantId, wallet.address, validUntil));
    this.read = { address: wallet.address, validUntil, signature };
    try {
      localStorage.setItem(key, JSON.stringify(this.read));
    } catch {
      /* private mode: the next visit signs again */
    }
  }

  get authorized(): boolean {
    return this.read !== undefined;
  }

  /** Reads the wallet's transfers from the server (`get` is the page's API call). */
  async refresh(get: (path: string, headers: Record<string, string>) => Promise<{ transfers: TransferView[] }>) {
    if (!this.read) return;
    const { transfers } = await get("/api/v1/transfers", this.readHeaders());
    this.server = new Map(transfers.map((v) => [v.id, this.fromView(v)]));
  }

  private fromView(v: TransferView & { timestamps: Record<string, string | null> }): HistoryEntry {
    const token = this.p.home.tokens.find((t) => t.address.toLowerCase() === v.token.toLowerCase());
    return {
      id: v.id,
      direction: v.direction,
      symbol: token?.symbol ?? v.token,
      amount: v.amount,
      decimals: token?.decimals ?? 0,
      sender: v.sender,
      recipient: v.recipient,
      at: v.timestamps.initiatedAt ?? new Date(0).toISOString(),
      status: v.status,
    };
  }
}
