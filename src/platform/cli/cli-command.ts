import { CommandRunner, Option } from 'nest-commander';
import { rethrowCommanderExit } from './cli-errors.js';

/** commander's Command, named through nest-commander so we need no direct dependency on commander. */
export type CommanderCommand = Parameters<CommandRunner['setCommand']>[0];

/**
 * nest-commander installs the exit override (our errorHandler) on the root program only, and
 * commands built with `new Command()` do not inherit it: without this a usage error inside a
 * subcommand would call process.exit(1) directly, skipping exit code 2 and the context's close.
 */
function configure(command: CommanderCommand): void {
  command.exitOverride(rethrowCommanderExit);
}

/** A leaf command: every one accepts --json, and refuses surplus arguments. */
export abstract class CliCommand extends CommandRunner {
  override setCommand(command: CommanderCommand): this {
    configure(command);
    // commander 11 silently ignores extra operands; `accounts show a b` is a typo, not a request.
    command.allowExcessArguments(false);
    return super.setCommand(command);
  }

  @Option({ flags: '--json', description: 'print the result as one JSON object on stdout' })
  parseJson(): boolean {
    return true;
  }
}

/**
 * A command group (`accounts`, `keys`). nest-commander gives every command an action, so an
 * unknown subcommand arrives here as an operand instead of as commander's own error.
 */
export abstract class CommandGroup extends CommandRunner {
  override setCommand(command: CommanderCommand): this {
    configure(command);
    return super.setCommand(command);
  }

  async run(params: string[]): Promise<void> {
    if (params.length > 0) {
      this.command.error(`error: unknown command '${params[0]}' (see '${this.command.name()} --help')`, {
        code: 'commander.unknownCommand',
        exitCode: 2,
      });
    }
    this.command.help({ error: true });
  }
}
