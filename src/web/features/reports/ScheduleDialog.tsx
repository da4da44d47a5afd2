import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Label, Radio, RadioGroup, TextArea, TextField } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { ReportSchedule, ReportScheduleList, ScheduleFrequency, ScheduleInput } from '../../../modules/reports/model';
import { SCHEDULE_MAX_RECIPIENTS, SCHEDULE_NAME_MAX } from '../../../modules/reports/model';
import { AppDialog } from '../../components/Dialogs';
import { Banner, CheckboxField, Field, SelectField } from '../../components/Form';
import { api, errorText, request } from '../../lib/api';
import { reportKeys, useReportDrivers } from './api';
import { EXPORT_FORMATS, type ReportExportFormat, type ReportFilters, type ScheduledKind } from './reports';

const schedulesKey = [...reportKeys.all, 'schedules'] as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The e-mail addresses typed, one per line or separated by commas or semicolons. */
export function parseEmails(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((part) => part.trim().toLowerCase()).filter((part) => part.length > 0))];
}

/**
 * "Schedule this report": the report with the screen's vehicles, department, driver and grouping, sent weekly (Monday,
 * the week before) or monthly (the 1st, the month before) as a PDF, XLSX or CSV attachment to users of the account
 * and other addresses. The schedules already made for this report are listed above the form and can be removed.
 */
export function ScheduleDialog({ kind, filters, isOpen, onClose }: { kind: ScheduledKind; filters: ReportFilters; isOpen: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const users = useReportDrivers();
  const schedules = useQuery({ queryKey: schedulesKey, queryFn: () => api.get<ReportScheduleList>('/api/reports/schedules'), enabled: isOpen });
  const [name, setName] = useState('');
  const [frequency, setFrequency] = useState<ScheduleFrequency>('monthly');
  const [format, setFormat] = useState<ReportExportFormat>('pdf');
  const [userIds, setUserIds] = useState<number[]>([]);
  const [emails, setEmails] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    if (!isOpen) return;
    setName(t(`reports.kind.${kind}`));
    setError(null);
    setSaved(null);
  }, [isOpen, kind, t]);

  const create = useMutation({
    mutationFn: (input: ScheduleInput) => api.post<ReportSchedule>('/api/reports/schedules', input),
    onSuccess: () => client.invalidateQueries({ queryKey: schedulesKey }),
  });
  const remove = useMutation({
    mutationFn: (id: number) => request<unknown>('DELETE', `/api/reports/schedules/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: schedulesKey }),
  });

  async function save() {
    setSaved(null);
    const addresses = parseEmails(emails);
    const wrong = addresses.filter((address) => !EMAIL.test(address));
    if (!name.trim()) return setError(t('reports.schedule.nameRequired'));
    if (wrong.length > 0) return setError(t('reports.schedule.badEmail', { emails: wrong.join(', ') }));
    if (addresses.length + userIds.length === 0) return setError(t('reports.schedule.needRecipient'));
    if (addresses.length > SCHEDULE_MAX_RECIPIENTS || userIds.length > SCHEDULE_MAX_RECIPIENTS) return setError(t('reports.schedule.tooMany', { count: SCHEDULE_MAX_RECIPIENTS }));
    setError(null);
    try {
      await create.mutateAsync({
        name: name.trim(),
        kind,
        scope: {
          unitIds: filters.unitIds.length > 0 ? filters.unitIds : undefined,
          departmentId: filters.departmentId ?? undefined,
          driverId: filters.driverId ?? undefined,
          groupBy: filters.groupBy,
        },
        frequency,
        format,
        recipientUserIds: userIds,
        recipientEmails: addresses,
        active: true,
      });
      setSaved(t(`reports.schedule.saved.${frequency}`));
      setEmails('');
      setUserIds([]);
    } catch (failure) {
      setError(errorText(failure));
    }
  }

  const mine = (schedules.data?.schedules ?? []).filter((schedule) => schedule.kind === kind);
  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && onClose()} title={t('reports.schedule.title', { report: t(`reports.kind.${kind}`) })} className="report-schedule-dialog">
      {mine.length > 0 && (
        <section aria-label={t('reports.schedule.existing')}>
          <h3 className="report-heading">{t('reports.schedule.existing')}</h3>
          <ul className="report-schedule-list" data-testid="schedule-list">
            {mine.map((schedule) => (
              <li key={schedule.id} className="report-schedule-item">
                <span>
                  <strong>{schedule.name}</strong>
                  <span className="report-sub">
                    {' '}
                    · {t(`reports.schedule.frequency.${schedule.frequency}`)} · {schedule.format.toUpperCase()} · {t('reports.schedule.recipients', { count: schedule.recipientEmails.length + schedule.recipientUserIds.length })}
                    {schedule.lastError ? ` · ${t(schedule.lastError)}` : ''}
                  </span>
                </span>
                <Button className="btn btn-link" onPress={() => remove.mutate(schedule.id)} isDisabled={remove.isPending} aria-label={t('reports.schedule.removeNamed', { name: schedule.name })}>
                  {t('reports.schedule.remove')}
                </Button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <Field label={t('reports.schedule.name')} value={name} onChange={setName} maxLength={SCHEDULE_NAME_MAX} testId="schedule-name" />
      <RadioGroup className="field radio-list" value={frequency} onChange={(value) => setFrequency(value === 'weekly' ? 'weekly' : 'monthly')}>
        <Label className="field-label">{t('reports.schedule.how')}</Label>
        {(['weekly', 'monthly'] as const).map((value) => (
          <Radio key={value} value={value} className="radio" data-testid={`schedule-${value}`}>
            <span className="radio-dot" aria-hidden="true" />
            <span className="radio-text">
              <span className="radio-label">{t(`reports.schedule.frequency.${value}`)}</span>
              <span className="radio-hint">{t(`reports.schedule.${value}`)}</span>
            </span>
          </Radio>
        ))}
      </RadioGroup>
      <SelectField
        label={t('reports.schedule.format')}
        value={format}
        onChange={(value) => setFormat(EXPORT_FORMATS.find((candidate) => candidate === value) ?? 'pdf')}
        options={EXPORT_FORMATS.map((candidate) => ({ value: candidate, label: t(`reports.exportAs.${candidate}`) }))}
        testId="schedule-format"
      />
      {(users.data?.length ?? 0) > 0 && (
        <fieldset className="field report-schedule-users">
          <legend className="field-label">{t('reports.schedule.users')}</legend>
          {(users.data ?? []).map((user) => (
            <CheckboxField key={user.id} isSelected={userIds.includes(user.id)} onChange={(checked) => setUserIds((ids) => (checked ? [...ids, user.id] : ids.filter((id) => id !== user.id)))}>
              {user.name}
            </CheckboxField>
          ))}
        </fieldset>
      )}
      <TextField className="field" value={emails} onChange={setEmails}>
        <Label className="field-label">{t('reports.schedule.emails')}</Label>
        <TextArea className="field-input" rows={3} data-testid="schedule-emails" />
      </TextField>
      <p className="report-hint">{t('reports.schedule.scopeNote')}</p>
      {error && (
        <Banner kind="error">
          <span data-testid="schedule-error">{error}</span>
        </Banner>
      )}
      {saved && (
        <Banner kind="success">
          <span data-testid="schedule-saved">{saved}</span>
        </Banner>
      )}
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('common.close')}
        </Button>
        <Button className="btn btn-primary" onPress={() => void save()} isDisabled={create.isPending} data-testid="schedule-save">
          {t('reports.schedule.save')}
        </Button>
      </div>
    </AppDialog>
  );
}
