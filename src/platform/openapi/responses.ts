import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * Response shapes of the send, balance and message status routes, for the OpenAPI
 * document only (the controllers build plain objects). Examples are those of docs/api.
 */

const API_REFERENCE = '1764184470578998353';
const STATUSES = [
  'SCHEDULED',
  'ACKNOWLEDGED',
  'SENT',
  'DELIVERED',
  'UNDELIVERED',
  'EXPIRED',
  'FAILED',
  'REJECTED',
  'CANCELLED',
];
const SEND_AT_DOC = {
  format: 'date-time',
  example: '2026-12-01T09:00:00.000Z',
  description: 'present only for a scheduled send: when it goes, ISO 8601 UTC with milliseconds',
};

/** Whole-response examples: an accepted recipient has no reason; only a REJECTED one does. */
export const SMS_SEND_EXAMPLE = {
  api_reference: API_REFERENCE,
  data: [
    {
      message_id: '01a200fe-0dfd-7511-ad60-13d93139bcee',
      mobile_number: '260971234567',
      status: 'ACKNOWLEDGED',
    },
    {
      message_id: '01a200fe-0dfd-7511-ad60-13d93139bcef',
      mobile_number: '0971234567',
      status: 'REJECTED',
      reason: 'INVALID_NUMBER',
    },
  ],
  message: 'successful',
  success: true,
};

export const EMAIL_SEND_EXAMPLE = {
  api_reference: API_REFERENCE,
  data: [
    { email_address: 'jane@example.com', message_id: '5', status: 'ACKNOWLEDGED' },
    { email_address: 'not-an-address', message_id: '6', status: 'REJECTED', reason: 'INVALID_EMAIL' },
  ],
  message: 'successful',
  success: true,
};

/** A recipient's own send_at, set when a send window deferred it. */
const WINDOW_SEND_AT_DOC = {
  format: 'date-time',
  example: '2026-12-01T06:00:00.000Z',
  description:
    "present when a send window deferred this recipient (SCHEDULED): its window's next opening, in UTC",
};

export class SmsSendEntryDto {
  @ApiProperty({ example: '01a200fe-0dfd-7511-ad60-13d93139bcee', format: 'uuid' }) message_id: string;
  @ApiProperty({ example: '260971234567' }) mobile_number: string;
  @ApiProperty({ enum: ['ACKNOWLEDGED', 'SCHEDULED', 'REJECTED'], example: 'ACKNOWLEDGED' }) status: string;
  @ApiPropertyOptional({
    enum: ['INVALID_NUMBER', 'MISSING_VARIABLE', 'MESSAGE_TOO_LONG'],
    description: 'present when status is REJECTED (not charged, not sent)',
  })
  reason?: string;
  @ApiPropertyOptional(WINDOW_SEND_AT_DOC) send_at?: string;
}

export class SmsSendResponseDto {
  @ApiProperty({ example: API_REFERENCE, pattern: '^\\d{19}$' }) api_reference: string;
  @ApiProperty({ type: [SmsSendEntryDto] }) data: SmsSendEntryDto[];
  @ApiProperty({ example: 'successful' }) message: string;
  @ApiProperty({ example: true }) success: boolean;
  @ApiPropertyOptional({
    type: 'array',
    items: {
      type: 'object',
      properties: { from: { type: 'string' }, to: { type: 'string' }, count: { type: 'integer' } },
    },
    description:
      'Only when smart encoding was on: the characters replaced by GSM-7 look-alikes (empty if none)',
    example: [{ from: '\u2019', to: "'", count: 2 }],
  })
  replaced?: Array<{ from: string; to: string; count: number }>;
  @ApiPropertyOptional(SEND_AT_DOC) send_at?: string;
}

export class EmailSendEntryDto {
  @ApiProperty({ example: 'jane@example.com' }) email_address: string;
  @ApiProperty({ example: '5', description: 'numeric text' }) message_id: string;
  @ApiProperty({ enum: ['ACKNOWLEDGED', 'SCHEDULED', 'REJECTED'], example: 'ACKNOWLEDGED' }) status: string;
  @ApiPropertyOptional({
    enum: ['INVALID_EMAIL', 'MISSING_VARIABLE', 'MESSAGE_TOO_LONG'],
    description: 'present when status is REJECTED',
  })
  reason?: string;
  @ApiPropertyOptional(WINDOW_SEND_AT_DOC) send_at?: string;
}

export class EmailSendResponseDto {
  @ApiProperty({ example: API_REFERENCE, pattern: '^\\d{19}$' }) api_reference: string;
  @ApiProperty({ type: [EmailSendEntryDto] }) data: EmailSendEntryDto[];
  @ApiProperty({ example: 'successful' }) message: string;
  @ApiProperty({ example: true }) success: boolean;
  @ApiPropertyOptional(SEND_AT_DOC) send_at?: string;
}

