// Issue #15 (assets and market data) on one whole stack (chains, the asset tokens deployed by the exchange
// API's provisioning, the pipeline, the exchange API, the indexer): demo traders place real signed orders on
// the AAPL-USD book through the pipeline's DexService; the exchange API's quote, chart (every allowed range and
// interval), asset detail (perDay), list price, book and trades agree with those orders and trades. Then the
// catalogue (filters, ranked search, cursor pages), the legacy paths answering as their canonical paths, the
// bad-input table (never a 500), the public rate limit at its boundary, 503 once the indexer is gone, and a
// restart of the whole stack after which every chart range reads the same candles.
import assert from "node:assert/strict";
import http from "node:http";
import { test } from "node:test";
import { createPublicClient, erc20Abi, http as viemHttp, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { settlementAbi } from "../../sdk/abi";
import { dexServiceOf, withTestStack } from "../support/test-stack";
import { waitFor } from "./exchange-session";
import type { DexService, MarketSpec } from "../../pipeline/service";
import { signedPlaceRequest } from "../../pipeline/testing/orders";
import { CATALOGUE, assetTokensToDeploy } from "../../api/exchange/assets/catalogue";
import { CHART_RANGES } from "../../api/exchange/market/figures";
import Ajv2020 from "ajv/dist/2020";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** GETs from a chosen loopback source address (the rate limit is per client IP): 127.0.0.<n>. */
function getFrom(
  ip: string,
  url: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress: ip, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on("error", reject);
  });
}

