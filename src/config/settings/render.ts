import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Setting } from './define.js';
import { SETTING_AREAS } from './index.js';

/** The files made from the settings, relative to the project's root. */
export const GENERATED = {
  page: 'docs/operations/configuration.md',
  env: '.env.example',
  dockerEnv: 'docker/app.env.example',
} as const;

const SOURCE = 'src/config/settings/';

const areas = () =>
  SETTING_AREAS.map((a) => ({
    title: a.title,
    settings: Object.entries(a.settings) as Array<[string, Setting]>,
  }));

/** What the page shows as the default. */
function defaultCell(s: Setting): string {
  if (s.defaultText) return s.defaultText;
  if (s.fallback) return `\`${s.fallback}\`, else \`${String(s.default)}\``;
  return s.default === undefined ? 'unset' : `\`${String(s.default)}\``;
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(3, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) => `| ${cells.map((x, c) => x.padEnd(widths[c])).join(' | ')} |`;
  return [line(rows[0]), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)];
}

/** docs/operations/configuration.md */
export function renderConfigurationPage(): string {
  const out = [
    '# Configuration',
    '',
    `<!-- Made from ${SOURCE} by \`npm run docs:config\`: change a setting there, not here. -->`,
    '',
    'Environment variables, or a `.env` file (see `.env.example`): the one in the current',
    "directory, else the one in the project's root, so `dist/main.js`, `dist/worker.js` and the CLI",
    'read the same settings from wherever they are started (`node dist/cli.js db status` names the',
    'file it read). Variables set in the environment win over the file. A bad value stops the',
    'process at start with a message naming the variable.',
  ];
  for (const area of areas()) {
    out.push('', `## ${area.title}`, '');
    out.push(
      ...table([
        ['variable', 'default', 'accepts', 'meaning'],
        ...area.settings.map(([name, s]) => [`\`${name}\``, defaultCell(s), s.accepts ?? '', s.doc]),
      ]),
    );
  }
  return `${out.join('\n')}\n`;
}

/** Markdown to plain text for a comment line: links keep their words, code loses its quotes. */
const plain = (md: string) => md.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`/g, '');

function envLines(docker: boolean): string[] {
  const out: string[] = [];
  for (const area of areas()) {
    out.push('', `# --- ${area.title} ---`);
    for (const [name, s] of area.settings) {
      const given = s.default !== undefined && !s.fallback && !s.defaultText;
      const value = s.example ?? (s.default === undefined ? '' : String(s.default));
      const notes = [
        ...(s.defaultText || s.fallback ? [`default: ${plain(defaultCell(s))}`] : []),
        ...(docker && s.compose ? [s.compose] : []),
      ];
      out.push(`# ${plain(s.doc)}`);
      out.push(
        `${given && !(docker && s.compose) ? '' : '# '}${name}=${value}${notes.length ? `   (${notes.join('; ')})` : ''}`,
      );
    }
  }
  return out;
}

/** .env.example */
export function renderEnvExample(): string {
  return `${[
    '# Every variable the service reads, with its default. Copy to .env to change any.',
    `# Made from ${SOURCE} by \`npm run docs:config\` (docs/operations/configuration.md says more).`,
    ...envLines(false),
  ].join('\n')}\n`;
}

/** docker/app.env.example */
export function renderDockerEnvExample(): string {
  return `${[
    '# Settings of the app containers (api1, api2, worker) in compose.yaml: copy to docker/app.env',
    '# and change what you need (`cp docker/app.env.example docker/app.env`). Every variable the',
    '# service reads is listed, with its default; docker/app.env is read by every app container and',
    '# never enters the image (.dockerignore). The lines marked "set by compose.yaml" are fixed there',
    '# for the stack (service addresses, ports, roles) and override this file.',
    '# MySQL passwords and published ports go in docker/.env instead (read by compose itself).',
    `# Made from ${SOURCE} by \`npm run docs:config\`.`,
    ...envLines(true),
  ].join('\n')}\n`;
}

/** Each generated file and its text. */
export function renderSettingsFiles(): Record<string, string> {
  return {
    [GENERATED.page]: renderConfigurationPage(),
    [GENERATED.env]: renderEnvExample(),
    [GENERATED.dockerEnv]: renderDockerEnvExample(),
  };
}

/** `npm run docs:config`: writes the page and both examples under the project's root. */
export function writeSettingsFiles(root = '.'): void {
  for (const [path, text] of Object.entries(renderSettingsFiles())) writeFileSync(join(root, path), text);
}
