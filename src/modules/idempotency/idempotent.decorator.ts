import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyGuard } from './idempotency.guard.js';

/**
 * A POST that creates something: it honours an Idempotency-Key (IdempotencyGuard), and the
 * OpenAPI document says so. The route's module imports IdempotencyModule.
 */
export function Idempotent() {
  return applyDecorators(
    UseGuards(IdempotencyGuard),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes a retry safe: within 24 h the same key (per account and mode) with the same body answers the first answer again, with `Idempotent-Replayed: true`, and nothing is done twice; another body is 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still being processed, 409 `REQUEST_IN_PROGRESS`. Only a successful answer is kept: after an error the key may be used again. 1 to 255 printable ASCII characters, else 400.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    }),
  );
}
