import { useEffect, useRef, useState } from 'react';
import { Button, ComboBox, Input, ListBox, ListBoxItem, Popover, useFilter } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { DefaultPurpose } from '../../../modules/accounts/model';

/**
 * Spec §3/§4/§5: a trip's purpose is one of the account's default purposes or free text of at most 100 characters.
 * A combobox: typing filters the default purposes (the button lists them all), any text may stay; saved when a purpose is picked, on Enter or
 * when the field is left, and only when it changed.
 */
export function PurposePicker({
  label,
  value,
  purposes,
  max,
  isDisabled = false,
  onSave,
  testId,
}: {
  label: string;
  value: string | null;
  purposes: DefaultPurpose[];
  max: number;
  isDisabled?: boolean;
  onSave: (text: string) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(value ?? '');
  // The button lists every default purpose; typing narrows the list to the ones containing the text, so free text
  // that matches none closes it (and leaving the field then saves the text, not a highlighted purpose).
  const [listAll, setListAll] = useState(false);
  const { contains } = useFilter({ sensitivity: 'base' });
  const shown = listAll ? purposes : purposes.filter((purpose) => contains(purpose.name, text));
  // The text last sent, so a pick followed by leaving the field saves once.
  const saved = useRef(value ?? '');
  useEffect(() => {
    setText(value ?? '');
    saved.current = value ?? '';
  }, [value]);

  const commit = (next: string) => {
    const trimmed = next.trim().slice(0, max);
    if (trimmed === saved.current.trim()) return;
    saved.current = trimmed;
    onSave(trimmed);
  };

  return (
    <ComboBox
      aria-label={label}
      className="triplog-purpose"
      allowsCustomValue
      allowsEmptyCollection={false}
      inputValue={text}
      onInputChange={(next) => {
        setText(next);
        setListAll(false);
      }}
      onOpenChange={(isOpen, trigger) => setListAll(isOpen && trigger === 'manual')}
      items={shown}
      isDisabled={isDisabled}
      onSelectionChange={(key) => {
        const picked = purposes.find((purpose) => purpose.id === key);
        if (!picked) return;
        setText(picked.name);
        commit(picked.name);
      }}
      onBlur={() => commit(text)}
    >
      <div className="triplog-combo">
        <Input
          className="field-input triplog-text"
          maxLength={max}
          data-testid={testId}
          onKeyDown={(event) => {
            // Enter on a highlighted default purpose picks it (saved by the selection); otherwise it saves the text.
            if (event.key === 'Enter' && !event.currentTarget.getAttribute('aria-activedescendant')) commit(event.currentTarget.value);
          }}
        />
        {purposes.length > 0 && !isDisabled && (
          <Button className="triplog-combo-button" aria-label={t('triplog.purposes.show')}>
            <svg viewBox="0 0 12 12" width="12" height="12" aria-hidden="true" focusable="false">
              <path d="M2 4l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.6" />
            </svg>
          </Button>
        )}
      </div>
      <Popover className="triplog-popover" placement="bottom start">
        <ListBox className="triplog-listbox">
          {(purpose: DefaultPurpose) => (
            <ListBoxItem id={purpose.id} textValue={purpose.name} className="triplog-option">
              <span className="triplog-option-name">{purpose.name}</span>
              {purpose.description && <span className="triplog-option-description">{purpose.description}</span>}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  );
}
