import { z } from 'zod';
import { ERROR_CODES, type DomainError, type ErrorCode } from '../domain/kernel/errors.ts';
import { RETRY_AFTER_SECONDS } from '../domain/ratelimit/window.ts';
import { API_PREFIX } from './api-prefix.ts';
import { MAX_BODY_TEXT } from './body-limit.ts';
import { DOCUMENT_CONTENT_TYPES } from '../domain/documents/content-type.ts';

/** How long a caller should wait while the database is unreachable: a restart takes seconds. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The page, relative to PUBLIC_BASE_URL, that this server serves with each code's cause and fix. */
export const ERROR_DOCS_PATH = '/docs/errors';

export interface CatalogueEntry {
  status: number;
  /** Default message when the thrower gave none. */
  message: string;
  /** What causes it, for the error page (docs_url). */
  cause: string;
  /** What the caller (often an agent) should do next. */
  recoveryHint: string;
  /** Codes or values the caller could use instead, when that is meaningful. */
  validAlternatives: string[];
  /** MCP: `tool` errors go back to the model as an isError result; `protocol` ones as JSON-RPC errors. */
  mcp: 'tool' | 'protocol';
  /**
   * The message and hint in MCP's own terms, where REST's name a header, a path or a query
   * parameter (an agent calling a tool has arguments and tools, not headers and URLs).
   */
  mcpWording?: { message?: string; recoveryHint?: string };
  /** HTTP headers that go with this error on every HTTP surface (REST, /mcp, the cron route). */
  headers?: Readonly<Record<string, string>>;
}

/** Which surface an error body is written for: the words differ, the codes and fields do not. */
export type ErrorSurface = 'rest' | 'mcp';

/**
 * The one table mapping domain error codes to transports. Typed `Record<ErrorCode, …>`, so
 * adding a code without an entry is a compile error.
 */
