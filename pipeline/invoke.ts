import type { OperationContext, Principal, Services } from '../domain/context.ts';
import { withTransaction } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { hasScope } from '../domain/kernel/scopes.ts';
import { assertCompanyAccess, companyNotFound } from '../domain/companies/access.ts';
import { appendAudit, type AuditMeta } from '../domain/audit/append.ts';
import { admit, type Admission } from '../domain/apikeys/admit.ts';
import { abandonIdempotent, beginIdempotent, completeIdempotent } from '../domain/idempotency/records.ts';
import type { PaginationMeta } from '../domain/kernel/pagination.ts';
import { sha256Hex } from '../domain/kernel/crypto.ts';
import { isPublic, isTenantScoped, isWrite, requiredScopes, type FileContent, type Operation, type UploadedFile } from '../registry/define-operation.ts';
import { applyExpansions, requestedExpansions, type PartialExpansion } from './expand.ts';
import { parseInput, type RawInput } from './parse-input.ts';
import { assertWithinRateLimit } from './rate-limit.ts';
import type { BinaryBody } from '../domain/kernel/binary-body.ts';
import { JSON_MEDIA_TYPE } from '../registry/media-types.ts';
import { chooseMediaType, negotiateLanguage } from './negotiate.ts';

/**
 * The one request pipeline every surface (REST, MCP) runs an operation through, so both give the
 * same answers: rate limit → scope → company membership → validation → idempotency → handler in
 * one transaction with its audit entry → output check. The first three come from one admission
 * (one database round trip), so an authenticated read costs that plus its own query. Validation
 * is strict and shared: unknown names, text the database cannot store and a malformed `dry_run`
 * flag are refused here, once, for every operation.
 */

export type DenialKind = 'invalid_token' | 'insufficient_scope' | 'membership' | 'validation';

export interface Invocation {
  services: Services;
  op: Operation;
  /** Authenticated caller; null on public operations called anonymously. */
  actor: Principal | null;
  /**
   * The surface's admission of this request (key, rate-limit count, tenancy of the company it
   * asked about), when it made one while authenticating. Without it, or when it asked about
   * another company, invoke() admits the actor's key itself — still one round trip.
   */
  admission?: Admission | undefined;
  requestId: string;
  /**
   * The caller's input as sent: path parameters, query parameters (REST's query string, or MCP
   * arguments that are not path or body fields — `dry_run` included, parsed here) and the body.
   */
  raw: RawInput;
  /** Reads the body lazily, so scope and membership are checked before a body is even parsed. */
  loadBody?: () => Promise<unknown>;
  /** For operations that take a file: reads it and the fields beside it, lazily like loadBody. */
  loadUpload?: () => Promise<Upload>;
  idempotencyKey?: string | undefined;
  /**
   * The media types the caller accepts, as an HTTP Accept value (REST passes its header; another
   * surface may name one type). Only operations with `produces` negotiate; absent: the default.
   */
  accept?: string | undefined;
  /**
   * The languages the caller prefers, as an HTTP Accept-Language value (REST passes its header,
   * the CLI its --lang). Only representations offered in several languages negotiate; absent: the default.
   */
  acceptLanguage?: string | undefined;
  onDenial?: (kind: DenialKind, error: DomainError) => void;
}

export { DRY_RUN_PARAM } from './parse-input.ts';

/** A file upload as a surface read it: the text fields and the file (null when none was sent). */
export interface Upload {
  fields: Record<string, unknown>;
  file: UploadedFile | null;
  /** Frees what holds the file (a spooled temporary file); the surface calls it once the request is answered. */
  dispose?: () => Promise<void>;
}

export interface InvocationMeta {
  pagination?: PaginationMeta;
  audit?: AuditMeta;
  dry_run?: true;
  /** On a dry run: the event types the write would have emitted. */
  would_emit?: string[];
  partial_expansions?: PartialExpansion[];
}

export interface InvocationResult {
  status: number;
  data: unknown;
  meta: InvocationMeta;
  /** True when an idempotent replay answered instead of the handler. */
  replayed: boolean;
  /** Set when the negotiated representation is binary: the body to stream instead of `data` (no envelope). */
  binary?: BinaryBody;
  /** The file of an operation with a binaryResponse; `data` is its metadata. */
  file?: FileContent;
}

/** Thrown inside the transaction to undo a dry run's writes; carries the would-be result out. */
class DryRunRollback extends Error {
  constructor(readonly result: InvocationResult) {
    super('dry run');
  }
}

export const IDEMPOTENCY_KEY_MAX = 255;
/** Visible ASCII only: the key travels in a header and is echoed in logs. */
export const IDEMPOTENCY_KEY_CHARS = '^[\\x21-\\x7e]+$';
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_CHARS);

