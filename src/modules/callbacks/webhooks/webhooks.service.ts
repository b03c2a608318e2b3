import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { cursorTag, decodeIdCursor, encodeIdCursor } from '../../../platform/http/id-cursor.js';
import type { WebhookEnvelope } from '../callback-job.js';
import { CallbackOutbox } from '../callback.outbox.js';
import { checkCallbackUrl } from '../callback-url.js';
import { RefusedTarget, safePost } from '../safe-post.js';
import { signCallback } from '../signature.js';
import {
  deliveryView,
  webhookView,
  type CreateWebhookDto,
  type UpdateWebhookDto,
  DELIVERIES_MAX_LIMIT,
} from './webhook.dto.js';
import { WebhookDeliveryStore } from './webhook-delivery.store.js';
import {
  WebhookEndpointStore,
  type EndpointOwner,
  type WebhookEndpointRow,
} from './webhook-endpoint.store.js';
import { TEST_EVENT } from './webhook-event-types.js';
import { WebhookFanOut, webhookJob } from './webhook-fan-out.service.js';

/** Endpoints an account may have, both sides counted. */
export const MAX_ENDPOINTS = 10;

const notFound = (id: string) =>
  new AppException('NOT_FOUND', `No webhook endpoint ${JSON.stringify(id)} for this key.`, [
    { field: 'webhook_id', message: 'not found' },
  ]);

const newSecret = () => `whsec_${randomBytes(24).toString('hex')}`;

