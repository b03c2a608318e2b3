import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eraseFromArchive } from './archive-erasure.js';
import { INDEX_FILE, MessageArchive, PENDING, readArchiveFile, readIndex } from './message-archive.js';

const R = '260971555001';
const DAY = '2026-01-02';
const erasure = { accountId: '1', recipient: R, replacement: 'erased' };

/** Row n of a day: every 7th to R, half of those of another account; text with multi-byte characters. */
const message = (n: number) => ({
  message_id: `m-${n}`,
  recipient: n % 7 === 0 ? R : `2609710${String(n).padStart(5, '0')}`,
  status: 'DELIVERED',
  reason: `Zahlung bestätigt – ✓ ${'é'.repeat(n % 13)} 送信 ${n}`,
  account_id: n % 14 === 0 ? '2' : '1',
});

describe('erasing a recipient from the archive', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'archive-erase-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** 6,000 messages in three verified members (several gunzip chunks each), and their events. */
  async function write(): Promise<Array<Record<string, unknown>>> {
    const archive = new MessageArchive(dir);
    const rows = Array.from({ length: 6000 }, (_, i) => message(i + 1));
    for (let i = 0; i < rows.length; i += 2000) {
      const slice = rows.slice(i, i + 2000);
      const events = slice.map((m) => ({ message_id: m.message_id, status: 'DELIVERED', note: m.recipient }));
      await archive.append(new Map([[DAY, { messages: slice, message_events: events }]]));
    }
    return rows;
  }

  it('rewrites the messages file with the account’s lines anonymised, every other line intact, and an index that checks', async () => {
    const rows = await write();
    const path = join(dir, DAY, 'messages.ndjson.gz');
    const hits = rows.filter((m) => m.account_id === '1' && m.recipient === R).length;
    expect(hits).toBeGreaterThan(100);

    expect(await eraseFromArchive(dir, erasure)).toEqual({ lines: { messages: hits }, files: 1 });

    const after = await readArchiveFile(path);
    expect(after).toEqual(
      rows.map((m) => (m.account_id === '1' && m.recipient === R ? { ...m, recipient: 'erased' } : m)),
    );
    // The other account's lines to the same number are its own to erase.
    expect(after.filter((m) => m.recipient === R)).toHaveLength(
      rows.filter((m) => m.account_id === '2' && m.recipient === R).length,
    );
    const member = (await readIndex(dir, DAY)).filter((e) => e.file === `${DAY}/messages.ndjson.gz`);
    const bytes = readFileSync(path);
    expect(member).toEqual([expect.objectContaining({ offset: 0, bytes: bytes.length, rows: rows.length })]);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(member[0].sha256);
    // The events file is listed as before, and nothing is left pending.
    expect(
      (await readIndex(dir, DAY)).filter((e) => e.file.endsWith('message_events.ndjson.gz')),
    ).toHaveLength(3);
    expect(() => readFileSync(path + PENDING)).toThrow();

    // A prune's later append goes after the rewritten file and is read with it.
    await new MessageArchive(dir).append(new Map([[DAY, { messages: [message(6001)] }]]));
    expect(await readArchiveFile(path)).toEqual([...after, message(6001)]);
    // A second erasure finds no line left to change.
    expect(await eraseFromArchive(dir, erasure)).toEqual({ lines: {}, files: 0 });
  });

  it('ends an erasure a crash cut between its two renames, before an append writes after it', async () => {
    await write();
    await eraseFromArchive(dir, erasure);
    const index = join(dir, DAY, INDEX_FILE);
    const rewritten = readFileSync(index, 'utf8');
    // As if the file had been renamed and the new index not yet: the old index describes three members.
    const old = (await readIndex(dir, DAY))
      .filter((e) => e.file.endsWith('message_events.ndjson.gz'))
      .concat([
        { file: `${DAY}/messages.ndjson.gz`, offset: 0, bytes: 10, rows: 1, sha256: 'x', written_at: '' },
      ]);
    writeFileSync(index, old.map((e) => `${JSON.stringify(e)}\n`).join(''));
    writeFileSync(index + PENDING, rewritten);

    await new MessageArchive(dir).append(new Map([[DAY, { messages: [message(6001)] }]]));
    const path = join(dir, DAY, 'messages.ndjson.gz');
    const all = await readArchiveFile(path);
    expect(all).toHaveLength(6001);
    expect(all.filter((m) => m.account_id === '1' && m.recipient === R)).toEqual([]);
  });

  it('drops a rewritten file of any family that a crash left beside the old one, with its pending index', async () => {
    await write();
    const events = join(dir, DAY, 'message_events.ndjson.gz');
    const index = join(dir, DAY, INDEX_FILE);
    const before = readFileSync(index, 'utf8');
    writeFileSync(events + PENDING, 'half a file');
    writeFileSync(index + PENDING, 'an index never put in place');

    await new MessageArchive(dir).append(new Map([[DAY, { messages: [message(6001)] }]]));
    expect(() => readFileSync(events + PENDING)).toThrow();
    expect(() => readFileSync(index + PENDING)).toThrow();
    expect(readFileSync(index, 'utf8').startsWith(before)).toBe(true);
    expect(await readArchiveFile(events)).toHaveLength(6000);
  });
});
