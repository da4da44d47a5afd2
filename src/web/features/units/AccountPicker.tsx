import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ComboBox, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { AccountChoice } from '../../../modules/units/model';
import { api } from '../../lib/api';

/** Support's customer-account picker on add terminal: type a company name, org number or account id and pick. */
export function AccountPicker({ value, onChange, error }: { value: AccountChoice | null; onChange: (account: AccountChoice | null) => void; error?: string | null }) {
  const { t } = useTranslation();
  const [text, setText] = useState(value ? label(value) : '');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), 200);
    return () => clearTimeout(timer);
  }, [text]);
  const search = useQuery({
    queryKey: ['units', 'add-terminal', 'accounts', query],
    queryFn: () => api.get<AccountChoice[]>('/api/admin/add-terminal/accounts', { query: { q: query } }),
    staleTime: 30_000,
  });
  const results = search.data ?? [];
  // The chosen account stays among the items: once chosen, its label is the search text and finds nothing, and the
  // combo box drops a selection that is missing from its items.
  const items = value && !results.some((account) => account.id === value.id) ? [value, ...results] : results;
  return (
    <ComboBox
      className="field account-picker"
      inputValue={text}
      onInputChange={(next) => {
        setText(next);
        if (value && next !== label(value)) onChange(null);
      }}
      items={items}
      selectedKey={value?.id ?? null}
      onSelectionChange={(key) => {
        const picked = items.find((account) => account.id === key) ?? null;
        onChange(picked);
        if (picked) setText(label(picked));
      }}
      menuTrigger="focus"
      isRequired
      isInvalid={Boolean(error)}
    >
      <Label className="field-label">{t('units.add.account')}</Label>
      <Input className="field-input" data-testid="add-account" />
      <Text slot="description" className="field-description">
        {t('units.add.accountHint')}
      </Text>
      {error && <p className="field-error">{error}</p>}
      <Popover className="account-popover" placement="bottom start">
        <ListBox className="account-options" renderEmptyState={() => <p className="account-empty">{t('units.add.noAccounts')}</p>}>
          {(account: AccountChoice) => (
            <ListBoxItem id={account.id} textValue={label(account)} className="account-option">
              <strong>{account.companyName || `#${account.id}`}</strong>
              <span className="access-note">
                {account.orgNumber ? `${account.orgNumber} · ` : ''}#{account.id}
              </span>
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  );
}

function label(account: AccountChoice): string {
  return `${account.companyName || '–'} (#${account.id})`;
}
