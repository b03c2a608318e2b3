import type { ServerResponse } from 'node:http';
import { declareResponseFields } from './message-shape.js';

const HOOKS = Symbol('responseDoneHooks');
const ERROR = Symbol('responseError');
declareResponseFields(HOOKS);

type Hooked = ServerResponse & { [HOOKS]?: Array<() => void>; [ERROR]?: Error };

/**
 * Runs `fn` once the response is done: its `close` event, which follows the last byte handed
 * to the socket or the connection going away, whichever comes first. The middlewares that act
 * at the end of every request (access log, request-log row, HTTP metrics, the shutdown drain)
 * share one `close` listener and one `error` listener per response this way, instead of
 * adding and removing their own on each request. Hooks run in the order they were added.
 */
export function onResponseDone(res: ServerResponse, fn: () => void): void {
  const hooked = res as Hooked;
  let hooks = hooked[HOOKS];
  if (!hooks) {
    const list: Array<() => void> = [];
    hooks = hooked[HOOKS] = list;
    res.once('close', () => {
      for (const hook of list) hook();
    });
    // An 'error' event with no listener would throw; it is kept for the hooks to read.
    res.on('error', (err: Error) => {
      hooked[ERROR] ??= err;
    });
  }
  hooks.push(fn);
}

/** The first error the response emitted before it was done, if any. */
export function responseError(res: ServerResponse): Error | undefined {
  return (res as Hooked)[ERROR];
}
