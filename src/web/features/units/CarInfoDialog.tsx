import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { CAR_USAGES, type CarInfoPending, carInfoSchema, FUEL_PAYERS, FUEL_TYPES } from '../../../modules/units/model';
import { DecimalField } from '../../components/DecimalField';
import { AppDialog } from '../../components/Dialogs';
import { Banner, Field, SelectField } from '../../components/Form';
import { api, errorText, isApiError } from '../../lib/api';
import { check, type FieldMessages } from '../../lib/validation';

export const carInfoKey = ['units', 'car-info'] as const;

interface Form {
  registrationNumber: string;
  model: string;
  fuelType: string;
  fuelConsumptionPer10Km: number;
  co2GPerKm: number;
  carUsage: (typeof CAR_USAGES)[number];
  fuelPayer: string;
  odometerKm: number;
}

function formOf(unit: CarInfoPending): Form {
  return {
    registrationNumber: unit.registrationNumber,
    model: unit.model,
    fuelType: unit.fuelType ?? '',
    fuelConsumptionPer10Km: unit.fuelConsumptionPer10Km ?? 0,
    co2GPerKm: unit.co2GPerKm ?? 0,
    carUsage: unit.carUsage,
    fuelPayer: unit.fuelPayer ?? '',
    odometerKm: 0,
  };
}

/**
 * Car info onboarding (spec §2): unit by unit, what the trip log and reports need (registration number, model, fuel and
 * consumption, CO2, benefit or private car, odometer). Each unit can be skipped; skipped ones come back from the unit list.
 */
export function CarInfoDialog({ units, isOpen, onClose }: { units: CarInfoPending[]; isOpen: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [index, setIndex] = useState(0);
  const unit = units[index] ?? null;
  const [form, setForm] = useState<Form | null>(null);
  const [errors, setErrors] = useState<FieldMessages>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (isOpen) setIndex(0);
  }, [isOpen]);
  useEffect(() => {
    setForm(unit ? formOf(unit) : null);
    setErrors({});
    setFailure(null);
  }, [unit]);

  const set = (patch: Partial<Form>) => setForm((current) => (current ? { ...current, ...patch } : current));

  async function next() {
    if (index + 1 < units.length) setIndex(index + 1);
    else {
      await client.invalidateQueries({ queryKey: ['units'] });
      onClose();
    }
  }

  async function act(kind: 'save' | 'skip') {
    if (!unit || !form) return;
    setFailure(null);
    let body: unknown;
    if (kind === 'save') {
      body = {
        registrationNumber: form.registrationNumber,
        model: form.model,
        fuelType: form.fuelType === '' ? null : form.fuelType,
        fuelConsumptionPer10Km: form.fuelConsumptionPer10Km > 0 ? form.fuelConsumptionPer10Km : null,
        co2GPerKm: form.co2GPerKm > 0 ? form.co2GPerKm : null,
        carUsage: form.carUsage,
        fuelPayer: form.carUsage === 'none' || form.fuelPayer === '' ? null : form.fuelPayer,
        odometerKm: form.odometerKm,
      };
      const parsed = check(carInfoSchema, body);
      if (!parsed.ok) {
        setErrors(parsed.errors);
        return;
      }
    }
    setBusy(true);
    try {
      await api.post(`/api/units/${unit.id}/car-info${kind === 'skip' ? '/skip' : ''}`, kind === 'save' ? body : undefined);
      await next();
    } catch (error) {
      if (isApiError(error) && error.status === 422 && Object.keys(error.fields).length > 0) {
        const fields: FieldMessages = {};
        for (const [name, messages] of Object.entries(error.fields)) fields[name] = messages.join(' ');
        setErrors(fields);
      } else setFailure(errorText(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && !busy && onClose()} title={t('units.carInfo.title')} className="modal--wide">
      <div className="dialog-body" data-testid="car-info-dialog">
        {unit && form ? (
          <>
            <p role="status">{t('units.carInfo.step', { name: unit.name, step: index + 1, total: units.length })}</p>
            {failure && <Banner kind="error">{failure}</Banner>}
            <div className="field-grid">
              <Field label={t('units.carInfo.registrationNumber')} value={form.registrationNumber} onChange={(value) => set({ registrationNumber: value })} error={errors.registrationNumber} testId="car-info-registration" />
              <Field label={t('units.carInfo.model')} value={form.model} onChange={(value) => set({ model: value })} error={errors.model} />
              <SelectField
                label={t('units.carInfo.fuelType')}
                value={form.fuelType}
                onChange={(value) => set({ fuelType: value })}
                options={[{ value: '', label: t('units.none') }, ...FUEL_TYPES.map((fuel) => ({ value: fuel, label: t(`units.fuelType.${fuel}`) }))]}
              />
              <DecimalField label={t('units.carInfo.consumption')} value={form.fuelConsumptionPer10Km} onChange={(value) => set({ fuelConsumptionPer10Km: value })} error={errors.fuelConsumptionPer10Km} />
              <DecimalField label={t('units.carInfo.co2')} value={form.co2GPerKm} onChange={(value) => set({ co2GPerKm: value })} error={errors.co2GPerKm} maximumFractionDigits={1} />
              <SelectField
                label={t('units.carInfo.carUsage')}
                value={form.carUsage}
                onChange={(value) => set({ carUsage: value as Form['carUsage'] })}
                options={CAR_USAGES.map((usage) => ({ value: usage, label: t(`units.carUsage.${usage}`) }))}
              />
              {form.carUsage !== 'none' && (
                <SelectField
                  label={t('units.carInfo.fuelPayer')}
                  value={form.fuelPayer}
                  onChange={(value) => set({ fuelPayer: value })}
                  options={[{ value: '', label: t('units.choose') }, ...FUEL_PAYERS.map((payer) => ({ value: payer, label: t(`units.fuelPayer.${payer}`) }))]}
                  error={errors.fuelPayer}
                />
              )}
              <DecimalField label={t('units.carInfo.odometer')} value={form.odometerKm} onChange={(value) => set({ odometerKm: value })} error={errors.odometerKm} maximumFractionDigits={1} />
            </div>
          </>
        ) : (
          <p>{t('units.carInfo.allDone')}</p>
        )}
      </div>
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose} isDisabled={busy}>
          {t('units.close')}
        </Button>
        {unit && (
          <>
            <Button className="btn btn-secondary" onPress={() => void act('skip')} isDisabled={busy} data-testid="car-info-skip">
              {t('units.carInfo.skip')}
            </Button>
            <Button className="btn btn-primary" onPress={() => void act('save')} isDisabled={busy} data-testid="car-info-save">
              {t('units.carInfo.save')}
            </Button>
          </>
        )}
      </div>
    </AppDialog>
  );
}
