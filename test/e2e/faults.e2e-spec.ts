import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { jitteredBackoff } from '../../src/modules/delivery/retry-policy.js';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import { verifyCallback } from '../../src/modules/callbacks/signature.js';
import { SendCommitter } from '../../src/modules/sending/send.committer.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import type { SendInput } from '../../src/modules/sending/channel-policy.js';
import { smsInput } from '../../src/modules/sending/channels/sms/sms-input.js';
import { SmsPolicy } from '../../src/modules/sending/channels/sms/sms.policy.js';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { statesOfRequests } from '../support/account-messages.js';
import { storedBalance } from '../support/account-probes.js';
import { allCallbackAttempts } from '../support/callback-probes.js';
import { MariaDbInstance } from '../support/mariadb-instance.js';
import { notEnqueued, requestsOf, throughConnection } from '../support/message-probes.js';
import { ledgerAmounts } from '../support/probes.js';
import { freePort, RedisInstance } from '../support/redis-instance.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { checkStore, describeProblems } from '../support/store-invariants.js';
import { startTestApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * Faults, with nothing lost. Every suite here runs on a MariaDB and a Redis of its own (own
 * ports, started and stopped by the test), so a restart here never touches another suite.
 * The worker killed mid-batch lives in dispatch-smpp.e2e-spec.ts.
 */

const SMS = '/api/v1/json/bulk/sms';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let mariadb: MariaDbInstance;

beforeAll(async () => {
  mariadb = await MariaDbInstance.start();
}, 60_000);
afterAll(async () => {
  await mariadb?.destroy();
});

/** The app on this file's MariaDB and the given Redis. Closed with app.close(): the instances go with the file. */
function startOn(redis: RedisInstance, overrides: Record<string, string> = {}): Promise<TestApp> {
  const name = uniqueName();
  return startTestApp({ DATABASE_URL: mariadb.databaseUrl(name), REDIS_URL: redis.url, ...overrides }, name);
}

interface SmsBody {
  from: string;
  to: string[];
  message: string;
  user_reference_id: string;
  callback_url?: string;
}

interface Answer {
  body: SmsBody;
  status: number;
  code?: string;
  apiReference?: string;
  accepted?: number;
  listed?: number;
}

async function sendSms(t: TestApp, key: string, body: SmsBody): Promise<Answer> {
  try {
    const res = await t.http().post(SMS).set('X-API-Key', key).send(body).timeout(20_000);
    const data = (res.body?.data ?? []) as Array<{ status: string }>;
    return {
      body,
      status: res.status,
      code: res.body?.error?.code,
      apiReference: res.body?.api_reference,
      accepted: data.filter((d) => d.status === 'ACKNOWLEDGED').length,
      listed: data.length,
    };
  } catch {
    return { body, status: 0 };
  }
}

describe('MySQL restarted under a load of sends', () => {
  let redis: RedisInstance;
  let t: TestApp;
  let tenant: Tenant;
  let seq = 0;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    t = await startOn(redis, { DB_POOL_SIZE: '10' });
    tenant = await createTenant(t, { balances: { sms: '1000000' }, prices: { sms: '0.25' } });
    // Hundreds of expected 503s would each log a stack; the assertions below say what went wrong.
    t.app.useLogger(false);
  });
  afterAll(async () => {
    await t?.app.close();
    await redis?.stop();
  });

  /** 1–5 numbers never used before in this suite, and now and then an invalid one (listed, REJECTED, not charged). */
  const nextBody = (): SmsBody => {
    const k = seq++;
    const to = Array.from({ length: 1 + (k % 5) }, (_, i) => `2609${String(k * 10 + i).padStart(8, '0')}`);
    if (k % 7 === 0) to.push('12345');
    return { from: 'ACME', to, message: `fault load ${k}`, user_reference_id: `fault-${k}` };
  };

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'after a %s restart mid-load: every send is answered 200 and fully stored, or 503 and retried safely; none half-stored; the pool recovers',
    async (signal) => {
      const answers: Answer[] = [];
      let stopAt = Number.POSITIVE_INFINITY;
      // 20 clients sending small requests back to back; MySQL goes away about 1.5 s in and the load
      // goes on 1.5 s after it is back.
      const restart = (async () => {
        await sleep(1500);
        const r = await mariadb.restart({ signal, downMs: 800 });
        stopAt = Date.now() + 1500;
        return r;
      })();
      restart.catch(() => (stopAt = 0));
      const clients = Array.from({ length: 20 }, async () => {
        while (Date.now() < stopAt) {
          answers.push(await sendSms(t, tenant.key, nextBody()));
          await sleep(25);
        }
      });
      await Promise.all(clients);
      const { downMs } = await restart;

      // Back without restarting the app: the pool reconnects by itself.
      const after = await waitFor(
        async () => {
          const a = await sendSms(t, tenant.key, nextBody());
          return a.status === 200 ? a : undefined;
        },
        15_000,
        'a send to succeed after MySQL returned',
      );
      expect(after.status).toBe(200);

      const ok = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status !== 200);
      expect(ok.length).toBeGreaterThan(0);
      expect(refused.length, 'the outage was not seen by any request').toBeGreaterThan(0);
      // No 500 and no dropped connection: the HTTP server never went away, only MySQL did.
      const wrong = refused.filter((a) => a.status !== 503 || a.code !== 'SERVICE_UNAVAILABLE');
      expect(wrong.map((a) => `${a.status} ${a.code}`)).toEqual([]);

      const db = await mariadb.connect(t.name);
      onTestFinished(() => db.end());
      const smsRequests = async () =>
        (
          await requestsOf(
            throughConnection(db, t.name),
            tenant.account.id,
            'id',
            'channel',
            'user_reference_id',
            'recipient_count',
            'accepted_count',
          )
        ).filter((r) => r.channel === 'sms');
      const stored = await smsRequests();
      const byRef = new Map(stored.map((r) => [r.user_reference_id, r]));

      // Every acknowledged send is there, as answered.
      for (const a of ok) {
        const row = byRef.get(a.body.user_reference_id);
        expect(row, `acknowledged ${a.body.user_reference_id} not stored`).toBeDefined();
        expect({ id: String(row!.id), listed: row!.recipient_count, accepted: row!.accepted_count }).toEqual({
          id: a.apiReference,
          listed: a.listed,
          accepted: a.accepted,
        });
      }
      // A refused send is not stored, with one exception no server can rule out: MySQL committed
      // and went away before the acknowledgement of the COMMIT reached us. The client cannot tell
      // that from a failed commit, so the contract is idempotency: the same request again, with
      // its user_reference_id, gets 200 and the one stored copy, never a second charge (shown
      // deterministically in 'a COMMIT whose acknowledgement is lost' below). Never half-stored.
      const storedAnyway = refused.filter((a) => byRef.has(a.body.user_reference_id));
      expect(describeProblems(await checkStore(db))).toEqual([]);

      const retried = await Promise.all(refused.map((a) => sendSms(t, tenant.key, a.body)));
      expect(retried.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.code}`)).toEqual([]);
      for (const r of retried) {
        const earlier = byRef.get(r.body.user_reference_id);
        if (earlier) expect(r.apiReference).toBe(String(earlier.id));
      }
      const sent = new Set(answers.map((a) => a.body.user_reference_id));
      expect((await smsRequests()).filter((r) => sent.has(r.user_reference_id))).toHaveLength(answers.length);
      expect(describeProblems(await checkStore(db))).toEqual([]);

      console.info(
        `MySQL ${signal} restart (down ${downMs} ms) under load: ${answers.length} sends, ${ok.length} acknowledged, ` +
          `${refused.length} refused 503 (${storedAnyway.length} of them committed before the connection dropped), all refused ones retried: 200`,
      );
    },
    60_000,
  );
});

describe('Redis down during a burst of sends', () => {
  let redis: RedisInstance;
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 20 });
    t = await startOn(redis, {
      RUN_WORKERS: 'true',
      SMS_TRANSPORT: 'smpp',
      SMPP_URL: smsc.url,
      SWEEP_INTERVAL_MS: '300',
      SWEEP_MIN_AGE_MS: '0',
    });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.app.close();
    await redis?.stop();
    await smsc?.close();
  });

  it('acknowledges 20 concurrent sends from MySQL while Redis is down, and hands every accepted message to the SMSC exactly once after it returns', async () => {
    await redis.stop();
    const bodies: SmsBody[] = Array.from({ length: 20 }, (_, k) => ({
      from: 'ACME',
      to: [
        ...Array.from({ length: 5 }, (_, i) => `2609770${String(k * 10 + i).padStart(5, '0')}`),
        ...(k % 4 === 0 ? ['not-a-number'] : []),
      ],
      message: `while redis was down ${k}`,
      user_reference_id: `redis-down-${k}`,
    }));
    const answers = await Promise.all(bodies.map((b) => sendSms(t, tenant.key, b)));
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
    expect(answers.map((a) => a.accepted)).toEqual(bodies.map(() => 5));
    const refs = answers.map((a) => a.apiReference!);
    expect(await notEnqueued(t, refs)).toBe(20);
    expect(smsc.received).toHaveLength(0);

    await redis.start();
    await waitFor(
      async () => (await statesOfRequests(t, refs)).DELIVERED === 100,
      30_000,
      'all 100 accepted messages DELIVERED after Redis returned',
    );
    await sleep(1000); // a late second copy would arrive now
    const numbers = bodies.flatMap((b) => b.to.filter((n) => /^\d+$/.test(n)));
    expect(numbers).toHaveLength(100);
    expect(numbers.filter((n) => smsc.countByDestination(n) !== 1)).toEqual([]);
    expect(smsc.received).toHaveLength(100);
    expect((await statesOfRequests(t, refs)).REJECTED).toBe(5); // the invalid numbers, refused at intake and never sent
    const db = await mariadb.connect(t.name);
    try {
      expect(describeProblems(await checkStore(db))).toEqual([]);
    } finally {
      await db.end();
    }
  });
});

describe('a callback target that is away', () => {
  let redis: RedisInstance;
  let t: TestApp;
  let tenant: Tenant;
  let target: Server | undefined;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    t = await startOn(redis, {
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '100',
      CALLBACK_BACKOFF_BASE_MS: '50',
      CALLBACK_TIMEOUT_MS: '2000',
      // The circuit opens after 5 failures in a row; kept short so probes follow the target closely.
      CALLBACK_CIRCUIT_OPEN_MS: '200',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    target?.closeAllConnections();
    await new Promise((r) => (target ? target.close(r) : r(undefined)));
    await t?.app.close();
    await redis?.stop();
  });

  it('retries while the target refuses connections, delivers each callback once it listens again, and records every attempt', async () => {
    const port = await freePort(); // nothing listens here yet: connections are refused
    const url = `http://127.0.0.1:${port}/hooks/dlr`;
    const res = await sendSms(t, tenant.key, {
      from: 'ACME',
      to: ['260966000001'],
      message: 'callback later',
      user_reference_id: 'cb-1',
      callback_url: url,
    });
    expect(res.status).toBe(200);

    const attempts = () => allCallbackAttempts(t);
    // Both events (SENT, DELIVERED) fail at least four times in a row before the target comes back:
    // refused, or not sent while the target's circuit is open.
    const failed = new Set(['network_error', 'circuit_open']);
    await waitFor(
      async () => {
        const byEvent = new Map<string, number>();
        for (const a of await attempts())
          if (failed.has(a.outcome)) byEvent.set(a.event_id, (byEvent.get(a.event_id) ?? 0) + 1);
        return byEvent.size === 2 && [...byEvent.values()].every((n) => n >= 4);
      },
      15_000,
      'four failed attempts for each of the two callbacks',
    );
    expect((await attempts()).filter((a) => a.outcome === 'network_error').length).toBeGreaterThanOrEqual(5);

    const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
    target = createServer((req, resp) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        resp.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => target!.listen(port, '127.0.0.1', resolve));

    await waitFor(
      async () => received.length >= 2,
      20_000,
      'both callbacks delivered after the target returned',
    );
    await sleep(500); // nothing more may come: a delivered callback is not retried
    expect(received).toHaveLength(2);
    const secret = await t.app.get(AccountsService).callbackSecret(tenant.username);
    for (const r of received) {
      expect(
        verifyCallback(
          secret,
          String(r.headers['x-signature-timestamp']),
          String(r.headers['x-signature']),
          r.body,
        ),
      ).toBe(true);
    }
    expect(received.map((r) => (JSON.parse(r.body) as { status: string }).status).sort()).toEqual([
      'DELIVERED',
      'SENT',
    ]);

    // Every attempt is in the notification database: 1..n, failed until the last, which got 200.
    const byEvent = new Map<
      string,
      Array<{ attempt: number; outcome: string; http_status: number | null }>
    >();
    for (const a of await attempts()) byEvent.set(a.event_id, [...(byEvent.get(a.event_id) ?? []), a]);
    expect(byEvent.size).toBe(2);
    for (const list of byEvent.values()) {
      expect(list.map((a) => a.attempt)).toEqual(list.map((_, i) => i + 1));
      expect(list.length).toBeGreaterThanOrEqual(5);
      expect(list.length).toBeLessThanOrEqual(10);
      expect(list.slice(0, -1).every((a) => failed.has(a.outcome))).toBe(true);
      expect(list.at(-1)).toMatchObject({ outcome: 'delivered', http_status: 200 });
    }
  });
});

