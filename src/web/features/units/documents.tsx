import { type ChangeEvent, useEffect, useId, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import {
  BALLAST_TYPES,
  IMAGE_MAX_BYTES,
  IMAGES_PER_UNIT,
  OBJECT_TYPES,
  objectDescriptionSchema,
  SKIRT_TYPES,
  theftReportSchema,
  type UnitDetail,
} from '../../../modules/units/model';
import { useDialogs } from '../../components/Dialogs';
import { DecimalField } from '../../components/DecimalField';
import { Field, SelectField } from '../../components/Form';
import { api, errorText } from '../../lib/api';
import { download, fetchObjectUrl } from '../../lib/files';
import {
  deleteImage,
  type ObjectDescriptionView,
  type TheftReportView,
  unitKeys,
  uploadImage,
  useSaveSection,
  useUnitSub,
} from './api';
import { formatDateTime, NativeField, Section, saveErrors, toInt } from './ui';
import type { FieldMessages } from '../../lib/validation';
import { check } from '../../lib/validation';

type Props = { unit: UnitDetail };

interface DescriptionForm {
  objectType: string;
  manufacturer: string;
  model: string;
  year: string;
  hullNumber: string;
  motor: string;
  motorNumber: string;
  horsepower: string;
  trackerLocation: string;
  dnaMarking: string;
  insuranceCompany: string;
  insuranceNumber: string;
  policeDetails: string;
  links: Array<{ name: string; url: string }>;
  serialNumber: string;
  productionDate: string;
  skirtType: string;
  lengthM: number;
  depthM: number;
  weightKg: number;
  ballastType: string;
}

function formOf(view: ObjectDescriptionView | null): DescriptionForm {
  return {
    objectType: view?.objectType ?? 'car',
    manufacturer: view?.manufacturer ?? '',
    model: view?.model ?? '',
    year: view?.year ? String(view.year) : '',
    hullNumber: view?.hullNumber ?? '',
    motor: view?.motor ?? '',
    motorNumber: view?.motorNumber ?? '',
    horsepower: view?.horsepower === null || view?.horsepower === undefined ? '' : String(view.horsepower),
    trackerLocation: view?.trackerLocation ?? '',
    dnaMarking: view?.dnaMarking ?? '',
    insuranceCompany: view?.insuranceCompany ?? '',
    insuranceNumber: view?.insuranceNumber ?? '',
    policeDetails: view?.policeDetails ?? '',
    links: view?.links ?? [],
    serialNumber: view?.serialNumber ?? '',
    productionDate: view?.productionDate ?? '',
    skirtType: view?.skirtType ?? '',
    lengthM: view?.lengthM ?? 0,
    depthM: view?.depthM ?? 0,
    weightKg: view?.weightKg ?? 0,
    ballastType: view?.ballastType ?? '',
  };
}

function Picture({ unitId, imageId, name, onDelete }: { unitId: number; imageId: number; name: string; onDelete: () => void }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let revoked = false;
    let created: string | null = null;
    fetchObjectUrl(`/api/units/${unitId}/images/${imageId}`)
      .then((objectUrl) => {
        created = objectUrl;
        if (!revoked) setUrl(objectUrl);
        else URL.revokeObjectURL(objectUrl);
      })
      .catch(() => setUrl(null));
    return () => {
      revoked = true;
      if (created) URL.revokeObjectURL(created);
    };
  }, [unitId, imageId]);
  return (
    <li className="picture" data-testid="picture">
      {url ? <img src={url} alt={name || t('units.pictures.picture')} /> : <span className="picture-placeholder" aria-hidden="true" />}
      <span className="picture-name">{name}</span>
      <Button className="btn btn-link" onPress={onDelete} aria-label={t('units.pictures.remove', { name })}>
        {t('units.pictures.removeShort')}
      </Button>
    </li>
  );
}

