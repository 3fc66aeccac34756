// The white-labelled tenant portal: one page per hostname, branded server-side from the tenant's
// configuration (name, colours, logo text), whose script loads the chains from GET /api/tenant, starts
// transfers with POST /api/v1/transfer/initiate and follows them with GET /api/v1/transfer/:id, sending
// the capability the initiation returned (X-Transfer-Token; kept in this tab's sessionStorage only).
import { TRANSFER_TOKEN_HEADER } from "./access";
import type { TenantConfig } from "./tenants";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function renderPortal(t: TenantConfig, hostname: string): string {
  const b = t.branding;
  const tokens = t.chains.find((c) => c.role === "home")?.tokens ?? [];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(t.name)} · Bridge</title>
<style>
  :root { --primary: ${b.primaryColor}; --accent: ${b.accentColor}; --bg: ${b.backgroundColor}; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 system-ui, sans-serif; background: var(--bg); color: #1d2330; }
  header { background: var(--primary); color: #fff; padding: 18px 28px; display: flex; align-items: center; gap: 16px; }
  .logo { background: var(--accent); color: var(--primary); font-weight: 800; border-radius: 10px; padding: 8px 12px; letter-spacing: .04em; }
  header h1 { font-size: 22px; margin: 0; } header p { margin: 0; opacity: .85; }
  main { display: grid; grid-template-columns: 1fr 1fr; gap: 20px; padding: 24px 28px; max-width: 1100px; }
  section { background: #fff; border-radius: 12px; padding: 18px; box-shadow: 0 1px 3px #0002; border-top: 4px solid var(--accent); }
  h2 { margin: 0 0 12px; font-size: 17px; color: var(--primary); }
  label { display: block; margin: 8px 0 3px; font-size: 13px; color: #555; }
  input, select { width: 100%; padding: 7px 9px; border: 1px solid #ccd; border-radius: 7px; font: inherit; }
  button { margin-top: 12px; background: var(--primary); color: #fff; border: 0; border-radius: 8px; padding: 9px 16px; font: inherit; cursor: pointer; }
  table { width: 100%; border-collapse: collapse; font-size: 13px; } td { padding: 4px 6px; border-bottom: 1px solid #eee; word-break: break-all; }
  .badge { display: inline-block; background: var(--accent); color: var(--primary); border-radius: 999px; padding: 2px 10px; font-weight: 700; }
  pre { white-space: pre-wrap; word-break: break-all; font-size: 12px; background: #f5f6fa; padding: 8px; border-radius: 6px; max-height: 220px; overflow: auto; }
</style></head>
<body data-tenant="${esc(t.tenantId)}" data-hostname="${esc(hostname)}">
<header><div class="logo" id="logo">${esc(b.logoText)}</div><div><h1 id="tenant-name">${esc(t.name)}</h1><p>${esc(b.tagline)}</p></div>
<div style="margin-left:auto"><span class="badge" id="mode">signing: ${esc(t.mpcMode)}</span></div></header>
<main>
  <section><h2>Chains</h2><table id="chains"><tr><td>loading…</td></tr></table></section>
  <section><h2>New transfer</h2>
    <form id="transfer-form">
      <label>Direction</label><select name="direction"><option value="deposit">Deposit (home → remote, mint)</option><option value="withdrawal">Withdrawal (burn → release)</option></select>
      <label>Token</label><select name="token">${tokens.map((x) => `<option>${esc(x.symbol)}</option>`).join("")}</select>
      <label>Amount (base units)</label><input name="amount" value="1000000" inputmode="numeric">
      <label>Sender</label><input name="sender" placeholder="0x…">
      <label>Recipient</label><input name="recipient" placeholder="0x…">
      <button type="submit">Initiate</button>
    </form>
    <pre id="calls"></pre>
  </section>
  <section style="grid-column: 1 / span 2"><h2>Transfer status</h2>
    <form id="status-form"><label>Transfer id</label><input name="id" placeholder="uuid">
      <label>Access token (returned at initiation)</label><input name="token" placeholder="43 characters" autocomplete="off"><button type="submit">Track</button></form>
    <table id="status"></table>
  </section>
</main>
<script>
(function () {
  var host = document.body.dataset.hostname;
  function row(k, v) { return "<tr><td>" + k + "</td><td>" + (v == null ? "–" : String(v).replace(/</g, "&lt;")) + "</td></tr>"; }
  fetch("/api/tenant?hostname=" + encodeURIComponent(host)).then(function (r) { return r.json(); }).then(function (t) {
    var html = "";
    (t.chains || []).forEach(function (c) {
      html += row("<b>" + c.name + "</b> (" + c.chainId + ", " + c.role + ")", Object.keys(c.contracts).map(function (k) { return k + " " + c.contracts[k]; }).join("<br>"));
    });
    document.getElementById("chains").innerHTML = html;
  });
  var timer, tokenHeader = ${JSON.stringify(TRANSFER_TOKEN_HEADER)};
  function tokenOf(id) { try { return sessionStorage.getItem("bridge-transfer-" + id) || ""; } catch (e) { return ""; } }
  function track(id, token) {
    clearInterval(timer);
    var headers = {};
    headers[tokenHeader] = token || tokenOf(id);
    var show = function () {
      fetch("/api/v1/transfer/" + encodeURIComponent(id), { headers: headers }).then(function (r) { return r.json(); }).then(function (t) {
        if (t.error) { document.getElementById("status").innerHTML = row("error", t.error.code + ": " + t.error.message); return; }
        var h = row("status", "<span class=badge>" + t.status + "</span>") + row("direction", t.direction) + row("amount", t.amount);
        Object.keys(t.timestamps).forEach(function (k) { h += row(k, t.timestamps[k]); });
        Object.keys(t.txHashes).forEach(function (k) { h += row(k + " tx", t.txHashes[k]); });
        document.getElementById("status").innerHTML = h;
      });
    };
    show(); timer = setInterval(show, 2000);
  }
  document.getElementById("transfer-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var f = new FormData(e.target), body = {};
    f.forEach(function (v, k) { body[k] = v; });
    fetch("/api/v1/transfer/initiate", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { return r.json(); }).then(function (res) {
        document.getElementById("calls").textContent = JSON.stringify(res, null, 2);
        if (res.transfer) {
          try { sessionStorage.setItem("bridge-transfer-" + res.transfer.id, res.accessToken); } catch (e) {}
          document.querySelector("#status-form [name=id]").value = res.transfer.id;
          document.querySelector("#status-form [name=token]").value = res.accessToken;
          track(res.transfer.id, res.accessToken);
        }
      });
  });
  document.getElementById("status-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var f = new FormData(e.target);
    track(f.get("id"), f.get("token"));
  });
})();
</script>
</body></html>`;
}

export function renderUnknownTenant(hostname: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unknown bridge</title></head><body style="font-family:system-ui;padding:40px">
<h1>No bridge here</h1><p>No bridge tenant is configured for <code>${esc(hostname)}</code>.</p></body></html>`;
}
