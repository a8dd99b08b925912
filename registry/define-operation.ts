import { z } from 'zod';
import { EXPAND_PARAM, expandParameter } from './expand-parameter.ts';
import type { OperationContext } from '../domain/context.ts';
import type { Scope } from '../domain/kernel/scopes.ts';
import type { PaginationMeta } from '../domain/kernel/pagination.ts';
import type { ErrorCode } from '../domain/kernel/errors.ts';
import type { BinaryBody } from '../domain/kernel/binary-body.ts';
import type { ByteSource } from '../domain/kernel/byte-source.ts';
import type { EventType } from '../domain/events/types.ts';

export const GROUPS = ['platform', 'companies', 'ledger', 'reports', 'documents', 'operations', 'events', 'payroll', 'tax', 'webhooks', 'discovery'] as const;
export type Group = (typeof GROUPS)[number];

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type Surface = 'api' | 'mcp' | 'cli';
/**
 * The surfaces that exist: each is generated from this registry (REST in rest/, MCP tools in mcp/,
 * the `accounting` command-line client in cli/client/). An operation may list only these (checked
 * at load), so capability records never advertise a surface nobody can use.
 */
export const BUILT_SURFACES: readonly Surface[] = ['api', 'mcp', 'cli'];
export type SideEffect = 'none' | 'create' | 'update' | 'delete' | 'emits_event';
/** L0 read-only … L3 irreversible or money-moving; drives MCP hints and x-action-risk. */
export type Risk = 'L0' | 'L1' | 'L2' | 'L3';

// zod object types for params and query (their keys become path/query parameters).
type AnyObject = z.ZodObject<z.ZodRawShape>;

/**
 * A file the operation takes beside its `body` fields. REST reads it as the `field` part of a
 * `multipart/form-data` body, streamed and refused past `maxBytes` as the bytes arrive; MCP as
 * base64 `content` plus a `filename` argument, the same limit applied to the decoded bytes. The
 * surfaces, OpenAPI and the docs all read this one declaration.
 */
export interface FileInput {
  /** The multipart part that carries the file (REST). */
  field: string;
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** The media types the handler accepts (it decides by content; this documents them). */
  contentTypes: readonly [string, ...string[]];
  description: string;
  /** The file name the documented curl and CLI examples upload, e.g. `kvitto.pdf`. */
  exampleName: string;
}

/** An uploaded file as a handler receives it: the bytes and the client's file name, unchecked. */
export interface UploadedFile {
  /** As the client sent it (display only; may carry a path or control characters), or null. */
  filename: string | null;
  /** The bytes, read piece by piece (never one buffer): size and SHA-256 are known up front. */
  content: ByteSource;
}

export interface OperationInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  params?: P;
  query?: Q;
  /** JSON body, or with `file` the text fields sent beside the file. */
  body?: B;
  file?: FileInput;
}

type Infer<T> = T extends z.ZodType ? z.infer<T> : Record<string, never>;

export interface HandlerInput<P, Q, B> {
  params: Infer<P>;
  query: Infer<Q>;
  body: B extends z.ZodType ? z.infer<B> : undefined;
  /** Present exactly when the operation declares `input.file` (the pipeline guarantees it). */
  file?: UploadedFile;
}

/**
 * A file answer instead of the JSON envelope (spec Endpoints 9). The bytes are read only when a
 * surface sends them — not for a 304, nor for an MCP result too large to carry them — so `read`
 * runs after the handler has returned, outside its transaction: it may only read.
 */
export interface FileContent {
  /** Exactly one of the operation's declared `binaryResponse.contentTypes`. */
  contentType: string;
  /** Display name for Content-Disposition (the surface makes it header-safe). */
  filename: string;
  /** Byte length, when known before reading (Content-Length). */
  size?: number;
  /** A strong validator of the bytes (e.g. their SHA-256): ETag, If-None-Match → 304. */
  etag?: string;
  read(): Promise<Uint8Array | ReadableStream<Uint8Array>>;
}

