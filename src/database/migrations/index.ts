import type { MigrationInterface } from 'typeorm';
import { CreateCoreTables1764000000000 } from './main/1764000000000-create-core-tables.js';
import { CreateMessageEvents1764000100000 } from './main/1764000100000-create-message-events.js';
import { ExactUserReferenceId1764000450000 } from './main/1764000450000-exact-user-reference-id.js';
import { CreateMessageParts1764000600000 } from './main/1764000600000-create-message-parts.js';
import { IndexMessagesByStatus1764000612000 } from './main/1764000612000-index-messages-by-status.js';
import { MessageLastAttempt1764013100000 } from './main/1764013100000-message-last-attempt.js';
import { MessagePersonalisedText1764019000000 } from './main/1764019000000-message-personalised-text.js';
import { AccountSmartEncoding1764019100000 } from './main/1764019100000-account-smart-encoding.js';
import { CreateTemplates1764019200000 } from './main/1764019200000-create-templates.js';
import { ScheduleValidityCancel1764020000000 } from './main/1764020000000-schedule-validity-cancel.js';
import { TestModeKeysAndRequests1764021100000 } from './main/1764021100000-test-mode-keys-and-requests.js';
import { DailySpendLimits1764021200000 } from './main/1764021200000-daily-spend-limits.js';
import { IndexMessagesForSearch1764022000000 } from './main/1764022000000-index-messages-for-search.js';
import { CreateConnectorsRoutesPrices1764023000000 } from './main/1764023000000-create-connectors-routes-prices.js';
import { CreateInboundAndSuppressions1764030000000 } from './main/1764030000000-create-inbound-and-suppressions.js';
import { TestModeInboundAndSuppressions1764031000000 } from './main/1764031000000-test-mode-inbound-and-suppressions.js';
import { AccountStatusCallbackUrl1764040000000 } from './main/1764040000000-account-status-callback-url.js';
import { CreateIdempotencyKeys1764042000000 } from './main/1764042000000-create-idempotency-keys.js';
import { IdempotencyAnswersWithoutSecrets1764060500000 } from './main/1764060500000-idempotency-answers-without-secrets.js';
import { CallbackOutboxRecipientHash1764060200000 } from './notification/1764060200000-callback-outbox-recipient-hash.js';
import { TestModeTemplates1764042300000 } from './main/1764042300000-test-mode-templates.js';
import { InboundBySender1764042400000 } from './main/1764042400000-inbound-by-sender.js';
import { ConnectorStateLastError1764043000000 } from './main/1764043000000-connector-state-last-error.js';
import { SendWindows1764050000000 } from './main/1764050000000-send-windows.js';
import { SubaccountsAndTransfers1764051000000 } from './main/1764051000000-subaccounts-and-transfers.js';
import { ChatSmsFallback1764052000000 } from './main/1764052000000-chat-sms-fallback.js';
import { RequestSendWindow1764053000000 } from './main/1764053000000-request-send-window.js';
import { FamilyDailySpend1764054100000 } from './main/1764054100000-family-daily-spend.js';
import { CreateWebhookEndpoints1796597632234 } from './main/1796597632234-create-webhook-endpoints.js';
import { CreateWebhookDeliveries1796597632251 } from './notification/1796597632251-create-webhook-deliveries.js';
import { CreateEventCatchUp1796600000000 } from './notification/1796600000000-create-event-catch-up.js';
import { PartitionDeliveryReportsByDay1796602000000 } from './notification/1796602000000-partition-delivery-reports-by-day.js';
import { PartitionCallbackAttemptsByDay1796603000000 } from './notification/1796603000000-partition-callback-attempts-by-day.js';
import { WebhookDeliveriesFirstPending1796604000000 } from './notification/1796604000000-webhook-deliveries-first-pending.js';
import { WebhookDeliveriesRecipientHash1796605000000 } from './notification/1796605000000-webhook-deliveries-recipient-hash.js';
import { CreateSmppCredentials1764060000000 } from './main/1764060000000-create-smpp-credentials.js';
import { CreateSmppSegments1764060100000 } from './main/1764060100000-create-smpp-segments.js';
import { CreateSmppReceipts1764061000000 } from './main/1764061000000-create-smpp-receipts.js';
import { CreateVerifications1796597651138 } from './main/1796597651138-create-verifications.js';
import { CreatePumpingSettings1796597651159 } from './main/1796597651159-create-pumping-settings.js';
import { CreateAccountCountries1796597653875 } from './main/1796597653875-create-account-countries.js';
import { CreateShortLinks1796597775679 } from './main/1796597775679-create-short-links.js';
import { PartitionMessageTablesByDay1796597880783 } from './main/1796597880783-partition-message-tables-by-day.js';
import { SmppSegmentTimes1796599014637 } from './main/1796599014637-smpp-segment-times.js';
import { CreateReportsAndCallbacks1764000200000 } from './notification/1764000200000-create-reports-and-callbacks.js';
import { ReceiptIdKeys1764000610000 } from './notification/1764000610000-receipt-id-keys.js';
import { CallbackOutcomeCircuitOpen1764000612100 } from './notification/1764000612100-callback-outcome-circuit-open.js';
import { CreateCallbackOutbox1764000612200 } from './notification/1764000612200-create-callback-outbox.js';
import { CallbackAttemptEventType1764030000100 } from './notification/1764030000100-callback-attempt-event-type.js';
import { DeliveryReportConnector1764032000000 } from './notification/1764032000000-delivery-report-connector.js';
import { IndexDeliveryReportsByMessage1764041000000 } from './notification/1764041000000-index-delivery-reports-by-message.js';
import { CreateRequestLogs1764000300000 } from './log/1764000300000-create-request-logs.js';
import { RequestLogRepeatCount1764001400000 } from './log/1764001400000-request-log-repeat-count.js';
import { PartitionRequestLogsByDay1796604000000 } from './log/1796604000000-partition-request-logs-by-day.js';

