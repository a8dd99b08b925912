import { z } from 'zod';
import { Company } from '../companies/schemas.ts';
import { Account, FiscalYear, JournalEntry, Period } from '../ledger/schemas.ts';
import { Agi, SalaryRun } from '../payroll/schemas.ts';
import { VatReturn } from '../tax/schemas.ts';
import { Operation } from '../operations/schemas.ts';
import { operationExample } from '../operations/examples.ts';
import { sieImportKind } from '../operations/kinds/sie-import.ts';
import { agiExample, salaryRunExample } from '../payroll/examples.ts';
import { submittedVatReturnExample, vatReturnExample } from '../tax/examples.ts';
import { COMPANY_ID, FISCAL_YEAR_ID, accountExample, journalEntryExample, periodExample } from '../ledger/examples.ts';
import { Document } from '../documents/schemas.ts';
import { attachedDocumentExample, documentExample } from '../documents/examples.ts';
import type { Scope } from '../kernel/scopes.ts';

/**
 * The public webhook event catalogue: every event type a subscriber can receive, what its
 * `data.object` looks like, and a parseable example. Docs, the MCP tool list and the dispatcher
 * all read from here, so a new event type is one entry below, not a change in five places.
 */

// ---------------------------------------------------------------------------------------------
// Shared field types. Money is integer minor units (öre) so no float ever touches a ledger.
// ---------------------------------------------------------------------------------------------

const Id = z.uuid();
// UTC only (`Z`), matching every other timestamp the API emits.
const IsoDateTime = z.iso.datetime();

// ---------------------------------------------------------------------------------------------
// Object schemas, one per family; the event types of a family share it.
// ---------------------------------------------------------------------------------------------

// Picked from the REST schema so a webhook and GET /companies/{id} can never disagree.
const CompanyObject = Company.pick({
  id: true,
  name: true,
  org_number: true,
  entity_type: true,
  livemode: true,
  updated_at: true,
});

// The books' objects are the API's own output schemas (DESIGN.md §14): one shape for REST and webhooks.
// A document backs any number of entries, so it lists them (journal_entry_ids).
const AccountObject = Account;
const JournalEntryObject = JournalEntry;
const PeriodObject = Period;
const FiscalYearObject = FiscalYear;

const DocumentObject = Document;

const SalaryRunObject = SalaryRun;
const AgiObject = Agi;
const VatReturnObject = VatReturn;

const OperationObject = Operation;

const WebhookDisabledObject = z.object({
  id: Id.describe('The webhook endpoint id.'),
  company_id: Id,
  event_type: z.string().describe('The event type whose delivery failed last.'),
  webhook_url: z.url(),
  disabled_at: IsoDateTime,
  disabled_reason: z.string().describe('Why delivery stopped: manually_disabled, http_410, url_unsafe:<class> or consecutive_failures.'),
  last_error: z.string().nullable().describe("The latest failed attempt's error before the disable (e.g. http_500), if any."),
});

// ---------------------------------------------------------------------------------------------
// Example objects. One base per family; each event type overrides only what differs.
// ---------------------------------------------------------------------------------------------

const companyExample: z.input<typeof CompanyObject> = {
  id: COMPANY_ID,
  name: 'Solvik Snickeri AB',
  org_number: '559123-4567',
  entity_type: 'aktiebolag',
  livemode: true,
  updated_at: '2026-11-14T09:12:03.000Z',
};

// ---------------------------------------------------------------------------------------------
// The catalogue.
// ---------------------------------------------------------------------------------------------

export const EVENT_TYPES = [
  'company.updated',
  'account.created',
  'account.updated',
  'journal_entry.created',
  'journal_entry.committed',
  'journal_entry.reversed',
  'period.locked',
  'period.unlocked',
  'fiscal_year.closed',
  'document.uploaded',
  'document.attached',
  'document.deleted',
  'salary_run.created',
  'salary_run.approved',
  'salary_run.booked',
  'salary_run.cancelled',
  'agi.generated',
  'agi.submitted',
  'vat_return.generated',
  'vat_return.submitted',
  'operation.succeeded',
  'operation.failed',
  'operation.cancelled',
  'webhook.disabled',
] as const;

export const EventType = z.enum(EVENT_TYPES).describe('Webhook event type, `<object>.<what happened>`, e.g. journal_entry.committed.');
export type EventType = z.infer<typeof EventType>;

/** Payroll data is personal data: these events reach only keys that also hold this scope. */
export const PAYROLL_SCOPE = 'payroll:read' satisfies Scope;

