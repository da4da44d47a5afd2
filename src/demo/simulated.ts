/**
 * The IMEIs `bun run simulate` drives: a range of their own (never the demo fleet's, which the portal's own demo
 * drives; two sources reporting for one tracker make it jump), and registering them as units of an account.
 */
import type { Platform } from '../lib/platform';

/** The first IMEI of the simulator's range. */
export const SIMULATOR_FIRST_IMEI = '359990000000001';

/** `count` consecutive IMEIs from `first` (15 digits). */
export function simulatorImeis(count: number, first: string = SIMULATOR_FIRST_IMEI): string[] {
  if (!/^\d{15}$/.test(first)) throw new Error(`an IMEI has 15 digits, got ${JSON.stringify(first)}`);
  const start = BigInt(first);
  return Array.from({ length: count }, (_, index) => String(start + BigInt(index)).padStart(15, '0'));
}

/**
 * Registers the IMEIs as tracker stock and as units of the account of the user with `email` (named "Simulated
 * N"); IMEIs already registered stay as they are. Returns how many units were added.
 */
export async function registerSimulatedUnits(
  platform: Pick<Platform, 'database'>,
  imeis: string[],
  email: string,
  protocol: 'teltonika' | 'gt06' | 'osmand',
): Promise<number> {
  return platform.database.transaction(async (query) => {
    const [owner] = await query<{ account_id: number; subsite_id: number }>(
      'SELECT u.account_id, a.subsite_id FROM users u JOIN accounts a ON a.id = u.account_id WHERE u.email = $1',
      [email.toLowerCase()],
    );
    if (!owner) throw new Error(`no user ${email}: name an existing user's e-mail with --account`);
    let added = 0;
    for (const [index, imei] of imeis.entries()) {
      await query(`INSERT INTO tracker_stock (imei, model, protocol, subsite_id) VALUES ($1, 'FMB920', $2, $3) ON CONFLICT (imei) DO NOTHING`, [
        imei,
        protocol,
        owner.subsite_id,
      ]);
      const rows = await query(
        // An IMEI is unique across accounts, which the key (imei, account_id) alone does not say: look in every account.
        `INSERT INTO units (account_id, imei, name, model, protocol, vehicle_type)
         SELECT $1, $2::text, $3, 'FMB920', $4, 'passenger_car' WHERE NOT EXISTS (SELECT 1 FROM units WHERE imei = $2::text)
         ON CONFLICT (imei, account_id) DO NOTHING RETURNING id`,
        [owner.account_id, imei, `Simulated ${index + 1}`, protocol],
      );
      added += rows.length;
    }
    return added;
  });
}