export const ERROR_CATALOG: Readonly<Record<ErrorCode, CatalogueEntry>> = {
  UNAUTHENTICATED: {
    status: 401,
    message: 'A valid API key is required.',
    cause: 'No Authorization header was sent, it is not `Bearer <API_KEY>`, or the key is unknown or revoked.',
    recoveryHint: 'Send the header "Authorization: Bearer <API_KEY>" with an active key (sk_test_… or sk_live_…).',
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: {
      recoveryHint: 'Configure the MCP client with an active key: the "Authorization: Bearer <API_KEY>" header for /mcp, or API_KEY for the stdio server.',
    },
    headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    message: 'The API key lacks a scope this operation requires.',
    cause: 'The key is valid but lacks the scope the operation needs (named in required_scope); payroll and AGI event types also need payroll:read.',
    recoveryHint: 'Use a key that holds required_scope, or ask an administrator to create one; retrying with this key will not help.',
    validAlternatives: [],
    mcp: 'tool',
  },
  NOT_FOUND: {
    status: 404,
    message: 'The resource does not exist or is not accessible with this key.',
    cause:
      'The id does not exist, or it belongs to a company this key cannot reach (another tenant, the other mode, or a key bound to another company): both answer the same, so nothing leaks.',
    recoveryHint: `Check the id: list the parent collection (e.g. GET ${API_PREFIX}/companies) to find valid ids; never guess ids.`,
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: {
      recoveryHint: 'Check the id: call the list tool of the parent collection (companies.list, list_companies, …) to find valid ids; never guess ids.',
    },
  },
  ROUTE_NOT_FOUND: {
    status: 404,
    message: 'No operation is served at this method and path.',
    cause: 'A typo in the path, a missing /api/v1 prefix, or a path the API does not have.',
    recoveryHint: `Check the method and path against the documented routes: GET ${API_PREFIX}/openapi.json lists every one (so do /docs and /llms.txt); API paths start with ${API_PREFIX}. valid_alternatives names the closest routes.`,
    validAlternatives: [],
    mcp: 'tool',
  },
  VALIDATION_ERROR: {
    status: 400,
    message: 'The request is invalid.',
    cause:
      'A path, query or body value is missing, of the wrong type or out of range, a name the operation does not take was sent, or a rule refused the value (e.g. a webhook URL that is not public https).',
    recoveryHint: 'Fix the fields listed in details (path and message) and send the request again.',
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: { message: 'The arguments are invalid.', recoveryHint: 'Fix the arguments listed in details (path and message) and call the tool again.' },
  },
  IDEMPOTENCY_KEY_REQUIRED: {
    status: 400,
    message: 'This operation requires an Idempotency-Key header.',
    cause: 'The operation creates something that must not be created twice by a retry, and no idempotency key was sent.',
    recoveryHint: 'Send a unique "Idempotency-Key" header (e.g. a UUID) and reuse it only to retry the same request.',
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: {
      message: 'This tool requires the idempotency_key argument.',
      recoveryHint: 'Pass idempotency_key (e.g. a fresh UUID) and reuse it only to retry the identical call.',
    },
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request.',
    cause: 'An earlier request with the same idempotency key had a different operation or body.',
    recoveryHint: 'Use a new Idempotency-Key for a different request; reuse a key only to retry the identical request.',
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: {
      message: 'This idempotency_key was already used with different arguments.',
      recoveryHint: 'Use a new idempotency_key for a different call; reuse a key only to retry the identical call.',
    },
  },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed.',
    cause: 'The first request with this idempotency key has not finished yet.',
    recoveryHint: 'Wait a moment and retry with the same key; the stored result is replayed once the first request finishes.',
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: {
      message: 'A call with this idempotency_key is still being processed.',
      recoveryHint: 'Wait a moment and call again with the same idempotency_key; the stored result is returned once the first call finishes.',
    },
  },
  RATE_LIMITED: {
    status: 429,
    message: 'Too many requests for this API key in the current minute.',
    cause: 'This key sent more requests in the current one-minute window than its limit allows.',
    recoveryHint: `Wait for the number of seconds in Retry-After (${RETRY_AFTER_SECONDS}) before sending more requests.`,
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: { recoveryHint: `Wait ${RETRY_AFTER_SECONDS} seconds before calling again: the limit counts every call of this API key per minute.` },
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  },
  CONFLICT: {
    status: 409,
    message: 'The request conflicts with the current state of the resource.',
    cause: "The resource's current state does not allow the change, e.g. retrying a delivery that is still pending.",
    recoveryHint: 'Read the resource again and retry with a request that fits its current state.',
    validAlternatives: [],
    mcp: 'tool',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    message: 'This method is not allowed on this path.',
    cause: 'The path exists, but not with this HTTP method.',
    recoveryHint: `See the Allow header or ${API_PREFIX}/openapi.json for the methods this path supports.`,
    validAlternatives: [],
    mcp: 'protocol',
  },
  CORS_ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: 'This origin may not call the API from a browser.',
    cause:
      "A browser's CORS preflight came from a page whose origin is not in the server's CORS_ALLOWED_ORIGINS setting (empty by default: no origin is allowed).",
    recoveryHint:
      "Ask the server's operator to add the page's exact origin (scheme, host and port) to CORS_ALLOWED_ORIGINS, or call the API from a server, where CORS does not apply.",
    validAlternatives: [],
    mcp: 'protocol',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    message: 'The request body is too large.',
    cause: 'The request body is larger than the limit.',
    recoveryHint: `Send a smaller body: at most ${MAX_BODY_TEXT} of JSON; a file at most the size its operation documents (the message names it).`,
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: { message: 'The arguments are too large.', recoveryHint: `Send smaller arguments (at most ${MAX_BODY_TEXT} of JSON).` },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'The request body must be JSON.',
    cause: 'The body was not sent as JSON (Content-Type: application/json), or not as multipart/form-data to an operation that takes a file.',
    recoveryHint: 'Send the body as JSON with "Content-Type: application/json", or a file upload as multipart/form-data where the operation takes a file.',
    validAlternatives: ['application/json'],
    mcp: 'protocol',
  },
  NOT_ACCEPTABLE: {
    status: 406,
    message: 'The operation cannot answer in any media type the Accept header allows.',
    cause: 'The Accept header names only media types this operation does not produce (e.g. text/csv for a report that answers JSON, PDF or SIE).',
    recoveryHint: 'Send an Accept header naming one of valid_alternatives (e.g. application/json, or application/pdf for a report), or omit it.',
    validAlternatives: [],
    mcp: 'tool',
  },
  INTERNAL_ERROR: {
    status: 500,
    message: 'Something went wrong on our side.',
    cause: 'An unexpected failure on our side; nothing in the request caused it.',
    recoveryHint: 'Retry later; if it persists, contact support with the request_id.',
    validAlternatives: [],
    mcp: 'tool',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'The service cannot reach its database right now.',
    cause:
      'The database is restarting, failing over or refusing connections; the service reconnects by itself. A write answered with this may or may not have been applied.',
    recoveryHint: `Retry after the number of seconds in Retry-After (${UNAVAILABLE_RETRY_AFTER_SECONDS}); retry a write with the same Idempotency-Key, so one that was applied is not applied twice.`,
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: {
      recoveryHint: `Wait ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds and call again; retry a write with the same idempotency_key, so one that was applied is not applied twice.`,
    },
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  },
  ACCOUNT_EXISTS: {
    status: 409,
    message: 'An account with this number already exists.',
    cause: "An account with this four-digit number is already in the company's chart of accounts.",
    recoveryHint: 'Use the existing account (listAccounts), or update it with updateAccount; account numbers are unique per company.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ACCOUNT_UNKNOWN: {
    status: 422,
    message: 'An account in the request is not in the chart of accounts.',
    cause: "A line names an account number the company's chart of accounts does not have.",
    recoveryHint: 'Use an account number from listAccounts, or create the account first with createAccount; details name the line.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ACCOUNT_INACTIVE: {
    status: 422,
    message: 'An account in the entry is inactive.',
    cause: 'A line posts to an account that was deactivated; inactive accounts stay in history but take no new postings.',
    recoveryHint: 'Post to an active account, or reactivate this one with updateAccount (active: true); details name the line.',
    validAlternatives: [],
    mcp: 'tool',
  },
  FISCAL_YEAR_OVERLAP: {
    status: 409,
    message: 'The fiscal year overlaps an existing one.',
    cause: "The new fiscal year's dates overlap a fiscal year the company already has.",
    recoveryHint: 'List the fiscal years (listFiscalYears) and start the new one the day after the latest one ends.',
    validAlternatives: [],
    mcp: 'tool',
  },
  FISCAL_YEAR_GAP: {
    status: 422,
    message: 'The fiscal year would leave a gap after the previous one.',
    cause: 'Fiscal years must follow each other without a gap, and the new one starts later than the day after the previous one ends.',
    recoveryHint: 'Start the new fiscal year the day after the previous one ends (see listFiscalYears).',
    validAlternatives: [],
    mcp: 'tool',
  },
  FISCAL_YEAR_CLOSED: {
    status: 409,
    message: 'The fiscal year is closed.',
    cause: 'The change touches a fiscal year that was closed; its books are final.',
    recoveryHint: 'A closed fiscal year takes no changes; book corrections in an open year.',
    validAlternatives: [],
    mcp: 'tool',
  },
  NO_FISCAL_YEAR: {
    status: 422,
    message: 'The date lies outside every fiscal year of the company.',
    cause: 'The date is outside every fiscal year the company has.',
    recoveryHint: 'Create the fiscal year that covers the date with createFiscalYear, or use a date inside an existing one (listFiscalYears).',
    validAlternatives: [],
    mcp: 'tool',
  },
  PERIOD_LOCKED: {
    status: 409,
    message: 'The period of this date is locked.',
    cause: 'The date falls in an accounting period that was locked against changes.',
    recoveryHint: 'Use a date in an open period, or unlock the period with unlockPeriod (needs compliance:write) if the year is not closed.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ENTRY_UNBALANCED: {
    status: 422,
    message: 'The entry does not balance: total debits differ from total credits.',
    cause: "The entry's debit total differs from its credit total; double-entry bookkeeping needs them equal.",
    recoveryHint: 'Create a corrected draft whose debit and credit totals are equal (details give both), then commit it; delete this draft.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ENTRY_NOT_DRAFT: {
    status: 409,
    message: 'Only draft entries can be committed or deleted.',
    cause: 'The entry was already committed; committed entries are immutable (Bokföringslagen).',
    recoveryHint: 'A committed entry is fixed; correct it with reverseJournalEntry and book a new entry.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ENTRY_NOT_COMMITTED: {
    status: 409,
    message: 'Only committed entries can be reversed.',
    cause: 'The entry is still a draft, so there is nothing in the books to reverse.',
    recoveryHint: 'A draft is not in the books yet: delete it (deleteJournalEntry) instead of reversing it.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ENTRY_ALREADY_REVERSED: {
    status: 409,
    message: 'The entry has already been reversed.',
    cause: 'A reversal of this entry already exists.',
    recoveryHint: 'An entry is reversed at most once; see reversed_by_id on the entry for its reversal.',
    validAlternatives: [],
    mcp: 'tool',
  },
  SALARY_RUN_EXISTS: {
    status: 409,
    message: 'A salary run for this month already exists.',
    cause: 'A company has at most one live salary run per month, and this month already has one.',
    recoveryHint: 'Use the existing run (listSalaryRuns), or cancel it (cancelSalaryRun) before creating a new one; booked runs stay.',
    validAlternatives: [],
    mcp: 'tool',
  },
  SALARY_RUN_STATE: {
    status: 409,
    message: 'The salary run is not in a state that allows this.',
    cause: "The action does not fit the run's status: e.g. booking a draft that was never approved, or cancelling a booked run.",
    recoveryHint: 'Runs go draft → approved → booked; cancel only before booking. Read the run (getSalaryRun) for its status.',
    validAlternatives: [],
    mcp: 'tool',
  },
  NO_ACTIVE_EMPLOYEES: {
    status: 422,
    message: 'No employee is employed in this month.',
    cause: "None of the company's employees has an employment that covers the run's month.",
    recoveryHint: 'Add employees (createEmployee) whose employment covers the month, then create the run.',
    validAlternatives: [],
    mcp: 'tool',
  },
  NO_BOOKED_SALARY_RUNS: {
    status: 422,
    message: 'The month has no booked salary run to declare.',
    cause: 'An employer declaration (AGI) declares booked salaries, and the month has none.',
    recoveryHint: "Approve and book the month's salary run (approveSalaryRun, bookSalaryRun) before generating its AGI.",
    validAlternatives: [],
    mcp: 'tool',
  },
  EMPLOYEE_EXISTS: {
    status: 409,
    message: 'Another employee of this company has this personal identity number.',
    cause: 'A company registers each person once, so the employer declaration (AGI) declares each payee once; the number given is already registered.',
    recoveryHint: 'Use the employee the message names (getEmployee, updateEmployee) instead of registering the person again, or correct the number.',
    validAlternatives: [],
    mcp: 'tool',
  },
  FILING_INCOMPLETE: {
    status: 422,
    message: "The return lacks something Skatteverket's file needs.",
    cause:
      "The file names the employer by a 10- or 12-digit organisation number, an AGI names a contact person and each payee's workplace; details lists what is missing.",
    recoveryHint: 'Supply what details names (e.g. contact in generateAgi, workplace_address and workplace_city in updateEmployee), then generate again.',
    validAlternatives: [],
    mcp: 'tool',
  },
  FILING_SUBMITTED: {
    status: 409,
    message: 'The return has been submitted and is frozen.',
    cause: 'The VAT return or AGI was already submitted; submitted filings are frozen.',
    recoveryHint: 'A submitted filing never changes. Generate the period again to create a linked correction version, then submit that.',
    validAlternatives: [],
    mcp: 'tool',
  },
  PERIODS_NOT_LOCKED: {
    status: 409,
    message: 'Some periods this needs locked are still open.',
    cause: 'The action (closing a year, submitting a return) needs its periods locked first, and some are still open.',
    recoveryHint: 'Lock the periods listed in details (lockPeriod, scope compliance:write), then try again.',
    validAlternatives: [],
    mcp: 'tool',
  },
  VAT_PERIOD_INVALID: {
    status: 422,
    message: "The VAT period does not match the company's accounting periods.",
    cause: "The requested range does not start and end on period boundaries of the company's books.",
    recoveryHint: 'Start on the first day of a period and end on the last day of a period (see listPeriods), e.g. a month or a quarter.',
    validAlternatives: [],
    mcp: 'tool',
  },
  OPERATION_FINISHED: {
    status: 409,
    message: 'The operation has finished; finished operations never change.',
    cause: 'The operation already succeeded, failed or was cancelled, so it can no longer be cancelled or deleted.',
    recoveryHint: 'Read it with getOperation; start a new operation to do the work again.',
    validAlternatives: [],
    mcp: 'tool',
  },
  UNSUPPORTED_FILE_TYPE: {
    status: 415,
    message: 'The file is not of an accepted type.',
    cause: 'The uploaded bytes are not a PDF, JPEG, PNG, HEIC, TIFF or XML e-invoice (the type is detected from the content, not the name).',
    recoveryHint:
      'Send a PDF, JPEG, PNG, HEIC, TIFF or XML e-invoice (valid_alternatives); the type is read from the content, so renaming a file does not help.',
    validAlternatives: [...DOCUMENT_CONTENT_TYPES],
    mcp: 'tool',
  },
  DOCUMENT_IS_EVIDENCE: {
    status: 409,
    message: 'The document is evidence for a committed journal entry and must be kept.',
    cause: 'The document is attached to a committed journal entry, whose evidence must be kept.',
    recoveryHint:
      'Documents of committed entries stay with them (Bokföringslagen keeps them seven years); detach works only from drafts. To correct the books, reverse the entry.',
    validAlternatives: [],
    mcp: 'tool',
  },
  SIE_INVALID: {
    status: 422,
    message: 'The SIE file cannot be imported.',
    cause:
      'The file is not a well-formed SIE 4 file (a broken record, an amount with more than two decimals, an unbalanced #VER), or it does not fit the books: a date outside #RAR 0, a closed year or locked period, a series of that year already in use, an account neither in the chart nor declared by #KONTO.',
    recoveryHint:
      'The message names the line of the first problem: correct the file (or the books) and upload it again. A dry run checks a file without importing it.',
    validAlternatives: [],
    mcp: 'tool',
  },
};

