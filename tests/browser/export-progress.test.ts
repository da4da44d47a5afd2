import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { login, startSuite, type Suite } from './support';

// A browser step may take seconds on a small CI machine (set per file: bun resets it for each).
setDefaultTimeout(120_000);

/**
 * A long trip log export shows its progress beside the export button while the server streams it, and the
 * progress goes away once the file is saved (the server's clock is 2 March 2026: the trip log opens on March).
 */
let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(async () => {
  await suite?.close();
});

test('a long export shows how far the download has come, then saves the file', async () => {
  const account = await suite.server.createAccount();
  const [unit] = await suite.server.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name, registration_number) values (${account.accountId}, '358100000090101', 'Långtradare', 'LNG123') returning id`);
  // 1,500 trips on 1 March: a PDF of some forty pages, streamed a page at a time.
  await suite.server.database.query(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
                        odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, type, purpose, detection)
     SELECT $1, $2, timestamptz '2026-03-01T00:00:00Z' + i * interval '30 seconds', timestamptz '2026-03-01T00:00:00Z' + i * interval '30 seconds' + interval '20 seconds',
            ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
            'Storgatan ' || i || ', Stockholm', 'Industrivägen ' || i || ', Solna', i * 1000, i * 1000 + 900, 'gps', 900, 50, 40, 'business', 'Kundbesök ' || i, 'ignition'
     FROM generate_series(0, 1499) AS i`,
    [unit!.id, account.accountId],
  );

  const page = await suite.newPage();
  await page.goto(`/?subsite=${account.subsiteId}`);
  await login(page, account.email, account.password);
  await page.waitForURL('**/user/realtime-tracking');
  await page.getByRole('link', { name: 'Körjournal' }).click();
  await page.waitForURL((url) => url.pathname === '/user/create-triplog');
  await page.getByTestId('triplog-export').waitFor();
  await page.waitForFunction(() => !document.querySelector('[data-testid="triplog-export"]')?.hasAttribute('disabled'));
  // The log opens on its latest trip: once it is in view, nothing moves the page under the menu.
  await page.getByText('Storgatan 1499, Stockholm').waitFor();

  // Every state the progress shows, as the page draws it.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __progress: string[] }).__progress = seen;
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid="download-progress"] [role="progressbar"]')?.textContent;
      if (text && seen.at(-1) !== text) seen.push(text);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  // The answer comes at the pace of a slow mobile link (the CI machine can otherwise read the whole file in one go,
  // when there is nothing to show between its first and last byte).
  const network = await page.context().newCDPSession(page);
  await network.send('Network.enable');
  await network.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 64 * 1024, uploadThroughput: -1 });
  await page.getByTestId('triplog-export').click();
  const download = page.waitForEvent('download');
  await page.getByRole('menu').getByRole('menuitem', { name: 'PDF – Sverige (körjournal enligt Skatteverket)' }).click();
  await page.getByTestId('download-progress').waitFor();
  const file = await download;
  expect(file.suggestedFilename()).toBe('korjournal-se-LNG123-2026-03-01-2026-03-31.pdf');
  await page.getByTestId('download-progress').waitFor({ state: 'detached' });

  const seen = await page.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
  expect(seen[0]).toBe('Filen förbereds…');
  const percents = seen.map((text) => /^Laddar ner… (\d+) %$/.exec(text)?.[1]).filter((value) => value !== undefined).map(Number);
  // Several steps between the first bytes and the end (a page at a time), never past 99 % on an estimate.
  expect(percents.length).toBeGreaterThan(2);
  expect(percents).toEqual([...percents].sort((a, b) => a - b));
  expect(Math.max(...percents)).toBeLessThanOrEqual(99);
  expect(Math.min(...percents)).toBeLessThan(90);
});
