import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDecimal, parseLocaleDecimal, sanitizeDecimalInput } from '../lib/decimal';
import { Field, type FieldProps } from './Form';

/**
 * A number with decimals in the user's convention (spec §5, §2 item 8): "12,5" in sv and no, "12.5" in en.
 * The parent holds a number; the text the user types stays as typed until it leaves the field.
 */
export function DecimalField({
  value,
  onChange,
  maximumFractionDigits = 2,
  ...props
}: Omit<FieldProps, 'value' | 'onChange' | 'inputMode'> & { value: number; onChange: (value: number) => void; maximumFractionDigits?: number }) {
  const { i18n } = useTranslation();
  const [text, setText] = useState(() => formatDecimal(value, i18n.language, maximumFractionDigits));

  // A new language or an outside change of the value re-formats the text.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text follows value and language only
  useEffect(() => {
    if (parseLocaleDecimal(text) !== value) setText(formatDecimal(value, i18n.language, maximumFractionDigits));
    else setText((current) => sanitizeDecimalInput(current, i18n.language));
  }, [value, i18n.language]);

  return (
    <Field
      {...props}
      inputMode="decimal"
      value={text}
      onChange={(typed) => {
        const clean = sanitizeDecimalInput(typed, i18n.language);
        setText(clean);
        onChange(parseLocaleDecimal(clean));
      }}
      onBlur={() => {
        setText(formatDecimal(parseLocaleDecimal(text), i18n.language, maximumFractionDigits));
        props.onBlur?.();
      }}
    />
  );
}
