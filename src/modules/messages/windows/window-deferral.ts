import type { Channel } from '../channel.js';
import { windowOpening, type SendWindow } from './send-window.js';
import { zoneOfNumber } from './recipient-zone.js';

/** An accepted entry of a send, as the pipeline lists it. */
interface Deferrable {
  recipient: string;
  status: string;
  /** Its own release time, when a window moved it past the request's. */
  sendAt?: Date;
}

/**
 * The send-window step of the pipeline: each accepted recipient whose window is closed at
 * `base` (the request's send_at, else now) waits, SCHEDULED, until its window next opens. A
 * reschedule runs it again over the messages still waiting, from the new send_at.
 * A number keeps its country's local time, an e-mail address the account's zone. Openings are
 * computed once per zone. Returns how many entries the window deferred.
 */
export function deferToWindow(
  entries: Deferrable[],
  channel: Channel,
  window: SendWindow,
  accountZone: string,
  base: Date,
): number {
  const openings = new Map<string, Date>();
  let deferred = 0;
  for (const e of entries) {
    if (e.status === 'REJECTED') continue;
    const zone = channel === 'email' ? accountZone : (zoneOfNumber(e.recipient) ?? accountZone);
    let opening = openings.get(zone);
    if (!opening) {
      opening = windowOpening(window, zone, base);
      openings.set(zone, opening);
    }
    if (opening.getTime() > base.getTime()) {
      e.status = 'SCHEDULED';
      e.sendAt = opening;
      deferred++;
    }
  }
  return deferred;
}
