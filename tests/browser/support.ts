import { expect } from 'bun:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { reportPageProblem } from '../support/page-problems';
import { startTestServer, type TestServer } from '../support/server';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(import.meta.dir, '../../artifacts/screenshots');
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

const LAUNCH_OPTIONS = {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

export function launchBrowser(): Promise<Browser> {
  return chromium.launch(LAUNCH_OPTIONS);
}

/**
 * A browser of its own on a profile folder that a later launch on the same folder finds again, storage and IndexedDB
 * included (a browser closed and started anew). Its page is the profile's first tab.
 */
export async function launchProfile(userDataDir: string, baseURL: string): Promise<Page> {
  const context = watchContentSecurityPolicy(
    await chromium.launchPersistentContext(userDataDir, { ...LAUNCH_OPTIONS, viewport: DESKTOP, baseURL, locale: 'sv-SE', timezoneId: 'Europe/Stockholm' }),
  );
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  return page;
}

const CSP_VIOLATION = '[csp-violation]';

/**
 * Every page of a context reports Content-Security-Policy violations, which fail the running test: the app must
 * work under the policy it is served with. Chromium fires `securitypolicyviolation` for what it blocks; the init
 * script (not itself subject to the policy) passes each one on as a console message, and the console also carries
 * Chromium's own "Refused to …" reports, workers' included.
 */
export function watchContentSecurityPolicy(context: BrowserContext): BrowserContext {
  void context.addInitScript((tag: string) => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`${tag} ${event.violatedDirective} blocked ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber}`);
    });
  }, CSP_VIOLATION);
  context.on('console', (message) => {
    const text = message.text();
    if (text.startsWith(CSP_VIOLATION) || /Content Security Policy/i.test(text)) reportPageProblem(`${message.page()?.url() ?? ''}: ${text}`);
  });
  return context;
}

/**
 * One server and one browser per test file; each test opens its own context (fresh storage). The file's start-up and
 * shut-down times go to the log, so CI's output shows how much of a file's time is spent outside its tests.
 */
export async function startSuite(options: { env?: Record<string, string> } = {}) {
  const started = performance.now();
  const timed = async <T>(promise: Promise<T>): Promise<[T, number]> => [await promise, Math.round(performance.now() - started)];
  const [[server, serverMs], [browser, browserMs]] = await Promise.all([timed(startTestServer(options)), timed(launchBrowser())]);
  console.log(`suite started: server on ${server.database.kind} ${serverMs} ms, browser ${browserMs} ms`);
  const contexts: BrowserContext[] = [];
  return {
    server,
    browser,
    async newPage(viewport: { width: number; height: number } = DESKTOP, context?: BrowserContext): Promise<Page> {
      let ctx = context;
      if (!ctx) {
        ctx = watchContentSecurityPolicy(await browser.newContext({ viewport, baseURL: server.url, locale: 'sv-SE', timezoneId: 'Europe/Stockholm' }));
        contexts.push(ctx);
      }
      const page = await ctx.newPage();
      // Generous: two lanes of tests share a small CI machine, and a step waits only as long as it must.
      page.setDefaultTimeout(20_000);
      return page;
    },
    async newContext(viewport: { width: number; height: number } = DESKTOP): Promise<BrowserContext> {
      const ctx = watchContentSecurityPolicy(await browser.newContext({ viewport, baseURL: server.url, locale: 'sv-SE', timezoneId: 'Europe/Stockholm' }));
      contexts.push(ctx);
      return ctx;
    },
    async close() {
      const closing = performance.now();
      // Plainly: a file's last pages may be gone or stuck (a crashed screen), and the file's tests are over.
      for (const ctx of contexts) await ctx.close().catch(() => {});
      await browser.close().catch(() => {});
      await server.close();
      console.log(`suite stopped in ${Math.round(performance.now() - closing)} ms`);
    },
  };
}
export type Suite = Awaited<ReturnType<typeof startSuite>>;
export type { TestServer };

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

let axeSource: string | null = null;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/** Runs axe-core in the page; returns the serious and critical violations. */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const present = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  // Evaluated through the DevTools protocol: an injected <script> would be inline script, which the policy refuses.
  if (!present) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Logs in through the form of the page's current brand. */
export async function login(page: Page, email: string, password: string, options: { remember?: boolean } = {}) {
  await page.getByLabel(/^(E-postadress|E-mail address|E-postadresse)/).fill(email);
  await page.getByLabel(/^(Lösenord|Password|Passord)/).fill(password);
  if (options.remember) await page.getByText(/^(Kom ihåg mig|Remember me|Husk meg)$/).click();
  await page.getByRole('button', { name: /^(Logga in|Log in|Logg inn)$/ }).click();
}

/** Opens the login page of a sub-site, logs in and waits for the map (the landing of a user with the map). */
export async function signIn(page: Page, account: { email: string; password: string; subsiteId: number }) {
  await page.goto(`/?subsite=${account.subsiteId}`);
  await login(page, account.email, account.password);
  await page.waitForURL('**/user/realtime-tracking');
}

/** Fails with axe's serious and critical violations of the page, named by `what`. */
export async function expectAccessible(page: Page, what: string) {
  const violations = await seriousA11yViolations(page);
  if (violations.length > 0) console.error(what, JSON.stringify(violations, null, 2));
  expect(violations.map((v) => `${what}: ${v.id} (${v.impact}) ${v.help}`)).toEqual([]);
}

/** Reads until the value equals `expected` (what the page or the server does next is asynchronous), then asserts it. */
/**
 * What sticks out past the right edge of a page's viewport (empty when nothing does): the outermost such elements,
 * named by tag, test id and classes, so that a failing check says what to fix.
 */
export function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const offenders: string[] = [];
    const visit = (element: Element): void => {
      const box = element.getBoundingClientRect();
      if (box.right > width + 0.5 && box.width > 0) {
        const testId = element.getAttribute('data-testid');
        const classes = [...element.classList].join('.');
        offenders.push(`${element.tagName.toLowerCase()}${testId ? `[${testId}]` : ''}${classes ? `.${classes}` : ''} ${Math.round(box.right - width)}px`);
        return;
      }
      for (const child of element.children) visit(child);
    };
    visit(document.body);
    return offenders.length > 0 ? offenders : [`document ${document.documentElement.scrollWidth - width}px`];
  });
}

export async function eventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await Bun.sleep(100);
    last = await read();
  }
  expect(last).toEqual(expected);
}
