import { hash as digest } from 'node:crypto';
import type { Channel } from '../messages/channel.js';
import type { SendInput } from './channel-policy.js';

/** The request_hash of a request without a user_reference_id, which no later request is compared with. */
const NO_HASH = Buffer.alloc(32);

/**
 * What a repeated user_reference_id is compared by (a replay answers the first request only if
 * the body is the same): SHA-256 of the request's canonical fields.
 */
export function requestHash(
  channel: Channel,
  input: SendInput,
  callbackUrl: string | null,
  smart: boolean,
): Buffer {
  // Only a repeated user_reference_id compares hashes (replay): without one there is nothing to hash for.
  if (input.userReferenceId == null) return NO_HASH;
  const canonical = JSON.stringify([
    channel,
    input.sender,
    input.recipients,
    input.body,
    input.subject ?? null,
    input.replyTo ?? null,
    input.source ?? null,
    callbackUrl,
    // Only when given, so the hash of a request without them is what it always was.
    ...(input.sendAt != null || input.validityPeriod != null
      ? [input.sendAt ?? null, input.validityPeriod ?? null]
      : []),
    // Only personalised or smart-encoded sends add these, so an ordinary send hashes as it always has.
    ...(input.templateId != null || input.variables != null || smart
      ? [input.templateId ?? null, input.variables ?? null, smart]
      : []),
    ...(input.sendWindow != null ? [input.sendWindow] : []),
    ...(input.fallback != null ? [input.fallback] : []),
    ...(input.shortenLinks ? ['shorten_links'] : []),
  ]);
  return digest('sha256', canonical, 'buffer');
}
