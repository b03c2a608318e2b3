import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';

export interface ListeningFacts {
  name: string;
  /** The listener's own address, as `server.address()` gives it. */
  address: AddressInfo;
  env: string;
  runWorkers: boolean;
  callbackAllowPrivateNetworks: boolean;
  /** False on a new install (no account yet); undefined when it could not be told. */
  hasAccounts: boolean | undefined;
}

export interface StartupLine {
  level: 'info' | 'warn';
  msg: string;
}

const WILDCARDS = new Set(['::', '0.0.0.0']);

/** The addresses of this machine's interfaces, loopback first: where a wildcard listener answers. */
function interfaceAddresses(ipv6: boolean): string[] {
  const all = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((i) => ipv6 || i.family === 'IPv4')
    .sort((a, b) => Number(b.internal) - Number(a.internal));
  return [...new Set(all.map((i) => i.address))];
}

function urlHost(address: string): string {
  if (WILDCARDS.has(address) || address === '127.0.0.1' || address === '::1') return 'localhost';
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * What a process that has just bound its port tells whoever started it: where it answers (the
 * URL, the API reference, the health probe), on which interfaces, the next step on a new install
 * (no account yet: the CLI line that makes one), and a warning when callbacks may reach private
 * networks. One line each, through the process's logger.
 */
export function listeningLines(f: ListeningFacts): StartupLine[] {
  const { address, port } = f.address;
  const every = WILDCARDS.has(address);
  const where = every
    ? `every interface (${interfaceAddresses(address === '::').join(', ')})`
    : `${address} only`;
  const url = `http://${urlHost(address)}:${port}`;
  const lines: StartupLine[] = [
    {
      level: 'info',
      msg: `${f.name} listening on :${port}, ${where} (env ${f.env}, workers ${f.runWorkers ? 'on' : 'off'})`,
    },
    { level: 'info', msg: `serving ${url}: API reference ${url}/docs, health ${url}/health` },
  ];
  if (f.hasAccounts === false)
    lines.push({
      level: 'info',
      msg:
        'no account yet: create the first one with `npm run cli -- accounts create --username acme --currency ZMW` ' +
        '(it asks for a password; `node dist/cli.js` is the same CLI), then give it credit and a key as the README shows',
    });
  if (f.callbackAllowPrivateNetworks)
    lines.push({
      level: 'warn',
      msg:
        'CALLBACK_ALLOW_PRIVATE_NETWORKS=true: callbacks may be sent to loopback, private and link-local addresses; ' +
        'for local testing only, keep it false where the service faces customers',
    });
  return lines;
}
