import { createHash } from 'node:crypto';
import { appendFile, mkdir, open, readFile, rename, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { constants, gunzip as gunzipCb, gunzipSync, gzip as gzipCb } from 'node:zlib';

/** The table families of the archive: one file per day and family. */
export const FAMILIES = [
  'messages',
  'message_events',
  'message_parts',
  'delivery_reports',
  'callback_attempts',
] as const;
export type Family = (typeof FAMILIES)[number];

/** One verified write: a gzip member appended to a day's file, as the day's index records it. */
export interface IndexEntry {
  file: string;
  offset: number;
  bytes: number;
  rows: number;
  sha256: string;
  written_at: string;
}

/** What one batch puts in the archive: rows per day (YYYY-MM-DD, UTC) and family. */
export type ArchiveBatch = Map<string, Partial<Record<Family, object[]>>>;

export const INDEX_FILE = 'index.ndjson';
/** The suffix of an erasure's new file and index before they are renamed over the old ones. */
export const PENDING = '.erasing';

/** Off the main thread (libuv's pool), so a family's member compresses while another's is read or written. */
const gzipAsync = promisify(gzipCb);
/** zlib's fastest level: a third of the default's CPU. */
const gzip = (text: string) => gzipAsync(text, { level: constants.Z_BEST_SPEED });
const gunzip = promisify(gunzipCb);

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export class ArchiveError extends Error {}

/**
 * The archive: `<dir>/<YYYY-MM-DD>/<family>.ndjson.gz`, each file a series of gzip members (one
 * per batch; gunzip, zcat and Node read them as one stream), and `<dir>/<day>/index.ndjson`
 * listing every member with its offset, size, row count and SHA-256.
 *
 * A member is appended, flushed to disk and read back (checksum and row count) before its index
 * line is written, and the caller removes rows only after `append` resolves: a row is never
 * removed without a verified copy. A crash after the append but before the index line leaves
 * bytes past the indexed end, which the next append cuts off; a crash after the index line but
 * before the removal archives those rows again on the next run (a duplicate, never a loss).
 * One process writes at a time (the retention lock).
 */
export class MessageArchive {
  /** Indexed size of each file written this run, checked against the disk before each append. */
  private readonly sizes = new Map<string, number>();

  constructor(private readonly dir: string) {}

  /** Writes and verifies the batch; resolves with the members and rows written. */
  async append(batch: ArchiveBatch): Promise<{ members: number; rows: number }> {
    let members = 0;
    let rows = 0;
    for (const [day, families] of batch) {
      const dayDir = join(this.dir, day);
      await mkdir(dayDir, { recursive: true });
      await finishArchiveErasure(dayDir);
      // Each family is its own file: their members are compressed, written and read back at once.
      const written = FAMILIES.filter((f) => families[f]?.length);
      const entries = await Promise.all(written.map((f) => this.appendMember(day, f, families[f]!)));
      for (const e of entries) rows += e.rows;
      members += entries.length;
      const index = join(dayDir, INDEX_FILE);
      // A line cut short by a crash is ended first, so the new lines stay whole.
      const lead = (await endsInNewline(index)) ? '' : '\n';
      await appendFile(index, lead + entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
      await fsyncFile(index);
      for (const e of entries) this.sizes.set(e.file, e.offset + e.bytes);
    }
    return { members, rows };
  }

  private async appendMember(day: string, family: Family, list: object[]): Promise<IndexEntry> {
    const file = `${day}/${family}.ndjson.gz`;
    const path = join(this.dir, file);
    const offset = await this.indexedEnd(day, file);
    const onDisk = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    if (onDisk < offset)
      throw new ArchiveError(`${path} is shorter than its index says (${onDisk} < ${offset})`);
    // Bytes past the indexed end are a write that was never verified (the process stopped).
    if (onDisk > offset) await truncate(path, offset);
    const member = await gzip(list.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const handle = await open(path, 'a');
    try {
      await handle.write(member);
      await handle.sync();
    } finally {
      await handle.close();
    }
    const back = await readRange(path, offset, member.length);
    const digest = sha256(member);
    if (sha256(back) !== digest)
      throw new ArchiveError(`${path}: the bytes read back differ from those written`);
    const lines = countLines(await gunzip(back));
    if (lines !== list.length)
      throw new ArchiveError(`${path}: read back ${lines} rows, ${list.length} written`);
    return {
      file,
      offset,
      bytes: member.length,
      rows: list.length,
      sha256: digest,
      written_at: new Date().toISOString(),
    };
  }

  /** Where the file's verified members end, from this run's memory or the day's index. */
  private async indexedEnd(day: string, file: string): Promise<number> {
    const known = this.sizes.get(file);
    const onDisk = await stat(join(this.dir, file)).then(
      (s) => s.size,
      () => 0,
    );
    if (known !== undefined && known === onDisk) return known;
    let end = 0;
    for (const e of await readIndex(this.dir, day))
      if (e.file === file) end = Math.max(end, e.offset + e.bytes);
    this.sizes.set(file, end);
    return end;
  }
}

/** A day's index entries (none when the day has no archive yet). */
export async function readIndex(dir: string, day: string): Promise<IndexEntry[]> {
  const text = await readFile(join(dir, day, INDEX_FILE), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const entries: IndexEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      entries.push(JSON.parse(line) as IndexEntry);
    } catch {
      // A line cut short by a crash: its member was never counted as written.
    }
  }
  return entries;
}

async function endsInNewline(path: string): Promise<boolean> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0) return true;
  const last = await readRange(path, size - 1, 1);
  return last[0] === 10;
}

/** Every row of an archive file, in order. */
export async function readArchiveFile(path: string): Promise<Array<Record<string, unknown>>> {
  const text = gunzipSync(await readFile(path)).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function countLines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
  return n;
}

async function readRange(path: string, offset: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, offset);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * Ends an erasure a crash interrupted in `dayDir`: a family's new file and the day's new index
 * are renamed over the old ones in that order (one family at a time), so a new index left
 * pending while its file is already in place is renamed too; a pending file (the old one still
 * in place) is dropped with its index.
 */
export async function finishArchiveErasure(dayDir: string): Promise<void> {
  const index = join(dayDir, INDEX_FILE);
  let dropped = false;
  for (const family of FAMILIES) {
    const pending = join(dayDir, `${family}.ndjson.gz`) + PENDING;
    if (await exists(pending)) {
      await rm(pending);
      dropped = true;
    }
  }
  if (dropped) await rm(index + PENDING, { force: true });
  else if (await exists(index + PENDING)) await rename(index + PENDING, index);
}
