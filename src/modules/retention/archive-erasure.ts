import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import {
  ArchiveError,
  FAMILIES,
  finishArchiveErasure,
  fsyncFile,
  INDEX_FILE,
  PENDING,
  readIndex,
  type Family,
  type IndexEntry,
} from './message-archive.js';

/** A pass-through that hashes and measures the bytes going by. */
class Digest extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  override _transform(chunk: Buffer, _: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

/** The lines of UTF-8 text chunks (a chunk may end inside a line). */
async function* splitLines(source: AsyncIterable<string>): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of source) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    yield* lines;
  }
  if (rest) yield rest;
}

/** A gunzip whose output is read as text: a character cut between two chunks is decoded whole. */
function gunzipText() {
  const gunzip = createGunzip();
  gunzip.setEncoding('utf8');
  return gunzip;
}

/** Rows and SHA-256 of a written gzip file, read back from the disk as a stream. */
async function verify(path: string): Promise<{ rows: number; sha256: string; bytes: number }> {
  const digest = new Digest();
  let rows = 0;
  await pipeline(createReadStream(path), digest, gunzipText(), async (source: AsyncIterable<string>) => {
    for await (const line of splitLines(source)) if (line) rows++;
  });
  return { rows, sha256: digest.hash.digest('hex'), bytes: digest.bytes };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function fsyncDir(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Whose archive lines an erasure rewrites, and what the recipient becomes in them. */
export interface ArchiveErasure {
  accountId: string;
  recipient: string;
  replacement: string;
}

/** A line rewritten without the recipient, or null when the line does not name it. */
type LineEraser = (row: Record<string, unknown>, e: ArchiveErasure) => Record<string, unknown> | null;

/**
 * How each family's lines are erased; null for a family whose archived columns can hold neither
 * a number nor a text (RetentionStore.related chooses them), which is then not read at all. A new
 * family must say which it is.
 */
const ERASERS: Record<Family, LineEraser | null> = {
  // The export's fields: the number, and no text (the message's text is not archived).
  messages: (row, e) =>
    row.account_id === e.accountId && row.recipient === e.recipient
      ? { ...row, recipient: e.replacement }
      : null,
  // Ids, states, reasons and times.
  message_events: null,
  // Part numbers, the provider's ids, states and times.
  message_parts: null,
  // The receipt as applied (provider id, state, reason, times): its raw text is not kept.
  delivery_reports: null,
  // The attempt's target, outcome and timing: the payload sent is not kept.
  callback_attempts: null,
};

export interface ArchiveErasureResult {
  /** Lines rewritten, per family. */
  lines: Partial<Record<Family, number>>;
  /** Files rewritten (each replaced whole, with its index entry). */
  files: number;
}

/**
 * Rewrites every archive file in which the account's recipient appears, family by family, with
 * `replacement` in its place, and lists each new file as one member in its day's index. The
 * caller holds the retention lock, so no prune appends meanwhile.
 */
export async function eraseFromArchive(dir: string, e: ArchiveErasure): Promise<ArchiveErasureResult> {
  const days = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const result: ArchiveErasureResult = { lines: {}, files: 0 };
  // Only a line holding the recipient as a JSON string can name it: the others are not parsed.
  const needle = JSON.stringify(e.recipient);
  for (const day of days.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)).sort()) {
    await finishArchiveErasure(join(dir, day));
    for (const family of FAMILIES) {
      const eraser = ERASERS[family];
      if (!eraser) continue;
      const hits = await rewriteFile(dir, day, family, (line) => {
        if (!line.includes(needle)) return null;
        const erased = eraser(JSON.parse(line) as Record<string, unknown>, e);
        return erased && JSON.stringify(erased);
      });
      if (hits === 0) continue;
      result.lines[family] = (result.lines[family] ?? 0) + hits;
      result.files++;
    }
  }
  return result;
}

/** The lines of a gzip file up to byte `end` (the whole file when undefined), streamed to `each`. */
async function eachLine(path: string, end: number | undefined, each: (line: string) => void): Promise<void> {
  await pipeline(
    createReadStream(path, end === undefined ? {} : { end: end - 1 }),
    gunzipText(),
    async (source: AsyncIterable<string>) => {
      for await (const line of splitLines(source)) if (line) each(line);
    },
  );
}

/**
 * Rewrites one day's file of a family through `erase` (a line rewritten, or null when it stays),
 * if any line changes; returns how many did. A first pass only reads, so a file without such a
 * line is not written at all. The file is streamed line by line (a day may be larger than
 * memory), as far as its index says its verified members go, into a new file beside it; the new
 * file is flushed and read back (row count against the rows read and the index's, SHA-256
 * against the bytes written) and only then renamed over the old one, the day's index after it.
 */
async function rewriteFile(
  dir: string,
  day: string,
  family: Family,
  erase: (line: string) => string | null,
): Promise<number> {
  const dayDir = join(dir, day);
  const file = `${day}/${family}.ndjson.gz`;
  const path = join(dir, file);
  if (!(await exists(path))) return 0;
  const entries = await readIndex(dir, day);
  const members = entries.filter((m) => m.file === file);
  const end = members.length ? Math.max(...members.map((m) => m.offset + m.bytes)) : undefined;
  const indexed = members.reduce((n, m) => n + m.rows, 0);
  let found = 0;
  await eachLine(path, end, (line) => {
    if (erase(line) !== null) found++;
  });
  if (found === 0) return 0;
  let rows = 0;
  let hits = 0;
  const tmp = path + PENDING;
  const written = new Digest();
  await pipeline(
    createReadStream(path, end === undefined ? {} : { end: end - 1 }),
    gunzipText(),
    async function* (source: AsyncIterable<string>) {
      for await (const line of splitLines(source)) {
        if (!line) continue;
        rows++;
        const erased = erase(line);
        if (erased !== null) hits++;
        yield `${erased ?? line}\n`;
      }
    },
    createGzip(),
    written,
    createWriteStream(tmp),
  );
  if (members.length && rows !== indexed) {
    await rm(tmp);
    throw new ArchiveError(`${path}: read ${rows} rows, its index lists ${indexed}; nothing was rewritten`);
  }
  await fsyncFile(tmp);
  const sha256 = written.hash.digest('hex');
  const back = await verify(tmp);
  if (back.rows !== rows || back.sha256 !== sha256 || back.bytes !== written.bytes) {
    await rm(tmp);
    throw new ArchiveError(`${tmp}: the file read back differs from the one written; nothing was replaced`);
  }
  const entry: IndexEntry = {
    file,
    offset: 0,
    bytes: written.bytes,
    rows,
    sha256,
    written_at: new Date().toISOString(),
  };
  const index = join(dayDir, INDEX_FILE);
  const others = entries.filter((m) => m.file !== file);
  await writeFile(index + PENDING, [...others, entry].map((m) => `${JSON.stringify(m)}\n`).join(''));
  await fsyncFile(index + PENDING);
  await rename(tmp, path);
  await rename(index + PENDING, index);
  await fsyncDir(dayDir);
  return hits;
}
