import { sql } from 'drizzle-orm';
import type { Platform } from '../lib/platform';
import { hashPassword } from '../modules/auth/service';

/** A demo tracker: its IMEI, the protocol the simulator speaks for it and what the unit is called. */
export interface DemoDevice {
  unitId: number;
  imei: string;
  protocol: 'teltonika' | 'gt06' | 'osmand';
}

const MODELS = [
  { name: 'Volvo V60', model: 'FMB920', vehicleType: 'passenger_car' },
  { name: 'Volkswagen Transporter', model: 'FMB920', vehicleType: 'lorry' },
  { name: 'Toyota RAV4', model: 'FMB120', vehicleType: 'passenger_car' },
  { name: 'Scania R450', model: 'FMC130', vehicleType: 'lorry' },
  { name: 'Tesla Model Y', model: 'FMB920', vehicleType: 'passenger_car' },
  { name: 'Volvo EC220 excavator', model: 'FMB120', vehicleType: 'heavy_equipment' },
] as const;
const PLATE_LETTERS = 'ABCDEFGHJKLMNOPRSTUWXYZ';

/** Demo IMEIs: a fixed prefix and the vehicle number, so restarts find the same units. */
export function demoImei(index: number): string {
  return `35000000${String(index + 1).padStart(7, '0')}`;
}

function plate(index: number): string {
  const letter = (n: number) => PLATE_LETTERS[n % PLATE_LETTERS.length];
  return `${letter(index * 7)}${letter(index * 3 + 1)}${letter(index + 5)}${String(100 + ((index * 37) % 900))}`;
}

/**
 * Creates (once) the demo account on sub-site 0 with its administrator, an ordinary driver and
 * DEMO_VEHICLES units, plus a few unused IMEIs in tracker stock so registration can be tried.
 * Idempotent: a restart keeps what exists and adds only what is missing.
 */
export async function seedDemo(platform: Platform): Promise<DemoDevice[]> {
  const { database, config, log } = platform;
  const email = config.DEMO_EMAIL.toLowerCase();
  return database.transaction(async (query) => {
    const [existing] = await query<{ account_id: number }>('SELECT account_id FROM users WHERE email = $1', [email]);
    let accountId = existing?.account_id;
    if (accountId === undefined) {
      const [account] = await query<{ id: number }>(
        `INSERT INTO accounts (subsite_id, company_name, contact_person, address, postal_code, city, country, org_number, phone)
         VALUES (0, 'Demo Fleet AB', 'Anna Demo', 'Sveavägen 1', '11157', 'Stockholm', 'Sweden', '556677-8899', '812345678')
         RETURNING id`,
      );
      accountId = account!.id;
      await query(
        `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role, phone)
         VALUES ($1, $2, $3, 'Anna', 'Demo', 'admin', '812345678'), ($1, $4, $5, 'Erik', 'Driver', 'user', '812345679')`,
        [accountId, email, await hashPassword(config.DEMO_PASSWORD), `driver.${email}`, await hashPassword(config.DEMO_PASSWORD)],
      );
      log.info('demo account created', { email });
    }
    const devices: DemoDevice[] = [];
    for (let index = 0; index < config.DEMO_VEHICLES; index++) {
      const imei = demoImei(index);
      // Every tenth vehicle speaks GT06 and every seventh OsmAnd, so all three paths carry live data.
      const protocol = index % 10 === 9 ? 'gt06' : index % 7 === 6 ? 'osmand' : 'teltonika';
      const kind = MODELS[index % MODELS.length]!;
      await query(
        `INSERT INTO tracker_stock (imei, model, protocol, subsite_id) VALUES ($1, $2, $3, 0) ON CONFLICT (imei) DO NOTHING`,
        [imei, kind.model, protocol],
      );
      const [unit] = await query<{ id: number }>(
        `INSERT INTO units (account_id, imei, name, registration_number, model, protocol, vehicle_type)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (imei) DO UPDATE SET imei = EXCLUDED.imei
         RETURNING id`,
        [accountId, imei, `${kind.name} ${index + 1}`, plate(index), kind.model, protocol, kind.vehicleType],
      );
      devices.push({ unitId: unit!.id, imei, protocol });
    }
    // Spec §6: the demo driver (an ordinary user) sees the vehicles given to him: the first three.
    await query(
      `INSERT INTO unit_access (unit_id, user_id)
       SELECT u.id, driver.id FROM units u JOIN users driver ON driver.email = $2 AND driver.account_id = u.account_id
       WHERE u.account_id = $1 AND u.imei = ANY($3::text[])
       ON CONFLICT DO NOTHING`,
      [accountId, `driver.${email}`, devices.slice(0, 3).map((device) => device.imei)],
    );
    // Free IMEIs in stock for trying the registration wizard.
    for (let spare = 0; spare < 5; spare++) {
      await query(`INSERT INTO tracker_stock (imei, subsite_id) VALUES ($1, NULL) ON CONFLICT (imei) DO NOTHING`, [
        `35100000${String(spare + 1).padStart(7, '0')}`,
      ]);
    }
    return devices;
  });
}

/** The demo account's id, for tests and tools. */
export async function demoAccountId(platform: Platform): Promise<number | undefined> {
  const [row] = await platform.database.rows<{ account_id: number }>(
    sql`select account_id from users where email = ${platform.config.DEMO_EMAIL.toLowerCase()}`,
  );
  return row?.account_id;
}
