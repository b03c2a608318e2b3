import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { AppException } from '../errors/app.exception.js';
import type { ErrorDetail } from '../errors/error-codes.js';
import { passThroughFields } from './pass-through.js';

function flatten(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = prefix
      ? /^\d+$/.test(e.property)
        ? `${prefix}[${e.property}]`
        : `${prefix}.${e.property}`
      : e.property;
    for (const message of Object.values(e.constraints ?? {})) out.push({ field, message });
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/** class-validator DTOs, with failures in the error envelope's `details` form. */
export class AppValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => AppException.validation(flatten(errors)),
    });
  }

  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A custom decorator's value (the caller's key, @Auth) is not validated
    // (validateCustomDecorators is off): answered as it is, without ValidationPipe's async steps.
    if (metadata.type === 'custom') return Promise.resolve(value);
    return this.transformInput(value, metadata);
  }

  private async transformInput(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (
      metadata.type === 'body' &&
      metadata.metatype &&
      metadata.metatype !== Object &&
      metadata.metatype !== String
    ) {
      if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw AppException.validation(
          [{ field: 'body', message: 'the body must be a JSON object' }],
          'The request body must be a JSON object.',
        );
      }
      const fields = passThroughFields(metadata.metatype);
      if (fields.length) {
        const rest = { ...(value as Record<string, unknown>) };
        const held: Record<string, unknown> = {};
        for (const f of fields) {
          if (Object.hasOwn(rest, f)) {
            held[f] = rest[f];
            delete rest[f];
          }
        }
        return Object.assign((await super.transform(rest, metadata)) as object, held);
      }
    }
    // Awaited rather than returned: an async function that returns a promise settles a tick
    // later, through one more promise.
    return await super.transform(value, metadata);
  }
}
