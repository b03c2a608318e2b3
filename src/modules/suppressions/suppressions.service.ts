import { Injectable } from '@nestjs/common';
import { AppException } from '../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../platform/errors/error-codes.js';
import type { Channel } from '../messages/channel.js';
import { normaliseEmail, normalisePhone, type RecipientCheck } from '../messages/recipients.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  RECIPIENT_REASONS,
  SuppressionStore,
  type ListOwner,
  type SuppressionReason,
} from './suppression.store.js';

export const MAX_LIST_LIMIT = 1000;
export const MAX_ADD = 10_000;

/** A recipient as the send pipeline stores it, so a listed one matches what a send normalises. */
export function normaliseRecipientFor(channel: Channel, raw: string): RecipientCheck {
  return channel === 'email' ? normaliseEmail(raw) : normalisePhone(raw);
}

export interface SuppressionView {
  channel: Channel;
  recipient: string;
  reason: SuppressionReason;
  created_at: string;
}

/** The suppression list as the API and the CLI see it: normalised input, clear refusals, cursor pages. */
@Injectable()
export class SuppressionsService {
  constructor(private readonly store: SuppressionStore) {}

  async add(
    owner: ListOwner,
    channel: Channel,
    raw: string[],
    reason: SuppressionReason = 'MANUAL',
  ): Promise<{ added: number; recipients: string[] }> {
    const recipients = this.normaliseAll(channel, raw, 'recipients');
    const added = await this.store.add(owner, channel, recipients, reason);
    return { added, recipients };
  }

  async remove(owner: ListOwner, channel: Channel, raw: string[]): Promise<{ removed: number }> {
    const recipients = this.normaliseAll(channel, raw, 'recipient');
    return { removed: await this.store.remove(owner, channel, recipients) };
  }

  /**
   * One recipient, as DELETE /suppressions/{channel}/{recipient}: 404 when it was not listed,
   * 403 when it is listed for what the recipient did (RECIPIENT_REASONS), which a tenant may not
   * undo.
   */
  async removeOne(owner: ListOwner, channel: Channel, raw: string): Promise<{ removed: number }> {
    const [recipient] = this.normaliseAll(channel, [raw], 'recipient');
    const removed = await this.store.removeExcept(owner, channel, [recipient], RECIPIENT_REASONS);
    if (removed > 0) return { removed };
    const reason = await this.store.reasonOf(owner, channel, recipient);
    if (reason)
      throw new AppException(
        'FORBIDDEN',
        `${raw} is suppressed for ${reason}, which the recipient caused: only the recipient (START) or an operator (CLI suppressions remove) can lift it.`,
      );
    throw new AppException('NOT_FOUND', `${raw} is not on the ${channel} suppression list.`);
  }

  async list(
    owner: ListOwner,
    channel: Channel | null,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ data: SuppressionView[]; next_cursor: string | null }> {
    const after = cursor ? decodeCursor(cursor) : null;
    const rows = await this.store.list(owner, channel, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map((r) => ({
        channel: r.channel,
        recipient: r.recipient,
        reason: r.reason,
        created_at: r.created_at.toISOString(),
      })),
      next_cursor: rows.length > limit && last ? encodeCursor(last.channel, last.recipient) : null,
    };
  }

  private normaliseAll(channel: Channel, raw: string[], field: string): string[] {
    const details: ErrorDetail[] = [];
    const out = new Set<string>();
    raw.forEach((r, i) => {
      const check = normaliseRecipientFor(channel, r);
      if (check.ok) out.add(check.value);
      else details.push({ field: raw.length > 1 ? `${field}[${i}]` : field, message: check.reason });
    });
    if (details.length)
      throw AppException.validation(details.slice(0, 100), `Not a valid ${channel} recipient.`);
    return [...out];
  }
}
