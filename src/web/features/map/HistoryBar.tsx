import { type ReactNode, useEffect, useId, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { MAP_HISTORY_DAYS } from '../../../modules/tracking/model';
import { errorText } from '../../lib/api';
import { cssColor } from './symbols';
import { type Formatters, historyDays, isoDay } from './format';
import type { HistoryView } from './history';

export const REPLAY_SPEEDS = [10, 60, 300, 900] as const;

export interface HistoryBarProps {
  unitName: string;
  date: string;
  onDate: (date: string) => void;
  view: HistoryView | null;
  loading: boolean;
  error: unknown;
  time: number | null;
  onTime: (t: number) => void;
  playing: boolean;
  onPlaying: (playing: boolean) => void;
  speed: number;
  onSpeed: (speed: number) => void;
  onClose: () => void;
  f: Formatters;
  /** More of the day below the trips (the unit's zone entries and exits). */
  children?: ReactNode;
}

/**
 * Route history of one unit (spec §5: one day within the last 7 days): the day picker, the day's trips
 * with their colours, and the replay with a time slider.
 */
export function HistoryBar(props: HistoryBarProps) {
  const { t } = useTranslation();
  const { view, f } = props;
  const dayId = useId();
  const sliderId = useId();
  const days = useMemo(() => historyDays(new Date(), MAP_HISTORY_DAYS), []);
  const first = view?.positions[0]?.[0] ?? null;
  const last = view?.positions[view.positions.length - 1]?.[0] ?? null;
  const trips = view?.segments.filter((segment) => segment.kind === 'trip') ?? [];

  // Replay: advance the time while playing.
  const playRef = useRef(props);
  playRef.current = props;
  useEffect(() => {
    if (!props.playing || first === null || last === null) return;
    let frame = 0;
    let previous = performance.now();
    const step = (now: number) => {
      const p = playRef.current;
      const next = Math.min(last, (p.time ?? first) + (now - previous) * p.speed);
      previous = now;
      p.onTime(next);
      if (next >= last) p.onPlaying(false);
      else frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [props.playing, first, last]);

  return (
    <section className="history-bar" aria-label={t('map.history.title', { name: props.unitName })} data-testid="history-bar">
      <header className="history-head">
        <h2 className="history-title">{t('map.history.title', { name: props.unitName })}</h2>
        <div className="history-day">
          <label htmlFor={dayId}>{t('map.history.day')}</label>
          <select id={dayId} value={props.date} onChange={(event) => props.onDate(event.target.value)} data-testid="history-day">
            {days.map((day, index) => (
              <option key={isoDay(day)} value={isoDay(day)}>
                {index === 0 ? t('map.history.today') : index === 1 ? t('map.history.yesterday') : f.day(day)}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="icon-button" aria-label={t('map.history.close')} onClick={props.onClose}>
          <span aria-hidden="true">×</span>
        </button>
      </header>
      <div aria-live="polite" className="history-status" data-testid="history-status">
        {props.loading && t('common.loading')}
        {!props.loading && props.error !== null && <span className="error-text">{errorText(props.error)}</span>}
        {!props.loading && props.error === null && view && view.positions.length === 0 && !view.privateHidden && t('map.history.noPositions')}
        {!props.loading && props.error === null && view && (view.positions.length > 0 || !!view.privateHidden) && (
          <span>{t('map.history.summary', { count: trips.length })}</span>
        )}
        {!props.loading && props.error === null && view && !!view.privateHidden && (
          <>
            {' '}
            <span data-testid="history-private">{t('map.history.privateHidden', { count: view.privateHidden })}</span>
          </>
        )}
      </div>
      {trips.length > 0 && (
        <ol className="history-trips" data-testid="history-trips">
          {trips.map((segment) => (
            <li key={segment.key}>
              <button type="button" className="trip-chip" onClick={() => props.onTime(segment.from)}>
                <span className="trip-swatch" style={{ backgroundColor: cssColor(segment.color) }} aria-hidden="true" />
                <span>
                  {f.time(segment.from)}–{f.time(segment.to)}
                  {segment.distanceM !== null && ` · ${f.distance(segment.distanceM)}`}
                </span>
              </button>
            </li>
          ))}
        </ol>
      )}
      {first !== null && last !== null && last > first && (
        <div className="replay">
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() => {
              if (!props.playing && (props.time ?? first) >= last) props.onTime(first);
              props.onPlaying(!props.playing);
            }}
            data-testid="replay-toggle"
          >
            {props.playing ? t('map.history.pause') : t('map.history.play')}
          </button>
          <label htmlFor={sliderId} className="visually-hidden">
            {t('map.history.time')}
          </label>
          <input
            id={sliderId}
            type="range"
            min={first}
            max={last}
            step={1000}
            value={props.time ?? first}
            aria-valuetext={f.timeSeconds(props.time ?? first)}
            onChange={(event) => {
              props.onPlaying(false);
              props.onTime(Number(event.target.value));
            }}
            data-testid="replay-slider"
          />
          <output className="replay-time" htmlFor={sliderId}>
            {f.timeSeconds(props.time ?? first)}
          </output>
          <select aria-label={t('map.history.speed')} value={props.speed} onChange={(event) => props.onSpeed(Number(event.target.value))}>
            {REPLAY_SPEEDS.map((speed) => (
              <option key={speed} value={speed}>
                {speed}×
              </option>
            ))}
          </select>
        </div>
      )}
      {props.children}
    </section>
  );
}
