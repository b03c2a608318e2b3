import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { SQL_METACHARS } from '../fuzz/arbitraries.js';
import { pctEncode } from '../fuzz/query-arbitraries.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * SQL metacharacters through every stored field of every send endpoint: each arrives in MySQL
 * exactly as sent (parameters, never string-built SQL), and the tables are still all there.
 * Plus a review of the source for code or SQL built from text.
 */

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Already in WHATWG form, so the stored (normalised) URL is the very text sent; `'` and `;` stay raw in the path. */
const callbackFor = (s: string) => `https://example.com/cb/${pctEncode(s)}/'--;?q=${pctEncode(s)}&like=%25_`;
const cases = SQL_METACHARS.map((s, i) => [s, i] as const);

describe('SQL metacharacters are stored verbatim and break nothing', () => {
  let t: TestApp;
  let tenant: Tenant;
  let tablesBefore: string[];
  const tables = async () =>
    ((await t.ds.query('SHOW TABLES')) as Array<Record<string, string>>)
      .map((r) => Object.values(r)[0])
      .sort();
  const request = async (ref: string) =>
    (
      await t.ds.query(
        'SELECT sender, subject, body, reply_to, source, callback_url, user_reference_id FROM send_requests WHERE id = ?',
        [ref],
      )
    )[0] as Record<string, string | null>;
  const recipients = async (ref: string) =>
    (
      (await t.ds.query('SELECT recipient, status FROM messages WHERE send_request_id = ? ORDER BY id', [
        ref,
      ])) as Array<{ recipient: string; status: string }>
    ).map((r) => `${r.status}:${r.recipient}`);

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
    tablesBefore = await tables();
  });
  afterAll(async () => t?.close());

  it.each(cases)(
    'SMS (JSON) stores %j verbatim in message, source, user_reference_id, callback_url and a refused recipient',
    async (s, i) => {
      const res = await t
        .http()
        .post('/api/v1/json/bulk/sms')
        .set('X-API-Key', tenant.key)
        .send({
          from: 'ACME',
          to: ['260971234567', s],
          message: s,
          source: s,
          user_reference_id: `${s}#sms${i}`,
          callback_url: callbackFor(s),
        });
      expect(res.status).toBe(200);
      expect(await request(res.body.api_reference)).toMatchObject({
        sender: 'ACME',
        body: s,
        source: s,
        user_reference_id: `${s}#sms${i}`,
        callback_url: callbackFor(s),
      });
      expect(await recipients(res.body.api_reference)).toEqual([
        'ACKNOWLEDGED:260971234567',
        `REJECTED:${s}`,
      ]);
    },
  );

  it.each(cases)(
    'SMS (XML) stores %j verbatim in message, source, user_reference_id, callback_url and a refused recipient',
    async (s, i) => {
      const doc =
        `<request><from>ACME</from><to>260971234567</to><to>${escapeXml(s)}</to><message>${escapeXml(s)}</message>` +
        `<source>${escapeXml(s)}</source><user_reference_id>${escapeXml(`${s}#xml${i}`)}</user_reference_id>` +
        `<callback_url>${escapeXml(callbackFor(s))}</callback_url></request>`;
      const res = await t
        .http()
        .post('/api/v1/xml/bulk/sms')
        .set('X-API-Key', tenant.key)
        .set('Content-Type', 'application/xml')
        .send(doc);
      expect(res.status).toBe(200);
      const ref = /<reference>(\d+)<\/reference>/.exec(res.text)![1];
      expect(await request(ref)).toMatchObject({
        body: s,
        source: s,
        user_reference_id: `${s}#xml${i}`,
        callback_url: callbackFor(s),
      });
      expect(await recipients(ref)).toEqual(['ACKNOWLEDGED:260971234567', `REJECTED:${s}`]);
    },
  );

  it.each(cases)(
    'e-mail stores %j verbatim in subject, body, source, user_reference_id and a refused recipient',
    async (s, i) => {
      const res = await t
        .http()
        .post('/api/v1/json/bulk/email')
        .set('X-API-Key', tenant.key)
        .send({
          from: "o'brien%_x@ACME.example",
          reply_to: "o'neil_%@acme.example",
          to: ['jane@example.com', s],
          subject: s,
          email_body: s,
          source: s,
          user_reference_id: `${s}#email${i}`,
        });
      expect(res.status).toBe(200);
      expect(await request(res.body.api_reference)).toMatchObject({
        sender: "o'brien%_x@acme.example",
        reply_to: "o'neil_%@acme.example",
        subject: s,
        body: s,
        source: s,
        user_reference_id: `${s}#email${i}`,
      });
      expect(await recipients(res.body.api_reference)).toEqual([
        'ACKNOWLEDGED:jane@example.com',
        `REJECTED:${s}`,
      ]);
    },
  );

  it.each(cases)(
    'chat stores %j verbatim in message, user_reference_id and a refused recipient',
    async (s, i) => {
      const res = await t
        .http()
        .post('/api/v1/json/bulk/chat')
        .set('X-API-Key', tenant.key)
        .send({
          username: tenant.username,
          password: tenant.password,
          senderid: 260971234567,
          message: s,
          recipient: ['260971234567', s],
          user_reference_id: `${s}#chat${i}`,
        });
      expect(res.status).toBe(200);
      expect(await request(res.body.reference)).toMatchObject({
        body: s,
        user_reference_id: `${s}#chat${i}`,
      });
      expect(await recipients(res.body.reference)).toEqual(['ACKNOWLEDGED:260971234567', `REJECTED:${s}`]);
    },
  );

  it('answers a repeat of a metacharacter user_reference_id with the first request, not a second one', async () => {
    const body = {
      from: 'ACME',
      to: '260971234567',
      message: 'x',
      user_reference_id: "' OR user_reference_id LIKE '%",
    };
    const first = await t.http().post('/api/v1/json/bulk/sms').set('X-API-Key', tenant.key).send(body);
    const again = await t.http().post('/api/v1/json/bulk/sms').set('X-API-Key', tenant.key).send(body);
    expect(first.status).toBe(200);
    expect(again.body.api_reference).toBe(first.body.api_reference);
  });

  it('refuses an SMS message with an unpaired surrogate (it could only be stored altered, as U+FFFD) and stores nothing', async () => {
    const [{ n: before }] = await t.ds.query('SELECT COUNT(*) AS n FROM send_requests');
    const res = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .set('Content-Type', 'application/json')
      .send('{"from":"ACME","to":"260971234567","message":"broken \\ud83d here"}');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'message', message: 'contains an unpaired UTF-16 surrogate' }],
    });
    const [{ n: after }] = await t.ds.query('SELECT COUNT(*) AS n FROM send_requests');
    expect(Number(after)).toBe(Number(before));
  });

  it('compares user_reference_id as exact text: case, accents and a trailing space make different references', async () => {
    const send = (ref: string, message: string) =>
      t
        .http()
        .post('/api/v1/json/bulk/sms')
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: '260971234567', message, user_reference_id: ref });
    const refs = ['Ref-Exact', 'ref-exact', 'ref-exact ', 'réf-exact', 'ref-éxact'];
    const answers = [];
    for (const ref of refs) answers.push(await send(ref, `body of ${ref}`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.api_reference)).size).toBe(refs.length);
    // The same body under a reference that differs only in case is a new request, not a replay.
    const again = await send('REF-EXACT', 'body of Ref-Exact');
    expect(again.status).toBe(200);
    expect(answers.map((a) => a.body.api_reference)).not.toContain(again.body.api_reference);
    const stored = (await t.ds.query(
      'SELECT user_reference_id AS r FROM send_requests WHERE account_id = ?',
      [tenant.account.id],
    )) as Array<{ r: string | null }>;
    expect(
      stored
        .map((x) => x.r ?? '')
        .filter((r) => /xact/i.test(r))
        .sort(),
    ).toEqual([...refs, 'REF-EXACT'].sort());
  });

  it.each(SQL_METACHARS)(
    'refuses %j as a username or password with 401 INVALID_CREDENTIALS (balance and chat)',
    async (s) => {
      for (const creds of [
        { username: s, password: s },
        { username: tenant.username, password: s },
      ]) {
        const balance = await t.http().post('/api/v1/json/balance').set('X-API-Key', tenant.key).send(creds);
        expect(balance.status).toBe(401);
        expect(balance.body.error.code).toBe('INVALID_CREDENTIALS');
        const chat = await t
          .http()
          .post('/api/v1/json/bulk/chat')
          .set('X-API-Key', tenant.key)
          .send({ ...creds, senderid: 260971234567, message: 'x', recipient: ['260971234567'] });
        expect(chat.status).toBe(401);
      }
    },
  );

  it.each(SQL_METACHARS)(
    "looks up %j as a message id or api_reference without finding anyone's messages",
    async (s) => {
      const one = await t
        .http()
        .get(`/api/v1/json/messages/${pctEncode(s)}`)
        .set('X-API-Key', tenant.key);
      expect(one.status).toBe(404);
      const list = await t
        .http()
        .get(`/api/v1/json/messages?api_reference=${pctEncode(s)}`)
        .set('X-API-Key', tenant.key);
      expect(list.status).toBe(400);
      const page = await t
        .http()
        .get(`/api/v1/json/messages?api_reference=1&page=${pctEncode(s)}`)
        .set('X-API-Key', tenant.key);
      expect(page.status).toBe(400);
    },
  );

  it('leaves every table in place, with every row written above', async () => {
    expect(await tables()).toEqual(tablesBefore);
    expect(tablesBefore).toEqual(
      expect.arrayContaining(['accounts', 'api_keys', 'ledger_entries', 'messages', 'send_requests']),
    );
    const [{ n }] = await t.ds.query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', [
      tenant.account.id,
    ]);
    expect(Number(n)).toBe(SQL_METACHARS.length * 8 + 1 + 6);
    const [{ m }] = await t.ds.query('SELECT COUNT(*) AS m FROM accounts');
    expect(Number(m)).toBeGreaterThanOrEqual(1);
  });
});

