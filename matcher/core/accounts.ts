// Each account's open orders (resting and held) as an intrusive list in arrival order: the class lives
// with the other intrusive nodes in order.ts.
export { AccountOrders } from "./order";
