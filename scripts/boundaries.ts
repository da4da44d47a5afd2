/**
 * The module-boundary check (README, "Where things go"). Reads every import and every SQL text of `src/` with
 * TypeScript's own parser (the native compiler's API) and reports, with file and line:
 *
 * - an import of another module's internal file (a module's public faces are `index.ts`, `service.ts`, `model.ts`
 *   and `events.ts`; tests may also use another module's `testing.ts` fixtures), or of another module's Drizzle tables
 *   through a public face;
 * - `src/lib` importing anything outside `src/lib` (a feature, the gateway, the jobs or the composition root);
 * - a web file importing a server file other than a module's `model.ts`, a web feature importing another web feature,
 *   or a shared web piece (`components`, `lib`) importing a feature;
 * - product code reading or writing a table owned by another module (or by none: the gateway and the jobs own no
 *   tables) in SQL text;
 * - a second writer of a table that has exactly one;
 * - an import cycle between files through imports that load code (type-only imports are erased;
 *   an `import()` loads after its importer has run).
 *
 * `bun run scripts/boundaries.ts` prints the violations; `tests/integration/boundaries.test.ts` fails on any.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { API } from 'typescript/unstable/async';
import { type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast';

export interface Violation {
  /** Path relative to the checked root, e.g. `src/modules/trips/service.ts`. */
  file: string;
  /** 1-based line. */
  line: number;
  rule: 'module-internal' | 'module-tables' | 'lib-imports-feature' | 'web-imports' | 'table-owner' | 'single-writer' | 'cycle';
  message: string;
}

/** What other modules may import from a module. */
export const PUBLIC_FACES = ['index.ts', 'service.ts', 'model.ts', 'events.ts', 'views.ts'];
/** What another module's tests may import besides the public faces: fixtures that build valid rows through the owner. */
const TEST_FACES = ['testing.ts'];

/**
 * Tables created by SQL migrations without a Drizzle declaration in a `schema.ts`: their owner is named here (a table
 * declared with `pgTable` in `src/modules/<m>/schema.ts` belongs to `<m>`). A migration's table with no owner fails the check.
 */
export const TABLE_OWNERS: Record<string, string> = {
  positions: 'tracking',
  positions_default: 'tracking',
  raw_frames: 'tracking',
  unit_state: 'tracking',
  device_commands: 'io',
  trip_attests: 'trips',
  trip_attest_log: 'trips',
  trip_attest_reminders: 'trips',
  trip_driver_checkins: 'trips',
  trip_merge_parts: 'trips',
  purposes: 'accounts',
  purpose_settings: 'accounts',
  user_invitations: 'accounts',
  audit_entries: 'audit',
  // The platform's own tables (src/lib, src/jobs).
  mail_outbox: 'lib',
  geocode_cache: 'lib',
  scheduled_jobs: 'jobs',
  outbox_subscriptions: 'lib',
  outbox_events: 'lib',
  outbox_deliveries: 'lib',
  job_queue: 'lib',
  user_preferences: 'preferences',
  rate_limits: 'lib',
  report_schedules: 'reports',
};

/**
 * Read views a module publishes (SQL views in migrations, declared with Drizzle's pgView in its `views.ts`): any
 * module may read them, nobody writes them. A migration's view with no publisher fails the check.
 */