function Pictures({ unitId, description }: { unitId: number; description: ObjectDescriptionView | null }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const dialogs = useDialogs();
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const images = description?.images ?? [];
  const refresh = () => client.invalidateQueries({ queryKey: ['units', 'detail', unitId] });

  async function onFiles(event: ChangeEvent<HTMLInputElement>) {
    const files = [...(event.target.files ?? [])];
    event.target.value = '';
    setError(null);
    setBusy(true);
    try {
      for (const file of files) {
        // The same rules as the server, checked first so the user hears at once.
        if (!/\.(png|jpe?g)$/i.test(file.name)) throw new Error(t('units.pictures.type'));
        if (file.size > IMAGE_MAX_BYTES) throw new Error(t('units.pictures.tooLarge', { name: file.name }));
        await uploadImage(unitId, file);
      }
    } catch (caught) {
      setError(caught instanceof Error && !('status' in caught) ? caught.message : errorText(caught));
    } finally {
      setBusy(false);
      await refresh();
    }
  }

  async function remove(imageId: number) {
    const confirmed = await dialogs.showMessage({ message: t('units.pictures.confirmRemove'), cancel: true });
    if (!confirmed) return;
    try {
      await deleteImage(unitId, imageId);
    } catch (caught) {
      setError(errorText(caught));
    }
    await refresh();
  }

  return (
    <fieldset className="form-section pictures">
      <legend>{t('units.pictures.title', { count: images.length, max: IMAGES_PER_UNIT })}</legend>
      {!description && <p className="field-description">{t('units.pictures.saveFirst')}</p>}
      <ul className="picture-list">
        {images.map((image) => (
          <Picture key={image.id} unitId={unitId} imageId={image.id} name={image.fileName} onDelete={() => void remove(image.id)} />
        ))}
      </ul>
      <div className="field">
        <label htmlFor={inputId} className="field-label">
          {t('units.pictures.add')}
        </label>
        <input
          ref={input}
          id={inputId}
          type="file"
          accept="image/png,image/jpeg,.png,.jpg,.jpeg"
          multiple
          disabled={!description || busy || images.length >= IMAGES_PER_UNIT}
          onChange={(event) => void onFiles(event)}
          aria-describedby={`${inputId}-hint${error ? ` ${inputId}-error` : ''}`}
          data-testid="picture-input"
        />
        <p className="field-description" id={`${inputId}-hint`}>
          {t('units.pictures.hint')}
        </p>
        {error && (
          <p className="field-error" id={`${inputId}-error`} role="alert">
            {error}
          </p>
        )}
      </div>
    </fieldset>
  );
}

