import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Kept answers no longer hold secrets, and fingerprints are keyed with SERVER_SECRET. A row kept
 * before cannot be matched again (its fingerprint is a plain SHA-256 of a body that is not kept,
 * so it cannot be recomputed with the key): its answer, which may hold a new API key in clear,
 * is dropped now. The row itself stays until its 24 h are over, so a retry of a request made
 * before the upgrade is refused (422 IDEMPOTENCY_KEY_REUSED) rather than done a second time.
 */
export class IdempotencyAnswersWithoutSecrets1764060500000 implements MigrationInterface {
  name = 'IdempotencyAnswersWithoutSecrets1764060500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('UPDATE idempotency_keys SET body = NULL, content_type = NULL WHERE body IS NOT NULL');
  }

  async down(): Promise<void> {
    // The answers dropped are gone; the rows keep their shape.
  }
}