/**
 * A binary form of an operation's success response (a report's PDF, an SIE file, a document):
 * no envelope and no worked example (spec Endpoints 9-10), streamed rather than collected.
 */
export interface Representation<P extends AnyObject = AnyObject, Q extends AnyObject = AnyObject> {
  /** The media type callers ask for with Accept and receive as Content-Type, e.g. `application/pdf`. */
  mediaType: string;
  /**
   * The languages it is written in, the default first (a report PDF: Swedish or English). The
   * caller's Accept-Language chooses one (pipeline/negotiate.ts) and render gets it; absent: the
   * representation has no language to choose.
   */
  languages?: readonly string[];
  render: (ctx: OperationContext, input: HandlerInput<P, Q, undefined>, language: string | undefined) => Promise<BinaryBody>;
}

/** What a handler returns: the `data` part, plus list metadata for paginated operations. */
export interface HandlerResult<T> {
  data: T;
  pagination?: PaginationMeta;
  /** The file, for operations that declare `binaryResponse`; `data` is then its metadata (MCP shows it). */
  file?: FileContent;
}

/**
 * One expansion an operation offers (`?expand=<name>`, the `expand` tool argument): a related
 * resource added to each item of the answer. The pipeline checks the scopes and collects what it
 * had to leave out into `meta.partial_expansions`; the answer itself still succeeds.
 */
export interface Expansion<Item extends { id: string } = { id: string }> {
  /** The field each item gains; declared optional (and described) in the item's output schema (checked at load). */
  field: string;
  /** A scope the caller needs to see it at all (beyond the operation's own). */
  scope?: Scope;
  /** A scope needed for one item only (e.g. payroll:read for payroll event types); null for none. */
  itemScope?(item: Item): Scope | null;
  /** The field's value per item id; an item missing from the map has no target (it is gone). */
  load(ctx: OperationContext, items: readonly Item[]): Promise<ReadonlyMap<string, unknown>>;
}

export interface ExpandDeclaration {
  /** The key in `data` of the list whose items expand; omitted when `data` is itself the item. */
  list?: string;
  /** Expansion name → expansion, in the order they are documented and applied. */
  options: Readonly<Record<string, Expansion>>;
}

