import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { iso, printJson, printLine, printTable } from '../../platform/cli/output.js';
import { parseCurrency } from '../../platform/cli/parsers.js';
import type { Account } from './account.entity.js';
import { AccountsService } from './accounts.service.js';
import { MIN_PASSWORD_LENGTH } from './password-policy.js';
import { readNewPassword, type PasswordOptions } from './password-input.js';

export interface JsonOption {
  json?: boolean;
}

export function accountView(a: Account, parent: string | null = null) {
  return {
    client_id: a.clientId,
    username: a.username,
    parent,
    status: a.status,
    currency: a.currency,
    smart_encoding: a.smartEncoding,
    created_at: iso(a.createdAt),
  };
}

@SubCommand({
  name: 'create',
  description: 'create an account with a balance of 0 on every channel at the default prices',
})
export class AccountsCreateCommand extends CliCommand {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run(
    _: string[],
    o: JsonOption & PasswordOptions & { username: string; currency?: string; parent?: string },
  ): Promise<void> {
    // A sub-account has no password unless one is given: it signs in to nothing until then.
    const askPassword = o.parent === undefined || o.password !== undefined || o.passwordStdin;
    const a = await this.accounts.create({
      username: o.username,
      password: askPassword ? await readNewPassword(o) : undefined,
      currency: o.currency,
      parent: o.parent,
    });
    const view = {
      client_id: a.clientId,
      username: a.username,
      currency: a.currency,
      ...(o.parent ? { parent: o.parent } : {}),
    };
    if (o.json) return printJson(view);
    printLine(
      `Created ${o.parent ? `sub-account of ${o.parent}` : 'account'} ${view.username} (client_id ${view.client_id}, currency ${view.currency})`,
    );
  }

  @Option({
    flags: '--parent <username>',
    description:
      "make it a sub-account of this account (the parent's currency and prices; no password unless one is given)",
  })
  parseParent(v: string): string {
    return v;
  }

  @Option({
    flags: '--username <username>',
    description: '3-64 characters: letters, digits, . _ @ -',
    required: true,
  })
  parseUsername(v: string): string {
    return v;
  }

  @Option({
    flags: '--password <password>',
    description: `at least ${MIN_PASSWORD_LENGTH} characters, not a common one (stored as an argon2id hash); visible in ps: prefer --password-stdin`,
  })
  parsePassword(v: string): string {
    return v;
  }

  @Option({
    flags: '--password-stdin',
    description: 'read the password from standard input (recommended); without either, a terminal prompts',
  })
  parsePasswordStdin(): boolean {
    return true;
  }

  @Option({ flags: '--currency <code>', description: 'ISO 4217 code (default ZMW)' })
  parseCurrency(v: string): string {
    return parseCurrency(v);
  }
}

@SubCommand({ name: 'list', description: 'list all accounts' })
export class AccountsListCommand extends CliCommand {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run(_: string[], o: JsonOption): Promise<void> {
    const all = await this.accounts.list();
    const names = new Map(all.map((a) => [String(a.id), a.username]));
    const accounts = all.map((a) =>
      accountView(a, a.parentId ? (names.get(String(a.parentId)) ?? null) : null),
    );
    if (o.json) return printJson({ accounts });
    printTable(accounts, [
      ['username', 'USERNAME'],
      ['parent', 'PARENT'],
      ['status', 'STATUS'],
      ['currency', 'CURRENCY'],
      ['client_id', 'CLIENT_ID'],
      ['created_at', 'CREATED'],
    ]);
  }
}

async function setStatus(
  accounts: AccountsService,
  username: string,
  status: 'active' | 'suspended',
  o: JsonOption,
) {
  const a = await accounts.setStatus(username, status);
  if (o.json) return printJson({ username: a.username, status: a.status });
  printLine(`Account ${a.username} is ${a.status}`);
}

@SubCommand({
  name: 'suspend',
  arguments: '<username>',
  description: "refuse the account's API requests (ACCOUNT_SUSPENDED)",
})
export class AccountsSuspendCommand extends CliCommand {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run([username]: string[], o: JsonOption): Promise<void> {
    await setStatus(this.accounts, username, 'suspended', o);
  }
}

@SubCommand({
  name: 'activate',
  arguments: '<username>',
  description: "accept the account's API requests again",
})
export class AccountsActivateCommand extends CliCommand {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run([username]: string[], o: JsonOption): Promise<void> {
    await setStatus(this.accounts, username, 'active', o);
  }
}

@SubCommand({
  name: 'callback-secret',
  description: 'print the secret that signs delivery callbacks; --rotate replaces it',
})
export class AccountsCallbackSecretCommand extends CliCommand {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run(_: string[], o: JsonOption & { username: string; rotate?: boolean }): Promise<void> {
    const secret = o.rotate
      ? await this.accounts.rotateCallbackSecret(o.username)
      : await this.accounts.callbackSecret(o.username);
    const view = { username: o.username, callback_secret: secret, rotated: !!o.rotate };
    if (o.json) return printJson(view);
    printLine(`${o.rotate ? 'New callback' : 'Callback'} secret for ${o.username}: ${secret}`);
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({
    flags: '--rotate',
    description: 'replace the secret with 32 new random bytes (hex); old signatures stop verifying',
  })
  parseRotate(): boolean {
    return true;
  }
}
