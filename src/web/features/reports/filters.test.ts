import { describe, expect, test } from 'bun:test';
import { filtersFromSearch, filtersToSearch, type ReportFilters } from './reports';

describe('report filters in the address', () => {
  test('every filter survives the round trip through the query string', () => {
    const filters: ReportFilters = { unitIds: [12, 3], departmentId: 7, driverId: 9, from: '2026-01-01', to: '2026-03-31', groupBy: 'driver' };
    const search = filtersToSearch(filters);
    expect(search.toString()).toBe('unitIds=3%2C12&departmentId=7&driverId=9&from=2026-01-01&to=2026-03-31&groupBy=driver');
    expect(filtersFromSearch(new URLSearchParams(search.toString()))).toEqual({ ...filters, unitIds: [3, 12] });
  });

  test('the defaults leave the address empty, and an empty address gives the defaults', () => {
    const defaults: ReportFilters = { unitIds: [], departmentId: null, driverId: null, groupBy: 'vehicle' };
    expect(filtersToSearch(defaults).toString()).toBe('');
    expect(filtersFromSearch(new URLSearchParams(''))).toEqual(defaults);
  });

  test('what cannot be read is left out', () => {
    const read = filtersFromSearch(new URLSearchParams('unitIds=4,x,-1,4,0&departmentId=abc&driverId=99999999999&from=2026-13&to=yesterday&groupBy=team'));
    expect(read).toEqual({ unitIds: [4], departmentId: null, driverId: null, groupBy: 'vehicle' });
  });
});
