import { type FormEvent, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { type OldRegistrationInput, oldRegistrationSchema } from '../../../modules/accounts/model';
import { useBrand } from '../../brands/BrandProvider';
import { oldFormHasComment } from '../../brands/rules';
import { useDialogs } from '../../components/Dialogs';
import { CheckboxField, Field } from '../../components/Form';
import { api, errorText, isApiError } from '../../lib/api';
import { setFlash } from '../../lib/flash';
import { requestCarInfoOnboarding } from '../../lib/onboarding';
import { PATHS } from '../../lib/paths';
import { check, type FieldMessages } from '../../lib/validation';

interface OldFormData {
  Imei: string;
  reseller: string;
  comment: string;
  companyName: string;
  acc_company_phone: string;
  contactPerson: string;
  fullName: string;
  userName: string;
  userPassword: string;
  userPassword_confirmation: string;
  address: string;
  zipCode: string;
  city: string;
  country: string;
  phone: string;
  terms: boolean;
}

function focusFirstInvalid() {
  window.requestAnimationFrame(() => document.querySelector<HTMLElement>('.old-form [aria-invalid="true"]')?.focus());
}

/** Spec §2/§3: the old single registration form (companies). */
export function OldRegistrationForm() {
  const { t } = useTranslation();
  const brand = useBrand();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const hasComment = oldFormHasComment(brand);
  const [data, setData] = useState<OldFormData>({
    Imei: '',
    reseller: '',
    comment: '',
    companyName: '',
    acc_company_phone: '',
    contactPerson: '',
    fullName: '',
    userName: '',
    userPassword: '',
    userPassword_confirmation: '',
    address: '',
    zipCode: '',
    city: '',
    country: '',
    phone: '',
    terms: !brand.termsVisible,
  });
  const [errors, setErrors] = useState<FieldMessages>({});
  const [busy, setBusy] = useState(false);
  const imeiInput = useRef<HTMLInputElement>(null);

  function set<K extends keyof OldFormData>(field: K) {
    return (value: OldFormData[K]) => {
      setData((previous) => ({ ...previous, [field]: value }));
      if (errors[field]) setErrors((previous) => ({ ...previous, [field]: '' }));
    };
  }

  function payload(): OldRegistrationInput {
    const phone = data.phone.trim();
    return {
      Imei: data.Imei.trim(),
      reseller: data.reseller,
      comment: hasComment ? data.comment : '',
      fullName: data.fullName,
      userName: data.userName,
      userPassword: data.userPassword,
      userPassword_confirmation: data.userPassword_confirmation,
      companyName: data.companyName,
      acc_company_phone: data.acc_company_phone,
      contactPerson: data.contactPerson,
      address: data.address,
      zipCode: data.zipCode,
      city: data.city,
      country: data.country,
      phone: phone === '' || phone.startsWith('+') ? phone : `+${phone}`,
      terms: data.terms ? 1 : 0,
      subsiteID: brand.subsiteId,
      paymentType: 0,
      is_private_account: 0,
    };
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const body = payload();
    const parsed = check(oldRegistrationSchema, body);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      focusFirstInvalid();
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await api.post('/api/register', body);
      setFlash('registered');
      // The first sign-in opens the car info form for the registered tracker.
      requestCarInfoOnboarding();
      navigate(PATHS.login, { replace: true });
    } catch (caught) {
      if (isApiError(caught) && Object.keys(caught.fields).length > 0) {
        const fieldErrors: FieldMessages = {};
        for (const [field, messages] of Object.entries(caught.fields)) fieldErrors[field] = messages.join(' ');
        setErrors(fieldErrors);
        await dialogs.showError(caught.message);
        if (fieldErrors.Imei) imeiInput.current?.focus();
        else focusFirstInvalid();
      } else {
        await dialogs.showError(errorText(caught));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="old-form" onSubmit={submit} noValidate aria-labelledby="page-title">
      <fieldset className="form-section">
        <legend>{t('registration.old.tracker')}</legend>
        <Field label={t('registration.imei.label')} value={data.Imei} onChange={set('Imei')} error={errors.Imei} inputMode="numeric" maxLength={15} name="Imei" inputRef={imeiInput} description={t('registration.imei.help')} isRequired />
        <Field label={t('registration.reseller.label')} value={data.reseller} onChange={set('reseller')} error={errors.reseller} maxLength={255} name="reseller" isRequired />
        {hasComment && <Field label={t('registration.reseller.comment')} value={data.comment} onChange={set('comment')} error={errors.comment} maxLength={500} name="comment" description={t('common.optional')} />}
      </fieldset>
      <fieldset className="form-section">
        <legend>{t('registration.old.company')}</legend>
        <Field label={t('registration.company.label')} value={data.companyName} onChange={set('companyName')} error={errors.companyName} maxLength={50} name="companyName" autoComplete="organization" isRequired />
        <Field label={t('registration.number.org')} value={data.acc_company_phone} onChange={set('acc_company_phone')} error={errors.acc_company_phone} maxLength={50} name="acc_company_phone" description={t('registration.number.orgHelp')} isRequired />
        <Field label={t('registration.old.contactPerson')} value={data.contactPerson} onChange={set('contactPerson')} error={errors.contactPerson} maxLength={50} name="contactPerson" isRequired />
        <Field label={t('registration.address.street')} value={data.address} onChange={set('address')} error={errors.address} maxLength={50} name="address" autoComplete="street-address" isRequired />
        <div className="field-row">
          <Field label={t('registration.address.postalCode')} value={data.zipCode} onChange={set('zipCode')} error={errors.zipCode} maxLength={7} name="zipCode" autoComplete="postal-code" className="field-short" isRequired />
          <Field label={t('registration.address.city')} value={data.city} onChange={set('city')} error={errors.city} maxLength={50} name="city" autoComplete="address-level2" isRequired />
        </div>
        <Field label={t('registration.address.country')} value={data.country} onChange={set('country')} error={errors.country} maxLength={50} name="country" autoComplete="country-name" isRequired />
        <Field label={t('registration.old.phone')} type="tel" value={data.phone} onChange={set('phone')} error={errors.phone} name="phone" autoComplete="tel" description={t('registration.old.phoneHelp')} isRequired />
      </fieldset>
      <fieldset className="form-section">
        <legend>{t('registration.old.user')}</legend>
        <Field label={t('registration.old.fullName')} value={data.fullName} onChange={set('fullName')} error={errors.fullName} maxLength={50} name="fullName" autoComplete="name" isRequired />
        <Field label={t('registration.email.label')} type="email" value={data.userName} onChange={set('userName')} error={errors.userName} name="userName" autoComplete="email" isRequired />
        <Field label={t('registration.password.label')} type="password" value={data.userPassword} onChange={set('userPassword')} error={errors.userPassword} name="userPassword" autoComplete="new-password" description={t('password.rules')} isRequired />
        <Field label={t('registration.password.confirm')} type="password" value={data.userPassword_confirmation} onChange={set('userPassword_confirmation')} error={errors.userPassword_confirmation} name="userPassword_confirmation" autoComplete="new-password" isRequired />
      </fieldset>
      {brand.termsVisible && (
        <CheckboxField isSelected={data.terms} onChange={set('terms')} name="terms" error={errors.terms}>
          {t('registration.terms.accept')}{' '}
          {brand.termsUrl && (
            <a href={brand.termsUrl} target="_blank" rel="noreferrer">
              {t('registration.terms.link')}
            </a>
          )}
        </CheckboxField>
      )}
      <div className="form-actions">
        <Link className="btn btn-secondary" to={PATHS.login}>
          {t('common.cancel')}
        </Link>
        <Button type="submit" className="btn btn-primary" isDisabled={busy}>
          {t('registration.submit')}
        </Button>
      </div>
    </form>
  );
}
