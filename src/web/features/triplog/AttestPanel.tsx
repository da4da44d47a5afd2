import { useEffect, useId, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { PURPOSE_MAX, type TripAttestHistoryEntry, type TripAttestView } from '../../../modules/trips/model';
import { useDialogs } from '../../components/Dialogs';
import { SelectField } from '../../components/Form';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { useSession } from '../../lib/session';
import { useAttest, useAttestStatus, useRemoveAttest, useTripDrivers, useUnattest, useUnlockAttest } from './api';

/** Spec §3 Attest record: the note is at most 100 characters (the same limit as a purpose). */
const ATTEST_NOTE_MAX = PURPOSE_MAX;

type Status = 'attested' | 'unlocked' | 'unattested' | 'none';

function statusOf(view: TripAttestView | undefined): Status {
  return view?.record?.status ?? 'none';
}

/**
 * Spec §3/§4/§6 attest: the attest status of a month of a user's trips (the caller's own; administrators pick any
 * user of the account), attesting it with a note, and for administrators unlock, unattest and remove, with history.
 */
export function AttestPanel({ month, onMonthChange }: { month: string; onMonthChange: (month: string) => void }) {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const session = useSession();
  const isAdmin = session?.user.IsAdmin === true;
  const myId = session?.user.ID;
  const drivers = useTripDrivers();
  const [userId, setUserId] = useState<number | undefined>(undefined);
  const [note, setNote] = useState('');
  const status = useAttestStatus(userId, month || null);
  const attest = useAttest();
  const unlock = useUnlockAttest();
  const unattest = useUnattest();
  const remove = useRemoveAttest();
  const monthId = useId();
  const noteId = useId();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the note is cleared when another user or month is shown.
  useEffect(() => setNote(''), [userId, month]);

  const view = status.data;
  const current = statusOf(view);
  const record = view?.record ?? null;
  const locale = localeTag(i18n.language);
  const when = (iso: string) => new Date(iso).toLocaleString(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const monthLabel = new Date(Date.UTC(year, monthNumber - 1, 15)).toLocaleDateString(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  const nameOf = (id: number | null) => {
    if (id === null) return t('triplog.attest.someone');
    return drivers.data?.find((driver) => driver.id === id)?.name ?? t('triplog.attest.someone');
  };
  const subject = userId === undefined || userId === myId ? null : nameOf(userId);
  const busy = attest.isPending || unlock.isPending || unattest.isPending || remove.isPending;

  async function run(work: () => Promise<unknown>) {
    try {
      await work();
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }

  async function confirmThen(message: string, work: () => Promise<unknown>) {
    const ok = await dialogs.showMessage({ title: t('triplog.attest.confirmTitle'), message, cancel: true });
    if (ok) await run(work);
  }

  const userOptions = (drivers.data ?? []).map((driver) => ({ value: String(driver.id), label: driver.name }));

  return (
    <section className="triplog-card triplog-attest" aria-labelledby={`${monthId}-title`} data-testid="attest-panel">
      <div className="triplog-card-head">
        <h2 className="triplog-card-title" id={`${monthId}-title`}>
          {t('triplog.attest.title')}
        </h2>
        <span className={`triplog-status triplog-status--${current}`} data-testid="attest-status">
          {current === 'attested' && (
            <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
              <path d="M4 7V5a4 4 0 118 0v2h1v8H3V7h1zm2 0h4V5a2 2 0 10-4 0v2z" fill="currentColor" />
            </svg>
          )}
          {t(`triplog.attest.status.${current}`)}
        </span>
      </div>

      <div className="triplog-attest-body">
        <div className="triplog-attest-main">
          <div className="triplog-attest-controls">
            <div className="field">
              <label className="field-label" htmlFor={monthId}>
                {t('triplog.attest.month')}
              </label>
              <input
                id={monthId}
                className="field-input"
                type="month"
                value={month}
                data-testid="attest-month"
                onChange={(event) => event.target.value && onMonthChange(event.target.value)}
              />
            </div>
            {isAdmin && userOptions.length > 0 && (
              <SelectField
                label={t('triplog.attest.user')}
                value={String(userId ?? myId ?? '')}
                onChange={(value) => setUserId(Number(value) === myId ? undefined : Number(value))}
                options={userOptions}
                testId="attest-user"
              />
            )}
          </div>

          {status.isError && (
            <p className="field-error" role="alert">
              {errorText(status.error)}
            </p>
          )}

          {view && (
            <p className="triplog-attest-summary" data-testid="attest-summary">
              {record && current !== 'none'
                ? t(`triplog.attest.summary.${current as Exclude<Status, 'none'>}`, {
                    month: monthLabel,
                    by: nameOf(current === 'attested' ? record.attestedBy : (view.history.at(-1)?.byUserId ?? null)),
                    at: when(current === 'attested' ? record.attestedAt : (view.history.at(-1)?.at ?? record.attestedAt)),
                  })
                : t('triplog.attest.summary.none', { month: monthLabel })}
              {subject && ` ${t('triplog.attest.forUser', { name: subject })}`}
              {record?.note && current === 'attested' && <span className="triplog-attest-note"> “{record.note}”</span>}
            </p>
          )}
        </div>

        <div className="triplog-attest-side">
          {view && current !== 'attested' && (
            <div className="triplog-attest-form">
              <div className="field triplog-attest-note-field">
                <label className="field-label" htmlFor={noteId}>
                  {t('triplog.attest.note')}
                </label>
                <input
                  id={noteId}
                  className="field-input"
                  value={note}
                  maxLength={ATTEST_NOTE_MAX}
                  aria-describedby={`${noteId}-count`}
                  data-testid="attest-note"
                  onChange={(event) => setNote(event.target.value)}
                />
                <span className="field-description" id={`${noteId}-count`}>
                  {t('triplog.attest.noteCount', { count: note.length, max: ATTEST_NOTE_MAX })}
                </span>
              </div>
              <Button
                className="btn btn-primary"
                isDisabled={busy}
                data-testid="attest-submit"
                onPress={() => void run(() => attest.mutateAsync({ userId, period: month, note }))}
              >
                {subject ? t('triplog.attest.submitFor', { month: monthLabel, name: subject }) : t('triplog.attest.submit', { month: monthLabel })}
              </Button>
            </div>
          )}

          {isAdmin && record && (
            <fieldset className="triplog-attest-admin">
              <legend className="visually-hidden">{t('triplog.attest.adminActions')}</legend>
              {current === 'attested' && (
                <>
                  <Button className="btn btn-secondary" isDisabled={busy} onPress={() => void run(() => unlock.mutateAsync(record.id))}>
                    {t('triplog.attest.unlock')}
                  </Button>
                  <Button
                    className="btn btn-secondary"
                    isDisabled={busy}
                    onPress={() => void confirmThen(t('triplog.attest.confirmUnattest', { month: monthLabel }), () => unattest.mutateAsync(record.id))}
                  >
                    {t('triplog.attest.unattest')}
                  </Button>
                </>
              )}
              <Button
                className="btn btn-secondary triplog-danger"
                isDisabled={busy}
                onPress={() => void confirmThen(t('triplog.attest.confirmRemove', { month: monthLabel }), () => remove.mutateAsync(record.id))}
              >
                {t('triplog.attest.remove')}
              </Button>
            </fieldset>
          )}
        </div>
      </div>

      {view && view.history.length > 0 && (
        <details className="triplog-attest-history" data-testid="attest-history">
          <summary>{t('triplog.attest.history', { count: view.history.length })}</summary>
          <ol>
            {/* The history only grows: its position (oldest first) identifies an entry. */}
            {view.history
              .map((entry: TripAttestHistoryEntry, position) => ({ entry, id: `${position}-${entry.action}` }))
              .reverse()
              .map(({ entry, id }) => (
              <li key={id}>
                <span className={`triplog-dot triplog-dot--${entry.action}`} aria-hidden="true" />
                <span className="triplog-history-text">
                  <span className="triplog-history-action">{t(`triplog.attest.action.${entry.action}`)}</span>{' '}
                  <span className="triplog-history-meta">
                    {when(entry.at)} · {nameOf(entry.byUserId)}
                  </span>
                  {entry.note && <span className="triplog-history-note">“{entry.note}”</span>}
                </span>
              </li>
              ))}
          </ol>
        </details>
      )}
    </section>
  );
}
