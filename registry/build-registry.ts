import type { z } from 'zod';
import { ERROR_CATALOG } from './error-catalog.ts';
import { BUILT_SURFACES, PIPELINE_ONLY_ERRORS, isPublic, isWrite, type Operation } from './define-operation.ts';
import { JSON_MEDIA_TYPE, mediaEssence } from './media-types.ts';
import { expansionProblems } from './expand-parameter.ts';

export interface Registry {
  readonly operations: readonly Operation[];
  byId(id: string): Operation | undefined;
}

const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

function checkExample(op: Operation, part: string, schema: z.ZodType | null | undefined, example: unknown): string[] {
  if (example === undefined || !schema) return [];
  const result = schema.safeParse(example);
  return result.success ? [] : [`${op.id}: example ${part} does not match its schema: ${result.error.message}`];
}

/**
 * Each example against its schema. About 0.1 s of CPU for the whole registry (zod compiles each
 * schema on its first parse), so `npm start` skips it and a test runs it over every operation.
 */
export function exampleProblems(op: Operation): string[] {
  return [
    ...checkExample(op, 'params', op.input.params, op.examples.params),
    ...checkExample(op, 'query', op.input.query, op.examples.query),
    ...checkExample(op, 'body', op.input.body, op.examples.body),
    ...checkExample(op, 'response', op.output, op.examples.response),
  ];
}

/** `produces`: reads only, distinct binary media types, and a handler exactly when there is a JSON (or 204) answer. */
function checkRepresentations(op: Operation, binaryOnly: boolean): string[] {
  const problems: string[] = [];
  const produces = op.produces ?? [];
  const essences = produces.map((representation) => mediaEssence(representation.mediaType));
  if (produces.length > 0 && op.method !== 'GET') problems.push(`${op.id}: binary representations (produces) are for reads`);
  if (binaryOnly && op.status !== 200) problems.push(`${op.id}: an operation answering only in produces answers 200`);
  if (binaryOnly && op.surfaces.includes('mcp')) problems.push(`${op.id}: MCP tools answer JSON; an operation answering only in produces is not an MCP tool`);
  if (new Set(essences).size !== essences.length) problems.push(`${op.id}: a media type is listed twice in produces`);
  for (const essence of essences) {
    if (!/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(essence)) problems.push(`${op.id}: "${essence}" is not a media type`);
    if (essence === JSON_MEDIA_TYPE) problems.push(`${op.id}: JSON is the output schema's representation, not a produces entry`);
  }
  if (binaryOnly === Boolean(op.handler)) {
    problems.push(binaryOnly ? `${op.id}: an operation answering only in produces has no handler` : `${op.id}: a handler is required`);
  }
  return problems;
}

/** Uploads and binary answers: what REST, MCP and OpenAPI rely on when they read the declaration. */
function checkFileTraits(op: Operation): string[] {
  const problems: string[] = [];
  const file = op.input.file;
  if (file) {
    if (op.method === 'GET' || op.method === 'DELETE') problems.push(`${op.id}: a file upload needs a POST, PUT or PATCH`);
    if (!Number.isSafeInteger(file.maxBytes) || file.maxBytes < 1) problems.push(`${op.id}: input.file.maxBytes must be a positive integer`);
    const fields = op.input.body && 'shape' in op.input.body ? Object.keys((op.input.body as z.ZodObject).shape) : [];
    if (op.input.body && !('shape' in op.input.body)) problems.push(`${op.id}: the fields beside a file must be an object schema`);
    if (fields.includes(file.field)) problems.push(`${op.id}: body field "${file.field}" collides with the file part`);
  }
  if (op.binaryResponse) {
    if (op.output === null) problems.push(`${op.id}: a binary response needs an output schema (its metadata, which MCP returns)`);
    // Only JSON results are stored for replay; a file answer has nothing to replay.
    if (op.idempotencyKey !== 'none') problems.push(`${op.id}: a binary response takes no Idempotency-Key`);
  }
  return problems;
}

/**
 * Fails loudly at load time on anything that would make the surfaces disagree: duplicate ids or
 * routes, path parameters without a schema, examples that do not parse (unless `checkExamples` is
 * false: the served registry's are checked by a test instead), a GET with side effects, a surface
 * that does not exist, an error code a handler cannot throw.
 */