export interface OperationDefinition<
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  R = undefined,
> {
  /** camelCase; becomes the OpenAPI operationId and the capability's alternate id. */
  id: string;
  group: Group;
  method: HttpMethod;
  /** Relative to /api/v1, OpenAPI style: `/companies/{companyId}/webhooks`. */
  path: string;
  summary: string;
  /**
   * One paragraph for agents, reused by OpenAPI, MCP, llms.txt and skills. Without the "Emits …"
   * sentence: defineOperation appends it from `emits`.
   */
  description: string;
  /**
   * The public events a call emits in its own transaction (those an example may not trigger, such
   * as webhook.disabled on an update that does not disable, included). Events a queued job emits
   * later are not the call's. The examples replay holds this list to what the call really emits.
   */
  emits?: readonly EventType[];
  /**
   * `scope` is the scope that names the operation's family (tool filtering, OpenAPI); `also` lists
   * further scopes it needs, e.g. payroll writes need payroll:read and companies:write.
   */
  auth: { public: true } | { scope: Scope; also?: readonly Scope[] };
  risk: Risk;
  idempotent: boolean;
  reversible: boolean;
  dryRun: boolean;
  idempotencyKey: 'required' | 'optional' | 'none';
  sideEffects: readonly SideEffect[];
  input: OperationInput<P, Q, B>;
  /** The `data` schema; null for a bare 204, or for an operation that answers only in `produces`. With `binaryResponse`, the file's metadata. */
  output: O | null;
  /**
   * Set when a success answers with a file (REST: the bytes with exact headers, no envelope; MCP:
   * `output` plus the content as an embedded resource when small enough). Absent: JSON.
   */
  binaryResponse?: { contentTypes: readonly [string, ...string[]] };
  status: 200 | 201 | 202 | 204;
  /**
   * Binary representations of the success response, chosen by content negotiation (REST: the
   * Accept header; registry/media-types.ts). Beside a JSON `output` they are alternatives and JSON
   * stays the default (a report and its PDF); with `output: null` and status 200 they are the only
   * answer (a file download) and the operation has no `handler`. Reads only. OpenAPI and the docs
   * list every media type; MCP tools keep to JSON.
   */
  produces?: readonly Representation<P, Q>[];
  /**
   * The domain errors this operation's handler may throw, beyond the ones the pipeline itself
   * answers from the operation's traits (auth, scope, tenancy, validation, idempotency, rate limit).
   * OpenAPI, docs and MCP read this list; it is the one declaration of them. Codes only the
   * pipeline or a transport produces (PIPELINE_ONLY_ERRORS) are refused at load.
   */
  errors?: readonly ErrorCode[];
  /**
   * Output fields holding a secret shown only in this answer (a webhook's signing secret). REST
   * returns them; over MCP the answer goes into a model's context, so the tool says so and takes
   * `reveal_secret: false` to leave them out.
   */
  secretOutput?: readonly string[];
  /**
   * The GET operation that follows up a 202 answer (e.g. the delivery list for a queued delivery).
   * Without it, a 202 operation is followed with `getOperation`. MCP names it in the result.
   */
  pollWith?: string;
  /**
   * Related resources a caller may ask to have added (`expand`). Declaring them adds the documented
   * `expand` query parameter (and so the tool argument); see pipeline/expand.ts.
   */
  expand?: ExpandDeclaration;
  /** The audit target's type for writes (the id is taken from data.id or the path). */
  auditTarget?: string;
  examples: {
    params?: Partial<Infer<P>>;
    query?: Partial<Infer<Q>>;
    body?: B extends z.ZodType ? z.input<B> : never;
    response?: O extends z.ZodType ? z.input<O> : never;
  };
  surfaces: readonly Surface[];
  /**
   * 'none' for handlers that never query the database (e.g. an upstream lookup): they run without
   * holding a connection or transaction, which matters on PGlite's single connection.
   * 'bare' for reads that query only through readRows (the bare driver), never `ctx.db`'s Prisma
   * API: a public one runs as api_anon without a Prisma transaction, so health answers before
   * Prisma's query compiler has started (about 0.3 s at start, issue 30). Reads only.
   */
  database?: 'none' | 'bare';
  /**
   * Work that must not run inside the database transaction, typically network I/O such as the DNS
   * lookup of a webhook URL check: it runs after validation and before the transaction opens, so
   * a slow name server never holds a database connection. Its result reaches the handler as
   * `input.prepared`. It may throw domain errors like the handler.
   */
  prepare?: (ctx: OperationContext, input: HandlerInput<P, Q, B>) => Promise<R>;
  /** The JSON answer (or the 204); absent only when the operation answers in `produces` alone. */
  handler?: (ctx: OperationContext, input: HandlerInput<P, Q, B> & { prepared: R }) => Promise<HandlerResult<O extends z.ZodType ? z.infer<O> : null>>;
}

/** The type-erased form the surfaces iterate over. */
// The handler's input is checked by the pipeline (pipeline/invoke.ts) against the operation's own schemas, so erasing it is safe.
export type Operation = Omit<OperationDefinition<AnyObject, AnyObject, z.ZodType, z.ZodType, unknown>, 'prepare' | 'handler' | 'produces'> & {
  prepare?: (ctx: OperationContext, input: { params: unknown; query: unknown; body: unknown }) => Promise<unknown>;
  handler?: (ctx: OperationContext, input: { params: unknown; query: unknown; body: unknown; prepared?: unknown }) => Promise<HandlerResult<unknown>>;
  produces?: readonly ErasedRepresentation[];
};

/** A representation as the surfaces hold it; its input was checked against the operation's schemas. */
export interface ErasedRepresentation {
  mediaType: string;
  languages?: readonly string[];
  render: (ctx: OperationContext, input: { params: unknown; query: unknown; body: unknown }, language: string | undefined) => Promise<BinaryBody>;
}

