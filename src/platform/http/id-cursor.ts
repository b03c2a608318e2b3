import { AppException } from '../errors/app.exception.js';

/** The opaque cursor of a list paged by row id: the last id of the previous page. */
export function encodeIdCursor(id: string | number): string {
  return Buffer.from(String(id)).toString('base64url');
}

/** The id a cursor of encodeIdCursor carries; 400 for anything this service did not give out. */
export function decodeIdCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{1,20}$/.test(id))
    throw AppException.validation(
      [{ field: 'cursor', message: 'not a cursor this service gave out' }],
      'The cursor is not valid.',
    );
  return id;
}
