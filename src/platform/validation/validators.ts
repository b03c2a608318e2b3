import { ValidateBy, type ValidationOptions } from 'class-validator';

/** A string, or a list of strings. */
export function IsStringOrStringArray(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringOrStringArray',
      validator: {
        validate: (v: unknown) =>
          typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
        defaultMessage: (args) => `${args?.property} must be a string or a list of strings`,
      },
    },
    options,
  );
}

export function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}
