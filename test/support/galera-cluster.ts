import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { freePort, killOnExit, sleep } from './local-state.js';

const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((p) => existsSync(p)) ?? 'mariadbd';
const PROVIDER = '/usr/lib/galera/libgalera_smm.so';

/** Whether a Galera cluster can run here (Debian's galera-4, rsync, mariadb-server); tests skip loudly without. */
export function galeraAvailable(): boolean {
  return (
    existsSync(PROVIDER) &&
    spawnSync('rsync', ['--version'], { stdio: 'ignore' }).status === 0 &&
    spawnSync('id', ['mysql'], { stdio: 'ignore' }).status === 0
  );
}

export function haproxyAvailable(): boolean {
  return spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
}

function run(cmd: string, args: string[], timeout = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve(`${stdout}\n${stderr}`);
    });
  });
}

async function status(port: number): Promise<Record<string, string>> {
  const conn = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
  try {
    const [rows] = await conn.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state', 'wsrep_cluster_status', 'wsrep_cluster_size')",
    );
    return Object.fromEntries(
      (rows as Array<{ Variable_name: string; Value: string }>).map((r) => [r.Variable_name, r.Value]),
    );
  } finally {
    await conn.end().catch(() => undefined);
  }
}

/** Synced (4), ready and in the primary component: what a balancer may send writes to. */
async function serving(port: number): Promise<boolean> {
  const s = await status(port);
  return s.wsrep_ready === 'ON' && s.wsrep_local_state === '4' && s.wsrep_cluster_status === 'Primary';
}

export interface GaleraNode {
  index: number;
  port: number;
  galeraPort: number;
  istPort: number;
  sstPort: number;
  dir: string;
  proc?: ChildProcess;
}

/**
 * Three MariaDB nodes in one Galera cluster, on free loopback ports, run as the mysql user (an
 * rsync state transfer cannot write a joiner's data directory as root). Each node has its own
 * option file, which the state-transfer scripts read too. A node can be SIGKILLed and started
 * again: it recovers its position first (`--wsrep-recover`) and rejoins by incremental transfer.
 */
export class GaleraCluster {
  private constructor(
    readonly nodes: GaleraNode[],
    private readonly root: string,
  ) {}

  static async start(size = 3): Promise<GaleraCluster> {
    const root = mkdtempSync(join(tmpdir(), 'bm-galera-'));
    chmodSync(root, 0o755);
    const nodes: GaleraNode[] = [];
    for (let i = 0; i < size; i++)
      nodes.push({
        index: i,
        port: await freePort(),
        galeraPort: await freePort(),
        istPort: await freePort(),
        sstPort: await freePort(),
        dir: join(root, `node${i + 1}`),
      });
    const c = new GaleraCluster(nodes, root);
    try {
      // Only the first node is initialised: the others receive its data by state transfer.
      for (const n of nodes) await c.install(n, n.index === 0);
      await c.startNode(nodes[0]!, { bootstrap: true });
      for (const n of nodes.slice(1)) await c.startNode(n);
    } catch (err) {
      await c.destroy();
      throw err;
    }
    return c;
  }

  url(i: number, database: string): string {
    return `mysql://root@127.0.0.1:${this.nodes[i]!.port}/${database}`;
  }

