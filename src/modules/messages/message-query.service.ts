import { Injectable } from '@nestjs/common';
import { AppException } from '../../platform/errors/app.exception.js';
import { perUnit, toNumber } from '../../platform/money/money.js';
import { MessageLookupStore } from './message-lookup.store.js';
import { ShortLinks } from '../links/short-links.js';
import type { MessageView } from './message.types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const notFound = () => new AppException('NOT_FOUND', 'No such message.');

/** Status lookup beyond the interface: only the caller's own messages; anyone else's is 404. */
@Injectable()
export class MessageQueryService {
  constructor(
    private readonly store: MessageLookupStore,
    private readonly shortLinks: ShortLinks,
  ) {}

  /** `testMode`: the caller's key is a test key, and sees only test requests (a live key only live ones). */
  async one(accountId: string, messageId: string, testMode = false) {
    let row: MessageView | undefined;
    if (UUID.test(messageId))
      row = await this.store.findOwned(accountId, { uuid: messageId.toLowerCase() }, testMode);
    else if (/^\d{1,20}$/.test(messageId))
      row = await this.store.findOwned(accountId, { id: messageId }, testMode);
    else throw notFound();
    if (!row) throw notFound();
    const events = await this.store.history(String(row.id));
    const history = [
      {
        // A scheduled message was accepted as SCHEDULED; its release is in the history as ACKNOWLEDGED.
        status: row.units > 0 ? (row.send_at ? 'SCHEDULED' : 'ACKNOWLEDGED') : 'REJECTED',
        reason: row.units > 0 ? null : row.reason,
        occurred_at: row.created_at.toISOString(),
      },
      ...events.map((e) => ({
        status: e.status,
        reason: e.reason,
        occurred_at: e.occurred_at.toISOString(),
      })),
    ];
    // Its short links (shorten_links) with their clicks; absent, as fallback is, where there are none.
    const links = await this.shortLinks.ofMessage(String(row.id));
    return { ...this.present(row), history, ...(links.length ? { links } : {}) };
  }

  async byReference(
    accountId: string,
    apiReference: string,
    page: number,
    perPage: number,
    testMode = false,
  ) {
    if (!/^\d{1,20}$/.test(apiReference)) throw notFound();
    if (!(await this.store.ownsRequest(accountId, apiReference, testMode))) throw notFound();
    const { total, rows } = await this.store.page(apiReference, perPage, (page - 1) * perPage);
    return {
      api_reference: apiReference,
      page,
      per_page: perPage,
      total,
      data: rows.map((r) => this.present(r)),
    };
  }

  present(r: MessageView) {
    return {
      message_id: r.channel === 'email' ? String(r.id) : r.uuid,
      channel: r.channel,
      api_reference: String(r.send_request_id),
      recipient: r.recipient,
      status: r.status,
      reason: r.reason,
      units: r.units,
      cost: toNumber(r.cost),
      currency: r.currency,
      user_reference_id: r.user_reference_id,
      created_at: r.created_at.toISOString(),
      sent_at: r.sent_at?.toISOString() ?? null,
      completed_at: r.completed_at?.toISOString() ?? null,
      // Hand-over attempts so far, and why the last failed one did: while a message stays
      // ACKNOWLEDGED and is retried, this is where the cause shows.
      attempts: r.attempts,
      last_error: r.last_error,
      // When a scheduled send is (or was) due, and by when the message must reach a provider.
      send_at: r.send_at?.toISOString() ?? null,
      valid_until: r.valid_until?.toISOString() ?? null,
      cost_per_unit: r.units > 0 ? toNumber(perUnit(r.cost, r.units)) : null,
      connector: r.connector,
      // Chat and its SMS fallback, linked both ways; present only where there is a link.
      ...(r.fallback ? { fallback: fallbackView(r.fallback) } : {}),
      ...(r.fallback_of ? { fallback_of: r.fallback_of } : {}),
      // Submitted over SMPP: the id the client got in its submit_sm_resp.
      ...(r.smpp_message_id ? { smpp_message_id: String(r.smpp_message_id) } : {}),
    };
  }
}

function fallbackView(packed: string): { message_id: string; status: string } {
  const [message_id = '', status = ''] = packed.split(' ');
  return { message_id, status };
}
