import { Injectable } from '@nestjs/common';
import { AppException } from '../../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../../platform/errors/error-codes.js';
import type { Account } from '../../accounts/account.entity.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { CountryCheck } from './country-check.service.js';
import { parseCountries, type CountryMode, type CountryRule } from './country-permissions.js';
import { CountryRuleStore } from './country-rule.store.js';

/** An account's setting and where its family's settings together let it send. */
export interface CountriesView {
  username: string;
  rule: CountryRule;
  /** Where it may really send: its own rule bounded by its parent's. */
  effective: { mode: CountryMode; countries: string[]; premium: boolean };
}

/** A change of an account's setting; what is left out stays as it was. */
export interface CountriesChange {
  mode?: CountryMode;
  countries?: string[];
  premium?: boolean;
}

/**
 * The countries each account may send SMS and chat to, as the operators (CLI) and parent
 * accounts (for their sub-accounts) set them. Every change is forgotten at once by this
 * process's send check, for the account and its sub-accounts.
 */
@Injectable()
export class CountriesService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly store: CountryRuleStore,
    private readonly check: CountryCheck,
  ) {}

  async view(account: Pick<Account, 'id' | 'username'>): Promise<CountriesView> {
    const [rule, permissions] = await Promise.all([
      this.store.rule(account.id),
      this.check.permissions(account.id),
    ]);
    const restricting = permissions.rules.filter((r) => r.mode !== 'all');
    // One restricting rule reads best as written (a block list stays short); several as the countries left.
    const effective =
      restricting.length === 0
        ? { mode: 'all' as const, countries: [] }
        : restricting.length === 1
          ? { mode: restricting[0]!.mode, countries: restricting[0]!.countries }
          : { mode: 'allow' as const, countries: permissions.reachable() ?? [] };
    return { username: account.username, rule, effective: { ...effective, premium: permissions.premium } };
  }

  /** An operator's change (accounts countries), or with none its view; the account is named by username. */
  async change(username: string, change: CountriesChange): Promise<CountriesView> {
    const account = await this.accounts.requireByUsername(username);
    // With no change asked for, the setting is only shown.
    if (Object.keys(change).length) await this.apply(account, change);
    return this.view(account);
  }

  /** A parent's change of its sub-account's countries: `{allow?: [...], block?: [...]}`, neither for all. */
  async changeSubaccount(parent: Account, username: string, body: { allow?: unknown; block?: unknown }) {
    const child = parent.parentId ? null : await this.accounts.findSubaccount(parent.id, username);
    if (!child)
      throw new AppException('NOT_FOUND', `No sub-account ${JSON.stringify(username)} of this account.`, [
        { field: 'username', message: 'no such sub-account' },
      ]);
    await this.apply(child, subaccountChange(body));
    return this.view(child);
  }

  private async apply(account: Account, change: CountriesChange): Promise<void> {
    const before = await this.store.rule(account.id);
    const mode = change.mode ?? before.mode;
    await this.store.setRule(account.id, {
      mode,
      countries: mode === 'all' ? [] : (change.countries ?? before.countries),
      premium: change.premium ?? before.premium,
    });
    this.check.forget([account.id, ...(await this.accounts.childrenOf(account.id))]);
  }
}

/** The body of a parent's change, checked: one list at most, each name a known country. */
function subaccountChange(body: { allow?: unknown; block?: unknown }): CountriesChange {
  const { allow, block } = body;
  if (allow !== undefined && block !== undefined)
    throw AppException.validation(
      [{ field: 'block', message: 'give allow or block, not both' }],
      'Give either the countries the sub-account may send to (allow) or those it may not (block).',
    );
  if (allow === undefined && block === undefined) return { mode: 'all', countries: [] };
  const field = allow !== undefined ? 'allow' : 'block';
  const list = allow ?? block;
  const details: ErrorDetail[] = [];
  if (!Array.isArray(list) || list.some((c) => typeof c !== 'string'))
    details.push({ field, message: 'a list of ISO 3166 alpha-2 country names, e.g. ["ZM","KE"]' });
  else {
    list.forEach((c: string, i) => {
      if (parseCountries([c]).unknown.length)
        details.push({
          field: `${field}[${i}]`,
          message: `${JSON.stringify(c)} is not an ISO 3166 alpha-2 country name`,
        });
    });
    if (field === 'allow' && list.length === 0)
      details.push({ field, message: 'at least one country; send {} to allow every country' });
  }
  if (details.length) throw AppException.validation(details.slice(0, 100));
  return { mode: field, countries: parseCountries(list as string[]).countries };
}
