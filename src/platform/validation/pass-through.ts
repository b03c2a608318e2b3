import { Allow } from 'class-validator';

const PASS_THROUGH = Symbol('passThroughFields');

/**
 * Marks a body field that the validation pipe hands over untouched: it is neither copied by
 * class-transformer nor checked by class-validator, and the feature that reads it validates it
 * itself. For large free-form objects (a map with one entry per recipient), which
 * class-transformer walks key by key at a cost of tens of microseconds each.
 * The whitelist keeps the field (class-validator's Allow, which checks nothing): a DTO
 * instance has it from construction, and stripping it with `delete` would turn every instance
 * into a slow dictionary-mode object, even when the request does not use the field.
 */
export function PassThrough(): PropertyDecorator {
  const allow = Allow();
  return (target, key) => {
    allow(target, key);
    const fields: string[] = Reflect.getMetadata(PASS_THROUGH, target.constructor) ?? [];
    Reflect.defineMetadata(PASS_THROUGH, [...fields, String(key)], target.constructor);
  };
}

/** The pass-through fields of a DTO class, its parents' included. */
export function passThroughFields(type: unknown): string[] {
  return (typeof type === 'function' && (Reflect.getMetadata(PASS_THROUGH, type) as string[])) || [];
}