  /** A plain connection to node i (for checks that every node holds the same). */
  connect(i: number, database?: string) {
    return createConnection({
      host: '127.0.0.1',
      port: this.nodes[i]!.port,
      user: 'root',
      database,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
  }

  running(i: number): boolean {
    const p = this.nodes[i]!.proc;
    return !!p && p.exitCode === null && p.signalCode === null;
  }

  /** Whether node i is synced, ready and primary (what the HAProxy check asks). */
  serving(i: number): Promise<boolean> {
    return this.running(i) ? serving(this.nodes[i]!.port).catch(() => false) : Promise.resolve(false);
  }

  async kill(i: number): Promise<void> {
    const n = this.nodes[i]!;
    const p = n.proc;
    n.proc = undefined;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
  }

  /** Starts a stopped node again from its position, so it rejoins by IST; resolves once it is synced. */
  async rejoin(i: number): Promise<void> {
    const n = this.nodes[i]!;
    const out = await run(MARIADBD, [
      `--defaults-file=${this.cnf(n)}`,
      '--wsrep-recover',
      `--log-error=${join(n.dir, 'recover.log')}`,
    ]);
    const log = existsSync(join(n.dir, 'recover.log'))
      ? readFileSync(join(n.dir, 'recover.log'), 'utf8')
      : out;
    const position = /Recovered position:\s*(\S+:-?\d+)/.exec(log)?.[1];
    await this.startNode(n, { position });
  }

  errorLog(i: number, lines = 30): string {
    const file = join(this.nodes[i]!.dir, 'error.log');
    return existsSync(file)
      ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
      : '(no log)';
  }

  async destroy(): Promise<void> {
    for (const n of this.nodes) await this.kill(n.index);
    rmSync(this.root, { recursive: true, force: true });
  }

  private cnf(n: GaleraNode): string {
    return join(n.dir, 'my.cnf');
  }

  private async install(n: GaleraNode, initialise: boolean): Promise<void> {
    spawnSync('mkdir', ['-p', join(n.dir, 'data')]);
    const cluster = this.nodes.map((m) => `127.0.0.1:${m.galeraPort}`).join(',');
    writeFileSync(
      this.cnf(n),
      [
        '[mysqld]',
        'user=mysql',
        `datadir=${join(n.dir, 'data')}`,
        `socket=${join(n.dir, 'mysqld.sock')}`,
        `pid-file=${join(n.dir, 'mysqld.pid')}`,
        `log-error=${join(n.dir, 'error.log')}`,
        `tmpdir=${n.dir}`,
        `port=${n.port}`,
        'bind-address=127.0.0.1',
        'skip-name-resolve',
        'innodb-buffer-pool-size=64M',
        'innodb-log-file-size=16M',
        'innodb-flush-log-at-trx-commit=1',
        'performance-schema=OFF',
        'max-connections=300',
        'binlog_format=ROW',
        'default_storage_engine=InnoDB',
        'innodb_autoinc_lock_mode=2',
        'wsrep_on=ON',
        `wsrep_provider=${PROVIDER}`,
        'wsrep_cluster_name=bm_test',
        `wsrep_cluster_address=gcomm://${cluster}`,
        `wsrep_node_name=node${n.index + 1}`,
        `wsrep_node_address=127.0.0.1:${n.galeraPort}`,
        `wsrep_provider_options="base_port=${n.galeraPort};ist.recv_addr=127.0.0.1:${n.istPort};gcache.size=128M;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S"`,
        `wsrep_sst_receive_address=127.0.0.1:${n.sstPort}`,
        'wsrep_sst_method=rsync',
        'wsrep_slave_threads=2',
        '',
      ].join('\n'),
    );
    spawnSync('chown', ['-R', 'mysql:mysql', n.dir]);
    if (!initialise) return;
    await run('mariadb-install-db', [
      `--defaults-file=${this.cnf(n)}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--user=mysql',
    ]);
  }

  private async startNode(
    n: GaleraNode,
    opts: { bootstrap?: boolean; position?: string } = {},
  ): Promise<void> {
    const args = [`--defaults-file=${this.cnf(n)}`];
    if (opts.bootstrap) args.push('--wsrep-new-cluster');
    if (opts.position) args.push(`--wsrep_start_position=${opts.position}`);
    const proc = killOnExit(spawn(MARIADBD, args, { stdio: 'ignore' }));
    n.proc = proc;
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`node${n.index + 1} exited at start:\n${this.errorLog(n.index, 40)}`);
      if (await serving(n.port).catch(() => false)) return;
      await sleep(200);
    }
    throw new Error(`node${n.index + 1} not synced within 120 s:\n${this.errorLog(n.index, 40)}`);
  }
}

/**
 * The per-node check HAProxy asks (as Percona's clustercheck does): 200 while the node is
 * synced, ready and primary, 503 otherwise.
 */
export async function startNodeChecks(
  cluster: GaleraCluster,
): Promise<{ ports: number[]; close: () => Promise<void> }> {
  const servers: Server[] = [];
  const ports: number[] = [];
  for (const n of cluster.nodes) {
    const server = createServer((_req, res) => {
      void cluster.serving(n.index).then((ok) => {
        res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' });
        res.end(ok ? 'synced\n' : 'not synced\n');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    ports.push((server.address() as { port: number }).port);
  }
  return {
    ports,
    close: async () => {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

/**
 * HAProxy in front of the cluster, as operators run it: one node takes the connections, the
 * others are backups used only while it fails its check; a node marked down has its
 * connections cut, so the pool reconnects to the next one.
 */
export class HaproxyFront {
  private constructor(
    readonly port: number,
    private readonly proc: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(cluster: GaleraCluster, checkPorts: number[]): Promise<HaproxyFront> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'bm-haproxy-'));
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(
      cfg,
      [
        'global',
        '  maxconn 2000',
        'defaults',
        '  mode tcp',
        '  timeout connect 2s',
        '  timeout client 10m',
        '  timeout server 10m',
        'frontend galera',
        `  bind 127.0.0.1:${port}`,
        '  default_backend nodes',
        'backend nodes',
        '  option httpchk GET /',
        '  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions',
        ...cluster.nodes.map(
          (n, i) =>
            `  server node${i + 1} 127.0.0.1:${n.port} check port ${checkPorts[i]}${i === 0 ? '' : ' backup'}`,
        ),
        '',
      ].join('\n'),
    );
    const proc = killOnExit(spawn('haproxy', ['-db', '-f', cfg], { stdio: 'ignore' }));
    const front = new HaproxyFront(port, proc, dir);
    const until = Date.now() + 20_000;
    while (Date.now() < until) {
      const ok = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 })
        .then(async (c) => (await c.end(), true))
        .catch(() => false);
      if (ok) return front;
      await sleep(200);
    }
    await front.close();
    throw new Error('HAProxy did not pass connections within 20 s');
  }

  url(database: string): string {
    return `mysql://root@127.0.0.1:${this.port}/${database}`;
  }

  async close(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null)
      await new Promise<void>((resolve) => {
        this.proc.once('exit', () => resolve());
        this.proc.kill('SIGKILL');
      });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