export type EventCatalogEntry = {
  group: string;
  /** One short sentence, written for agents choosing what to subscribe to. */
  description: string;
  /** Delivered only to subscribers holding PAYROLL_SCOPE. */
  payroll: boolean;
  /** Schema of `data.object`. */
  object: z.ZodType;
  /** A realistic `data.object` that parses with `object`. */
  example: unknown;
};

/** Ties each example to its schema at compile time, so a drifting example fails `tsc`, not a customer. */
const entry = <S extends z.ZodType>(group: string, description: string, object: S, example: z.input<S>, payroll = false) => ({
  group,
  description,
  payroll,
  object,
  example,
});

const LEDGER = 'company and ledger';
const PERIODS = 'periods';
const DOCUMENTS = 'documents';
const PAYROLL = 'payroll';
const TAX = 'tax returns';
const OPERATIONS = 'operations';
const PLATFORM = 'platform';

// Kept with its precise per-type schemas so eventEnvelopeSchemaFor can infer a narrowed type.
const CATALOG = {
  'company.updated': entry(LEDGER, 'A company’s name, legal form or other details changed.', CompanyObject, companyExample),
  'account.created': entry(LEDGER, 'An account was added to the chart of accounts.', AccountObject, accountExample),
  'account.updated': entry(LEDGER, 'An account was renamed, activated, deactivated or given another VAT code.', AccountObject, {
    ...accountExample,
    name: 'Företagskonto Handelsbanken',
  }),
  'journal_entry.created': entry(LEDGER, 'A journal entry was created as a draft.', JournalEntryObject, {
    ...journalEntryExample,
    status: 'draft',
    number: null,
    voucher: null,
    fiscal_year_id: null,
    period_id: null,
    committed_at: null,
  }),
  'journal_entry.committed': entry(LEDGER, 'A journal entry was committed to the ledger and can no longer be edited.', JournalEntryObject, journalEntryExample),
  'journal_entry.reversed': entry(LEDGER, 'A committed journal entry was reversed by a new entry.', JournalEntryObject, {
    ...journalEntryExample,
    status: 'reversed',
    reversed_by_id: '3e6a9c2d-8b4f-4d17-9e3a-5c0b8f2d7a61',
  }),
  'period.locked': entry(PERIODS, 'An accounting period was locked against changes.', PeriodObject, periodExample),
  'period.unlocked': entry(PERIODS, 'A locked accounting period was reopened for changes.', PeriodObject, {
    ...periodExample,
    status: 'open',
    locked_at: null,
  }),
  'fiscal_year.closed': entry(PERIODS, 'A fiscal year was closed and its balances carried forward.', FiscalYearObject, {
    id: FISCAL_YEAR_ID,
    company_id: COMPANY_ID,
    start_date: '2025-01-01',
    end_date: '2025-12-31',
    status: 'closed',
    closed_at: '2026-11-10T15:42:18.000Z',
    created_at: '2025-01-02T08:00:00.000Z',
  }),
  'document.uploaded': entry(DOCUMENTS, 'A document such as a receipt or invoice was uploaded.', DocumentObject, documentExample),
  'document.attached': entry(
    DOCUMENTS,
    'A document was attached to a journal entry as evidence; previous_attributes holds the journal_entry_ids before.',
    DocumentObject,
    attachedDocumentExample,
  ),
  'document.deleted': entry(DOCUMENTS, 'A document was deleted; the object is its last state.', DocumentObject, documentExample),
  'salary_run.created': entry(PAYROLL, 'A salary run was created as a draft.', SalaryRunObject, salaryRunExample, true),
  'salary_run.approved': entry(PAYROLL, 'A salary run was approved for payout.', SalaryRunObject, { ...salaryRunExample, status: 'approved' }, true),
  'salary_run.booked': entry(PAYROLL, 'A salary run was booked to the ledger.', SalaryRunObject, { ...salaryRunExample, status: 'booked' }, true),
  'salary_run.cancelled': entry(PAYROLL, 'A salary run was cancelled before booking.', SalaryRunObject, { ...salaryRunExample, status: 'cancelled' }, true),
  // AGI lists pay per employee, so it is payroll data even though it is a tax return.
  'agi.generated': entry(TAX, 'An employer declaration (AGI) was generated for a month.', AgiObject, agiExample, true),
  'agi.submitted': entry(
    TAX,
    'An employer declaration (AGI) was submitted to Skatteverket.',
    AgiObject,
    { ...agiExample, status: 'submitted', submitted_at: '2026-12-08T08:30:12.000Z' },
    true,
  ),
  'vat_return.generated': entry(TAX, 'A VAT return (or a correction version) was generated for a period.', VatReturnObject, vatReturnExample),
  'vat_return.submitted': entry(
    TAX,
    'A VAT return (or a correction) was submitted and its settlement entry booked.',
    VatReturnObject,
    submittedVatReturnExample,
  ),
  'operation.succeeded': entry(OPERATIONS, 'An asynchronous operation finished successfully.', OperationObject, operationExample),
  'operation.failed': entry(OPERATIONS, 'An asynchronous operation failed; see its error.', OperationObject, {
    ...operationExample,
    kind: sieImportKind.kind,
    status: 'failed',
    result: null,
    progress: 40,
    progress_message: 'Failed',
    error: { code: 'SIE_INVALID', message: 'Line 212: #VER 17 does not balance (debit 1250.00, credit 1200.00).' },
  }),
  'operation.cancelled': entry(OPERATIONS, 'An asynchronous operation was cancelled before finishing.', OperationObject, {
    ...operationExample,
    status: 'cancelled',
  }),
  'webhook.disabled': entry(
    PLATFORM,
    'A webhook endpoint was disabled: by its owner, after a 410 Gone or an unsafe URL, or after 5 days (or 50 deliveries) of failures.',
    WebhookDisabledObject,
    {
      id: 'e2f7a4c9-1d5b-4832-b6e0-8a3c7f1d9b25',
      company_id: COMPANY_ID,
      event_type: 'journal_entry.committed',
      webhook_url: 'https://hooks.example.se/bookkeeping',
      disabled_at: '2026-11-14T03:17:55.000Z',
      disabled_reason: 'consecutive_failures',
      last_error: 'http_500',
    },
  ),
} satisfies Record<EventType, EventCatalogEntry>;

