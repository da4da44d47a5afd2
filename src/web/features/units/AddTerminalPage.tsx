import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type AccountChoice, addTerminalSchema, VEHICLE_TYPES } from '../../../modules/units/model';
import { Banner, Field, SelectField } from '../../components/Form';
import { api, errorText, isApiError } from '../../lib/api';
import { unitEditPath } from '../../lib/paths';
import { useSession } from '../../lib/session';
import { check, type FieldMessages } from '../../lib/validation';
import { AccountPicker } from './AccountPicker';
import { formatDateTime } from './ui';

/** How often the page asks whether the new tracker has reported. */
const POLL_MS = 5000;

interface Added {
  ID: number;
  Name: string;
  Imei: string;
}

interface FirstPosition {
  ID: number;
  LastSeen: string | null;
  Position: { lat: number; lon: number; time: string | null } | null;
}

function AwaitPosition({ unit }: { unit: Added }) {
  const { t, i18n } = useTranslation();
  const status = useQuery({
    queryKey: ['units', 'first-position', unit.ID],
    queryFn: () => api.get<FirstPosition>(`/api/admin/units/${unit.ID}/first-position`),
    refetchInterval: (query) => (query.state.data?.Position ? false : POLL_MS),
  });
  const position = status.data?.Position;
  return (
    <section className="unit-section" aria-labelledby="added-title" data-testid="terminal-added">
      <h2 id="added-title" className="unit-section-title">
        {t('units.add.added', { name: unit.Name })}
      </h2>
      <p>IMEI {unit.Imei}</p>
      <div role="status" aria-live="polite" data-testid="first-position">
        {position ? (
          <p>
            {t('units.add.firstPosition', {
              lat: position.lat.toFixed(6),
              lon: position.lon.toFixed(6),
              time: formatDateTime(position.time ?? status.data?.LastSeen ?? null, i18n.language),
            })}
          </p>
        ) : (
          <p className="awaiting">
            <span className="spinner" aria-hidden="true" /> {t('units.add.waiting')}
          </p>
        )}
      </div>
      <p>
        <Link className="btn btn-secondary" to={unitEditPath(unit.ID)}>
          {t('units.add.edit')}
        </Link>
      </p>
    </section>
  );
}

/** Spec §2 /administration/add-terminal (administrators and support): an IMEI from stock (§5 rules) joins the account. */
export function AddTerminalPage() {
  const { t } = useTranslation();
  const session = useSession();
  const isSupport = session?.user.Role === 'support';
  const imeiInput = useRef<HTMLInputElement>(null);
  const [form, setForm] = useState({ imei: '', name: '', registrationNumber: '', vehicleType: 'passenger_car', accountId: '' });
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [added, setAdded] = useState<Added | null>(null);
  const [account, setAccount] = useState<AccountChoice | null>(null);
  const set = (patch: Partial<typeof form>) => setForm((current) => ({ ...current, ...patch }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const body = {
      imei: form.imei,
      name: form.name || undefined,
      registrationNumber: form.registrationNumber || undefined,
      vehicleType: form.vehicleType,
      accountId: isSupport && account ? account.id : undefined,
    };
    const parsed = check(addTerminalSchema, body);
    if (isSupport && !account) {
      setErrors({ ...(parsed.ok ? {} : parsed.errors), accountId: t('units.add.accountRequired') });
      return;
    }
    if (!parsed.ok) {
      setErrors(parsed.errors);
      if (parsed.errors.imei) imeiInput.current?.focus();
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      setAdded(await api.post<Added>('/api/admin/units', body));
      setForm({ imei: '', name: '', registrationNumber: '', vehicleType: 'passenger_car', accountId: form.accountId });
    } catch (error) {
      if (isApiError(error) && error.status === 422 && Object.keys(error.fields).length > 0) {
        const fields: FieldMessages = {};
        for (const [name, messages] of Object.entries(error.fields)) fields[name] = messages.join(' ');
        setErrors(fields);
        // Spec §8: an IMEI failure shows under the field and focus returns to it.
        if (fields.imei) imeiInput.current?.focus();
      } else {
        setFailure(errorText(error));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="page add-terminal-page">
      <h1 className="page-title">{t('units.add.title')}</h1>
      <p>{t('units.add.lead')}</p>
      {failure && <Banner kind="error">{failure}</Banner>}
      <form className="unit-section add-terminal-form" onSubmit={(event) => void submit(event)} noValidate>
        <Field
          label={t('units.add.imei')}
          value={form.imei}
          onChange={(imei) => set({ imei: imei.replace(/\s/g, '') })}
          error={errors.imei}
          inputMode="numeric"
          maxLength={15}
          isRequired
          inputRef={imeiInput}
          description={t('units.add.imeiHint')}
          testId="add-imei"
        />
        {isSupport && <AccountPicker value={account} onChange={setAccount} error={errors.accountId} />}
        <Field label={t('units.fields.name')} value={form.name} onChange={(name) => set({ name })} error={errors.name} maxLength={100} description={t('units.add.nameHint')} />
        <Field
          label={t('units.fields.registrationNumber')}
          value={form.registrationNumber}
          onChange={(registrationNumber) => set({ registrationNumber })}
          error={errors.registrationNumber}
          maxLength={24}
        />
        <SelectField
          label={t('units.columns.vehicleType')}
          value={form.vehicleType}
          onChange={(vehicleType) => set({ vehicleType })}
          options={VEHICLE_TYPES.map((type) => ({ value: type, label: t(`units.vehicleType.${type}`) }))}
        />
        <Button type="submit" className="btn btn-primary" isDisabled={busy}>
          {busy ? t('units.saving') : t('units.add.submit')}
        </Button>
      </form>
      {added && <AwaitPosition key={added.ID} unit={added} />}
    </div>
  );
}
