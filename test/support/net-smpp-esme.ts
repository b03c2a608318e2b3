import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { killOnExit } from './local-state.js';

export { netSmppMissing } from './net-smpp-smsc.js';

const SCRIPT = fileURLToPath(new URL('./net-smpp-esme.pl', import.meta.url));

/** A PDU the ESME read, as net-smpp-esme.pl prints it. */
export interface EsmePdu {
  cmd: string;
  status: number;
  seq: number;
  message_id?: string;
  system_id?: string;
  short_message?: string;
  esm_class?: number;
  receipted_message_id?: string;
}

export const CMD = {
  bind_transceiver_resp: '0x80000009',
  bind_transmitter_resp: '0x80000002',
  bind_receiver_resp: '0x80000001',
  submit_sm_resp: '0x80000004',
  data_sm_resp: '0x80000103',
  enquire_link_resp: '0x80000015',
  unbind: '0x00000006',
  unbind_resp: '0x80000006',
  generic_nack: '0x80000000',
} as const;

/** One SMPP client connection of Net::SMPP (net-smpp-esme.pl), driven line by line. */
export interface NetSmppEsme {
  /** Sends a PDU `count` times without waiting; binary fields (short_message, TLVs) go in `hex`. */
  send(
    cmd: string,
    params?: Record<string, string | number>,
    hex?: Record<string, string>,
    count?: number,
  ): Promise<number[]>;
  /** Reads `count` PDUs (fewer when the server closes: `eof`). */
  read(count?: number): Promise<{ pdus: EsmePdu[]; eof: boolean }>;
  /** Sends one PDU and reads one. */
  call(cmd: string, params?: Record<string, string | number>, hex?: Record<string, string>): Promise<EsmePdu>;
  bind(
    systemId: string,
    password: string,
    type?: 'transceiver' | 'transmitter' | 'receiver',
  ): Promise<EsmePdu>;
  /** A submit_sm of GSM text (data_coding 0), answered. */
  submitText(
    from: string,
    to: string,
    text: string,
    params?: Record<string, string | number>,
  ): Promise<EsmePdu>;
  /** Answers the deliver_sm read from now on with this command_status (0 until told). */
  answerDeliverWith(status: number): Promise<void>;
  close(): Promise<void>;
}

export async function connectNetSmppEsme(port: number, host = '127.0.0.1'): Promise<NetSmppEsme> {
  const proc: ChildProcess = killOnExit(
    spawn('perl', [SCRIPT, host, String(port)], { stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiting: Array<(v: Record<string, unknown>) => void> = [];
  const early: Array<Record<string, unknown>> = [];
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    const value = JSON.parse(line) as Record<string, unknown>;
    const w = waiting.shift();
    if (w) w(value);
    else early.push(value);
  });
  const exited = new Promise<Record<string, unknown>>((resolve) =>
    proc.once('exit', (code) => resolve({ error: `net-smpp-esme.pl exited (${code}): ${stderr}` })),
  );
  const next = () =>
    Promise.race([
      new Promise<Record<string, unknown>>((resolve) => {
        const e = early.shift();
        if (e) resolve(e);
        else waiting.push(resolve);
      }),
      exited,
    ]);
  const request = async (req: object) => {
    proc.stdin!.write(`${JSON.stringify(req)}\n`);
    const out = await next();
    if (out.error) throw new Error(String(out.error));
    return out;
  };
  const hello = await next();
  if (hello.error) throw new Error(String(hello.error));

  const esme: NetSmppEsme = {
    async send(cmd, params = {}, hex = {}, count = 1) {
      return (await request({ op: 'send', cmd, params, hex, count })).sent as number[];
    },
    async read(count = 1) {
      const out = await request({ op: 'read', count });
      return { pdus: out.pdus as EsmePdu[], eof: out.eof === true };
    },
    async call(cmd, params, hex) {
      await esme.send(cmd, params, hex);
      const { pdus } = await esme.read(1);
      if (!pdus[0]) throw new Error(`no answer to ${cmd}: the server closed the connection`);
      return pdus[0];
    },
    bind(systemId, password, type = 'transceiver') {
      return esme.call(`bind_${type}`, { system_id: systemId, password });
    },
    submitText(from, to, text, params = {}) {
      return esme.call(
        'submit_sm',
        { source_addr: from, destination_addr: to, data_coding: 0, ...params },
        { short_message: Buffer.from(text, 'latin1').toString('hex') },
      );
    },
    async answerDeliverWith(status) {
      await request({ op: 'deliver_status', status });
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGKILL');
      }),
  };
  return esme;
}
