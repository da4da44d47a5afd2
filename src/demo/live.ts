/**
 * The live demo cars: each continues from where it stands (the end of its history on the first start, its last
 * position after a restart), so a restart never sends a car home.
 */
import type { Platform } from '../lib/platform';
import type { VehicleModel } from '../gateway/simulator/fleet';
import { DEMO_BOAT_IMEI, type DemoDevice } from './seed';
import { DemoVehicle, homeOf } from './routes';

export interface DemoFleetDevice extends DemoDevice {
  vehicle?: (startMs: number) => VehicleModel;
}

/** The demo's devices with the car each drives, started where it last reported (or at home). */
export async function demoFleetDevices(platform: Platform, devices: DemoDevice[]): Promise<DemoFleetDevice[]> {
  const rows = await platform.database.query<{ unit_id: number; lat: number; lon: number; odometer_m: number | null }>(
    `SELECT DISTINCT ON (unit_id) unit_id, ST_Y(geom) AS lat, ST_X(geom) AS lon, odometer_m
     FROM positions WHERE unit_id = ANY($1::int[]) ORDER BY unit_id, time DESC`,
    [devices.map((device) => device.unitId)],
  );
  const last = new Map(rows.map((row) => [row.unit_id, row]));
  return devices.map((device, index) => {
    if (device.imei === DEMO_BOAT_IMEI) return device; // the theft-mode boat keeps its own simulator
    const stood = last.get(device.unitId);
    const home = homeOf(index);
    const start = stood
      ? { lat: Number(stood.lat), lon: Number(stood.lon), odometerM: Number(stood.odometer_m ?? 0) }
      : { lat: home.lat, lon: home.lon, odometerM: 20_000_000 + index * 1_234_567 };
    return { ...device, vehicle: (startMs: number) => new DemoVehicle(index, startMs, start) };
  });
}
