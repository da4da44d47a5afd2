import { useQuery } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { Button, Label, Radio, RadioGroup, Text } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { type PaymentTypes, phoneHintVisible, wizardRegistrationSchema } from '../../../modules/accounts/model';
import { useBrand } from '../../brands/BrandProvider';
import { offersPaymentOptions } from '../../brands/rules';
import { useDialogs } from '../../components/Dialogs';
import { CheckboxField, Field, SelectField } from '../../components/Form';
import { api, errorText, isApiError } from '../../lib/api';
import { setFlash } from '../../lib/flash';
import { requestCarInfoOnboarding } from '../../lib/onboarding';
import { currentLanguage, translateMessage } from '../../lib/i18n';
import { PATHS } from '../../lib/paths';
import { countryByCode, countryName, countryOptions } from './countries';
import { clearProgress, loadProgress, saveProgress } from './progress';
import {
  emptyWizardData,
  isPrivate,
  nameTooLong,
  type StepErrors,
  type StepId,
  stepIsValid,
  stepOfField,
  validateStep,
  visibleSteps,
  type WizardData,
  wizardPayload,
} from './wizard-model';

function focusFirstInvalid() {
  window.requestAnimationFrame(() => {
    document.querySelector<HTMLElement>('.wizard [aria-invalid="true"]')?.focus();
  });
}

