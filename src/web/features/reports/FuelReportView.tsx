import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { FuelReport, FuelRow, RefuelEvent } from '../../../modules/reports/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { useTableView } from '../../lib/table-view';
import { ChartFigure } from './charts';
import type { ReportFormats } from './format';
import { keyColumn, NO_VIEW, Tile } from './parts';

type FuelTypeRow = FuelReport['fuelTypes'][number];

/**
 * Fuel (issue point 5): litres or kWh per vehicle or driver, measured from the tracker's fuel level where it reports
 * one, else the unit's consumption × distance; the cost at the account's market fuel price; the fuel per vehicle as a
 * chart; totals per fuel type; and the refuels found from a rise in the reported level.
 */
export function FuelReportView({ report, formats }: { report: FuelReport; formats: ReportFormats }) {
  const { t } = useTranslation();
  const rowsView = useTableView('report-fuel', NO_VIEW);
  const typesView = useTableView('report-fuel-types', NO_VIEW);
  const refuelsView = useTableView('report-fuel-refuels', NO_VIEW);
  const perDriver = report.groupBy === 'driver';
  const fuelName = (fuelType: string | null) => (fuelType ? t(`units.fuelType.${fuelType}`, { defaultValue: fuelType }) : t('reports.fuel.unknownFuel'));
  const quantity = (value: number, unit: string) => `${formats.one(value)} ${unit === 'kWh' ? 'kWh' : 'l'}`;
  const cost = (value: number | null) => (value === null ? '–' : formats.money(value, report.currency));

  const columns: DataColumn<FuelRow>[] = [
    ...keyColumn<FuelRow>(t, perDriver),
    { id: 'fuelType', header: t('reports.col.fuelType'), minRem: 6, sortValue: (row) => row.fuelType ?? '', cell: (row) => fuelName(row.fuelType) },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', minRem: 6, sortValue: (row) => row.distanceKm, cell: (row) => formats.km(row.distanceKm) },
    {
      id: 'quantity',
      header: t('reports.col.quantity'),
      align: 'end',
      canHide: false,
      minRem: 7,
      sortValue: (row) => row.quantity,
      cell: (row) => (
        <>
          <div>{quantity(row.quantity, row.energyUnit)}</div>
          <div className="report-sub">{t(`reports.fuel.source.${row.source}`)}</div>
        </>
      ),
    },
    {
      id: 'consumption',
      header: t('reports.col.consumptionPer10'),
      align: 'end',
      minRem: 7,
      sortValue: (row) => row.consumptionPer10Km ?? -1,
      cell: (row) => (row.consumptionPer10Km === null ? '–' : quantity(row.consumptionPer10Km, row.energyUnit)),
    },
    { id: 'cost', header: t('reports.col.cost'), align: 'end', minRem: 7, sortValue: (row) => row.cost ?? -1, cell: (row) => cost(row.cost) },
    { id: 'refuels', header: t('reports.col.refuels'), align: 'end', minRem: 6, sortValue: (row) => row.refuels, cell: (row) => (row.refuels > 0 ? `${row.refuels} (${quantity(row.refuelledQuantity, row.energyUnit)})` : '0') },
  ];
  const typeColumns: DataColumn<FuelTypeRow>[] = [
    { id: 'fuelType', header: t('reports.col.fuelType'), rowHeader: true, canHide: false, minRem: 7, cell: (row) => fuelName(row.fuelType) },
    { id: 'distance', header: t('reports.col.distance'), align: 'end', minRem: 6, cell: (row) => formats.km(row.distanceKm) },
    { id: 'quantity', header: t('reports.col.quantity'), align: 'end', minRem: 7, cell: (row) => quantity(row.quantity, row.energyUnit) },
    { id: 'cost', header: t('reports.col.cost'), align: 'end', minRem: 7, cell: (row) => cost(row.cost) },
  ];
  const refuelColumns: DataColumn<RefuelEvent>[] = [
    { id: 'time', header: t('reports.col.time'), canHide: false, minRem: 8, sortValue: (row) => row.time, cell: (row) => new Date(row.time).toLocaleString(formats.locale, { timeZone: report.timeZone, dateStyle: 'short', timeStyle: 'short' }) },
    { id: 'vehicle', header: t('reports.col.vehicle'), rowHeader: true, minRem: 8, sortValue: (row) => row.unitName, cell: (row) => row.unitName },
    { id: 'level', header: t('reports.col.level'), align: 'end', minRem: 8, cell: (row) => `${formats.one(row.before)} → ${formats.one(row.after)}` },
    { id: 'added', header: t('reports.col.added'), align: 'end', canHide: false, minRem: 6, sortValue: (row) => row.added, cell: (row) => quantity(row.added, row.energyUnit) },
  ];

  // Fuel per vehicle (or driver): litres and kWh are not added up, so the chart shows the rows' quantities as they are,
  // largest first, and names the unit of each in the table.
  const chart = useMemo(() => {
    const rows = [...report.rows].filter((row) => row.quantity > 0).sort((a, b) => b.quantity - a.quantity);
    return { labels: rows.map((row) => (perDriver && row.key === 0 ? t('reports.noDriver') : row.name)), series: [{ label: t('reports.col.quantity'), values: rows.map((row) => row.quantity) }] };
  }, [report.rows, perDriver, t]);
  const totalCost = report.fuelTypes.reduce<number | null>((sum, row) => (row.cost === null ? sum : (sum ?? 0) + row.cost), null);
  return (
    <>
      <section className="report-totals" aria-label={t('reports.totals')} data-testid="report-totals">
        <div className="report-total-group">
          <Tile main label={t('reports.col.cost')} value={cost(totalCost)} testId="fuel-total-cost" />
          {report.fuelTypes.map((row) => (
            <Tile key={`${row.fuelType}-${row.energyUnit}`} label={fuelName(row.fuelType)} value={quantity(row.quantity, row.energyUnit)} sub={formats.km(row.distanceKm)} />
          ))}
          <Tile label={t('reports.col.refuels')} value={formats.whole(report.refuels.length)} />
        </div>
      </section>

      <ChartFigure
        kind="bars"
        title={perDriver ? t('reports.fuel.chartTitleDriver') : t('reports.fuel.chartTitle')}
        summary={t('reports.fuel.chartSummary', { count: chart.labels.length })}
        labels={chart.labels}
        series={chart.series}
        format={formats.one}
        testId="fuel-chart"
      />

      <h2 className="report-heading">{perDriver ? t('reports.perDriver') : t('reports.perVehicle')}</h2>
      <DataTable
        label={perDriver ? t('reports.perDriver') : t('reports.perVehicle')}
        rows={report.rows}
        columns={columns}
        rowId={(row) => `${row.key}-${row.fuelType}`}
        view={rowsView}
        rowProps={() => ({ 'data-testid': 'fuel-row' })}
        empty={<p className="report-hint">{t('reports.noTrips')}</p>}
        testId="fuel-table"
      />
      <p className="report-hint">{t('reports.fuel.explain')}</p>

      {report.fuelTypes.length > 0 && (
        <>
          <h2 className="report-heading">{t('reports.fuel.typesHeading')}</h2>
          <DataTable label={t('reports.fuel.typesHeading')} rows={report.fuelTypes} columns={typeColumns} rowId={(row) => `${row.fuelType}-${row.energyUnit}`} view={typesView} testId="fuel-types" />
        </>
      )}

      <h2 className="report-heading">{t('reports.fuel.refuelsHeading')}</h2>
      <DataTable
        label={t('reports.fuel.refuelsHeading')}
        rows={report.refuels}
        columns={refuelColumns}
        rowId={(row) => `${row.unitId}-${row.time}`}
        view={refuelsView}
        empty={<p className="report-hint">{t('reports.fuel.noRefuels')}</p>}
        testId="fuel-refuels"
      />
    </>
  );
}
