import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort, killOnExit } from './local-state.js';
import { parseMail, type ReceivedMail } from './smtp-peer.js';

/**
 * An independent MTA for the tests: Debian's exim4-daemon-light, started directly (no systemd)
 * in the foreground on a loopback port, with its spool, logs and Maildir in a temp directory.
 *
 * Exim accepts an alternative configuration (-C) from root without TRUSTED_CONFIG_LIST, drops
 * to `exim_user` once it listens, and delivers as `user` of the transport (never as root: Debian
 * builds Exim with FIXED_NEVER_USERS=root). So as root every directory it writes is handed to
 * Debian-exim; as another user, Exim runs as that user and everything stays theirs.
 *
 * It offers STARTTLS with a self-signed certificate made here with openssl (CN and SAN
 * localhost / 127.0.0.1), refuses RCPT TO for the local part `refuse` with 550, and delivers
 * everything else to one Maildir, read back with `mails()`.
 */
export const EXIM_BINARY = ['/usr/sbin/exim4', '/usr/sbin/exim', '/usr/bin/exim4'].find((p) => existsSync(p));
const OPENSSL = ['/usr/bin/openssl', '/bin/openssl'].find((p) => existsSync(p));

/** Why Exim cannot run here, or null when it can. Tests print this loudly when they skip. */
export function eximUnavailable(): string | null {
  if (!EXIM_BINARY) return 'exim4 is not installed (Debian package exim4-daemon-light; .ci/run installs it)';
  if (!OPENSSL) return 'openssl is not installed (Debian package openssl; .ci/run installs it)';
  return null;
}

export interface EximOptions {
  /** Offer STARTTLS (default true). */
  tls?: boolean;
}

export interface MaildirMail extends Omit<ReceivedMail, 'envelopeFrom' | 'to'> {
  file: string;
  /** The whole file as Exim wrote it. */
  bytes: Buffer;
}

function eximAccount(): { user: string; uid: number; gid: number } {
  const me = userInfo();
  if (me.uid !== 0) return { user: me.username, uid: me.uid, gid: me.gid };
  const line = execFileSync('getent', ['passwd', 'Debian-exim'], { encoding: 'utf8' }).trim().split(':');
  return { user: line[0], uid: Number(line[2]), gid: Number(line[3]) };
}

function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => (socket.destroy(), resolve(ok));
    socket.setTimeout(1000, () => done(false));
    socket.once('data', (d) => done(d.toString().startsWith('220')));
    socket.once('error', () => done(false));
  });
}

export class EximInstance {
  private proc?: ChildProcess;

  private constructor(
    readonly dir: string,
    readonly port: number,
    /** The server certificate (PEM): what a client must trust to verify it. */
    readonly certPath: string,
  ) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  static async start(options: EximOptions = {}): Promise<EximInstance> {
    const reason = eximUnavailable();
    if (reason) throw new Error(reason);
    const dir = mkdtempSync(join(tmpdir(), 'exim-test-'));
    const port = await freePort();
    const certPath = join(dir, 'cert.pem');
    const keyPath = join(dir, 'key.pem');
    execFileSync(
      OPENSSL!,
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        keyPath,
        '-out',
        certPath,
      ],
      { stdio: 'ignore' },
    );
    const account = eximAccount();
    for (const sub of ['spool', 'log', 'Maildir']) mkdirSync(join(dir, sub));
    for (const path of [dir, join(dir, 'spool'), join(dir, 'log'), join(dir, 'Maildir'), keyPath, certPath]) {
      chownSync(path, account.uid, account.gid);
    }
    const conf = join(dir, 'exim.conf');
    writeFileSync(conf, config(dir, account.user, options.tls ?? true, certPath, keyPath));
    const instance = new EximInstance(dir, port, certPath);
    await instance.run(conf);
    return instance;
  }

  private async run(conf: string): Promise<void> {
    // -bdf: the listening daemon in the foreground, so it is this child and dies with the test.
    const proc = spawn(EXIM_BINARY!, ['-C', conf, '-bdf', '-oX', String(this.port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    killOnExit(proc);
    this.proc = proc;
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      if (proc.exitCode !== null)
        throw new Error(`exim exited (${proc.exitCode}): ${stderr}${this.log('panic')}`);
      if (await greets(this.port)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`exim did not greet on port ${this.port}: ${stderr}${this.log('main')}`);
  }

  /** Exim's main (or reject, panic) log so far. */
  log(which: 'main' | 'reject' | 'panic' = 'main'): string {
    const file = join(this.dir, 'log', `${which}log`);
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  /** Every message delivered to the Maildir so far, oldest first. */
  mails(): MaildirMail[] {
    const newDir = join(this.dir, 'Maildir', 'new');
    if (!existsSync(newDir)) return [];
    return readdirSync(newDir)
      .sort()
      .map((file) => {
        const bytes = readFileSync(join(newDir, file));
        return { ...parseMail(bytes), file, bytes };
      });
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    if (proc && proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
    // The daemon's forked children (an SMTP session, a delivery still writing to the Maildir)
    // outlive it and carry its command line: stop them too before removing the directory.
    const conf = join(this.dir, 'exim.conf');
    const until = Date.now() + 10_000;
    for (let left = forkedFrom(conf); left.length > 0 && Date.now() < until; left = forkedFrom(conf)) {
      for (const pid of left) killQuietly(pid);
      await new Promise((r) => setTimeout(r, 50));
    }
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** Processes whose command line names this configuration file. */
function forkedFrom(conf: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(conf)) pids.push(Number(entry));
    } catch {
      // gone between the listing and the read
    }
  }
  return pids;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function config(dir: string, user: string, tls: boolean, cert: string, key: string): string {
  return `
exim_user = ${user}
exim_group = ${user}
primary_hostname = mx.exim.test
spool_directory = ${dir}/spool
log_file_path = ${dir}/log/%slog
log_selector = +smtp_connection +tls_cipher +tls_peerdn +smtp_protocol_error +smtp_syntax_error +received_recipients
keep_environment =
local_interfaces = 127.0.0.1
deliver_drop_privilege = true
host_lookup =
rfc1413_hosts =
split_spool_directory = false
${tls ? `tls_advertise_hosts = *\ntls_certificate = ${cert}\ntls_privatekey = ${key}` : 'tls_advertise_hosts ='}
acl_smtp_rcpt = check_rcpt

begin acl
check_rcpt:
  deny    local_parts = refuse
          message = 5.1.1 <$local_part@$domain>: mailbox refused
  accept

begin routers
to_maildir:
  driver = accept
  transport = maildir

begin transports
maildir:
  driver = appendfile
  directory = ${dir}/Maildir
  maildir_format
  create_directory
  envelope_to_add
  return_path_add
  user = ${user}
  group = ${user}
  mode = 0644
`;
}
