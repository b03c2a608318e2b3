/** 0 ok, 1 failure (message on stderr), 2 usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * A failure a command expects and explains in one sentence (an unknown account, a name already
 * taken): printed as it is, exit 1. Features derive their own error classes from it.
 */
export class CommandError extends Error {}

/**
 * A malformed command line: a bad option value, a missing argument. The `code` and `exitCode`
 * are commander's: thrown from an option parser, commander prefixes the option's name to the
 * message, prints it and exits through our exit override with code 2.
 */
export class UsageError extends Error {
  readonly code = 'commander.invalidArgument';
  readonly exitCode = EXIT_USAGE;
}

interface CommanderErrorLike {
  code: string;
  exitCode: number;
}

function isCommanderError(err: unknown): err is CommanderErrorLike {
  const e = err as Partial<CommanderErrorLike> | null;
  return typeof e?.code === 'string' && e.code.startsWith('commander.') && typeof e.exitCode === 'number';
}

/**
 * Commander calls this instead of process.exit. Throwing hands the error to the service error
 * handler, so the Nest context still closes its database connections before the process ends.
 */
export function rethrowCommanderExit(err: Error): never {
  throw err;
}

export function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? 'unknown error'
  );
}

/**
 * Turns anything a command threw into an exit code, printing its message on stderr unless
 * commander already did. Only one line: a stack or a SQL statement is no help to an operator.
 */
export function reportError(err: unknown): number {
  if (err instanceof UsageError) {
    process.stderr.write(`error: ${err.message}\n`);
    return EXIT_USAGE;
  }
  // Commander has already printed its own message (or the help text).
  if (isCommanderError(err)) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  if (err instanceof CommandError) {
    process.stderr.write(`error: ${err.message}\n`);
    return EXIT_FAILURE;
  }
  process.stderr.write(`error: ${oneLine(err)}\n`);
  return EXIT_FAILURE;
}
