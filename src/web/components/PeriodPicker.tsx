import { type CalendarDate, endOfMonth, getLocalTimeZone, parseDate, startOfMonth, startOfYear, today } from '@internationalized/date';
import { useContext, useEffect, useId, useState } from 'react';
import {
  Button,
  CalendarCell,
  CalendarGrid,
  Dialog,
  DialogTrigger,
  Heading,
  I18nProvider,
  Popover,
  RangeCalendar,
  RangeCalendarStateContext,
} from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { localeTag } from '../lib/i18n';
import './period-picker.css';

/** Spec §5: a period is at most 12 months (1 March to the last day of February next year is the longest). */
export const PERIOD_MAX_MONTHS = 12;

export interface PeriodPickerProps {
  from: string | undefined;
  to: string | undefined;
  /** Days as YYYY-MM-DD, both included; a day field being typed may be empty. */
  onChange: (period: { from: string; to: string }) => void;
  /** Labels of the two day fields (the screen's own words, "From" and "To" by default). */
  fromLabel?: string;
  toLabel?: string;
  /** Shown under the fields and tied to them (a range the screen refuses). */
  errorId?: string;
  invalid?: boolean;
  idPrefix?: string;
}

const parse = (day: string | undefined): CalendarDate | null => {
  if (!day) return null;
  try {
    return parseDate(day);
  } catch {
    return null;
  }
};

/** The last day a period that starts (or ends) on `anchor` may reach in the other direction. */
function limitsAround(anchor: CalendarDate): { earliest: CalendarDate; latest: CalendarDate } {
  return { earliest: anchor.subtract({ months: PERIOD_MAX_MONTHS }).add({ days: 1 }), latest: anchor.add({ months: PERIOD_MAX_MONTHS }).subtract({ days: 1 }) };
}

/** Reads the day the user pressed first while choosing a range, so the calendar can close off days beyond the limit. */
function AnchorWatcher({ onAnchor }: { onAnchor: (anchor: CalendarDate | null) => void }) {
  const state = useContext(RangeCalendarStateContext);
  const anchor = (state?.anchorDate ?? null) as CalendarDate | null;
  const key = anchor?.toString() ?? '';
  // biome-ignore lint/correctness/useExhaustiveDependencies: the day's text stands for the day
  useEffect(() => onAnchor(anchor), [key, onAnchor]);
  return null;
}

/**
 * A period of days: two day fields for typing, and a calendar (react-aria, in the app's language: sv, nb or en, weeks
 * from Monday) with quick choices. Once the first day is pressed, days more than 12 months away cannot be pressed.
 */
export function PeriodPicker({ from, to, onChange, fromLabel, toLabel, errorId, invalid, idPrefix }: PeriodPickerProps) {
  const { t, i18n } = useTranslation();
  const generated = useId();
  const prefix = idPrefix ?? generated;
  const [anchor, setAnchor] = useState<CalendarDate | null>(null);
  const [open, setOpen] = useState(false);
  const start = parse(from);
  const end = parse(to);
  const value = start && end && end.compare(start) >= 0 ? { start, end } : null;
  const limits = anchor ? limitsAround(anchor) : null;
  const now = today(getLocalTimeZone());
  const choose = (period: { start: CalendarDate; end: CalendarDate }) => {
    onChange({ from: period.start.toString(), to: period.end.toString() });
    setOpen(false);
  };
  const presets: Array<{ id: string; period: { start: CalendarDate; end: CalendarDate } }> = [
    { id: 'thisMonth', period: { start: startOfMonth(now), end: endOfMonth(now) } },
    { id: 'lastMonth', period: { start: startOfMonth(now.subtract({ months: 1 })), end: endOfMonth(now.subtract({ months: 1 })) } },
    { id: 'last30', period: { start: now.subtract({ days: 29 }), end: now } },
    { id: 'thisYear', period: { start: startOfYear(now), end: now } },
    { id: 'last12', period: { start: now.subtract({ months: PERIOD_MAX_MONTHS }).add({ days: 1 }), end: now } },
  ];

  const dayField = (which: 'from' | 'to', label: string, day: string | undefined) => (
    <div className="field period-field">
      <label className="field-label" htmlFor={`${prefix}-${which}`}>
        {label}
      </label>
      <input
        id={`${prefix}-${which}`}
        className="field-input"
        type="date"
        value={day ?? ''}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={invalid ? errorId : undefined}
        onChange={(event) => onChange(which === 'from' ? { from: event.target.value, to: to ?? '' } : { from: from ?? '', to: event.target.value })}
      />
    </div>
  );

  return (
    <div className="period-picker" data-testid="period-picker">
      {dayField('from', fromLabel ?? t('period.from'), from)}
      {dayField('to', toLabel ?? t('period.to'), to)}
      <DialogTrigger isOpen={open} onOpenChange={setOpen}>
        <Button className="btn btn-secondary period-open" aria-label={t('period.openCalendar')} data-testid="period-open">
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
            <path d="M7 2v2H4v18h16V4h-3V2h-2v2H9V2H7zm-1 8h12v10H6V10z" fill="currentColor" />
          </svg>
        </Button>
        <Popover className="period-popover" placement="bottom end">
          <Dialog className="period-dialog" aria-label={t('period.calendar')}>
            <I18nProvider locale={localeTag(i18n.language)}>
              <div className="period-dialog-body">
                <RangeCalendar
                  className="period-calendar"
                  value={value}
                  onChange={(range) => {
                    setAnchor(null);
                    choose({ start: range.start as CalendarDate, end: range.end as CalendarDate });
                  }}
                  firstDayOfWeek="mon"
                  isDateUnavailable={(date) => limits !== null && (date.compare(limits.earliest) < 0 || date.compare(limits.latest) > 0)}
                  data-testid="period-calendar"
                >
                  <AnchorWatcher onAnchor={setAnchor} />
                  <header className="period-calendar-header">
                    <Button slot="previous" className="icon-button" aria-label={t('period.previous')}>
                      <span aria-hidden="true">‹</span>
                    </Button>
                    <Heading className="period-calendar-heading" />
                    <Button slot="next" className="icon-button" aria-label={t('period.next')}>
                      <span aria-hidden="true">›</span>
                    </Button>
                  </header>
                  <CalendarGrid className="period-grid">{(date) => <CalendarCell date={date} className="period-cell" />}</CalendarGrid>
                </RangeCalendar>
                <fieldset className="period-presets">
                  <legend className="visually-hidden">{t('period.presets')}</legend>
                  {presets.map((preset) => (
                    <Button key={preset.id} className="btn btn-secondary period-preset" onPress={() => choose(preset.period)} data-testid={`period-preset-${preset.id}`}>
                      {t(`period.${preset.id}`)}
                    </Button>
                  ))}
                </fieldset>
              </div>
              <p className="period-limit">{t('period.limit')}</p>
            </I18nProvider>
          </Dialog>
        </Popover>
      </DialogTrigger>
    </div>
  );
}
