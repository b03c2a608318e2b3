import { optKeyword, words, type OptKeyword } from './keywords.js';
import type { NumberRoute } from './inbound-number.store.js';

export interface Routing {
  /** The accounts that receive the message (several only for an opt word to a shared code). */
  accountIds: string[];
  /** STOP, START or HELP when the message is one. */
  opt: OptKeyword | null;
  /** What the inbound record shows as its keyword. */
  keyword: string | null;
}

/**
 * Which account a message to `to` belongs to, by the number's assignments:
 * - a short-code keyword that is the message's first word routes it to that keyword's account
 *   (and the word after it may be STOP, START or HELP: "ACME STOP");
 * - otherwise the number's owner, when the whole number is assigned;
 * - otherwise, on a shared code, an opt word as the first word goes to every account sharing
 *   it (a STOP that names no keyword suppresses the sender for all of them);
 * - otherwise no one: null.
 */
export function route(routes: NumberRoute[], text: string): Routing | null {
  const [first, second] = words(text, 2);
  const shared = routes.filter((r) => r.keyword !== '');
  const byKeyword = first ? shared.find((r) => r.keyword === first) : undefined;
  if (byKeyword) {
    const opt = optKeyword(second);
    return { accountIds: [String(byKeyword.account_id)], opt, keyword: opt ?? byKeyword.keyword };
  }
  const opt = optKeyword(first);
  const owner = routes.find((r) => r.keyword === '');
  if (owner) return { accountIds: [String(owner.account_id)], opt, keyword: opt };
  if (opt && shared.length) {
    const accountIds = [...new Set(shared.map((r) => String(r.account_id)))];
    return { accountIds, opt, keyword: opt };
  }
  return null;
}
