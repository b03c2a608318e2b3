import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CountriesModule } from '../../src/modules/fraud/countries/countries.module.js';
import { CountryRuleStore } from '../../src/modules/fraud/countries/country-rule.store.js';
import { DEFAULT_RULE } from '../../src/modules/fraud/countries/country-permissions.js';
import { createSubaccount, createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Every statement on account_countries, on real MySQL. */

let ctx: ServiceContext;
let store: CountryRuleStore;
let parent: Tenant;

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, CountriesModule]);
  store = ctx.get(CountryRuleStore);
  parent = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('CountryRuleStore', () => {
  it('reads the default rule for an account without a row', async () => {
    expect(await store.rule(parent.account.id)).toEqual(DEFAULT_RULE);
    expect(await store.familyRules(parent.account.id)).toEqual([DEFAULT_RULE]);
  });

  it('keeps one rule per account: setting it again replaces it', async () => {
    const other = await createTenant(ctx);
    await store.setRule(other.account.id, { mode: 'allow', countries: ['KE', 'ZM'], premium: false });
    await store.setRule(other.account.id, { mode: 'block', countries: ['NG'], premium: true });
    expect(await store.rule(other.account.id)).toEqual({ mode: 'block', countries: ['NG'], premium: true });
    await store.setRule(other.account.id, { mode: 'all', countries: [], premium: false });
    expect(await store.rule(other.account.id)).toEqual(DEFAULT_RULE);
    expect(await store.rule(parent.account.id)).toEqual(DEFAULT_RULE);
  });

  it("reads a sub-account's family: its parent's rule first, then its own, defaults for either", async () => {
    const child = await createSubaccount(ctx, parent);
    expect(await store.familyRules(child.account.id)).toEqual([DEFAULT_RULE, DEFAULT_RULE]);
    await store.setRule(parent.account.id, { mode: 'allow', countries: ['KE', 'ZM'], premium: true });
    expect(await store.familyRules(child.account.id)).toEqual([
      { mode: 'allow', countries: ['KE', 'ZM'], premium: true },
      DEFAULT_RULE,
    ]);
    await store.setRule(child.account.id, { mode: 'block', countries: ['KE'], premium: false });
    expect(await store.familyRules(child.account.id)).toEqual([
      { mode: 'allow', countries: ['KE', 'ZM'], premium: true },
      { mode: 'block', countries: ['KE'], premium: false },
    ]);
    // The parent's own read is not widened nor narrowed by its child's rule.
    expect(await store.familyRules(parent.account.id)).toEqual([
      { mode: 'allow', countries: ['KE', 'ZM'], premium: true },
    ]);
  });
});
