import { expect, test } from 'bun:test';
import { nowInZone } from './time';

test('the wall-clock time of a zone, seconds :00', () => {
  const moment = new Date('2026-11-26T23:30:45Z');
  expect(nowInZone('Europe/Stockholm', moment)).toBe('2026-11-27T00:30:00');
  expect(nowInZone('UTC', moment)).toBe('2026-11-26T23:30:00');
  expect(nowInZone('America/New_York', moment)).toBe('2026-11-26T18:30:00');
});

test("the account's now follows the server's clock", async () => {
  const { accountNow, syncAccountClock } = await import('./time');
  const device = new Date();
  syncAccountClock({ Now: '2026-03-02T09:00:00', TimeZone: 'Europe/Stockholm' });
  const now = accountNow('Europe/Stockholm', device);
  expect(now.slice(0, 13)).toMatch(/^2026-03-02T(08|09)$/);
  syncAccountClock({ Now: nowInZone('Europe/Stockholm'), TimeZone: 'Europe/Stockholm' });
  expect(accountNow('Europe/Stockholm', device)).toBe(nowInZone('Europe/Stockholm', device));
});