export function buildRegistry(operations: readonly Operation[], { checkExamples = true }: { checkExamples?: boolean } = {}): Registry {
  const problems: string[] = [];
  const ids = new Set<string>();
  const routes = new Set<string>();
  for (const op of operations) {
    if (!/^[a-z][A-Za-z0-9]*$/.test(op.id)) problems.push(`${op.id}: id must be camelCase`);
    if (ids.has(op.id)) problems.push(`${op.id}: duplicate operation id`);
    ids.add(op.id);
    const route = `${op.method} ${op.path.replace(/\{\w+\}/g, '{}')}`;
    if (routes.has(route)) problems.push(`${op.id}: duplicate route ${route}`);
    routes.add(route);

    const declared = Object.keys(op.input.params?.shape ?? {}).sort();
    const inPath = pathParams(op.path).sort();
    if (declared.join() !== inPath.join()) {
      problems.push(`${op.id}: path parameters {${inPath.join(', ')}} differ from the params schema (${declared.join(', ')})`);
    }
    const readOnly = op.sideEffects.every((effect) => effect === 'none');
    if (op.method === 'GET' && !readOnly) problems.push(`${op.id}: a GET must not declare side effects`);
    if (op.method !== 'GET' && readOnly) problems.push(`${op.id}: a write must declare its side effects`);
    if (op.method === 'GET' && (op.dryRun || op.idempotencyKey !== 'none')) {
      problems.push(`${op.id}: dry runs and idempotency keys apply to writes only`);
    }
    const produces = op.produces ?? [];
    const binaryOnly = op.output === null && produces.length > 0;
    if ((op.status === 204) !== (op.output === null && !binaryOnly))
      problems.push(`${op.id}: status 204 goes with output null (and no produces), and only then`);
    problems.push(...checkRepresentations(op, binaryOnly));
    if (op.method === 'GET' && op.input.body) problems.push(`${op.id}: a GET takes no body`);
    // A public write would be an anonymous change nobody could be held to account for.
    if (isPublic(op) && isWrite(op)) problems.push(`${op.id}: a public operation must not write`);
    // A write's audit entry and events go through Prisma's transaction.
    if (op.database === 'bare' && isWrite(op)) problems.push(`${op.id}: database 'bare' is for reads`);
    if (new Set(op.emits).size !== (op.emits?.length ?? 0)) problems.push(`${op.id}: emits lists an event twice`);

    // Capability records list these surfaces: each must exist, and every operation is served over REST.
    const unbuilt = op.surfaces.filter((surface) => !BUILT_SURFACES.includes(surface));
    if (unbuilt.length > 0) problems.push(`${op.id}: surface(s) ${unbuilt.join(', ')} do not exist (built: ${BUILT_SURFACES.join(', ')})`);
    if (!op.surfaces.includes('api')) problems.push(`${op.id}: every operation is served over REST, so surfaces must include api`);

    const errors = op.errors ?? [];
    if (new Set(errors).size !== errors.length) problems.push(`${op.id}: errors lists a code twice`);
    for (const code of errors) {
      if (!(code in ERROR_CATALOG)) problems.push(`${op.id}: error ${code} has no catalogue entry`);
      else if (PIPELINE_ONLY_ERRORS.includes(code)) problems.push(`${op.id}: ${code} comes from the pipeline, not a handler; do not declare it`);
    }

    if (checkExamples) problems.push(...exampleProblems(op));
    if (op.input.body && !op.input.file && op.examples.body === undefined) problems.push(`${op.id}: a JSON body needs an example`);
    problems.push(...expansionProblems(op));
    problems.push(...checkFileTraits(op));
    if (op.output && op.examples.response === undefined) problems.push(`${op.id}: a JSON response needs an example`);
  }
  const index = new Map(operations.map((op) => [op.id, op]));
  for (const op of operations) {
    if (op.pollWith !== undefined && index.get(op.pollWith)?.method !== 'GET')
      problems.push(`${op.id}: pollWith ${op.pollWith} is not a GET operation of the registry`);
    const outputFields = Object.keys((op.output as { shape?: object } | null)?.shape ?? {});
    for (const field of op.secretOutput ?? []) {
      if (!outputFields.includes(field)) problems.push(`${op.id}: secretOutput field ${field} is not in the output schema`);
    }
  }
  if (problems.length > 0) throw new Error(`Invalid operation registry:\n- ${problems.join('\n- ')}`);
  return { operations, byId: (id) => index.get(id) };
}
