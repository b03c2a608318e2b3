import type { ChannelPolicy } from './channel-policy.js';
import type { ListedRecipient } from './send.types.js';
import { uuidOfId } from '../messages/message-uuid.js';

/** Recipients handled between two yields to the event loop. */
const YIELD_EVERY = 2000;

/**
 * Normalises, drops repeats (listed once) and marks invalid recipients REJECTED, keeping input
 * order; each gets a message id (`nextId`) and a UUID. A request of more than YIELD_EVERY
 * recipients is listed in tasks of YIELD_EVERY with a yield to the event loop between them, so
 * a 100,000-recipient request does not hold up everyone else's; a smaller one is listed at once,
 * with no promise.
 */
export function listRecipients(
  policy: ChannelPolicy,
  raw: string[],
  nextId: () => string,
): ListedRecipient[] | Promise<ListedRecipient[]> {
  if (raw.length <= YIELD_EVERY) return listRange(policy, raw, 0, raw.length, nextId, new Set(), []);
  return listInTasks(policy, raw, nextId);
}

async function listInTasks(policy: ChannelPolicy, raw: string[], nextId: () => string) {
  const seen = new Set<string>();
  const out: ListedRecipient[] = [];
  for (let from = 0; from < raw.length; from += YIELD_EVERY) {
    if (from > 0) await new Promise((r) => setImmediate(r));
    listRange(policy, raw, from, Math.min(raw.length, from + YIELD_EVERY), nextId, seen, out);
  }
  return out;
}

/** The recipients raw[from, to), into `out`; `seen` holds those already listed. */
function listRange(
  policy: ChannelPolicy,
  raw: string[],
  from: number,
  to: number,
  nextId: () => string,
  seen: Set<string>,
  out: ListedRecipient[],
): ListedRecipient[] {
  for (let index = from; index < to; index++) {
    const value = raw[index];
    const check = policy.normaliseRecipient(value);
    const recipient = check.ok ? check.value : String(value).slice(0, 320);
    if (seen.has(recipient)) continue;
    seen.add(recipient);
    const messageId = nextId();
    out.push({
      index,
      messageId,
      uuid: uuidOfId(messageId),
      recipient,
      status: check.ok ? 'ACKNOWLEDGED' : 'REJECTED',
      reason: check.ok ? undefined : check.reason,
    });
  }
  return out;
}
