import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import en from './en.json';
import no from './no.json';
import sv from './sv.json';

function keys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => keys(child, prefix ? `${prefix}.${key}` : key));
}

function lookup(catalog: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined), catalog);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('web texts in sv, en and no', () => {
  test('the three catalogues have the same keys and no empty text', () => {
    const english = keys(en).sort();
    expect(keys(sv).sort()).toEqual(english);
    expect(keys(no).sort()).toEqual(english);
    for (const catalog of [sv, en, no]) {
      for (const key of english) expect(String(lookup(catalog, key)).trim()).not.toBe('');
    }
  });

  test('every literal key the app asks for exists', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(join(import.meta.dir, '..'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bt\(\s*'([\w.]+)'/g)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(50);
    const missing = [...used].filter((key) => lookup(en, key) === undefined);
    expect(missing).toEqual([]);
  });

  test('every action the server writes to the audit log has a label', () => {
    const actions = new Set<string>();
    for (const file of sourceFiles(join(import.meta.dir, '../../modules'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/action: '([a-z]+\.[\w.]+)'/g)) actions.add(match[1]!);
      for (const match of text.matchAll(/audit\([^,]+,\s*(?:[^,]+,\s*){1,2}'([a-z]+\.[\w.]+)'/g)) actions.add(match[1]!);
    }
    // Built from a kind or a step: each value the server can write.
    for (const action of ['attested', 'unlocked', 'unattested', 'removed']) actions.add(`attest.${action}`);
    for (const action of ['created', 'updated', 'deleted']) actions.add(`catalog.${action}`);
    for (const kind of ['department', 'project', 'tags', 'featureProfile', 'operatingMode', 'reportFrequency', 'workingHours', 'access', 'realtimeMap', 'twoFactor', 'unitAccess']) {
      actions.add(`bulk.${kind}`);
    }
    expect(actions.size).toBeGreaterThan(25);
    const unlabelled = [...actions].filter((action) => (lookup(en, 'admin.audit.actions') as Record<string, string>)[action] === undefined);
    expect(unlabelled).toEqual([]);
  });

  test('Norwegian is Bokmål and differs from Swedish where the languages differ', () => {
    expect(lookup(no, 'login.title')).toBe('Logg inn');
    expect(lookup(sv, 'login.title')).toBe('Logga in');
    expect(lookup(no, 'nav.triplog')).toBe('Kjørebok');
  });
});
