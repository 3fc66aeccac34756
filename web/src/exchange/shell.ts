// The exchange app's frame, shared by every page: the header (navigation, session), the page's heading and
// body, the timers and clean-ups of the page on screen (ended when the route changes), and the small pieces
// every page uses (loading and error lines, scrollable tables, the login guard).
import { h, replace } from "../dom";
import { currentSession, logout, type Rail } from "./api";
import { explain } from "./model";

export interface WebConfig {
  mode: "sandbox" | "production";
}

/** What the pages share: the server's mode, the rails (navigation), and the route's sequence number. */
export const app: { config: WebConfig; rails: Rail[]; seq: number } = {
  config: { mode: "production" },
  rails: [],
  seq: 0,
};

/** Whether the page started at route `seq` is still the one on screen (a late answer is dropped otherwise). */
export const onScreen = (seq: number) => seq === app.seq;

const nav = h("nav", { class: "ex-nav", "aria-label": "Exchange" });
const sessionArea = h("div", { class: "wallet-area", id: "session" });
export const main = h("main", { id: "main", class: "ex-main" });

/** Puts the frame into #app. */
export function mountFrame(root: HTMLElement): void {
  root.append(
    h(
      "header",
      { class: "top" },
      h("h1", {}, h("a", { href: "#/assets", class: "brand" }, "Exchange")),
      nav,
      sessionArea,
      h("a", { href: "/", class: "other-app" }, "DEX trading app"),
    ),
    main,
  );
}

/** timers and clean-ups of the page on screen; run when the route changes */
let leaving: (() => void)[] = [];

export function every(ms: number, f: () => void): void {
  const t = setInterval(f, ms);
  leaving.push(() => clearInterval(t));
}

export function onLeave(f: () => void): void {
  leaving.push(f);
}

export function leavePage(): void {
  for (const f of leaving) f();
  leaving = [];
}

const LINKS: [string, string][] = [
  ["#/assets", "Assets"],
  ["#/portfolio", "Portfolio"],
  ["#/transactions", "Transactions"],
  ["#/account", "Account"],
];

export function renderHeader(route: string): void {
  replace(
    nav,
    h(
      "ul",
      {},
      LINKS.map(([href, label]) =>
        h("li", {}, h("a", { href, "aria-current": route.startsWith(href.slice(1)) ? "page" : null }, label)),
      ),
    ),
  );
  const s = currentSession();
  const out = () => {
    logout();
    location.hash = "#/login";
  };
  replace(
    sessionArea,
    s
      ? [
          h("span", { class: "who" }, `Logged in as ${s.phone}`),
          h("button", { type: "button", id: "logout", onclick: out }, "Log out"),
        ]
      : h("a", { href: "#/login", class: "login-link" }, "Log in"),
  );
}

/** The page frame: its heading (focused on arrival, for screen readers and keyboards) and body. */
export function page(title: string, ...body: (Node | string | null)[]): HTMLElement {
  const heading = h("h2", { id: "page-h", tabindex: "-1" }, title);
  replace(main, heading, ...body);
  heading.focus({ preventScroll: true });
  return heading;
}

/** A table that may scroll sideways on a phone: a focusable, labelled region, so keyboards can scroll it. */
export const scroller = (label: string, table: HTMLElement) =>
  h("div", { class: "scroller", tabindex: "0", role: "region", "aria-label": label }, table);
export const loading = (what: string) => h("p", { class: "loading", role: "status" }, `Loading ${what}…`);
export const errorBox = (err: unknown) => h("p", { class: "error", role: "alert" }, explain(err));

/** A table's head row of column titles. */
export const headRow = (titles: string[]) =>
  h(
    "thead",
    {},
    h(
      "tr",
      {},
      titles.map((t) => h("th", { scope: "col" }, t)),
    ),
  );

/** One term and its value in a figures list (<dl>). */
export const fact = (term: string, value: Node | string, id?: string) =>
  h("div", {}, h("dt", {}, term), h("dd", id ? { id } : {}, value));

/** Replaces a panel's error line (one at a time) with this one. */
export function alertIn(el: HTMLElement, err: unknown): void {
  el.querySelector(".error")?.remove();
  el.append(errorBox(err));
}

export function requireLogin(): boolean {
  if (currentSession()) return true;
  location.hash = `#/login?next=${encodeURIComponent(location.hash.slice(1))}`;
  return false;
}

export const categoryLabel = (id: string) =>
  app.rails.flatMap((r) => r.categories).find((c) => c.id === id)?.label ?? id;
export const changeClass = (n: number | null | undefined) =>
  n === null || n === undefined || n === 0 ? "" : n > 0 ? "up" : "down";
