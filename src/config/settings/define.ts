import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

/** A class-validator or class-transformer decorator, applied to the schema class by name. */
export type Rule = (target: object, property: string) => void;

/**
 * One environment variable: what it holds once read (T), its default (D: undefined when it has
 * none), how it is checked, and the line that documents it. The schema, the parsed settings, the
 * configuration page and the `.env` examples are all made from these.
 */
export interface Setting<
  T = unknown,
  D extends T | undefined = T | undefined,
  P extends string = string,
  O = T,
> {
  kind: 'int' | 'bool' | 'enum' | 'text';
  /**
   * Where the value goes in the typed configuration, dotted for a group (`retention.batch`);
   * none: only a composite value in config.ts reads it (database URLs, Redis, body limits).
   */
  path?: P;
  /** The value as the configuration holds it (a duration in ms, a rate), made from the value read. */
  to?(value: T): O;
  /** One line for the configuration page and the `.env` examples (Markdown). */
  doc: string;
  default: D;
  /** Another setting whose value is taken when this one is unset (before the default). */
  fallback?: string;
  /** The default as the page shows it when the code derives it (from other settings or the host). */
  defaultText?: string;
  /** A sample value for the `.env` examples when there is no default. */
  example?: string;
  /** Why the line is commented out in docker/app.env.example (the compose file sets it). */
  compose?: string;
  /** What the page lists as accepted: a range of numbers or a list of words. */
  accepts?: string;
  /** class-validator and class-transformer rules, in the order they are listed on a class property. */
  rules: Rule[];
}

/** The value a setting has once read: undefined only when it has no default. */
export type ValueOf<S> =
  S extends Setting<infer T, infer D, string, unknown> ? (undefined extends D ? T | undefined : T) : never;

interface Common<T, D, P extends string, O> {
  path?: P;
  to?(value: T): O;
  doc: string;
  accepts?: string;
  default?: D;
  fallback?: string;
  defaultText?: string;
  example?: string;
  compose?: string;
}

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === ''
    ? undefined
    : ['true', '1', 'yes'].includes(String(value).toLowerCase())
      ? true
      : ['false', '0', 'no'].includes(String(value).toLowerCase())
        ? false
        : value;
const emptyIsUnset = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

function setting<T, D extends T | undefined, P extends string, O>(
  kind: Setting['kind'],
  options: Common<T, D, P, O>,
  rules: Rule[],
): Setting<T, D, P, O> {
  const { default: value, ...rest } = options;
  return { kind, ...rest, default: value as D, rules };
}

/** A whole number from min to max. */
export function int<D extends number | undefined = undefined, const P extends string = never, O = number>(
  options: Common<number, D, P, O> & { min: number; max: number },
): Setting<number, D, P, O> {
  const { min, max, ...rest } = options;
  const accepts = `${min}–${max}`;
  return setting('int', { ...rest, accepts }, [IsOptional(), Transform(toInt), IsInt(), Min(min), Max(max)]);
}

/** true/false (also 1/0, yes/no). */
export function bool<D extends boolean | undefined = undefined, const P extends string = never, O = boolean>(
  options: Common<boolean, D, P, O>,
): Setting<boolean, D, P, O> {
  return setting('bool', { ...options, accepts: '`true`, `false`' }, [
    IsOptional(),
    Transform(toBool),
    IsBoolean(),
  ]);
}

/** One word of a list. */
export function oneOf<
  const V extends string,
  D extends V | undefined = undefined,
  const P extends string = never,
  O = V,
>(values: readonly V[], options: Common<V, D, P, O>): Setting<V, D, P, O> {
  const accepts = values.map((v) => `\`${v}\``).join(', ');
  return setting('enum', { ...options, accepts }, [IsOptional(), IsIn([...values])]);
}

/**
 * Text of a given form (any text without a pattern). `requiredIf`: the value must be given when
 * this holds of the other settings; `emptyIsUnset`: an empty value counts as unset.
 */
export function text<D extends string | undefined = undefined, const P extends string = never, O = string>(
  options: Common<string, D, P, O> & {
    pattern?: RegExp;
    message?: string;
    requiredIf?: (env: Record<string, unknown>) => boolean;
    emptyIsUnset?: boolean;
  },
): Setting<string, D, P, O> {
  const { pattern, message, requiredIf, emptyIsUnset: empty, ...rest } = options;
  const when = requiredIf;
  return setting('text', rest, [
    when
      ? ValidateIf((env: Record<string, unknown>, value: unknown) => value !== undefined || when(env))
      : IsOptional(),
    ...(empty ? [Transform(emptyIsUnset)] : []),
    pattern ? Matches(pattern, message ? { message } : {}) : IsString(),
  ]);
}

export const MYSQL_URL = /^mysql:\/\/[^/\s]+\/[A-Za-z0-9_]+(\?.*)?$/;
export const MYSQL_URL_MESSAGE = 'must look like mysql://user:password@host:3306/database';
export const DURATION = /^(\d+)(ms|s|m|h|d)$/;
/** N events per SECONDS, both positive. */
export const RATE = /^[1-9]\d*\/[1-9]\d*$/;
export const SIZE = /^\d+(kb|mb)?$/i;
export const TOKEN = /^[\x21-\x7e]{16,256}$/;
export const TOKEN_MESSAGE = 'must be 16-256 printable characters without spaces';
