/**
 * The domain's error vocabulary. Domain code throws `DomainError(code)` and never thinks about
 * HTTP or MCP; `registry/error-catalog.ts` maps each code to a status, a hint and a docs URL.
 */
export const ERROR_CODES = [
  'UNAUTHENTICATED',
  'INSUFFICIENT_SCOPE',
  'NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'VALIDATION_ERROR',
  'IDEMPOTENCY_KEY_REQUIRED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_IN_PROGRESS',
  'RATE_LIMITED',
  'CONFLICT',
  'METHOD_NOT_ALLOWED',
  'CORS_ORIGIN_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'NOT_ACCEPTABLE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'ACCOUNT_EXISTS',
  'ACCOUNT_UNKNOWN',
  'ACCOUNT_INACTIVE',
  'FISCAL_YEAR_OVERLAP',
  'FISCAL_YEAR_GAP',
  'FISCAL_YEAR_CLOSED',
  'NO_FISCAL_YEAR',
  'PERIOD_LOCKED',
  'ENTRY_UNBALANCED',
  'ENTRY_NOT_DRAFT',
  'ENTRY_NOT_COMMITTED',
  'ENTRY_ALREADY_REVERSED',
  'SALARY_RUN_EXISTS',
  'SALARY_RUN_STATE',
  'NO_ACTIVE_EMPLOYEES',
  'NO_BOOKED_SALARY_RUNS',
  'EMPLOYEE_EXISTS',
  'FILING_SUBMITTED',
  'PERIODS_NOT_LOCKED',
  'VAT_PERIOD_INVALID',
  'FILING_INCOMPLETE',
  'OPERATION_FINISHED',
  'UNSUPPORTED_FILE_TYPE',
  'DOCUMENT_IS_EVIDENCE',
  'SIE_INVALID',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One field-level problem, as reported in `error.details`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface DomainErrorOptions {
  message?: string;
  details?: ErrorDetail[];
  requiredScope?: string;
  /** Overrides the catalogue's list, e.g. the event types valid for `event_type`. */
  validAlternatives?: string[];
  /** Marks a 404 caused by a tenancy check, so surfaces log it as a membership denial. */
  membershipDenial?: boolean;
  /** Advice for this occurrence, added after the catalogue's recovery hint. */
  hint?: string;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly requiredScope: string | undefined;
  readonly validAlternatives: string[] | undefined;
  readonly membershipDenial: boolean;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, options: DomainErrorOptions = {}) {
    super(options.message ?? code);
    this.name = 'DomainError';
    this.code = code;
    this.details = options.details;
    this.requiredScope = options.requiredScope;
    this.validAlternatives = options.validAlternatives;
    this.membershipDenial = options.membershipDenial ?? false;
    this.hint = options.hint;
  }

  /** True when the message came from the thrower rather than defaulting to the code. */
  get hasCustomMessage(): boolean {
    return this.message !== this.code;
  }
}
