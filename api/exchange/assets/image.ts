// Asset images (spec 2.2 `image`): a small SVG badge per asset, generated from its symbol and category,
// served by the API itself (GET /v1/assets/{id}/image). Only catalogue text reaches the SVG, and it is
// escaped anyway; the response forbids scripts and sniffing.
import type { AssetCategory, CatalogueAsset } from "./catalogue";

const COLORS: Readonly<Record<AssetCategory, string>> = {
  stocks: "#1f6feb",
  "fixed-income": "#2f855a",
  commodities: "#b7791f",
  forex: "#0e7490",
  privates: "#6b46c1",
  "pre-ipo": "#c53030",
  crypto: "#4a5568",
};

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);

export function assetSvg(a: Pick<CatalogueAsset, "symbol" | "name" | "category">): string {
  const label = escapeXml(a.symbol.slice(0, 6));
  const size = label.length <= 3 ? 26 : label.length <= 4 ? 21 : 16;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${escapeXml(a.name)}">` +
    `<circle cx="32" cy="32" r="32" fill="${COLORS[a.category]}"/>` +
    `<text x="32" y="32" dy="0.35em" text-anchor="middle" font-family="Helvetica,Arial,sans-serif" font-weight="700" font-size="${size}" fill="#fff">${label}</text>` +
    `</svg>`
  );
}

/** Headers of an image response: a day of caching, no script, no sniffing. */
export const IMAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "image/svg+xml; charset=utf-8",
  "Cache-Control": "public, max-age=86400",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
  "X-Content-Type-Options": "nosniff",
};
