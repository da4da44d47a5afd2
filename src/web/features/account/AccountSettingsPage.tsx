import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import {
  ACCOUNT_LANGUAGES,
  type AccountSettingsInput,
  type AccountSettingsView,
  accountSettingsSchema,
  type CompanyDetails,
  FUEL_MARKETS,
  FUEL_TYPES,
  type FuelMarket,
  type FuelType,
  MARKET_CURRENCY,
} from '../../../modules/accounts/model';
import { DecimalField } from '../../components/DecimalField';
import { Banner, CheckboxField, Field, SelectField } from '../../components/Form';
import { api, errorText, isApiError } from '../../lib/api';
import { check, type FieldMessages } from '../../lib/validation';
import './account-settings.css';

const settingsKey = ['account-settings'] as const;
const COMPANY_FIELDS = ['companyName', 'contactPerson', 'address', 'postalCode', 'city', 'country', 'orgNumber', 'phone', 'invoiceType', 'reseller'] as const;
type PriceKey = `${FuelMarket}:${FuelType}`;

/** The time zones the browser knows, the account's own first when it is missing from the list. */
function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['Europe/Stockholm', 'Europe/Oslo', 'Europe/London', 'UTC'];
  return known.includes(current) ? known : [current, ...known];
}

interface FormState {
  company: CompanyDetails;
  prices: Record<PriceKey, number>;
  language: AccountSettingsInput['language'];
  timezone: string;
  usersMayCreatePurposes: boolean;
  usersMayCreateProjects: boolean;
  qrCheckinWithoutAccess: boolean;
}

function formOf(view: AccountSettingsView): FormState {
  const prices = {} as Record<PriceKey, number>;
  for (const market of FUEL_MARKETS) for (const fuel of FUEL_TYPES) prices[`${market}:${fuel}`] = 0;
  for (const price of view.fuelPrices) prices[`${price.market}:${price.fuelType}`] = price.price;
  return {
    company: { ...view.company },
    prices,
    language: view.language,
    timezone: view.timezone,
    usersMayCreatePurposes: view.usersMayCreatePurposes,
    usersMayCreateProjects: view.usersMayCreateProjects,
    qrCheckinWithoutAccess: view.qrCheckinWithoutAccess,
  };
}

/** Only prices above zero are set; an empty field is "not set" (the reports then ask for one). */
function inputOf(form: FormState): AccountSettingsInput {
  const fuelPrices = FUEL_MARKETS.flatMap((market) =>
    FUEL_TYPES.flatMap((fuelType) => {
      const price = form.prices[`${market}:${fuelType}`];
      return price > 0 ? [{ market, fuelType, price }] : [];
    }),
  );
  return {
    company: form.company,
    fuelPrices,
    language: form.language,
    timezone: form.timezone,
    usersMayCreatePurposes: form.usersMayCreatePurposes,
    usersMayCreateProjects: form.usersMayCreateProjects,
    qrCheckinWithoutAccess: form.qrCheckinWithoutAccess,
  };
}

