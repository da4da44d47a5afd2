import { useTranslation } from 'react-i18next';
import { changeLanguage, isLanguage, LANGUAGES } from '../lib/i18n';
import { SelectField } from './Form';

/** Spec §2: Swedish, English, Norwegian; each named in its own language. */
const NAMES = { sv: 'Svenska', en: 'English', no: 'Norsk' } as const;

export function LanguagePicker({ className }: { className?: string }) {
  const { t, i18n } = useTranslation();
  return (
    <SelectField
      className={`language-picker${className ? ` ${className}` : ''}`}
      label={t('common.language')}
      hideLabel
      value={i18n.language}
      onChange={(value) => {
        if (isLanguage(value)) void changeLanguage(value);
      }}
      options={LANGUAGES.map((language) => ({ value: language, label: NAMES[language] }))}
      testId="language-picker"
    />
  );
}
