import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DEFAULT_RULE, type CountryMode, type CountryRule } from './country-permissions.js';

interface RuleRow {
  account_id: string;
  parent_id: string | null;
  mode: CountryMode | null;
  countries: string | null;
  allow_premium: number | null;
}

function ruleOf(row: RuleRow | undefined): CountryRule {
  if (!row?.mode) return DEFAULT_RULE;
  return {
    mode: row.mode,
    countries: row.countries ? row.countries.split(',') : [],
    premium: row.allow_premium === 1,
  };
}

/** Every statement on account_countries: where each account may send SMS and chat. */
@Injectable()
export class CountryRuleStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** An account's own rule (the default one when it has none). */
  async rule(accountId: string): Promise<CountryRule> {
    const rows = (await this.ds.query(
      `SELECT account_id, NULL AS parent_id, mode, countries, allow_premium
         FROM account_countries WHERE account_id = ?`,
      [accountId],
    )) as RuleRow[];
    return ruleOf(rows[0]);
  }

  /**
   * The rules that bound an account, in one read: its parent's first (for a sub-account), then
   * its own; an account of either without a row has the default rule.
   */
  async familyRules(accountId: string): Promise<CountryRule[]> {
    const rows = (await this.ds.query(
      `SELECT a.id AS account_id, a.parent_id, c.mode, c.countries, c.allow_premium
         FROM accounts a LEFT JOIN account_countries c ON c.account_id = a.id
        WHERE a.id = ? OR a.id = (SELECT parent_id FROM accounts WHERE id = ?)`,
      [accountId, accountId],
    )) as RuleRow[];
    const own = rows.find((r) => String(r.account_id) === String(accountId));
    const parent = rows.find((r) => String(r.account_id) !== String(accountId));
    return own?.parent_id != null ? [ruleOf(parent), ruleOf(own)] : [ruleOf(own)];
  }

  async setRule(accountId: string, rule: CountryRule): Promise<void> {
    await this.ds.query(
      `INSERT INTO account_countries (account_id, mode, countries, allow_premium) VALUES (?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE mode = VALUES(mode), countries = VALUES(countries),
                               allow_premium = VALUES(allow_premium)`,
      [accountId, rule.mode, rule.countries.join(','), rule.premium ? 1 : 0],
    );
  }
}
