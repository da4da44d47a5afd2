import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { AdminUserRow } from '../../../modules/accounts/model';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { Banner } from '../../components/Form';
import { errorText } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { useEndSessions, useUserSessions } from './api';

/** A user's open sessions; the administrator ends one or all of them (the browsers are signed out at once). */
export function SessionsDialog({ user, onClose }: { user: AdminUserRow | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const sessions = useUserSessions(user?.id ?? null);
  const end = useEndSessions(user?.id ?? 0);
  const format = new Intl.DateTimeFormat(localeTag(i18n.language), { dateStyle: 'short', timeStyle: 'short' });

  async function endSession(sessionId: string | null) {
    try {
      await end.mutateAsync(sessionId);
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }

  const list = sessions.data ?? [];
  return (
    <AppDialog isOpen={user !== null} onOpenChange={(open) => !open && onClose()} title={t('admin.sessions.title', { name: user?.fullName ?? '' })}>
      {sessions.isError && <Banner kind="error">{errorText(sessions.error)}</Banner>}
      {sessions.isPending ? (
        <p>{t('common.loading')}</p>
      ) : list.length === 0 ? (
        <p data-testid="sessions-empty">{t('admin.sessions.none')}</p>
      ) : (
        <ul className="admin-sessions" data-testid="sessions-list">
          {list.map((session) => (
            <li key={session.id} className="admin-session">
              <span>
                <strong>{format.format(new Date(session.createdAt))}</strong> · {session.userAgent || t('admin.sessions.unknownBrowser')}
                {session.current && ` (${t('admin.sessions.current')})`}
              </span>
              <Button className="btn btn-danger btn-small" onPress={() => void endSession(session.id)} isDisabled={end.isPending}>
                {t('admin.sessions.end')}
              </Button>
            </li>
          ))}
        </ul>
      )}
      <div className="dialog-actions">
        {list.length > 1 && (
          <Button className="btn btn-danger" onPress={() => void endSession(null)} isDisabled={end.isPending} data-testid="sessions-end-all">
            {t('admin.sessions.endAll')}
          </Button>
        )}
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('common.close')}
        </Button>
      </div>
    </AppDialog>
  );
}
