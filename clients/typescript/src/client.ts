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
  };
}
