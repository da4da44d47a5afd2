import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { ReportChartProps } from './ReportChart';

/** uPlot and its chart come in a chunk of their own, fetched the first time a report shows a chart. */
const ReportChart = lazy(() => import('./ReportChart'));

/**
 * A chart with its caption. The figure's accessible name is `summary` (what the chart shows, in words: the
 * values are in the table beside it), so the canvas itself is hidden from assistive technology.
 */
export function ChartFigure({ title, summary, testId, ...chart }: ReportChartProps & { title: string; summary: string }) {
  const { t } = useTranslation();
  const empty = chart.labels.length === 0 || chart.series.every((s) => s.values.every((v) => v === null || v === 0));
  return (
    <figure className="report-chart" aria-label={`${title}: ${summary}`} data-testid={testId}>
      <figcaption className="report-chart-caption">{title}</figcaption>
      {empty ? (
        <p className="report-hint">{t('reports.chartEmpty')}</p>
      ) : (
        <div aria-hidden="true">
          <Suspense fallback={<div className="report-chart-canvas report-chart-loading">{t('common.loading')}</div>}>
            <ReportChart {...chart} testId={testId ? `${testId}-canvas` : undefined} />
          </Suspense>
        </div>
      )}
    </figure>
  );
}
