import { type FormEvent, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import type { SessionUser } from '../../../modules/auth/model';
import { type Brand, BrandLogo, useBrand } from '../../brands/BrandProvider';
import { Banner, CheckboxField, Field } from '../../components/Form';
import { LanguagePicker } from '../../components/LanguagePicker';
import { api, errorText } from '../../lib/api';
import { browserFingerprint } from '../../lib/fingerprint';
import { type FlashKind, takeFlash } from '../../lib/flash';
import { PATHS } from '../../lib/paths';
import { landingPath, startSession } from '../../lib/session';
import { check, type FieldMessages } from '../../lib/validation';
import { TwoFactorScreen } from './TwoFactorScreen';
import { loadDeviceSecret, loadPending, type PendingTwoFactor, savePending } from './two-factor-state';

type LoginResponse = { user: SessionUser } | { twoFactorRequired: true; challenge: string };

const FLASH_TEXT: Record<FlashKind, string> = {
  registered: 'login.flash.registered',
  resetLinkSent: 'login.flash.resetLinkSent',
  passwordChanged: 'login.flash.passwordChanged',
};

function LoginForm({ brand, onTwoFactor }: { brand: Brand; onTwoFactor: (pending: PendingTwoFactor) => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    // The schema (and zod with it) is loaded on the first submit: the login page itself loads only what it shows.
    const { loginSchema } = await import('../../../modules/auth/model');
    const parsed = check(loginSchema, { username, password, subsiteid: brand.subsiteId, remember_me: remember });
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const data = await api.post<LoginResponse>('/api/login', {
        ...parsed.data,
        fingerprint: browserFingerprint(),
        device_secret: loadDeviceSecret(),
      });
      if ('twoFactorRequired' in data) {
        const pending = { challenge: data.challenge, remember };
        savePending(pending);
        onTwoFactor(pending);
        return;
      }
      await startSession(data.user, remember);
      navigate(landingPath(data.user), { replace: true });
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="auth-form" onSubmit={submit} noValidate aria-labelledby="login-title">
      <h1 id="login-title" className="auth-title">
        {t('login.title')}
      </h1>
      {failure && (
        <Banner kind="error">
          <span data-testid="login-error">{failure}</span>
        </Banner>
      )}
      <Field
        label={t('login.username')}
        value={username}
        onChange={setUsername}
        error={errors.username}
        name="username"
        type="email"
        autoComplete="username"
        isRequired
      />
      <Field
        label={t('login.password')}
        value={password}
        onChange={setPassword}
        error={errors.password}
        name="password"
        type="password"
        autoComplete="current-password"
        isRequired
      />
      <CheckboxField isSelected={remember} onChange={setRemember} name="remember_me">
        {t('login.remember')}
      </CheckboxField>
      <Button type="submit" className="btn btn-primary btn-block" isDisabled={busy}>
        {busy ? t('login.signingIn') : t('login.submit')}
      </Button>
      <p className="auth-links">
        <Link to={PATHS.forgotPassword}>{t('login.forgot')}</Link>
      </p>
    </form>
  );
}

function Notices({ brand, flash }: { brand: Brand; flash: FlashKind | null }) {
  const { t } = useTranslation();
  return (
    <>
      {flash && <Banner kind="success">{t(FLASH_TEXT[flash])}</Banner>}
      {brand.noticeUrl && (
        <Banner kind="info">
          <span data-testid="subsite-notice">
            {t('login.notice')} <a href={brand.noticeUrl}>{brand.noticeUrl.replace(/^https?:\/\//, '')}</a>
          </span>
        </Banner>
      )}
    </>
  );
}

/** Spec §2: `/` is the login page, in the brand's new (two columns) or old design. */
export function LoginPage() {
  const { t } = useTranslation();
  const brand = useBrand();
  const [pending, setPending] = useState<PendingTwoFactor | null>(() => loadPending());
  const [flash] = useState<FlashKind | null>(() => takeFlash());

  const body = pending ? (
    <TwoFactorScreen pending={pending} onDone={() => setPending(null)} />
  ) : (
    <LoginForm brand={brand} onTwoFactor={setPending} />
  );

  if (brand.loginDesign === 'old') {
    return (
      <div className="login-old" data-design="old">
        <header className="login-old-top">
          <LanguagePicker />
        </header>
        <main className="login-old-card">
          <BrandLogo brand={brand} className="login-old-logo" />
          <Notices brand={brand} flash={flash} />
          {body}
          {!pending && (
            <p className="auth-links">
              {t('login.noAccount')} <Link to={PATHS.register}>{t('login.register')}</Link>
            </p>
          )}
        </main>
        <footer className="login-footer">
          {brand.name} © {new Date().getFullYear()}
        </footer>
      </div>
    );
  }

  return (
    <div className="login-new" data-design="new">
      <section className="login-welcome" aria-labelledby="welcome-title">
        <BrandLogo brand={brand} onDark className="login-welcome-logo" />
        <h2 id="welcome-title" className="login-welcome-title">
          {t('login.welcomeTitle', { brand: brand.name })}
        </h2>
        <p className="login-welcome-text">{t('login.welcomeText')}</p>
        <p className="login-welcome-register">
          {t('login.noAccount')}{' '}
          <Link to={PATHS.register} className="login-register-link">
            {t('login.registerHere')}
          </Link>
        </p>
      </section>
      <main className="login-panel">
        <div className="login-panel-top">
          <LanguagePicker />
        </div>
        <div className="login-panel-body">
          <Notices brand={brand} flash={flash} />
          {body}
        </div>
        <footer className="login-footer">
          {brand.name} © {new Date().getFullYear()}
        </footer>
      </main>
    </div>
  );
}
