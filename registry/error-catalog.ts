import { z } from 'zod';
import { ERROR_CODES, type DomainError, type ErrorCode } from '../domain/kernel/errors.ts';
import { RETRY_AFTER_SECONDS } from '../domain/ratelimit/window.ts';
import { API_PREFIX } from './api-prefix.ts';
import { MAX_BODY_TEXT } from './http/body-limit.ts';

/** Public documentation root for error codes; each code has an anchor there. */
export const ERROR_DOCS_BASE = 'https://docs.example-accounting.dev/errors';

export interface CatalogueEntry {
  status: number;
  /** Default message when the thrower gave none. */
  message: string;
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
    recoveryHint: 'Use a key that holds required_scope, or ask an administrator to create one; retrying with this key will not help.',
    validAlternatives: [],
    mcp: 'tool',
  },
  NOT_FOUND: {
    status: 404,
    message: 'The resource does not exist or is not accessible with this key.',
    recoveryHint: `Check the id: list the parent collection (e.g. GET ${API_PREFIX}/companies) to find valid ids; never guess ids.`,
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: {
      recoveryHint: 'Check the id: call the list tool of the parent collection (companies.list, list_companies, …) to find valid ids; never guess ids.',
    },
  },
  VALIDATION_ERROR: {
    status: 400,
    message: 'The request is invalid.',
    recoveryHint: 'Fix the fields listed in details (path and message) and send the request again.',
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: { message: 'The arguments are invalid.', recoveryHint: 'Fix the arguments listed in details (path and message) and call the tool again.' },
  },
  IDEMPOTENCY_KEY_REQUIRED: {
    status: 400,
    message: 'This operation requires an Idempotency-Key header.',
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
    recoveryHint: `Wait for the number of seconds in Retry-After (${RETRY_AFTER_SECONDS}) before sending more requests.`,
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: { recoveryHint: `Wait ${RETRY_AFTER_SECONDS} seconds before calling again: the limit counts every call of this API key per minute.` },
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  },
  CONFLICT: {
    status: 409,
    message: 'The request conflicts with the current state of the resource.',
    recoveryHint: 'Read the resource again and retry with a request that fits its current state.',
    validAlternatives: [],
    mcp: 'tool',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    message: 'This method is not allowed on this path.',
    recoveryHint: `See the Allow header or ${API_PREFIX}/openapi.json for the methods this path supports.`,
    validAlternatives: [],
    mcp: 'protocol',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    message: 'The request body is too large.',
    recoveryHint: `Send a smaller body (at most ${MAX_BODY_TEXT} of JSON).`,
    validAlternatives: [],
    mcp: 'tool',
    mcpWording: { message: 'The arguments are too large.', recoveryHint: `Send smaller arguments (at most ${MAX_BODY_TEXT} of JSON).` },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'The request body must be JSON.',
    recoveryHint: 'Send the body as JSON with "Content-Type: application/json".',
    validAlternatives: ['application/json'],
    mcp: 'protocol',
  },
  NOT_ACCEPTABLE: {
    status: 406,
    message: 'The operation cannot answer in any media type the Accept header allows.',
    recoveryHint: 'Send an Accept header naming one of valid_alternatives (e.g. application/json, or application/pdf for a report), or omit it.',
    validAlternatives: [],
    mcp: 'tool',
  },
  INTERNAL_ERROR: {
    status: 500,
    message: 'Something went wrong on our side.',
    recoveryHint: 'Retry later; if it persists, contact support with the request_id.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ACCOUNT_EXISTS: {
    status: 409,
    message: 'An account with this number already exists.',
    recoveryHint: 'Use the existing account (listAccounts), or update it with updateAccount; account numbers are unique per company.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ACCOUNT_UNKNOWN: {
    status: 422,
    message: 'An account in the request is not in the chart of accounts.',
    recoveryHint: 'Use an account number from listAccounts, or create the account first with createAccount; details name the line.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ACCOUNT_INACTIVE: {
    status: 422,
    message: 'An account in the entry is inactive.',
    recoveryHint: 'Post to an active account, or reactivate this one with updateAccount (active: true); details name the line.',
    validAlternatives: [],
    mcp: 'tool',
  },
  FISCAL_YEAR_OVERLAP: {
    status: 409,
    message: 'The fiscal year overlaps an existing one.',
    recoveryHint: 'List the fiscal years (listFiscalYears) and start the new one the day after the latest one ends.',
    validAlternatives: [],
    mcp: 'tool',
  },
  FISCAL_YEAR_GAP: {
    status: 422,
    message: 'The fiscal year would leave a gap after the previous one.',
    recoveryHint: 'Start the new fiscal year the day after the previous one ends (see listFiscalYears).',
    validAlternatives: [],
    mcp: 'tool',
  },
  FISCAL_YEAR_CLOSED: {
    status: 409,
    message: 'The fiscal year is closed.',
    recoveryHint: 'A closed fiscal year takes no changes; book corrections in an open year.',
    validAlternatives: [],
    mcp: 'tool',
  },
  NO_FISCAL_YEAR: {
    status: 422,
    message: 'The date lies outside every fiscal year of the company.',
    recoveryHint: 'Create the fiscal year that covers the date with createFiscalYear, or use a date inside an existing one (listFiscalYears).',
    validAlternatives: [],
    mcp: 'tool',
  },
  PERIOD_LOCKED: {
    status: 409,
    message: 'The period of this date is locked.',
    recoveryHint: 'Use a date in an open period, or unlock the period with unlockPeriod (needs compliance:write) if the year is not closed.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ENTRY_UNBALANCED: {
    status: 422,
    message: 'The entry does not balance: total debits differ from total credits.',
    recoveryHint: 'Create a corrected draft whose debit and credit totals are equal (details give both), then commit it; delete this draft.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ENTRY_NOT_DRAFT: {
    status: 409,
    message: 'Only draft entries can be committed or deleted.',
    recoveryHint: 'A committed entry is fixed; correct it with reverseJournalEntry and book a new entry.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ENTRY_NOT_COMMITTED: {
    status: 409,
    message: 'Only committed entries can be reversed.',
    recoveryHint: 'A draft is not in the books yet: delete it (deleteJournalEntry) instead of reversing it.',
    validAlternatives: [],
    mcp: 'tool',
  },
  ENTRY_ALREADY_REVERSED: {
    status: 409,
    message: 'The entry has already been reversed.',
    recoveryHint: 'An entry is reversed at most once; see reversed_by_id on the entry for its reversal.',
    validAlternatives: [],
    mcp: 'tool',
  },
  SALARY_RUN_EXISTS: {
    status: 409,
    message: 'A salary run for this month already exists.',
    recoveryHint: 'Use the existing run (listSalaryRuns), or cancel it (cancelSalaryRun) before creating a new one; booked runs stay.',
    validAlternatives: [],
    mcp: 'tool',
  },
  SALARY_RUN_STATE: {
    status: 409,
    message: 'The salary run is not in a state that allows this.',
    recoveryHint: 'Runs go draft → approved → booked; cancel only before booking. Read the run (getSalaryRun) for its status.',
    validAlternatives: [],
    mcp: 'tool',
  },
  NO_ACTIVE_EMPLOYEES: {
    status: 422,
    message: 'No employee is employed in this month.',
    recoveryHint: 'Add employees (createEmployee) whose employment covers the month, then create the run.',
    validAlternatives: [],
    mcp: 'tool',
  },
  NO_BOOKED_SALARY_RUNS: {
    status: 422,
    message: 'The month has no booked salary run to declare.',
    recoveryHint: 'Approve and book the month\'s salary run (approveSalaryRun, bookSalaryRun) before generating its AGI.',
    validAlternatives: [],
    mcp: 'tool',
  },
  FILING_SUBMITTED: {
    status: 409,
    message: 'The return has been submitted and is frozen.',
    recoveryHint: 'A submitted filing never changes. For an AGI, generate the month again to create a linked correction version.',
    validAlternatives: [],
    mcp: 'tool',
  },
  PERIODS_NOT_LOCKED: {
    status: 409,
    message: 'Some periods this needs locked are still open.',
    recoveryHint: 'Lock the periods listed in details (lockPeriod, scope compliance:write), then try again.',
    validAlternatives: [],
    mcp: 'tool',
  },
  VAT_PERIOD_INVALID: {
    status: 422,
    message: 'The VAT period does not match the company\'s accounting periods.',
    recoveryHint: 'Start on the first day of a period and end on the last day of a period (see listPeriods), e.g. a month or a quarter.',
    validAlternatives: [],
    mcp: 'tool',
  },
  OPERATION_FINISHED: {
    status: 409,
    message: 'The operation has finished; finished operations never change.',
    recoveryHint: 'Read it with getOperation; start a new operation to do the work again.',
    validAlternatives: [],
    mcp: 'tool',
  },
};

/** The headers an error carries on HTTP (none for most codes). */
export const errorHeaders = (code: ErrorCode): Readonly<Record<string, string>> => ERROR_CATALOG[code].headers ?? {};

export const docsUrlFor = (code: ErrorCode): string => `${ERROR_DOCS_BASE}#${code.toLowerCase()}`;

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

/** Builds the error envelope for a domain error: the same body on every surface (REST, MCP). */
export function errorBody(error: DomainError, requestId: string, surface: ErrorSurface = 'rest'): ErrorBody {
  const entry: CatalogueEntry = ERROR_CATALOG[error.code];
  const wording = surface === 'mcp' ? entry.mcpWording : undefined;
  return {
    error: {
      code: error.code,
      message: error.hasCustomMessage ? error.message : (wording?.message ?? entry.message),
      status: entry.status,
      request_id: requestId,
      recovery_hint: wording?.recoveryHint ?? entry.recoveryHint,
      docs_url: docsUrlFor(error.code),
      valid_alternatives: error.validAlternatives ?? [...entry.validAlternatives],
      ...(error.details && { details: error.details }),
      ...(error.requiredScope && { required_scope: error.requiredScope }),
    },
  };
}