/** Spec §2/§4/§5: the step-by-step registration. */
export function RegistrationWizard() {
  const { t, i18n } = useTranslation();
  const brand = useBrand();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const termsPreChecked = !brand.termsVisible;
  const [loaded, setLoaded] = useState(false);
  const [data, setData] = useState<WizardData>(() => emptyWizardData(termsPreChecked));
  const [step, setStep] = useState<StepId>('welcome');
  const [errors, setErrors] = useState<StepErrors>({});
  const [busy, setBusy] = useState(false);
  const stopSaving = useRef(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const imeiInput = useRef<HTMLInputElement>(null);
  const firstRender = useRef(true);

  // Restore saved progress once (it is encrypted, so this is asynchronous).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once on mount
  useEffect(() => {
    let cancelled = false;
    void loadProgress().then((progress) => {
      if (cancelled) return;
      if (progress && progress.subsiteId === brand.subsiteId) {
        setData({ ...emptyWizardData(termsPreChecked), ...progress.data, terms: termsPreChecked || progress.data.terms });
        setStep(progress.step);
      }
      setLoaded(true);
    });
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => {
    if (loaded && !stopSaving.current) void saveProgress({ data, step, subsiteId: brand.subsiteId });
  }, [data, step, loaded, brand.subsiteId]);

  // A new step moves focus to its heading, so screen readers announce where the user is.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on step change
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    heading.current?.focus();
  }, [step]);

  const steps = visibleSteps(data);
  const index = Math.max(0, steps.indexOf(step));
  const current = steps[index] ?? 'welcome';
  const showPayment = offersPaymentOptions(brand, isPrivate(data));

  const payment = useQuery({
    queryKey: ['payment-types', data.imei, i18n.language],
    queryFn: () => api.post<PaymentTypes>('/api/payment-types', { imei: data.imei.trim(), lang: currentLanguage() }),
    enabled: loaded && current === 'review' && showPayment,
    retry: false,
    staleTime: 5 * 60 * 1000,
  });
  const paymentOptions = payment.data ? Object.entries(payment.data.options).sort(([a], [b]) => Number(a) - Number(b)) : [];

  function update<K extends keyof WizardData>(field: K, value: WizardData[K], errorKey?: string) {
    setData((previous) => ({ ...previous, [field]: value }));
    if (errorKey && errors[errorKey]) {
      setErrors((previous) => {
        const next = { ...previous };
        delete next[errorKey];
        return next;
      });
    }
  }

  function chooseUserType(type: 'company' | 'private') {
    if (data.userType !== '' && data.userType !== type) {
      // Spec §2: switching user type clears the saved progress.
      clearProgress();
      setData({ ...emptyWizardData(termsPreChecked), userType: type });
    } else {
      setData((previous) => ({ ...previous, userType: type }));
    }
    setErrors({});
  }

  function goTo(target: StepId) {
    setErrors({});
    setStep(target);
  }

  /** A dot is reachable when every step before it is filled (spec §2: forward jumps only over filled steps). */
  function reachable(targetIndex: number): boolean {
    for (let i = 0; i < targetIndex; i++) {
      const id = steps[i];
      if (id && !stepIsValid(id, data, brand.subsiteId)) return false;
    }
    return true;
  }

  async function register() {
    const payload = wizardPayload(data, brand.subsiteId);
    if (showPayment && payment.isSuccess && paymentOptions.length > 0 && data.paymentType === 0) {
      setErrors({ paymentType: t('registration.payment.choose') });
      return;
    }
    const parsed = wizardRegistrationSchema.safeParse(showPayment && payment.isError ? { ...payload, paymentType: 0 } : payload);
    if (!parsed.success) {
      for (const id of steps) {
        const stepErrors = validateStep(id, data, brand.subsiteId);
        if (Object.keys(stepErrors).length > 0) {
          setStep(id);
          setErrors(stepErrors);
          focusFirstInvalid();
          return;
        }
      }
    }
    setBusy(true);
    try {
      await api.post('/api/register', showPayment && payment.isError ? { ...payload, paymentType: 0 } : payload);
      stopSaving.current = true;
      clearProgress();
      setFlash('registered');
      // The first sign-in opens the car info form for the registered tracker.
      requestCarInfoOnboarding();
      navigate(PATHS.login, { replace: true });
    } catch (caught) {
      if (isApiError(caught) && Object.keys(caught.fields).length > 0) {
        const fieldErrors: StepErrors = {};
        let target: StepId | null = null;
        for (const [field, messages] of Object.entries(caught.fields)) {
          fieldErrors[field] = messages.join(' ');
          const owner = stepOfField(field);
          if (owner && steps.includes(owner) && (target === null || steps.indexOf(owner) < steps.indexOf(target))) target = owner;
        }
        if (target) setStep(target);
        setErrors(fieldErrors);
        await dialogs.showError(caught.message);
        focusFirstInvalid();
      } else {
        await dialogs.showError(errorText(caught));
      }
    } finally {
      setBusy(false);
    }
  }

  async function next(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const stepErrors = validateStep(current, data, brand.subsiteId);
    if (Object.keys(stepErrors).length > 0) {
      setErrors(stepErrors);
      focusFirstInvalid();
      return;
    }
    if (current === 'review') {
      await register();
      return;
    }
    setBusy(true);
    try {
      if (current === 'imei') {
        try {
          await api.get('/api/validate/imei', { query: { imei: data.imei.trim(), subsiteID: brand.subsiteId } });
        } catch (caught) {
          // Spec §8: an IMEI failure under its field, with focus returned to it.
          setErrors({ Imei: (isApiError(caught) && caught.fieldError('imei', 'Imei')) || errorText(caught) });
          window.requestAnimationFrame(() => imeiInput.current?.focus());
          return;
        }
      }
      if (current === 'email') {
        try {
          const checked = await api.get<{ email?: string } | null>('/api/validate/email', { query: { email: data.email.trim() } });
          if (checked?.email) update('email', checked.email);
        } catch (caught) {
          // Spec §8: an e-mail validator failure in a modal.
          await dialogs.showError((isApiError(caught) && caught.fieldError('email')) || errorText(caught));
          return;
        }
      }
      const following = steps[index + 1];
      if (following) goTo(following);
    } finally {
      setBusy(false);
    }
  }

  if (!loaded) return <p aria-live="polite">{t('common.loading')}</p>;

  const stepTitle = t(`registration.steps.${current}`);
  let body: ReactNode;
  switch (current) {
    case 'welcome':
      body = (
        <RadioGroup
          className="choice-group"
          value={data.userType || null}
          onChange={(value) => chooseUserType(value === 'private' ? 'private' : 'company')}
          isInvalid={Boolean(errors.userType)}
          aria-describedby={errors.userType ? 'usertype-error' : undefined}
        >
          <Label className="field-label">{t('registration.welcome.question')}</Label>
          <div className="choice-cards">
            <Radio value="company" className="choice-card">
              <span className="choice-title">{t('registration.welcome.company')}</span>
              <span className="choice-text">{t('registration.welcome.companyText')}</span>
            </Radio>
            <Radio value="private" className="choice-card">
              <span className="choice-title">{t('registration.welcome.private')}</span>
              <span className="choice-text">{t('registration.welcome.privateText')}</span>
            </Radio>
          </div>
          {errors.userType && (
            <Text slot="errorMessage" className="field-error" id="usertype-error">
              {errors.userType}
            </Text>
          )}
        </RadioGroup>
      );
      break;
    case 'country':
      body = (
        <>
          <SelectField
            label={t('registration.country.label')}
            value={data.countryCode}
            onChange={(code) => {
              const country = countryByCode(code);
              setData((previous) => ({ ...previous, countryCode: country.code, dialCode: country.dial, addressCountryCode: country.code }));
            }}
            options={countryOptions(i18n.language).map((country) => ({ value: country.code, label: country.name }))}
            error={errors.countryDialCode}
            testId="country"
          />
          <p className="field-description">{t('registration.country.dialCode', { code: `+${data.dialCode}` })}</p>
        </>
      );
      break;
    case 'imei':
      body = (
        <Field
          label={t('registration.imei.label')}
          value={data.imei}
          onChange={(value) => update('imei', value.replace(/\s+/g, ''), 'Imei')}
          error={errors.Imei}
          description={t('registration.imei.help')}
          inputMode="numeric"
          maxLength={15}
          autoComplete="off"
          inputRef={imeiInput}
          name="Imei"
          isRequired
        />
      );
      break;
    case 'reseller':
      body = (
        <>
          <Field label={t('registration.reseller.label')} value={data.reseller} onChange={(value) => update('reseller', value, 'reseller')} error={errors.reseller} maxLength={255} name="reseller" isRequired />
          <Field
            label={t('registration.reseller.comment')}
            value={data.comment}
            onChange={(value) => update('comment', value, 'comment')}
            error={errors.comment}
            maxLength={500}
            name="comment"
            description={t('common.optional')}
          />
        </>
      );
      break;
    case 'company':
      body = (
        <Field
          label={t('registration.company.label')}
          value={data.companyName}
          onChange={(value) => update('companyName', value, 'companyName')}
          error={errors.companyName}
          maxLength={50}
          name="companyName"
          autoComplete="organization"
          isRequired
        />
      );
      break;
    case 'name':
      body = (
        <>
          <Field
            label={t('registration.name.first')}
            value={data.firstName}
            onChange={(value) => update('firstName', value, 'contactPerson')}
            error={errors.contactPerson}
            name="firstName"
            autoComplete="given-name"
            isRequired
          />
          <Field
            label={t('registration.name.last')}
            value={data.lastName}
            onChange={(value) => {
              update('lastName', value, 'lastName');
              if (errors.fullName) setErrors((previous) => ({ ...previous, fullName: '' }));
            }}
            error={errors.lastName || errors.fullName}
            name="lastName"
            autoComplete="family-name"
            isRequired
          />
          {nameTooLong(data) && (
            <p className="field-warning" role="status" data-testid="name-length-warning">
              {t('registration.name.tooLong', { max: 50 })}
            </p>
          )}
        </>
      );
      break;
    case 'email':
      body = (
        <Field
          label={t('registration.email.label')}
          type="email"
          value={data.email}
          onChange={(value) => update('email', value, 'userName')}
          error={errors.userName}
          name="userName"
          autoComplete="email"
          description={t('registration.email.help')}
          isRequired
        />
      );
      break;
    case 'number':
      body = isPrivate(data) ? (
        <Field
          label={t('registration.number.personal')}
          value={data.number}
          onChange={(value) => update('number', value, 'personal_org_number')}
          error={errors.personal_org_number}
          description={t('registration.number.personalHelp')}
          inputMode="numeric"
          maxLength={13}
          name="personal_org_number"
          isRequired
        />
      ) : (
        <Field
          label={t('registration.number.org')}
          value={data.number}
          onChange={(value) => update('number', value, 'personal_org_number')}
          error={errors.personal_org_number}
          description={t('registration.number.orgHelp')}
          maxLength={50}
          name="personal_org_number"
          isRequired
        />
      );
      break;
    case 'address':
      body = (
        <>
          <Field label={t('registration.address.street')} value={data.street} onChange={(value) => update('street', value, 'address')} error={errors.address} maxLength={50} name="address" autoComplete="street-address" isRequired />
          <div className="field-row">
            <Field
              label={t('registration.address.postalCode')}
              value={data.postalCode}
              onChange={(value) => update('postalCode', value, 'zipCode')}
              error={errors.zipCode}
              maxLength={7}
              name="zipCode"
              autoComplete="postal-code"
              className="field-short"
              isRequired
            />
            <Field label={t('registration.address.city')} value={data.city} onChange={(value) => update('city', value, 'city')} error={errors.city} maxLength={50} name="city" autoComplete="address-level2" isRequired />
          </div>
          <SelectField
            label={t('registration.address.country')}
            value={data.addressCountryCode}
            onChange={(code) => update('addressCountryCode', code, 'country')}
            options={countryOptions(i18n.language).map((country) => ({ value: country.code, label: country.name }))}
            error={errors.country}
          />
        </>
      );
      break;
    case 'phone':
      body = (
        <div className="phone-row">
          <SelectField
            label={t('registration.phone.dialCode')}
            value={data.dialCode}
            onChange={(dial) => update('dialCode', dial, 'phone')}
            options={countryOptions(i18n.language)
              .filter((country, position, list) => list.findIndex((other) => other.dial === country.dial) === position)
              .map((country) => ({ value: country.dial, label: `+${country.dial} ${country.name}` }))}
            className="field-dial"
            testId="dial-code"
          />
          <Field
            label={t('registration.phone.number')}
            type="tel"
            value={data.phone}
            onChange={(value) => update('phone', value, 'phone')}
            error={errors.phone}
            description={phoneHintVisible(data.phone, data.dialCode) ? t('registration.phone.hint') : t('registration.phone.help')}
            inputMode="tel"
            autoComplete="tel-national"
            name="phone"
            isRequired
          />
        </div>
      );
      break;
    case 'password':
      body = (
        <>
          <Field
            label={t('registration.password.label')}
            type="password"
            value={data.password}
            onChange={(value) => update('password', value, 'userPassword')}
            error={errors.userPassword}
            description={t('password.rules')}
            autoComplete="new-password"
            name="userPassword"
            isRequired
          />
          <Field
            label={t('registration.password.confirm')}
            type="password"
            value={data.confirmation}
            onChange={(value) => update('confirmation', value, 'userPassword_confirmation')}
            error={errors.userPassword_confirmation}
            autoComplete="new-password"
            name="userPassword_confirmation"
            isRequired
          />
        </>
      );
      break;
    case 'review':
      body = (
        <>
          <dl className="review-list" data-testid="review">
            <ReviewRow label={t('registration.review.type')} value={isPrivate(data) ? t('registration.welcome.private') : t('registration.welcome.company')} />
            <ReviewRow label={t('registration.country.label')} value={`${countryName(data.countryCode, i18n.language)} (+${data.dialCode})`} />
            <ReviewRow label={t('registration.imei.label')} value={data.imei} />
            <ReviewRow label={t('registration.reseller.label')} value={data.reseller} />
            {!isPrivate(data) && <ReviewRow label={t('registration.company.label')} value={data.companyName} />}
            <ReviewRow label={t('registration.review.name')} value={`${data.firstName} ${data.lastName}`} />
            <ReviewRow label={t('registration.email.label')} value={data.email} />
            {steps.includes('number') && <ReviewRow label={isPrivate(data) ? t('registration.number.personal') : t('registration.number.org')} value={data.number} />}
            <ReviewRow
              label={t('registration.review.address')}
              value={`${data.street}, ${data.postalCode} ${data.city}, ${countryName(data.addressCountryCode, i18n.language)}`}
            />
            <ReviewRow label={t('registration.phone.number')} value={`+${data.dialCode} ${data.phone}`} />
          </dl>
          {showPayment && (
            <section className="payment" aria-labelledby="payment-title">
              <h3 id="payment-title" className="section-title">
                {t('registration.payment.title')}
              </h3>
              {payment.isPending && <p aria-live="polite">{t('common.loading')}</p>}
              {payment.isError && <p className="field-description">{t('registration.payment.unavailable')}</p>}
              {paymentOptions.length > 0 && (
                <RadioGroup
                  className="radio-list"
                  value={data.paymentType > 0 ? String(data.paymentType) : null}
                  onChange={(value) => update('paymentType', Number(value), 'paymentType')}
                  isInvalid={Boolean(errors.paymentType)}
                  aria-labelledby="payment-title"
                >
                  {paymentOptions.map(([position, label]) => (
                    <Radio key={position} value={position} className="radio">
                      <span className="radio-dot" aria-hidden="true" />
                      <span className="radio-text">
                        <span className="radio-label">{label}</span>
                        {payment.data?.hints[position] && <span className="radio-hint">{payment.data.hints[position]}</span>}
                      </span>
                    </Radio>
                  ))}
                  {errors.paymentType && (
                    <Text slot="errorMessage" className="field-error" data-testid="payment-hint">
                      {errors.paymentType}
                    </Text>
                  )}
                </RadioGroup>
              )}
            </section>
          )}
          {brand.termsVisible && (
            <CheckboxField isSelected={data.terms} onChange={(value) => update('terms', value, 'terms')} name="terms" error={errors.terms}>
              {t('registration.terms.accept')}{' '}
              {brand.termsUrl && (
                <a href={brand.termsUrl} target="_blank" rel="noreferrer">
                  {t('registration.terms.link')}
                </a>
              )}
            </CheckboxField>
          )}
          {!brand.termsVisible && errors.terms && <p className="field-error">{translateMessage('validation.terms')}</p>}
        </>
      );
      break;
  }

  return (
    <div className="wizard" data-step={current}>
      <nav aria-label={t('registration.progress')}>
        <ol className="wizard-dots">
          {steps.map((id, position) => {
            const done = position < index || (position > index && stepIsValid(id, data, brand.subsiteId) && reachable(position));
            const canJump = position !== index && reachable(position);
            const state = position === index ? t('registration.dot.current') : done ? t('registration.dot.done') : t('registration.dot.todo');
            return (
              <li key={id} className={`wizard-dot${position === index ? ' current' : ''}${done ? ' done' : ''}`}>
                <button
                  type="button"
                  onClick={() => canJump && goTo(id)}
                  disabled={!canJump}
                  aria-current={position === index ? 'step' : undefined}
                  aria-label={t('registration.dot.label', { n: position + 1, total: steps.length, title: t(`registration.steps.${id}`), state })}
                  data-testid={`dot-${id}`}
                >
                  <span aria-hidden="true">{position + 1}</span>
                </button>
              </li>
            );
          })}
        </ol>
      </nav>
      <form className="wizard-form" onSubmit={next} noValidate>
        <p className="wizard-count">{t('registration.stepOf', { n: index + 1, total: steps.length })}</p>
        <h2 id="wizard-step-title" className="wizard-step-title" tabIndex={-1} ref={heading}>
          {stepTitle}
        </h2>
        {current === 'welcome' && <p className="auth-lead">{t('registration.welcome.lead', { brand: brand.name })}</p>}
        <div className="wizard-body">{body}</div>
        <div className="form-actions wizard-actions">
          {index > 0 ? (
            <Button className="btn btn-secondary" onPress={() => goTo(steps[index - 1] ?? 'welcome')} isDisabled={busy}>
              {t('common.back')}
            </Button>
          ) : (
            <Link className="btn btn-secondary" to={PATHS.login}>
              {t('common.cancel')}
            </Link>
          )}
          <Button type="submit" className="btn btn-primary" isDisabled={busy || (current === 'review' && showPayment && payment.isPending)}>
            {current === 'review' ? t('registration.submit') : t('common.next')}
          </Button>
        </div>
      </form>
    </div>
  );
}

function ReviewRow({ label, value }: { label: string; value: string }) {
  return (
    <div className="review-row">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
