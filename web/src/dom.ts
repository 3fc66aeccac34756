// A few lines of DOM building instead of a UI framework (docs/decisions/web.md).
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (k === "class") el.className = String(v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "object" ? c : String(c));
  }
  return el;
}

export function replace(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren(
    ...(children.flat().filter((c) => c !== null && c !== undefined && c !== false) as (Node | string)[]).map((c) =>
      typeof c === "object" ? c : String(c),
    ),
  );
}

let idSeq = 0;
export const uid = (p: string) => `${p}-${++idSeq}`;

/** A labelled form field: <label for> + control + an error line tied by aria-describedby. */
export function field(
  label: string,
  control: HTMLInputElement | HTMLSelectElement,
  hint?: string,
): { wrap: HTMLElement; error: HTMLElement; hint: HTMLElement } {
  const id = control.id || uid("f");
  control.id = id;
  const error = h("p", { class: "field-error", id: `${id}-error`, role: "alert" });
  const hintEl = h("p", { class: "field-hint", id: `${id}-hint` }, hint ?? "");
  control.setAttribute("aria-describedby", `${id}-hint ${id}-error`);
  return {
    wrap: h("div", { class: "field" }, h("label", { for: id }, label), control, hintEl, error),
    error,
    hint: hintEl,
  };
}

/** A table head of column headers. */
export function thead(columns: string[]): HTMLTableSectionElement {
  return h(
    "thead",
    {},
    h(
      "tr",
      {},
      columns.map((c) => h("th", { scope: "col" }, c)),
    ),
  );
}
