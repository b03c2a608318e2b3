#!/usr/bin/env node
// `npm run build` step after tsc: the admin CLI's command path (dist/app/cli-main.js and all it
// imports, the libraries included) as one bundle in dist/cli-bundle/, which dist/cli.js loads.
// Each command group stays a chunk of its own, loaded when its command line names it.
import { rmSync } from 'node:fs';
import { build } from 'rolldown';

const OUT = 'dist/cli-bundle';

// Left to Node: a native addon (loaded from its package's own directory); TypeScript, which
// cosmiconfig (under nest-commander) would load only for a TypeScript config file the CLI never
// has (bundled, its 8 MB would be read and parsed on every command); and the optional packages
// Nest looks for only when an app uses them (not installed).
const EXTERNAL = ['argon2', 'typescript', '@nestjs/microservices', '@nestjs/websockets', '@fastify/static'];

/**
 * @nestjs/typeorm looks for TypeORM 0.3's Connection class with createRequire('typeorm'), which a
 * bundle cannot see: it would load a second TypeORM, file by file, beside the bundled one.
 */
const typeormCompat = {
  name: 'typeorm-compat',
  transform: {
    filter: { id: /@nestjs[\\/]typeorm[\\/]dist[\\/]common[\\/]typeorm-compat\.js$/ },
    handler(code) {
      if (!code.includes("require('typeorm')"))
        throw new Error('@nestjs/typeorm changed its TypeORM look-up');
      return `import * as bundledTypeorm from 'typeorm';\n${code.replace("require('typeorm')", 'bundledTypeorm')}`;
    },
  },
};

rmSync(OUT, { recursive: true, force: true });
await build({
  input: { 'cli-main': 'dist/app/cli-main.js' },
  platform: 'node',
  external: (id) => id.startsWith('node:') || EXTERNAL.some((p) => id === p || id.startsWith(`${p}/`)),
  plugins: [typeormCompat],
  logLevel: 'warn',
  output: {
    dir: OUT,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    // Classes keep their names: TypeORM names migrations after them, Nest its providers in errors.
    keepNames: true,
  },
});
