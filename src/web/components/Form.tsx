import { type ReactNode, type Ref, useId } from 'react';
import { Checkbox, FieldError, Input, Label, Text, TextField } from 'react-aria-components';

export interface FieldProps {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  error?: string | null;
  description?: ReactNode;
  type?: 'text' | 'password' | 'email' | 'tel' | 'search';
  name?: string;
  autoComplete?: string;
  inputMode?: 'text' | 'numeric' | 'decimal' | 'tel' | 'email';
  isRequired?: boolean;
  autoFocus?: boolean;
  maxLength?: number;
  placeholder?: string;
  inputRef?: Ref<HTMLInputElement>;
  onBlur?: () => void;
  className?: string;
  testId?: string;
}

/** A labelled text input; its error is linked to the input (aria-describedby) and announced. */
export function Field(props: FieldProps) {
  return (
    <TextField
      className={`field${props.className ? ` ${props.className}` : ''}`}
      value={props.value}
      onChange={props.onChange}
      isInvalid={Boolean(props.error)}
      isRequired={props.isRequired}
      type={props.type ?? 'text'}
      name={props.name}
      autoComplete={props.autoComplete}
      inputMode={props.inputMode}
      autoFocus={props.autoFocus}
      maxLength={props.maxLength}
      onBlur={props.onBlur}
      validationBehavior="aria"
    >
      <Label className="field-label">{props.label}</Label>
      <Input className="field-input" ref={props.inputRef} placeholder={props.placeholder} data-testid={props.testId} />
      {props.description && (
        <Text slot="description" className="field-description">
          {props.description}
        </Text>
      )}
      <FieldError className="field-error">{props.error}</FieldError>
    </TextField>
  );
}

export function CheckboxField({
  children,
  isSelected,
  onChange,
  name,
  error,
}: {
  children: ReactNode;
  isSelected: boolean;
  onChange: (selected: boolean) => void;
  name?: string;
  error?: string | null;
}) {
  const errorId = useId();
  return (
    <div className="checkbox-field">
      <Checkbox
        className="checkbox"
        isSelected={isSelected}
        onChange={onChange}
        name={name}
        isInvalid={Boolean(error)}
        aria-describedby={error ? errorId : undefined}
      >
        <span className="checkbox-box" aria-hidden="true">
          <svg viewBox="0 0 18 18" aria-hidden="true" focusable="false">
            <polyline points="3.5 9.5 7.5 13.5 14.5 5" />
          </svg>
        </span>
        <span className="checkbox-label">{children}</span>
      </Checkbox>
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

export interface SelectOption {
  value: string;
  label: string;
}

/** A native select with a visible (or visually hidden) label: fully keyboard and screen-reader friendly. */
export function SelectField({
  label,
  value,
  onChange,
  options,
  hideLabel = false,
  name,
  className,
  error,
  testId,
  disabled,
}: {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  options: SelectOption[];
  disabled?: boolean;
  hideLabel?: boolean;
  name?: string;
  className?: string;
  error?: string | null;
  testId?: string;
}) {
  const id = useId();
  return (
    <div className={`field${className ? ` ${className}` : ''}`}>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : 'field-label'}>
        {label}
      </label>
      <select
        id={id}
        name={name}
        className="field-input field-select"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        data-testid={testId}
        disabled={disabled}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function Banner({ kind, children, onClose, closeLabel }: { kind: 'error' | 'success' | 'info'; children: ReactNode; onClose?: () => void; closeLabel?: string }) {
  return (
    <div className={`banner banner--${kind}`} role={kind === 'error' ? 'alert' : 'status'} data-testid={`banner-${kind}`}>
      <div className="banner-text">{children}</div>
      {onClose && (
        <button type="button" className="banner-close" onClick={onClose} aria-label={closeLabel}>
          <span aria-hidden="true">×</span>
        </button>
      )}
    </div>
  );
}

/** A form's error that belongs to no one field (or to a picker or a map), announced when it comes. */
export function FormError({ error, testId }: { error: string | null | undefined; testId?: string }) {
  if (!error) return null;
  return (
    <p className="field-error" role="alert" data-testid={testId}>
      {error}
    </p>
  );
}
