import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SETTINGS } from '../src/config/settings/index.js';

/**
 * docker/compose.yaml cannot be started here (no Docker engine), so it is checked statically:
 * against the Compose Specification's JSON schema (as shipped by dclint), and against the
 * service's own configuration schema, so that every variable it passes is one the service reads
 * and every setting can be given to the containers.
 */
const root = new URL('../', import.meta.url);
const haproxy = spawnSync('haproxy', ['-v']).status === 0;
if (!haproxy) console.warn('SKIPPED: the HAProxy configuration check needs haproxy (Debian package haproxy)');
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

type Compose = {
  services: Record<
    string,
    { image?: string; build?: unknown; environment?: Record<string, string>; env_file?: unknown }
  >;
};
const schemaVars = Object.keys(SETTINGS).sort();
// The plain stack, and the high-availability one (Galera behind HAProxy, Redis with Sentinel).
describe.each(['docker/compose.yaml', 'docker/compose.ha.yaml'])('%s', (file) => {
  const compose = parse(read(file), { merge: true }) as Compose;
  const appServices = Object.entries(compose.services).filter(
    ([name, s]) => s.image === 'bulk-messaging:local' && !name.startsWith('galera-check'),
  );

  it('is valid under the Compose Specification schema', () => {
    // A draft-07 schema (Ajv's default); its `$schema` spells the draft's URL with https,
    // which Ajv does not know by that name.
    const { $schema, ...schema } = JSON.parse(
      read('node_modules/dclint/schemas/compose.schema.json'),
    ) as Record<string, unknown>;
    expect($schema).toContain('draft-07');
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const ok = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 1)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('runs the app image in api1, api2 and worker, built once', () => {
    expect(appServices.map(([n]) => n).sort()).toEqual(['api1', 'api2', 'worker']);
    expect(Object.values(compose.services).filter((s) => s.build)).toHaveLength(1);
  });

  it('passes only variables the service reads, and reads docker/app.env in every app container', () => {
    expect(schemaVars.length).toBeGreaterThan(30);
    for (const [name, s] of appServices) {
      expect(
        Object.keys(s.environment ?? {}).filter((v) => !schemaVars.includes(v)),
        name,
      ).toEqual([]);
      expect(s.env_file, name).toEqual([{ path: './app.env', required: false }]);
    }
  });
});

describe('docker/', () => {
  it('docker/app.env.example lists every setting of the service, and nothing else', () => {
    const listed = [...read('docker/app.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect([...new Set(listed)].sort()).toEqual(schemaVars);
  });

  it('.env.example lists every setting too', () => {
    const listed = [...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect([...new Set(listed)].sort()).toEqual(schemaVars);
  });

  it('keeps docker/.env and docker/app.env out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['docker/.env', 'docker/app.env']));
  });

  it.skipIf(!haproxy)(
    'docker/haproxy.cfg (the HA variant) is a configuration HAProxy accepts, with one node taking writes',
    () => {
      const check = spawnSync('haproxy', ['-c', '-f', fileURLToPath(new URL('docker/haproxy.cfg', root))], {
        encoding: 'utf8',
      });
      expect(check.status, check.stdout + check.stderr).toBe(0);
      const servers = read('docker/haproxy.cfg').match(/^\s*server galera\d .*$/gm) ?? [];
      expect(servers).toHaveLength(3);
      expect(servers.filter((l) => !/\bbackup\b/.test(l))).toHaveLength(1);
    },
  );

  it('nginx re-resolves the API containers (resolver, shared zone, resolve on each server)', () => {
    const conf = read('docker/nginx.conf');
    expect(conf).toMatch(/^\s*resolver 127\.0\.0\.11\b/m);
    expect(conf).toMatch(/^\s*zone api \d+k;/m);
    for (const api of ['api1', 'api2'])
      expect(conf).toMatch(new RegExp(`^\\s*server ${api}:3000 resolve\\b`, 'm'));
  });
});