/**
 * What an operation declares, as types only: never set at run time. It rides on the erased form so
 * a typed caller (the tests' `callOp`) reads an operation's input and output types off its export.
 */
export interface DeclaredTypes<P, Q, B, O> {
  params: P;
  query: Q;
  body: B;
  output: O;
}
export type TypedOperation<P = unknown, Q = unknown, B = unknown, O = unknown> = Operation & { readonly '~declared'?: DeclaredTypes<P, Q, B, O> };

/**
 * Identity helper: keeps each declaration fully typed where it is written. The one thing it adds:
 * an operation that declares `expand` takes the `expand` query parameter, so every surface
 * (REST, OpenAPI, MCP, docs) offers it without knowing about expansions.
 */
export function defineOperation<P extends AnyObject, Q extends AnyObject, B extends z.ZodType, O extends z.ZodType, R = undefined>(
  declared: OperationDefinition<P, Q, B, O, R>,
): TypedOperation<P, Q, B, O> {
  const definition = declared.emits?.length ? { ...declared, description: `${declared.description} ${emitsSentence(declared.emits)}` } : declared;
  const query = definition.expand && (definition.input.query ?? z.object({})).extend({ [EXPAND_PARAM]: expandParameter(definition.expand) });
  const operation = (query ? { ...definition, input: { ...definition.input, query } } : definition) as unknown as Operation;
  DEFINED.add(operation);
  return operation as TypedOperation<P, Q, B, O>;
}

// What defineOperation returned: how the registry tells an operation from the other exports of
// the files beside it (shared params, traits, examples).
const DEFINED = new WeakSet<object>();

export const isDefinedOperation = (value: unknown): value is Operation => typeof value === 'object' && value !== null && DEFINED.has(value);

/** `Emits a.b.`, `Emits a.b and c.d.`, `Emits a.b, c.d and e.f.`: the sentence every description ends with. */
export function emitsSentence(events: readonly EventType[]): string {
  const last = events.at(-1);
  const rest = events.slice(0, -1);
  return `Emits ${rest.length > 0 ? `${rest.join(', ')} and ${last}` : last}.`;
}

/** Errors no handler throws: the pipeline and the transports answer them from traits and requests. */
export const PIPELINE_ONLY_ERRORS: readonly ErrorCode[] = [
  'UNAUTHENTICATED',
  'RATE_LIMITED',
  'IDEMPOTENCY_KEY_REQUIRED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_IN_PROGRESS',
  'METHOD_NOT_ALLOWED',
  'CORS_ORIGIN_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

export const isPublic = (op: Pick<Operation, 'auth'>): boolean => 'public' in op.auth;
export const requiredScope = (op: Pick<Operation, 'auth'>): Scope | null => ('scope' in op.auth ? op.auth.scope : null);
/** Every scope the operation needs, its family's first. */
export const requiredScopes = (op: Pick<Operation, 'auth'>): Scope[] => ('scope' in op.auth ? [op.auth.scope, ...(op.auth.also ?? [])] : []);
export const isTenantScoped = (op: Pick<Operation, 'path'>): boolean => op.path.includes('{companyId}');
export const isWrite = (op: Pick<Operation, 'method'>): boolean => op.method !== 'GET';

/**
 * The traits every plain read shares (no side effects, safe to repeat, nothing to undo): spread
 * into a read's declaration instead of restating six lines, e.g. `...READ_ONLY`.
 */
export const READ_ONLY = {
  risk: 'L0',
  idempotent: true,
  reversible: true,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['none'],
} as const satisfies Pick<Operation, 'risk' | 'idempotent' | 'reversible' | 'dryRun' | 'idempotencyKey' | 'sideEffects'>;

/** The operation that follows up a 202 answer when the operation names none (`pollWith`). */
export const DEFAULT_POLL_OPERATION = 'getOperation';
