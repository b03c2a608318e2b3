import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * One Node version story: every locked dependency runs on the Node versions package.json
 * names (so `npm ci` prints no EBADENGINE), and the Docker image runs that same major.
 */
const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const range = pkg.engines.node;
const major = semver.minVersion(range)!.major;

describe('Node version', () => {
  it('package.json names a minimum version', () => {
    expect(semver.validRange(range)).not.toBeNull();
  });

  it('every locked dependency supports the oldest Node release of that range', () => {
    const oldest = semver.minVersion(range)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, p]) => {
        const wanted = !Array.isArray(p.engines) ? p.engines?.node : undefined;
        return wanted && !semver.satisfies(oldest, wanted)
          ? [`${path}@${p.version} wants node ${wanted}`]
          : [];
      });
    expect(refusing).toEqual([]);
  });

  it(`the Docker image runs Node ${major}`, () => {
    const froms = [
      ...readFileSync(new URL('docker/Dockerfile', root), 'utf8').matchAll(/^FROM node:(\d+)/gm),
    ].map((m) => Number(m[1]));
    expect(froms.length).toBeGreaterThan(0);
    expect(new Set(froms)).toEqual(new Set([major]));
  });

  it('the README names the same version', () => {
    expect(readFileSync(new URL('README.md', root), 'utf8')).toContain(
      `Node.js ${semver.minVersion(range)!.major}.${semver.minVersion(range)!.minor}`,
    );
  });
});
