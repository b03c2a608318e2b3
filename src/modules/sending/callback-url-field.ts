import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** The `callback_url` field every JSON send body accepts (checked for its target by the pipeline). */
export function CallbackUrlField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description:
        "http(s) URL that receives this request's signed delivery callbacks (absent: the account's status-callback URL, if set): event_id, message_id, api_reference, user_reference_id, channel, recipient, status, reason, occurred_at and test (true for a test key's message); private and loopback targets are refused unless CALLBACK_ALLOW_PRIVATE_NETWORKS=true.",
      example: 'https://example.com/messages/status',
      maxLength: 2048,
    }),
    IsOptional(),
    IsString(),
    MaxLength(2048),
  );
}

/** The request's callback URL, if it names one (the DTO has checked its type). */
export function callbackUrlOf(body: { callback_url?: string | null }): string | null {
  return body.callback_url ?? null;
}
