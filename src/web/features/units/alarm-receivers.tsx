import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { AlarmReceiverList } from '../../../modules/alarm-receivers/model';
import type { UnitDetail } from '../../../modules/units/model';
import { useBrand } from '../../brands/BrandProvider';
import { emptyReceiverForm, phoneText, ReceiverFields, receiverPayload, type SaveFailure, saveFailure } from '../../components/alarms/ReceiverFields';
import { api } from '../../lib/api';
import { PATHS } from '../../lib/paths';
import { Section } from './ui';

/**
 * Spec §2 /user/edit-terminal "also showing alarm receivers of one unit" (administrators): who gets this unit's
 * alarms, and a new receiver for it alone (the add-edit call with the unit as `terminal_id`).
 */
export function AlarmReceiversSection({ unit }: { unit: UnitDetail }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const showsPhone = useBrand().subsiteId === 0;
  const key = ['alarm-receivers', 'unit', 'gps', unit.ID];
  const list = useQuery({ queryKey: key, queryFn: () => api.get<AlarmReceiverList>(`/api/admin/alarm-receiver/list/gps/${unit.ID}`) });
  const [adding, setAdding] = useState(false);
  const [form, setForm] = useState(emptyReceiverForm);
  const [failure, setFailure] = useState<SaveFailure>({ fields: {}, message: null });
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  async function save() {
    setSaving(true);
    setSaved(false);
    setFailure({ fields: {}, message: null });
    try {
      await api.post<{ id: number }>('/api/admin/alarm-receiver/add-edit', { id: 0, ...receiverPayload(form, showsPhone), terminal_id: unit.ID, device_type: 'gps' });
      await client.invalidateQueries({ queryKey: ['alarm-receivers'] });
      setForm(emptyReceiverForm());
      setAdding(false);
      setSaved(true);
    } catch (error) {
      setFailure(saveFailure(error));
    } finally {
      setSaving(false);
    }
  }

  const receivers = list.data?.alarmReceivers ?? [];
  return (
    <Section
      id="alarm-receivers"
      title={t('alarmReceivers.unit.title')}
      description={t('alarmReceivers.unit.hint')}
      onSave={adding ? () => void save() : undefined}
      saveLabel={t('alarmReceivers.unit.add')}
      saving={saving}
      saved={saved}
      error={failure.message}
      actions={
        adding ? (
          <Button className="btn btn-secondary" onPress={() => setAdding(false)}>
            {t('common.cancel')}
          </Button>
        ) : (
          <Button className="btn btn-secondary" onPress={() => setAdding(true)} data-testid="unit-receiver-new">
            {t('alarmReceivers.new.open')}
          </Button>
        )
      }
    >
      {list.isError && <p className="field-error">{t('errors.generic')}</p>}
      {list.data && receivers.length === 0 && <p className="field-description">{t('alarmReceivers.unit.none')}</p>}
      {receivers.length > 0 && (
        <ul className="access-list" data-testid="unit-receivers">
          {receivers.map((receiver) => (
            <li key={receiver.id} data-testid={`unit-receiver-${receiver.id}`}>
              <strong>{receiver.name}</strong> <span className="access-note">{[receiver.email, showsPhone && receiver.phone ? phoneText(receiver.country_code, receiver.phone) : null].filter(Boolean).join(' · ')}</span>{' '}
              <span className="access-note">
                {[receiver.security_alarm === 1 ? t('alarmReceivers.fields.security') : null, receiver.function_alarm === 1 ? t('alarmReceivers.fields.function') : null].filter(Boolean).join(', ') ||
                  t('alarmReceivers.unit.noClasses')}
              </span>
            </li>
          ))}
        </ul>
      )}
      {adding && <ReceiverFields form={form} onChange={setForm} errors={failure.fields} showsPhone={showsPhone} />}
      <p className="field-description">
        <Link to={PATHS.alarmReceiver}>{t('alarmReceivers.unit.manage')}</Link>
      </p>
    </Section>
  );
}
