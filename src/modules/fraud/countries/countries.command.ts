import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../../platform/cli/cli-command.js';
import { UsageError } from '../../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../../platform/cli/output.js';
import { countriesDto } from './countries.dto.js';
import { CountriesService, type CountriesChange, type CountriesView } from './countries.service.js';
import { parseCountries, type CountryMode } from './country-permissions.js';

interface CountriesOptions {
  username: string;
  allow?: string;
  block?: string;
  all?: boolean;
  premium?: boolean;
  json?: boolean;
}

function describe(mode: CountryMode, countries: string[]): string {
  if (mode === 'all') return 'every country';
  return mode === 'allow' ? `only ${countries.join(', ')}` : `every country but ${countries.join(', ')}`;
}

/** Where an account may send SMS and chat (its sub-accounts never further), and premium-rate numbers. */
@SubCommand({
  name: 'countries',
  description:
    'show or set the countries an account may send SMS and chat to (--allow | --block | --all) and premium-rate numbers (--premium | --no-premium); API processes see a change within 1 s',
})
export class AccountsCountriesCommand extends CliCommand {
  constructor(private readonly countries: CountriesService) {
    super();
  }

  async run(_: string[], o: CountriesOptions): Promise<void> {
    const lists = [o.allow, o.block, o.all].filter((v) => v !== undefined).length;
    if (lists > 1) throw new UsageError('Give one of --allow, --block and --all.');
    const change: CountriesChange = {};
    if (o.all) change.mode = 'all';
    for (const mode of ['allow', 'block'] as const) {
      const raw = o[mode];
      if (raw === undefined) continue;
      const { countries, unknown } = parseCountries(raw);
      if (unknown.length)
        throw new UsageError(`--${mode}: not ISO 3166 alpha-2 country names: ${unknown.join(', ')}`);
      if (countries.length === 0) throw new UsageError(`--${mode}: name at least one country (e.g. ZM,KE)`);
      Object.assign(change, { mode, countries });
    }
    if (o.premium !== undefined) change.premium = o.premium;
    const view = await this.countries.change(o.username, change);
    if (o.json) return printJson(countriesDto(view));
    printLine(line(view));
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--allow <ZM,KE,...>', description: 'only these countries (ISO 3166 alpha-2)' })
  parseAllow(v: string): string {
    return v;
  }

  @Option({ flags: '--block <NG,...>', description: 'every country but these' })
  parseBlock(v: string): string {
    return v;
  }

  @Option({ flags: '--all', description: 'every country (the default)' })
  parseAll(): boolean {
    return true;
  }

  @Option({ flags: '--premium', description: 'allow premium-rate numbers' })
  parsePremium(): boolean {
    return true;
  }

  @Option({ flags: '--no-premium', description: 'refuse premium-rate numbers (the default)' })
  parseNoPremium(): boolean {
    return false;
  }
}

function line(view: CountriesView): string {
  const { rule, effective } = view;
  const own = `${describe(rule.mode, rule.countries)}, premium-rate numbers ${rule.premium ? 'allowed' : 'refused'}`;
  const bounded =
    effective.mode !== rule.mode ||
    effective.countries.join() !== rule.countries.join() ||
    effective.premium !== rule.premium;
  const eff = `${describe(effective.mode, effective.countries)}, premium-rate numbers ${effective.premium ? 'allowed' : 'refused'}`;
  return `Account ${view.username}: ${own}${bounded ? `; within its parent's: ${eff}` : ''}`;
}