export function ObjectDescriptionSection({ unit }: Props) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const query = useUnitSub<ObjectDescriptionView | null>(unit.ID, 'object-description');
  const mutation = useSaveSection<ObjectDescriptionView>(unit.ID, 'object-description');
  const [form, setForm] = useState<DescriptionForm>(formOf(null));
  const [errors, setErrors] = useState<FieldMessages>({});
  const [message, setMessage] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const loaded = query.data;
  useEffect(() => {
    if (loaded !== undefined) setForm(formOf(loaded));
  }, [loaded]);
  const set = (patch: Partial<DescriptionForm>) => {
    setSaved(false);
    setForm((current) => ({ ...current, ...patch }));
  };
  const marine = form.objectType === 'boat' || form.objectType === 'waterjet';
  const body = () => ({
    ...form,
    year: toInt(form.year),
    horsepower: toInt(form.horsepower),
    productionDate: form.productionDate || null,
    skirtType: marine && form.skirtType ? form.skirtType : null,
    ballastType: marine && form.ballastType ? form.ballastType : null,
    lengthM: marine && form.lengthM > 0 ? form.lengthM : null,
    depthM: marine && form.depthM > 0 ? form.depthM : null,
    weightKg: marine && form.weightKg > 0 ? form.weightKg : null,
    serialNumber: marine ? form.serialNumber : '',
    links: form.links.filter((link) => link.name.trim() || link.url.trim()),
  });
  async function save() {
    setSaved(false);
    setMessage(null);
    const parsed = check(objectDescriptionSchema, body());
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    try {
      await mutation.mutateAsync(body());
      await query.refetch();
      setSaved(true);
    } catch (error) {
      const result = saveErrors(error);
      setErrors(result.fields);
      setMessage(result.message);
    }
  }
  async function pdf() {
    try {
      await download(`/api/units/${unit.ID}/object-description/pdf`, `object-description-${unit.ID}.pdf`);
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }
  const e = errors;
  const text = (name: keyof DescriptionForm, max = 100) => (
    <Field label={t(`units.object.${name}`)} value={form[name] as string} onChange={(value) => set({ [name]: value } as Partial<DescriptionForm>)} error={e[name]} maxLength={max} />
  );
  return (
    <Section
      id="object-description"
      title={t('units.sections.objectDescription')}
      onSave={() => void save()}
      saving={mutation.isPending}
      saved={saved}
      error={message}
      actions={
        loaded && (
          <Button className="btn btn-secondary" onPress={() => void pdf()}>
            {t('units.pdf.download')}
          </Button>
        )
      }
    >
      <div className="field-grid">
        <SelectField
          label={t('units.object.objectType')}
          value={form.objectType}
          onChange={(objectType) => set({ objectType })}
          options={OBJECT_TYPES.map((type) => ({ value: type, label: t(`units.objectType.${type}`) }))}
          testId="object-type"
        />
        {text('manufacturer')}
        {text('model')}
        <Field label={t('units.object.year')} value={form.year} onChange={(year) => set({ year })} error={e.year} inputMode="numeric" />
        <Field label={t('units.object.hullNumber')} value={form.hullNumber} onChange={(hullNumber) => set({ hullNumber })} error={e.hullNumber} maxLength={20} description={t('units.hints.hullNumber')} />
        {text('motor')}
        {text('motorNumber')}
        <Field label={t('units.object.horsepower')} value={form.horsepower} onChange={(horsepower) => set({ horsepower })} error={e.horsepower} inputMode="numeric" />
        {text('trackerLocation')}
        {text('dnaMarking')}
        {text('insuranceCompany')}
        {text('insuranceNumber')}
        {text('policeDetails', 500)}
      </div>
      {marine && (
        <fieldset className="form-section">
          <legend>{t('units.object.marine')}</legend>
          <div className="field-grid">
            {text('serialNumber')}
            <NativeField label={t('units.object.productionDate')} type="date" value={form.productionDate} onChange={(productionDate) => set({ productionDate })} error={e.productionDate} />
            <SelectField
              label={t('units.object.skirtType')}
              value={form.skirtType}
              onChange={(skirtType) => set({ skirtType })}
              options={[{ value: '', label: t('units.choose') }, ...SKIRT_TYPES.map((type) => ({ value: type, label: t(`units.skirtType.${type}`) }))]}
            />
            <SelectField
              label={t('units.object.ballastType')}
              value={form.ballastType}
              onChange={(ballastType) => set({ ballastType })}
              options={[{ value: '', label: t('units.choose') }, ...BALLAST_TYPES.map((type) => ({ value: type, label: t(`units.ballastType.${type}`) }))]}
            />
            <DecimalField label={t('units.object.lengthM')} value={form.lengthM} onChange={(lengthM) => set({ lengthM })} error={e.lengthM} />
            <DecimalField label={t('units.object.depthM')} value={form.depthM} onChange={(depthM) => set({ depthM })} error={e.depthM} />
            <DecimalField label={t('units.object.weightKg')} value={form.weightKg} onChange={(weightKg) => set({ weightKg })} error={e.weightKg} maximumFractionDigits={1} />
          </div>
        </fieldset>
      )}
      <fieldset className="form-section">
        <legend>{t('units.object.links')}</legend>
        {form.links.map((link, index) => (
          <div className="field-row" key={`link-${index.toString()}`}>
            <Field
              label={t('units.object.linkName')}
              value={link.name}
              onChange={(name) => set({ links: form.links.map((item, i) => (i === index ? { ...item, name } : item)) })}
              error={e[`links.${index}.name`]}
            />
            <Field
              label={t('units.object.linkUrl')}
              value={link.url}
              onChange={(url) => set({ links: form.links.map((item, i) => (i === index ? { ...item, url } : item)) })}
              error={e[`links.${index}.url`]}
            />
            <Button className="btn btn-link" onPress={() => set({ links: form.links.filter((_, i) => i !== index) })}>
              {t('units.remove')}
            </Button>
          </div>
        ))}
        <Button className="btn btn-secondary" onPress={() => set({ links: [...form.links, { name: '', url: 'https://' }] })} isDisabled={form.links.length >= 10}>
          {t('units.object.addLink')}
        </Button>
      </fieldset>
      <Pictures unitId={unit.ID} description={loaded ?? null} />
    </Section>
  );
}

interface TheftForm {
  theftDate: string;
  stolenFrom: string;
  whatStolen: string;
  ownerName: string;
  ownerEmail: string;
  ownerPhone: string;
  policeStation: string;
  policeReportNumber: string;
  insuranceClaimNumber: string;
  otherInformation: string;
  recipients: string;
}

