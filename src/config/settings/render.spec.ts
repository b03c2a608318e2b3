import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED, renderSettingsFiles } from './render.js';
import { SETTINGS } from './index.js';

const root = new URL('../../../', import.meta.url);

describe('the files made from the settings', () => {
  it.each(Object.entries(renderSettingsFiles()))('%s is up to date (npm run docs:config)', (path, text) => {
    expect(readFileSync(new URL(path, root), 'utf8')).toBe(text);
  });

  it('name every setting once in the page and in each example', () => {
    const names = Object.keys(SETTINGS).sort();
    const page = renderSettingsFiles()[GENERATED.page];
    expect([...page.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((m) => m[1]).sort()).toEqual(names);
    for (const file of [GENERATED.env, GENERATED.dockerEnv]) {
      const listed = [...renderSettingsFiles()[file].matchAll(/^(?:# )?([A-Z][A-Z0-9_]+)=/gm)].map(
        (m) => m[1],
      );
      expect(listed.sort(), file).toEqual(names);
    }
  });
});
