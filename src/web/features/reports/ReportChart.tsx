import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * A report's chart drawn by uPlot on a canvas. This file is loaded only when a report screen shows a chart
 * (`React.lazy` in `charts.tsx`), so uPlot never weighs on the login page or the map.
 *
 * `labels` name the x positions (days, weeks, vehicles); each series has one value per label (null: no value).
 * Bars for amounts per thing or day (one series), a line for a trend (one or more). The canvas is decorative for assistive technology: the
 * figure carries a summary as its name and the report's table below holds every value.
 */
export interface ChartSeries {
  label: string;
  values: ReadonlyArray<number | null>;
}

export interface ReportChartProps {
  kind: 'bars' | 'line';
  labels: readonly string[];
  series: readonly ChartSeries[];
  /** Formats a value on the y axis and in the legend. */
  format: (value: number) => string;
  height?: number;
  testId?: string;
}

const COLOURS = ['#1f6fb2', '#d9822b', '#2e8b57', '#8e44ad', '#c0392b'];

function cssVar(name: string, fallback: string): string {
  if (typeof window === 'undefined') return fallback;
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

export default function ReportChart({ kind, labels, series, format, height = 220, testId }: ReportChartProps) {
  const box = useRef<HTMLDivElement | null>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const text = cssVar('--text', '#1b1f24');
    const grid = cssVar('--border', '#d0d7de');
    const primary = cssVar('--brand-primary', COLOURS[0]!);
    const xs = labels.map((_, i) => i);
    const bars = uPlot.paths.bars?.({ size: [0.7, 48], align: 0 });
    const many = series.length > 1;
    const options: uPlot.Options = {
      width: Math.max(240, element.clientWidth),
      height,
      legend: { show: many },
      cursor: { drag: { x: false, y: false }, points: { show: kind === 'line' } },
      scales: {
        x: { time: false, range: () => [-0.6, Math.max(0, labels.length - 1) + 0.6] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        {
          stroke: text,
          grid: { show: false },
          ticks: { stroke: grid },
          splits: () => {
            const every = Math.max(1, Math.ceil(labels.length / Math.max(2, Math.floor(element.clientWidth / 64))));
            return xs.filter((x) => x % every === 0);
          },
          values: (_u, splits) => splits.map((x) => labels[x] ?? ''),
        },
        { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 64, values: (_u, splits) => splits.map((v) => format(v)) },
      ],
      series: [
        { label: '' },
        ...series.map((s, index) => {
          const colour = index === 0 ? primary : (COLOURS[index % COLOURS.length] as string);
          return kind === 'bars'
            ? { label: s.label, stroke: colour, fill: colour, width: 0, paths: bars, points: { show: false }, value: (_u: uPlot, v: number | null) => (v === null ? '–' : format(v)) }
            : { label: s.label, stroke: colour, width: 2, spanGaps: true, points: { show: labels.length <= 60, size: 6 }, value: (_u: uPlot, v: number | null) => (v === null ? '–' : format(v)) };
        }),
      ],
    };
    const data = [xs, ...series.map((s) => [...s.values])] as uPlot.AlignedData;
    const chart = new uPlot(options, data, element);
    plot.current = chart;
    const resize = new ResizeObserver(() => {
      const width = Math.max(240, element.clientWidth);
      if (width !== chart.width) chart.setSize({ width, height });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [kind, labels, series, format, height]);

  return <div ref={box} className="report-chart-canvas" data-testid={testId} data-points={labels.length} />;
}
