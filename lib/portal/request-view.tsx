/**
 * The "Request an export" view: the form's fields (each with what was typed in it and its
 * errors beside it), rendered on the server like the other views (`views.tsx`). The gains
 * options include the filing currency and the rates source UK and German figures of data valued
 * in another currency need; the sources offered are the ones the bucket keeps (`GET /rates`).
 */
import { createContext, type FC, useContext } from 'hono/jsx';
import type { KeptRatesSource } from './api-client.ts';
import { CHOICES, CSV_DIALECTS, FIELDS } from './form.ts';
import type { PageContext } from './page-context.ts';

/** Values of the request form (what the person typed, to show again beside its errors). */
export type FormValues = Record<string, string[]>;

const FieldErrors: FC<{ id: string; errors: readonly string[] | undefined }> = ({ id, errors }) =>
  errors && errors.length > 0 ? (
    <p id={id} class="error">
      {errors.join('; ')}
    </p>
  ) : null;

/** Attributes of an input with errors: invalid, described by its error text. */
function invalid(errors: readonly string[] | undefined, id: string): Record<string, string> {
  return errors && errors.length > 0 ? { 'aria-invalid': 'true', 'aria-describedby': id } : {};
}

const fieldId = (name: string) => `f-${name.replace(/\./g, '-')}`;
const errorId = (name: string) => `e-${name.replace(/\./g, '-')}`;

/** The form as typed and its errors by field name: every field shows its own from it. */
interface FormState {
  values: FormValues;
  errors: Map<string, string[]>;
}

/** The state of the form a field stands in, set once by {@link RequestView} for all its fields. */
const FormContext = createContext<FormState>({ values: {}, errors: new Map() });

/** One field of the form: what was typed in it, its input's error attributes and its error text. */
function useField(name: string) {
  const { values, errors } = useContext(FormContext);
  const messages = errors.get(name);
  return {
    values: values[name] ?? [],
    invalid: invalid(messages, errorId(name)),
    errors: <FieldErrors id={errorId(name)} errors={messages} />,
  };
}

const TextField: FC<{
  name: string;
  label: string;
  hint?: string;
  type?: string;
}> = ({ name, label, hint, type }) => {
  const field = useField(name);
  return (
    <div class="field">
      <label for={fieldId(name)}>{label}</label>
      {hint ? <span class="hint">{hint}</span> : null}
      <input
        id={fieldId(name)}
        name={name}
        type={type ?? 'text'}
        value={field.values[0] ?? ''}
        {...field.invalid}
      />
      {field.errors}
    </div>
  );
};

const Choices: FC<{
  name: string;
  legend: string;
  options: readonly string[];
  /** Words shown for an option instead of its value. */
  labels?: Readonly<Record<string, string>>;
}> = ({ name, legend, options, labels }) => {
  const field = useField(name);
  return (
    <fieldset {...field.invalid}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label class="choice">
          <input type="checkbox" name={name} value={option} checked={field.values.includes(option)} />{' '}
          {labels?.[option] ?? option}
        </label>
      ))}
      {field.errors}
    </fieldset>
  );
};

const Select: FC<{
  name: string;
  label: string;
  options: readonly string[];
  blank: string;
  /** What each option is called (default: its value). */
  labels?: Record<string, string>;
  hint?: string;
}> = ({ name, label, options, blank, labels, hint }) => {
  const field = useField(name);
  return (
    <div class="field field-select">
      <label for={fieldId(name)}>{label}</label>
      {hint ? <span class="hint">{hint}</span> : null}
      <select id={fieldId(name)} name={name} {...field.invalid}>
        <option value="">{blank}</option>
        {options.map((option) => (
          <option value={option} selected={field.values[0] === option}>
            {labels?.[option] ?? option}
          </option>
        ))}
      </select>
      {field.errors}
    </div>
  );
};

/** Values the form starts with: last month's defaults, the usual reports, both formats. */
export const DEFAULT_FORM: FormValues = {
  reports: ['transactions', 'movements', 'summary'],
  formats: ['csv', 'xlsx'],
};

/** A kept rates source as the form offers it: what it is, how many files, DEMO when made up. */
export function ratesLabel(source: KeptRatesSource): string {
  const kept = `${source.description}: ${source.files} file${source.files === 1 ? '' : 's'} kept`;
  return source.demo ? `${kept}. DEMO made-up rates, not for filing` : kept;
}

