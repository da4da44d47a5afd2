import type { TFunction } from 'i18next';
import type { ReportRowKey } from '../../../modules/reports/model';
import type { DataColumn } from '../../components/DataTable';
import type { TableView } from '../../lib/table-view';
import type { ReportFormats } from './format';

/** Report tables start in the server's order with every column shown. */
export const NO_VIEW: TableView = { sorting: [], hidden: [] };

/** A total above a report's tables. */
export function Tile({ label, value, sub, main, testId }: { label: string; value: string; sub?: string; main?: boolean; testId?: string }) {
  return (
    <div className={`report-total${main ? ' report-total--main' : ''}`}>
      <span className="report-total-label">{label}</span>
      <span className="report-total-value" data-testid={testId}>
        {value}
      </span>
      {sub && <span className="report-sub">{sub}</span>}
    </div>
  );
}

/** The first column of a per-vehicle or per-driver table: its name (key 0 per driver: trips without a driver) and department. */
export function keyColumn<Row extends ReportRowKey>(t: TFunction, perDriver: boolean): DataColumn<Row>[] {
  return [
    {
      id: 'name',
      header: perDriver ? t('reports.col.driver') : t('reports.col.vehicle'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (row) => row.name,
      searchText: (row) => row.name,
      cell: (row) => (
        <>
          <div>{perDriver && row.key === 0 ? t('reports.noDriver') : row.name}</div>
          {row.department && <div className="report-sub">{row.department.name}</div>}
        </>
      ),
    },
  ];
}

/** A time of day from the server: an ISO time shown in the report's zone, or an HH:MM text as it is. */
export function clockTime(value: string, formats: ReportFormats, timeZone: string): string {
  if (/^\d{2}:\d{2}/.test(value)) return value.slice(0, 5);
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : formats.time(value, timeZone);
}
