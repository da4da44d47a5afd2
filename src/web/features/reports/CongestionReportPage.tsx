import { useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { CongestionPassage, CongestionReport } from '../../../modules/reports/model';
import { ColumnChooser, type DataColumn, DataTable } from '../../components/DataTable';
import { PeriodPicker } from '../../components/PeriodPicker';
import { UnitPicker } from '../../components/UnitPicker';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { TriplogTabs } from '../../components/TriplogTabs';
import { type TableView, useTableView } from '../../lib/table-view';
import { type ReportPeriod, useCongestionReport, useReportUnits } from './api';
import { congestionCsv } from './csv';
import './congestion.css';

const DEFAULT_VIEW: TableView = { sorting: [], hidden: [] };
type DatedPassage = CongestionPassage & { date: string };

/** Above this many days the chart shows only the days with passages. */
const CHART_ALL_DAYS_MAX = 62;

const pad = (n: number) => String(n).padStart(2, '0');
/** Calendar days between two YYYY-MM-DD days, both included. */
function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}
/** First and last day of a month (YYYY-MM). */
function monthBounds(month: string): { from: string; to: string } {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${pad(last)}` };
}

/** Amount per day as plain SVG bars, with the value of each bar in its title. */
function DayChart({ report, money, dayLabel }: { report: CongestionReport; money: (n: number) => string; dayLabel: (date: string) => string }) {
  const { t } = useTranslation();
  const byDate = new Map(report.days.map((day) => [day.date, day.total]));
  const all = daysOf(report.from, report.to);
  const dates = all.length <= CHART_ALL_DAYS_MAX ? all : report.days.map((day) => day.date);
  const max = Math.max(1, ...dates.map((date) => byDate.get(date) ?? 0));
  const width = 720;
  const height = 160;
  const top = 16;
  const bottom = 24;
  const slot = width / Math.max(1, dates.length);
  const barWidth = Math.max(1, Math.min(28, slot * 0.7));
  const labelEvery = Math.max(1, Math.ceil(dates.length / 16));
  return (
    <figure className="congestion-chart">
      <figcaption className="congestion-chart-caption">{t('congestion.chartTitle')}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={t('congestion.chartLabel', { total: money(report.total) })} data-testid="congestion-chart">
        <line x1={0} x2={width} y1={height - bottom} y2={height - bottom} className="congestion-chart-axis" />
        {dates.map((date, i) => {
          const amount = byDate.get(date) ?? 0;
          const barHeight = ((height - top - bottom) * amount) / max;
          const x = i * slot + (slot - barWidth) / 2;
          return (
            <g key={date}>
              {amount > 0 && (
                <rect x={x} y={height - bottom - barHeight} width={barWidth} height={barHeight} className="congestion-chart-bar" data-testid={`congestion-bar-${date}`}>
                  <title>{`${dayLabel(date)}: ${money(amount)}`}</title>
                </rect>
              )}
              {i % labelEvery === 0 && (
                <text x={i * slot + slot / 2} y={height - 6} textAnchor="middle" className="congestion-chart-label">
                  {Number(date.slice(8, 10))}
                </text>
              )}
            </g>
          );
        })}
        <text x={2} y={12} className="congestion-chart-label">
          {money(max)}
        </text>
      </svg>
    </figure>
  );
}

/** Spec §1/§2 /user/create-triplog/congestionreportnew: a unit's congestion tax per passage and day, with totals. */
export function CongestionReportPage() {
  const { t, i18n } = useTranslation();
  const units = useReportUnits();
  const [unitId, setUnitId] = useState<number | null>(null);
  const [from, setFrom] = useState<string | undefined>();
  const [to, setTo] = useState<string | undefined>();

  useEffect(() => {
    if (unitId === null && units.data?.[0]) setUnitId(units.data[0].ID);
  }, [units.data, unitId]);

  const rangeError = from && to && to < from ? t('congestion.rangeOrder') : null;
  const period: ReportPeriod | null = unitId === null || rangeError ? null : { unitId, from, to };
  const query = useCongestionReport(period);
  const report = query.data;
  // This month by default: the server answers the period it read; the pickers show it.
  useEffect(() => {
    if (!report || from !== undefined) return;
    setFrom(report.from);
    setTo(report.to);
  }, [report, from]);

  const locale = localeTag(i18n.language);
  const money = (amount: number) => `${amount.toLocaleString(locale)} kr`;
  const dayLabel = (date: string) =>
    new Date(`${date}T12:00:00Z`).toLocaleDateString(locale, { timeZone: 'UTC', weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit' });
  const month = from && to && from.endsWith('-01') && monthBounds(from.slice(0, 7)).to === to ? from.slice(0, 7) : '';
  const unitName = units.data?.find((unit) => unit.ID === unitId)?.Name ?? '';
  const reasonText = (reason: string | null) => (reason ? t(`congestion.reason.${reason}`) : '');
  const tripText = (type: string | null) => (type ? t(`congestion.tripType.${type}`) : t('congestion.noTrip'));
  const cityText = (city: string) => t(`congestion.city.${city}`);

  const loadError = period && query.isError ? errorText(query.error) : null;
  const view = useTableView('congestion', DEFAULT_VIEW);
  const [choosingColumns, setChoosingColumns] = useState(false);
  const passages = useMemo(() => (report?.days ?? []).flatMap((day) => day.passages.map((passage) => ({ ...passage, date: day.date }))), [report]);
  // Passages stay in the order they were driven, under their day; columns may be hidden per user.
  const columns: DataColumn<DatedPassage>[] = [
    { id: 'time', header: t('congestion.time'), canHide: false, minRem: 5, cell: (p) => p.localTime },
    {
      id: 'station',
      header: t('congestion.station'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      cell: (p) => (
        <>
          <div>{p.station}</div>
          <div className="congestion-sub">
            {cityText(p.city)}
            {p.zone === 'essingeleden' ? ` · ${t('congestion.essingeleden')}` : ''}
          </div>
        </>
      ),
    },
    { id: 'trip', header: t('congestion.trip'), minRem: 7, cell: (p) => (p.private ? <span className="congestion-badge">{tripText(p.tripType)}</span> : tripText(p.tripType)) },
    { id: 'tariff', header: t('congestion.tariff'), align: 'end', minRem: 5, cell: (p) => money(p.tariff) },
    { id: 'amount', header: t('congestion.amount'), align: 'end', canHide: false, minRem: 5, cell: (p) => money(p.amount) },
    { id: 'note', header: t('congestion.note'), minRem: 10, cell: (p) => <span className="congestion-sub">{reasonText(p.reason)}</span> },
  ];

  function download() {
    if (!report) return;
    const csv = congestionCsv(report, {
      headers: [t('congestion.date'), t('congestion.time'), t('congestion.cityColumn'), t('congestion.station'), t('congestion.trip'), t('congestion.tariff'), t('congestion.amount'), t('congestion.note')],
      city: cityText,
      tripType: tripText,
      reason: reasonText,
      dayTotal: t('congestion.dayTotal'),
      periodTotal: t('congestion.periodTotal'),
    });
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `${t('congestion.fileName')}-${(unitName || String(unitId)).replace(/[^\p{L}\p{N}_-]+/gu, '_')}-${report.from}-${report.to}.csv`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  const anyCapped = report?.days.some((day) => day.cities.some((c) => c.capped)) ?? false;

  return (
    <div className="page congestion-page">
      <h1 className="page-title">{t('congestion.title')}</h1>

      <TriplogTabs />

      <div className="congestion-filters">
        <UnitPicker
          label={t('congestion.unit')}
          units={units.data ?? []}
          selectionMode="single"
          selected={unitId === null ? [] : [unitId]}
          onChange={([id]) => id !== undefined && setUnitId(id)}
          testId="congestion-unit"
        />
        <div className="field">
          <label className="field-label" htmlFor="congestion-month">
            {t('congestion.month')}
          </label>
          <input
            id="congestion-month"
            className="field-input"
            type="month"
            value={month}
            onChange={(event) => {
              if (!event.target.value) return;
              const bounds = monthBounds(event.target.value);
              setFrom(bounds.from);
              setTo(bounds.to);
            }}
          />
        </div>
        <PeriodPicker
          from={from}
          to={to}
          fromLabel={t('congestion.from')}
          toLabel={t('congestion.to')}
          idPrefix="congestion"
          invalid={rangeError !== null}
          onChange={(period) => {
            // A day field being cleared keeps the day it had, as the report always has a period.
            if (period.from) setFrom(period.from);
            if (period.to) setTo(period.to);
          }}
        />
        <Button className="btn btn-secondary" onPress={() => setChoosingColumns(true)} isDisabled={!view.ready} data-testid="congestion-columns">
          {t('table.columns')}
        </Button>
        <Button className="btn btn-secondary" isDisabled={!report || report.days.length === 0} onPress={download} data-testid="congestion-csv">
          {t('congestion.downloadCsv')}
        </Button>
      </div>

      <p className="congestion-hint">{t('congestion.hint')}</p>

      {units.data && units.data.length === 0 && <p className="congestion-empty">{t('congestion.noUnits')}</p>}
      {(rangeError || loadError) && (
        <p className="field-error" role="alert">
          {rangeError ?? loadError}
        </p>
      )}
      {query.isPending && period && <p aria-live="polite">{t('common.loading')}</p>}

      {report && !rangeError && (
        <>
          <section className="congestion-totals" aria-label={t('congestion.totals')} data-testid="congestion-totals">
            <div className="congestion-total congestion-total--main">
              <span className="congestion-total-label">{t('congestion.periodTotal')}</span>
              <span className="congestion-total-value" data-testid="congestion-total">
                {money(report.total)}
              </span>
              <span>{t('congestion.passageCount', { count: report.passageCount })}</span>
            </div>
            {(['business', 'private', 'other', 'none'] as const).map((type) =>
              type === 'none' && report.totals.none === 0 ? null : (
                <div key={type} className="congestion-total" data-testid={`congestion-total-${type}`}>
                  <span className="congestion-total-label">{tripText(type === 'none' ? null : type)}</span>
                  <span className="congestion-total-value">{money(report.totals[type])}</span>
                </div>
              ),
            )}
          </section>

          {report.days.length === 0 ? (
            <div className="congestion-empty" data-testid="congestion-no-data">
              <p>{t('congestion.noData')}</p>
              <p className="congestion-hint">{t('congestion.noDataHint')}</p>
            </div>
          ) : (
            <>
              <DayChart report={report} money={money} dayLabel={dayLabel} />
              {anyCapped && <p className="congestion-hint">{t('congestion.capNote')}</p>}
              <DataTable
                label={t('congestion.tableCaption', { unit: unitName, from: report.from, to: report.to })}
                rows={passages}
                columns={columns}
                rowId={(passage) => `${passage.date}-${passage.time}-${passage.station}`}
                view={view}
                groups={{
                  key: (passage) => passage.date,
                  header: (date) => {
                    const day = report.days.find((candidate) => candidate.date === date)!;
                    return (
                      <>
                        <span>{dayLabel(date)}</span>
                        <span>
                          {day.cities.some((c) => c.capped) && (
                            <span className="congestion-sub">{t('congestion.dayCapped', { cap: money(Math.max(...day.cities.map((c) => c.cap))) })} · </span>
                          )}
                          <span data-testid={`congestion-day-total-${date}`}>{money(day.total)}</span>
                        </span>
                      </>
                    );
                  },
                }}
                rowProps={(passage) => ({ 'data-testid': 'congestion-passage', className: passage.private ? 'congestion-private' : undefined })}
                footer={
                  <>
                    <span>{t('congestion.periodTotal')}</span>
                    <span data-testid="congestion-table-total">{money(report.total)}</span>
                  </>
                }
                testId="congestion-table"
                className="congestion-table"
              />
            </>
          )}
          <p className="congestion-source">{t('congestion.source')}</p>
        </>
      )}
      <ColumnChooser columns={columns} view={view} isOpen={choosingColumns} onClose={() => setChoosingColumns(false)} title={t('table.columns')} />
    </div>
  );
}
