import { AppException } from '../../platform/errors/app.exception.js';
import { CHANNELS, type Channel } from '../messages/channel.js';

/** The opaque cursor of a suppression page: where the previous page ended. */
export function encodeCursor(channel: Channel, recipient: string): string {
  return Buffer.from(JSON.stringify([channel, recipient])).toString('base64url');
}

export function decodeCursor(cursor: string): { channel: Channel; recipient: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      (CHANNELS as readonly unknown[]).includes(value[0]) &&
      typeof value[1] === 'string'
    )
      return { channel: value[0] as Channel, recipient: value[1] };
  } catch {
    // answered below
  }
  throw AppException.validation(
    [{ field: 'cursor', message: 'not a cursor this service gave out' }],
    'The cursor is not valid.',
  );
}
