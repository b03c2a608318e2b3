import { createHash } from 'node:crypto';
import { AppException } from '../errors/app.exception.js';

/**
 * A short digest of the filters a cursor pages through (not a secret: it only tells filters
 * apart), so a cursor given under other filters is refused rather than paging the wrong list.
 */
export function cursorTag(filters: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 11);
}

/** The opaque cursor of a list paged by row id: the last id of the previous page, and the tag of its filters if any. */
export function encodeIdCursor(id: string | number, tag?: string): string {
  return Buffer.from(tag === undefined ? String(id) : `${id}:${tag}`).toString('base64url');
}

const invalid = (message: string) =>
  AppException.validation([{ field: 'cursor', message }], 'The cursor is not valid.');

/**
 * The id a cursor of encodeIdCursor carries; 400 for anything this service did not give out, and
 * (with `tag`) for a cursor given under other filters.
 */
export function decodeIdCursor(cursor: string, tag?: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = tag === undefined ? /^(\d{1,20})$/.exec(text) : /^(\d{1,20}):([A-Za-z0-9_-]{1,22})$/.exec(text);
  if (!m) throw invalid('not a cursor this service gave out');
  if (tag !== undefined && m[2] !== tag)
    throw invalid('cursor belongs to a list with other filters: repeat the filters it was given with');
  return m[1];
}

/** 400 for a cursor past the newest row there is: made up, not given out (it would read as the end). */
export function refuseCursorPast(id: string, newest: string | null): void {
  if (newest === null || BigInt(id) > BigInt(newest)) throw invalid('not a cursor this service gave out');
}