/** The rates source and the filing currency: what UK and German figures of USD-valued data need. */
const RatesFields: FC<{ rates: readonly KeptRatesSource[] }> = ({ rates }) => {
  const kept = rates.filter((source) => source.files > 0);
  return (
    <>
      <Select
        name={FIELDS.ratesSource}
        label="Convert values at the rates of"
        hint={
          kept.length === 0
            ? 'No rates files are kept yet: the daily rates fetch keeps the ECB’s and HMRC’s.'
            : 'UK and German figures of data valued in another currency (e.g. USD) need rates: HMRC’s for uk, the ECB’s for de'
        }
        options={kept.map((source) => source.source)}
        labels={Object.fromEntries(kept.map((source) => [source.source, ratesLabel(source)]))}
        blank="no conversion (values as the data gives them)"
      />
      <TextField
        name={FIELDS.currency}
        label="Filing currency"
        hint="ISO 4217 code, e.g. GBP; empty: the tax rules' own (uk GBP, de EUR, us USD)"
      />
    </>
  );
};

/** The Request an export view. */
export const RequestView: FC<{
  ctx: PageContext;
  profile: string;
  values: FormValues;
  errors: Map<string, string[]>;
  timeZone: string;
  /** The rates sources the bucket keeps (`GET /rates`). */
  rates: readonly KeptRatesSource[];
}> = ({ ctx, profile, values, errors, timeZone, rates }) => {
  const action = `${ctx.base}/view/clients/${encodeURIComponent(profile)}/request`;
  const general = errors.get('');
  return (
    <section data-title={`Request an export: ${profile}`}>
      <h1>Request an export for {profile}</h1>
      <p>
        <a href={`${ctx.base}/clients/${encodeURIComponent(profile)}`}>Back to {profile}</a>
      </p>
      {errors.size > 0 ? (
        <p class="error" role="alert">
          The export was not requested: see the fields marked below.
        </p>
      ) : null}
      {general ? (
        <ul class="error">
          {general.map((message) => (
            <li>{message}</li>
          ))}
        </ul>
      ) : null}
      <FormContext.Provider value={{ values, errors }}>
        <form data-submit action={action} method="post" novalidate>
          <fieldset>
            <legend>Period</legend>
            <TextField
              name={FIELDS.period}
              label="Month or year"
              hint="YYYY-MM or YYYY, e.g. 2025-10; or leave empty and give the days below"
            />
            <TextField name={FIELDS.periodFrom} label="From (day)" type="date" />
            <TextField name={FIELDS.periodTo} label="To (day, included)" type="date" />
          </fieldset>
          <TextField
            name={FIELDS.timeZone}
            label="Time zone"
            hint={`IANA zone, e.g. Europe/Berlin; empty: UTC (this client is registered in ${timeZone})`}
          />
          <Choices
            name={FIELDS.reports}
            legend="Reports"
            options={CHOICES.reports}
            labels={{ journal: 'Journal entries' }}
          />
          <TextField name={FIELDS.changesSince} label="Changes since (for the changes report)" type="date" />
          <Choices name={FIELDS.formats} legend="Formats" options={CHOICES.formats} />
          <Select
            name={FIELDS.csv}
            label="CSV files for"
            options={Object.keys(CSV_DIALECTS).filter((dialect) => dialect !== '')}
            labels={Object.fromEntries(
              Object.entries(CSV_DIALECTS).map(([key, value]) => [key, value.label]),
            )}
            blank={CSV_DIALECTS[''].label}
          />
          <fieldset>
            <legend>Gains options (with the gains report)</legend>
            <Select
              name={FIELDS.taxRules}
              label="Tax rules"
              options={CHOICES.taxRules}
              blank="generic (default)"
            />
            <Select
              name={FIELDS.method}
              label="Lot method"
              options={CHOICES.methods}
              blank="the rules' default"
            />
            <TextField
              name={FIELDS.taxYearStart}
              label="Tax year starts on"
              hint="MM-DD, e.g. 04-06; empty: the rules' default"
            />
            <Select
              name={FIELDS.protocolMoves}
              label="Lending and liquidity moves"
              options={['taxable', 'non-taxable']}
              blank="taxable (default)"
            />
            <RatesFields rates={rates} />
          </fieldset>
          <p>
            <button type="submit">Request the export</button>
          </p>
        </form>
      </FormContext.Provider>
    </section>
  );
};
