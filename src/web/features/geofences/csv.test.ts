import { describe, expect, test } from 'bun:test';
import type { GeofenceEventView } from '../../../modules/geofences/model';
import { geofenceEventsCsv } from './csv';

const event = (id: number, transition: 'entered' | 'exited', name: string): GeofenceEventView => ({
  id,
  geofenceId: 1,
  geofenceName: name,
  unitId: 7,
  unitName: 'Volvo V60',
  transition,
  at: '2026-11-26T08:00:00.000Z',
  latitude: 59.3293,
  longitude: 18.0686,
});

describe('zone event log CSV', () => {
  test('a header row, one row per event in order, fields with the separator quoted', () => {
    const csv = geofenceEventsCsv([event(2, 'exited', 'Depot; north'), event(1, 'entered', 'Depot "A"')], {
      headers: ['Time', 'Zone', 'Unit', 'Event', 'Lat', 'Lon'],
      time: (iso) => iso.slice(11, 16),
      transition: (e) => (e.transition === 'entered' ? 'In' : 'Out'),
    });
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv.slice(1).trimEnd().split('\r\n');
    expect(lines).toEqual([
      'Time;Zone;Unit;Event;Lat;Lon',
      '08:00;"Depot; north";Volvo V60;Out;59.329300;18.068600',
      '08:00;"Depot ""A""";Volvo V60;In;59.329300;18.068600',
    ]);
  });
});
