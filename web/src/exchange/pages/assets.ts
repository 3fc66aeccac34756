// #/assets?rail=&category=&q=: the catalogue by rail, category and search, 50 at a time.
import { h, replace } from "../../dom";
import { publicRead, type AssetPage, type AssetSummary } from "../api";
import { dateTimeOf, imagePath, pct, usd } from "../model";
import { app, categoryLabel, changeClass, errorBox, headRow, loading, onScreen, page } from "../shell";

interface Filters {
  rail: string;
  category: string;
  q: string;
}

/** Goes to the list with these filters changed (empty ones left out of the hash). */
function goTo(f: Filters, changes: Partial<Filters>): void {
  const p = new URLSearchParams({ ...f, ...changes });
  for (const k of [...p.keys()]) if (!p.get(k)) p.delete(k);
  const s = p.toString();
  location.hash = `#/assets${s ? `?${s}` : ""}`;
}

function filterForm(f: Filters): HTMLElement {
  const railSel = h("select", { id: "rail", name: "rail" }) as HTMLSelectElement;
  railSel.append(
    h("option", { value: "" }, "All rails"),
    ...app.rails.map((r) => h("option", { value: r.id, selected: r.id === f.rail }, r.label)),
  );
  const catSel = h("select", { id: "category", name: "category" }) as HTMLSelectElement;
  const cats = (f.rail ? app.rails.filter((r) => r.id === f.rail) : app.rails).flatMap((r) => r.categories);
  catSel.append(
    h("option", { value: "" }, "All categories"),
    ...cats.map((c) => h("option", { value: c.id, selected: c.id === f.category }, c.label)),
  );
  const search = h("input", {
    type: "search",
    id: "search",
    name: "q",
    value: f.q,
    autocomplete: "off",
    placeholder: "symbol or name",
  }) as HTMLInputElement;
  railSel.addEventListener("change", () => goTo(f, { rail: railSel.value, category: "" }));
  catSel.addEventListener("change", () => goTo(f, { category: catSel.value }));
  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Find assets" },
    h("div", { class: "field" }, h("label", { for: "rail" }, "Rail"), railSel),
    h("div", { class: "field" }, h("label", { for: "category" }, "Category"), catSel),
    h("div", { class: "field grow" }, h("label", { for: "search" }, "Search"), search),
    h("button", { type: "submit" }, "Search"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    goTo(f, { q: search.value.trim() });
  });
  return form;
}

export async function assetsPage(params: URLSearchParams): Promise<void> {
  const seq = app.seq;
  const f: Filters = {
    rail: params.get("rail") ?? "",
    category: params.get("category") ?? "",
    q: params.get("q") ?? "",
  };
  const list = h("div", { id: "asset-list", "aria-live": "polite" }, loading("assets"));
  page("Assets", filterForm(f), list);

  const query = new URLSearchParams();
  if (f.rail) query.set("marketRail", f.rail);
  if (f.category) query.set("category", f.category);
  if (f.q) query.set("search", f.q);
  query.set("limit", "50");
  const rows: AssetSummary[] = [];
  const more = async (cursor: string | null) => {
    if (cursor) query.set("cursor", cursor);
    try {
      const { body: r, staleSince } = await publicRead<AssetPage>(`/assets?${query}`);
      if (!onScreen(seq)) return;
      rows.push(...r.data);
      const next = r.nextCursor;
      replace(
        list,
        staleSince
          ? h(
              "p",
              { class: "stale", id: "assets-stale", role: "status" },
              h("strong", {}, "Stale: "),
              `prices are the last known, as of ${dateTimeOf(staleSince)}; market data is not updating right now.`,
            )
          : null,
        assetTable(rows, f.q),
        next ? h("button", { type: "button", id: "more-assets", onclick: () => void more(next) }, "Show more") : null,
      );
    } catch (err) {
      if (onScreen(seq)) replace(list, errorBox(err));
    }
  };
  await more(null);
}

function assetRow(a: AssetSummary): HTMLElement {
  const img = imagePath(a.image);
  const reference = a.priceSource === "reference";
  return h(
    "tr",
    { "data-asset-id": a.id },
    h(
      "td",
      {},
      h(
        "a",
        { href: `#/asset/${encodeURIComponent(a.id)}`, class: "asset-link" },
        img ? h("img", { src: img, alt: "", width: 24, height: 24 }) : null,
        h("span", { class: "sym" }, a.symbol),
        " ",
        h("span", { class: "name" }, a.name),
      ),
      a.tradeable ? null : h("span", { class: "badge" }, "not tradeable"),
    ),
    h("td", {}, categoryLabel(a.type)),
    h("td", {}, reference ? `${usd(a.price)} (offering)` : usd(a.price)),
    h("td", { class: changeClass(a.changesPercentage) }, reference ? "—" : pct(a.changesPercentage)),
  );
}

function assetTable(rows: AssetSummary[], q: string): Node {
  if (rows.length === 0)
    return h("p", { class: "empty" }, q ? `No asset matches "${q}".` : "No asset in this category.");
  return h(
    "table",
    { class: "assets" },
    h("caption", { class: "sr-only" }, "Assets"),
    headRow(["Asset", "Category", "Price (USD)", "Change"]),
    h("tbody", {}, rows.map(assetRow)),
  );
}
