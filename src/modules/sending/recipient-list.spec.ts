import { describe, expect, it } from 'vitest';
import type { ChannelPolicy } from './channel-policy.js';
import { listRecipients } from './recipient-list.js';
import type { ListedRecipient } from './send.types.js';

/** Digits only, at most 12: enough of a channel's rule to tell valid from invalid. */
const policy = {
  normaliseRecipient: (v: unknown) =>
    typeof v === 'string' && /^\d{1,12}$/.test(v.trim())
      ? { ok: true, value: v.trim() }
      : { ok: false, reason: 'INVALID_NUMBER' },
} as unknown as ChannelPolicy;

const counter = () => {
  let n = 0;
  return () => String(++n);
};

const shape = (l: ListedRecipient[]) => l.map((e) => `${e.index}:${e.recipient}:${e.status}:${e.messageId}`);

describe('listRecipients', () => {
  it('lists a small request at once, in order, repeats once, invalid ones REJECTED', () => {
    const listed = listRecipients(policy, ['1', ' 2', '1', 'x', '3'], counter());
    expect(Array.isArray(listed)).toBe(true);
    expect(shape(listed as ListedRecipient[])).toEqual([
      '0:1:ACKNOWLEDGED:1',
      '1:2:ACKNOWLEDGED:2',
      '3:x:REJECTED:3',
      '4:3:ACKNOWLEDGED:4',
    ]);
  });

  it('lists a long request in tasks, with the same answer as one pass, repeats across tasks included', async () => {
    const raw = Array.from({ length: 5000 }, (_, i) => String(i % 4500));
    const listed = listRecipients(policy, raw, counter());
    expect(listed).toBeInstanceOf(Promise);
    const entries = await listed;
    expect(entries).toHaveLength(4500);
    expect(entries.at(-1)).toMatchObject({ index: 4499, recipient: '4499', messageId: '4500' });
    expect(new Set(entries.map((e) => e.uuid)).size).toBe(4500);
  });
});