/**
 * A relay in front of MySQL that, once armed, lets the next group commit's query through (the
 * statements from START TRANSACTION to COMMIT, sent together) and then cuts that connection
 * instead of passing the server's answer back: the transaction is committed and the client never
 * learns it (the moment a crash or a network cut can always pick). Armed with 'batch', it cuts
 * that query on its way instead: the server gets part of it and runs none of it.
 */
async function startCommitCutter(targetPort: number) {
  const MARK = Buffer.from('\x03START TRANSACTION;\n', 'latin1');
  let armed: 'commit' | 'batch' | undefined;
  let cuts = 0;
  const server = createTcpServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    let cutting = false;
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (d: Buffer) => {
      const at = armed ? d.indexOf(MARK) : -1;
      if (at >= 0 && armed === 'batch') {
        armed = undefined;
        cuts++;
        upstream.write(d.subarray(0, at + MARK.length), drop);
        return;
      }
      if (at >= 0) {
        armed = undefined;
        cutting = true;
      }
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      if (!cutting) return void client.write(d);
      cuts++;
      drop();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    arm: (at: 'commit' | 'batch' = 'commit') => (armed = at),
    cuts: () => cuts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a COMMIT whose acknowledgement is lost', () => {
  let redis: RedisInstance;
  let cutter: Awaited<ReturnType<typeof startCommitCutter>>;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    cutter = await startCommitCutter(mariadb.port);
    const name = uniqueName();
    t = await startTestApp(
      { DATABASE_URL: `mysql://root@127.0.0.1:${cutter.port}/${name}`, REDIS_URL: redis.url },
      name,
    );
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '1' } });
    t.app.useLogger(false);
  });
  afterAll(async () => {
    await t?.app.close();
    await cutter?.close();
    await redis?.stop();
  });

  const input = (k: number, ref?: string) =>
    smsInput({
      from: 'ACME',
      to: [`2609660000${k}0`, `2609660000${k}1`],
      message: `cut ${k}`,
      user_reference_id: ref,
    });

  /**
   * Sends each input, all written as ONE batch: each send reads MySQL before it commits
   * (suppressions, routes), so they would reach the committer in different ticks; each is held
   * there until all are. Answers each send's outcome.
   */
  async function sendAsOneBatch(inputs: SendInput[]) {
    const sends = t.app.get(SendService);
    const policy = t.app.get(SmsPolicy);
    const auth = { account: tenant.account, key: tenant.apiKey } as AuthContext;
    const committer = t.app.get(SendCommitter);
    const commit = committer.commit.bind(committer);
    const held: Array<() => void> = [];
    const batch = vi.spyOn(committer, 'commit').mockImplementation(async (send) => {
      await new Promise<void>((release) => {
        held.push(release);
        if (held.length === inputs.length) for (const r of held) r();
      });
      return commit(send);
    });
    try {
      return await Promise.allSettled(inputs.map((i) => sends.send(policy, auth, i)));
    } finally {
      batch.mockRestore();
    }
  }

  /** Every send answered, each stored once among `stored` requests, and the balance `balance`. */
  async function expectStoredOnce(
    outcomes: PromiseSettledResult<{ apiReference: string }>[],
    stored: number,
    balance: string,
  ) {
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(
      outcomes.map(() => 'ok'),
    );
    const refs = outcomes.map(
      (o) => (o as PromiseFulfilledResult<{ apiReference: string }>).value.apiReference,
    );
    const db = await mariadb.connect(t.name);
    try {
      const rows = await requestsOf(throughConnection(db, t.name), tenant.account.id, 'id');
      expect(rows).toHaveLength(stored);
      expect(refs.every((r) => rows.some((row) => String(row.id) === r))).toBe(true);
      expect(describeProblems(await checkStore(db))).toEqual([]);
      expect(await storedBalance(throughConnection(db, t.name), tenant.account.id, 'sms')).toBe(balance);
    } finally {
      await db.end();
    }
  }

  it('answers every send of a group commit that did commit, without a second copy, with or without user_reference_id', async () => {
    const sends = t.app.get(SendService);
    const auth = { account: tenant.account, key: tenant.apiKey } as AuthContext;
    await sends.send(t.app.get(SmsPolicy), auth, input(0)); // prices and spend rows cached
    // A lone send in this position is answered once found stored: the test after the next.
    cutter.arm();
    const outcomes = await sendAsOneBatch([1, 2, 3, 4].map((k) => input(k, k % 2 ? `cut-${k}` : undefined)));
    expect(cutter.cuts()).toBe(1);
    // 5 sends × 2 recipients × 1, each charged once.
    await expectStoredOnce(outcomes, 5, '990.000000');
  });

  it('writes a group commit cut off on its way (none of it run) request by request: every send answered, stored and charged once', async () => {
    const cutsBefore = cutter.cuts();
    cutter.arm('batch');
    const outcomes = await sendAsOneBatch([5, 6, 7, 8].map((k) => input(k, k % 2 ? `cut-${k}` : undefined)));
    expect(cutter.cuts() - cutsBefore).toBe(1);
    // 4 more sends × 2 recipients × 1.
    await expectStoredOnce(outcomes, 9, '982.000000');
  });

  it('answers a lone send whose COMMIT went through 200 once it finds the send stored, and a retry with the same user_reference_id with the same copy, charged once', async () => {
    const body = { from: 'ACME', to: ['260966100001'], message: 'lone cut', user_reference_id: 'lone-cut' };
    const cutsBefore = cutter.cuts();
    cutter.arm();
    const first = await sendSms(t, tenant.key, body);
    expect(cutter.cuts() - cutsBefore).toBe(1);
    // The server committed; the app writes the send again, statement by statement, and finds it stored.
    expect(first.status).toBe(200);
    const stored = (await requestsOf(t, tenant.account.id, 'id', 'user_reference_id')).find(
      (r) => r.user_reference_id === 'lone-cut',
    );
    expect(stored).toBeDefined();
    expect(first.apiReference).toBe(String(stored!.id));
    const retry = await sendSms(t, tenant.key, body);
    expect([retry.status, retry.apiReference]).toEqual([200, String(stored!.id)]);
    expect(await ledgerAmounts(t, stored!.id, 'charge')).toHaveLength(1);
  });
});

describe('the default callback retry schedule', () => {
  // 10 attempts, so 9 waits; Bull passes attemptsMade = 1…9 to the backoff strategy.
  const ATTEMPTS = 10;
  const totalWait = (base: number, random: number) => {
    const spy = vi.spyOn(Math, 'random').mockReturnValue(random);
    try {
      const delay = jitteredBackoff(base);
      let total = 0;
      for (let made = 1; made < ATTEMPTS; made++) total += delay(made);
      return total;
    } finally {
      spy.mockRestore();
    }
  };

  it('keeps retrying for more than an hour (as docs/api/callbacks.md says) even with the least jitter, and for under two hours with the most', () => {
    const base = loadConfig({ CALLBACK_BACKOFF_BASE_MS: undefined }).callbackBackoffBaseMs;
    const least = totalWait(base, 0);
    const most = totalWait(base, 1 - Number.EPSILON);
    expect(least).toBeGreaterThan(60 * 60_000);
    expect(most).toBeLessThan(2 * 60 * 60_000);
    // The first retry comes after about the base; each wait doubles.
    expect(totalWait(base, 0.5)).toBe(base * (2 ** (ATTEMPTS - 1) - 1));
  });
});
