/**
 * Problems a page reported while a test ran (Content-Security-Policy violations), collected by the browser
 * support and failing the test that caused them. Preloaded for every test file (bunfig.toml), so the check
 * runs after each test of every file; elsewhere the list stays empty.
 */
import { afterEach } from 'bun:test';

const problems: string[] = [];

export function reportPageProblem(text: string): void {
  problems.push(text);
}

afterEach(() => {
  if (problems.length === 0) return;
  const reported = problems.splice(0);
  throw new Error(`The page reported ${reported.length} problem(s):\n${reported.join('\n')}`);
});