/** Who may change report frequency (spec §6): each switch saves at once. */
function FrequencyPermissions({ view }: { view: AccountSettingsView }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [failure, setFailure] = useState<string | null>(null);
  async function toggle(userId: number, allowed: boolean) {
    setFailure(null);
    try {
      await api.post(`/api/admin/users/${userId}/report-frequency`, { denied: !allowed });
      await client.invalidateQueries({ queryKey: settingsKey });
    } catch (error) {
      setFailure(errorText(error));
    }
  }
  return (
    <section className="unit-section" aria-labelledby="settings-frequency">
      <h2 id="settings-frequency" className="unit-section-title">
        {t('accountSettings.frequency.title')}
      </h2>
      <p className="field-description">{t('accountSettings.frequency.lead')}</p>
      {failure && <Banner kind="error">{failure}</Banner>}
      <ul className="settings-frequency-list" data-testid="settings-frequency">
        {view.reportFrequency.map((person) => (
          <li key={person.userId}>
            <CheckboxField isSelected={!person.denied} onChange={(allowed) => void toggle(person.userId, allowed)}>
              {t('accountSettings.frequency.mayChange', { name: person.name, email: person.email })}
            </CheckboxField>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The catalogues in one place (spec §2 account settings: default purposes, departments, projects, tags; feature
 * profiles): the editors themselves, kept here as on the unit list and in the trip log. The screen is given them by
 * the app's routes, as a feature shows no other feature's screens itself.
 */
function Catalogues({ editors }: { editors: AccountSettingsEditors }) {
  const { t } = useTranslation();
  return (
    <>
      <section className="unit-section" aria-labelledby="settings-catalogues" data-testid="settings-catalogues">
        <h2 id="settings-catalogues" className="unit-section-title">
          {t('accountSettings.catalogues.title')}
        </h2>
        {editors.catalog}
      </section>
      <section className="unit-section" aria-labelledby="settings-purposes" data-testid="settings-purposes">
        <h2 id="settings-purposes" className="unit-section-title">
          {t('accountSettings.catalogues.purposes')}
        </h2>
        {editors.purposes}
      </section>
    </>
  );
}

/** The catalogue editors the screen embeds (the units' and the trip log's own components). */
export interface AccountSettingsEditors {
  catalog: ReactNode;
  purposes: ReactNode;
}

/**
 * Spec §2 account settings (administrators): company details (§3 Account, §5 limits), market fuel prices per fuel type in
 * SEK or NOK (decimal comma in sv and no), the account's language and time zone, the switches of §6 and who may change
 * report frequency; the catalogues in one place.
 */
export function AccountSettingsPage({ editors }: { editors: AccountSettingsEditors }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const settings = useQuery({ queryKey: settingsKey, queryFn: () => api.get<AccountSettingsView>('/api/admin/account-settings') });
  const [form, setForm] = useState<FormState | null>(null);
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (settings.data && form === null) setForm(formOf(settings.data));
  }, [settings.data, form]);

  const zones = useMemo(() => timeZones(form?.timezone ?? 'Europe/Stockholm'), [form?.timezone]);

  if (settings.isError) return <Banner kind="error">{errorText(settings.error)}</Banner>;
  if (!form || !settings.data) return <p role="status">{t('accountSettings.loading')}</p>;
  const view = settings.data;
  const markets = [view.market, ...FUEL_MARKETS.filter((market) => market !== view.market)];
  const update = (patch: Partial<FormState>) => {
    setSaved(false);
    setForm((current) => (current ? { ...current, ...patch } : current));
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!form) return;
    setFailure(null);
    setSaved(false);
    const body = inputOf(form);
    const parsed = check(accountSettingsSchema, body);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const next = await api.post<AccountSettingsView>('/api/admin/account-settings', body);
      client.setQueryData(settingsKey, next);
      setForm(formOf(next));
      setSaved(true);
    } catch (error) {
      if (isApiError(error) && error.status === 422 && Object.keys(error.fields).length > 0) {
        const fields: FieldMessages = {};
        for (const [name, messages] of Object.entries(error.fields)) fields[name] = messages.join(' ');
        setErrors(fields);
      } else {
        setFailure(errorText(error));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="page account-settings-page">
      <h1 className="page-title">{t('accountSettings.title')}</h1>
      {failure && <Banner kind="error">{failure}</Banner>}
      {saved && (
        <Banner kind="success">
          <span data-testid="settings-saved">{t('accountSettings.saved')}</span>
        </Banner>
      )}
      <form onSubmit={(event) => void submit(event)} noValidate data-testid="account-settings-form">
        <section className="unit-section" aria-labelledby="settings-company">
          <h2 id="settings-company" className="unit-section-title">
            {t('accountSettings.company.title')}
          </h2>
          <div className="field-grid">
            {COMPANY_FIELDS.map((field) => (
              <Field
                key={field}
                label={t(`accountSettings.company.${field}`)}
                value={form.company[field]}
                onChange={(value) => update({ company: { ...form.company, [field]: value } })}
                error={errors[`company.${field}`]}
                testId={`settings-${field}`}
              />
            ))}
          </div>
        </section>

        <section className="unit-section" aria-labelledby="settings-fuel">
          <h2 id="settings-fuel" className="unit-section-title">
            {t('accountSettings.fuel.title')}
          </h2>
          <p className="field-description">{t('accountSettings.fuel.lead')}</p>
          {markets.map((market) => (
            <fieldset key={market} className="settings-fuel-market" data-testid={`settings-fuel-${market}`}>
              <legend>{t(`accountSettings.fuel.market.${market}`, { currency: MARKET_CURRENCY[market] })}</legend>
              <div className="field-grid">
                {FUEL_TYPES.map((fuel) => {
                  const key: PriceKey = `${market}:${fuel}`;
                  const index = inputOf(form).fuelPrices.findIndex((price) => price.market === market && price.fuelType === fuel);
                  return (
                    <DecimalField
                      key={key}
                      label={t('accountSettings.fuel.price', { fuel: t(`units.fuelType.${fuel}`), currency: MARKET_CURRENCY[market] })}
                      value={form.prices[key]}
                      onChange={(price) => update({ prices: { ...form.prices, [key]: price } })}
                      error={index >= 0 ? errors[`fuelPrices.${index}.price`] : undefined}
                      testId={`settings-price-${market}-${fuel}`}
                    />
                  );
                })}
              </div>
            </fieldset>
          ))}
        </section>

        <section className="unit-section" aria-labelledby="settings-locale">
          <h2 id="settings-locale" className="unit-section-title">
            {t('accountSettings.locale.title')}
          </h2>
          <p className="field-description">{t('accountSettings.locale.lead')}</p>
          <div className="field-grid">
            <SelectField
              label={t('accountSettings.locale.language')}
              value={form.language}
              onChange={(value) => update({ language: value as FormState['language'] })}
              options={ACCOUNT_LANGUAGES.map((language) => ({ value: language, label: t(`accountSettings.languages.${language}`) }))}
              testId="settings-language"
            />
            <SelectField
              label={t('accountSettings.locale.timezone')}
              value={form.timezone}
              onChange={(value) => update({ timezone: value })}
              options={zones.map((zone) => ({ value: zone, label: zone }))}
              error={errors.timezone}
              testId="settings-timezone"
            />
          </div>
        </section>

        <section className="unit-section" aria-labelledby="settings-switches">
          <h2 id="settings-switches" className="unit-section-title">
            {t('accountSettings.switches.title')}
          </h2>
          <CheckboxField isSelected={form.usersMayCreatePurposes} onChange={(on) => update({ usersMayCreatePurposes: on })}>
            {t('accountSettings.switches.purposes')}
          </CheckboxField>
          <CheckboxField isSelected={form.usersMayCreateProjects} onChange={(on) => update({ usersMayCreateProjects: on })}>
            {t('accountSettings.switches.projects')}
          </CheckboxField>
          <CheckboxField isSelected={form.qrCheckinWithoutAccess} onChange={(on) => update({ qrCheckinWithoutAccess: on })}>
            {t('accountSettings.switches.qr')}
          </CheckboxField>
        </section>

        <div className="settings-actions">
          <Button type="submit" className="btn btn-primary" isDisabled={busy} data-testid="settings-save">
            {t('accountSettings.save')}
          </Button>
        </div>
      </form>
      <FrequencyPermissions view={view} />
      <Catalogues editors={editors} />
    </div>
  );
}
