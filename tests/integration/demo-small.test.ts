import { expect, test } from 'bun:test';
import { seedDemo } from '../../src/demo/seed';
import { createTestApp } from '../support/app';

/** A reseller may ask for a demo of one or two vehicles (DEMO_VEHICLES): it starts like the default one. */
test.each(['2'])('a demo of %s vehicles is created and created again without a fault', async (vehicles) => {
  const app = await createTestApp({ env: { DEMO_VEHICLES: vehicles } });
  try {
    const devices = await seedDemo(app.platform);
    expect(devices).toHaveLength(Number(vehicles) + 1);
    expect((await seedDemo(app.platform)).map((device) => device.unitId)).toEqual(devices.map((device) => device.unitId));
    // The administrator receives the boat's and the vehicles' alarms, each unit once.
    const watched = await app.database.query<{ unit_id: number }>(
      `SELECT ru.unit_id FROM alarm_receiver_units ru JOIN alarm_receivers r ON r.id = ru.receiver_id
       WHERE r.email = 'demo@example.com' ORDER BY ru.unit_id`,
    );
    expect(watched.map((row) => row.unit_id).sort((a, b) => a - b)).toEqual(devices.map((device) => device.unitId).sort((a, b) => a - b));
  } finally {
    await app.close();
  }
}, 120_000);