/** The headers an error carries on HTTP (none for most codes). */
export const errorHeaders = (code: ErrorCode): Readonly<Record<string, string>> => ERROR_CATALOG[code].headers ?? {};

/** `PUBLIC_BASE_URL/docs/errors#<CODE>`: the section of the served error page for this code. */
export const docsUrlFor = (code: ErrorCode, publicBaseUrl: string): string => `${publicBaseUrl}${ERROR_DOCS_PATH}#${code}`;

/** The error envelope every failure answers with (DESIGN.md §6). */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      status: z.number().int(),
      request_id: z.string(),
      recovery_hint: z.string(),
      docs_url: z.url(),
      valid_alternatives: z.array(z.string()),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      required_scope: z.string().optional(),
    }),
  })
  .describe('Error envelope.');
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * Builds the error envelope for a domain error: the same body on every surface (REST, MCP), in
 * that surface's words. `publicBaseUrl` (PUBLIC_BASE_URL) makes docs_url a page this server serves.
 */
export function errorBody(error: DomainError, requestId: string, publicBaseUrl: string, surface: ErrorSurface = 'rest'): ErrorBody {
  const entry: CatalogueEntry = ERROR_CATALOG[error.code];
  const wording = surface === 'mcp' ? entry.mcpWording : undefined;
  const hint = wording?.recoveryHint ?? entry.recoveryHint;
  return {
    error: {
      code: error.code,
      message: error.hasCustomMessage ? error.message : (wording?.message ?? entry.message),
      status: entry.status,
      request_id: requestId,
      // A thrower's situational advice (e.g. the setting that would allow a URL) follows the general one.
      recovery_hint: error.hint ? `${hint} ${error.hint}` : hint,
      docs_url: docsUrlFor(error.code, publicBaseUrl),
      valid_alternatives: error.validAlternatives ?? [...entry.validAlternatives],
      ...(error.details && { details: error.details }),
      ...(error.requiredScope && { required_scope: error.requiredScope }),
    },
  };
}
