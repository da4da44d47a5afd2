import { sql } from 'drizzle-orm';
import type { TestApp } from '../../../tests/support/app';
import type { NormalizedIo } from '../../lib/tracker-record';
import type { StoredPosition } from '../tracking/service';

/** Fixtures shared by the alarm tests: units, positions through the ingest hooks, and the account's alarm settings. */

/** A unit written directly (no stock, no access given): the alarm tests' vehicles. */
export async function insertUnit(app: TestApp, accountId: number, imei: string, name: string, registration: string): Promise<number> {
  const [unit] = await app.database.rows<{ id: number }>(
    sql`insert into units (account_id, imei, name, registration_number, protocol, model) values (${accountId}, ${imei}, ${name}, ${registration}, 'teltonika', 'FMB920') returning id`,
  );
  return unit!.id;
}

/** A stationary fix of the unit at `time` in Stockholm, as the ingest writer hands it to the stored-batch hooks. */
export function storedPosition(accountId: number, unitId: number, time: Date, normalized: NormalizedIo, extra: Partial<StoredPosition> = {}): StoredPosition {
  return {
    unitId,
    accountId,
    time,
    latitude: 59.33,
    longitude: 18.06,
    speedKmh: 0,
    course: 0,
    valid: true,
    flags: 0,
    ignition: normalized.ignition,
    odometerM: normalized.odometerM,
    normalized,
    ...extra,
  };
}

/** Runs the stored-batch hooks (the alarm engine's among them) on positions in one transaction, as the ingest does. */
export async function runStoredHooks(app: TestApp, positions: StoredPosition[]): Promise<void> {
  await app.platform.database.transaction((tx) => app.services.tracking.storedBatchHooks.run(tx, positions));
}

/** The account's alarm settings: the language and time zone of its messages and its SMS credits. */
export async function alarmSettings(app: TestApp, accountId: number, settings: { language: string; timeZone: string; smsCredits: number }): Promise<void> {
  await app.database.query('INSERT INTO alarm_account_settings (account_id, language, time_zone, sms_credits) VALUES ($1, $2, $3, $4)', [
    accountId,
    settings.language,
    settings.timeZone,
    settings.smsCredits,
  ]);
}
