import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Today's (and any later day's) spend of each parent's sub-accounts, per parent and day. */
const CHILDREN_SPEND = `SELECT a.parent_id, d.day, SUM(d.spent) AS spent
   FROM daily_spend d JOIN accounts a ON a.id = d.owner_id
  WHERE d.scope = 'account' AND a.parent_id IS NOT NULL AND d.day >= UTC_DATE()
  GROUP BY a.parent_id, d.day`;

/**
 * A parent account's daily_spend row now holds its family's spend (its own keys' and its
 * sub-accounts'), so the parent's daily limit covers the sub-accounts. The sends of the day
 * already made by sub-accounts are added to their parents' rows here, so the limit holds from
 * the first send after the upgrade; earlier days are history and stay as they were. One
 * statement, so it is applied whole or not at all; run twice (a process dying between it and its
 * record), a sub-account's spend of the day would count twice toward its parent's limit, until
 * the next UTC day: the stricter side to err on.
 */
export class FamilyDailySpend1764054100000 implements MigrationInterface {
  name = 'FamilyDailySpend1764054100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO daily_spend (scope, owner_id, day, spent)
      SELECT 'account', c.parent_id, c.day, c.spent FROM (${CHILDREN_SPEND}) c
      ON DUPLICATE KEY UPDATE spent = daily_spend.spent + VALUES(spent)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE daily_spend p JOIN (${CHILDREN_SPEND}) c
        ON p.scope = 'account' AND p.owner_id = c.parent_id AND p.day = c.day
      SET p.spent = GREATEST(p.spent - c.spent, 0)`);
  }
}