export const PUBLISHED_VIEWS: Record<string, string> = {
  user_directory: 'accounts',
  // Every user's name, deleted ones too (history: trip drivers, lockers, audit actors).
  user_names: 'accounts',
  account_directory: 'accounts',
  department_directory: 'accounts',
  tag_directory: 'accounts',
  unit_directory: 'units',
  unit_catalog_links: 'units',
  unit_tag_links: 'units',
  // The geozones feature profiles name, per profile and per unit of the profile (geofence matching reads them).
  feature_profile_geozones: 'accounts',
  unit_profile_geozones: 'units',
  // Which zones each account has (the feature profiles' geozone check reads it).
  account_geofences: 'geofences',
  position_history: 'tracking',
  unit_latest_fix: 'tracking',
  unit_live_state: 'tracking',
  unit_checked_in_drivers: 'trips',
  unit_parking_settings: 'trips',
  // Who has booked a vehicle when (trips started during a booking get its driver).
  unit_booked_drivers: 'bookings',
  // A unit's names, overspeed threshold and service settings (the alarm engine reads them).
  unit_alarm_settings: 'units',
  // BLE devices' owner, MAC, name and paired GPS unit (the alarm engine's out-of-range check reads them).
  ble_device_directory: 'io',
  // What the fleet reports read: trips, a unit's fuel/emission/eco settings, positions' motion and fuel level.
  trip_report_rows: 'trips',
  unit_report_settings: 'units',
  position_report_rows: 'tracking',
  // What the benefit report reads: a unit's benefit-car fields, and the trip log's distances.
  unit_benefit_settings: 'units',
  trip_distances: 'trips',
};

/**
 * The server's floor the web app shares, which `src/web/lib` (and nothing else of the web app) may import: the API
 * envelope, zod with message keys, and the server's messages (the web app shows the server's validation keys).
 */
const WEB_SHARED_SERVER_FILES = [/^src\/lib\/http\.ts$/, /^src\/lib\/validation\.ts$/, /^src\/lib\/i18n\/messages\/[a-z]+\.json$/];

/**
 * Violations that work under way elsewhere removes, each named exactly (file, rule, and a text of its message). An
 * entry that no longer matches anything is itself reported, so it leaves this list as soon as the fix lands.
 */
export const PENDING: Array<{ file: string; rule: Violation['rule']; includes: string; why: string }> = [
];

/** Tables with one writer: the file that may insert, update or delete their rows. */
export const SINGLE_WRITERS: Record<string, string> = {
  // The state writer folds stored positions into each unit's latest state (README, "Acknowledged at durable positions").
  unit_state: 'src/modules/tracking/ingest.ts',
};

interface ImportRef {
  target: string; // resolved path relative to root, or the bare package name
  line: number;
  names: string[];
  typeOnly: boolean;
  /** `import('…')` at run time: loaded after the importer has run, so it closes no cycle. */
  lazy: boolean;
}

interface SqlRef {
  table: string;
  line: number;
  write: boolean;
}

interface ParsedFile {
  file: string;
  imports: ImportRef[];
  sql: SqlRef[];
  /** Drizzle tables this file declares with pgTable: variable name → table name. */
  declaredTables: Map<string, string>;
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx'];

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...listSources(full));
    else if (SOURCE_EXTENSIONS.some((ext) => entry.endsWith(ext)) && !entry.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function resolveImport(root: string, fromFile: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const base = resolve(dirname(join(root, fromFile)), specifier);
  for (const candidate of [base, ...SOURCE_EXTENSIONS.map((ext) => base + ext), ...SOURCE_EXTENSIONS.map((ext) => join(base, `index${ext}`))]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate);
  }
  return relative(root, base);
}

