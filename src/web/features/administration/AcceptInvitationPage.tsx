import { useTranslation } from 'react-i18next';
import { invitationAcceptSchema } from '../../../modules/accounts/model';
import { NewPasswordForm } from '../../components/NewPasswordForm';

/** The invitation link (`?_c=`): a new user chooses their password once, then signs in. */
export function AcceptInvitationPage() {
  const { t } = useTranslation();
  return (
    <NewPasswordForm
      title={t('admin.invitation.title')}
      intro={t('admin.invitation.intro')}
      submitLabel={t('admin.invitation.submit')}
      schema={invitationAcceptSchema}
      body={(fields) => fields}
      endpoint="/api/invitations/accept"
      codeHint={(error) => error || t('server:users.invitation.invalid')}
      testIdPrefix="invitation"
    />
  );
}
