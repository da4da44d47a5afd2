import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FREQUENCIES, type Frequency, type SafeHomeRecord, scheduleTimes } from '../../../modules/safe-home/model';
import { AppDialog, DialogForm } from '../../components/Dialogs';
import { CheckboxField, SelectField } from '../../components/Form';
import { errorText } from '../../lib/api';
import { translateMessage } from '../../lib/i18n';
import { useWeekdayNames } from '../../lib/weekdays';
import { draftOf, type ScheduleDraft, scheduleOf, withDay } from './schedule';
import { useUpdateSchedule } from './api';

const TIMES = scheduleTimes();

function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/**
 * The alert schedule modal (spec §2, §5, §9): how often the cycle repeats (every 1, 2 or 3 weeks), the date it starts
 * from, and per week of the cycle the weekdays, each with a checkbox and a time in 15-minute steps (18:00 unless
 * chosen). Only checked days with a time are sent and empty weeks are dropped; the times are the browser's wall clock,
 * and its time zone goes with them.
 */
export function ScheduleDialog({ record, onClose }: { record: SafeHomeRecord; onClose: (message?: string) => void }) {
  const { t } = useTranslation();
  const update = useUpdateSchedule();
  const [draft, setDraft] = useState<ScheduleDraft>(() => draftOf(record));
  const [failure, setFailure] = useState<string | null>(null);
  const timeZone = useMemo(browserTimeZone, []);
  const dayNames = useWeekdayNames('long');

  async function submit() {
    setFailure(null);
    const schedule = scheduleOf(draft);
    if (typeof schedule === 'string') {
      setFailure(translateMessage(schedule));
      return;
    }
    try {
      const saved = await update.mutateAsync({
        imei: record.imei,
        schedule: JSON.stringify(schedule),
        frequency: draft.frequency,
        start_date: draft.startDate,
        time_zone: timeZone,
      });
      onClose(saved.message);
    } catch (error) {
      setFailure(errorText(error));
    }
  }

  const weeks = draft.weeks.filter((week) => week.week <= draft.frequency);
  return (
    <AppDialog isOpen onOpenChange={(open) => !open && onClose()} title={t('safeReturnHome.schedule.title', { name: record.name })} className="safe-home-modal">
      <DialogForm
        className="safe-home-form"
        onSubmit={() => void submit()}
        failure={failure}
        onDismissFailure={() => setFailure(null)}
        onCancel={() => onClose()}
        saving={update.isPending}
        testIdPrefix="safe-home-schedule"
      >
        <p className="safe-home-hint">{t('safeReturnHome.schedule.hint', { zone: timeZone })}</p>
        <div className="safe-home-form-fields">
          <SelectField
            label={t('safeReturnHome.schedule.frequency')}
            value={String(draft.frequency)}
            onChange={(value) => setDraft((current) => ({ ...current, frequency: Number(value) as Frequency }))}
            options={FREQUENCIES.map((frequency) => ({ value: String(frequency), label: t(`safeReturnHome.schedule.every${frequency}`) }))}
            testId="safe-home-frequency"
          />
          <div className="field">
            <label className="field-label" htmlFor="safe-home-start-date">
              {t('safeReturnHome.schedule.startDate')}
            </label>
            <input
              id="safe-home-start-date"
              type="date"
              className="field-input"
              value={draft.startDate}
              required
              onChange={(event) => {
                const value = event.target.value;
                if (value) setDraft((current) => ({ ...current, startDate: value }));
              }}
              data-testid="safe-home-start-date"
            />
          </div>
        </div>
        <div className="safe-home-weeks">
          {weeks.map((week) => (
            <fieldset key={week.week} className="safe-home-week" data-testid={`safe-home-week-${week.week}`}>
              <legend>{t('safeReturnHome.schedule.week', { week: week.week })}</legend>
              <ul className="safe-home-days">
                {week.days.map((day) => (
                  <li key={day.day} className="safe-home-day" data-testid={`safe-home-day-${week.week}-${day.day}`}>
                    <CheckboxField isSelected={day.checked} onChange={(checked) => setDraft((current) => withDay(current, week.week, day.day, { checked }))}>
                      <span className="safe-home-day-name">{dayNames[day.day]}</span>
                      <span className="visually-hidden">{t('safeReturnHome.schedule.weekSuffix', { week: week.week })}</span>
                    </CheckboxField>
                    <SelectField
                      label={t('safeReturnHome.schedule.timeOf', { day: dayNames[day.day], week: week.week })}
                      hideLabel
                      value={day.time}
                      onChange={(time) => setDraft((current) => withDay(current, week.week, day.day, { time }))}
                      options={TIMES.map((time) => ({ value: time, label: time }))}
                      className="safe-home-time"
                      testId={`safe-home-time-${week.week}-${day.day}`}
                    />
                  </li>
                ))}
              </ul>
            </fieldset>
          ))}
        </div>
      </DialogForm>
    </AppDialog>
  );
}
