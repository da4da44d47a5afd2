import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { Co2Factor, Co2Report, Co2Row, EnvironmentGroup, EnvironmentReport } from '../../../modules/reports/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { useTableView } from '../../lib/table-view';
import { ChartFigure } from './charts';
import type { ReportFormats } from './format';
import { keyColumn, NO_VIEW, Tile } from './parts';

type DepartmentRow = Co2Report['departments'][number];

function useFuelName() {
  const { t } = useTranslation();
  return (fuelType: string | null) => (fuelType ? t(`units.fuelType.${fuelType}`, { defaultValue: fuelType }) : t('reports.fuel.unknownFuel'));
}

/** The emission factors a report used, with their basis (tank-to-wheel fossil or blend, well-to-wheel) and source. */
function Factors({ factors, formats }: { factors: readonly Co2Factor[]; formats: ReportFormats }) {
  const { t } = useTranslation();
  const fuelName = useFuelName();
  if (factors.length === 0) return null;
  return (
    <details className="report-parameters" data-testid="co2-factors">
      <summary>{t('reports.co2.factors', { count: factors.length })}</summary>
      <ul>
        {factors.map((f) => (
          <li key={`${f.fuelType}-${f.country}-${f.year}-${f.basis}`}>
            {fuelName(f.fuelType)}, {f.country} {f.year}: {formats.one(f.kgPerUnit * 1000)} g CO₂/{f.energyUnit === 'kWh' ? 'kWh' : 'l'} · {t(`reports.co2.basis.${f.basis}`)}
            <span className="report-sub"> ({f.source})</span>
            {f.verified === false && <span className="report-badge"> · {t('reports.co2.factorUnverified')}</span>}
          </li>
        ))}
      </ul>
    </details>
  );
}

const kg = (formats: ReportFormats, value: number) => (Math.abs(value) >= 10_000 ? `${formats.one(value / 1000)} t` : `${formats.whole(value)} kg`);

/** CO2 (issue point 6): per vehicle or driver from the unit's g/km, else fuel × a stated factor; per department and month. */
export function Co2ReportView({ report, formats }: { report: Co2Report; formats: ReportFormats }) {
  const { t } = useTranslation();
  const fuelName = useFuelName();
  const rowsView = useTableView('report-co2', NO_VIEW);
  const departmentsView = useTableView('report-co2-departments', NO_VIEW);
  const perDriver = report.groupBy === 'driver';
  const columns: DataColumn<Co2Row>[] = [
    ...keyColumn<Co2Row>(t, perDriver),
    { id: 'fuelType', header: t('reports.col.fuelType'), minRem: 6, sortValue: (row) => row.fuelType ?? '', cell: (row) => fuelName(row.fuelType) },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', minRem: 6, sortValue: (row) => row.distanceKm, cell: (row) => formats.km(row.distanceKm) },
    {
      id: 'method',
      header: t('reports.col.method'),
      minRem: 9,
      cell: (row) =>
        row.method === 'gPerKm' && row.gPerKm !== null
          ? t('reports.co2.method.gPerKm', { value: formats.whole(row.gPerKm) })
          : row.method === 'fuelFactor' && row.factor
            ? t('reports.co2.method.fuelFactor', { basis: t(`reports.co2.basis.${row.factor.basis}`) })
            : t('reports.co2.method.none'),
    },
    { id: 'co2', header: t('reports.col.co2'), align: 'end', canHide: false, minRem: 7, sortValue: (row) => row.co2Kg, cell: (row) => kg(formats, row.co2Kg) },
  ];
  const departmentColumns: DataColumn<DepartmentRow>[] = [
    { id: 'department', header: t('reports.col.department'), rowHeader: true, canHide: false, minRem: 9, sortValue: (row) => row.name, cell: (row) => (row.id === null ? t('reports.noDepartment') : row.name) },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', minRem: 6, sortValue: (row) => row.distanceKm, cell: (row) => formats.km(row.distanceKm) },
    { id: 'co2', header: t('reports.col.co2'), align: 'end', canHide: false, minRem: 7, sortValue: (row) => row.co2Kg, cell: (row) => kg(formats, row.co2Kg) },
  ];
  const chart = useMemo(
    () => ({ labels: report.months.map((m) => formats.month(m.month)), series: [{ label: t('reports.col.co2'), values: report.months.map((m) => m.co2Kg) }] }),
    [report.months, formats, t],
  );
  const formatKg = useMemo(() => (value: number) => kg(formats, value), [formats]);
  const unknown = report.rows.filter((row) => row.method === 'none' && row.distanceKm > 0).length;
  return (
    <>
      <section className="report-totals" aria-label={t('reports.totals')} data-testid="report-totals">
        <div className="report-total-group">
          <Tile main label={t('reports.co2.total')} value={kg(formats, report.totalKg)} testId="co2-total" />
          <Tile label={t('reports.col.distance')} value={formats.km(report.rows.reduce((sum, row) => sum + row.distanceKm, 0))} />
        </div>
      </section>
      {unknown > 0 && <p className="report-hint">{t('reports.co2.unknown', { count: unknown })}</p>}

      <ChartFigure kind="bars" title={t('reports.co2.chartTitle')} summary={t('reports.co2.chartSummary', { total: kg(formats, report.totalKg) })} labels={chart.labels} series={chart.series} format={formatKg} testId="co2-chart" />

      <h2 className="report-heading">{perDriver ? t('reports.perDriver') : t('reports.perVehicle')}</h2>
      <DataTable
        label={perDriver ? t('reports.perDriver') : t('reports.perVehicle')}
        rows={report.rows}
        columns={columns}
        rowId={(row) => `${row.key}-${row.fuelType}`}
        view={rowsView}
        rowProps={() => ({ 'data-testid': 'co2-row' })}
        empty={<p className="report-hint">{t('reports.noTrips')}</p>}
        testId="co2-table"
      />
      {report.departments.length > 0 && (
        <>
          <h2 className="report-heading">{t('reports.summary.departmentsHeading')}</h2>
          <DataTable label={t('reports.summary.departmentsHeading')} rows={report.departments} columns={departmentColumns} rowId={(row) => String(row.id ?? 'none')} view={departmentsView} testId="co2-departments" />
        </>
      )}
      <Factors factors={report.factors} formats={formats} />
    </>
  );
}

