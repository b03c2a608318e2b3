import { Decimal } from 'decimal.js';
import { toNumber } from '../../../platform/money/money.js';
import type { SendPreview } from '../send.types.js';

/** The preview answer, the same for every channel: per recipient, then totals. */
export function previewResponse(p: SendPreview) {
  let units = 0;
  const recipients = p.entries.map((e) => {
    const accepted = e.status !== 'REJECTED';
    if (accepted) units += e.measure!.units;
    return {
      recipient: e.recipient,
      status: e.status,
      ...(e.reason ? { reason: e.reason } : {}),
      encoding: e.measure?.encoding ?? null,
      characters: e.measure?.characters ?? 0,
      segments: e.measure?.segments ?? 0,
      units: accepted ? e.measure!.units : 0,
      cost: toNumber(e.cost),
      ...(e.sendAt ? { send_at: e.sendAt.toISOString() } : {}),
    };
  });
  return {
    recipients,
    totals: {
      accepted: p.acceptedCount,
      rejected: p.entries.length - p.acceptedCount,
      units,
      cost: toNumber(p.cost),
      currency: p.currency,
      balance: toNumber(p.balance),
      sufficient: new Decimal(p.balance).greaterThanOrEqualTo(p.cost),
    },
    non_gsm_characters: p.nonGsmCharacters,
    // Only when smart encoding was on, as in the send answer.
    ...(p.replaced ? { replaced: p.replaced } : {}),
  };
}