// ---------------------------------------------------------------- source review

const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * Interpolations reviewed as safe in SQL text: placeholder lists, constants, and the few
 * values built in the same function from constants (CASE … WHEN ? THEN ? lists, a column
 * chosen between two literals, table names from a literal list, identifiers escaped by the
 * driver, column names filtered from a constant list).
 */
const SAFE_SQL_INTERPOLATION = [
  /^[A-Z][A-Z0-9_]*$/, // a module constant
  /^\w+\.map\(\(\w*\) => (?:'[^']*'|"[^"]*"|[A-Z][A-Z0-9_]*)\)\.join\('[^']*'\)$/, // one placeholder group per row
  /^new Array\(\w+(?:\.length)?\)\.fill\([A-Z][A-Z0-9_]*\)\.join\('[^']*'\)$/,
  /^\w+\.escapeId\([\w.]+\)$/,
  /^(?:reason|provider|at|connector)\.sql$/, // message-state.store: CASE id WHEN ? THEN ? … END (or the constant NULL)
  /^cases$/, // api-key.store (last-used times), delivery-report.store: WHEN ? THEN ? …
  /^reason$/, // message-parts.store: '?' or CASE WHEN message_id = CAST(? AS UNSIGNED) AND part = ? THEN ? … END
  /^stamp$/, // message-state.store: 'sent_at' or 'completed_at'
  /^onEntry$/, // message-state.store: a constant fallback_due_at change per state (FALLBACK_ON_ENTRY)
  /^t$/, // migrations: DROP TABLE over a literal list
  /^columns\.map\(\(c\) => `\\`\$\{c\}\\``\)\.join\(', '\)$/, // request-log-reader: names from COLUMNS
  /^order\.length \? `ORDER BY \$\{order\.join\(', '\)\}` : ''$/,
  /^mode$/, // erasure.store: '' or ' AND <a literal column> = ?'
  /^iso\('[\w.]+'\)$/, // retention.store: DATE_FORMAT of a literal column name
  /^where$/, // retention.store: one of two literal conditions on message_id (an id list or an id range)
  /^rows\.map\(\(\) => (?:`WHEN \$\{match\} THEN \?`|match)\)\.join\('[^']*'\)$/, // daily-spend.store: a literal key match per row
  /^all \? '' : ' AND \(recipient_hash IS NULL OR recipient_hash = \?\)'$/, // recipient-hash.store: one of two literals
  /^SELECT\.replace\('[\w., ]+', '[\w., ]+'\)$/, // smpp-credential.store: the constant SELECT with a literal column added
  /^columns\.map\(\(\[c\]\) => `\$\{c\} = \?`\)\.join\(', '\)$/, // smpp-credential.store: column names pushed as literals
  /^table$/, // a literal table name: a PartitionedTable (one of PARTITIONED_TABLES), or a key of recipient-hash.store's HASHED
  /^KEYS_BEFORE(?:\[table\]|\.delivery_reports|\.callback_attempts|\.request_logs)\.join\(', '\)$/, // the partitioning migrations' down: constant key clauses per table
  /^day$/, // delivery-report.store: '' or the literal ', day_id = message_id'
  /^quoted\(partition\)$/, // partition-prune.store: a partition name read from INFORMATION_SCHEMA, quoted as an identifier
  /^names\.map\(quoted\)\.join\(', '\)$/, // partition.store: the same, for a list of partitions
  /^quoted\(name\)$/, // partition.store: a table a partition was converted to, its name made from one read from INFORMATION_SCHEMA
  /^before === null \? '' : ' AND id < \?'$/, // webhook-delivery.store: one of two literals (cursor paging)
  /^sets\.join\(', '\)$/, // webhook-endpoint.store: `<literal column> = ?` per field given
  /^(?:first|rest)$/, // short-link.store: a literal SELECT of placeholders, and the same repeated per tally
  /^id \? 'AND m\.id = \?' : ''$/, // message-lookup.store: one of two literals (the id a UUID carries)
  /^(?:key|text)$/, // recipient-hash.store: a literal column name from HASHED, chosen by a literal table name
];

/** Dynamic imports of a computed name, reviewed: each names one of a few constant paths. */
const REVIEWED_IMPORTS = [
  // The CLI's command path: the build's bundle of it if present, else the compiled module.
  'cli.ts: import(fullCli())',
];

describe('source review: no code or SQL built from input', () => {
  const files = sourceFiles(SRC);

  it('has no eval, new Function, or dynamic import of a computed name anywhere in src', () => {
    const hits: string[] = [];
    for (const file of files) {
      const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'eval')
          hits.push(`${relative(SRC, file)}: eval`);
        if (
          ts.isNewExpression(node) &&
          ts.isIdentifier(node.expression) &&
          node.expression.text === 'Function'
        )
          hits.push(`${relative(SRC, file)}: new Function`);
        if (
          ts.isCallExpression(node) &&
          node.expression.kind === ts.SyntaxKind.ImportKeyword &&
          !ts.isStringLiteral(node.arguments[0])
        ) {
          const hit = `${relative(SRC, file)}: import(${node.arguments[0]?.getText()})`;
          if (!REVIEWED_IMPORTS.includes(hit)) hits.push(hit);
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    expect(hits).toEqual([]);
  });

  it('builds SQL text only from constants and placeholders: every ${…} in a query() template is a reviewed form', () => {
    const unreviewed: string[] = [];
    let seen = 0;
    for (const file of files) {
      const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (
          ts.isCallExpression(node) &&
          ts.isPropertyAccessExpression(node.expression) &&
          node.expression.name.text === 'query'
        ) {
          const sql = node.arguments[0];
          if (sql && ts.isTemplateExpression(sql)) {
            for (const span of sql.templateSpans) {
              seen += 1;
              // Whitespace the formatter put inside a call (a chain split over lines) is not part of its form.
              const text = span.expression.getText().replace(/\s+/g, ' ').replace(/ \./g, '.');
              if (!SAFE_SQL_INTERPOLATION.some((re) => re.test(text))) {
                unreviewed.push(
                  `${relative(SRC, file)}:${sf.getLineAndCharacterOfPosition(span.getStart()).line + 1}: \${${text}}`,
                );
              }
            }
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    expect(seen).toBeGreaterThan(5);
    // A new entry here is SQL text built from a value: pass it as a `?` parameter instead, or
    // review it and add its form to SAFE_SQL_INTERPOLATION with the reason it is safe.
    expect(unreviewed).toEqual([]);
  });
});
