// Each account's open orders (resting and held) as an intrusive list in arrival order:
// O(1) to add and remove, in order for cancel-all and for reads.
import type { Order } from "./order";

export class AccountOrders {
  account: string;
  head: Order | null = null;
  tail: Order | null = null;
  count = 0;
  constructor(account: string) {
    this.account = account;
  }
}