export class RejectedRecipientDto {
  @ApiProperty({ example: '0971234567' }) recipient: string;
  @ApiProperty({ example: 'INVALID_NUMBER' }) reason: string;
}

export class WindowScheduledDto {
  @ApiProperty({ example: '12125550123' }) recipient: string;
  @ApiProperty({ format: 'date-time', example: '2026-12-01T13:00:00.000Z' }) send_at: string;
}

export class ChatSendResponseDto {
  @ApiProperty({ example: 0.2 }) cost: number;
  @ApiProperty({ example: 2, type: 'integer', description: 'messages queued' }) count: number;
  @ApiProperty({ example: 'ZMW' }) currency: string;
  @ApiProperty({ example: '2025-11-26T19:15:30.000Z', format: 'date-time' }) estimated_delivery: string;
  @ApiProperty({ example: 'Chat messages queued successfully' }) message: string;
  @ApiProperty({ example: API_REFERENCE }) reference: string;
  @ApiProperty({ example: 'success' }) status: string;
  @ApiPropertyOptional({
    type: [RejectedRecipientDto],
    description: 'present only when some recipients were invalid',
  })
  rejected?: RejectedRecipientDto[];
  @ApiPropertyOptional({
    type: [WindowScheduledDto],
    description:
      "present only when a send window deferred some recipients: each with its send_at, the window's next opening in UTC",
  })
  scheduled?: WindowScheduledDto[];
  @ApiPropertyOptional(SEND_AT_DOC) send_at?: string;
}

export class ChannelBalanceDto {
  @ApiProperty({ example: 19687.5 }) balance_value: number;
  @ApiProperty({ example: 1.25 }) cost_per_unit: number;
  @ApiProperty({ example: 15750, type: 'integer', description: 'floor(balance_value / cost_per_unit)' })
  credits: number;
}

export class BalancesDto {
  @ApiProperty({ type: ChannelBalanceDto }) email: ChannelBalanceDto;
  @ApiProperty({ type: ChannelBalanceDto }) sms: ChannelBalanceDto;
  @ApiProperty({ type: ChannelBalanceDto }) chat: ChannelBalanceDto;
}

export class BalanceResponseDto {
  @ApiProperty({ example: 'success' }) status: string;
  @ApiProperty({ example: 'active' }) account_status: string;
  @ApiProperty({ example: '8d3f4c1e-2b7a-4f0e-9c55-6a1d2e3f4b5c' }) client_id: string;
  @ApiProperty({ example: 'ZMW' }) currency: string;
  @ApiProperty({ example: '2025-11-26T19:14:30.578Z', format: 'date-time' }) last_updated: string;
  @ApiProperty({ example: 59062.5, description: 'sum of the channel balance values' }) total_value: number;
  @ApiProperty({ type: BalancesDto }) balances: BalancesDto;
}

export class FallbackLinkDto {
  @ApiProperty({ format: 'uuid', example: '01a200fe-0dfd-7511-ad60-13d93139bcef' }) message_id: string;
  @ApiProperty({ enum: STATUSES, example: 'DELIVERED' }) status: string;
}