type MigrationClass = new () => MigrationInterface;

// Listed explicitly: ESM output has no glob loading, and the order is the schema's history.
export const MAIN_MIGRATIONS: MigrationClass[] = [
  CreateCoreTables1764000000000,
  CreateMessageEvents1764000100000,
  ExactUserReferenceId1764000450000,
  CreateMessageParts1764000600000,
  IndexMessagesByStatus1764000612000,
  MessageLastAttempt1764013100000,
  MessagePersonalisedText1764019000000,
  AccountSmartEncoding1764019100000,
  CreateTemplates1764019200000,
  ScheduleValidityCancel1764020000000,
  TestModeKeysAndRequests1764021100000,
  DailySpendLimits1764021200000,
  IndexMessagesForSearch1764022000000,
  CreateConnectorsRoutesPrices1764023000000,
  CreateInboundAndSuppressions1764030000000,
  TestModeInboundAndSuppressions1764031000000,
  AccountStatusCallbackUrl1764040000000,
  CreateIdempotencyKeys1764042000000,
  TestModeTemplates1764042300000,
  InboundBySender1764042400000,
  ConnectorStateLastError1764043000000,
  SendWindows1764050000000,
  SubaccountsAndTransfers1764051000000,
  ChatSmsFallback1764052000000,
  RequestSendWindow1764053000000,
  FamilyDailySpend1764054100000,
  CreateSmppCredentials1764060000000,
  CreateSmppSegments1764060100000,
  IdempotencyAnswersWithoutSecrets1764060500000,
  CreateSmppReceipts1764061000000,
  CreateWebhookEndpoints1796597632234,
  CreateVerifications1796597651138,
  CreatePumpingSettings1796597651159,
  CreateAccountCountries1796597653875,
  CreateShortLinks1796597775679,
  PartitionMessageTablesByDay1796597880783,
  SmppSegmentTimes1796599014637,
];
export const LOG_MIGRATIONS: MigrationClass[] = [
  CreateRequestLogs1764000300000,
  RequestLogRepeatCount1764001400000,
  PartitionRequestLogsByDay1796604000000,
];
export const NOTIFICATION_MIGRATIONS: MigrationClass[] = [
  CreateReportsAndCallbacks1764000200000,
  ReceiptIdKeys1764000610000,
  CallbackOutcomeCircuitOpen1764000612100,
  CreateCallbackOutbox1764000612200,
  CallbackAttemptEventType1764030000100,
  DeliveryReportConnector1764032000000,
  IndexDeliveryReportsByMessage1764041000000,
  CallbackOutboxRecipientHash1764060200000,
  CreateWebhookDeliveries1796597632251,
  CreateEventCatchUp1796600000000,
  PartitionDeliveryReportsByDay1796602000000,
  PartitionCallbackAttemptsByDay1796603000000,
  WebhookDeliveriesFirstPending1796604000000,
  WebhookDeliveriesRecipientHash1796605000000,
];
