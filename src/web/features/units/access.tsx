import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { UnitAccessUser, UnitDetail } from '../../../modules/units/model';
import { CheckboxField } from '../../components/Form';
import { api } from '../../lib/api';
import { unitKeys } from './api';
import { Section, saveErrors } from './ui';

/**
 * Spec §6 "administrators manage unit access", in the unit's "access and lock" section: which users of the
 * account see the unit (ordinary users see only units given to them) and who, besides its locker, has
 * access to it while it is locked.
 */
export function AccessSection({ unit }: { unit: UnitDetail }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const key = unitKeys.sub(unit.ID, 'users');
  const users = useQuery({ queryKey: key, queryFn: () => api.get<UnitAccessUser[]>(`/api/admin/units/${unit.ID}/users`) });
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [filter, setFilter] = useState('');
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    if (users.data) setSelected(new Set(users.data.filter((user) => user.hasAccess && !user.isLocker).map((user) => user.id)));
  }, [users.data]);

  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return (users.data ?? []).filter((user) => !needle || user.name.toLowerCase().includes(needle) || user.email.toLowerCase().includes(needle));
  }, [users.data, filter]);

  async function save() {
    setSaving(true);
    setSaved(false);
    setMessage(null);
    try {
      const answer = await api.post<UnitAccessUser[]>(`/api/admin/units/${unit.ID}/users`, { userIds: [...selected] });
      client.setQueryData(key, answer);
      await client.invalidateQueries({ queryKey: ['units', 'detail', unit.ID] });
      setSaved(true);
    } catch (error) {
      setMessage(saveErrors(error).message ?? Object.values(saveErrors(error).fields).join(' '));
    } finally {
      setSaving(false);
    }
  }

  function toggle(id: number, on: boolean) {
    setSaved(false);
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  const ordinary = (users.data ?? []).filter((user) => !user.seesAll);
  return (
    <Section
      id="access"
      title={t('units.access.title')}
      description={t('units.access.hint')}
      onSave={() => void save()}
      saving={saving}
      saved={saved}
      error={message}
    >
      {users.isError && <p className="field-error">{t('errors.generic')}</p>}
      <div className="access-toolbar">
        <label className="field access-filter">
          <span className="field-label">{t('units.access.search')}</span>
          <input className="field-input" type="search" value={filter} onChange={(event) => setFilter(event.target.value)} data-testid="access-search" />
        </label>
        <Button className="btn btn-secondary" onPress={() => setSelected(new Set([...selected, ...ordinary.map((user) => user.id)]))}>
          {t('units.access.allUsers')}
        </Button>
        <Button className="btn btn-secondary" onPress={() => setSelected(new Set())}>
          {t('units.access.noUsers')}
        </Button>
      </div>
      <p className="field-description" data-testid="access-count">
        {t('units.access.count', { count: ordinary.filter((user) => selected.has(user.id)).length, total: ordinary.length })}
      </p>
      <ul className="access-list" data-testid="access-list">
        {shown.map((user) => (
          <li key={user.id} data-testid={`access-user-${user.id}`}>
            {user.isLocker ? (
              <span className="access-locker">
                {user.name} <span className="access-note">{t('units.access.locker')}</span>
              </span>
            ) : (
              <CheckboxField isSelected={selected.has(user.id)} onChange={(on) => toggle(user.id, on)}>
                {user.name} <span className="access-note">{user.email}</span>
                {user.seesAll && <span className="access-note">{t('units.access.admin')}</span>}
              </CheckboxField>
            )}
          </li>
        ))}
      </ul>
      {users.data && shown.length === 0 && <p className="field-description">{t('units.access.noMatch')}</p>}
    </Section>
  );
}
