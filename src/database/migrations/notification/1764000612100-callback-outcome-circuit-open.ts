import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A due callback attempt not sent because its target's circuit is open is recorded as such. */
export class CallbackOutcomeCircuitOpen1764000612100 implements MigrationInterface {
  name = 'CallbackOutcomeCircuitOpen1764000612100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      "ALTER TABLE callback_attempts MODIFY outcome ENUM('delivered','http_error','network_error','refused','circuit_open') NOT NULL",
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query("DELETE FROM callback_attempts WHERE outcome = 'circuit_open'");
    await q.query(
      "ALTER TABLE callback_attempts MODIFY outcome ENUM('delivered','http_error','network_error','refused') NOT NULL",
    );
  }
}
