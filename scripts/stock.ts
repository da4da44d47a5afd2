/**
 * Tracker stock from the command line (support): registers sold trackers' IMEIs so customers can register them.
 *
 *   bun run stock add <imei...> [--model FMB920] [--protocol teltonika|gt06|osmand] [--subsite 0-7]
 *   bun run stock list [--status all|available|registered] [--prefix 3563] [--limit 100]
 *
 * Works against the configured database (DATABASE_URL, else the embedded one under DATA_DIR).
 */
import type { Database } from '../src/lib/db/client';
import { translate } from '../src/lib/i18n';
import { type StockAddInput, type StockListQuery, stockAddSchema, stockListQuerySchema } from '../src/modules/units/model';
import { createUnitService } from '../src/modules/units/service';

const USAGE = `usage:
  bun run stock add <imei...> [--model FMB920] [--protocol teltonika|gt06|osmand] [--subsite 0-7]
  bun run stock list [--status all|available|registered] [--prefix DIGITS] [--limit N]`;

/** Splits `--name value` / `--name=value` options from positional arguments. */
export function parseArgs(argv: string[]): { positional: string[]; options: Record<string, string> } {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument.startsWith('--')) {
      const [name, inline] = argument.slice(2).split('=', 2) as [string, string | undefined];
      const value = inline ?? argv[index + 1];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new Error(`--${name} needs a value`);
      if (inline === undefined) index += 1;
      options[name] = value;
    } else {
      // IMEIs may also come comma- or space-separated in one argument (pasted lists).
      positional.push(...argument.split(/[\s,;]+/).filter(Boolean));
    }
  }
  return { positional, options };
}

function issuesText(issues: Array<{ path: PropertyKey[]; message: string }>, input: Record<string, unknown>): string[] {
  return issues.map((issue) => {
    const [field, index] = issue.path;
    const value = field === 'imeis' && typeof index === 'number' ? ` (${String((input.imeis as string[])[index])})` : '';
    return `  ${issue.path.map(String).join('.')}${value}: ${translate('en', issue.message)}`;
  });
}

export type StockCommand =
  | { kind: 'add'; input: StockAddInput }
  | { kind: 'list'; query: StockListQuery }
  | { kind: 'usage'; code: number; lines: string[] };

/** Parses and validates a command line without touching the database. */
export function parseCommand(argv: string[]): StockCommand {
  const [command, ...rest] = argv;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(rest);
  } catch (error) {
    return { kind: 'usage', code: 2, lines: [(error as Error).message, USAGE] };
  }
  const { positional, options } = parsed;
  if (command === 'add') {
    const input: Record<string, unknown> = {
      imeis: positional,
      model: options.model,
      protocol: options.protocol,
      subsiteID: options.subsite === undefined ? undefined : Number(options.subsite),
    };
    const result = stockAddSchema.safeParse(input);
    if (!result.success) return { kind: 'usage', code: 2, lines: ['nothing added:', ...issuesText(result.error.issues, input)] };
    return { kind: 'add', input: result.data };
  }
  if (command === 'list') {
    const input = { status: options.status, q: options.prefix, limit: options.limit, offset: options.offset };
    const result = stockListQuerySchema.safeParse(input);
    if (!result.success) return { kind: 'usage', code: 2, lines: issuesText(result.error.issues, input) };
    return { kind: 'list', query: result.data };
  }
  const help = command === undefined || command === 'help' || command === '--help';
  return { kind: 'usage', code: help ? 0 : 2, lines: [USAGE] };
}

/** Runs one CLI command against an open database; returns the process exit code. */
export async function runStock(argv: string[], db: Database, print: (line: string) => void): Promise<number> {
  const command = parseCommand(argv);
  if (command.kind === 'usage') {
    for (const line of command.lines) print(line);
    return command.code;
  }
  const units = createUnitService(db);
  if (command.kind === 'add') {
    const { added, skipped } = await units.addStock(command.input, null);
    print(`added ${added.length}, skipped ${skipped.length} (already in stock)`);
    for (const imei of added) print(`+ ${imei}`);
    for (const imei of skipped) print(`= ${imei}`);
    return 0;
  }
  const { items, total } = await units.listStock(command.query);
  print(['imei'.padEnd(15), 'model'.padEnd(10), 'protocol'.padEnd(9), 'subsite', 'registered', 'added'].join('  '));
  for (const item of items) {
    print(
      [
        item.imei,
        item.model.padEnd(10),
        item.protocol.padEnd(9),
        String(item.subsiteID ?? 'any').padEnd(7),
        (item.registered ? 'yes' : 'no').padEnd(10),
        item.addedAt,
      ].join('  '),
    );
  }
  print(`${items.length} of ${total}`);
  return 0;
}

/**
 * The embedded database belongs to one process at a time: opening it while the portal runs would corrupt it.
 * Best effort: a portal answering on PORT with the embedded database means "use the API instead".
 */
async function embeddedDatabaseBusy(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await response.json()) as { data?: { database?: string } };
    return body.data?.database === 'pglite';
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const command = parseCommand(argv);
  if (command.kind === 'usage') {
    for (const line of command.lines) (command.code === 0 ? console.log : console.error)(line);
    process.exit(command.code);
  }
  const { loadConfig, ConfigError } = await import('../src/lib/config');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
  if (!config.DATABASE_URL && (await embeddedDatabaseBusy(config.PORT))) {
    console.error(
      `The portal is running on the embedded database (port ${config.PORT}). Stop it first, or add stock through POST /api/admin/tracker-stock.`,
    );
    process.exit(1);
  }
  const { openDatabase } = await import('../src/bootstrap');
  const { migrate } = await import('../src/lib/db/migrate');
  const database = await openDatabase(config);
  let code = 1;
  try {
    await migrate(database);
    code = await runStock(argv, database.db, console.log);
  } catch (error) {
    console.error('stock failed:', error instanceof Error ? error.message : error);
  } finally {
    await database.close();
  }
  process.exit(code);
}
