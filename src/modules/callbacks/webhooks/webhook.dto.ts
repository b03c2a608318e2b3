import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import type { DeliveryRow } from './webhook-delivery.store.js';
import type { WebhookEndpointRow } from './webhook-endpoint.store.js';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from './webhook-event-types.js';
import { IsWholeNumberFrom } from '../../../platform/validation/validators.js';

const EVENT_NAMES = [...WEBHOOK_EVENT_TYPES, ALL_EVENTS];
const EVENTS_DOC = `Event types to receive, or "*" for every one: ${EVENT_NAMES.join(', ')}`;
export const DELIVERIES_MAX_LIMIT = 100;

/** A non-empty list of distinct event types (or `*`). */
function EventList(): PropertyDecorator {
  return applyDecorators(
    IsArray(),
    ArrayNotEmpty(),
    ArrayMaxSize(EVENT_NAMES.length),
    ArrayUnique(),
    IsIn(EVENT_NAMES, { each: true, message: `each value must be one of: ${EVENT_NAMES.join(', ')}` }),
  );
}

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://hooks.acme.example/messaging', maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({ description: EVENTS_DOC, example: ['message.delivered', 'inbound.received'] })
  @EventList()
  events: string[];

  @ApiPropertyOptional({
    example: 'CRM sync',
    maxLength: 255,
    nullable: true,
    type: String,
    description: 'null clears it (PATCH)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  description?: string | null;
}

/** Any field of the creation body, and the status. */
export class UpdateWebhookDto extends PartialType(OmitType(CreateWebhookDto, ['url', 'events'] as const)) {
  // Optional fields let a JSON null through their checks: the service refuses it where it means nothing.
  // `| null` hides the field's type from the document's reflection: it is named.
  @ApiPropertyOptional({ type: String, example: 'https://hooks.acme.example/messaging', maxLength: 2048 })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string | null;

  @ApiPropertyOptional({ type: [String], description: EVENTS_DOC, example: ['*'] })
  @IsOptional()
  @EventList()
  events?: string[] | null;

  @ApiPropertyOptional({
    enum: ['enabled', 'disabled'],
    description: '`enabled` turns a disabled endpoint on again (and restarts its failing clock)',
  })
  @IsOptional()
  @IsIn(['enabled', 'disabled'])
  status?: 'enabled' | 'disabled';
}

export class DeliveriesQuery {
  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  cursor?: string;

  @ApiPropertyOptional({ description: `At most ${DELIVERIES_MAX_LIMIT} (default 50)`, pattern: '^\\d+$' })
  @IsOptional()
  @IsWholeNumberFrom(1, DELIVERIES_MAX_LIMIT)
  limit?: string;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' }) webhook_id: string;
  @ApiProperty({ example: 'https://hooks.acme.example/messaging' }) url: string;
  @ApiProperty({ type: [String], example: ['message.delivered', 'inbound.received'] }) events: string[];
  @ApiProperty({ nullable: true, type: String, example: 'CRM sync' }) description: string | null;
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'Why the endpoint is disabled: by the account, or after failing every attempt for WEBHOOK_DISABLE_AFTER_HOURS',
  })
  disabled_reason: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ description: 'The signing secret, shown in this answer only', example: 'whsec_3f1c…' })
  secret: string;
}

export class WebhookListDto {
  @ApiProperty({ type: [WebhookDto] }) webhooks: WebhookDto[];
}

export class WebhookSecretDto {
  @ApiProperty({ format: 'uuid' }) webhook_id: string;
  @ApiProperty({
    description: 'The new signing secret, shown in this answer only; the old one signs nothing more',
  })
  secret: string;
}

export class WebhookDeletedDto {
  @ApiProperty({ format: 'uuid' }) webhook_id: string;
  @ApiProperty({ example: true }) deleted: boolean;
}

export class WebhookTestDto {
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ example: true, description: 'The endpoint answered 2xx' }) delivered: boolean;
  @ApiProperty({ nullable: true, type: Number, example: 204, description: 'null when no answer came' })
  http_status: number | null;
  @ApiProperty({ nullable: true, type: String, example: null }) error: string | null;
  @ApiProperty({ example: 42, description: 'Time to the answer, in milliseconds' }) took_ms: number;
}

export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ example: 'message.delivered' }) type: string;
  @ApiProperty({ example: 1 }) attempts: number;
  @ApiProperty({ nullable: true, type: Number, example: 204, description: 'HTTP status of the last attempt' })
  last_status: number | null;
  @ApiProperty({ nullable: true, type: String, example: null }) last_error: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) last_attempt_at: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) next_attempt_at: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) delivered_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class WebhookDeliveryListDto {
  @ApiProperty({ example: true }) success: boolean;
  @ApiProperty({ type: [WebhookDeliveryDto], description: 'Newest first, the last 7 days' })
  data: WebhookDeliveryDto[];
  @ApiProperty({ nullable: true, type: String, description: 'null on the last page' }) next_cursor:
    string | null;
}

export class WebhookReplayDto {
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ example: true, description: 'Queued to be sent again, with the same event_id' })
  queued: boolean;
}

export function webhookView(r: WebhookEndpointRow): WebhookDto {
  return {
    webhook_id: r.uuid,
    url: r.url,
    events: r.events.split(','),
    description: r.description,
    status: r.status,
    disabled_reason: r.disabled_reason,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function deliveryView(r: DeliveryRow): WebhookDeliveryDto {
  return {
    event_id: r.event_id,
    type: r.type,
    attempts: Number(r.attempts),
    last_status: r.last_status === null ? null : Number(r.last_status),
    last_error: r.last_error,
    last_attempt_at: iso(r.last_attempt_at),
    next_attempt_at: iso(r.next_attempt_at),
    delivered_at: iso(r.delivered_at),
    created_at: r.created_at.toISOString(),
  };
}
