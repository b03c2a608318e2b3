import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SRC } from './folder-graph.js';
import { declaredTwice, providerDeclarations } from './module-providers.js';

/**
 * Modules own their providers: a composition root (src/app) imports feature modules and never
 * lists a feature's classes, and each provider (class or token) is declared by one module only,
 * so a process never holds two copies of a service by accident.
 */
const decls = providerDeclarations();

/** The names a file declares at its top level (classes, constants, functions). */
function ownNames(file: string): Set<string> {
  const sf = ts.createSourceFile(file, readFileSync(join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out = new Set<string>();
  for (const st of sf.statements) {
    if ((ts.isClassDeclaration(st) || ts.isFunctionDeclaration(st)) && st.name) out.add(st.name.text);
    if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) out.add(d.name.text);
  }
  return out;
}

/**
 * A CLI group gathers the subcommands of several features under one word, so a root may list
 * commands (`...Command`, `...COMMANDS`); their services come in the features' modules.
 */
const COMMAND = /commands?$/i;

describe('module providers', () => {
  it('reads the providers of the feature modules', () => {
    const providers = decls.map((d) => d.provider);
    expect(providers).toEqual(
      expect.arrayContaining(['MessageStateService', 'SendService', 'STATE_CHANGE_LISTENER']),
    );
  });

  it('lets no composition root in src/app list a provider of a feature (commands aside)', () => {
    const bad = decls
      .filter((d) => d.file.startsWith('app/'))
      .filter((d) => {
        const provider = d.provider.replace(/^\.\.\./, '');
        // A computed list (the CLI's chosen groups) is judged where the groups list their own.
        if (!/^[\w$]+$/.test(provider)) return false;
        return !COMMAND.test(provider) && !ownNames(d.file).has(provider);
      })
      .map((d) => `${d.file}:${d.at} lists ${d.provider}`);
    expect(bad, bad.join('\n')).toEqual([]);
  });

  it('declares each provider in one module only', () => {
    const twice = declaredTwice(decls);
    expect(twice, twice.join('\n')).toEqual([]);
  });
});
