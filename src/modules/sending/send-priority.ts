import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

export const PRIORITIES = ['high', 'normal'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** The `priority` field every send body accepts. */
export function PriorityField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      enum: PRIORITIES,
      example: 'high',
      description:
        "high: handed over before every queued normal message (one-time codes); default: the API key's priority, else normal",
    }),
    IsOptional(),
    IsIn(PRIORITIES, { message: 'priority must be high or normal' }),
  );
}

/** The request's priority, if it names one (the DTO has checked the value). */
export function priorityOf(body: { priority?: Priority | null }): Priority | null {
  return body.priority ?? null;
}
