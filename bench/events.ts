/**
 * `bun run bench:events [--db pglite|postgres|both] [--seconds 10] [--rate 5000] [--batch 50] [--publishers 4] [--ingest-seconds 10] [--no-ingest]`
 *
 * Durable events through the outbox (src/lib/outbox) on each database: events per second delivered to a
 * subscriber and p50/p99 from the publisher's commit to the subscriber's call, first at an offered rate
 * (`--rate` events/s in transactions of `--batch` events, as a state pass publishes the crossings it found),
 * then flat out. Beside them, in the same run on the same database, the positions/s of `bench:ingest`
 * (run as it is, `--seconds --ingest-seconds`), so the two can be compared under the same conditions.
 * `--db postgres` (and `both`, the default when a PostgreSQL URL is set) uses BENCH_DATABASE_URL.
 */
import { systemClock } from '../src/lib/clock';
import type { DatabaseHandle } from '../src/lib/db/client';
import { createLogger } from '../src/lib/log';
import { Outbox } from '../src/lib/outbox';
import { argument, benchPlatform, openBenchDatabase } from './support';

interface BenchEvents {
  'bench.happened': { seq: number };
}

const hasPostgres = Boolean(process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || process.env.TEST_DATABASE_URL);
const which = argument('db', hasPostgres ? 'both' : 'pglite');
const kinds: Array<'pglite' | 'postgres'> = which === 'both' ? ['pglite', 'postgres'] : [which as 'pglite' | 'postgres'];
const seconds = Number(argument('seconds', '10'));
const rate = Number(argument('rate', '5000'));
const batch = Number(argument('batch', '50'));
const ingestSeconds = argument('ingest-seconds', '10');
const runIngest = !process.argv.includes('--no-ingest');

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface PhaseResult {
  published: number;
  delivered: number;
  eventsPerSecond: number;
  p50: number;
  p99: number;
  backlog: number;
}

/**
 * Publishes for `seconds` (paced at `offered` events/s, or flat out when null) from `publishers` loops while
 * the dispatcher runs, then waits for the backlog to drain; rate and latencies count what the subscriber got
 * within the window.
 */
async function phase(database: DatabaseHandle, offered: number | null, publishers: number, label: string): Promise<PhaseResult> {
  const outbox = new Outbox<BenchEvents>({ database, clock: systemClock, log: createLogger('warn'), batchSize: 500 });
  const committedAt = new Map<number, number>();
  const deliveredAt = new Map<number, number>();
  let seq = 0;
  let windowStart = 0;
  let windowEnd = Number.POSITIVE_INFINITY;
  let deliveredInWindow = 0;
  outbox.subscribe('bench.happened', `bench.subscriber.${label}`, async (event) => {
    const now = performance.now();
    deliveredAt.set(event.payload.seq, now);
    if (now >= windowStart && now <= windowEnd) deliveredInWindow += 1;
  });
  await outbox.register();
  await outbox.start();

  const started = performance.now();
  windowStart = started;
  const stopAt = started + seconds * 1000;
  const perPublisherInterval = offered === null ? 0 : (batch * 1000 * publishers) / offered;
  await Promise.all(
    Array.from({ length: publishers }, async (_, publisher) => {
      let next = started + (perPublisherInterval * publisher) / publishers;
      while (performance.now() < stopAt) {
        if (offered !== null) {
          const wait = next - performance.now();
          if (wait > 0) await Bun.sleep(wait);
          next += perPublisherInterval;
        }
        const events = Array.from({ length: batch }, () => ({ type: 'bench.happened' as const, payload: { seq: seq++ } }));
        await database.transaction((tx) => outbox.publishMany(tx, events));
        const now = performance.now();
        for (const event of events) committedAt.set(event.payload.seq, now);
      }
    }),
  );
  windowEnd = performance.now();
  const elapsed = (windowEnd - started) / 1000;
  const deadline = performance.now() + 60_000;
  while (deliveredAt.size < committedAt.size && performance.now() < deadline) await Bun.sleep(20);
  await outbox.stop();

  const latencies: number[] = [];
  for (const [event, delivered] of deliveredAt) {
    const committed = committedAt.get(event);
    // Rarely the dispatcher's call comes before the publisher's continuation after COMMIT: latency ~0.
    if (committed !== undefined) latencies.push(Math.max(0, delivered - committed));
  }
  latencies.sort((x, y) => x - y);
  return {
    published: committedAt.size,
    delivered: deliveredAt.size,
    eventsPerSecond: deliveredInWindow / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    backlog: committedAt.size - deliveredInWindow,
  };
}

function show(title: string, result: PhaseResult) {
  console.log(
    `${title.padEnd(30)} ${Math.round(result.eventsPerSecond).toString().padStart(6)} events/s   commit → subscriber p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms` +
      `   (${result.delivered}/${result.published} delivered; ${result.backlog} after the window)`,
  );
}

const summary: string[] = [];
for (const kind of kinds) {
  const { database, label } = await openBenchDatabase(kind);
  await benchPlatform(database);
  const publishers = Number(argument('publishers', kind === 'postgres' ? '4' : '1'));
  console.log(`\n== ${label}: ${publishers} publisher(s), transactions of ${batch} events, one dispatcher (batches of 500), ${seconds} s each`);
  const paced = await phase(database, rate, publishers, `paced_${kind}`);
  show(`offered ${rate} events/s`, paced);
  const flat = await phase(database, null, publishers, `flat_${kind}`);
  show('flat out', flat);
  await database.close();

  let ingest = 'not run';
  if (runIngest) {
    console.log(`running bench:ingest on ${kind} (--seconds ${ingestSeconds}) …`);
    const child = Bun.spawn(['bun', 'run', 'bench/ingest.ts', '--db', kind, '--seconds', ingestSeconds], { stdout: 'pipe', stderr: 'inherit' });
    const output = await new Response(child.stdout).text();
    await child.exited;
    const line = output.split('\n').find((one) => one.startsWith('positions/s sustained'));
    const latency = output.split('\n').find((one) => one.startsWith('frame → commit'));
    ingest = line ? `${line.replace(/\s+/g, ' ').trim()}; ${latency?.replace(/\s+/g, ' ').trim() ?? ''}` : `failed (exit ${child.exitCode})`;
    console.log(`bench:ingest: ${ingest}`);
  }
  summary.push(
    `${kind.padEnd(9)} outbox ${Math.round(flat.eventsPerSecond)} events/s flat out; at ${rate}/s offered: ${Math.round(paced.eventsPerSecond)} events/s, ` +
      `p50 ${paced.p50.toFixed(1)} ms, p99 ${paced.p99.toFixed(1)} ms | ingest: ${ingest}`,
  );
}
console.log('\nsummary');
for (const line of summary) console.log(`  ${line}`);
if (kinds.includes('postgres')) console.log(`  target on PostgreSQL: ≥ 5000 events/s with p99 < 200 ms`);
process.exit(0);
