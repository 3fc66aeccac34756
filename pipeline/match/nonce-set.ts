// A trader's used nonces as sorted runs of consecutive values: a wallet counting its orders up (or the
// API-key allocator, dense from 2^63) is one run, not one Set entry per order ever. Restoring it from a
// snapshot costs the number of runs, not the number of orders (issue #13: a restart that does not grow
// with history); has / add / delete are a binary search plus, rarely, an array splice.

export class NonceSet {
  /** starts[i]..ends[i] (inclusive) is a run; runs are sorted, disjoint and never adjacent */
  private readonly starts: bigint[] = [];
  private readonly ends: bigint[] = [];

  /** From the runs' text ("start+count" or "start", comma-separated; see `runs()`), in any order. */
  static fromRuns(text: string): NonceSet {
    const s = new NonceSet();
    if (text === "") return s;
    for (const run of text.split(",")) {
      const [start, count] = run.split("+");
      const first = BigInt(start);
      const n = BigInt(count ?? "1");
      if (n < 1n) throw new Error(`nonce run ${run}: count below 1`);
      s.addRun(first, first + n - 1n);
    }
    return s;
  }

  static of(values: Iterable<bigint>): NonceSet {
    const s = new NonceSet();
    for (const v of values) s.add(v);
    return s;
  }

  /** index of the last run starting at or below n, else -1 */
  private find(n: bigint): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid] <= n) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at;
  }

  has(n: bigint): boolean {
    const i = this.find(n);
    return i >= 0 && this.ends[i] >= n;
  }

  add(n: bigint): void {
    this.addRun(n, n);
  }

  /** Adds first..last (inclusive), merging with every run it touches or overlaps. */
  private addRun(first: bigint, last: bigint): void {
    // runs i..j-1 overlap or touch [first, last]
    let i = this.find(first - 1n);
    if (i < 0 || this.ends[i] < first - 1n) i += 1;
    let j = i;
    while (j < this.starts.length && this.starts[j] <= last + 1n) j++;
    if (i === j) {
      this.starts.splice(i, 0, first);
      this.ends.splice(i, 0, last);
      return;
    }
    const start = this.starts[i] < first ? this.starts[i] : first;
    const end = this.ends[j - 1] > last ? this.ends[j - 1] : last;
    this.starts.splice(i, j - i, start);
    this.ends.splice(i, j - i, end);
  }

  delete(n: bigint): boolean {
    const i = this.find(n);
    if (i < 0 || this.ends[i] < n) return false;
    const start = this.starts[i];
    const end = this.ends[i];
    if (start === end) {
      this.starts.splice(i, 1);
      this.ends.splice(i, 1);
    } else if (n === start) this.starts[i] = n + 1n;
    else if (n === end) this.ends[i] = n - 1n;
    else {
      this.ends[i] = n - 1n;
      this.starts.splice(i + 1, 0, n + 1n);
      this.ends.splice(i + 1, 0, end);
    }
    return true;
  }

  /** how many runs (what memory and the snapshot hold) */
  get runCount(): number {
    return this.starts.length;
  }

  /** "start+count" (or "start" for a run of one), comma-separated, ascending. */
  runs(): string {
    const out: string[] = [];
    for (let i = 0; i < this.starts.length; i++) {
      const count = this.ends[i] - this.starts[i] + 1n;
      out.push(count === 1n ? this.starts[i].toString() : `${this.starts[i]}+${count}`);
    }
    return out.join(",");
  }
}
