// listenDexRest: the server's requests and responses are born with the express app's own request and response
// prototypes, so express's Object.setPrototypeOf of every request sets the prototype each already has (a
// changed prototype would give every request a new hidden class in V8).
import { test } from "node:test";
import assert from "node:assert/strict";
import { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import { listenDexRest } from "./app";

test("the REST server's requests and responses are born with the app's prototypes and keep them", async () => {
  const app = express();
  const seen: { born: [object | null, object | null]; handled?: [object | null, object | null] } = {
    born: [null, null],
  };
  app.get("/v1/echo", (req, res) => {
    seen.handled = [Object.getPrototypeOf(req), Object.getPrototypeOf(res)];
    assert.ok(req instanceof IncomingMessage && res instanceof ServerResponse);
    res.json({ path: req.path, query: req.query });
  });
  const http = await listenDexRest(app, 0);
  // runs before the app: what node:http made, before express touched it
  http.server.prependListener("request", (req, res) => {
    seen.born = [Object.getPrototypeOf(req), Object.getPrototypeOf(res)];
  });
  try {
    const res = await fetch(`${http.url}/echo?a=1`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { path: "/v1/echo", query: { a: "1" } });
    assert.equal(seen.born[0], app.request, "request born with app.request as its prototype");
    assert.equal(seen.born[1], app.response, "response born with app.response as its prototype");
    assert.deepEqual(seen.handled, seen.born, "express changed no prototype");
  } finally {
    await http.close();
  }
});
