import type { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../../http/app-env.ts';
import type { ResponseMeta } from '../../http/envelope.ts';
import type { TypedOperation } from '../../registry/define-operation.ts';
import type { ErrorBody } from '../../registry/error-catalog.ts';
import { call } from './http.ts';

/** The declared schemas of an operation, read off its export (types only). */
type Declared<Op> = Op extends { readonly '~declared'?: infer D } ? D : never;
type Input<S> = S extends z.ZodType ? z.input<S> : never;
type Output<S> = S extends z.ZodType ? z.output<S> : null;

/** What a request to `Op` carries: its path parameters, query and JSON body as the schemas take them. */
export type OpRequest<Op> = {
  params?: Input<Declared<Op>['params' & keyof Declared<Op>]>;
  query?: Partial<Input<Declared<Op>['query' & keyof Declared<Op>]>>;
  body?: Input<Declared<Op>['body' & keyof Declared<Op>]>;
  key?: string;
  headers?: Record<string, string>;
};

/**
 * The answer, its body typed by the declaration: `data` as the output schema gives it. Exactly one
 * of `data` and `error` is there at run time (the status says which); both are typed so that a test
 * asserting on either reads as it did with `call()`.
 */
export interface OpResponse<Op> {
  status: number;
  headers: Headers;
  text: string;
  body: {
    data: Output<Declared<Op>['output' & keyof Declared<Op>]>;
    meta: z.output<typeof ResponseMeta>;
    error: ErrorBody['error'];
  };
}

/** `/companies/{companyId}/webhooks/{id}` with the given values, each URL-encoded. */
export function pathFor(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (!(name in params)) throw new Error(`path parameter ${name} of ${template} is missing`);
    return encodeURIComponent(String(params[name]));
  });
}

function queryString(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    search.append(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * Calls one registry operation through the real app, as `call()` does, but named by its
 * declaration: method and path come from the operation, the input is checked by the compiler
 * against its zod schemas, and `body.data` is typed by its output schema.
 */
export async function callOp<Op extends TypedOperation>(app: Hono<AppEnv>, op: Op, request: OpRequest<Op> = {}): Promise<OpResponse<Op>> {
  const path = `/api/v1${pathFor(op.path, request.params as Record<string, unknown> | undefined)}${queryString(request.query as Record<string, unknown> | undefined)}`;
  return call(app, op.method, path, {
    ...(request.key !== undefined && { key: request.key }),
    ...(request.body !== undefined && { body: request.body }),
    ...(request.headers && { headers: request.headers }),
  });
}