test("exchange API market data: assets, quote, chart, book and trades from real orders; legacy paths; bad input; limits", {
  timeout: 420_000,
}, async () => {
  await withTestStack(
    "exchange-market-e2e-",
    ["pipeline", "exchange-api", "indexer"],
    async ({ config, stack, restart }) => {
      const api = config.urls.exchangeApi;

      // every request from a loopback address with public budget left: the limit itself is tested at the end
      let host = 10;
      const get = async (p: string) => {
        const r = await getFrom(`127.0.0.${host}`, `${api}${p}`);
        assert.ok(r.status < 500 || r.status === 503, `${p}: ${r.status} ${r.text}`);
        if (Number(r.headers["x-ratelimit-remaining"] ?? 100) < 5) host++;
        return { status: r.status, headers: r.headers, body: JSON.parse(r.text) as Json, text: r.text };
      };

      // 1. the asset tokens are on chain, each demo trader's inventory deposited in Settlement, the books exist
      const home = structuredClone(stack.deployments.home);
      const client = createPublicClient({ transport: viemHttp(config.chains.home.rpcUrl) });
      const traders = config.keys.demoTraders.map((k) => privateKeyToAccount(k.privateKey));
      for (const t of assetTokensToDeploy()) {
        const token = home.tokens[t.symbol];
        assert.ok(token, `${t.symbol} deployed`);
        assert.equal(
          await client.readContract({ address: token.address as Address, abi: erc20Abi, functionName: "symbol" }),
          t.symbol,
        );
        const held = await client.readContract({
          address: home.contracts.Settlement as Address,
          abi: settlementAbi,
          functionName: "balanceOf",
          args: [traders[0].address, token.address as Address],
        });
        assert.equal(held, t.seedWholeUnits * 10n ** BigInt(t.decimals));
      }
      assert.ok(stack.provisioned.includes("assets"));
      const dex: DexService = dexServiceOf(stack);
      const books = dex.listMarkets().map((m) => m.symbol);
      for (const a of CATALOGUE) assert.equal(books.includes(`${a.symbol}-USD`), a.token !== null, a.id);

      // 2. real signed orders on AAPL-USD (tick 0.01 USD, lot 0.001): three trades, a bid and an ask left resting
      const m: MarketSpec = dex.listMarkets().find((x) => x.symbol === "AAPL-USD")!;
      const [seller, buyer] = traders;
      const place = async (who: typeof seller, side: "buy" | "sell", price: string, size: string) => {
        const priceTicks = BigInt(Math.round(Number(price) * 100));
        const sizeLots = BigInt(Math.round(Number(size) * 1000));
        return dex.placeOrder(
          await signedPlaceRequest(who, home.chainId, home.contracts.Settlement as Address, m, {
            side,
            priceTicks,
            sizeLots,
          }),
        );
      };
      assert.equal((await place(seller, "sell", "230.00", "1")).status, "open");
      assert.equal((await place(buyer, "buy", "230.00", "1")).status, "filled"); // trade 1: 1 @ 230, taker buy
      assert.equal((await place(seller, "sell", "231.50", "2")).status, "open");
      assert.equal((await place(buyer, "buy", "231.50", "2")).status, "filled"); // trade 2: 2 @ 231.50, taker buy
      assert.equal((await place(buyer, "buy", "229.00", "0.5")).status, "open");
      assert.equal((await place(seller, "sell", "229.00", "0.5")).status, "filled"); // trade 3: 0.5 @ 229, taker sell
      assert.equal((await place(buyer, "buy", "228.00", "3")).status, "open");
      assert.equal((await place(seller, "sell", "232.00", "0.5")).status, "open");

      // 3. the book and the trades: live, from the pipeline
      const book = await get("/assets/AAPL/book");
      assert.equal(book.status, 200);
      assert.equal(book.body.assetId, "AAPL");
      assert.deepEqual(book.body.asks, [{ price: 232, size: 0.5 }]);
      assert.deepEqual(book.body.bids, [{ price: 228, size: 3 }]);
      assert.ok(Math.abs(Date.parse(book.body.timestamp) - Date.now()) < 600_000);
      const trades = await get("/assets/AAPL/trades");
      assert.deepEqual(
        trades.body.data.map((t: Json) => [t.price, t.size, t.side, t.assetId]),
        [
          [229, 0.5, "sell", "AAPL"],
          [231.5, 2, "buy", "AAPL"],
          [230, 1, "buy", "AAPL"],
        ],
      );
      assert.equal(new Set(trades.body.data.map((t: Json) => t.tradeId)).size, 3);

      // 4. the quote, once the trades are settled and indexed (the lag is measured, never assumed)
      const matchedAt = Date.now();
      const quote = await waitFor("the quote to count the three trades", async () => {
        const q = await get("/assets/AAPL/quote");
        return q.status === 200 && q.body.volume === 3.5 ? q.body : undefined;
      });
      console.log(
        `      quote caught up ${Date.now() - matchedAt} ms after the last match (settle + index + 1 s read cache)`,
      );
      assert.deepEqual(
        { ...quote, timestamp: undefined },
        {
          assetId: "AAPL",
          last: 229,
          open: 230,
          high: 231.5,
          low: 229,
          prevClose: 230,
          change: -1,
          changePercent: -0.4348,
          volume: 3.5,
          priceSource: "trades",
          timestamp: undefined,
        },
      );

      // 5. the chart: every allowed range and interval sums to the same day
      for (const [range, r] of Object.entries(CHART_RANGES)) {
        for (const interval of r.intervals) {
          const c = await get(`/assets/AAPL/chart?range=${range}&interval=${interval}`);
          assert.equal(c.status, 200, `${range}/${interval}: ${c.text}`);
          const candles = c.body.data as Json[];
          assert.ok(candles.length >= 1 && candles.length <= r.maxPoints, `${range}/${interval}: ${candles.length}`);
          assert.deepEqual(
            candles.map((x) => x.time),
            [...candles.map((x) => x.time)].sort((a, b) => a - b),
            "oldest first",
          );
          assert.ok(
            candles.every(
              (x) =>
                x.time %
                  { "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000, "1d": 86_400_000 }[
                    interval as "1m"
                  ] ===
                0,
            ),
          );
          assert.equal(candles[0].open, 230, `${range}/${interval}`);
          assert.equal(candles.at(-1)!.close, 229);
          assert.equal(Math.max(...candles.map((x) => x.high)), 231.5);
          assert.equal(Math.min(...candles.map((x) => x.low)), 229);
          assert.equal(
            candles.reduce((s, x) => s + Math.round(x.volume * 1000), 0),
            3500,
          );
        }
      }
      const defaultChart = await get("/assets/AAPL/chart");
      assert.deepEqual(
        defaultChart.body.data,
        (await get("/assets/AAPL/chart?range=1d&interval=1m")).body.data,
        "default: 1d at 1m",
      );

      // 6. detail with perDay, and the list's price and change from the same trades
      const detail = await get("/assets/AAPL");
      assert.equal(detail.status, 200);
      const d = detail.body.data;
      assert.deepEqual(
        [
          d.id,
          d.symbol,
          d.name,
          d.type,
          d.exchange,
          d.status,
          d.accreditationType,
          d.offeringType,
          d.price,
          d.change,
          d.changesPercentage,
          d.tradeable,
          d.market,
        ],
        [
          "AAPL",
          "AAPL",
          "Apple Inc.",
          "stocks",
          "NASDAQ",
          "APPROVED",
          null,
          "Common stock",
          229,
          -1,
          -0.4348,
          true,
          "AAPL-USD",
        ],
      );
      assert.deepEqual(
        d.marketData.perDay.map((x: Json) => ({ ...x, timestamp: x.timestamp.slice(10) })),
        [{ timestamp: "T00:00:00.000Z", open: 230, high: 231.5, low: 229, close: 229, volume: 3.5 }],
      );
      assert.equal(d.image, `${api}/assets/AAPL/image`);
      const nrth = (await get("/assets/NRTH")).body.data;
      assert.deepEqual(
        [nrth.accreditationType, nrth.regime, nrth.price, nrth.priceSource, nrth.marketData.perDay],
        ["506c", "reg-d", 12, "reference", []],
      );
      const nova = (await get("/assets/NOVA")).body.data;
      assert.deepEqual([nova.tradeable, nova.market, nova.price, nova.change], [false, null, 25, 0]);
      const noBook = await get("/assets/NOVA/book");
      assert.deepEqual([noBook.body.bids, noBook.body.asks], [[], []]);
      const image = await getFrom("127.0.0.200", `${api}/assets/AAPL/image`);
      assert.equal(image.status, 200);
      assert.match(String(image.headers["content-type"]), /^image\/svg\+xml/);
      assert.match(image.text, /^<svg [^>]*>.*AAPL.*<\/svg>$/s);
      assert.equal(image.headers["x-content-type-options"], "nosniff");

      // 7. navigation and the list: filters, ranked search, cursor pages
      const nav = (await get("/navigation")).body;
      assert.deepEqual(
        nav.rails.map((r: Json) => [r.id, r.categories.map((c: Json) => c.id)]),
        [
          ["public", ["stocks", "fixed-income", "commodities", "forex"]],
          ["private", ["privates", "pre-ipo"]],
          ["digital", ["crypto"]],
        ],
      );
      const listAll = (await get("/assets")).body;
      assert.equal(listAll.data.length, CATALOGUE.length);
      assert.equal(listAll.nextCursor, null);
      const aapl = listAll.data.find((a: Json) => a.id === "AAPL");
      assert.deepEqual(
        [aapl.price, aapl.change, aapl.changesPercentage, aapl.status, aapl.type, aapl.exchange],
        [229, -1, -0.4348, "APPROVED", "stocks", "NASDAQ"],
      );
      // no other asset traded: its offering's reference price, numbers on every field (issue 30), as the served
      // OpenAPI document says
      for (const a of listAll.data.filter((x: Json) => x.id !== "AAPL")) {
        const ref = Number(CATALOGUE.find((c) => c.id === a.id)!.referencePrice);
        assert.deepEqual([a.price, a.change, a.changesPercentage, a.priceSource], [ref, 0, 0, "reference"], a.id);
      }
      const doc = (await get("/openapi.json")).body;
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      const conforms = (p: string, body: unknown) => {
        const validate = ajv.compile(doc.paths[p].get.responses["200"].content["application/json"].schema);
        assert.ok(validate(body), `${p}: ${JSON.stringify(validate.errors)}`);
      };
      conforms("/v1/assets", listAll);
      conforms("/v1/assets/{id}", detail.body);
      conforms("/v1/assets/{id}", { data: nrth, message: "asset" });
      const nrthQuote = (await get("/assets/NRTH/quote")).body;
      assert.deepEqual(
        [nrthQuote.last, nrthQuote.prevClose, nrthQuote.changePercent, nrthQuote.priceSource],
        [12, 12, 0, "reference"],
      );
      conforms("/v1/assets/{id}/quote", nrthQuote);
      conforms("/v1/assets/{id}/quote", quote);
      const ids = async (q: string) => (await get(`/assets?${q}`)).body.data.map((a: Json) => a.id);
      assert.deepEqual(await ids("marketRail=digital"), ["WETH", "WBTC"]);
      assert.deepEqual(await ids("category=pre-ipo"), ["AURA", "LMNL", "NOVA"]);
      assert.deepEqual(await ids("category=pre-ipo&tradeable=true"), ["AURA", "LMNL"]);
      assert.deepEqual(await ids("marketRail=public&category=crypto"), []);
      assert.deepEqual(await ids("search=ust"), ["UST10Y", "UST2Y"]);
      assert.deepEqual(await ids("search=Apple"), ["AAPL"]);
      assert.deepEqual(await ids("search=eur"), ["EUR"]);
      const paged: string[] = [];
      let cursor: string | null = "";
      while (cursor !== null) {
        const p: Json = (await get(`/assets?limit=5${cursor ? `&cursor=${cursor}` : ""}`)).body;
        assert.ok(p.data.length <= 5);
        paged.push(...p.data.map((a: Json) => a.id));
        cursor = p.nextCursor;
      }
      assert.deepEqual(
        paged,
        listAll.data.map((a: Json) => a.id),
      );

      // 8. legacy paths answer exactly as their canonical paths
      const same = async (legacy: string, canonical: string, omit?: string) => {
        const [a, b] = [await get(legacy), await get(canonical)];
        assert.equal(a.status, b.status, legacy);
        if (omit) {
          delete a.body[omit];
          delete b.body[omit];
        }
        assert.deepEqual(a.body, b.body, `${legacy} = ${canonical}`);
      };
      await same("/exchange-explorers?category=stocks&limit=2", "/assets?category=stocks&limit=2");
      await same("/exchange-explorers", "/assets");
      await same("/stock-summaries", "/assets?category=stocks");
      await same("/stock-summaries?search=ms", "/assets?category=stocks&search=ms");
      await same("/exchange-assets/AAPL", "/assets/AAPL");
      await same("/exchange-assets/NOPE", "/assets/NOPE");
      await same("/exchange-orderbook?assetId=AAPL", "/assets/AAPL/book", "timestamp");
      await same("/exchange-orderbook/AAPL?depth=1", "/assets/AAPL/book?depth=1", "timestamp");
      await same("/asset-chats?assetId=AAPL&range=5d&interval=15m", "/assets/AAPL/chart?range=5d&interval=15m");
      await same("/asset-chats/AAPL?range=1y", "/assets/AAPL/chart?range=1y");
      await same("/asset-chats?assetId=AAPL&range=1d&interval=1d", "/assets/AAPL/chart?range=1d&interval=1d");

      // 9. the bad-input table: never a 500, the spec's error body, nothing answered for what does not exist
      const cases: [string, number, string][] = [
        ["/assets/NOPE", 404, "ASSET_NOT_FOUND"],
        ["/assets/aapl", 404, "ASSET_NOT_FOUND"],
        ["/assets/NOPE/quote", 404, "ASSET_NOT_FOUND"],
        ["/assets/NOPE/chart", 404, "ASSET_NOT_FOUND"],
        ["/assets/NOPE/book", 404, "ASSET_NOT_FOUND"],
        ["/assets/NOPE/trades", 404, "ASSET_NOT_FOUND"],
        ["/assets/NOPE/image", 404, "ASSET_NOT_FOUND"],
        [`/assets/${"A".repeat(65)}`, 404, "ASSET_NOT_FOUND"],
        [`/assets/${"A".repeat(5000)}/quote`, 404, "ASSET_NOT_FOUND"],
        ["/assets/%00", 404, "ASSET_NOT_FOUND"],
        ["/assets/%E2%80%AE", 404, "ASSET_NOT_FOUND"],
        ["/exchange-orderbook?assetId=NOPE", 404, "ASSET_NOT_FOUND"],
        ["/asset-chats/NOPE?range=1d", 404, "ASSET_NOT_FOUND"],
        ["/assets?marketRail=moon", 400, "INVALID_REQUEST"],
        ["/assets?category=Stocks", 400, "INVALID_REQUEST"],
        ["/assets?tradeable=yes", 400, "INVALID_REQUEST"],
        ["/assets?tradeable=", 400, "INVALID_REQUEST"],
        ["/assets?limit=0", 400, "INVALID_REQUEST"],
        ["/assets?limit=101", 400, "INVALID_REQUEST"],
        ["/assets?limit=-1", 400, "INVALID_REQUEST"],
        ["/assets?limit=1.5", 400, "INVALID_REQUEST"],
        [`/assets?search=${"a".repeat(65)}`, 400, "INVALID_REQUEST"],
        ["/assets?cursor=garbage!", 400, "INVALID_REQUEST"],
        ["/assets?cursor=eyJvIjoxfQ", 400, "INVALID_REQUEST"],
        ["/assets?category=stocks&category=forex", 400, "INVALID_REQUEST"],
        ["/assets?sort=price", 400, "INVALID_REQUEST"],
        ["/assets/AAPL?x=1", 400, "INVALID_REQUEST"],
        ["/assets/AAPL/quote?range=1d", 400, "INVALID_REQUEST"],
        ["/assets/AAPL/chart?range=2d", 400, "INVALID_REQUEST"],
        ["/assets/AAPL/chart?interval=1w", 400, "INVALID_REQUEST"],
        ["/assets/AAPL/chart?range=1d&interval=5m&extra=1", 400, "INVALID_REQUEST"],
        ["/assets/AAPL/book?depth=0", 400, "INVALID_REQUEST"],
        ["/assets/AAPL/book?depth=501", 400, "INVALID_REQUEST"],
        ["/assets/AAPL/book?depth=1e2", 400, "INVALID_REQUEST"],
        ["/assets/AAPL/trades?limit=501", 400, "INVALID_REQUEST"],
        ["/exchange-orderbook", 400, "INVALID_REQUEST"],
        ["/exchange-orderbook/AAPL?assetId=AAPL", 400, "INVALID_REQUEST"],
        ["/stock-summaries?category=forex", 400, "INVALID_REQUEST"],
        ["/navigation?x=1", 400, "INVALID_REQUEST"],
      ];
      for (const [p, status, code] of cases) {
        const r = await get(p);
        assert.equal(r.status, status, `${p}: ${r.text.slice(0, 300)}`);
        assert.equal(r.body.error?.code, code, p);
        assert.equal(typeof r.body.error.message, "string");
        assert.ok(!/at .*\.ts:\d+/.test(r.text), `${p}: no stack trace`);
      }
      // the boundaries one inside
      for (const p of [
        "/assets?limit=100",
        "/assets?limit=1",
        `/assets?search=${"a".repeat(64)}`,
        "/assets?tradeable=false",
        "/assets/AAPL/book?depth=500",
        "/assets/AAPL/book?depth=1",
        "/assets/AAPL/trades?limit=500",
        "/stock-summaries?category=stocks",
        "/assets?search=",
      ]) {
        assert.equal((await get(p)).status, 200, p);
      }
      assert.deepEqual((await get("/assets/AAPL/book?depth=1")).body.bids, [{ price: 228, size: 3 }]);

      // 10. the public tier: 100 per minute per IP, X-RateLimit-* on every answer, the 101st refused; the
      // limit counts market data only (an authenticated path from the same IP is not refused by it)
      const ip = "127.0.0.250";
      for (let i = 1; i <= 100; i++) {
        const r = await getFrom(ip, `${api}${i % 2 ? "/navigation" : "/assets/NOPE"}`);
        assert.equal(r.status, i % 2 ? 200 : 404, `request ${i}`);
        assert.equal(r.headers["x-ratelimit-limit"], "100");
        assert.equal(r.headers["x-ratelimit-remaining"], String(100 - i));
        assert.ok(Number(r.headers["x-ratelimit-reset"]) > Date.now() / 1000 - 1);
      }
      const refused = await getFrom(ip, `${api}/assets/AAPL/quote`);
      assert.equal(refused.status, 429);
      assert.equal(JSON.parse(refused.text).error.code, "RATE_LIMIT_EXCEEDED");
      assert.ok(Number(refused.headers["retry-after"]) >= 1);
      assert.equal(
        (await getFrom(ip, `${api}/account`)).status,
        401,
        "the public budget is not the authenticated endpoints'",
      );

      // every chart range at each of its intervals, the quote (less its computed-at time) and perDay: kept to
      // compare after the restart (12)
      const history = async () => {
        const charts: Record<string, Json[]> = {};
        for (const [range, r] of Object.entries(CHART_RANGES))
          for (const interval of r.intervals)
            charts[`${range}/${interval}`] = (
              await get(`/assets/AAPL/chart?range=${range}&interval=${interval}`)
            ).body.data;
        const { timestamp: _t, ...q } = (await get("/assets/AAPL/quote")).body;
        return {
          charts,
          quote: q,
          perDay: (await get("/assets/AAPL")).body.data.marketData.perDay as Json[],
          day: new Date().toISOString().slice(0, 10),
        };
      };
      const historyBefore = await history();
      assert.ok(Object.values(historyBefore.charts).every((c) => c.length >= 1) && historyBefore.perDay.length === 1);

      // 11. the indexer gone: /health says so (the exchange API's market data is stale), the catalogue, the
      //     quote and the charts already read answer their last known figures marked stale (X-Market-Data-Stale),
      //     a chart never read is 503 (no made-up numbers), the live book still answers
      await stack.components.find((c) => c.name === "indexer")!.handle!.stop();
      // (a read within 1 s may still come from the shared read cache)
      const down = await waitFor(
        "the quote to answer stale",
        async () => {
          const r = await get("/assets/AAPL/quote");
          return r.headers["x-market-data-stale"] ? r : undefined;
        },
        10_000,
      );
      assert.equal(down.status, 200);
      assert.deepEqual({ ...down.body, timestamp: 0 }, { ...historyBefore.quote, timestamp: 0 });
      const staleChart = await get("/assets/AAPL/chart?range=5d");
      assert.deepEqual(
        [staleChart.status, staleChart.body.data, Boolean(staleChart.headers["x-market-data-stale"])],
        [200, historyBefore.charts["5d/5m"], true],
      );
      const staleList = await get("/assets");
      assert.deepEqual(
        [
          staleList.status,
          staleList.body.data.find((a: Json) => a.id === "AAPL").price,
          Boolean(staleList.headers["x-market-data-stale"]),
        ],
        [200, 229, true],
      );
      const neverRead = await get("/assets/MSFT/chart?range=1y&interval=1h");
      assert.deepEqual([neverRead.status, neverRead.body.error?.code], [503, "SERVICE_UNAVAILABLE"]);
      const report = (await stack.health()).components.find((c) => c.name === "exchange-api")!;
      assert.equal(report.ok, false, "health tells the truth");
      assert.match(String(report.detail), /market data: stale since .* \(indexer_unreachable\)/);
      const liveBook = await get("/assets/AAPL/book");
      assert.equal(liveBook.status, 200);
      assert.equal((await get("/navigation")).status, 200);

      // 12. a restart on the same data: the asset tokens are re-used (no provisioning child), the book is back,
      //     and the chart history outlives the processes: the chain replays its journal at the recorded block
      //     times and the indexer resumes from its store in the data dir, so every range reads the same candles
      stack = await restart();
      const historyAfter = await history();
      assert.deepEqual(historyAfter.charts, historyBefore.charts, "every chart range and interval after the restart");
      assert.deepEqual(historyAfter.perDay, historyBefore.perDay, "perDay after the restart");
      // the quote is the UTC day's: compared when both reads fell on the same day
      if (historyAfter.day === historyBefore.day)
        assert.deepEqual(historyAfter.quote, historyBefore.quote, "the quote after the restart");
      assert.deepEqual(stack.provisioned, [], "a restart deploys no asset token again");
      assert.deepEqual(stack.deployments.home.tokens, home.tokens);
      const again = await get("/assets/AAPL/book");
      assert.deepEqual([again.body.bids, again.body.asks], [liveBook.body.bids, liveBook.body.asks]);
      assert.deepEqual((await get("/assets/AAPL/trades")).body.data, trades.body.data);
    },
  );
});
