import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIpLiteral, isNonPublicAddress } from './callback-url.js';
import { withFields } from '../../platform/objects/with-fields.js';

export class RefusedTarget extends Error {}

export interface PostResult {
  status: number;
}

/**
 * POSTs JSON, refusing non-public targets at connect time: the check runs inside the socket's
 * own DNS lookup, so a name that resolves to a private address (or re-resolves to one, DNS
 * rebinding) is refused whatever it resolved to when the URL was accepted. Node skips the lookup
 * for an IP-literal host, so a literal address gets the same check here, before any socket opens.
 */
export function safePost(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivate: boolean; httpsOnly: boolean },
): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    if (u.protocol !== 'https:' && (opts.httpsOnly || u.protocol !== 'http:')) {
      reject(new RefusedTarget(`${u.protocol} callbacks are not allowed`));
      return;
    }
    if (!opts.allowPrivate && isIpLiteral(u.hostname) && isNonPublicAddress(u.hostname)) {
      reject(new RefusedTarget(`${u.hostname} is a non-public address`));
      return;
    }
    const lookup = (
      hostname: string,
      options: object,
      cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      dnsLookup(hostname, withFields(options, { all: true as const }), (err, addresses) => {
        if (err) return cb(err, []);
        const list = addresses as LookupAddress[];
        const bad = list.find((a) => isNonPublicAddress(a.address));
        if (bad && !opts.allowPrivate)
          return cb(new RefusedTarget(`${hostname} resolves to a non-public address`), []);
        const wantAll = (options as { all?: boolean }).all;
        if (wantAll) cb(null, list);
        else cb(null, list[0].address, list[0].family);
      });
    };
    const client = u.protocol === 'https:' ? https : http;
    const req = client.request(
      u,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'bulk-messaging-callbacks/1',
          ...headers,
        },
        lookup: lookup as never,
        timeout: opts.timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)),
      opts.timeoutMs,
    );
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
