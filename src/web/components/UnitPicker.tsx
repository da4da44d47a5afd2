import { type ReactNode, useId, useMemo, useState } from 'react';
import { Button, Dialog, DialogTrigger, Popover, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { UnitView } from '../../modules/units/model';
import { Field, SelectField } from './Form';
import './unit-picker.css';

/** What the picker needs of a unit (the unit list's `UnitView` has it). */
export type PickerUnit = Pick<UnitView, 'ID' | 'Name' | 'RegistrationNumber' | 'Imei' | 'Department' | 'Tags'>;

/** Another source of things to pick beside the units (Bluetooth tags, later), shown as a tab of its own. */
export interface PickerTab {
  id: string;
  label: string;
  content: ReactNode;
}

export interface UnitPickerProps {
  units: readonly PickerUnit[];
  selectionMode: 'single' | 'multiple';
  selected: readonly number[];
  onChange: (unitIds: number[]) => void;
  label?: string;
  /** `popover`: a button that opens the picker (toolbars); `inline`: the picker itself (forms). */
  presentation?: 'popover' | 'inline';
  /** More tabs after the units (the units tab is shown alone without them). */
  tabs?: readonly PickerTab[];
  testId?: string;
  isDisabled?: boolean;
  /** What the closed picker says with nothing chosen (default "No unit chosen"; a report: "The whole fleet"). */
  noneLabel?: string;
}

const ALL = '';

function distinctBy<T extends { id: number; name: string }>(items: Iterable<T>): T[] {
  const byId = new Map<number, T>();
  for (const item of items) byId.set(item.id, item);
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The units tab (also used alone, for a tab of a dialog of its own): search, department and tag filters, and the units as radio buttons (one) or checkboxes (several). */
export function UnitChoice({ units, selectionMode, selected, onChange, onChosen }: Omit<UnitPickerProps, 'presentation' | 'tabs' | 'label' | 'testId'> & { onChosen?: () => void }) {
  const { t } = useTranslation();
  const name = useId();
  const [search, setSearch] = useState('');
  const [department, setDepartment] = useState(ALL);
  const [tag, setTag] = useState(ALL);
  const departments = useMemo(() => distinctBy(units.flatMap((unit) => (unit.Department ? [unit.Department] : []))), [units]);
  const tags = useMemo(() => distinctBy(units.flatMap((unit) => unit.Tags)), [units]);
  const needle = search.trim().toLocaleLowerCase();
  const shown = units.filter(
    (unit) =>
      (!needle || [unit.Name, unit.RegistrationNumber, unit.Imei].some((text) => text.toLocaleLowerCase().includes(needle))) &&
      (department === ALL || String(unit.Department?.id) === department) &&
      (tag === ALL || unit.Tags.some((candidate) => String(candidate.id) === tag)),
  );
  const chosen = new Set(selected);
  const filterOptions = (items: Array<{ id: number; name: string }>) => [{ value: ALL, label: t('unitPicker.all') }, ...items.map((item) => ({ value: String(item.id), label: item.name }))];

  return (
    <div className="unit-choice">
      <div className="unit-choice-filters">
        <Field type="search" label={t('unitPicker.search')} value={search} onChange={setSearch} placeholder={t('unitPicker.searchHint')} testId="unit-picker-search" />
        {departments.length > 0 && (
          <SelectField label={t('unitPicker.department')} value={department} onChange={setDepartment} options={filterOptions(departments)} testId="unit-picker-department" />
        )}
        {tags.length > 0 && <SelectField label={t('unitPicker.tag')} value={tag} onChange={setTag} options={filterOptions(tags)} testId="unit-picker-tag" />}
      </div>
      {selectionMode === 'multiple' && (
        <div className="unit-choice-actions">
          <Button className="btn btn-secondary btn-small" isDisabled={shown.length === 0} onPress={() => onChange([...new Set([...selected, ...shown.map((unit) => unit.ID)])])}>
            {t('unitPicker.selectShown')}
          </Button>
          <Button className="btn btn-secondary btn-small" isDisabled={selected.length === 0} onPress={() => onChange([])}>
            {t('unitPicker.clear')}
          </Button>
          <span className="unit-choice-count" aria-live="polite">
            {t('unitPicker.chosen', { count: selected.length })}
          </span>
        </div>
      )}
      <fieldset className="unit-choice-list" data-testid="unit-picker-list">
        <legend className="visually-hidden">{t('unitPicker.shown', { count: shown.length })}</legend>
        {shown.map((unit) => (
          <label key={unit.ID} className="unit-choice-option">
            <input
              type={selectionMode === 'single' ? 'radio' : 'checkbox'}
              name={name}
              checked={chosen.has(unit.ID)}
              onChange={(event) => {
                if (selectionMode === 'single') {
                  onChange([unit.ID]);
                  onChosen?.();
                } else onChange(event.target.checked ? [...selected, unit.ID] : selected.filter((id) => id !== unit.ID));
              }}
            />
            <span className="unit-choice-name">{unit.Name}</span>
            {unit.RegistrationNumber && <span className="unit-choice-muted"> · {unit.RegistrationNumber}</span>}
          </label>
        ))}
        {shown.length === 0 && <p className="unit-choice-empty">{units.length === 0 ? t('unitPicker.noUnits') : t('unitPicker.noMatch')}</p>}
      </fieldset>
    </div>
  );
}

/**
 * Choosing units: searched by name, registration number or IMEI, narrowed by department and tag, one or several.
 * Further sources (Bluetooth tags) join as tabs beside the units through `tabs`.
 */
export function UnitPicker({ label, presentation = 'popover', tabs = [], testId, isDisabled, noneLabel, ...choice }: UnitPickerProps) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const triggerId = useId();
  const heading = label ?? t('unitPicker.label');
  const close = () => setOpen(false);
  const unitsTab = <UnitChoice {...choice} onChosen={presentation === 'popover' ? close : undefined} />;
  const body =
    tabs.length === 0 ? (
      unitsTab
    ) : (
      <Tabs className="unit-picker-tabs">
        <TabList aria-label={heading} className="unit-picker-tablist">
          <Tab id="units" className="unit-picker-tab">
            {t('unitPicker.units')}
          </Tab>
          {tabs.map((tab) => (
            <Tab key={tab.id} id={tab.id} className="unit-picker-tab">
              {tab.label}
            </Tab>
          ))}
        </TabList>
        <TabPanel id="units">{unitsTab}</TabPanel>
        {tabs.map((tab) => (
          <TabPanel key={tab.id} id={tab.id}>
            {tab.content}
          </TabPanel>
        ))}
      </Tabs>
    );

  if (presentation === 'inline') {
    return (
      <div className="unit-picker unit-picker--inline" data-testid={testId}>
        {body}
      </div>
    );
  }

  const names = choice.units.filter((unit) => choice.selected.includes(unit.ID)).map((unit) => unit.Name);
  const summary = names.length === 0 ? (noneLabel ?? t('unitPicker.none')) : choice.selectionMode === 'single' || names.length === 1 ? names[0] : t('unitPicker.chosen', { count: names.length });
  return (
    <div className="field unit-picker" data-testid={testId}>
      <span className="field-label" id={`${triggerId}-label`}>
        {heading}
      </span>
      <DialogTrigger isOpen={open} onOpenChange={setOpen}>
        <Button className="field-input unit-picker-trigger" aria-labelledby={`${triggerId}-label ${triggerId}`} id={triggerId} isDisabled={isDisabled} data-testid={testId ? `${testId}-open` : undefined}>
          <span className="unit-picker-summary">{summary}</span>
          <span aria-hidden="true" className="unit-picker-caret">
            ▾
          </span>
        </Button>
        <Popover className="unit-picker-popover" placement="bottom start">
          <Dialog className="unit-picker-dialog" aria-label={heading}>
            {body}
            {choice.selectionMode === 'multiple' && (
              <div className="unit-picker-done">
                <Button className="btn btn-primary" onPress={close}>
                  {t('unitPicker.done')}
                </Button>
              </div>
            )}
          </Dialog>
        </Popover>
      </DialogTrigger>
    </div>
  );
}
