import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { SessionUser } from '../../../modules/auth/model';
import { Banner, CheckboxField, Field } from '../../components/Form';
import { api, errorText, isApiError } from '../../lib/api';
import { browserFingerprint } from '../../lib/fingerprint';
import { currentLanguage } from '../../lib/i18n';
import { PATHS } from '../../lib/paths';
import { landingPath, startSession } from '../../lib/session';
import {
  clearPending,
  FIRST_COUNTDOWN_MS,
  formatCountdown,
  loadDeadline,
  type PendingTwoFactor,
  RESEND_COUNTDOWN_MS,
  saveDeadline,
  saveDeviceSecret,
} from './two-factor-state';

/** Spec §4: the code screen after a password that needs two-factor. */
export function TwoFactorScreen({ pending, onDone }: { pending: PendingTwoFactor; onDone: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  const [trust, setTrust] = useState(false);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [now, setNow] = useState(() => Date.now());
  const [deadline, setDeadline] = useState<number>(() => loadDeadline() ?? 0);
  const codeInput = useRef<HTMLInputElement>(null);

  function startCountdown(ms: number) {
    const start = Date.now();
    saveDeadline(start + ms);
    setDeadline(start + ms);
    setNow(start);
  }

  async function requestCode(countdown: number) {
    startCountdown(countdown);
    setBanner(null);
    try {
      await api.post('/api/2fa/generate', { lang: currentLanguage(), challenge: pending.challenge });
    } catch (error) {
      setBanner(errorText(error));
      startCountdown(0);
    }
  }

  // The first visit asks for a code; a reload keeps the countdown that is already running.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per pending login
  useEffect(() => {
    if (loadDeadline() === null) void requestCode(FIRST_COUNTDOWN_MS);
  }, [pending.challenge]);

  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(timer);
  }, []);

  const remaining = Math.max(0, deadline - now);
  const canResend = remaining <= 0 && !busy;
  const canVerify = code.trim().length > 5 && !busy;

  async function verify(event: FormEvent) {
    event.preventDefault();
    if (!canVerify) return;
    setBusy(true);
    setCodeError(null);
    try {
      const data = await api.post<{ user: SessionUser; device_secret?: string }>('/api/2fa/verify', {
        code: code.trim(),
        challenge: pending.challenge,
        remember: trust,
        fingerprint: browserFingerprint(),
      });
      clearPending();
      if (data.device_secret) saveDeviceSecret(data.device_secret);
      await startSession(data.user, pending.remember);
      onDone();
      navigate(landingPath(data.user), { replace: true });
    } catch (error) {
      // Spec §8: the server's text under the code field, and the countdown goes to zero.
      setCodeError(isApiError(error) ? (error.fieldError('code') ?? errorText(error)) : errorText(error));
      startCountdown(0);
      codeInput.current?.focus();
    } finally {
      setBusy(false);
    }
  }

  function cancel() {
    clearPending();
    onDone();
    navigate(PATHS.liveMap, { replace: true });
  }

  return (
    <form className="auth-form two-factor" onSubmit={verify} noValidate aria-labelledby="two-factor-title">
      <h1 id="two-factor-title" className="auth-title">
        {t('twoFactor.title')}
      </h1>
      <p className="auth-lead">{t('twoFactor.lead')}</p>
      {banner && <Banner kind="error">{banner}</Banner>}
      <p className="countdown" aria-live="off">
        {t('twoFactor.validFor')}{' '}
        <span className="countdown-time" data-testid="countdown" role="timer" aria-label={t('twoFactor.timeLeft', { time: formatCountdown(remaining) })}>
          {formatCountdown(remaining)}
        </span>
      </p>
      <Field
        label={t('twoFactor.code')}
        value={code}
        onChange={(value) => {
          setCode(value);
          if (codeError) setCodeError(null);
        }}
        error={codeError}
        name="code"
        autoComplete="one-time-code"
        inputMode="numeric"
        autoFocus
        maxLength={12}
        inputRef={codeInput}
      />
      <CheckboxField isSelected={trust} onChange={setTrust} name="trust">
        {t('twoFactor.trust')}
      </CheckboxField>
      <div className="form-actions">
        <Button type="submit" className="btn btn-primary" isDisabled={!canVerify}>
          {t('twoFactor.verify')}
        </Button>
        <Button className="btn btn-secondary" isDisabled={!canResend} onPress={() => void requestCode(RESEND_COUNTDOWN_MS)}>
          {t('twoFactor.resend')}
        </Button>
        <Button className="btn btn-link" onPress={cancel}>
          {t('common.cancel')}
        </Button>
      </div>
    </form>
  );
}
