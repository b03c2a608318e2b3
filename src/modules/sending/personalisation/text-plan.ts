import { AppException } from '../../../platform/errors/app.exception.js';
import type { ChannelPolicy, SendInput, TextMeasure } from '../channel-policy.js';
import { isGsm7 } from '../../messages/segments.js';
import { compileText, escapeHtml, renderText } from '../../messages/placeholders.js';
import { addReplacements, smartEncode, type Replacement } from './smart-encoding.js';
import type { LinkTemplate } from '../../links/link-text.js';

/** Cuts a text around its links (shorten_links); null when it has none. */
export type Shortener = (text: string) => LinkTemplate | null;

/** The part of a pipeline entry the planner reads and, for a recipient it refuses, writes. */
export interface PlanEntry {
  index: number;
  recipient: string;
  status: string;
  reason?: string;
}

export interface EntryText {
  /** The recipient's own text when it differs from the request's, else null. */
  body: string | null;
  subject: string | null;
  /** Measured as sent: with each link a short link (shorten_links), stamped per recipient. */
  measure: TextMeasure;
  /** The text's links, when they are shortened; null otherwise. */
  links: LinkTemplate | null;
}

export interface TextPlan {
  /** The request's text as stored (after smart encoding when that applied to it). */
  body: string;
  /** Per entry, in entry order; undefined for a recipient that is refused. */
  texts: Array<EntryText | undefined>;
  /** Per entry: its text's measure, also for one refused as too long (the preview shows why). */
  measures: Array<TextMeasure | undefined>;
  /** null when smart encoding is off; otherwise what it replaced across all recipients. */
  replaced: Replacement[] | null;
  /** Distinct characters outside GSM-7 in the texts that will be sent (SMS; empty elsewhere). */
  nonGsmCharacters: string[];
}

/** A bound on one request's personalised texts together, so one request cannot fill the database. */
const MAX_TOTAL_CHARS = 32 * 1024 * 1024;
const HEADER_UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f\u2028\u2029\u0085]/;

function addNonGsm(text: string, into: Set<string>): void {
  if (isGsm7(text)) return;
  for (const ch of text) if (!isGsm7(ch)) into.add(ch);
}

/**
 * Works out the text each recipient gets and what it costs in units. Without `variables` or a
 * template the request has one text, measured once (a text over the channel's limit fails
 * the whole request, as it always has). With them, each recipient's text is rendered on its
 * own; one that lacks a value is refused MISSING_VARIABLE and one that comes out over the
 * limit MESSAGE_TOO_LONG, and the others go ahead.
 */
export function planTexts(
  policy: ChannelPolicy,
  input: SendInput,
  entries: PlanEntry[],
  smartEncoding: boolean,
  shorten: Shortener | null = null,
): TextPlan {
  const sms = policy.channel === 'sms';
  const smart = sms && smartEncoding;
  const total = smart ? new Map<string, Replacement>() : null;
  const nonGsm = new Set<string>();
  const personalised = input.variables != null || input.templateId != null;

  if (!personalised) {
    let body = input.body;
    if (smart) {
      const encoded = smartEncode(body);
      body = encoded.text;
      addReplacements(total!, encoded.replaced);
    }
    const links = shorten ? shorten(body) : null;
    const sent = links ? links.measured : body;
    policy.unitsPerRecipient({ ...input, body: sent });
    const measure = policy.measure(sent, input.subject);
    const shared: EntryText = { body: null, subject: null, measure, links };
    if (sms) addNonGsm(sent, nonGsm);
    const texts = entries.map((e) => (e.status === 'ACKNOWLEDGED' ? shared : undefined));
    return {
      body,
      texts,
      measures: texts.map((t) => t?.measure),
      replaced: total ? [...total.values()] : null,
      nonGsmCharacters: [...nonGsm],
    };
  }

  const bodyTemplate = compileText(input.body);
  const subjectTemplate = input.subject != null ? compileText(input.subject) : null;
  const escape = policy.channel === 'email' ? escapeHtml : undefined;
  const variables = input.variables ?? {};
  const texts: Array<EntryText | undefined> = [];
  const measures: Array<TextMeasure | undefined> = [];
  let totalChars = 0;
  for (const e of entries) {
    if (e.status !== 'ACKNOWLEDGED') {
      texts.push(undefined);
      measures.push(undefined);
      continue;
    }
    const raw = input.recipients[e.index];
    const values = Object.hasOwn(variables, raw)
      ? variables[raw]
      : Object.hasOwn(variables, e.recipient)
        ? variables[e.recipient]
        : undefined;
    const body = renderText(bodyTemplate, values, escape);
    const subject = subjectTemplate ? renderText(subjectTemplate, values) : null;
    if (!body.ok || (subject && !subject.ok)) {
      e.status = 'REJECTED';
      e.reason = 'MISSING_VARIABLE';
      texts.push(undefined);
      measures.push(undefined);
      continue;
    }
    let text = body.text;
    if (smart) {
      const encoded = smartEncode(text);
      text = encoded.text;
      addReplacements(total!, encoded.replaced);
    }
    const subjectText = subject ? subject.text : null;
    if (subjectText !== null && subjectText !== input.subject && HEADER_UNSAFE.test(subjectText)) {
      throw AppException.validation(
        [{ field: `variables.${raw}`, message: 'values used in the subject must not contain line breaks' }],
        'A value used in the subject contains a line break or control character.',
      );
    }
    const links = shorten ? shorten(text) : null;
    const sent = links ? links.measured : text;
    const measure = policy.measure(sent, subjectText);
    measures.push(measure);
    if (measure.tooLong) {
      e.status = 'REJECTED';
      e.reason = 'MESSAGE_TOO_LONG';
      texts.push(undefined);
      continue;
    }
    totalChars += sent.length;
    if (totalChars > MAX_TOTAL_CHARS) {
      throw new AppException(
        'MESSAGE_TOO_LONG',
        `The personalised texts of this request come to more than ${MAX_TOTAL_CHARS} characters together.`,
        [{ field: 'variables', message: `more than ${MAX_TOTAL_CHARS} characters in all` }],
      );
    }
    if (sms && measure.encoding !== 'GSM-7') addNonGsm(sent, nonGsm);
    texts.push({
      body: text === input.body ? null : text,
      subject: subjectText === input.subject ? null : subjectText,
      measure,
      links,
    });
  }
  return {
    body: input.body,
    texts,
    measures,
    replaced: total ? [...total.values()] : null,
    nonGsmCharacters: [...nonGsm],
  };
}