export class MessageDto {
  @ApiProperty({
    example: '01a200fe-0dfd-7511-ad60-13d93139bcee',
    description: 'UUID for SMS and chat, numeric text for e-mail',
  })
  message_id: string;
  @ApiProperty({ enum: ['sms', 'email', 'chat'], example: 'sms' }) channel: string;
  @ApiProperty({ example: API_REFERENCE }) api_reference: string;
  @ApiProperty({ example: '260971234567' }) recipient: string;
  @ApiProperty({ enum: STATUSES, example: 'DELIVERED' }) status: string;
  @ApiProperty({ nullable: true, type: 'string', example: null }) reason: string | null;
  @ApiProperty({ example: 1, type: 'integer' }) units: number;
  @ApiProperty({ example: 0.25 }) cost: number;
  @ApiProperty({ example: 'ZMW' }) currency: string;
  @ApiProperty({ nullable: true, type: 'string', example: 'inv-2025-0001' }) user_reference_id: string | null;
  @ApiProperty({ example: '2025-11-26T19:14:30.578Z', format: 'date-time' }) created_at: string;
  @ApiProperty({ nullable: true, type: 'string', format: 'date-time', example: '2025-11-26T19:14:30.912Z' })
  sent_at: string | null;
  @ApiProperty({ nullable: true, type: 'string', format: 'date-time', example: '2025-11-26T19:14:31.915Z' })
  completed_at: string | null;
  @ApiProperty({
    example: 1,
    type: 'integer',
    description:
      'hand-over attempts so far (a message still ACKNOWLEDGED with attempts > 0 is being retried)',
  })
  attempts: number;
  @ApiProperty({
    nullable: true,
    type: 'string',
    example: null,
    description:
      'reason code of the last failed hand-over attempt, e.g. SMTP_421, SMTP_TLS_CERTIFICATE, SMPP_ESME_RTHROTTLED; kept after a later success',
  })
  last_error: string | null;
  @ApiProperty({
    nullable: true,
    type: 'string',
    format: 'date-time',
    example: null,
    description: 'when a scheduled send is (or was) due; null for a send made at once',
  })
  send_at: string | null;
  @ApiProperty({
    nullable: true,
    type: 'string',
    format: 'date-time',
    example: '2025-11-28T19:14:30.578Z',
    description:
      'when the validity period ends: not handed to a provider by then, the message ends EXPIRED (VALIDITY_PERIOD_ELAPSED) and is refunded',
  })
  valid_until: string | null;
  @ApiProperty({
    nullable: true,
    type: 'number',
    example: 0.25,
    description:
      'the price of one unit for this recipient: the longest matching destination price of the account, else the channel price; null for a recipient that was not charged',
  })
  cost_per_unit: number | null;
  @ApiProperty({
    nullable: true,
    type: 'string',
    example: 'mtn',
    description:
      'the SMPP connector (SMSC link) the message went out on; "default" for SMPP_URL; null until SENT',
  })
  connector: string | null;
  @ApiPropertyOptional({
    type: FallbackLinkDto,
    description:
      'a chat message whose SMS fallback was created (it was not DELIVERED in time): that SMS and its state',
  })
  fallback?: FallbackLinkDto;
  @ApiPropertyOptional({
    format: 'uuid',
    example: '01a200fe-0dfd-7511-ad60-13d93139bc00',
    description: 'a fallback SMS: the message_id of the chat message it stands in for',
  })
  fallback_of?: string;
  @ApiPropertyOptional({
    pattern: '^\\d{1,20}$',
    example: '1795312979464001001',
    description:
      'submitted over SMPP: the decimal message_id its submit_sm_resp and receipts carry (GET /messages/{id} takes it too)',
  })
  smpp_message_id?: string;
}

/** The answer of both cancel routes. */
export class CancelResponseDto {
  @ApiProperty({ example: API_REFERENCE }) api_reference: string;
  @ApiProperty({ example: 2, type: 'integer', description: 'messages this call cancelled (and refunded)' })
  cancelled: number;
  @ApiProperty({
    example: 1,
    type: 'integer',
    description:
      'accepted messages this call did not cancel: already handed to a provider, being handed over, or already final',
  })
  not_cancelled: number;
  @ApiProperty({ example: 0.5, description: 'the amount given back by this call' }) refunded: number;
  @ApiProperty({ example: 'ZMW' }) currency: string;
}

export class RescheduleResponseDto {
  @ApiProperty({ example: API_REFERENCE }) api_reference: string;
  @ApiProperty({ example: 3, type: 'integer', description: 'messages moved (those still SCHEDULED)' })
  rescheduled: number;
  @ApiProperty({
    example: '2026-12-01T09:00:00.000Z',
    format: 'date-time',
    description: 'when they now go (ISO 8601 UTC); now when the asked time is past or under 5 s ahead',
  })
  send_at: string;
}

export class MessageEventDto {
  @ApiProperty({ enum: STATUSES, example: 'SENT' }) status: string;
  @ApiProperty({ nullable: true, type: 'string', example: null }) reason: string | null;
  @ApiProperty({ example: '2025-11-26T19:14:30.912Z', format: 'date-time' }) occurred_at: string;
}

export class MessageLinkDto {
  @ApiProperty({
    example: 'https://shop.acme.example/orders/1234',
    description: 'the link as the text gave it',
  })
  url: string;
  @ApiProperty({
    example: 'https://acme.example/l/Xk3fP9qLmA',
    description: 'the short link the recipient got in its place',
  })
  short_url: string;
  @ApiProperty({ example: 2, type: 'integer', description: 'clicks, link previews and scanners not counted' })
  clicks: number;
  @ApiProperty({
    example: '2025-11-26T19:20:02.120Z',
    format: 'date-time',
    nullable: true,
    type: 'string',
    description: 'the first click; null before one',
  })
  first_click_at: string | null;
}

export class MessageDetailDto extends MessageDto {
  @ApiProperty({ type: [MessageEventDto], description: 'every state the message went through, oldest first' })
  history: MessageEventDto[];
  @ApiPropertyOptional({
    type: [MessageLinkDto],
    description: 'the short links of its text (a send with shorten_links), in text order; absent without',
  })
  links?: MessageLinkDto[];
}

export class MessageListResponseDto {
  @ApiProperty({ example: API_REFERENCE }) api_reference: string;
  @ApiProperty({ example: 1, type: 'integer' }) page: number;
  @ApiProperty({ example: 100, type: 'integer' }) per_page: number;
  @ApiProperty({ example: 2, type: 'integer' }) total: number;
  @ApiProperty({ type: [MessageDto] }) data: MessageDto[];
}
