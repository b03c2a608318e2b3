import type { CommanderCommand } from './cli-command.js';

const NAME = 'username';
const FLAG = `--${NAME}`;

/**
 * Every command of a group takes the account both ways: `accounts show acme` and
 * `accounts show --username acme`, `accounts credit acme …` and `accounts credit --username acme …`.
 * Commands declare one form (a `<username>` argument or a `--username` option); the other is
 * added here, after nest-commander has built them, and a hook before the action hands the
 * command its value in the form it declared. Both forms naming different accounts, or neither,
 * is a usage error (exit 2).
 */
export function acceptAccountBothWays(group: CommanderCommand): void {
  for (const command of group.commands) {
    const positional = command.registeredArguments[0]?.name() === NAME;
    const option = command.options.find((o) => o.long === FLAG);
    // Neither form, or both already; an option beside other arguments keeps its one form.
    if (positional === (option !== undefined)) continue;
    if (!positional && command.registeredArguments.length > 0) continue;
    if (positional) {
      (command.registeredArguments[0] as { required: boolean }).required = false;
      command.addOption(
        command.createOption(`${FLAG} <${NAME}>`, 'the account (or give it as the first argument)'),
      );
    } else {
      option!.mandatory = false;
      command.addArgument(command.createArgument(`[${NAME}]`, `the account (or give it as ${FLAG})`));
    }
    command.hook('preAction', (cmd) => {
      const given = cmd.args[0];
      const flagged = cmd.getOptionValue(NAME) as string | undefined;
      if (given !== undefined && flagged !== undefined && given !== flagged)
        cmd.error(`error: two accounts given: ${given} and ${FLAG} ${flagged}`, {
          exitCode: 2,
          code: 'commander.conflictingOption',
        });
      const account = given ?? flagged;
      if (account === undefined)
        cmd.error(`error: missing the account: give it as the first argument or as ${FLAG} <${NAME}>`, {
          exitCode: 2,
          code: 'commander.missingArgument',
        });
      if (positional) cmd.args = [account, ...cmd.args.slice(1)];
      else {
        cmd.setOptionValue(NAME, account);
        cmd.args = cmd.args.slice(1);
      }
    });
  }
}
