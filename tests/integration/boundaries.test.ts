import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkBoundaries, formatViolation, type Violation } from '../../scripts/boundaries';

/** Module boundaries (README, "Where things go"): the rules hold on the repository, and each rule catches its break. */

const repository = join(import.meta.dir, '..', '..');

test('the repository keeps its module boundaries', async () => {
  const violations = await checkBoundaries(repository);
  expect(violations.map(formatViolation)).toEqual([]);
}, 60_000);

describe('each rule names the file and line of a break', () => {
  let root: string;
  let violations: Violation[];
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const found = (rule: Violation['rule'], file: string) => violations.filter((violation) => violation.rule === rule && violation.file === file);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'boundaries-fixture-'));
    write('migrations/0001_things.sql', 'CREATE TABLE things (id int);\nCREATE TABLE orphans (id int);\nCREATE VIEW thing_directory AS SELECT id FROM things;\n');
    write('src/modules/alpha/schema.ts', "import { integer, pgTable } from 'drizzle-orm/pg-core';\nexport const things = pgTable('things', { id: integer('id') });\n");
    write('src/modules/alpha/internal.ts', 'export const helper = 1;\n');
    write('src/modules/alpha/service.ts', "export { things } from './schema';\nexport const read = (q: (text: string) => void) => q('SELECT id FROM things');\n");
    write('src/modules/alpha/writer.ts', "export const add = (q: (text: string) => void) => q('INSERT INTO things (id) VALUES (1)');\n");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture's own source text
    write('src/modules/alpha/second-writer.ts', "export const wipe = (q: (text: string) => void) => q(`DELETE FROM things WHERE id = ${1}`);\n");
    write(
      'src/modules/beta/service.ts',
      [
        "import { helper } from '../alpha/internal';",
        "import { things } from '../alpha/service';",
        "import type { Actor } from '../alpha/model';",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture's own source text
        'export const peek = (q: (text: string) => void) => q(`SELECT id FROM things WHERE id = ${helper}`);',
        "export const view = (q: (text: string) => void) => q('SELECT id FROM thing_directory');",
        'export { things };',
        'export type { Actor };',
        '',
      ].join('\n'),
    );
    write('src/modules/beta/beta.test.ts', "import { helper } from '../alpha/internal';\nexport const rows = (q: (t: string) => void) => q('SELECT * FROM things' + helper);\n");
    write('src/lib/floor.ts', "import { read } from '../modules/alpha/service';\nexport const floor = read;\n");
    write('src/modules/gamma/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
    write('src/modules/gamma/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
    write('src/modules/gamma/c.ts', "import type { d } from './d';\nexport const c = (x: typeof d) => x;\n");
    write('src/modules/gamma/d.ts', "import { c } from './c';\nexport const d = c;\n");
    write('src/web/features/one/Page.tsx', "import { Other } from '../two/Other';\nimport { read } from '../../../modules/alpha/service';\nexport const Page = () => Other ?? read;\n");
    write('src/web/features/two/Other.tsx', "import { things } from '../../../modules/alpha/model';\nexport const Other = things;\n");
    write('src/modules/alpha/model.ts', 'export const things = 1;\nexport type Actor = { id: number };\n');
    violations = await checkBoundaries(root, { tableOwners: {}, publishedViews: { thing_directory: 'alpha' }, singleWriters: { things: 'src/modules/alpha/writer.ts' }, pending: [] });
  }, 60_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("another module's internal file", () => {
    expect(found('module-internal', 'src/modules/beta/service.ts').map((violation) => violation.line)).toEqual([1]);
    // A test is held to the public faces too (plus testing.ts fixtures).
    expect(found('module-internal', 'src/modules/beta/beta.test.ts').map((violation) => violation.line)).toEqual([1]);
  });

  test("another module's tables, through a public face or in SQL; published views are read freely", () => {
    const lines = found('module-tables', 'src/modules/beta/service.ts').map((violation) => [violation.line, violation.message]);
    expect(lines).toEqual([
      [2, 'imports table things of module alpha (ask its service)'],
      [4, 'reads table things of module alpha in SQL (ask its service)'],
    ]);
    // Tests set up rows as fixtures do.
    expect(found('module-tables', 'src/modules/beta/beta.test.ts')).toEqual([]);
  });

  test('a table or view without an owner', () => {
    expect(found('table-owner', 'migrations').map((violation) => violation.message)).toEqual([
      "table orphans has no owning module (declare it in a module's schema.ts or TABLE_OWNERS)",
    ]);
  });

  test('a second writer of a table with one', () => {
    expect(found('single-writer', 'src/modules/alpha/second-writer.ts').map((violation) => violation.line)).toEqual([1]);
    expect(found('single-writer', 'src/modules/alpha/writer.ts')).toEqual([]);
  });

  test('src/lib importing a feature', () => {
    expect(found('lib-imports-feature', 'src/lib/floor.ts').map((violation) => violation.line)).toEqual([1]);
  });

  test("a web feature importing another feature or a server file other than a module's model.ts", () => {
    expect(found('web-imports', 'src/web/features/one/Page.tsx').map((violation) => violation.line)).toEqual([1, 2]);
    expect(found('web-imports', 'src/web/features/two/Other.tsx')).toEqual([]);
  });

  test('an import cycle, but not one closed by a type-only import', () => {
    const cycles = violations.filter((violation) => violation.rule === 'cycle');
    expect(cycles.map(formatViolation)).toEqual(['src/modules/gamma/a.ts:1: [cycle] import cycle: src/modules/gamma/a.ts → src/modules/gamma/b.ts → src/modules/gamma/a.ts']);
  });
});
