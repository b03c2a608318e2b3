/**
 * One erasure (`POST /recipients/erase`) against a full callback outbox: `--rows` kept events
 * (default 200,000) of other recipients of the same account, and a few of the recipient erased.
 * Prints each erasure's time and their median. Not part of `npm run bench`; alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/erasure.js [--rows N] [--runs N]
 * The rows are written straight into the outbox as the service keeps them (with their recipient
 * hash when the table has the column, so the same script measures a build without it).
 */
import { randomUUID } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { recipientHash } from '../src/modules/callbacks/outbox-recipient.js';
import { dropBenchState, median, startBenchApi, stop, waitHttp } from './lib.js';

const arg = (flag: string, fallback: number) => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROWS = arg('--rows', 200_000);
const RUNS = arg('--runs', 10);
const ERASED = '260971999999';
const CHUNK = 2000;

async function main(): Promise<void> {
  const svc = await startBenchApi('erasure', { RUN_WORKERS: 'false' });
  const db = await createConnection({ host: '127.0.0.1', user: 'root', timezone: 'Z' });
  try {
    await waitHttp(`${svc.api}/health/ready`);
    svc.cli('accounts', 'create', '--username', 'bench_erase', '--password', 'load-test-secret-1');
    const key = svc.cli(
      'keys',
      'create',
      '--username',
      'bench_erase',
      '--name',
      'bench',
      '--rate-limit',
      '1000/1',
    ).key;
    const [[{ id }]] = (await db.query(
      `SELECT id FROM \`${svc.name}\`.accounts WHERE username = 'bench_erase'`,
    )) as unknown as [Array<{ id: string }>];
    const [columns] = (await db.query(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = ? AND table_name = 'callback_outbox' AND column_name = 'recipient_hash'`,
      [`${svc.name}_notification`],
    )) as unknown as [unknown[]];
    const hashed = columns.length > 0;
    const secret = svc.env.SERVER_SECRET!;
    const row = (i: number, recipient: string) => {
      const eventId = randomUUID();
      const job = JSON.stringify({
        eventId,
        url: 'https://hooks.example.com/sms',
        accountId: String(id),
        messageRowId: String(1_000_000 + i),
        payload: {
          event_id: eventId,
          message_id: randomUUID(),
          api_reference: String(7_000_000_000_000_000_000n + BigInt(i)),
          user_reference_id: null,
          channel: 'sms',
          recipient,
          status: 'DELIVERED',
          reason: null,
          occurred_at: new Date().toISOString(),
          test: false,
        },
      });
      return hashed ? [eventId, job, recipientHash(secret, recipient)] : [eventId, job];
    };
    const table = `\`${svc.name}_notification\`.callback_outbox`;
    const cols = hashed ? '(event_id, job, recipient_hash)' : '(event_id, job)';
    const started = performance.now();
    for (let i = 0; i < ROWS; i += CHUNK) {
      const rows = Array.from({ length: Math.min(CHUNK, ROWS - i) }, (_, j) =>
        row(i + j, String(260_970_000_000 + ((i + j) % 900_000))),
      );
      await db.query(`INSERT INTO ${table} ${cols} VALUES ?`, [rows]);
    }
    await db.query(`INSERT INTO ${table} ${cols} VALUES ?`, [[0, 1, 2].map((i) => row(ROWS + i, ERASED))]);
    console.log(
      `${ROWS} other events kept in ${Math.round(performance.now() - started)} ms (${hashed ? 'with' : 'without'} recipient_hash)`,
    );

    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${svc.api}/api/v1/json/recipients/erase`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ recipient: ERASED }),
      });
      await res.arrayBuffer();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`erase answered ${res.status}`);
    }
    console.log(
      `erase ms: ${times.map((t) => t.toFixed(0)).join(' ')}; median ${median(times).toFixed(0)} ms`,
    );
  } finally {
    await stop(svc.proc);
    await dropBenchState(db, svc.name);
    await db.end();
  }
}

await main();
