import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { SummaryDay, SummaryFigures, SummaryReport, SummaryRow } from '../../../modules/reports/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { useTableView } from '../../lib/table-view';
import { ChartFigure } from './charts';
import type { ReportFormats } from './format';
import { clockTime, keyColumn, NO_VIEW, Tile } from './parts';

type DepartmentRow = SummaryReport['departments'][number];

/**
 * Summary (issue point 2): per vehicle or driver the trips, distance per trip type, driving and idle time, stops,
 * average and top speed; the distance per day as a chart; first start and last stop per day; totals per
 * department and for the fleet.
 */
export function SummaryReportView({ report, formats }: { report: SummaryReport; formats: ReportFormats }) {
  const { t } = useTranslation();
  const rowsView = useTableView('report-summary', NO_VIEW);
  const daysView = useTableView('report-summary-days', NO_VIEW);
  const departmentsView = useTableView('report-summary-departments', NO_VIEW);
  const perDriver = report.groupBy === 'driver';

  const figures = <Row extends SummaryFigures>(): DataColumn<Row>[] => [
    { id: 'trips', header: t('reports.col.trips'), align: 'end', minRem: 5, sortValue: (row) => row.trips, cell: (row) => formats.whole(row.trips) },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', canHide: false, minRem: 6, sortValue: (row) => row.distanceKm, cell: (row) => formats.km(row.distanceKm) },
    { id: 'business', header: t('reports.col.business'), align: 'end', minRem: 6, sortValue: (row) => row.distanceByType.business, cell: (row) => formats.km(row.distanceByType.business) },
    { id: 'private', header: t('reports.col.private'), align: 'end', minRem: 6, sortValue: (row) => row.distanceByType.private, cell: (row) => formats.km(row.distanceByType.private) },
    { id: 'other', header: t('reports.col.other'), align: 'end', minRem: 6, sortValue: (row) => row.distanceByType.other, cell: (row) => formats.km(row.distanceByType.other) },
    { id: 'driving', header: t('reports.col.drivingTime'), align: 'end', minRem: 6, sortValue: (row) => row.drivingS, cell: (row) => formats.duration(row.drivingS) },
    { id: 'idle', header: t('reports.col.idleTime'), align: 'end', minRem: 6, sortValue: (row) => row.idleS, cell: (row) => formats.duration(row.idleS) },
    { id: 'stops', header: t('reports.col.stops'), align: 'end', minRem: 5, sortValue: (row) => row.stops, cell: (row) => formats.whole(row.stops) },
    { id: 'avgSpeed', header: t('reports.col.avgSpeed'), align: 'end', minRem: 6, sortValue: (row) => row.avgSpeedKmh, cell: (row) => `${formats.whole(row.avgSpeedKmh)} km/h` },
    { id: 'maxSpeed', header: t('reports.col.maxSpeed'), align: 'end', minRem: 6, sortValue: (row) => row.maxSpeedKmh, cell: (row) => `${formats.whole(row.maxSpeedKmh)} km/h` },
  ];
  const rowColumns: DataColumn<SummaryRow>[] = [...keyColumn<SummaryRow>(t, perDriver), ...figures<SummaryRow>()];
  const departmentColumns: DataColumn<DepartmentRow>[] = [
    { id: 'department', header: t('reports.col.department'), rowHeader: true, canHide: false, minRem: 9, sortValue: (row) => row.name, cell: (row) => (row.id === null ? t('reports.noDepartment') : row.name) },
    ...figures<DepartmentRow>(),
  ];
  const dayColumns: DataColumn<SummaryDay>[] = [
    { id: 'date', header: t('reports.col.date'), canHide: false, minRem: 6, sortValue: (row) => row.date, cell: (row) => row.date },
    { id: 'name', header: perDriver ? t('reports.col.driver') : t('reports.col.vehicle'), rowHeader: true, minRem: 9, sortValue: (row) => row.name, searchText: (row) => row.name, cell: (row) => (row.key === 0 && perDriver ? t('reports.noDriver') : row.name) },
    { id: 'firstStart', header: t('reports.col.firstStart'), minRem: 5, cell: (row) => clockTime(row.firstStart, formats, report.timeZone) },
    { id: 'lastStop', header: t('reports.col.lastStop'), minRem: 5, cell: (row) => clockTime(row.lastStop, formats, report.timeZone) },
    { id: 'trips', header: t('reports.col.trips'), align: 'end', minRem: 5, sortValue: (row) => row.trips, cell: (row) => formats.whole(row.trips) },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', minRem: 6, sortValue: (row) => row.distanceKm, cell: (row) => formats.km(row.distanceKm) },
  ];

  const chart = useMemo(
    () => ({
      labels: report.distancePerDay.map((day) => formats.day(day.date)),
      series: [{ label: t('reports.col.distance'), values: report.distancePerDay.map((day) => day.distanceKm) }],
    }),
    [report.distancePerDay, formats, t],
  );
  const fleet = report.fleet;
  return (
    <>
      <section className="report-totals" aria-label={t('reports.totals')} data-testid="report-totals">
        <div className="report-total-group">
          <Tile main label={t('reports.col.distance')} value={formats.km(fleet.distanceKm)} testId="summary-total-distance" />
          <Tile label={t('reports.col.trips')} value={formats.whole(fleet.trips)} testId="summary-total-trips" />
          <Tile label={t('reports.col.drivingTime')} value={formats.duration(fleet.drivingS)} />
          <Tile label={t('reports.col.idleTime')} value={formats.duration(fleet.idleS)} />
          <Tile label={t('reports.col.maxSpeed')} value={`${formats.whole(fleet.maxSpeedKmh)} km/h`} />
        </div>
      </section>

      <ChartFigure
        kind="bars"
        title={t('reports.summary.chartTitle')}
        summary={t('reports.summary.chartSummary', { distance: formats.km(fleet.distanceKm), days: report.distancePerDay.length })}
        labels={chart.labels}
        series={chart.series}
        format={formats.km}
        testId="summary-chart"
      />

      <h2 className="report-heading">{perDriver ? t('reports.perDriver') : t('reports.perVehicle')}</h2>
      <DataTable
        label={perDriver ? t('reports.perDriver') : t('reports.perVehicle')}
        rows={report.rows}
        columns={rowColumns}
        rowId={(row) => String(row.key)}
        view={rowsView}
        rowProps={() => ({ 'data-testid': 'summary-row' })}
        empty={<p className="report-hint">{t('reports.noTrips')}</p>}
        footer={
          <>
            <span>{t('reports.fleetTotal')}</span>
            <span data-testid="summary-table-total">{formats.km(fleet.distanceKm)}</span>
          </>
        }
        testId="summary-table"
      />

      {report.departments.length > 0 && (
        <>
          <h2 className="report-heading">{t('reports.summary.departmentsHeading')}</h2>
          <DataTable label={t('reports.summary.departmentsHeading')} rows={report.departments} columns={departmentColumns} rowId={(row) => String(row.id ?? 'none')} view={departmentsView} testId="summary-departments" />
        </>
      )}

      <h2 className="report-heading">{t('reports.summary.daysHeading')}</h2>
      <DataTable
        label={t('reports.summary.daysHeading')}
        rows={report.days}
        columns={dayColumns}
        rowId={(row) => `${row.date}-${row.key}`}
        view={daysView}
        empty={<p className="report-hint">{t('reports.noTrips')}</p>}
        testId="summary-days"
      />
      {report.daysTotal > report.days.length && (
        <p className="report-hint" data-testid="summary-days-capped">
          {t('reports.summary.daysCapped', { shown: report.days.length, total: report.daysTotal })}
        </p>
      )}
    </>
  );
}
