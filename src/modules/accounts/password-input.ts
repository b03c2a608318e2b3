import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { AccountError } from './accounts.service.js';

export interface PasswordOptions {
  password?: string;
  passwordStdin?: boolean;
}

/** Reads all of standard input; a password piped with echo or a here-string loses its final newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * Asks each question on the terminal without echoing what is typed (prompts go to stderr,
 * keeping stdout for --json). One interface for all of them: a second one would lose what the
 * first had already read ahead.
 */
async function ask(questions: string[]): Promise<string[]> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  const answers: string[] = [];
  try {
    for (const question of questions) {
      process.stderr.write(question);
      muted = true;
      answers.push(await new Promise<string>((resolve) => rl.question('', resolve)));
      muted = false;
      process.stderr.write('\n');
    }
  } finally {
    rl.close();
  }
  return answers;
}

/**
 * The new password of `accounts create` / `accounts password`, from one of three places:
 * `--password-stdin` (recommended: nothing in `ps` or the shell history), a prompt when
 * standard input is a terminal, or `--password` (visible to every user of the machine while
 * the command runs).
 */
export async function readNewPassword(o: PasswordOptions): Promise<string> {
  if (o.password !== undefined && o.passwordStdin)
    throw new UsageError('give either --password or --password-stdin, not both');
  if (o.password !== undefined) return o.password;
  if (o.passwordStdin) return readStdin();
  if (!process.stdin.isTTY) {
    throw new UsageError(
      'no password: pipe it in with --password-stdin (recommended), or run on a terminal to be prompted',
    );
  }
  const [first, second] = await ask(['New password: ', 'Repeat it: ']);
  if (first !== second) throw new AccountError('the two passwords differ');
  return first;
}
