import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { type BulkJobView, USER_BULK_TASKS, type UserBulkTask, type UserBulkTaskKind } from '../../modules/accounts/model';
import type { UnitOptions, UnitView } from '../../modules/units/model';
import { api, errorText } from '../lib/api';
import { Banner, SelectField } from './Form';
import { UnitPicker } from './UnitPicker';

/** How often a running bulk job's progress is asked for. */
const POLL_MS = 500;

/**
 * Bulk tasks on users (spec §2 bulk tasks, §5 at least one user; §6 unit access, a new department resets it): the
 * department, the map flag, two-factor sign-in and unit access for the selected users. The task runs on the server as
 * a queued job (`POST /api/admin/bulk-jobs`), which keeps its progress; the panel polls it for the progress bar and a
 * result per user, so a reload or a restart of the server loses nothing. Self-contained: a users list mounts it with
 * its selection (`users`) and refreshes itself on `onDone`.
 */
export function UserBulkPanel({ users, onDone }: { users: Array<{ id: number; name: string }>; onDone?: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [kind, setKind] = useState<UserBulkTaskKind>('department');
  const [enabled, setEnabled] = useState('on');
  const [departmentId, setDepartmentId] = useState('');
  const [unitIds, setUnitIds] = useState<number[]>([]);
  const [mode, setMode] = useState<'add' | 'remove'>('add');
  const [jobId, setJobId] = useState<number | null>(null);
  const [starting, setStarting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [names, setNames] = useState<Map<number, string>>(new Map());
  const units = useQuery({ queryKey: ['units', 'picker'], queryFn: () => api.get<UnitView[]>('/api/units'), enabled: kind === 'unitAccess' });
  const options = useQuery({ queryKey: ['units', 'options'], queryFn: () => api.get<UnitOptions>('/api/units/options'), enabled: kind === 'department' });
  const job = useQuery({
    queryKey: ['bulk-job', jobId],
    queryFn: () => api.get<BulkJobView>(`/api/admin/bulk-jobs/${jobId}`),
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data && (query.state.data.status === 'done' || query.state.data.status === 'failed') ? false : POLL_MS),
  });
  const finished = job.data?.status === 'done' || job.data?.status === 'failed';
  const running = starting || (jobId !== null && !finished);

  // Once per finished job: the lists show what it changed.
  const notified = useRef<number | null>(null);
  if (finished && jobId !== null && notified.current !== jobId) {
    notified.current = jobId;
    queueMicrotask(() => {
      void client.invalidateQueries({ queryKey: ['account-users'] });
      onDone?.();
    });
  }

  function task(): UserBulkTask | null {
    if (kind === 'unitAccess') return unitIds.length === 0 ? null : { kind, unitIds, mode };
    if (kind === 'department') return { kind, departmentId: departmentId === '' ? null : Number(departmentId) };
    return { kind, enabled: enabled === 'on' };
  }

  async function run() {
    const chosen = task();
    if (!chosen || users.length === 0) return;
    setStarting(true);
    setFailure(null);
    setNames(new Map(users.map((user) => [user.id, user.name])));
    try {
      const started = await api.post<BulkJobView>('/api/admin/bulk-jobs', { target: 'users', ids: users.map((user) => user.id), task: chosen });
      client.setQueryData(['bulk-job', started.id], started);
      setJobId(started.id);
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setStarting(false);
    }
  }

  const view = job.data;
  const total = view?.total ?? users.length;
  const done = view?.done ?? 0;
  const progress = total === 0 ? 0 : Math.round((done / total) * 100);
  return (
    <section className="user-bulk-panel" aria-label={t('userBulk.title', { count: users.length })} data-testid="user-bulk-panel">
      <h2 className="unit-section-title">{t('userBulk.title', { count: users.length })}</h2>
      {users.length === 0 && <p className="field-description">{t('userBulk.none')}</p>}
      <SelectField
        label={t('userBulk.task')}
        value={kind}
        onChange={(next) => {
          setKind(next as UserBulkTaskKind);
          setJobId(null);
        }}
        options={USER_BULK_TASKS.map((value) => ({ value, label: t(`userBulk.tasks.${value}`) }))}
        testId="user-bulk-task"
      />
      {kind === 'unitAccess' ? (
        <>
          <UnitPicker units={units.data ?? []} selectionMode="multiple" selected={unitIds} onChange={setUnitIds} label={t('userBulk.units')} testId="user-bulk-units" />
          <SelectField
            label={t('userBulk.accessMode')}
            value={mode}
            onChange={(next) => setMode(next as typeof mode)}
            options={(['add', 'remove'] as const).map((value) => ({ value, label: t(`units.bulk.accessModes.${value}`) }))}
          />
        </>
      ) : kind === 'department' ? (
        <>
          <SelectField
            label={t('userBulk.department')}
            value={departmentId}
            onChange={setDepartmentId}
            options={[{ value: '', label: t('userBulk.noDepartment') }, ...(options.data?.departments ?? []).map((entry) => ({ value: String(entry.id), label: entry.name }))]}
            testId="user-bulk-department"
          />
          <p className="field-description">{t('userBulk.departmentResets')}</p>
        </>
      ) : (
        <SelectField
          label={t('userBulk.value')}
          value={enabled}
          onChange={setEnabled}
          options={[
            { value: 'on', label: t('units.on') },
            { value: 'off', label: t('units.off') },
          ]}
          testId="user-bulk-value"
        />
      )}
      {(running || view) && (
        <div className="bulk-progress">
          <progress max={100} value={progress} aria-label={t('units.bulk.progress')} data-testid="user-bulk-progress" />
          <span aria-live="polite">{t('units.bulk.done', { done, total })}</span>
        </div>
      )}
      {failure && <Banner kind="error">{failure}</Banner>}
      {job.error && <Banner kind="error">{errorText(job.error)}</Banner>}
      {view?.status === 'failed' && view.error && <Banner kind="error">{view.error}</Banner>}
      {view && finished && (
        <p role="status" data-testid="user-bulk-summary">
          {view.failed === 0 ? t('userBulk.allOk') : t('userBulk.someFailed', { count: view.failed })}
        </p>
      )}
      {view && view.results.length > 0 && (
        <ul className="bulk-results" data-testid="user-bulk-results">
          {view.results.map((result) => (
            <li key={result.id} className={result.ok ? 'bulk-ok' : 'bulk-failed'}>
              <strong>{names.get(result.id) ?? String(result.id)}</strong>: {result.ok ? t('units.bulk.ok') : result.error}
            </li>
          ))}
        </ul>
      )}
      <Button className="btn btn-primary" onPress={() => void run()} isDisabled={running || task() === null || users.length === 0}>
        {t('units.bulk.run')}
      </Button>
    </section>
  );
}
