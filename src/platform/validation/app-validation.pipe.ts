import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { AppException } from '../errors/app.exception.js';
import type { ErrorDetail } from '../errors/error-codes.js';
import { passThroughFields } from './pass-through.js';
import { refusesUnknownParameters } from './strict-query.js';

// class-validator's constraint for a property no decorator declares (forbidNonWhitelisted).
const UNKNOWN_FIELD = 'whitelistValidation';

function flatten(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = prefix
      ? /^\d+$/.test(e.property)
        ? `${prefix}[${e.property}]`
        : `${prefix}.${e.property}`
      : e.property;
    for (const [constraint, message] of Object.entries(e.constraints ?? {}))
      out.push({ field, message: constraint === UNKNOWN_FIELD ? 'unknown field' : message });
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

function validationFailure(errors: ValidationError[]): AppException {
  const details = flatten(errors);
  const unknown = details.filter((d) => d.message === 'unknown field').map((d) => d.field);
  return AppException.validation(
    details,
    unknown.length
      ? `The request is not valid: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}.`
      : undefined,
  );
}

const OPTIONS = {
  transform: true,
  whitelist: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
  exceptionFactory: validationFailure,
} as const;

/**
 * class-validator DTOs, with failures in the error envelope's `details` form. A body field no
 * DTO declares is refused, not dropped: a misspelt `sendAt` would otherwise send at once and be
 * charged. Query parameters are only stripped, except on the routes whose DTO refuses them
 * (RefuseUnknownParameters: search and export, where a misspelt filter would match everything).
 */
export class AppValidationPipe extends ValidationPipe {
  // The same pipe with forbidNonWhitelisted, for bodies: class-validator finds the unknown
  // properties for the whitelist anyway, so refusing them costs nothing more than stripping.
  private readonly bodies = new ValidationPipe({ ...OPTIONS, forbidNonWhitelisted: true });

  constructor() {
    super(OPTIONS);
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
        throw AppException.bodyNotObject();
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
        return Object.assign((await this.bodies.transform(rest, metadata)) as object, held);
      }
      return await this.bodies.transform(value, metadata);
    }
    if (metadata.type === 'query' && metadata.metatype && refusesUnknownParameters(metadata.metatype))
      return await this.bodies.transform(value, metadata);
    // Awaited rather than returned: an async function that returns a promise settles a tick
    // later, through one more promise.
    return await super.transform(value, metadata);
  }
}