/**
 * The environmental report (issue point 7): the company's year in distance and energy per fuel type and vehicle class,
 * CO2, the electric share of distance, against the same days a year earlier.
 */
export function EnvironmentReportView({ report, formats }: { report: EnvironmentReport; formats: ReportFormats }) {
  const { t } = useTranslation();
  const fuelName = useFuelName();
  const groupsView = useTableView('report-environment', NO_VIEW);
  const { current, previous, change } = report;
  const signed = (text: string, value: number) => (value > 0 ? `+${text}` : text);
  const columns: DataColumn<EnvironmentGroup>[] = [
    {
      id: 'group',
      header: t('reports.col.fuelAndClass'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      cell: (row) => (
        <>
          <div>{fuelName(row.fuelType)}</div>
          <div className="report-sub">{t(`units.vehicleType.${row.vehicleType}`, { defaultValue: row.vehicleType })}</div>
        </>
      ),
    },
    { id: 'vehicles', header: t('reports.col.vehicles'), align: 'end', minRem: 5, sortValue: (row) => row.vehicles, cell: (row) => formats.whole(row.vehicles) },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', minRem: 6, sortValue: (row) => row.distanceKm, cell: (row) => formats.km(row.distanceKm) },
    { id: 'energy', header: t('reports.col.energy'), align: 'end', minRem: 7, sortValue: (row) => row.energy, cell: (row) => `${formats.one(row.energy)} ${row.energyUnit === 'kWh' ? 'kWh' : 'l'}` },
    { id: 'co2', header: t('reports.col.co2'), align: 'end', canHide: false, minRem: 7, sortValue: (row) => row.co2Kg, cell: (row) => kg(formats, row.co2Kg) },
  ];
  const chart = useMemo(
    () => ({
      labels: [`${previous.from} – ${previous.to}`, `${current.from} – ${current.to}`],
      series: [{ label: t('reports.col.co2'), values: [previous.co2Kg, current.co2Kg] }],
    }),
    [previous, current, t],
  );
  const formatKg = useMemo(() => (value: number) => kg(formats, value), [formats]);
  return (
    <>
      <section className="report-totals" aria-label={t('reports.totals')} data-testid="report-totals">
        <div className="report-total-group">
          <Tile main label={t('reports.co2.total')} value={kg(formats, current.co2Kg)} sub={t('reports.environment.change', { change: signed(kg(formats, change.co2Kg), change.co2Kg) })} testId="environment-co2" />
          <Tile label={t('reports.col.distance')} value={formats.km(current.distanceKm)} sub={t('reports.environment.change', { change: signed(formats.km(change.distanceKm), change.distanceKm) })} />
          <Tile
            label={t('reports.environment.electricShare')}
            value={formats.percent(current.electricShare)}
            sub={t('reports.environment.changePoints', { change: signed(formats.one(change.electricShare * 100), change.electricShare) })}
            testId="environment-electric"
          />
        </div>
      </section>

      <ChartFigure
        kind="bars"
        title={t('reports.environment.chartTitle')}
        summary={t('reports.environment.chartSummary', { previous: kg(formats, previous.co2Kg), current: kg(formats, current.co2Kg) })}
        labels={chart.labels}
        series={chart.series}
        format={formatKg}
        testId="environment-chart"
      />

      <h2 className="report-heading">{t('reports.environment.currentHeading', { from: current.from, to: current.to })}</h2>
      <DataTable label={t('reports.environment.currentHeading', { from: current.from, to: current.to })} rows={current.groups} columns={columns} rowId={(row) => `${row.fuelType}-${row.vehicleType}`} view={groupsView} empty={<p className="report-hint">{t('reports.noTrips')}</p>} testId="environment-current" />
      <h2 className="report-heading">{t('reports.environment.previousHeading', { from: previous.from, to: previous.to })}</h2>
      <DataTable label={t('reports.environment.previousHeading', { from: previous.from, to: previous.to })} rows={previous.groups} columns={columns} rowId={(row) => `${row.fuelType}-${row.vehicleType}`} view={groupsView} empty={<p className="report-hint">{t('reports.noTrips')}</p>} testId="environment-previous" />
      <Factors factors={report.factors} formats={formats} />
    </>
  );
}
