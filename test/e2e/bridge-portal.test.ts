// The white-labelled tenant portal in headless Chromium (playwright-core + Debian's /usr/bin/chromium) on
// the stack's bridge (`startStack` with the bridge component: real chains, the 5 FROST signer nodes, the
// custody signer, both relayers): for each tenant's hostname (tenant-a.test native, tenant-b.test custody)
// the page shows its own branding and chains, connects a wallet (tenant A's user: the sandbox development
// wallet; tenant B's: a browser wallet found by EIP-6963), refuses bad amounts in words and sends nothing, then a deposit is signed in the page (approve + deposit + link signature) and
// shown step by step until minted (on tenant A the link is cut once by the network and finished from the
// page), with the wrapped balance on the remote chain equal to the amount; on
// the native tenant a withdrawal's burn is signed in the page and its challenge window shown. Screenshots at
// desktop and phone widths go to test-artifacts/bridge-portal/ (gitignored); axe-core finds no serious or
// critical violation.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CHROMIUM, shootAtWidths, shotsDir } from "../support/web-browser";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";
import {
  assertChainNames,
  DESKTOP,
  freshProfileHistory,
  WAIT,
  watchRefusals,
  withExplorers,
} from "./bridge-portal-checks";

// the page's globals inside page.evaluate / waitForFunction callbacks (this project compiles without the DOM lib)
declare const document: any;
declare const window: any;

const ARTIFACTS = shotsDir("bridge-portal");
const HOSTS = ["tenant-a.test", "tenant-b.test", "nobody.test"];

const shoot = (page: Page, name: string) => shootAtWidths(page, ARTIFACTS, name, { desktop: DESKTOP });

/** Records every rendering of the timeline ("step:state,..."), from now on. */
async function recordTimeline(page: Page): Promise<void> {
  // a string: tsx's transform would wrap named functions in a helper the page does not have
  await page.evaluate(`(() => {
    window.__timeline = [];
    const snap = () => {
      const s = [...document.querySelectorAll("#timeline li")].map((li) => li.dataset.step + ":" + li.dataset.state).join(",");
      if (s && window.__timeline[window.__timeline.length - 1] !== s) window.__timeline.push(s);
    };
    new MutationObserver(snap).observe(document.getElementById("timeline"), { childList: true, subtree: true });
  })()`);
}

const EXTENSION = {
  uuid: "5f4d2c1b-8a9e-4b7c-9d3e-2f1a0b9c8d7e",
  name: "Test Browser Wallet",
  icon: "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'/>",
  rdns: "test.wallet",
};

/** A browser wallet as an extension injects one: an EIP-1193 provider announced by EIP-6963 in every page of
 *  `ctx`, whose requests reach this test process (it holds the key and sends to the chains itself, as an
 *  extension uses its own RPC). `calls` records every method asked. */
