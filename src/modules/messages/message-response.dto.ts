import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { perUnit, toNumber } from '../../platform/money/money.js';
import { MESSAGE_STATUSES } from './channel.js';
import type { MessageView } from './message.types.js';

/**
 * A message as the lookup, the list of a request and the search show it: the OpenAPI shape and
 * the mapper from the stored row, side by side.
 */

/** The example api_reference of every answer that names a request. */
export const API_REFERENCE_EXAMPLE = '1764184470578998353';
const API_REFERENCE = API_REFERENCE_EXAMPLE;
const STATUSES = [...MESSAGE_STATUSES];

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

/** A stored message as the API shows it. */
export function messageView(r: MessageView): MessageDto {
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

/** A message with every state it went through, oldest first. */
export function messageDetail(
  row: MessageView,
  events: Array<{ status: string; reason: string | null; occurred_at: Date }>,
): MessageDetailDto {
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
  return { ...messageView(row), history };
}

function fallbackView(packed: string): { message_id: string; status: string } {
  const [message_id = '', status = ''] = packed.split(' ');
  return { message_id, status };
}
