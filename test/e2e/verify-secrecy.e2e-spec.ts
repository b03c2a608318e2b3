import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_DESTINATION } from '../../src/platform/logging/logging.module.js';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { readArchiveFile } from '../../src/modules/retention/message-archive.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { messageFields } from '../support/message-probes.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startSmppApp, testEnv, type TestApp } from '../support/test-app.js';
import { everyStoredRow } from '../support/verification-probes.js';
import { waitFor } from '../support/wait.js';

const VERIFY = '/api/v1/json/verify';
const TO = '260977123456';

/**
 * One verification from start to approval over a real SMPP peer, then every place the service
 * writes or answers is searched for the code: it must be in the SMSC's submit_sm (the positive
 * control) and nowhere else. A 10-digit code cannot turn up in an id or a time by chance.
 */
describe('a verification code is never kept or shown after hand-over', () => {
  const lines: string[] = [];
  let smsc: SmppPeer;
  let hooks: HttpPeer;
  let t: TestApp;
  let tenant: Tenant;
  let archiveDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD' });
    hooks = await startHttpPeer(() => ({ status: 204 }));
    archiveDir = mkdtempSync(join(tmpdir(), 'verify-archive-'));
    const settings = {
      LOG_LEVEL: 'debug',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      ARCHIVE_DIR: archiveDir,
    };
    const destination = { write: (chunk: string) => void lines.push(...chunk.split('\n').filter(Boolean)) };
    t = await startSmppApp(smsc.url, settings, undefined, {
      override: (b) => b.overrideProvider(LOG_DESTINATION).useValue(destination),
      appLogger: true,
    });
    env = testEnv(t.name, { ...settings, SMS_TRANSPORT: 'smpp', SMPP_URL: smsc.url });
    tenant = await createTenant(t);
    await t.app.get(AccountsService).setStatusCallbackUrl(tenant.account.id, `${hooks.url}/events`);
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
    await hooks?.close();
    if (archiveDir) rmSync(archiveDir, { recursive: true, force: true });
  });

  const api = (method: 'get' | 'post', path: string) => t.http()[method](path).set('X-API-Key', tenant.key);

  it('masks the code in the stored text once handed over, and keeps it out of every output', async () => {
    const started = await api('post', VERIFY)
      .set('Idempotency-Key', 'verify-secrecy-1')
      .send({ to: TO, from: 'Acme', code_length: 10 });
    expect(started.status).toBe(201);
    const { verification_id: id, message_id: messageId } = started.body;

    const submit = await waitFor(
      async () => smsc.messages().find((m) => m.destination === TO),
      15_000,
      'the code at the SMSC',
    );
    const code = /^Your code is (\d{10})$/.exec(submit.text)![1]!;
    await waitFor(
      async () => (await messageFields(t, { uuid: messageId }, 'status')).status === 'DELIVERED',
      15_000,
      'the receipt',
    );
    await waitFor(
      async () => (await messageFields(t, { uuid: messageId }, 'body')).body === 'Your code is ******',
      15_000,
      'the masked text',
    );
    const checked = await api('post', `${VERIFY}/${id}/check`).send({ code });
    expect(checked.body.status).toBe('approved');
    await waitFor(async () => hooks.requests.length >= 2, 15_000, 'the SENT and DELIVERED callbacks');

    const outputs: Record<string, string> = {
      replayed_start: JSON.stringify(
        (
          await api('post', VERIFY)
            .set('Idempotency-Key', 'verify-secrecy-1')
            .send({ to: TO, from: 'Acme', code_length: 10 })
        ).body,
      ),
      verification: (await api('get', `${VERIFY}/${id}`)).text,
      lookup: (await api('get', `/api/v1/json/messages/${messageId}`)).text,
      search: (await api('get', `/api/v1/json/messages?recipient=${TO}`)).text,
      export_csv: (await api('get', '/api/v1/json/messages/export?format=csv')).text,
      export_ndjson: (await api('get', '/api/v1/json/messages/export?format=ndjson')).text,
      callbacks: JSON.stringify(hooks.requests.map((r) => [r.headers, r.body])),
      metrics: (await t.http().get('/metrics')).text,
      logs: lines.join('\n'),
      tables: await everyStoredRow(t),
      redis: await redisValues(t.name),
    };
    // Each output is the right one: it names the verification or its message.
    expect(outputs.logs).toContain(`${VERIFY}/${id}/check`);
    expect(outputs.tables).toContain('Your code is ******');
    expect(outputs.callbacks).toContain(messageId);
    expect(outputs.lookup).toContain(messageId);
    expect(outputs.export_ndjson).toContain(messageId);
    expect(outputs.metrics).toContain('bulk_verifications_total{country="ZM",status="approved"} 1');

    const archived = await runCli(env, [
      'db',
      'archive',
      '--before',
      new Date(Date.now() + 60_000).toISOString(),
      '--json',
    ]);
    expect(archived.code).toBe(0);
    const files = readdirSync(archiveDir).flatMap((day) =>
      readdirSync(join(archiveDir, day)).map((f) => join(archiveDir, day, f)),
    );
    const rows = [];
    for (const f of files.filter((f) => f.endsWith('.ndjson.gz'))) rows.push(...(await readArchiveFile(f)));
    outputs.archive = JSON.stringify(rows);
    expect(outputs.archive).toContain(`verify-${id}`);

    for (const [where, text] of Object.entries(outputs)) expect(text, where).not.toContain(code);
  });
});

/** Every value under the suite's Redis prefix (strings, hashes, lists, sets, sorted sets). */
async function redisValues(prefix: string): Promise<string> {
  const redis = new Redis('redis://127.0.0.1:6379');
  try {
    const out: string[] = [];
    for (const key of await redis.keys(`${prefix}*`)) {
      const type = await redis.type(key);
      if (type === 'string') out.push(String(await redis.get(key)));
      else if (type === 'hash') out.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'list') out.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === 'set') out.push(JSON.stringify(await redis.smembers(key)));
      else if (type === 'zset') out.push(JSON.stringify(await redis.zrange(key, 0, -1)));
    }
    return out.join('\n');
  } finally {
    redis.disconnect();
  }
}