/** The `db` of an operation declared `database: 'none'`: any use is a bug, reported loudly. */
const NO_DATABASE = new Proxy({} as OperationContext['db'], {
  get(_target, property) {
    throw new Error(`an operation declared database: 'none' used the database (${String(property)})`);
  },
});

/** The `db` of an operation declared `database: 'bare'`: it reads through readRows only. */
const PRISMA_UNDECLARED = new Proxy({} as OperationContext['db'], {
  get(_target, property) {
    throw new Error(`an operation declared database: 'bare' used Prisma (${String(property)}); read through readRows`);
  },
});

export async function invoke(inv: Invocation): Promise<InvocationResult> {
  try {
    return await invokeUnlogged(inv);
  } catch (error) {
    if (error instanceof DomainError && inv.onDenial) {
      const kind = denialKind(error);
      if (kind) inv.onDenial(kind, error);
    }
    throw error;
  }
}

/** Which failures count as denials to log (spec Authentication 5); others are ordinary outcomes. */
function denialKind(error: DomainError): DenialKind | null {
  if (error.code === 'UNAUTHENTICATED') return 'invalid_token';
  if (error.code === 'INSUFFICIENT_SCOPE') return 'insufficient_scope';
  if (error.membershipDenial) return 'membership';
  const validation: readonly string[] = ['VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'IDEMPOTENCY_KEY_REQUIRED'];
  return validation.includes(error.code) ? 'validation' : null;
}

async function invokeUnlogged(inv: Invocation): Promise<InvocationResult> {
  const { op, actor, services } = inv;
  let ctx: OperationContext = {
    services,
    actor,
    requestId: inv.requestId,
    // A public bare read never makes Prisma's client (on PGlite made on first use: a start's first
    // health answer goes without it, issue 30); anything else may use it.
    db: isPublic(op) && op.database === 'bare' ? PRISMA_UNDECLARED : services.database.prisma,
    inTransaction: false,
    dryRun: false,
    emitted: [],
  };

  if (!isPublic(op)) {
    if (!actor) throw new DomainError('UNAUTHENTICATED');
    const companyId = isTenantScoped(op) ? (inv.raw.params.companyId ?? '') : null;
    const admission =
      inv.admission ??
      (await admit(
        services.database.sql,
        { apiKeyId: actor.apiKeyId },
        { companyId, now: services.now(), defaultRateLimit: services.config.RATE_LIMIT_PER_MINUTE },
      ));
    // Revoked since the caller authenticated (a long-lived stdio session).
    if (!admission) throw new DomainError('UNAUTHENTICATED', { message: 'The API key is invalid or revoked.' });
    assertWithinRateLimit(admission);
    const missing = requiredScopes(op).find((scope) => !hasScope(actor.scopes, scope));
    if (missing) {
      throw new DomainError('INSUFFICIENT_SCOPE', {
        message: `This API key lacks the ${missing} scope required by ${op.id}.`,
        requiredScope: missing,
      });
    }
    if (companyId !== null) await checkCompanyAccess(ctx, admission, companyId);
  }

  let body: unknown;
  let file: UploadedFile | undefined;
  if (op.input.file) {
    const upload = inv.loadUpload ? await inv.loadUpload() : { fields: {}, file: null };
    // Without fields beside the file, an empty form part list is no body; a stray field is still refused.
    body = op.input.body || Object.keys(upload.fields).length > 0 ? upload.fields : undefined;
    file = checkFile(op, upload.file);
  } else {
    body = op.input.body && inv.loadBody ? await inv.loadBody() : inv.raw.body;
  }
  const parsed = parseInput(op, { ...inv.raw, body });
  const input = { ...parsed.input, ...(file && { file }) };
  const { dryRun } = parsed;
  ctx = { ...ctx, dryRun };
  const mediaType = op.produces?.length ? chooseMediaType(op, inv.accept) : JSON_MEDIA_TYPE;
  // A dry run stores nothing, so there is nothing a key could make safe to repeat.
  if (op.idempotencyKey === 'required' && !inv.idempotencyKey && !dryRun) throw new DomainError('IDEMPOTENCY_KEY_REQUIRED');
  if (inv.idempotencyKey !== undefined && (inv.idempotencyKey.length > IDEMPOTENCY_KEY_MAX || !IDEMPOTENCY_KEY.test(inv.idempotencyKey))) {
    throw new DomainError('VALIDATION_ERROR', {
      message: 'Idempotency-Key must be 1-255 visible ASCII characters.',
      details: [{ path: 'header.Idempotency-Key', message: 'Use 1-255 visible ASCII characters, e.g. a UUID.' }],
    });
  }

  if (mediaType !== JSON_MEDIA_TYPE) return render(ctx, op, mediaType, input, inv.acceptLanguage);
  if (op.database === 'none') return run({ ...ctx, db: NO_DATABASE, inTransaction: true }, inv, input);
  if (op.database === 'bare') {
    const bare = (sql: NonNullable<OperationContext['sql']>) => run({ ...ctx, db: PRISMA_UNDECLARED, sql, inTransaction: true }, inv, input);
    // Public routes run as the least-privilege role here too.
    return isPublic(op) ? services.database.anonSql(bare) : bare(services.database.sql);
  }
  if (isPublic(op)) {
    // Public routes run as the least-privilege role, never the privileged identity.
    return services.database.asAnon(async (anonDb) => run({ ...ctx, db: anonDb, inTransaction: true }, inv, input));
  }
  // Dry runs are never stored: they change nothing, so replaying them would be meaningless.
  if (!isWrite(op) || inv.idempotencyKey === undefined || dryRun) return run(ctx, inv, input);
  return runIdempotent(ctx, inv, input, inv.idempotencyKey);
}

/** A binary representation (reads only, checked at load): streamed by the surface, never enveloped. */
async function render(
  ctx: OperationContext,
  op: Operation,
  mediaType: string,
  input: { params: unknown; query: unknown; body: unknown },
  acceptLanguage: string | undefined,
): Promise<InvocationResult> {
  const representation = op.produces?.find((candidate) => candidate.mediaType === mediaType);
  if (!representation) throw new Error(`${op.id} has no representation ${mediaType}`);
  const language = representation.languages ? negotiateLanguage(representation.languages, acceptLanguage) : undefined;
  const binary = await representation.render(ctx, input, language);
  return { status: op.status, data: null, meta: {}, replayed: false, binary };
}

/** Tenancy from the admission when it asked about this company (the usual case), else one query. */
async function checkCompanyAccess(ctx: OperationContext, admission: Admission, companyId: string): Promise<void> {
  if (admission.company?.id === companyId) {
    if (!admission.company.access) throw companyNotFound();
    return;
  }
  await assertCompanyAccess(ctx, companyId);
}

/**
 * The generic rules of every upload, whatever the surface: one file, not empty, within the
 * declared size (REST already stopped reading past it; this is the check for every surface).
 */
function checkFile(op: Operation, file: UploadedFile | null): UploadedFile {
  const declared = op.input.file!;
  const path = `body.${declared.field}`;
  if (!file) {
    throw new DomainError('VALIDATION_ERROR', {
      message: `${path}: a file is required.`,
      details: [{ path, message: 'Send the file (one file).' }],
    });
  }
  if (file.content.size === 0) {
    throw new DomainError('VALIDATION_ERROR', { message: `${path}: the file is empty.`, details: [{ path, message: 'The file is empty.' }] });
  }
  if (file.content.size > declared.maxBytes) throw fileTooLarge(op);
  return file;
}

/** 413 for a file over the operation's limit, naming the limit. */
export function fileTooLarge(op: Pick<Operation, 'input'>): DomainError {
  const declared = op.input.file!;
  const path = `body.${declared.field}`;
  const limit = formatBytes(declared.maxBytes);
  return new DomainError('PAYLOAD_TOO_LARGE', {
    message: `The file is larger than ${limit}.`,
    details: [{ path, message: `At most ${limit} (${declared.maxBytes} bytes).` }],
  });
}

/** `20 MiB`, `512 KiB`, `900 bytes`: limits as people write them. */
export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** What identifies a request for idempotency: a file by its digest, never its bytes. */
const fingerprintOf = (opId: string, input: { file?: UploadedFile }): string => {
  const { file, ...rest } = input;
  const filePart = file && { filename: file.filename, sha256: file.content.sha256 };
  return sha256Hex(canonicalJson({ op: opId, input: { ...rest, ...(filePart && { file: filePart }) } }));
};

async function runIdempotent(
  ctx: OperationContext,
  inv: Invocation,
  input: { params: unknown; query: unknown; body: unknown; file?: UploadedFile },
  key: string,
): Promise<InvocationResult> {
  const actor = ctx.actor as Principal;
  const ref = { apiKeyId: actor.apiKeyId, key };
  const fingerprint = fingerprintOf(inv.op.id, input);
  const begun = await beginIdempotent(ctx.db, { ...ref, fingerprint, now: ctx.services.now() });
  if (begun.kind === 'reused') throw new DomainError('IDEMPOTENCY_KEY_REUSED');
  if (begun.kind === 'in_progress') throw new DomainError('IDEMPOTENCY_IN_PROGRESS');
  if (begun.kind === 'replay') {
    const stored = JSON.parse(ctx.services.secretBox.decrypt(begun.body)) as Omit<InvocationResult, 'replayed'>;
    return { ...stored, replayed: true };
  }
  try {
    return await run(ctx, inv, input, async (tx, result) => {
      const { replayed: _ignored, ...stored } = result;
      await completeIdempotent(tx.db, ctx.services.secretBox, ref, result.status, JSON.stringify(stored));
    });
  } catch (error) {
    await abandonIdempotent(ctx.db, ref);
    throw error;
  }
}

async function run(
  ctx: OperationContext,
  inv: Invocation,
  input: { params: unknown; query: unknown; body: unknown; file?: UploadedFile },
  beforeCommit?: (tx: OperationContext, result: InvocationResult) => Promise<void>,
): Promise<InvocationResult> {
  const { op } = inv;
  // Before any transaction opens: network work such as DNS must never hold a database connection.
  const prepared = op.prepare ? await op.prepare(ctx, input) : undefined;
  if (!isWrite(op)) return finish(op, await handle(op, ctx, { ...input, prepared }), {});
  try {
    return await withTransaction(ctx, async (tx) => {
      const handled = await handle(op, tx, { ...input, prepared });
      if (ctx.dryRun) {
        // Nothing was written, so there is no audit entry to point at, and nothing was created:
        // a dry run answers 200 (DESIGN.md §6) whatever the real call would answer.
        throw new DryRunRollback({ ...finish(op, handled, { dry_run: true, would_emit: [...(tx.emitted ?? [])] }), status: 200 });
      }
      const audit = await appendAudit(tx, {
        action: op.id,
        companyId: (input.params as { companyId?: string }).companyId ?? companyIdOf(handled.data),
        target: auditTarget(op, input, handled.data),
      });
      const result = finish(op, handled, { audit });
      await beforeCommit?.(tx, result);
      return result;
    });
  } catch (error) {
    if (error instanceof DryRunRollback) return error.result;
    throw error;
  }
}

/** The handler, then the expansions the caller asked for (pipeline/expand.ts). */
async function handle(
  op: Operation,
  ctx: OperationContext,
  input: { params: unknown; query: unknown; body: unknown; prepared?: unknown },
): Promise<{ data: unknown; pagination?: PaginationMeta; partialExpansions?: PartialExpansion[]; file?: FileContent }> {
  // The registry refuses, at load, an operation without a handler unless it answers in produces alone.
  if (!op.handler) throw new Error(`${op.id} has no JSON handler`);
  const handled = await op.handler(ctx, input);
  const expanded = await applyExpansions(ctx, op, handled.data, requestedExpansions(input.query));
  return { ...handled, data: expanded.data, ...(expanded.partial.length > 0 && { partialExpansions: expanded.partial }) };
}

function finish(
  op: Operation,
  handled: { data: unknown; pagination?: PaginationMeta; partialExpansions?: PartialExpansion[]; file?: FileContent },
  meta: InvocationMeta,
): InvocationResult {
  if (op.binaryResponse) {
    // The declaration documents the exact types; sending another would break the document.
    if (!handled.file || !op.binaryResponse.contentTypes.includes(handled.file.contentType)) {
      throw new Error(`${op.id} answered without a file of a declared content type (${handled.file?.contentType ?? 'none'})`);
    }
  }
  let data: unknown = null;
  if (op.output) {
    // A response that breaks its own documented schema is our bug: fail loudly, never send it.
    // Sending the parsed value also drops any field the schema does not document.
    const checked = op.output.safeParse(handled.data);
    if (!checked.success) {
      throw new Error(`${op.id} produced output that does not match its schema: ${checked.error.message}`);
    }
    data = checked.data;
  }
  return {
    status: op.status,
    data,
    meta: {
      ...(handled.pagination && { pagination: handled.pagination }),
      ...(handled.partialExpansions && { partial_expansions: handled.partialExpansions }),
      ...meta,
    },
    replayed: false,
    ...(handled.file && { file: handled.file }),
  };
}

function auditTarget(op: Operation, input: { params: unknown }, data: unknown): { type: string; id: string } | null {
  const type = op.auditTarget ?? op.group;
  const fromData = (data as { id?: unknown } | null)?.id;
  if (typeof fromData === 'string') return { type, id: fromData };
  const params = input.params as Record<string, string>;
  const fromPath = params.id ?? params.companyId;
  return fromPath ? { type, id: fromPath } : null;
}

const companyIdOf = (data: unknown): string | null => {
  const value = (data as { company_id?: unknown } | null)?.company_id;
  return typeof value === 'string' ? value : null;
};

/** JSON with sorted keys, so the same request in another key order has the same fingerprint. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
