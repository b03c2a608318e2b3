import { CONNECTORS_PAGE_PATH, QUEUE_DASHBOARD_PATH } from './admin-paths.js';

/**
 * The connectors page: one HTML document and its script, served as files of their own (the
 * page's Content-Security-Policy allows scripts from the same origin only, never inline ones).
 * The script reads `/admin/connectors/api` every 2 seconds (how often workers report their binds) and builds
 * the table with textContent, so a connector's name or an SMSC's error text is never markup.
 */
export const CONNECTORS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SMSC links · bulk-messaging</title>
<link rel="icon" href="data:,">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
  header { display: flex; gap: 1.5rem; align-items: baseline; padding: .8rem 1.5rem; background: #24292f; color: #fff; }
  header h1 { font-size: 1.1rem; margin: 0; }
  header a { color: #9ecbff; }
  #updated { margin-left: auto; color: #c9d1d9; font-size: .85rem; }
  main { padding: 1rem 1.5rem; }
  table { border-collapse: collapse; width: 100%; background: #fff; box-shadow: 0 1px 2px #0002; }
  th, td { text-align: left; padding: .45rem .7rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
  th { font-weight: 600; background: #eaeef2; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .state { display: inline-block; padding: .1rem .5rem; border-radius: 1rem; font-size: .8rem; font-weight: 600; }
  .bound { background: #dafbe1; color: #116329; }
  .partly { background: #fff8c5; color: #7d4e00; }
  .unbound { background: #ffebe9; color: #a40e26; }
  .disabled, .idle { background: #eaeef2; color: #57606a; }
  .error { color: #a40e26; }
  .muted { color: #57606a; }
  #problem { color: #a40e26; }
</style>
</head>
<body>
<header>
  <h1>SMSC links</h1>
  <a href="${QUEUE_DASHBOARD_PATH}">Queues</a>
  <span id="updated">loading…</span>
</header>
<main>
  <p id="problem" hidden></p>
  <table>
    <thead><tr>
      <th>Connector</th><th>Bind</th><th>Workers bound</th><th>In flight / window</th><th>Queued</th>
      <th>Sent/s</th><th>TPS cap</th><th>Last error</th><th>URL</th>
    </tr></thead>
    <tbody id="rows"><tr><td colspan="9" class="muted">loading…</td></tr></tbody>
  </table>
</main>
<script src="${CONNECTORS_PAGE_PATH}/page.js"></script>
</body>
</html>
`;

export const CONNECTORS_PAGE_SCRIPT = `'use strict';
(function () {
  var REFRESH_MS = 2000;
  function cell(text, cls) {
    var td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }
  function state(c) {
    if (!c.enabled) return ['disabled', 'disabled'];
    if (c.workers === 0) return ['no worker', 'idle'];
    if (c.bound === c.workers) return ['bound', 'bound'];
    return c.bound === 0 ? ['unbound', 'unbound'] : ['partly bound', 'partly'];
  }
  function ago(iso) {
    var s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    return s < 90 ? s + ' s ago' : s < 5400 ? Math.round(s / 60) + ' min ago' : new Date(iso).toISOString();
  }
  function render(connectors) {
    var rows = document.getElementById('rows');
    rows.textContent = '';
    if (connectors.length === 0) {
      var tr = document.createElement('tr');
      var td = cell('No connector: add one with npm run cli -- connectors add, or set SMPP_URL.', 'muted');
      td.colSpan = 9;
      tr.appendChild(td);
      rows.appendChild(tr);
    }
    connectors.forEach(function (c) {
      var tr = document.createElement('tr');
      tr.dataset.connector = c.name;
      tr.appendChild(cell(c.name));
      var st = state(c);
      var badge = document.createElement('span');
      badge.className = 'state ' + st[1];
      badge.textContent = st[0];
      var td = document.createElement('td');
      td.appendChild(badge);
      tr.appendChild(td);
      tr.appendChild(cell(c.bound + ' of ' + c.workers, 'num'));
      tr.appendChild(cell(c.in_flight + ' / ' + c.window, 'num'));
      tr.appendChild(cell(String(c.queued), 'num'));
      tr.appendChild(cell(String(c.sent_per_second), 'num'));
      tr.appendChild(cell(c.tps ? String(c.tps) : 'unlimited', 'num'));
      tr.appendChild(
        c.last_error ? cell(c.last_error + ' (' + ago(c.last_error_at) + ')', 'error') : cell('none', 'muted'),
      );
      tr.appendChild(cell(c.url, 'muted'));
      rows.appendChild(tr);
    });
  }
  function refresh() {
    fetch('${CONNECTORS_PAGE_PATH}/api', { cache: 'no-store' })
      .then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      })
      .then(function (body) {
        render(body.connectors);
        document.getElementById('problem').hidden = true;
        document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
      })
      .catch(function (err) {
        var p = document.getElementById('problem');
        p.hidden = false;
        p.textContent = 'Could not read the connectors: ' + err.message;
      })
      .finally(function () {
        setTimeout(refresh, REFRESH_MS);
      });
  }
  refresh();
})();
`;
