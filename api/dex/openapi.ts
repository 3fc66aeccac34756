// OpenAPI 3.1 document of the DEX REST API, generated from the route declarations and the very zod
// schemas that validate the requests (z.toJSONSchema, JSON Schema 2020-12 = OpenAPI 3.1's dialect).
import { z, type ZodType } from "zod";
import type { RouteAuth, RouteSpec } from "./route-kit";
import { errorResponse } from "./schemas";

const toSchema = (s: ZodType, io: "input" | "output") => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
};

const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  public: [],
  hmac_only: [{ hmacKey: [], hmacTimestamp: [], hmacSignature: [] }],
  wallet_only: [{ walletAddress: [], walletTimestamp: [], walletSignature: [] }],
  key_or_wallet: [
    { apiKey: [], apiSecret: [] },
    { hmacKey: [], hmacTimestamp: [], hmacSignature: [] },
    { walletAddress: [], walletTimestamp: [], walletSignature: [] },
  ],
  order: [{ apiKey: [], apiSecret: [] }, { hmacKey: [], hmacTimestamp: [], hmacSignature: [] }, {}],
};

function parameters(spec: RouteSpec) {
  const out: Record<string, unknown>[] = [];
  for (const [where, schema] of [
    ["path", spec.params],
    ["query", spec.query],
  ] as const) {
    if (!schema) continue;
    const js = toSchema(schema, "input") as {
      properties?: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === "path" || (js.required ?? []).includes(name),
        schema: prop,
        ...(typeof prop.description === "string" ? { description: prop.description } : {}),
      });
    }
  }
  return out;
}

const rateLimitHeaders = {
  "X-RateLimit-Limit": { schema: { type: "integer" }, description: "requests allowed in the window" },
  "X-RateLimit-Remaining": { schema: { type: "integer" }, description: "requests left in the window" },
  "X-RateLimit-Reset": { schema: { type: "integer" }, description: "Unix time (s) the window resets" },
};

export function buildOpenApiDocument(specs: readonly RouteSpec[], serverUrl = "/") {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const s of specs) {
    const op: Record<string, unknown> = {
      summary: s.summary,
      operationId: `${s.method}${s.path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : ""))}`,
      security: SECURITY[s.auth],
      parameters: parameters(s),
      responses: Object.fromEntries(
        Object.entries(s.responses).map(([code, r]) => [
          code,
          {
            description: r.description,
            headers: { ...rateLimitHeaders, ...r.headers },
            ...(r.schema ? { content: { "application/json": { schema: toSchema(r.schema, "output") } } } : {}),
          },
        ]),
      ),
    };
    if (s.body) {
      op.requestBody = { required: true, content: { "application/json": { schema: toSchema(s.body, "input") } } };
      // api/json-only.ts: a body sent as anything but application/json is refused before the route
      (op.responses as Record<string, unknown>)["415"] ??= {
        description: "the body is not sent as application/json (UNSUPPORTED_MEDIA_TYPE); nothing is done",
        headers: rateLimitHeaders,
        content: { "application/json": { schema: toSchema(errorResponse, "output") } },
      };
    }
    (paths[s.path] ??= {})[s.method] = op;
  }
  const header = (name: string, description: string) => ({ type: "apiKey", in: "header", name, description });
  return {
    openapi: "3.1.0",
    info: {
      title: "DEX API",
      version: "1.0.0",
      description:
        "Order book DEX REST API (spec 4.B, 4.C). Errors: {error:{code,message,details}}. Money: spec numbers computed from exact integers; amounts that can exceed 2^53 as decimal strings.",
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        apiKey: header("X-API-Key", "API key (spec 5.3)"),
        apiSecret: header("X-API-Secret", "API secret (spec 5.3)"),
        hmacKey: header("X-API-KEY", "API key (spec 5.2)"),
        hmacTimestamp: header("X-TIMESTAMP", "Unix ms; at most 5 s from server time"),
        hmacSignature: header(
          "X-SIGNATURE",
          "hex HMAC-SHA256(secret, timestamp + METHOD + path-with-query + raw body)",
        ),
        walletAddress: header("X-Wallet-Address", "the wallet"),
        walletTimestamp: header("X-Wallet-Timestamp", "Unix ms; at most 60 s from server time"),
        walletSignature: header(
          "X-Wallet-Signature",
          "EIP-191 signature (65 bytes, low s, v 27 or 28) of timestamp + METHOD + host + path-with-query + raw body; host = the Host header sent, e.g. api.example.com or 127.0.0.1:3001; each signature is accepted once",
        ),
      },
    },
  };
}
