/**
 * The single test command: type-check, lint, unit/API/ingest tests on PGlite, the same again on native
 * PostgreSQL when TEST_DATABASE_URL is set, then the browser suite. Ends with one line `N passed, N failed`.
 */
import { existsSync } from 'node:fs';

interface StepResult {
  name: string;
  passed: number;
  failed: number;
}

const results: StepResult[] = [];
const onlyFast = process.argv.includes('--no-browser');

async function run(name: string, command: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  console.log(`\n=== ${name}: ${command.join(' ')}`);
  const child = Bun.spawn(command, {
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let output = '';
  const pump = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      output += text;
      sink.write(text);
    }
  };
  await Promise.all([pump(child.stdout, process.stdout), pump(child.stderr, process.stderr)]);
  return { code: await child.exited, output };
}

/** A check that is not a test runner (tsc, biome) counts as one test. */
async function check(name: string, command: string[]) {
  const { code } = await run(name, command);
  results.push({ name, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1 });
}

async function bunTests(name: string, paths: string[], env: Record<string, string> = {}) {
  const { code, output } = await run(name, ['bun', 'test', '--timeout', '60000', ...paths], env);
  const passed = Number(output.match(/^\s*(\d+) pass$/m)?.[1] ?? 0);
  let failed = Number(output.match(/^\s*(\d+) fail$/m)?.[1] ?? 0);
  // A crashed runner or a file that failed to load counts as a failure even without a fail line.
  if (code !== 0 && failed === 0) failed = 1;
  if (passed + failed === 0) failed = 1;
  results.push({ name, passed, failed });
}

await check('typecheck', ['bunx', 'tsc', '--noEmit', '-p', '.']);
await check('lint', ['bunx', 'biome', 'lint', '.']);
await bunTests('tests on embedded PGlite', ['src', 'tests/integration'], { TEST_DB: 'pglite' });
if (process.env.TEST_DATABASE_URL) {
  await bunTests('tests on native PostgreSQL', ['src', 'tests/integration'], { TEST_DB: 'postgres' });
} else {
  console.log('\n(TEST_DATABASE_URL not set: native PostgreSQL run skipped)');
}
if (!onlyFast && existsSync('tests/browser')) {
  await check('web build', ['bun', 'run', 'scripts/build-web.ts']);
  await bunTests('browser tests (headless Chromium)', ['tests/browser'], { TEST_DB: 'pglite' });
}

console.log('\n=== summary');
for (const result of results) console.log(`${result.name}: ${result.passed} passed, ${result.failed} failed`);
const passed = results.reduce((sum, r) => sum + r.passed, 0);
const failed = results.reduce((sum, r) => sum + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
