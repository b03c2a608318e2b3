import { Injectable } from '@nestjs/common';
import { AppException } from '../../platform/errors/app.exception.js';
import { MessageLookupStore } from './message-lookup.store.js';
import { ShortLinks } from '../links/short-links.service.js';
import type { MessageView } from './message.types.js';
import { messageDetail, messageView, type MessageDto } from './message-response.dto.js';

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
    // Its short links (shorten_links) with their clicks; absent, as fallback is, where there are none.
    const links = await this.shortLinks.ofMessage(String(row.id));
    return { ...messageDetail(row, events), ...(links.length ? { links } : {}) };
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

  present(r: MessageView): MessageDto {
    return messageView(r);
  }
}
