import { CLI_NAME } from '../../registry/cli-command.ts';
import { CliError, EXIT, exitCodeForStatus } from './errors.ts';
import type { BuiltRequest } from './request.ts';

/**
 * Sends a built request and sorts the answer: a JSON envelope, an empty 204, a binary body to
 * stream, or an error turned into a CliError carrying the catalogue's message, recovery hint
 * and docs URL and the exit code of its class.
 */

export type ApiAnswer =
  | { kind: 'json'; status: number; headers: Headers; data: unknown; meta: Record<string, unknown> }
  | { kind: 'empty'; status: number; headers: Headers }
  | { kind: 'binary'; status: number; headers: Headers; contentType: string; body: ReadableStream<Uint8Array> };

const isJson = (contentType: string): boolean => /^application\/([\w.+-]*\+)?json\b/i.test(contentType);

export async function send(request: BuiltRequest, options: { signal?: AbortSignal } = {}): Promise<ApiAnswer> {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined && { body: request.body }),
      redirect: 'manual',
      ...(options.signal && { signal: options.signal }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `Cannot reach ${new URL(request.url).origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}.`,
      EXIT.server,
      'Is the server running? Point the CLI at it with --base-url or ACCOUNTING_API_URL.',
    );
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (response.status >= 400) throw await apiError(response, contentType, request);
  if (response.status === 204 || response.body === null) return { kind: 'empty', status: response.status, headers: response.headers };
  if (isJson(contentType)) {
    const envelope = (await response.json()) as { data?: unknown; meta?: Record<string, unknown> };
    return { kind: 'json', status: response.status, headers: response.headers, data: envelope.data ?? null, meta: envelope.meta ?? {} };
  }
  return { kind: 'binary', status: response.status, headers: response.headers, contentType, body: response.body };
}

/** The API's error envelope (DESIGN.md §6). */
interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    status: number;
    request_id?: string;
    recovery_hint?: string;
    docs_url?: string;
    valid_alternatives?: string[];
    details?: { path: string; message: string }[];
    required_scope?: string;
  };
}

/** An API refusal as printed: the catalogue's message, hint and docs URL, plus what helps fix it. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope | null,
    message: string,
    hint: string | undefined,
  ) {
    super(message, exitCodeForStatus(status), hint);
    this.name = 'ApiError';
  }

  /** The lines written to stderr. */
  lines(): string[] {
    const error = this.envelope?.error;
    if (!error) return [`Error: ${this.message}`, ...(this.hint ? [`Hint: ${this.hint}`] : [])];
    const lines = [`Error: ${error.message} (${error.code}, HTTP ${this.status})`];
    // Details the message does not already spell out, one per line.
    for (const detail of error.details ?? []) {
      if (!error.message.includes(`${detail.path}: ${detail.message}`)) lines.push(`  ${detail.path}: ${detail.message}`);
    }
    if (error.required_scope) lines.push(`Required scope: ${error.required_scope}`);
    if (error.valid_alternatives && error.valid_alternatives.length > 0) lines.push(`Valid values: ${error.valid_alternatives.join(', ')}`);
    if (error.recovery_hint) lines.push(`Hint: ${error.recovery_hint}`);
    if (this.hint) lines.push(`Hint: ${this.hint}`);
    if (error.docs_url) lines.push(`Docs: ${error.docs_url}`);
    if (error.request_id) lines.push(`Request id: ${error.request_id}`);
    return lines;
  }
}

async function apiError(response: Response, contentType: string, request: BuiltRequest): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let envelope: ErrorEnvelope | null = null;
  if (isJson(contentType)) {
    try {
      const parsed = JSON.parse(text) as Partial<ErrorEnvelope>;
      if (parsed.error && typeof parsed.error.code === 'string') envelope = parsed as ErrorEnvelope;
    } catch {
      envelope = null;
    }
  }
  // The CLI's own advice, where it knows more than the server: how to give it a key.
  const hint =
    response.status === 401 && !request.headers.authorization
      ? `No API key was sent: set ACCOUNTING_API_KEY or pass --api-key (the admin tool creates keys: npm run admin -- key create …).`
      : response.status === 401
        ? `Check ACCOUNTING_API_KEY / --api-key; ${CLI_NAME} sends it as the bearer token.`
        : undefined;
  const message =
    envelope?.error.message ?? `HTTP ${response.status} from ${request.method} ${new URL(request.url).pathname}${text ? `: ${text.slice(0, 200)}` : ''}`;
  return new ApiError(response.status, envelope, message, hint);
}
