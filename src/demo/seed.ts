import { sql } from 'drizzle-orm';
import type { Platform } from '../lib/platform';
import { hashPassword } from '../lib/password';
import { CITIES, SimulatedVehicle } from '../gateway/simulator/vehicle';
import { nearestLocality } from '../lib/geocoding';
import { addToDay, dayOf, weekday } from '../lib/time';
import { enqueueCheck, nextDue } from '../modules/safe-home/service';
import { homeOf } from './routes';

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
/** The theft-mode boat's tracker (not one of the fleet's cars: it has no driving history). */
export const DEMO_BOAT_IMEI = '350000009000001';
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
    /** The demo's users claim their login e-mails like any other user (src/modules/accounts/login-emails.ts). */
    const claimDemoLogins = async (emails: string[]) => {
      await query('INSERT INTO login_emails (email, user_id, account_id) SELECT email, id, account_id FROM users WHERE email = ANY($1::text[])', [emails]);
    };
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
      await claimDemoLogins([email, `driver.${email}`]);
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
      // An IMEI is registered once across every account (the key (imei, account_id) alone would allow one per account).
      const [unit] = await query<{ id: number }>(
        `WITH registered AS (SELECT id FROM units WHERE imei = $2),
         added AS (
           INSERT INTO units (account_id, imei, name, registration_number, model, protocol, vehicle_type)
           SELECT $1, $2, $3, $4, $5, $6, $7 WHERE NOT EXISTS (SELECT 1 FROM registered)
           RETURNING id)
         SELECT id FROM registered UNION ALL SELECT id FROM added`,
        [accountId, imei, `${kind.name} ${index + 1}`, plate(index), kind.model, protocol, kind.vehicleType],
      );
      devices.push({ unitId: unit!.id, imei, protocol });
    }
    // --- Theft mode (spec §4): a Scout v2 boat tracker in theft mode since the demo began, its 24 h mode to return when
    // switched off. The simulator drives it, so its positions are security events (unit.theft_movement) at once.
    const boatImei = DEMO_BOAT_IMEI;
    await query(
      `INSERT INTO tracker_stock (imei, model, protocol, subsite_id, device_kind) VALUES ($1, 'Scout v2', 'teltonika', 0, 'battery') ON CONFLICT (imei) DO NOTHING`,
      [boatImei],
    );
    const [boat] = await query<{ id: number; created: boolean }>(
      `WITH registered AS (SELECT id FROM units WHERE imei = $2),
       added AS (
         INSERT INTO units (account_id, imei, name, registration_number, model, protocol, vehicle_type, device_kind, marker_icon, operating_mode)
         SELECT $1, $2, 'Buster XL', 'SE4711', 'Scout v2', 'teltonika', 'motorboat', 'battery', 'boat', 'theft'
         WHERE NOT EXISTS (SELECT 1 FROM registered)
         RETURNING id)
       SELECT id, false AS created FROM registered UNION ALL SELECT id, true AS created FROM added`,
      [accountId, boatImei],
    );
    if (boat!.created) {
      await query(
        `INSERT INTO unit_theft_mode (unit_id, account_id, state, previous_mode, cause, since, watched_until, updated_at)
         VALUES ($1, $2, 'on', '24h', 'manual', now(), now(), now()) ON CONFLICT (unit_id, account_id) DO NOTHING`,
        [boat!.id, accountId],
      );
    }
    devices.push({ unitId: boat!.id, imei: boatImei, protocol: 'teltonika' });
    // --- end theft mode
    // Spec §6: the demo driver (an ordinary user) sees the vehicles given to him: the first three.
    await query(
      `INSERT INTO unit_access (unit_id, user_id, account_id)
       SELECT u.id, driver.id, u.account_id FROM units u JOIN users driver ON driver.email = $2 AND driver.account_id = u.account_id
       WHERE u.account_id = $1 AND u.imei = ANY($3::text[])
       ON CONFLICT DO NOTHING`,
      [accountId, `driver.${email}`, devices.slice(0, 3).map((device) => device.imei)],
    );
    // --- account settings and catalogues: the settings screen opens filled (kept once set; a restart changes nothing) ---
    await query(
      `INSERT INTO account_settings (account_id, language, timezone, users_may_create_projects, qr_checkin_without_access)
       VALUES ($1, 'sv', 'Europe/Stockholm', true, false) ON CONFLICT (account_id) DO NOTHING`,
      [accountId],
    );
    await query(
      `INSERT INTO account_fuel_prices (account_id, market, fuel_type, price)
       VALUES ($1, 'SE', 'petrol', 18.49), ($1, 'SE', 'diesel', 19.29), ($1, 'SE', 'electricity', 2.10), ($1, 'NO', 'diesel', 21.90)
       ON CONFLICT DO NOTHING`,
      [accountId],
    );
    for (const [table, names] of [
      ['departments', ['Service', 'Sales']],
      ['projects', ['Road works E4']],
      ['tags', ['Pool car', 'Winter tyres']],
    ] as const) {
      for (const name of names) {
        await query(`INSERT INTO ${table} (account_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [accountId, name]);
      }
    }
    await query(`INSERT INTO feature_profiles (account_id, name, green_driving) VALUES ($1, 'Sales cars', 'normal') ON CONFLICT DO NOTHING`, [accountId]);
    // --- end account settings ---
    // Administration (issue 19): the portal operator's support user in an account of its own, and a reseller whose
    // customer the demo company is; the demo's first users in its audit log. Each is made once.
    const supportEmail = `support.${email}`;
    const [supportUser] = await query('SELECT 1 FROM users WHERE email = $1', [supportEmail]);
    if (!supportUser) {
      const [operator] = await query<{ id: number }>(
        `INSERT INTO accounts (subsite_id, company_name, contact_person, city, country) VALUES (0, 'Portal Support', 'Sam Support', 'Stockholm', 'Sweden') RETURNING id`,
      );
      const [reseller] = await query<{ id: number }>(
        `INSERT INTO accounts (subsite_id, company_name, contact_person, city, country) VALUES (0, 'Demo Reseller AB', 'Rita Reseller', 'Göteborg', 'Sweden') RETURNING id`,
      );
      const hash = await hashPassword(config.DEMO_PASSWORD);
      await query(
        `INSERT INTO users (account_id, email, password_hash, first_name, last_name, role)
         VALUES ($1, $2, $3, 'Sam', 'Support', 'support'), ($4, $5, $3, 'Rita', 'Reseller', 'reseller')`,
        [operator!.id, supportEmail, hash, reseller!.id, `reseller.${email}`],
      );
      await claimDemoLogins([supportEmail, `reseller.${email}`]);
      await query(`UPDATE accounts SET reseller = 'Demo Reseller AB' WHERE id = $1 AND reseller = ''`, [accountId]);
      const [department] = await query<{ id: number }>(
        `INSERT INTO departments (account_id, name, description) VALUES ($1, 'Field service', 'Service technicians')
         ON CONFLICT DO NOTHING RETURNING id`,
        [accountId],
      );
      if (department) await query('UPDATE users SET department_id = $1, user_group = $2 WHERE email = $3', [department.id, 'Drivers', `driver.${email}`]);
      const people = await query<{ id: number; first_name: string; last_name: string; email: string; role: string }>(
        'SELECT id, first_name, last_name, email, role FROM users WHERE account_id = $1 ORDER BY id',
        [accountId],
      );
      const admin = people.find((person) => person.role === 'admin');
      await platform.outbox.publishMany(
        query,
        people.map((person) => ({
          type: 'audit.entry' as const,
          payload: {
            accountId: accountId!,
            actorUserId: admin?.id ?? null,
            action: 'user.created',
            target: { kind: 'user', id: person.id, label: `${person.first_name} ${person.last_name}` },
            changes: { email: { from: null, to: person.email }, isAdmin: { from: null, to: person.role === 'admin' } },
            at: new Date().toISOString(),
          },
        })),
      );
      log.info('demo support and reseller users created', { support: supportEmail, reseller: `reseller.${email}` });
    }
    // --- Car schedule: a week of bookings (this week, Monday to Sunday, in the account's time zone) on the first four
    // vehicles for Anna and Erik, with one busy Wednesday of five bookings on one car ("+3 more"). Created once.
    const [booked] = await query('SELECT 1 FROM bookings WHERE account_id = $1 LIMIT 1', [accountId]);
    if (!booked && devices.length >= 4) {
      type Slot = [unit: number, day: number, start: string, end: string, driver: 'admin' | 'driver', purpose: string];
      const slots: Slot[] = [];
      for (let day = 0; day < 7; day++) {
        slots.push([0, day, '08:00', '10:00', 'driver', 'Kundbesök Solna']);
        if (day < 5) slots.push([0, day, '13:00', '15:30', 'admin', 'Leverans till Kista']);
        if (day % 2 === 0) slots.push([1, day, '07:00', '16:00', 'driver', 'Service Uppsala']);
        if (day < 5) slots.push([3, day, '09:00', '17:00', 'admin', 'Säljmöten']);
      }
      for (const [start, end, driver, purpose] of [
        ['08:00', '09:00', 'driver', 'Hämta material'],
        ['09:15', '10:00', 'admin', 'Bank'],
        ['10:30', '11:30', 'driver', 'Besiktning'],
        ['12:00', '13:00', 'admin', 'Lunchmöte'],
        ['14:00', '15:00', 'driver', 'Leverans Bromma'],
      ] as const) {
        slots.push([2, 2, start, end, driver, purpose]);
      }
      await query(
        `INSERT INTO bookings (account_id, unit_id, driver_id, starts_at, ends_at, purpose, created_by)
         SELECT $1, s.unit_id, d.id,
                (date_trunc('week', $10::timestamptz AT TIME ZONE 'Europe/Stockholm') + make_interval(days => s.day) + s.start_time::time) AT TIME ZONE 'Europe/Stockholm',
                (date_trunc('week', $10::timestamptz AT TIME ZONE 'Europe/Stockholm') + make_interval(days => s.day) + s.end_time::time) AT TIME ZONE 'Europe/Stockholm',
                s.purpose, a.id
         FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[]) AS s(unit_id, day, start_time, end_time, driver, purpose)
         JOIN users d ON d.account_id = $1 AND d.email = CASE s.driver WHEN 'admin' THEN $8 ELSE $9 END
         JOIN users a ON a.account_id = $1 AND a.email = $8`,
        [
          accountId,
          slots.map((slot) => devices[slot[0]]!.unitId),
          slots.map((slot) => slot[1]),
          slots.map((slot) => slot[2]),
          slots.map((slot) => slot[3]),
          slots.map((slot) => slot[4]),
          slots.map((slot) => slot[5]),
          email,
          `driver.${email}`,
          platform.clock.now().toISOString(),
        ],
      );
    }
    // --- end car schedule
    // --- Geofences: a depot around where each city's first vehicle parks, for every vehicle of that city (the simulated
    // vehicles drive from and to their homes every working day, so the zone log fills at once). Stockholm's depot has
    // theft mode; Uppsala's yard is a polygon; Göteborg's depot rests on weekend nights. Created once.
    const [zoned] = await query('SELECT 1 FROM geofences WHERE account_id = $1 LIMIT 1', [accountId]);
    if (!zoned && devices.length > 0) {
      for (const [city, place] of CITIES.entries()) {
        const members = devices.filter((_, index) => index % CITIES.length === city).map((device) => device.unitId);
        if (members.length === 0) continue;
        const spot = homeOf(city);
        const home = { latitude: spot.lat, longitude: spot.lon };
        const polygon = place.name === 'Uppsala';
        const dLat = 500 / 111_320;
        const dLon = 500 / (111_320 * Math.cos((home.latitude * Math.PI) / 180));
        const geometry = polygon
          ? `SRID=4326;POLYGON((${[[-1, -1], [1, -1], [1.4, 0], [1, 1], [-1, 1], [-1, -1]]
              .map(([x, y]) => `${(home.longitude + x! * dLon).toFixed(6)} ${(home.latitude + y! * dLat).toFixed(6)}`)
              .join(', ')}))`
          : `SRID=4326;POINT(${home.longitude.toFixed(6)} ${home.latitude.toFixed(6)})`;
        const [zone] = await query<{ id: number }>(
          `INSERT INTO geofences (account_id, name, shape, geom, radius_m, theft_mode)
           VALUES ($1, $2, $3, ST_GeogFromText($4), $5, $6) RETURNING id`,
          [
            accountId,
            polygon ? `${place.name} yard` : `${place.name} depot`,
            polygon ? 'polygon' : 'circle',
            geometry,
            polygon ? null : 600,
            place.name === 'Stockholm',
          ],
        );
        await query('INSERT INTO geofence_units (geofence_id, unit_id, account_id) SELECT $1, u, $3 FROM unnest($2::int[]) AS u', [zone!.id, members, accountId]);
        if (place.name === 'Göteborg') {
          await query(`INSERT INTO geofence_deactivations (geofence_id, days, from_minute, to_minute, account_id) VALUES ($1, '{0,6}', 1320, 360, $2)`, [zone!.id, accountId]);
        }
      }
    }
    // --- end of geofences ---
    // --- BLE units and alarm receivers: two beacons and a temperature sensor; the administrator (push on) and an outside
    // on-call person (e-mail and phone) receive the alarms of the theft-mode boat and the first vehicles; 250 SMS credits,
    // alarms in Swedish, Stockholm time. Created once.
    const bleTags: Array<[string, string, string, 'beacon' | 'sensor', number | undefined]> = [
      ['C0FFEE000001', 'Key beacon', 'BLE-1001', 'beacon', devices[0]?.unitId],
      ['C0FFEE000002', 'Trailer beacon', 'BLE-1002', 'beacon', devices[1]?.unitId],
      ['C0FFEE000003', 'Cold-box temperature sensor', 'EYE-2001', 'sensor', devices[1]?.unitId],
    ];
    for (const [mac, name, serial, kind, pairedUnitId] of bleTags) {
      await query(
        `INSERT INTO ble_devices (account_id, mac, name, serial_number, kind, paired_unit_id) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (mac, account_id) DO NOTHING`,
        [accountId, mac, name, serial, kind, pairedUnitId ?? null],
      );
    }
    await query(
      `INSERT INTO alarm_account_settings (account_id, language, time_zone, sms_credits) VALUES ($1, 'sv', 'Europe/Stockholm', 250) ON CONFLICT (account_id) DO NOTHING`,
      [accountId],
    );
    const [hasReceivers] = await query('SELECT 1 FROM alarm_receivers WHERE account_id = $1 LIMIT 1', [accountId]);
    if (!hasReceivers && devices.length > 0) {
      const [demoAdmin] = await query<{ id: number; email: string; first_name: string; last_name: string }>(
        `SELECT id, email, first_name, last_name FROM users WHERE account_id = $1 AND role = 'admin' AND email = $2`,
        [accountId, email],
      );
      // The boat and the first three vehicles (the boat is among the devices too: with few demo vehicles it is one of the first).
      const watched = [boat!.id, ...devices.filter((device) => device.unitId !== boat!.id).slice(0, 3).map((device) => device.unitId)];
      const tags = await query<{ id: number }>('SELECT id FROM ble_devices WHERE account_id = $1 ORDER BY id', [accountId]);
      const receivers: Array<{ memberId: number | null; name: string; email: string; phone: string | null; push: boolean; functionAlarm: boolean; units: number[] }> = [
        ...(demoAdmin
          ? [{ memberId: demoAdmin.id, name: `${demoAdmin.first_name} ${demoAdmin.last_name}`, email: demoAdmin.email, phone: null, push: true, functionAlarm: true, units: watched }]
          : []),
        { memberId: null, name: 'Lars Larmjour', email: 'larmjour@example.com', phone: '701234567', push: false, functionAlarm: false, units: watched.slice(0, 2) },
      ];
      for (const receiver of receivers) {
        const [row] = await query<{ id: number }>(
          `INSERT INTO alarm_receivers (account_id, member_id, name, email, country_code, phone, push_notification, security_alarm, function_alarm)
           VALUES ($1, $2, $3, $4, $5, $6, $7, true, $8) RETURNING id`,
          [accountId, receiver.memberId, receiver.name, receiver.email, receiver.phone ? '46' : null, receiver.phone, receiver.push, receiver.functionAlarm],
        );
        await query('INSERT INTO alarm_receiver_units (receiver_id, unit_id, account_id) SELECT r.id, u, r.account_id FROM alarm_receivers r, unnest($2::int[]) AS u WHERE r.id = $1', [row!.id, receiver.units]);
        await query('INSERT INTO alarm_receiver_ble_units (receiver_id, ble_device_id, account_id) SELECT r.id, b, r.account_id FROM alarm_receivers r, unnest($2::int[]) AS b WHERE r.id = $1', [
          row!.id,
          tags.map((tag) => tag.id),
        ]);
      }
    }
    // --- end of alarm receivers ---
    // --- Alarms (issue 21): a few in the history, some acknowledged, each with its delivery log, so the bell, the alarm
    // list and the delivery log show something at once. Created once.
    const [alarmed] = await query('SELECT 1 FROM alarms WHERE account_id = $1 LIMIT 1', [accountId]);
    const [anna] = await query<{ id: number; email: string }>(`SELECT id, email FROM users WHERE account_id = $1 AND role = 'admin' AND email = $2`, [
      accountId,
      email,
    ]);
    const receiverIds = new Map(
      (await query<{ id: number; name: string }>('SELECT id, name FROM alarm_receivers WHERE account_id = $1', [accountId])).map((row) => [row.name, row.id]),
    );
    if (!alarmed && anna && devices.length >= 4) {
      const hour = 3600_000;
      const now = Date.now();
      const annaName = 'Anna Demo';
      const lars = ['Lars Larmjour', 'larmjour@example.com', '+46701234567'] as const;
      const boatUnit = devices[devices.length - 1]!;
      const history: Array<{
        unitId: number;
        type: string;
        class: 'security' | 'function';
        agoMs: number;
        at: [number, number];
        address: string;
        details: Record<string, string | number | boolean>;
        acknowledged: boolean;
        deliveries: Array<[receiver: string, channel: 'email' | 'sms' | 'push', recipient: string, status: string, attempts: number, providerId: string | null, error: string | null]>;
      }> = [
        {
          unitId: boatUnit.unitId,
          type: 'theft_zone_exit',
          class: 'security',
          agoMs: 50 * hour,
          at: [59.3275, 18.0871],
          address: 'Stockholm',
          details: { zone: 'Stockholm depot' },
          acknowledged: true,
          deliveries: [
            [annaName, 'email', anna.email, 'sent', 1, '<demo-1@fleet.example>', null],
            [annaName, 'push', `${anna.email} · 1`, 'sent', 1, null, null],
            [lars[0], 'email', lars[1], 'sent', 1, '<demo-2@fleet.example>', null],
            [lars[0], 'sms', lars[2], 'sent', 2, 'SMd3m0000000000000000000000000001', null],
          ],
        },
        {
          unitId: devices[1]!.unitId,
          type: 'tamper',
          class: 'security',
          agoMs: 26 * hour,
          at: [57.7089, 11.9746],
          address: 'Göteborg',
          details: {},
          acknowledged: true,
          deliveries: [
            [annaName, 'email', anna.email, 'sent', 1, '<demo-3@fleet.example>', null],
            [annaName, 'push', `${anna.email} · 1`, 'sent', 1, null, null],
          ],
        },
        {
          unitId: devices[2]!.unitId,
          type: 'overspeed',
          class: 'function',
          agoMs: 3 * hour,
          at: [59.4, 17.95],
          address: 'Sollentuna',
          details: { speed: 128, limit: 110 },
          acknowledged: false,
          deliveries: [
            [annaName, 'email', anna.email, 'sent', 1, '<demo-4@fleet.example>', null],
            [annaName, 'push', `${anna.email} · 1`, 'sent', 1, null, null],
          ],
        },
        {
          unitId: devices[0]!.unitId,
          type: 'power_cut',
          class: 'security',
          agoMs: 0.7 * hour,
          at: [59.8586, 17.6389],
          address: 'Uppsala',
          details: { voltage: 0.4 },
          acknowledged: false,
          deliveries: [
            [annaName, 'email', anna.email, 'retrying', 2, null, 'SMTP 451 try again later'],
            [lars[0], 'email', lars[1], 'sent', 1, '<demo-5@fleet.example>', null],
            [lars[0], 'sms', lars[2], 'refused', 0, null, 'alarms.delivery.noSmsCredits'],
          ],
        },
      ];
      for (const alarm of history) {
        const at = new Date(now - alarm.agoMs).toISOString();
        const [row] = await query<{ id: string }>(
          `INSERT INTO alarms (account_id, unit_id, type, class, raised_at, last_seen_at, occurrences, lat, lon, address, details,
                               acknowledged_at, acknowledged_by, acknowledged_by_name)
           VALUES ($1, $2, $3, $4, $5, $5, 1, $6, $7, $8, $9::jsonb, $10, $11, $12) RETURNING id`,
          [
            accountId,
            alarm.unitId,
            alarm.type,
            alarm.class,
            at,
            alarm.at[0],
            alarm.at[1],
            alarm.address,
            JSON.stringify(alarm.details),
            alarm.acknowledged ? new Date(now - alarm.agoMs + 0.25 * hour).toISOString() : null,
            alarm.acknowledged ? anna.id : null,
            alarm.acknowledged ? 'Anna Demo' : null,
          ],
        );
        for (const [receiver, channel, recipient, status, attempts, providerId, error] of alarm.deliveries) {
          await query(
            `INSERT INTO alarm_deliveries (account_id, alarm_id, receiver_id, receiver_name, channel, recipient, status, attempts, provider_id, error, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
            [accountId, row!.id, receiverIds.get(receiver) ?? null, receiver, channel, recipient, status, attempts, providerId, error, at],
          );
        }
      }
    }
    // --- end of alarms ---
    // --- Safe return home: the first two vehicles have a home where they park (Stockholm and Göteborg) and a schedule,
    // switched on: the Stockholm car every weekday at 18:00, the Göteborg van every other week (Monday and Thursday 18:00,
    // then Saturday 10:00), both from this week's Monday. Their next checks are queued. Created once.
    const [homed] = await query('SELECT 1 FROM safe_homes WHERE account_id = $1 LIMIT 1', [accountId]);
    if (!homed && devices.length >= 2) {
      const zone = 'Europe/Stockholm';
      const today = dayOf(platform.clock.now(), zone);
      const monday = addToDay(today, { days: -((weekday(today) + 6) % 7) });
      const homes = [
        { device: devices[0]!, city: 0, radius: 400, frequency: 1, schedule: [{ week: 1, days: [1, 2, 3, 4, 5].map((day) => ({ day, time: '18:00' })) }] },
        {
          device: devices[1]!,
          city: 1,
          radius: 300,
          frequency: 2,
          schedule: [
            { week: 1, days: [{ day: 1, time: '18:00' }, { day: 4, time: '18:00' }] },
            { week: 2, days: [{ day: 6, time: '10:00' }] },
          ],
        },
      ];
      for (const home of homes) {
        const point = new SimulatedVehicle(home.city, Date.now()).step(Date.now(), 0);
        const locality = nearestLocality(point.latitude, point.longitude);
        const address = locality ? `${locality.name}, ${locality.country}` : CITIES[home.city]!.name;
        const due = nextDue({ schedule: home.schedule, frequency: home.frequency, startDate: monday, timeZone: zone }, platform.clock.now());
        await query(
          `INSERT INTO safe_homes (unit_id, account_id, status, schedule, frequency, start_date, time_zone, address, radius, center_lat, center_lng, enabled_at, next_due_at)
           VALUES ($1, $2, 1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (unit_id, account_id) DO NOTHING`,
          [
            home.device.unitId,
            accountId,
            JSON.stringify(home.schedule),
            home.frequency,
            monday,
            zone,
            address,
            home.radius,
            Math.round(point.latitude * 1e6) / 1e6,
            Math.round(point.longitude * 1e6) / 1e6,
            platform.clock.now().toISOString(),
            due?.toISOString() ?? null,
          ],
        );
        if (due) await enqueueCheck(platform.queue, query, home.device.unitId, due);
      }
    }
    // --- end of safe return home ---
    // --- Scheduled reports: a weekly fleet summary (PDF) to Anna and a monthly CO2 report (CSV) to the finance
    // address, due next Monday and the next 1st at 06:00 Stockholm time. Created once.
    const [scheduled] = await query('SELECT 1 FROM report_schedules WHERE account_id = $1 LIMIT 1', [accountId]);
    if (!scheduled) {
      const [anna] = await query<{ id: number }>('SELECT id FROM users WHERE account_id = $1 AND email = $2', [accountId, email]);
      if (anna) {
        await query(
          `INSERT INTO report_schedules (account_id, created_by, name, kind, scope, frequency, format, recipient_user_ids, recipient_emails, next_run_at)
           VALUES ($1, $2, 'Veckosammanställning', 'summary', '{"groupBy":"vehicle"}', 'weekly', 'pdf', ARRAY[$2::int], '{}',
                   (date_trunc('week', $3::timestamptz AT TIME ZONE 'Europe/Stockholm') + interval '7 days 6 hours') AT TIME ZONE 'Europe/Stockholm'),
                  ($1, $2, 'CO2 per månad', 'co2', '{"groupBy":"vehicle"}', 'monthly', 'csv', '{}', ARRAY['ekonomi@demo-fleet.example'],
                   (date_trunc('month', $3::timestamptz AT TIME ZONE 'Europe/Stockholm') + interval '1 month 6 hours') AT TIME ZONE 'Europe/Stockholm')`,
          [accountId, anna.id, platform.clock.now().toISOString()],
        );
      }
    }
    // --- end of scheduled reports ---
    // --- Benefit value and reimbursement (spec §1 reports): the first Volvo is Anna's petrol benefit car, the first Tesla
    // Erik's electric benefit car (the environmental reduction applies), the first RAV4 Erik's own car driven on business
    // at 30 kr/mil. Created once; units already given another use keep it.
    const [benefitSeeded] = await query('SELECT 1 FROM benefit_cars WHERE account_id = $1 LIMIT 1', [accountId]);
    if (!benefitSeeded) {
      const cars: Array<{ unit: number; usage: 'benefit' | 'private'; fuel: string; consumption: number; co2: number; payer: 'company' | 'private'; reimbursement: number | null;
        holder: 'admin' | 'driver'; powertrain: string; listPrice: number | null; equipment: number; firstRegistered: string | null; vehicleTax: number }> = [
        { unit: 0, usage: 'benefit', fuel: 'petrol', consumption: 0.68, co2: 154, payer: 'company', reimbursement: null, holder: 'admin', powertrain: 'combustion', listPrice: 489_900, equipment: 24_500, firstRegistered: '2023-04-12', vehicleTax: 1_686 },
        { unit: 4, usage: 'benefit', fuel: 'electricity', consumption: 1.7, co2: 0, payer: 'private', reimbursement: 9.5, holder: 'driver', powertrain: 'electric', listPrice: 559_990, equipment: 0, firstRegistered: '2024-02-01', vehicleTax: 360 },
        { unit: 2, usage: 'private', fuel: 'petrol', consumption: 0.72, co2: 163, payer: 'private', reimbursement: 30, holder: 'driver', powertrain: 'hybrid', listPrice: null, equipment: 0, firstRegistered: null, vehicleTax: 0 },
      ];
      for (const car of cars) {
        // Only demo vehicles (the list ends with the boat), and only those this install has.
        if (car.unit >= config.DEMO_VEHICLES) continue;
        const unitId = devices[car.unit]!.unitId;
        await query(
          `UPDATE units SET car_usage = $2, fuel_type = $3, fuel_consumption_per_10km = $4, co2_g_per_km = $5, fuel_payer = $6, reimbursement_per_10km = $7
           WHERE id = $1 AND car_usage = 'none'`,
          [unitId, car.usage, car.fuel, car.consumption, car.co2, car.payer, car.reimbursement],
        );
        await query(
          `INSERT INTO benefit_cars (unit_id, account_id, powertrain, list_price, extra_equipment, first_registered, vehicle_tax, holder_user_id)
           SELECT $1, $2, $3, $4, $5, $6::date, $7, u.id FROM users u WHERE u.account_id = $2 AND u.email = $8
           ON CONFLICT (unit_id, account_id) DO NOTHING`,
          [unitId, accountId, car.powertrain, car.listPrice, car.equipment, car.firstRegistered, car.vehicleTax, car.holder === 'admin' ? email : `driver.${email}`],
        );
      }
    }
    // --- end of benefit value and reimbursement ---
    // Free IMEIs in stock for trying the registration wizard.
    for (let spare = 0; spare < 5; spare++) {
      await query(`INSERT INTO tracker_stock (imei, subsite_id) VALUES ($1, NULL) ON CONFLICT (imei) DO NOTHING`, [
        `35100000${String(spare + 1).padStart(7, '0')}`,
      ]);
    }
    // --- Brand languages: the Norwegian brand (Kjørebok Pro, sub-site 3) greets a new visitor in Norwegian; an
    // operator's own choice in the row is kept.
    await query(
      `UPDATE brands SET features = features || '{"DefaultLanguage": "no"}'::jsonb WHERE subsite_id = 3 AND NOT (features ? 'DefaultLanguage')`,
    );
    // --- end of brand languages ---
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
