import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { CountriesService } from './countries.service.js';
import { CountryCheck } from './country-check.service.js';
import { CountryRuleStore } from './country-rule.store.js';

/** Where each account may send SMS and chat: its setting, and the send pipeline's check of it. */
@Module({
  imports: [AccountsModule],
  providers: [CountryRuleStore, CountryCheck, CountriesService],
  exports: [CountryCheck, CountriesService],
})
export class CountriesModule {}
