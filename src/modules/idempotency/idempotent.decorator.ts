import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyGuard } from './idempotency.guard.js';
import { SECRET_ANSWER, type SecretAnswer } from './secret-answer.js';

const REPLAY =
  'Makes a retry safe: within 24 h the same key (per account and mode) with the same body (a `password` field does not count) answers the first answer again, with `Idempotent-Replayed: true`, and nothing is done twice; another body is 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still being processed, 409 `REQUEST_IN_PROGRESS`. Only a successful answer is kept: after an error the key may be used again. 1 to 255 printable ASCII characters, else 400.';
const SECRET =
  ' The secret in this answer is shown once and never stored: a replay is 409 `SECRET_SHOWN_ONCE`, naming what the first request created.';
const SECRET_LEFT_OUT =
  ' The secret in this answer is shown once and never stored: a replay answers the first answer without it.';

/**
 * A POST that creates something: it honours an Idempotency-Key (IdempotencyGuard), and the
 * OpenAPI document says so. The route's module imports IdempotencyModule. `secret`: the answer
 * holds a secret, kept out of the stored answer and so never replayed.
 */
export function Idempotent(options: { secret?: SecretAnswer } = {}) {
  return applyDecorators(
    UseGuards(IdempotencyGuard),
    ...(options.secret ? [SetMetadata(SECRET_ANSWER, options.secret)] : []),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description: !options.secret ? REPLAY : REPLAY + (options.secret.replay ? SECRET : SECRET_LEFT_OUT),
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    }),
  );
}