async function installExtension(
  ctx: BrowserContext,
  key: Hex,
  rpcUrls: Record<number, string>,
  calls: string[],
): Promise<void> {
  const account = privateKeyToAccount(key);
  let chainId = 31337;
  await ctx.exposeFunction("__testWalletRequest", async (method: string, params: any[]) => {
    calls.push(method);
    const chain = defineChain({
      id: chainId,
      name: `chain ${chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpcUrls[chainId]] } },
    });
    try {
      switch (method) {
        case "eth_requestAccounts":
        case "eth_accounts":
          return { result: [account.address] };
        case "eth_chainId":
          return { result: `0x${chainId.toString(16)}` };
        case "wallet_switchEthereumChain": {
          const wanted = Number(params[0].chainId);
          if (!rpcUrls[wanted]) return { error: { code: 4902, message: "unknown chain" } };
          chainId = wanted;
          return { result: null };
        }
        case "eth_sendTransaction": {
          const tx = params[0];
          const wallet = createWalletClient({ account, chain, transport: http(rpcUrls[chainId]) });
          return {
            result: await wallet.sendTransaction({ to: tx.to, data: tx.data, value: tx.value ? BigInt(tx.value) : 0n }),
          };
        }
        case "personal_sign":
          return { result: await account.signMessage({ message: { raw: params[0] } }) };
        default:
          return {
            result: await createPublicClient({ chain, transport: http(rpcUrls[chainId]) }).request({
              method: method as any,
              params: params as any,
            }),
          };
      }
    } catch (err) {
      return { error: { code: -32603, message: String((err as Error).message ?? err) } };
    }
  });
  await ctx.addInitScript(`(() => {
    const info = Object.freeze(${JSON.stringify(EXTENSION)});
    const provider = {
      request: ({ method, params }) => window.__testWalletRequest(method, params || []).then((r) => {
        if (r.error) throw Object.assign(new Error(r.error.message), { code: r.error.code });
        return r.result;
      }),
      on() {}, removeListener() {},
    };
    const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
    window.addEventListener("eip6963:requestProvider", announce);
    announce();
  })()`);
}

async function formError(page: Page, amount: string): Promise<string> {
  await page.fill("#amount", amount);
  await page.click("#submit");
  await page.waitForFunction(() => !document.getElementById("form-error").hidden, null, { timeout: WAIT });
  return (await page.textContent("#form-error")) ?? "";
}

test("the tenant portal: branding per hostname; a deposit signed in the page, step by step until minted, for both tenants; a withdrawal's challenge window", {
  timeout: 600_000,
  skip: !fs.existsSync(CHROMIUM) && "no /usr/bin/chromium",
}, async (tc) => {
  const t0 = Date.now();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bridge-portal-e2e-"));
  let stack: RunningStack | undefined;
  let browser: Browser | undefined;
  try {
    const { config } = await createTestConfig(dataDir);
    stack = await startStack({ config, components: defaultComponents(["bridge"]), onComponentError: "fail" });
    tc.diagnostic(
      `stack (chains, exchange and bridge contracts, signer nodes, relayers) started in ${Date.now() - t0} ms`,
    );
    const port = config.ports.bridgeApi;
    const remote = createPublicClient({ transport: http(stack.chains.remote.rpcUrl) });
    const home = createPublicClient({ transport: http(stack.chains.home.rpcUrl) });
    const remoteTokens = stack.deployments.remote.tokens;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--host-resolver-rules=${HOSTS.map((h) => `MAP ${h} 127.0.0.1`).join(", ")}`,
      ],
    });

    const extensionCalls: string[] = [];
    const tenants = [
      {
        host: "tenant-a.test",
        name: "Aurora Bridge",
        header: "rgb(29, 63, 184)",
        mode: /native/,
        trader: 0,
        wallet: "dev:0",
        wrapped: remoteTokens.USD.address as Address,
        vault: stack.deployments.home.contracts.BridgeVault,
      },
      {
        host: "tenant-b.test",
        name: "Harbor Custody Bridge",
        header: "rgb(15, 81, 50)",
        mode: /custody/,
        trader: 1,
        wallet: `ext:${EXTENSION.uuid}`,
        wrapped: remoteTokens["USD.custody"].address as Address,
        vault: stack.deployments.home.contracts.CustodyBridgeVault,
      },
    ];
    for (const t of tenants) {
      const started = Date.now();
      const ctx = await browser.newContext({ viewport: DESKTOP });
      // tenant B's user has a browser wallet (EIP-6963), holding demo trader 2's key in this test process
      if (t.wallet.startsWith("ext:"))
        await installExtension(
          ctx,
          config.keys.demoTraders[t.trader].privateKey,
          { 31337: stack.chains.home.rpcUrl, 31338: stack.chains.remote.rpcUrl },
          extensionCalls,
        );
      // tenant A's configuration names a block explorer per chain (tenant B's has none): the page links to it
      if (t.wallet.startsWith("dev:")) await withExplorers(ctx);
      const page = await ctx.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (e) => pageErrors.push(String(e)));
      const refused = watchRefusals(page);
      const initiations: string[] = [];
      page.on("request", (r) => r.url().includes("/transfer/initiate") && initiations.push(r.url()));
      const res = await page.goto(`http://${t.host}:${port}/`);
      assert.equal(res?.status(), 200);
      await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });

      // branding and chains: its own, not the other tenant's
      assert.equal(await page.textContent("#tenant-name"), t.name);
      assert.equal(await page.$eval("header", (el) => window.getComputedStyle(el).backgroundColor), t.header);
      assert.match((await page.textContent("#mode"))!, t.mode);
      const chains = (await page.textContent("#chains"))!.toLowerCase();
      assert.ok(chains.includes(t.vault!.toLowerCase()), `${t.host} lists its own vault`);
      for (const other of tenants.filter((o) => o !== t))
        assert.ok(!chains.includes(other.vault!.toLowerCase()), `${t.host} does not list another tenant's vault`);

      // the development wallet: a demo trader, with the sandbox's bridged funds shown in decimals
      const trader = config.keys.demoTraders[t.trader].address;
      await page.selectOption("#wallet-choice", t.wallet);
      await page.click("#connect");
      await page.waitForFunction((a) => document.getElementById("wallet-address")?.textContent === a, trader, {
        timeout: WAIT,
      });
      await page.waitForFunction(
        () => document.querySelector("[data-balance=home-USD]")?.textContent === "10,000",
        null,
        { timeout: WAIT },
      );
      assert.equal(await page.textContent("[data-balance=remote-USD]"), "0");
      assert.match((await page.textContent("#available"))!, /Available on Sandbox L1: 10,000 USD/);

      // bad amounts: an error in words, and nothing sent (no initiation, no transaction)
      const nonceBefore = await home.getTransactionCount({ address: trader });
      assert.match(await formError(page, "12,5"), /is not an amount/);
      assert.match(await formError(page, "0.0000001"), /USD has 6 decimals/);
      assert.match(await formError(page, "0"), /more than 0/);
      assert.match(await formError(page, "10000.000001"), /more than your balance of 10,000 USD/);
      await page.fill("#recipient", "0x1234");
      assert.match(await formError(page, "1"), /recipient is not an address/);
      await shoot(page, `${t.host}-bad-amount`);
      assert.deepEqual(initiations, [], "a refused amount starts no transfer");
      assert.equal(await home.getTransactionCount({ address: trader }), nonceBefore, "and sends no transaction");
      assert.match((await page.textContent("#history"))!, /No transfers yet/);

      // a deposit of 12.5 USD to the wallet's own address, signed in the page, followed until minted
      await page.fill("#recipient", trader);
      await page.fill("#amount", "12.5");
      await recordTimeline(page);
      if (t.wallet.startsWith("dev:")) {
        // the network drops as the page links the deposit: the transfer waits, and "Link my transaction" finishes it
        await page.route("**/api/v1/transfer/*/complete", (route) => route.abort(), { times: 1 });
        await page.click("#submit");
        await page.waitForFunction(
          () =>
            /The transfer stopped: The bridge cannot be reached/.test(
              document.getElementById("form-error").textContent,
            ),
          null,
          { timeout: WAIT },
        );
        await page.waitForSelector("#finish:not([hidden])", { timeout: WAIT });
        assert.equal(
          await page.getAttribute("#timeline [data-step=seen]", "data-state"),
          "active",
          "not linked: not shown as seen",
        );
        await page.click("#finish");
      } else await page.click("#submit");
      await page.waitForSelector("#timeline [data-step=minted][data-state=done]", { timeout: WAIT });
      assert.equal(await page.getAttribute("#finish", "hidden"), "");
      const timeline = (await page.evaluate(() => window.__timeline)) as string[];
      const order = ["signed", "seen", "finality", "signatures", "minted"];
      const doneCount = (snap: string) => order.findIndex((s) => !snap.includes(`${s}:done`));
      assert.deepEqual(
        timeline[timeline.length - 1].split(",").map((s) => s.split(":")[1]),
        ["done", "done", "done", "done", "done"],
      );
      for (const snap of timeline) {
        const states = snap.split(",").map((s) => s.split(":"));
        assert.deepEqual(
          states.map(([step]) => step),
          order,
          "the steps in order",
        );
        const firstNotDone = states.findIndex(([, state]) => state !== "done");
        if (firstNotDone >= 0)
          assert.ok(
            states.slice(firstNotDone + 1).every(([, state]) => state === "pending"),
            `steps after the current one wait: ${snap}`,
          );
      }
      const counts = timeline.map((s) => (doneCount(s) === -1 ? order.length : doneCount(s)));
      for (let i = 1; i < counts.length; i++)
        assert.ok(counts[i] >= counts[i - 1], `no step goes back: ${timeline.join(" | ")}`);
      assert.ok(
        counts.some((c) => c > 0 && c < order.length),
        `intermediate steps were shown: ${timeline.join(" | ")}`,
      );
      // the status in words; the API's code stays in an attribute
      assert.equal(await page.getAttribute("#transfer-status", "data-status"), "minted");
      assert.equal(await page.textContent("#transfer-status"), "Complete");
      const signatures = (await page.textContent("[data-step=signatures]"))!;
      if (t.mode.source === "native")
        assert.match(signatures, /Threshold signatures.*[3-5] of 5 signer nodes \(3 needed\)/s);
      else assert.match(signatures, /Approved by the custody provider/);
      assert.match((await page.textContent("[data-step=signed]"))!, /approve 0x.*deposit 0x/s);
      assert.equal(
        await remote.readContract({ address: t.wrapped, abi: erc20Abi, functionName: "balanceOf", args: [trader] }),
        12_500_000n,
        "12.5 USD minted on the remote chain",
      );
      await page.waitForFunction(
        () => document.querySelector("[data-balance=remote-USD]")?.textContent === "12.5",
        null,
        { timeout: WAIT },
      );
      assert.equal(await page.textContent("[data-balance=home-USD]"), "9,987.5");
      assert.match((await page.textContent("#history"))!, /Deposit.*12\.5 USD.*Complete/s);
      await assertChainNames(page, t.wallet.startsWith("dev:"));
      await shoot(page, `${t.host}-minted`);

      if (t.mode.source === "native") {
        // a withdrawal: the burn signed in the page, then the challenge window (300 s on the stack) shown
        await page.selectOption("#direction", "withdrawal");
        await page.waitForFunction(
          () => /Available on Sandbox L2: 12.5 USD/.test(document.getElementById("available").textContent),
          null,
          { timeout: WAIT },
        );
        assert.match(await formError(page, "12.6"), /more than your balance of 12\.5 USD/);
        await page.fill("#amount", "2.5");
        await page.click("#submit");
        await page.waitForSelector("#timeline [data-step=challenge][data-state=active]", { timeout: WAIT });
        // the step turns active once the signatures are in; its end shows when the release is queued (a poll later)
        await page.waitForFunction(
          () => /open until .*left/s.test(document.querySelector("[data-step=challenge]")?.textContent ?? ""),
          null,
          { timeout: WAIT },
        );
        assert.match((await page.textContent("[data-step=challenge]"))!, /open until .*left/s);
        assert.equal(await page.getAttribute("#release", "hidden"), "", "no release before the window closes");
        assert.match((await page.textContent("[data-step=signed]"))!, /burn 0x/);
        await page.waitForFunction(
          () => document.querySelector("[data-balance=remote-USD]")?.textContent === "10",
          null,
          { timeout: WAIT },
        );
        assert.match((await page.textContent("#history"))!, /Withdrawal.*2\.5 USD/s);
        await shoot(page, `${t.host}-challenge-window`);
      }
      // the history survives a reload and shows a past transfer's progress again
      await page.reload();
      await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
      await page.selectOption("#wallet-choice", t.wallet);
      await page.click("#connect");
      await page.click("#history [data-follow] >> nth=-1");
      await page.waitForSelector("#timeline [data-step=minted][data-state=done]", { timeout: WAIT });
      assert.deepEqual(pageErrors, [], "no script error on the page");
      assert.deepEqual(refused, [], "no request of the page was refused, none of /portal/rpc");
      await ctx.close();
      tc.diagnostic(`${t.host}: ${Date.now() - started} ms`);
    }

    // the history is the server's: a fresh browser profile for the same wallet lists both transfers and
    // follows one to the end after one signature; another wallet's fresh profile lists none of them
    await freshProfileHistory(browser, `http://tenant-a.test:${port}/`);
    tc.diagnostic(`fresh profiles: ${Date.now() - t0} ms since the start`);

    // the browser wallet was discovered and connected, and it signed both transactions and the link
    for (const m of ["eth_requestAccounts", "eth_sendTransaction", "personal_sign"])
      assert.ok(extensionCalls.includes(m), `the browser wallet was asked ${m}: ${extensionCalls.join(",")}`);
    assert.equal(extensionCalls.filter((m) => m === "eth_sendTransaction").length, 2, "approve and deposit");

    const page = await browser.newPage();
    const unknown = await page.goto(`http://nobody.test:${port}/`);
    assert.equal(unknown?.status(), 404);
    assert.match((await page.textContent("h1"))!, /No bridge here/);
    await page.close();
  } finally {
    await browser?.close();
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