// A table name after a keyword that reads or writes one. Only names of known tables count, so English words do not.
const SQL_TABLE = /\b(from|join|into|update|table|truncate)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;
const SQL_WRITE = /\b(insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;

function lineOf(sourceFile: SourceFile, position: number): number {
  return sourceFile.getLineAndCharacterOfPosition(position).line + 1;
}

function parseFile(sourceFile: SourceFile, root: string, file: string, knownTables: Set<string>): ParsedFile {
  const imports: ImportRef[] = [];
  const sql: SqlRef[] = [];
  const declaredTables = new Map<string, string>();

  const addImport = (specifier: string, at: Node, names: string[], typeOnly: boolean, lazy = false) => {
    imports.push({ target: resolveImport(root, file, specifier), line: lineOf(sourceFile, at.getStart(sourceFile)), names, typeOnly, lazy });
  };

  const scanSql = (text: string, at: number) => {
    const written = new Set([...text.matchAll(SQL_WRITE)].map((match) => match[2]!.toLowerCase()));
    for (const match of text.matchAll(SQL_TABLE)) {
      const table = match[2]!.toLowerCase();
      if (knownTables.has(table)) sql.push({ table, line: lineOf(sourceFile, at + (match.index ?? 0)), write: written.has(table) });
    }
  };

  const visit = (node: Node): void => {
    switch (node.kind) {
      case SyntaxKind.ImportDeclaration: {
        const declaration = node as unknown as {
          moduleSpecifier: { text: string };
          importClause?: { isTypeOnly: boolean; name?: { text: string }; namedBindings?: { kind: SyntaxKind; elements?: { name: { text: string }; propertyName?: { text: string } }[] } };
        };
        const clause = declaration.importClause;
        const names: string[] = [];
        if (clause?.name) names.push('default');
        for (const element of clause?.namedBindings?.elements ?? []) {
          const imported = (element.propertyName ?? element.name).text;
          names.push(imported);
        }
        if (clause?.namedBindings?.kind === SyntaxKind.NamespaceImport) names.push('*');
        addImport(declaration.moduleSpecifier.text, node, names, clause?.isTypeOnly ?? false);
        return;
      }
      case SyntaxKind.ExportDeclaration: {
        const declaration = node as unknown as {
          isTypeOnly: boolean;
          moduleSpecifier?: { text: string };
          exportClause?: { elements?: { name: { text: string }; propertyName?: { text: string } }[] };
        };
        if (declaration.moduleSpecifier) {
          const names = declaration.exportClause?.elements?.map((element) => (element.propertyName ?? element.name).text) ?? ['*'];
          addImport(declaration.moduleSpecifier.text, node, names, declaration.isTypeOnly);
        }
        return;
      }
      case SyntaxKind.ImportType: {
        const importType = node as unknown as { argument: { literal?: { text: string } }; qualifier?: { text?: string } };
        const specifier = importType.argument.literal?.text;
        if (specifier) addImport(specifier, node, importType.qualifier?.text ? [importType.qualifier.text] : ['*'], true);
        break;
      }
      case SyntaxKind.CallExpression: {
        const call = node as unknown as { expression: Node & { text?: string }; arguments: (Node & { text?: string })[] };
        // import('...') at run time.
        if (call.expression.kind === SyntaxKind.ImportKeyword && call.arguments[0]?.kind === SyntaxKind.StringLiteral) {
          addImport(call.arguments[0].text!, node, ['*'], false, true);
        }
        // pgTable('name', …) declares a Drizzle table.
        if (call.expression.text === 'pgTable' && call.arguments[0]?.kind === SyntaxKind.StringLiteral) {
          const parent = node.parent as unknown as { kind: SyntaxKind; name?: { text: string } };
          if (parent.kind === SyntaxKind.VariableDeclaration && parent.name) declaredTables.set(parent.name.text, call.arguments[0].text!);
        }
        break;
      }
      case SyntaxKind.StringLiteral:
      case SyntaxKind.NoSubstitutionTemplateLiteral:
      case SyntaxKind.TemplateHead:
      case SyntaxKind.TemplateMiddle:
      case SyntaxKind.TemplateTail: {
        const literal = node as unknown as { text: string };
        scanSql(literal.text, node.getStart(sourceFile));
        break;
      }
    }
    node.forEachChild(visit);
  };
  sourceFile.forEachChild(visit);
  return { file, imports, sql, declaredTables };
}

type Zone =
  | { kind: 'module'; name: string; face: string }
  | { kind: 'lib' | 'gateway' | 'jobs' | 'root' | 'web-server' | 'web-shared' | 'web-app' }
  | { kind: 'web-feature'; name: string };

function zoneOf(file: string): Zone {
  const parts = file.split('/');
  if (parts[0] !== 'src') return { kind: 'root' };
  const [, area, name] = parts;
  if (area === 'modules' && name && parts.length > 3) return { kind: 'module', name, face: parts.slice(3).join('/') };
  if (area === 'lib') return { kind: 'lib' };
  if (area === 'gateway') return { kind: 'gateway' };
  if (area === 'jobs') return { kind: 'jobs' };
  if (area === 'web') {
    if (file === 'src/web/serve.ts' || file === 'src/web/serve.test.ts') return { kind: 'web-server' };
    if (name === 'features' && parts.length > 4) return { kind: 'web-feature', name: parts[3]! };
    // The app shell and the entry points that load it.
    if (name === 'app' || file === 'src/web/main.tsx' || file === 'src/web/start.tsx') return { kind: 'web-app' };
    return { kind: 'web-shared' };
  }
  return { kind: 'root' };
}

const isTestFile = (file: string) => /\.test\.tsx?$/.test(file) || basename(file) === 'testing.ts';
/** Tests and the demo data set up rows across modules as fixtures do; the table rules are for the product's code. */
const isFixture = (file: string) => isTestFile(file) || file.startsWith('src/demo/');
const isWeb = (zone: Zone) => zone.kind === 'web-feature' || zone.kind === 'web-shared' || zone.kind === 'web-app';

/** Parses every source file under `root/src` with the TypeScript compiler. */
async function parseTree(root: string): Promise<{ files: ParsedFile[]; migrationTables: Set<string>; migrationViews: Set<string> }> {
  const migrationsDir = join(root, 'migrations');
  const migrationTables = new Set<string>();
  const migrationViews = new Set<string>();
  if (existsSync(migrationsDir)) {
    // In migration order: a table or view a later migration drops no longer exists, so it needs no owner.
    for (const entry of readdirSync(migrationsDir).filter((name) => name.endsWith('.sql')).sort()) {
      const text = readFileSync(join(migrationsDir, entry), 'utf8');
      for (const match of text.matchAll(/\b(create\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?|drop\s+table\s+(?:if\s+exists\s+)?)"?([a-z_][a-z0-9_]*)"?/gi)) {
        if (/^drop/i.test(match[1]!)) migrationTables.delete(match[2]!.toLowerCase());
        else migrationTables.add(match[2]!.toLowerCase());
      }
      for (const match of text.matchAll(/\b(create\s+(?:or\s+replace\s+)?view\s+|drop\s+view\s+(?:if\s+exists\s+)?)"?([a-z_][a-z0-9_]*)"?/gi)) {
        if (/^drop/i.test(match[1]!)) migrationViews.delete(match[2]!.toLowerCase());
        else migrationViews.add(match[2]!.toLowerCase());
      }
    }
  }
  const paths = listSources(join(root, 'src'));
  // A throw-away project holding just these files: no lib, no resolution, so the server only parses.
  const configDir = mkdtempSync(join(tmpdir(), 'boundaries-'));
  const configFile = join(configDir, 'tsconfig.json');
  writeFileSync(configFile, JSON.stringify({ compilerOptions: { noResolve: true, noLib: true, types: [], jsx: 'react-jsx', noEmit: true }, files: paths }));
  const api = new API({ cwd: root });
  try {
    const snapshot = await api.updateSnapshot({ openProject: configFile });
    const project = snapshot.getProjects()[0];
    if (!project) throw new Error('the TypeScript API opened no project');
    const knownTables = new Set([...migrationTables, ...migrationViews]);
    const files: ParsedFile[] = [];
    for (const path of paths) {
      const sourceFile = await project.program.getSourceFile(path);
      if (!sourceFile) throw new Error(`the TypeScript API did not parse ${path}`);
      files.push(parseFile(sourceFile, root, relative(root, path), knownTables));
    }
    return { files, migrationTables, migrationViews };
  } finally {
    await api.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}

export interface BoundaryRules {
  tableOwners: Record<string, string>;
  publishedViews: Record<string, string>;
  singleWriters: Record<string, string>;
  pending: typeof PENDING;
}

/** Runs every rule over the tree at `root` (a folder with `src/` and `migrations/`). */
export async function checkBoundaries(root: string, rules: Partial<BoundaryRules> = {}): Promise<Violation[]> {
  const { tableOwners = TABLE_OWNERS, publishedViews = PUBLISHED_VIEWS, singleWriters = SINGLE_WRITERS, pending = PENDING } = rules;
  const { files, migrationTables, migrationViews } = await parseTree(root);
  const violations: Violation[] = [];
  const report = (file: string, line: number, rule: Violation['rule'], message: string) => violations.push({ file, line, rule, message });

  // Who owns which table.
  const owners = new Map<string, string>(Object.entries(tableOwners));
  const tableVariables = new Map<string, Map<string, string>>(); // module → variable → table
  for (const parsed of files) {
    const zone = zoneOf(parsed.file);
    if (zone.kind !== 'module' || parsed.declaredTables.size === 0) continue;
    const variables = tableVariables.get(zone.name) ?? new Map();
    for (const [variable, table] of parsed.declaredTables) {
      variables.set(variable, table);
      owners.set(table, zone.name);
    }
    tableVariables.set(zone.name, variables);
  }
  for (const view of migrationViews) {
    if (!publishedViews[view]) report('migrations', 1, 'table-owner', `view ${view} has no publishing module (name it in PUBLISHED_VIEWS)`);
  }
  for (const table of migrationTables) {
    if (!owners.has(table)) report('migrations', 1, 'table-owner', `table ${table} has no owning module (declare it in a module's schema.ts or TABLE_OWNERS)`);
  }

  const byFile = new Map(files.map((parsed) => [parsed.file, parsed]));
  for (const parsed of files) {
    const zone = zoneOf(parsed.file);
    const test = isTestFile(parsed.file);
    for (const ref of parsed.imports) {
      if (!ref.target.startsWith('src/')) continue;
      const target = zoneOf(ref.target);
      const at = (message: string, rule: Violation['rule']) => report(parsed.file, ref.line, rule, message);

      if (target.kind === 'module' && !(zone.kind === 'module' && zone.name === target.name)) {
        const faces = test ? [...PUBLIC_FACES, ...TEST_FACES] : PUBLIC_FACES;
        if (!faces.includes(target.face)) {
          at(`imports ${ref.target}, an internal file of module ${target.name} (use its ${PUBLIC_FACES.join(', ')})`, 'module-internal');
        } else {
          const tables = tableVariables.get(target.name);
          const leaked = ref.names.filter((name) => tables?.has(name));
          if (leaked.length > 0) at(`imports table ${leaked.join(', ')} of module ${target.name} (ask its service)`, 'module-tables');
        }
      }
      if (zone.kind === 'lib' && zoneOf(ref.target).kind !== 'lib') {
        at(`src/lib imports ${ref.target}: the platform knows no feature, gateway or composition root`, 'lib-imports-feature');
      }
      if (isWeb(zone)) {
        if (!isWeb(target)) {
          const sharedFloor = parsed.file.startsWith('src/web/lib/') && WEB_SHARED_SERVER_FILES.some((pattern) => pattern.test(ref.target));
          if (!sharedFloor && !(target.kind === 'module' && target.face === 'model.ts')) at(`the web app imports the server file ${ref.target} (only a module's model.ts)`, 'web-imports');
        } else if (target.kind === 'web-feature') {
          if (zone.kind === 'web-shared') at(`shared web code imports the feature file ${ref.target}`, 'web-imports');
          if (zone.kind === 'web-feature' && zone.name !== target.name) {
            at(`web feature ${zone.name} imports ${ref.target} of feature ${target.name} (move the shared piece to src/web/components or src/web/lib)`, 'web-imports');
          }
        } else if (target.kind === 'web-app' && zone.kind === 'web-shared') {
          at(`shared web code imports the app shell ${ref.target}`, 'web-imports');
        }
      }
    }

    if (!isFixture(parsed.file)) {
      for (const ref of parsed.sql) {
        const publisher = publishedViews[ref.table];
        if (publisher) {
          if (ref.write) report(parsed.file, ref.line, 'module-tables', `writes ${ref.table}, a read view published by ${publisher}`);
          continue;
        }
        const owner = owners.get(ref.table);
        const mine = zone.kind === 'module' ? zone.name : zone.kind === 'lib' ? 'lib' : zone.kind === 'jobs' ? 'jobs' : null;
        if (owner && owner !== mine) {
          report(parsed.file, ref.line, 'module-tables', `${ref.write ? 'writes' : 'reads'} table ${ref.table} of ${owner === 'lib' || owner === 'jobs' ? `src/${owner}` : `module ${owner}`} in SQL (ask its service)`);
        }
        const writer = singleWriters[ref.table];
        if (ref.write && writer && writer !== parsed.file) {
          report(parsed.file, ref.line, 'single-writer', `writes ${ref.table}, whose one writer is ${writer}`);
        }
      }
    }
  }

  // Import cycles between files through imports that load code (a type-only import is erased and orders nothing).
  const graph = new Map<string, { to: string; line: number }[]>();
  for (const parsed of files) {
    graph.set(
      parsed.file,
      parsed.imports.filter((ref) => byFile.has(ref.target) && !ref.typeOnly && !ref.lazy).map((ref) => ({ to: ref.target, line: ref.line })),
    );
  }
  for (const cycle of findCycles(graph)) {
    const [first] = cycle;
    report(first!.from, first!.line, 'cycle', `import cycle: ${[...cycle.map((edge) => edge.from), first!.from].join(' → ')}`);
  }

  const open = violations.filter((violation) => !pending.some((entry) => pendingMatches(entry, violation)));
  for (const entry of pending) {
    if (!violations.some((violation) => pendingMatches(entry, violation))) {
      open.push({ file: entry.file, line: 1, rule: entry.rule, message: `no longer ${entry.includes}: remove its PENDING entry (${entry.why})` });
    }
  }
  return open.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

function pendingMatches(entry: (typeof PENDING)[number], violation: Violation): boolean {
  return entry.file === violation.file && entry.rule === violation.rule && violation.message.includes(entry.includes);
}

/** One cycle per strongly connected component (Tarjan), as the edges that close it. */
function findCycles(graph: Map<string, { to: string; line: number }[]>): { from: string; line: number }[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const { to } of graph.get(node) ?? []) {
      if (!indices.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, indices.get(to)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).some((edge) => edge.to === node)) components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) connect(node);

  return components.map((component) => {
    // Walk from the component's first file (by name) until a file repeats: that loop is a cycle to show.
    const members = new Set(component);
    const start = [...component].sort()[0]!;
    const path: { from: string; line: number; to: string }[] = [];
    const seen = new Map<string, number>();
    let current = start;
    while (!seen.has(current)) {
      seen.set(current, path.length);
      const edge = (graph.get(current) ?? []).find((candidate) => members.has(candidate.to))!;
      path.push({ from: current, line: edge.line, to: edge.to });
      current = edge.to;
    }
    return path.slice(seen.get(current)).map(({ from, line }) => ({ from, line }));
  });
}

export function formatViolation(violation: Violation): string {
  return `${violation.file}:${violation.line}: [${violation.rule}] ${violation.message}`;
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dir, '..'));
  const violations = await checkBoundaries(root);
  for (const violation of violations) console.log(formatViolation(violation));
  console.log(`${violations.length} boundary violation(s)`);
  process.exit(violations.length === 0 ? 0 : 1);
}
