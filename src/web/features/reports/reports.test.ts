import { describe, expect, test } from 'bun:test';
import { isReportKind, reportExportPath, reportPath, type ReportFilters } from './reports';

const fleet: ReportFilters = { unitIds: [], departmentId: null, driverId: null, groupBy: 'vehicle' };

describe('report queries', () => {
  test('the whole fleet sends no unit filter; chosen units go sorted and comma-separated with the other filters', () => {
    expect(reportPath('summary', fleet)).toBe('/api/reports/summary?groupBy=vehicle');
    expect(reportPath('eco', { unitIds: [9, 3], departmentId: 4, driverId: 12, from: '2026-02-01', to: '2026-02-28', groupBy: 'driver' })).toBe(
      '/api/reports/eco?unitIds=3%2C9&departmentId=4&driverId=12&from=2026-02-01&to=2026-02-28&groupBy=driver',
    );
    // The environmental report has no grouping.
    expect(reportPath('environment', { ...fleet, groupBy: 'driver' })).toBe('/api/reports/environment?');
  });

  test('fleet reports export from their own path, the benefit report from its export path in the chosen language', () => {
    expect(reportExportPath('fuel', { ...fleet, unitIds: [5] }, 'xlsx', 'sv')).toBe('/api/reports/fuel?unitIds=5&groupBy=vehicle&format=xlsx');
    expect(reportExportPath('benefit', { ...fleet, from: '2026-01-01' }, 'pdf', 'no')).toBe('/api/reports/benefit/export?from=2026-01-01&groupBy=vehicle&format=pdf&lang=no');
  });

  test('only the known reports are routes', () => {
    expect(['summary', 'benefit', 'eco', 'fuel', 'co2', 'environment'].every(isReportKind)).toBe(true);
    expect(isReportKind('congestion')).toBe(false);
    expect(isReportKind(undefined)).toBe(false);
  });
});
