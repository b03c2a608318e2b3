import type { components } from './generated/api.js';

type Schemas = components['schemas'];

/**
 * The fields of which a send body needs one of each group: a field and the other name it is
 * accepted under, or a field that a template stands in for. The document says so in `anyOf` of
 * `required`, which openapi-typescript does not turn into types; these groups do, and a test
 * holds them to the document's.
 */
export const REQUIRED_ONE_OF = {
  SmsSendDto: [
    ['from', 'sender_id'],
    ['to', 'recipient'],
    ['message', 'message_body', 'template_id'],
  ],
  EmailSendDto: [
    ['subject', 'template_id'],
    ['email_body', 'template_id'],
  ],
  ChatSendDto: [['message', 'template_id']],
} as const satisfies { [S in keyof Schemas]?: ReadonlyArray<ReadonlyArray<keyof Schemas[S]>> };

type Groups = typeof REQUIRED_ONE_OF;

/** `{ a: T['a'] } | { b: T['b'] }`: at least one of the fields, given. */
type OneOf<T, K extends keyof T> = { [P in K]: Required<Pick<T, P>> }[K];

/** Every group of G as a OneOf, intersected. */
type AllGroups<T, G> = G extends readonly [infer First extends ReadonlyArray<unknown>, ...infer Rest]
  ? OneOf<T, Extract<First[number], keyof T>> & AllGroups<T, Rest>
  : unknown;

/** A schema's body type with its alternatives required: what the service accepts. */
export type WithAlternatives<S extends keyof Groups> = Schemas[S] & AllGroups<Schemas[S], Groups[S]>;
