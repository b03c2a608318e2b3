import createFetchClient, { type Client } from 'openapi-fetch';
import { errorFromResponse } from './errors.js';
import type { WithAlternatives } from './alternatives.js';
import type { components, paths } from './generated/api.js';
import { DEFAULT_RETRY, retryingFetch, type RetryOptions } from './retry.js';

type Schemas = components['schemas'];

/** The body of an SMS send: `from` or `sender_id`, `to` or `recipient`, and a text or template_id. */
export type SmsSendBody = WithAlternatives<'SmsSendDto'>;
export type SmsSendResult = Schemas['SmsSendResponseDto'];
/** The body of an e-mail send: `subject` and `email_body`, unless a template_id stands in for them. */
export type EmailSendBody = WithAlternatives<'EmailSendDto'>;
export type EmailSendResult = Schemas['EmailSendResponseDto'];
/** The body of a chat send: `message`, unless a template_id stands in for it. */
export type ChatSendBody = WithAlternatives<'ChatSendDto'>;
export type ChatSendResult = Schemas['ChatSendResponseDto'];
export type Balance = Schemas['BalanceResponseDto'];
export type Message = Schemas['MessageDetailDto'];
export type MessageList = Schemas['MessageSearchResponseDto'];
export type ListMessagesQuery = NonNullable<paths['/api/v1/json/messages']['get']['parameters']['query']>;
export type VerificationStartBody = Schemas['VerifyStartDto'];
export type VerificationStarted = Schemas['VerificationStartedDto'];
export type VerificationChecked = Schemas['VerificationCheckedDto'];
export type Verification = Schemas['VerificationDto'];
export type NumberLookup = Schemas['NumberLookupDto'];
export type WebhookCreateBody = Schemas['CreateWebhookDto'];
export type WebhookCreated = Schemas['CreatedWebhookDto'];
export type Webhook = Schemas['WebhookDto'];
export type WebhookList = Schemas['WebhookListDto'];
export type WebhookUpdateBody = Schemas['UpdateWebhookDto'];
export type WebhookDeleted = Schemas['WebhookDeletedDto'];
export type WebhookDeliveryList = Schemas['WebhookDeliveryListDto'];
export type WebhookDeliveriesQuery = NonNullable<
  paths['/api/v1/json/webhooks/{webhookId}/deliveries']['get']['parameters']['query']
>;

export interface ClientOptions extends Partial<RetryOptions> {
  /** Where the service is, e.g. `https://sms.example.com` (no trailing `/api`). */
  baseUrl: string;
  /** The API key (`bmk_live_…` or `bmk_test_…`), sent as `X-API-Key`. */
  apiKey: string;
  /** Another fetch (a proxy agent, a test double); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface SendOptions extends CallOptions {
  /**
   * The send's Idempotency-Key: generated when not given. Give your own (an order id) to make a
   * send safe to repeat across restarts of your program, not only across this call's retries.
   */
  idempotencyKey?: string;
}

export interface BulkMessagingClient {
  sendSms(body: SmsSendBody, options?: SendOptions): Promise<SmsSendResult>;
  sendEmail(body: EmailSendBody, options?: SendOptions): Promise<EmailSendResult>;
  sendChat(body: ChatSendBody, options?: SendOptions): Promise<ChatSendResult>;
  getBalance(options?: CallOptions): Promise<Balance>;
  getMessage(messageId: string, options?: CallOptions): Promise<Message>;
  listMessages(query?: ListMessagesQuery, options?: CallOptions): Promise<MessageList>;
  /** Sends a one-time code (a test key's answer carries it as `test_code`). */
  startVerification(body: VerificationStartBody, options?: SendOptions): Promise<VerificationStarted>;
  checkVerification(
    verificationId: string,
    code: string,
    options?: CallOptions,
  ): Promise<VerificationChecked>;
  cancelVerification(verificationId: string, options?: CallOptions): Promise<Verification>;
  getVerification(verificationId: string, options?: CallOptions): Promise<Verification>;
  /** A number's validity, country, type and this account's SMS price (free). */
  lookupNumber(number: string, options?: CallOptions): Promise<NumberLookup>;
  /** A webhook endpoint; its `secret` is in this answer only. */
  createWebhook(body: WebhookCreateBody, options?: SendOptions): Promise<WebhookCreated>;
  listWebhooks(options?: CallOptions): Promise<WebhookList>;
  getWebhook(webhookId: string, options?: CallOptions): Promise<Webhook>;
  /** Changes an endpoint's url, events, description or status (`enabled` turns it on again). */
  updateWebhook(webhookId: string, body: WebhookUpdateBody, options?: CallOptions): Promise<Webhook>;
  deleteWebhook(webhookId: string, options?: CallOptions): Promise<WebhookDeleted>;
  /** An endpoint's delivery log, newest first, paged by `next_cursor`. */
  listWebhookDeliveries(
    webhookId: string,
    query?: WebhookDeliveriesQuery,
    options?: CallOptions,
  ): Promise<WebhookDeliveryList>;
  /** The typed openapi-fetch client underneath (same key, same retries), for every other route. */
  readonly api: Client<paths>;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's body, or the service's refusal thrown as a BulkMessagingError. */
async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw errorFromResponse(response, error);
  return data;
}

