import { expect, test } from 'bun:test';
import { fitOf, fitPadding, fleetBounds } from './fit';

test('the fleet bounds cover every unit with a position and skip those without one', () => {
  expect(fleetBounds([])).toBeNull();
  expect(fleetBounds([{ lat: null, lon: null }])).toBeNull();
  const bounds = fleetBounds([
    { lat: 59.33, lon: 18.07 },
    { lat: null, lon: 12 },
    { lat: 57.71, lon: 11.97 },
    { lat: 59.91, lon: 10.75 },
    { lat: Number.NaN, lon: 1 },
  ]);
  expect(bounds).toEqual({ west: 10.75, south: 57.71, east: 18.07, north: 59.91, count: 3 });
});

test('the fit keeps room round the fleet, less on a phone, and never zooms past street level', () => {
  expect(fitPadding(1280, 800)).toBe(64);
  expect(fitPadding(390, 600)).toBe(39);
  expect(fitPadding(100, 100)).toBe(16);
  const fit = fitOf([{ lat: 59.33, lon: 18.07 }], { width: 1280, height: 800 });
  expect(fit).toEqual({ bounds: [[18.07, 59.33], [18.07, 59.33]], padding: 64, maxZoom: 14 });
  expect(fitOf([{ lat: null, lon: null }], { width: 1280, height: 800 })).toBeNull();
});
