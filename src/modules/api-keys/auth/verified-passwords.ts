import { createHmac, randomBytes } from 'node:crypto';

interface Verified {
  accountId: string;
  until: number;
  at: number;
  /** The account's password tag when the check succeeded; a changed password no longer matches. */
  tag: string;
}

/**
 * The username/password pairs that verified lately, so a client sending its password with every
 * request costs one argon2 hash a minute, not one per request. Held by an HMAC of account,
 * username and password under a key drawn at random when the process starts: neither the
 * password nor a digest that could be tested offline without that key stays in memory.
 *
 * An entry is honoured only while the account's password tag is the one it was verified
 * against (a password changed in any process voids it within the key cache's second) and until
 * the account is forgotten (a suspension seen by the key guard). Bounded: past `maxEntries` the
 * oldest entry goes.
 */
export class VerifiedPasswords {
  private readonly entries = new Map<string, Verified>();
  private readonly forgotten = new Map<string, number>();
  private readonly digestKey = randomBytes(32);

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** What the pair is held by; the only form of the password that outlives the request. */
  digest(accountId: string, username: string, password: string): string {
    return createHmac('sha256', this.digestKey)
      .update(`${accountId}\0${username}\0${password}`)
      .digest('base64');
  }

  /** True when the pair verified within the TTL, against the password whose tag is `tag`. */
  has(digest: string, tag: string | undefined): boolean {
    const hit = this.entries.get(digest);
    if (!hit) return false;
    const forgottenAt = this.forgotten.get(hit.accountId);
    if (hit.until > Date.now() && hit.tag === tag && (forgottenAt === undefined || forgottenAt < hit.at))
      return true;
    this.entries.delete(digest);
    return false;
  }

  add(digest: string, accountId: string, tag: string): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(digest);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    const now = Date.now();
    this.entries.set(digest, { accountId, at: now, until: now + this.ttlMs, tag });
  }

  /** Voids every pair of the account verified until now (a suspension: it must prove itself again). */
  forgetAccount(accountId: string): void {
    const now = Date.now();
    // Entries are at most ttlMs old: a mark older than that voids nothing any more.
    if (this.forgotten.size >= this.maxEntries) {
      for (const [id, at] of this.forgotten) if (at <= now - this.ttlMs) this.forgotten.delete(id);
      if (this.forgotten.size >= this.maxEntries) {
        // Marks cannot be dropped while pairs they void may remain: drop those pairs too.
        this.forgotten.clear();
        this.entries.clear();
      }
    }
    this.forgotten.set(accountId, now);
  }
}
