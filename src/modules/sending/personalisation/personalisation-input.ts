import type { ErrorDetail } from '../../../platform/errors/error-codes.js';
import { hasLoneSurrogate } from '../../messages/text.js';
import { MAX_TEXT_CHARS } from '../../templates/template-rules.js';

export type Variables = Record<string, Record<string, string>>;

/** What a JSON send may add to its text: a stored template, per-recipient values, smart encoding. */
export interface PersonalisationFields {
  templateId: string | null;
  variables: Variables | null;
  /** null: the account's default. */
  smartEncoding: boolean | null;
}

/** The fields of a send body it reads; their types are checked here, not trusted. */
export interface PersonalisationBody {
  template_id?: unknown;
  variables?: unknown;
  smart_encoding?: unknown;
}

const NAME = /^[A-Za-z0-9_]{1,64}$/;
/**
 * A value as long as a template's whole text at most; anything longer is a mistake, or an
 * attempt to bloat every message. A shorter value that makes one recipient's text too long
 * rejects that recipient alone (MESSAGE_TOO_LONG, in text-plan.ts), not the request.
 */
export const MAX_VALUE_CHARS = MAX_TEXT_CHARS;
/** Enough to show what is wrong; a 10,000-recipient mistake need not be listed 10,000 times. */
const MAX_PROBLEMS = 100;
/** Any surrogate at all: the cheap test that spares most values the full lone-surrogate check. */
const SURROGATE = /[\uD800-\uDFFF]/;
const TEMPLATE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads `template_id`, `variables` and `smart_encoding` from a send body, adding a problem
 * (with the exact path, as `variables.260971234567.first_name`) for each bad value.
 * `textFields` are the fields a template replaces: giving one of them as well is an error.
 */
export function readPersonalisation<B extends PersonalisationBody>(
  body: B,
  textFields: ReadonlyArray<keyof B & string>,
  problems: ErrorDetail[],
): PersonalisationFields {
  let templateId: string | null = null;
  const rawTemplate = body.template_id;
  if (rawTemplate !== undefined && rawTemplate !== null) {
    if (typeof rawTemplate !== 'string' || !TEMPLATE_ID.test(rawTemplate.toLowerCase())) {
      problems.push({ field: 'template_id', message: 'must be the template_id of one of your templates' });
    } else {
      templateId = rawTemplate.toLowerCase();
      for (const f of textFields) {
        if (body[f] !== undefined && body[f] !== null)
          problems.push({ field: f, message: `give either template_id or ${f}, not both` });
      }
    }
  }

  let variables: Variables | null = null;
  const raw = body.variables;
  if (raw !== undefined && raw !== null) {
    if (!isPlainObject(raw)) {
      problems.push({
        field: 'variables',
        message: 'must be an object keyed by recipient, each value an object of strings',
      });
    } else {
      // No prototype: a recipient written "__proto__" is a key like any other.
      variables = Object.create(null) as Variables;
      // The same few names repeat for every recipient: each is checked once.
      const goodNames = new Set<string>();
      for (const [recipient, values] of Object.entries(raw)) {
        if (problems.length >= MAX_PROBLEMS) break;
        const at = `variables.${recipient}`;
        if (!isPlainObject(values)) {
          problems.push({ field: at, message: 'must be an object of string values' });
          continue;
        }
        for (const name in values) {
          if (!Object.hasOwn(values, name)) continue;
          const value = values[name];
          if (!goodNames.has(name) && !NAME.test(name))
            problems.push({ field: `${at}.${name}`, message: 'a name is 1-64 letters, digits or _' });
          else if (typeof value !== 'string')
            problems.push({ field: `${at}.${name}`, message: 'must be a string' });
          else if (value.length > MAX_VALUE_CHARS)
            problems.push({ field: `${at}.${name}`, message: `at most ${MAX_VALUE_CHARS} characters` });
          else if (SURROGATE.test(value) && hasLoneSurrogate(value))
            problems.push({ field: `${at}.${name}`, message: 'contains an unpaired UTF-16 surrogate' });
          else goodNames.add(name);
        }
        variables[recipient] = values as Record<string, string>;
      }
    }
  }

  let smartEncoding: boolean | null = null;
  if (body.smart_encoding !== undefined && body.smart_encoding !== null) {
    if (typeof body.smart_encoding !== 'boolean')
      problems.push({ field: 'smart_encoding', message: 'must be true or false' });
    else smartEncoding = body.smart_encoding;
  }
  return { templateId, variables, smartEncoding };
}
