export {
  createClient,
  type Balance,
  type BulkMessagingClient,
  type CallOptions,
  type ChatSendBody,
  type ChatSendResult,
  type ClientOptions,
  type EmailSendBody,
  type EmailSendResult,
  type ListMessagesQuery,
  type Message,
  type MessageList,
  type SendOptions,
  type SmsSendBody,
  type SmsSendResult,
  type NumberLookup,
  type Verification,
  type VerificationChecked,
  type VerificationStartBody,
  type VerificationStarted,
  type Webhook,
  type WebhookCreateBody,
  type WebhookCreated,
  type WebhookDeleted,
  type WebhookDeliveriesQuery,
  type WebhookDeliveryList,
  type WebhookList,
  type WebhookUpdateBody,
} from './client.js';
export { REQUIRED_ONE_OF, type WithAlternatives } from './alternatives.js';
export { BulkMessagingError, type ErrorCode, type ErrorDetail } from './errors.js';
export type { RetryOptions } from './retry.js';
export { verifySignature, type SignedCallback } from './signature.js';
export type { components, paths } from './generated/api.js';