function theftFormOf(view: TheftReportView | null): TheftForm {
  return {
    theftDate: view?.theftDate ?? '',
    stolenFrom: view?.stolenFrom ?? '',
    whatStolen: view?.whatStolen ?? '',
    ownerName: view?.ownerName ?? '',
    ownerEmail: view?.ownerEmail ?? '',
    ownerPhone: view?.ownerPhone ?? '',
    policeStation: view?.policeStation ?? '',
    policeReportNumber: view?.policeReportNumber ?? '',
    insuranceClaimNumber: view?.insuranceClaimNumber ?? '',
    otherInformation: view?.otherInformation ?? '',
    recipients: (view?.recipients ?? []).join(', '),
  };
}

export function TheftReportSection({ unit }: Props) {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const client = useQueryClient();
  const query = useUnitSub<TheftReportView | null>(unit.ID, 'theft-report');
  const mutation = useSaveSection<TheftReportView>(unit.ID, 'theft-report');
  const [form, setForm] = useState<TheftForm>(theftFormOf(null));
  const [errors, setErrors] = useState<FieldMessages>({});
  const [message, setMessage] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [sending, setSending] = useState(false);
  const loaded = query.data;
  useEffect(() => {
    if (loaded !== undefined) setForm(theftFormOf(loaded));
  }, [loaded]);
  const set = (patch: Partial<TheftForm>) => {
    setSaved(false);
    setForm((current) => ({ ...current, ...patch }));
  };
  const body = () => ({
    ...form,
    theftDate: form.theftDate || null,
    recipients: form.recipients
      .split(/[\s,;]+/)
      .map((value) => value.trim())
      .filter(Boolean),
  });
  async function save(): Promise<boolean> {
    setSaved(false);
    setMessage(null);
    const parsed = check(theftReportSchema, body());
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return false;
    }
    setErrors({});
    try {
      await mutation.mutateAsync(body());
      await query.refetch();
      setSaved(true);
      return true;
    } catch (error) {
      const result = saveErrors(error);
      setErrors(result.fields);
      setMessage(result.message);
      return false;
    }
  }
  async function send() {
    if (!(await save())) return;
    setSending(true);
    try {
      const result = await api.post<{ sent: string[] }>(`/api/units/${unit.ID}/theft-report/send`);
      await client.invalidateQueries({ queryKey: unitKeys.sub(unit.ID, 'theft-report') });
      await dialogs.showMessage({ message: t('units.theft.sent', { recipients: result.sent.join(', ') }) });
    } catch (error) {
      await dialogs.showError(errorText(error));
    } finally {
      setSending(false);
    }
  }
  async function pdf() {
    try {
      await download(`/api/units/${unit.ID}/theft-report/pdf`, `theft-report-${unit.ID}.pdf`);
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }
  const e = errors;
  const recipientError = Object.entries(e).find(([name]) => name.startsWith('recipients'))?.[1];
  const text = (name: keyof TheftForm, max = 100, type?: 'email' | 'tel') => (
    <Field label={t(`units.theft.${name}`)} value={form[name]} onChange={(value) => set({ [name]: value } as Partial<TheftForm>)} error={e[name]} maxLength={max} type={type} />
  );
  return (
    <Section
      id="theft-report"
      title={t('units.sections.theftReport')}
      description={loaded?.sentAt ? t('units.theft.lastSent', { time: formatDateTime(loaded.sentAt, i18n.language) }) : t('units.hints.theft')}
      onSave={() => void save()}
      saving={mutation.isPending}
      saved={saved}
      error={message}
      actions={
        <>
          {loaded && (
            <Button className="btn btn-secondary" onPress={() => void pdf()}>
              {t('units.pdf.download')}
            </Button>
          )}
          <Button className="btn btn-secondary" onPress={() => void send()} isDisabled={sending || mutation.isPending}>
            {t('units.theft.send')}
          </Button>
        </>
      }
    >
      <div className="field-grid">
        <NativeField label={t('units.theft.theftDate')} type="date" value={form.theftDate} onChange={(theftDate) => set({ theftDate })} error={e.theftDate} />
        {text('stolenFrom', 200)}
        {text('whatStolen', 500)}
        {text('ownerName')}
        {text('ownerEmail', 254, 'email')}
        {text('ownerPhone', 30, 'tel')}
        {text('policeStation')}
        {text('policeReportNumber', 50)}
        {text('insuranceClaimNumber', 50)}
        {text('otherInformation', 2000)}
      </div>
      <Field
        label={t('units.theft.recipients')}
        value={form.recipients}
        onChange={(recipients) => set({ recipients })}
        error={recipientError}
        description={t('units.hints.recipients')}
        testId="theft-recipients"
      />
    </Section>
  );
}