export function createClient(options: ClientOptions): BulkMessagingClient {
  const { baseUrl, apiKey, fetch: fetchImpl, ...retry } = options;
  const api = createFetchClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { 'X-API-Key': apiKey },
    fetch: retryingFetch(fetchImpl ?? ((request) => globalThis.fetch(request)), {
      ...DEFAULT_RETRY,
      ...retry,
    }),
  });
  // One key for every attempt of one call: a retry is then the same request, never a second send.
  const create = (o: SendOptions | undefined) => ({
    params: { header: { 'Idempotency-Key': o?.idempotencyKey ?? globalThis.crypto.randomUUID() } },
    signal: o?.signal,
  });
  return {
    api,
    sendSms: (body, o) => unwrap(api.POST('/api/v1/json/bulk/sms', { body, ...create(o) })),
    sendEmail: (body, o) => unwrap(api.POST('/api/v1/json/bulk/email', { body, ...create(o) })),
    sendChat: (body, o) => unwrap(api.POST('/api/v1/json/bulk/chat', { body, ...create(o) })),
    getBalance: (o) => unwrap(api.GET('/api/v1/json/balance', { signal: o?.signal })),
    getMessage: (messageId, o) =>
      unwrap(
        api.GET('/api/v1/json/messages/{messageId}', {
          params: { path: { messageId } },
          signal: o?.signal,
        }),
      ),
    listMessages: (query = {}, o) =>
      unwrap(api.GET('/api/v1/json/messages', { params: { query }, signal: o?.signal })),
    startVerification: (body, o) => unwrap(api.POST('/api/v1/json/verify', { body, ...create(o) })),
    checkVerification: (verificationId, code, o) =>
      unwrap(
        api.POST('/api/v1/json/verify/{verificationId}/check', {
          params: { path: { verificationId } },
          body: { code },
          signal: o?.signal,
        }),
      ),
    cancelVerification: (verificationId, o) =>
      unwrap(
        api.POST('/api/v1/json/verify/{verificationId}/cancel', {
          params: { path: { verificationId } },
          signal: o?.signal,
        }),
      ),
    getVerification: (verificationId, o) =>
      unwrap(
        api.GET('/api/v1/json/verify/{verificationId}', {
          params: { path: { verificationId } },
          signal: o?.signal,
        }),
      ),
    lookupNumber: (number, o) =>
      unwrap(api.GET('/api/v1/json/lookup/{number}', { params: { path: { number } }, signal: o?.signal })),
    createWebhook: (body, o) => unwrap(api.POST('/api/v1/json/webhooks', { body, ...create(o) })),
    listWebhooks: (o) => unwrap(api.GET('/api/v1/json/webhooks', { signal: o?.signal })),
    getWebhook: (webhookId, o) =>
      unwrap(
        api.GET('/api/v1/json/webhooks/{webhookId}', { params: { path: { webhookId } }, signal: o?.signal }),
      ),
    updateWebhook: (webhookId, body, o) =>
      unwrap(
        api.PATCH('/api/v1/json/webhooks/{webhookId}', {
          params: { path: { webhookId } },
          body,
          signal: o?.signal,
        }),
      ),
    listWebhookDeliveries: (webhookId, query = {}, o) =>
      unwrap(
        api.GET('/api/v1/json/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId }, query },
          signal: o?.signal,
        }),
      ),
    deleteWebhook: (webhookId, o) =>
      unwrap(
        api.DELETE('/api/v1/json/webhooks/{webhookId}', {
          params: { path: { webhookId } },
          signal: o?.signal,
        }),
      ),
  };
}
