import { randomFillSync } from 'node:crypto';

const BLOCK = 16 * 1024;
let pool = Buffer.alloc(0);
let pos = BLOCK;

/** Ids are 13 digits of epoch milliseconds, then 6 of node and sequence (sending/id-generator.ts). */
const COUNTER_DIGITS = 6;
const COUNTER_LIMIT = 1_000_000;

function randomBytes(n: number): Buffer {
  if (pos + n > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(BLOCK));
    pos = 0;
  }
  const out = pool.subarray(pos, pos + n);
  pos += n;
  return out;
}

/**
 * The UUIDv7 (RFC 9562 §6.2, method 1: a dedicated counter) of the message with numeric id
 * `id`: its 48-bit timestamp is the id's milliseconds, the 20 bits after the version (12 of
 * rand_a, 8 of rand_b) hold the id's node and sequence, and 54 bits are random. Two ids never
 * share a UUID, so the messages table's primary key keeps UUIDs unique even where their own
 * unique key must carry the id too (a table partitioned by id), and a lookup by UUID finds
 * the row by its id first (`idOfUuid`). Random bits come from a pooled buffer: asking the OS
 * for them per recipient costs more than the rest of a large request's work.
 */
export function uuidOfId(id: string): string {
  const ms = BigInt(id.slice(0, -COUNTER_DIGITS));
  const counter = Number(id.slice(-COUNTER_DIGITS));
  const b = Buffer.from(randomBytes(16));
  b.writeUIntBE(Number(ms), 0, 6);
  b[6] = 0x70 | ((counter >> 16) & 0x0f);
  b[7] = (counter >> 8) & 0xff;
  b[8] = 0x80 | ((counter >> 2) & 0x3f);
  b[9] = ((counter & 0x03) << 6) | (b[9] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The numeric id a UUID made by `uuidOfId` carries, or undefined when it cannot be one (not a
 * version 7 UUID, or a counter past the id's six digits). A UUID made otherwise (random, or
 * before UUIDs carried the id) may still decode to an id: a lookup checks both columns.
 */
export function idOfUuid(uuid: string): string | undefined {
  const h = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(h) || h[12] !== '7') return undefined;
  const b = Buffer.from(h, 'hex');
  const ms = b.readUIntBE(0, 6);
  const counter = ((b[6] & 0x0f) << 16) | (b[7] << 8) | ((b[8] & 0x3f) << 2) | (b[9] >> 6);
  if (counter >= COUNTER_LIMIT || ms < 1e12 || ms >= 1e13) return undefined;
  return `${ms}${String(counter).padStart(COUNTER_DIGITS, '0')}`;
}
