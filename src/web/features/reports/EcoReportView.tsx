import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { EcoReport, EcoRow, EcoTrip } from '../../../modules/reports/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { useTableView } from '../../lib/table-view';
import { ChartFigure } from './charts';
import type { ReportFormats } from './format';
import { keyColumn, NO_VIEW, Tile } from './parts';

/**
 * Eco driving (issue point 4): the ranking (best score first) with what each score is made of, the weekly trend as a
 * chart, and the trips with their scores. The thresholds follow each unit's feature profile sensitivity.
 */
export function EcoReportView({ report, formats }: { report: EcoReport; formats: ReportFormats }) {
  const { t } = useTranslation();
  const rankingView = useTableView('report-eco', NO_VIEW);
  const tripsView = useTableView('report-eco-trips', NO_VIEW);
  const perDriver = report.groupBy === 'driver';
  const per100 = (value: number) => formats.one(value);

  const columns: DataColumn<EcoRow>[] = [
    { id: 'rank', header: t('reports.col.rank'), align: 'end', canHide: false, minRem: 4, sortValue: (row) => row.rank, cell: (row) => formats.whole(row.rank) },
    ...keyColumn<EcoRow>(t, perDriver),
    { id: 'score', header: t('reports.col.score'), align: 'end', canHide: false, minRem: 5, sortValue: (row) => row.score, cell: (row) => <strong>{formats.whole(row.score)}</strong> },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', minRem: 6, sortValue: (row) => row.distanceKm, cell: (row) => formats.km(row.distanceKm) },
    { id: 'acceleration', header: t('reports.col.accelerationPer100'), align: 'end', minRem: 7, sortValue: (row) => row.accelerationPer100Km, cell: (row) => per100(row.accelerationPer100Km) },
    { id: 'braking', header: t('reports.col.brakingPer100'), align: 'end', minRem: 7, sortValue: (row) => row.brakingPer100Km, cell: (row) => per100(row.brakingPer100Km) },
    { id: 'cornering', header: t('reports.col.corneringPer100'), align: 'end', minRem: 7, sortValue: (row) => row.corneringPer100Km, cell: (row) => per100(row.corneringPer100Km) },
    {
      id: 'overspeed',
      header: t('reports.col.overspeedShare'),
      align: 'end',
      minRem: 7,
      sortValue: (row) => row.overspeedShare,
      cell: (row) => (
        <>
          <div>{formats.percent(row.overspeedShare)}</div>
          <div className="report-sub">{t('reports.eco.over', { speed: formats.whole(row.overspeedKmh) })}</div>
        </>
      ),
    },
    { id: 'idle', header: t('reports.col.idleShare'), align: 'end', minRem: 6, sortValue: (row) => row.idleShare, cell: (row) => formats.percent(row.idleShare) },
    { id: 'sensitivity', header: t('reports.col.sensitivity'), minRem: 7, cell: (row) => t(`reports.eco.sensitivity.${row.sensitivity}`) },
  ];
  const tripColumns: DataColumn<EcoTrip>[] = [
    { id: 'start', header: t('reports.col.start'), canHide: false, minRem: 8, sortValue: (row) => row.startTime, cell: (row) => new Date(row.startTime).toLocaleString(formats.locale, { timeZone: report.timeZone, dateStyle: 'short', timeStyle: 'short' }) },
    { id: 'vehicle', header: t('reports.col.vehicle'), rowHeader: true, minRem: 8, sortValue: (row) => row.unitName, searchText: (row) => row.unitName, cell: (row) => row.unitName },
    { id: 'driver', header: t('reports.col.driver'), minRem: 8, sortValue: (row) => row.driverName ?? '', cell: (row) => row.driverName ?? t('reports.noDriver') },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', minRem: 6, sortValue: (row) => row.distanceKm, cell: (row) => formats.kmPrecise(row.distanceKm) },
    { id: 'events', header: t('reports.col.harshEvents'), align: 'end', minRem: 7, sortValue: (row) => row.harshAcceleration + row.harshBraking + row.harshCornering, cell: (row) => `${row.harshAcceleration} / ${row.harshBraking} / ${row.harshCornering}` },
    { id: 'score', header: t('reports.col.score'), align: 'end', canHide: false, minRem: 5, sortValue: (row) => row.score, cell: (row) => formats.whole(row.score) },
  ];

  const chart = useMemo(
    () => ({
      labels: report.trend.map((week) => t('reports.eco.week', { date: formats.day(week.week) })),
      series: [{ label: t('reports.col.score'), values: report.trend.map((week) => (week.trips > 0 ? week.score : null)) }],
    }),
    [report.trend, formats, t],
  );
  const best = report.rows[0];
  return (
    <>
      <section className="report-totals" aria-label={t('reports.totals')} data-testid="report-totals">
        <div className="report-total-group">
          <Tile main label={t('reports.eco.fleetScore')} value={formats.whole(report.fleet.score)} testId="eco-fleet-score" />
          <Tile label={t('reports.col.distance')} value={formats.km(report.fleet.distanceKm)} />
          <Tile label={t('reports.col.harshEvents')} value={formats.whole(report.fleet.harshAcceleration + report.fleet.harshBraking + report.fleet.harshCornering)} />
          {best && <Tile label={t('reports.eco.best')} value={perDriver && best.key === 0 ? t('reports.noDriver') : best.name} sub={formats.whole(best.score)} />}
        </div>
      </section>

      <ChartFigure
        kind="line"
        title={t('reports.eco.chartTitle')}
        summary={t('reports.eco.chartSummary', { score: formats.whole(report.fleet.score), weeks: report.trend.length })}
        labels={chart.labels}
        series={chart.series}
        format={formats.whole}
        testId="eco-chart"
      />

      <h2 className="report-heading">{t('reports.eco.rankingHeading')}</h2>
      <DataTable
        label={t('reports.eco.rankingHeading')}
        rows={report.rows}
        columns={columns}
        rowId={(row) => String(row.key)}
        view={rankingView}
        rowProps={() => ({ 'data-testid': 'eco-row' })}
        empty={<p className="report-hint">{t('reports.noTrips')}</p>}
        testId="eco-ranking"
      />
      <p className="report-hint">{t('reports.eco.explain')}</p>

      <h2 className="report-heading">{t('reports.eco.tripsHeading')}</h2>
      {report.tripsTruncated && <p className="report-hint">{t('reports.eco.tripsTruncated', { count: report.trips.length })}</p>}
      <DataTable label={t('reports.eco.tripsHeading')} rows={report.trips} columns={tripColumns} rowId={(row) => String(row.tripId)} view={tripsView} empty={<p className="report-hint">{t('reports.noTrips')}</p>} testId="eco-trips" />
    </>
  );
}
