import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import {
  ArchiveError,
  finishArchiveErasure,
  fsyncFile,
  INDEX_FILE,
  PENDING,
  readIndex,
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

/**
 * Rewrites every messages file of the archive in which the account's recipient appears, with
 * `replacement` in its place, and lists the new file as one member in its day's index. The file
 * is streamed line by line (a day may be larger than memory), as far as its index says its
 * verified members go, into a new file beside it; the new file is flushed and read back (row
 * count against the rows read and the index's, SHA-256 against the bytes written) and only then
 * renamed over the old one, its index after it. Returns how many archived rows changed. The
 * caller holds the retention lock, so no prune appends meanwhile.
 */
export async function eraseFromArchive(
  dir: string,
  accountId: string,
  recipient: string,
  replacement: string,
): Promise<number> {
  const days = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  let changed = 0;
  for (const day of days.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)).sort()) {
    const dayDir = join(dir, day);
    await finishArchiveErasure(dayDir);
    const file = `${day}/messages.ndjson.gz`;
    const path = join(dir, file);
    if (!(await exists(path))) continue;
    const entries = await readIndex(dir, day);
    const members = entries.filter((e) => e.file === file);
    const end = members.length ? Math.max(...members.map((e) => e.offset + e.bytes)) : undefined;
    const indexed = members.reduce((n, e) => n + e.rows, 0);
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
          const row = JSON.parse(line) as Record<string, unknown>;
          if (row.account_id === accountId && row.recipient === recipient) {
            hits++;
            row.recipient = replacement;
            yield `${JSON.stringify(row)}\n`;
          } else yield `${line}\n`;
        }
      },
      createGzip(),
      written,
      createWriteStream(tmp),
    );
    if (hits === 0) {
      await rm(tmp);
      continue;
    }
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
    const others = entries.filter((e) => e.file !== file);
    await writeFile(index + PENDING, [...others, entry].map((e) => `${JSON.stringify(e)}\n`).join(''));
    await fsyncFile(index + PENDING);
    await rename(tmp, path);
    await rename(index + PENDING, index);
    await fsyncDir(dayDir);
    changed += hits;
  }
  return changed;
}
