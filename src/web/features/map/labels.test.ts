import { describe, expect, test } from 'bun:test';
import { placeLabels } from './labels';

/** A flat projection: 1° = 1,000 px, north up. */
const project = ([lon, lat]: [number, number]) => ({ x: lon * 1000, y: -lat * 1000 });
const unit = (id: number, lon: number, lat: number, name = `Fordon ${id}`) => ({ id, name, lon, lat });

describe('unit labels', () => {
  test('names that would overlap are left out, the first in list order keeps its place', () => {
    const units = [unit(1, 0, 0), unit(2, 0.01, 0), unit(3, 0.2, 0), unit(4, 0, 0.005)];
    // 2 sits 10 px right of 1 (its label ~50 px wide overlaps); 4 sits 5 px above 1 (overlaps); 3 is 200 px away.
    expect(placeLabels(project, units, null).map((u) => u.id)).toEqual([1, 3]);
  });

  test('the selected unit is named first, pushing out the one it overlaps', () => {
    const units = [unit(1, 0, 0), unit(2, 0.01, 0), unit(3, 0.2, 0)];
    expect(placeLabels(project, units, 2).map((u) => u.id)).toEqual([2, 3]);
  });

  test('labels one above the other with room between both stay, as do long names far apart', () => {
    const units = [unit(1, 0, 0), unit(2, 0, 0.03), unit(3, 0.5, 0, 'Servicebil med ett mycket långt namn')];
    expect(placeLabels(project, units, null).map((u) => u.id)).toEqual([1, 2, 3]);
  });

  test('units without a position get no label', () => {
    expect(placeLabels(project, [{ id: 1, name: 'A', lat: null, lon: null }], null)).toEqual([]);
  });
});
