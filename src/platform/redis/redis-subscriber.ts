import type { Redis } from 'ioredis';

export interface SubscriberOptions {
  /** A message on the channel. */
  onMessage: (text: string) => void;
  /** A subscription that failed (Redis away, or the connection closed meanwhile). */
  onFailure: (err: Error) => void;
}

/**
 * A connection of its own (a copy of `redis`'s options) subscribed to `channel`, subscribed
 * again each time it reconnects; close it with `disconnect()`.
 *
 * ioredis's own resubscription is off: it sends SUBSCRIBE after a reconnection and drops the
 * promise. A connection closed while that reconnection is under way (a shutdown moments after
 * Redis came back) still sends it, on a connection already ending, and its "Connection is
 * closed." rejection reached no one: an unhandled rejection, which fails the process. Here each
 * SUBSCRIBE, the first and every later one, has its failure handled by `onFailure`.
 */
export function subscriber(redis: Redis, channel: string, options: SubscriberOptions): Redis {
  const sub = redis.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    lazyConnect: true,
    autoResubscribe: false,
  });
  // The owner's main connection reports outages; each failed subscription is passed on.
  sub.on('error', () => undefined);
  sub.on('message', (_channel: string, text: string) => options.onMessage(text));
  sub.on('ready', () => {
    sub.subscribe(channel).catch(options.onFailure);
  });
  sub.connect().catch(options.onFailure);
  return sub;
}
