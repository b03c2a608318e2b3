import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppException } from '../../../platform/errors/app.exception.js';
import { MessageQueryService } from '../message-query.service.js';
import { MessageSearchStore, type MessageFilter, type SearchPosition } from '../message-search.store.js';
import type { MessageFilterQuery, MessageSearchQuery } from './message-filter.dto.js';

const DEFAULT_LIMIT = 100;
/** Parameters of the cursor paging; the page-numbered form takes none of them. */
const CURSOR_ONLY = ['cursor', 'limit', 'order'] as const;
const FILTERS_BEYOND_REFERENCE = [
  'status',
  'channel',
  'recipient',
  'user_reference_id',
  'created_from',
  'created_to',
] as const;

const invalid = (field: string, message: string) => AppException.validation([{ field, message }]);

/**
 * A cursor is the last message's place in the order (its created_at in ms and its id) and a
 * tag of the filters it was given under: a cursor of another filter, or one made up to point
 * into the future, is refused (400) rather than quietly restarting or skipping the paging.
 */
export function encodeCursor(p: SearchPosition, filterTag: string): string {
  return Buffer.from(`${p.createdAt.getTime()}:${p.id}:${filterTag}`).toString('base64url');
}

/** Clocks of API processes may differ a little; a cursor further ahead than this was not given out. */
const CURSOR_CLOCK_SKEW_MS = 60_000;

export function decodeCursor(cursor: string, filterTag: string): SearchPosition {
  const m = /^(\d{1,15}):(\d{1,20}):([A-Za-z0-9_-]{1,22})$/.exec(
    Buffer.from(cursor, 'base64url').toString('latin1'),
  );
  if (!m) throw invalid('cursor', 'cursor must be the next_cursor of a previous page');
  if (m[3] !== filterTag)
    throw invalid(
      'cursor',
      'cursor belongs to a search with other filters or order: repeat the filters it was given with',
    );
  const createdAt = new Date(Number(m[1]));
  if (createdAt.getTime() > Date.now() + CURSOR_CLOCK_SKEW_MS)
    throw invalid('cursor', 'cursor must be the next_cursor of a previous page');
  return { createdAt, id: m[2] };
}

/** A short digest of the filters (and order) a cursor pages through (not a secret: it only tells them apart). */
export function filterTag(q: MessageFilterQuery & { order?: string }, testMode: boolean): string {
  const parts = [
    q.api_reference,
    q.status,
    q.channel,
    q.recipient,
    q.user_reference_id,
    q.created_from,
    q.created_to,
    testMode ? 'test' : 'live',
    // Absent for oldest first, so the cursors of the default order stay as they were.
    ...(q.order === 'desc' ? ['desc'] : []),
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 11);
}

function instant(field: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  // Date rolls 2026-02-30 over into March instead of refusing it.
  const [y, m, d] = value.slice(0, 10).split('-').map(Number);
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (Number.isNaN(at.getTime()) || m < 1 || m > 12 || d < 1 || d > daysInMonth)
    throw invalid(field, `${field} is not a real date`);
  return at;
}

/** The message search: filters, cursor paging, and the older page-numbered list of one request. */
@Injectable()
export class MessageSearchService {
  constructor(
    private readonly store: MessageSearchStore,
    private readonly lookups: MessageQueryService,
  ) {}

  /** The store's filter for a query: references become request ids of the caller's own account. */
  async filter(accountId: string, q: MessageFilterQuery, testMode = false): Promise<MessageFilter> {
    const f: MessageFilter = {
      accountId,
      testMode,
      status: q.status,
      channel: q.channel,
      // Numbers are stored without their +, as the send answers show them.
      recipient: q.recipient === undefined ? undefined : q.recipient.trim().replace(/^\+(?=\d+$)/, ''),
      createdFrom: instant('created_from', q.created_from),
      createdTo: instant('created_to', q.created_to),
    };
    if (q.api_reference !== undefined) f.sendRequestIds = [q.api_reference];
    if (q.user_reference_id !== undefined) {
      const ids = await this.store.requestIdsByReference(accountId, q.user_reference_id, testMode);
      f.sendRequestIds = f.sendRequestIds ? f.sendRequestIds.filter((id) => ids.includes(id)) : ids;
    }
    return f;
  }

  async search(accountId: string, q: MessageSearchQuery, testMode = false) {
    const paged = q.page !== undefined || q.per_page !== undefined;
    if (paged && CURSOR_ONLY.some((k) => q[k] !== undefined))
      throw invalid('page', 'page and per_page cannot be combined with cursor and limit');
    const filtered = FILTERS_BEYOND_REFERENCE.some((k) => q[k] !== undefined);
    if (paged && (q.api_reference === undefined || filtered))
      throw invalid('page', 'page and per_page list one request: give api_reference alone, or use cursor');
    // api_reference alone: the page-numbered list of one request.
    if (q.api_reference !== undefined && !filtered && !CURSOR_ONLY.some((k) => q[k] !== undefined)) {
      const page = Number(q.page ?? 1);
      const perPage = Number(q.per_page ?? 100);
      return this.lookups.byReference(accountId, q.api_reference, page, perPage, testMode);
    }
    const limit = q.limit === undefined ? DEFAULT_LIMIT : Number(q.limit);
    const tag = filterTag(q, testMode);
    const after = q.cursor === undefined ? null : decodeCursor(q.cursor, tag);
    const f = await this.filter(accountId, q, testMode);
    const rows = await this.store.page(f, after, limit + 1, q.order ?? 'asc');
    const more = rows.length > limit;
    const data = (more ? rows.slice(0, limit) : rows).map((r) => this.lookups.present(r));
    const last = more ? rows[limit - 1] : undefined;
    return {
      limit,
      next_cursor: last ? encodeCursor({ createdAt: last.created_at, id: String(last.id) }, tag) : null,
      data,
    };
  }
}
