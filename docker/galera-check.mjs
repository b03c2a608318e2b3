// The per-node check HAProxy asks before sending connections to a Galera node (as Percona's
// clustercheck does): HTTP 200 while the node is Synced (wsrep_local_state 4), ready and in the
// primary component; 503 otherwise, or when it does not answer within a second.
// Run beside each node from the app image: node galera-check.mjs <listen port> <node host> [node port]
import { createServer } from 'node:http';
import { createConnection } from 'mysql2/promise';

const [listenPort = '9200', host = '127.0.0.1', port = '3306'] = process.argv.slice(2);
// A standalone script beside the database, not part of the service: it has no src/config.
// eslint-disable-next-line no-restricted-syntax
const user = process.env.CHECK_USER ?? 'root';
// eslint-disable-next-line no-restricted-syntax
const password = process.env.CHECK_PASSWORD ?? '';

async function synced() {
  const conn = await createConnection({ host, port: Number(port), user, password, connectTimeout: 1000 });
  try {
    const [rows] = await conn.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state', 'wsrep_ready', 'wsrep_cluster_status')",
    );
    const s = Object.fromEntries(rows.map((r) => [r.Variable_name, r.Value]));
    return s.wsrep_local_state === '4' && s.wsrep_ready === 'ON' && s.wsrep_cluster_status === 'Primary';
  } finally {
    await conn.end().catch(() => undefined);
  }
}

createServer((_req, res) => {
  synced().then(
    (ok) => {
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(ok ? 'synced\n' : 'not synced\n');
    },
    (err) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end(`unreachable: ${err.message}\n`);
    },
  );
}).listen(Number(listenPort));
