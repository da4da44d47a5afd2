import { useTranslation } from 'react-i18next';
import { CheckboxField, Field, SelectField } from '../Form';
import { errorText, isApiError } from '../../lib/api';

/** The alarm receiver's own fields, shared by the receivers screen and a unit's edit page. */

/** Dial codes of the markets (spec: Sweden, Norway, United Kingdom) and their neighbours. */
export const DIAL_CODES = ['+46', '+47', '+44', '+45', '+358'];

/** A stored dial code (`46`, `+46`) as it is shown and chosen: with its plus. */
export function dialCode(code: string | null | undefined): string {
  const digits = (code ?? '').replace(/\D/g, '');
  return digits ? `+${digits}` : '+46';
}

/** A receiver's or alert number's phone as it is shown. */
export function phoneText(code: string | null | undefined, phone: string | null | undefined): string {
  return phone ? `${dialCode(code)} ${phone}` : '–';
}

export interface ReceiverFormState {
  name: string;
  email: string;
  country_code: string;
  phone: string;
  push_notification: boolean;
  security_alarm: boolean;
  function_alarm: boolean;
}

export function emptyReceiverForm(): ReceiverFormState {
  return { name: '', email: '', country_code: '+46', phone: '', push_notification: true, security_alarm: true, function_alarm: true };
}

/** The form's fields as the add-edit call takes them. */
export function receiverPayload(form: ReceiverFormState, showsPhone: boolean) {
  return {
    name: form.name.trim(),
    email: form.email.trim() || null,
    country_code: showsPhone && form.phone.trim() ? form.country_code : null,
    phone: showsPhone ? form.phone.trim() || null : null,
    push_notification: form.push_notification ? 1 : 0,
    security_alarm: form.security_alarm ? 1 : 0,
    function_alarm: form.function_alarm ? 1 : 0,
  } as const;
}

export interface SaveFailure {
  fields: Record<string, string>;
  message: string | null;
}

const FORM_FIELDS = ['name', 'email', 'country_code', 'phone'];

/** A failed save: the server's 422 keys beside their fields, anything else (units, an existing receiver) above the buttons. */
export function saveFailure(error: unknown): SaveFailure {
  if (isApiError(error) && error.status === 422) {
    const fields: Record<string, string> = {};
    const rest: string[] = [];
    for (const [name, messages] of Object.entries(error.fields)) {
      if (FORM_FIELDS.includes(name)) fields[name] = messages.join(' ');
      else rest.push(...messages);
    }
    if (Object.keys(fields).length > 0 || rest.length > 0) return { fields, message: rest.length > 0 ? rest.join(' ') : null };
  }
  return { fields: {}, message: errorText(error) };
}

/**
 * A phone number as its dial code and its number (spec §5's rules are the server's), side by side. A stored code
 * that is not among the markets' is offered too, so that it shows as it is. Test ids: `<testIdPrefix>-country`, `-phone`.
 */
export function PhoneFields(props: {
  countryCode: string;
  phone: string;
  onCountryCode: (code: string) => void;
  onPhone: (phone: string) => void;
  errors: { country_code?: string; phone?: string };
  isRequired?: boolean;
  testIdPrefix: string;
}) {
  const { t } = useTranslation();
  const codes = DIAL_CODES.includes(props.countryCode) ? DIAL_CODES : [props.countryCode, ...DIAL_CODES];
  return (
    <div className="alarm-form-row">
      <SelectField
        label={t('alarmReceivers.fields.countryCode')}
        value={props.countryCode}
        onChange={props.onCountryCode}
        options={codes.map((code) => ({ value: code, label: code }))}
        error={props.errors.country_code}
        testId={`${props.testIdPrefix}-country`}
      />
      <Field
        label={t('alarmReceivers.fields.phone')}
        type="tel"
        inputMode="tel"
        value={props.phone}
        onChange={props.onPhone}
        error={props.errors.phone}
        isRequired={props.isRequired}
        maxLength={30}
        testId={`${props.testIdPrefix}-phone`}
      />
    </div>
  );
}

/** Name, e-mail, phone (sub-site 0 only), push and the two alarm classes. A linked user's name and e-mail are theirs. */
export function ReceiverFields({
  form,
  onChange,
  errors,
  showsPhone,
  linked = false,
}: {
  form: ReceiverFormState;
  onChange: (next: ReceiverFormState) => void;
  errors: Record<string, string>;
  showsPhone: boolean;
  linked?: boolean;
}) {
  const { t } = useTranslation();
  const set = <K extends keyof ReceiverFormState>(key: K) => (value: ReceiverFormState[K]) => onChange({ ...form, [key]: value });
  return (
    <div className="alarm-form">
      {!linked && (
        <div className="alarm-form-row">
          <Field label={t('alarmReceivers.fields.name')} value={form.name} onChange={set('name')} error={errors.name} isRequired maxLength={100} testId="receiver-form-name" />
          <Field label={t('alarmReceivers.fields.email')} type="email" value={form.email} onChange={set('email')} error={errors.email} maxLength={255} testId="receiver-form-email" />
        </div>
      )}
      {showsPhone && (
        <PhoneFields countryCode={form.country_code} phone={form.phone} onCountryCode={set('country_code')} onPhone={set('phone')} errors={errors} testIdPrefix="receiver-form" />
      )}
      <div className="alarm-form-checks">
        <CheckboxField isSelected={form.security_alarm} onChange={set('security_alarm')}>
          {t('alarmReceivers.fields.security')}
        </CheckboxField>
        <CheckboxField isSelected={form.function_alarm} onChange={set('function_alarm')}>
          {t('alarmReceivers.fields.function')}
        </CheckboxField>
        <CheckboxField isSelected={form.push_notification} onChange={set('push_notification')}>
          {t('alarmReceivers.fields.push')}
        </CheckboxField>
      </div>
    </div>
  );
}