export const EVENT_CATALOG: Record<EventType, EventCatalogEntry> = CATALOG;

// Plain string so callers can pass an untrusted subscription filter without parsing it first.
export const isPayrollEventType = (type: string): boolean => EventType.safeParse(type).success && EVENT_CATALOG[type as EventType].payroll;

// ---------------------------------------------------------------------------------------------
// The delivered envelope.
// ---------------------------------------------------------------------------------------------

// The envelope's fields, shared by the per-type schemas below and the feed's generic one.
const envelopeShape = <K extends z.ZodType, O extends z.ZodType>(type: K, object: O) => ({
  id: z.union([z.string().regex(/^evt_[A-Za-z0-9]+$/), z.uuid()]).describe('Event id; the same across retries, so use it to de-duplicate.'),
  type,
  api_version: z.string().describe('API version the payload is rendered in, pinned per webhook.'),
  created_at: IsoDateTime,
  company_id: Id,
  livemode: z.boolean().describe('false for sandbox companies.'),
  data: z.object({
    object,
    previous_attributes: z.record(z.string(), z.unknown()).nullable().describe('For *.updated events, the changed fields’ old values; otherwise null.'),
  }),
});

const envelope = <T extends EventType, O extends z.ZodType>(type: T, object: O) => z.object(envelopeShape(z.literal(type), object));

/**
 * Any event with its object left open: what the events feed (listEvents) returns. The exact
 * object schema of each type is `eventEnvelopeSchemaFor(type)`, published by listEventTypes.
 */
export const AnyEventEnvelope = z
  .object(
    envelopeShape(
      EventType,
      z.record(z.string(), z.unknown()).describe('The resource as the API returns it; its schema per event type is in the event-types catalogue.'),
    ),
  )
  .describe('An emitted event, exactly as webhook deliveries carry it.');
export type AnyEventEnvelope = z.infer<typeof AnyEventEnvelope>;

// Extract: TS cannot see through an indexed access on a generic T that the result is a ZodType.
type ObjectSchemaOf<T extends EventType> = Extract<(typeof CATALOG)[T]['object'], z.ZodType>;
export type EventEnvelopeSchemaFor<T extends EventType> = ReturnType<typeof envelope<T, ObjectSchemaOf<T>>>;

/** The envelope with `type` fixed and `data.object` narrowed to that type's schema. */
export const eventEnvelopeSchemaFor = <T extends EventType>(type: T): EventEnvelopeSchemaFor<T> => envelope(type, CATALOG[type].object as ObjectSchemaOf<T>);

type AnyEnvelopeSchema = { [T in EventType]: EventEnvelopeSchemaFor<T> }[EventType];

// A discriminated union on `type`, so a payload whose object does not match its type is rejected.
// The cast only restores the tuple shape that Array#map forgets.
export const EventEnvelope = z
  .discriminatedUnion('type', EVENT_TYPES.map(eventEnvelopeSchemaFor) as [AnyEnvelopeSchema, ...AnyEnvelopeSchema[]])
  .describe('A delivered webhook event; `type` decides the shape of `data.object`.');
/** Any delivered event, typed per type: checking `type` narrows `data.object`. */
export type EventEnvelope = z.infer<typeof EventEnvelope>;