/** The routes of /webhooks: an account's endpoints, their test event, delivery log and replays. */
@Injectable()
export class WebhooksService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly endpoints: WebhookEndpointStore,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly fanOut: WebhookFanOut,
    private readonly outbox: CallbackOutbox,
  ) {}

  async create(owner: EndpointOwner, dto: CreateWebhookDto) {
    const uuid = randomUUID();
    const secret = newSecret();
    const added = await this.endpoints.insert(
      owner,
      { uuid, url: this.checkUrl(dto.url), events: dto.events, description: dto.description ?? null, secret },
      MAX_ENDPOINTS,
    );
    if (!added)
      throw new AppException(
        'WEBHOOK_LIMIT_REACHED',
        `This account has ${MAX_ENDPOINTS} webhook endpoints, the most it may have.`,
        [{ field: 'url', message: 'delete or reuse an endpoint first' }],
      );
    this.fanOut.changed(owner.accountId);
    return { ...webhookView(await this.require(owner, uuid)), secret };
  }

  async list(owner: EndpointOwner) {
    return { webhooks: (await this.endpoints.list(owner)).map(webhookView) };
  }

  async get(owner: EndpointOwner, id: string) {
    return webhookView(await this.require(owner, id));
  }

  async update(owner: EndpointOwner, id: string, dto: UpdateWebhookDto) {
    const nulls = (['url', 'events'] as const).filter((f) => dto[f] === null);
    if (nulls.length)
      throw AppException.validation(nulls.map((field) => ({ field, message: 'must not be null' })));
    const url = dto.url == null ? undefined : this.checkUrl(dto.url);
    const change = { url, events: dto.events ?? undefined, description: dto.description, status: dto.status };
    if (!(await this.endpoints.update(owner, id, change))) throw notFound(id);
    this.fanOut.changed(owner.accountId);
    return this.get(owner, id);
  }

  async remove(owner: EndpointOwner, id: string) {
    if (!(await this.endpoints.remove(owner, id))) throw notFound(id);
    this.fanOut.changed(owner.accountId);
    await this.deliveries.removeEndpoint(id);
    return { webhook_id: id, deleted: true };
  }

  async rotateSecret(owner: EndpointOwner, id: string) {
    const secret = newSecret();
    if (!(await this.endpoints.setSecret(owner, id, secret))) throw notFound(id);
    return { webhook_id: id, secret };
  }

  /** Sends a webhook.test event now, signed as any event, and answers what the endpoint answered. */
  async test(owner: EndpointOwner, id: string) {
    const endpoint = await this.require(owner, id);
    const envelope: WebhookEnvelope = {
      event_id: randomUUID(),
      type: TEST_EVENT,
      occurred_at: new Date().toISOString(),
      data: { webhook_id: endpoint.uuid },
      test: owner.testMode,
    };
    const body = JSON.stringify(envelope);
    await this.deliveries.insert([
      {
        deliveryId: randomUUID(),
        eventId: envelope.event_id,
        webhookId: endpoint.uuid,
        accountId: owner.accountId,
        type: TEST_EVENT,
        envelope: body,
      },
    ]);
    const timestamp = Math.floor(Date.now() / 1000);
    const started = performance.now();
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      httpStatus = (
        await safePost(
          endpoint.url,
          body,
          {
            'X-Signature-Timestamp': String(timestamp),
            'X-Signature': signCallback(endpoint.secret, timestamp, body),
            'X-Event-Id': envelope.event_id,
          },
          {
            timeoutMs: this.config.callbackTimeoutMs,
            allowPrivate: this.config.callbackAllowPrivateNetworks,
            httpsOnly: this.config.callbackHttpsOnly,
          },
        )
      ).status;
      if (httpStatus < 200 || httpStatus >= 300) error = `HTTP ${httpStatus}`;
    } catch (err) {
      error = (err instanceof RefusedTarget ? 'refused: ' : '') + (err as Error).message.slice(0, 200);
    }
    const tookMs = Math.round(performance.now() - started);
    const delivered = error === null;
    await this.deliveries.attempted(envelope.event_id, endpoint.uuid, {
      httpStatus,
      error,
      delivered,
      nextAttemptAt: null,
    });
    return { event_id: envelope.event_id, delivered, http_status: httpStatus, error, took_ms: tookMs };
  }

  async deliveriesOf(owner: EndpointOwner, id: string, q: { cursor?: string; limit?: string }) {
    await this.require(owner, id);
    const limit = Number(q.limit ?? 50);
    if (limit < 1 || limit > DELIVERIES_MAX_LIMIT)
      throw AppException.validation([
        { field: 'limit', message: `limit must be a whole number from 1 to ${DELIVERIES_MAX_LIMIT}` },
      ]);
    const tag = cursorTag([owner.accountId, owner.testMode, id]);
    const before = q.cursor ? decodeIdCursor(q.cursor, tag) : null;
    const rows = await this.deliveries.page(id, before, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      success: true,
      data: page.map(deliveryView),
      next_cursor: rows.length > limit && last ? encodeIdCursor(last.id, tag) : null,
    };
  }

  /** Queues the logged event again, with its event_id, through the outbox as any event. */
  async replay(owner: EndpointOwner, id: string, eventId: string) {
    const endpoint = await this.require(owner, id);
    const row = await this.deliveries.get(id, eventId);
    if (!row)
      throw new AppException(
        'NOT_FOUND',
        `No event ${JSON.stringify(eventId)} for this endpoint in the last 7 days.`,
        [{ field: 'event_id', message: 'not found' }],
      );
    if (endpoint.status !== 'enabled')
      throw AppException.validation(
        [{ field: 'status', message: 'the endpoint is disabled: enable it (PATCH) first' }],
        'The endpoint is disabled.',
      );
    await this.outbox.queue([
      webhookJob(endpoint, randomUUID(), JSON.parse(row.envelope) as WebhookEnvelope),
    ]);
    return { event_id: eventId, queued: true };
  }

  private checkUrl(url: string): string {
    return checkCallbackUrl(
      url,
      this.config.callbackAllowPrivateNetworks,
      this.config.callbackHttpsOnly,
      'url',
    );
  }

  private async require(owner: EndpointOwner, id: string): Promise<WebhookEndpointRow> {
    const row = await this.endpoints.get(owner, id);
    if (!row) throw notFound(id);
    return row;
  }
}
