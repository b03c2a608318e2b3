import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort, killOnExit } from './local-state.js';

const SCRIPT = fileURLToPath(new URL('./net-smpp-smsc.pl', import.meta.url));

/** Why Net::SMPP cannot run here, or null when it can (Debian: libnet-smpp-perl). */
export function netSmppMissing(): string | null {
  const probe = spawnSync('perl', ['-MNet::SMPP', '-e', '1'], { encoding: 'utf8' });
  if (probe.error) return `perl not found: ${probe.error.message}`;
  return probe.status === 0
    ? null
    : `Net::SMPP not installed (apt-get install libnet-smpp-perl): ${probe.stderr.trim()}`;
}

export interface NetSmppSubmit {
  destination: string;
  id: string;
  seq: number;
  total: number;
  /** The submit_sm's validity_period as received ('' when empty). */
  validity: string;
}

/** The Perl SMSC of net-smpp-smsc.pl on a free loopback port, with what it printed. */
export interface NetSmppSmsc {
  url: string;
  submits: NetSmppSubmit[];
  receiptResponses: number[];
  lines: string[];
  close(): Promise<void>;
}

export async function startNetSmppSmsc(): Promise<NetSmppSmsc> {
  const port = await freePort();
  const proc: ChildProcess = killOnExit(
    spawn('perl', [SCRIPT, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const submits: NetSmppSubmit[] = [];
  const receiptResponses: number[] = [];
  const lines: string[] = [];
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const listening = new Promise<void>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`net-smpp-smsc.pl exited (${code}): ${stderr}`)));
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      lines.push(line);
      const [event, ...args] = line.split(' ');
      if (event === 'listening') resolve();
      else if (event === 'submit') {
        const [seq, total] = args[2].split('/').map(Number);
        const validity = args[3] === undefined || args[3] === '-' ? '' : args[3];
        submits.push({ destination: args[0], id: args[1], seq, total, validity });
      } else if (event === 'receipt_resp') receiptResponses.push(Number(args[0]));
    });
  });
  await listening;
  return {
    url: `smpp://test:secret@127.0.0.1:${port}`,
    submits,
    receiptResponses,
    lines,
    close: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGKILL');
      }),
  };
}
