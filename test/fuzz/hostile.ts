import fc from 'fast-check';

/**
 * Hostile requests generated from the served OpenAPI document (dereferenced): every documented
 * operation's path, query, headers and body, each mutated in the ways callers get wrong or attack
 * — malformed JSON, wrong types, huge strings, NUL and unicode, negative and huge numbers, missing
 * and extra fields, bad cursors, bad Idempotency-Keys, wrong content types. Shared by the bounded
 * run in `npm test` and the long one in `npm run fuzz`.
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  example?: unknown;
  items?: JsonSchema;
  [k: string]: unknown;
};

interface DocParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
  example?: unknown;
}

interface DocOperationObject {
  operationId: string;
  parameters?: DocParameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema; example?: unknown; examples?: Record<string, { value?: unknown }> }> };
  security?: unknown[];
}

export interface DocOperation {
  id: string;
  /** Documented path, e.g. `/companies/{companyId}`; the server URL prefix is added by the caller. */
  path: string;
  method: string;
  parameters: DocParameter[];
  /** Media type and example body, when the operation takes one. */
  body: { contentType: string; example: unknown; schema: JsonSchema | undefined } | null;
  secured: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation in a dereferenced document. */
export function documentedOperations(document: { paths: Record<string, Record<string, unknown>>; security?: unknown[] }): DocOperation[] {
  const operations: DocOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as DocOperationObject | undefined;
      if (!op) continue;
      const [contentType, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      const example = media ? (media.example ?? Object.values(media.examples ?? {})[0]?.value ?? media.schema?.example) : undefined;
      operations.push({
        id: op.operationId,
        path,
        method: method.toUpperCase(),
        parameters: [...((item.parameters as DocParameter[] | undefined) ?? []), ...(op.parameters ?? [])],
        body: contentType ? { contentType, example, schema: media?.schema } : null,
        secured: (op.security ?? document.security ?? []).some((requirement) => Object.keys(requirement as object).length > 0),
      });
    }
  }
  return operations;
}

export interface HostileRequest {
  /** What was mutated, for the failure message. */
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const HUGE = 'x'.repeat(200_000);

/** Values a field should never accept, or accept only with care. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    -0.5,
    1.5,
    2 ** 53,
    -(2 ** 53),
    2 ** 64,
    1e308,
    -1e308,
    Number.MIN_VALUE,
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    '\u202e',
    '\ufeff',
    'ä'.repeat(5000),
    '🧾'.repeat(2000),
    HUGE,
    '2026-02-30',
    '0000-00-00',
    '9999-12-31T99:99:99Z',
    '-1',
    '1e309',
    'NaN',
    'null',
    'true',
    "'; DROP TABLE companies; --",
    '../../etc/passwd',
    '%00',
    '<script>alert(1)</script>',
    '{{7*7}}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally.
    '${jndi:ldap://x}',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    [],
    {},
    [null],
    JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
    { constructor: { prototype: { polluted: true } } },
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => Number(n)),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

/** A string that survives as a query value or path segment once URI-encoded. */
const hostileText: fc.Arbitrary<string> = hostileValue.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined')));

/** Latin-1 without controls: what a Headers object accepts, so the request really leaves the client. */
const headerText = (maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map((c) => String.fromCharCode(c)), maxLength });

export const badIdempotencyKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'a b', 'k'.repeat(256), 'k'.repeat(10_000), 'ä', '\t'),
  headerText(300),
);

export const badCursor: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '=',
    '====',
    'null',
    '0',
    '-1',
    'eyJ9',
    'eyJhIjoxfQ',
    'eyJpZCI6IngifQ==',
    Buffer.from('{"created_at":"x","id":1}').toString('base64url'),
    HUGE,
  ),
  fc.base64String({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null').toString('base64url')),
  hostileText,
);

/**
 * Dates a caller might send that are no day the books can hold: year 0 and 1, before 1900 and
 * after 2199, signed and expanded years, impossible days, and the same as instants and months.
 */
export const HOSTILE_DATES = [
  '0000-01-01',
  '0001-01-01',
  '1899-12-31',
  '2200-01-01',
  '9999-12-31',
  '2026-02-30',
  '2026-13-01',
  '2026-1-1',
  '-0001-01-01',
  '+002026-01-01',
  '20260101',
] as const;
export const HOSTILE_INSTANTS = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00.000000Z',
  '9999-12-31T23:59:59.999999Z',
  '2200-01-01T00:00:00Z',
  '1899-12-31T23:59:59Z',
] as const;
export const HOSTILE_MONTHS = ['0000-01', '0001-12', '1899-12', '2200-01', '9999-12'] as const;

/** A hostile date, instant or month, or a random year's. */
export const hostileDate: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_DATES, ...HOSTILE_INSTANTS, ...HOSTILE_MONTHS),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }))
    .map(([year, month, day]) => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`),
);

/** Lists whose cursors carry dates: a forged cursor for one of them with a hostile date in every date field. */
const CURSOR_LISTS = ['companies', 'employees', 'journal_entries', 'operations', 'general_ledger', 'documents'] as const;
export const dateCursor = (extraLists: readonly string[] = []): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom(...CURSOR_LISTS, ...extraLists), fc.constantFrom(...HOSTILE_DATES, ...HOSTILE_INSTANTS), fc.boolean()).map(([list, date, keyed]) => {
    const id = '00000000-0000-4000-8000-000000000000';
    const at = date.length === 10 ? `${date}T00:00:00.000000Z` : date;
    const payload = keyed
      ? { v: 1, l: list, k: { date: date.slice(0, 10), at, id, account: '1930', series: 'A', number: 1, entry: id, line: 1 } }
      : { v: 1, l: list, at, id };
    return Buffer.from(JSON.stringify(payload)).toString('base64url');
  });

/** Whether a parameter or field takes a date, an instant or a month, by its schema or its example. */
export function takesDate(schema: JsonSchema | undefined, example: unknown): boolean {
  if (schema?.format === 'date' || schema?.format === 'date-time') return true;
  return typeof example === 'string' && /^\d{4}-\d{2}(-\d{2}(T.*)?)?$/.test(example);
}

const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"a":',
    '[1,2',
    '{"a":1}}',
    '{a:1}',
    "{'a':1}",
    '{"a":01}',
    '{"a":NaN}',
    '{"a":Infinity}',
    '\u0000',
    '\ufeff{}',
    'nul',
    '{"a":"\\ud800"}',
    '[]',
    '"string"',
    '42',
    'null',
    'true',
    `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`,
  ),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/jsonx',
  'json',
  'application/json; charset=utf-16',
  '*/*',
];

// A lone surrogate cannot be percent-encoded (URIError); a client would send U+FFFD, as URLSearchParams does.
const wellFormed = (text: string): string => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
const fill = (path: string, values: Record<string, string>): string =>
  path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(wellFormed(values[name] ?? '')));

interface Mutation {
  kind: string;
  apply(request: Draft): void;
}

interface Draft {
  pathValues: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body: unknown;
  rawBody?: string;
}

/** One object in a body (the top level, or an array item) mutated at one key. */
function mutateObject(target: unknown, pick: number, action: 'set' | 'delete' | 'extra', value: unknown, extraName: string): string {
  if (!target || typeof target !== 'object' || Array.isArray(target)) return 'body replaced';
  const record = target as Record<string, unknown>;
  const keys = Object.keys(record);
  if (action === 'extra' || keys.length === 0) {
    record[extraName] = value;
    return `extra field ${JSON.stringify(extraName)}`;
  }
  const key = keys[pick % keys.length]!;
  if (action === 'delete') {
    delete record[key];
    return `missing ${key}`;
  }
  record[key] = value;
  return `${key} set to a hostile value`;
}

/** Nested objects of a body (itself, the objects inside, the first item of arrays), for deep mutations. */
function objectsIn(value: unknown, found: object[] = []): object[] {
  if (Array.isArray(value)) {
    if (value.length > 0) objectsIn(value[0], found);
  } else if (value && typeof value === 'object') {
    found.push(value);
    for (const child of Object.values(value)) objectsIn(child, found);
  }
  return found;
}

/**
 * A hostile request for one documented operation. `values` holds path values that reach the
 * handler (the caller's own company, a real or random id); mutations make the rest hostile.
 */
export function hostileRequest(op: DocOperation, prefix: string, values: Record<string, string>, key: string): fc.Arbitrary<HostileRequest> {
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const json = op.body?.contentType === 'application/json';

  const mutations: fc.Arbitrary<Mutation>[] = [
    fc.tuple(fc.constantFrom(...(queryParams.length > 0 ? queryParams.map((p) => p.name) : ['unknown_param'])), hostileText).map(([name, value]) => ({
      kind: `query ${name}=${JSON.stringify(value).slice(0, 60)}`,
      apply: (d: Draft) => void d.query.push([name, value]),
    })),
    fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), hostileText).map(([name, value]) => ({
      kind: `extra query parameter ${JSON.stringify(name)}`,
      apply: (d: Draft) => void d.query.push([name, value]),
    })),
    badIdempotencyKey.map((value) => ({
      kind: `Idempotency-Key ${JSON.stringify(value).slice(0, 60)}`,
      apply: (d: Draft) => void (d.headers['idempotency-key'] = value),
    })),
  ];
  if (queryParams.some((p) => p.name === 'cursor')) {
    mutations.push(
      fc
        .oneof(badCursor, dateCursor(Object.values(values).flatMap((id) => [`events:${id}`, `deliveries:${id}`])))
        .map((cursor) => ({ kind: `cursor ${JSON.stringify(cursor).slice(0, 60)}`, apply: (d: Draft) => void d.query.push(['cursor', cursor]) })),
    );
  }
  const dateParams = queryParams.filter((p) => takesDate(p.schema, p.example ?? p.schema?.example));
  if (dateParams.length > 0) {
    mutations.push(
      fc.tuple(fc.constantFrom(...dateParams.map((p) => p.name)), hostileDate).map(([name, value]) => ({
        kind: `query ${name}=${value}`,
        apply: (d: Draft) => void d.query.push([name, value]),
      })),
    );
  }
  if (pathParams.length > 0) {
    mutations.push(
      fc
        .tuple(
          fc.constantFrom(...pathParams.map((p) => p.name)),
          hostileText.filter((s) => s.length > 0),
        )
        .map(([name, value]) => ({
          kind: `path ${name}=${JSON.stringify(value).slice(0, 60)}`,
          apply: (d: Draft) => void (d.pathValues[name] = value),
        })),
    );
  }
  if (op.body) {
    mutations.push(
      fc
        .tuple(
          fc.nat(),
          fc.nat(),
          fc.constantFrom('set' as const, 'delete' as const, 'extra' as const),
          hostileValue,
          fc.string({ minLength: 1, maxLength: 16 }),
        )
        .map(([depth, pick, action, value, extraName]) => ({
          kind: `body`,
          apply(d: Draft) {
            const objects = objectsIn(d.body);
            const target = objects[depth % Math.max(objects.length, 1)];
            if (target === undefined) d.body = value;
            else this.kind = `body: ${mutateObject(target, pick, action, value, extraName)}`;
          },
        })),
      hostileDate.map((value) => ({
        kind: `body dates set to ${value}`,
        apply: (d: Draft) => {
          for (const target of objectsIn(d.body)) {
            const record = target as Record<string, unknown>;
            for (const [name, current] of Object.entries(record)) if (takesDate(undefined, current)) record[name] = value;
          }
        },
      })),
      hostileValue.map((value) => ({ kind: 'whole body replaced by a hostile value', apply: (d: Draft) => void (d.body = value) })),
      malformedJson.map((raw) => ({ kind: `malformed body ${JSON.stringify(raw).slice(0, 60)}`, apply: (d: Draft) => void (d.rawBody = raw) })),
      fc.constantFrom(...WRONG_CONTENT_TYPES).map((type) => ({ kind: `content-type ${type}`, apply: (d: Draft) => void (d.headers['content-type'] = type) })),
      fc.constant({
        kind: 'no body',
        apply: (d: Draft) => {
          d.body = undefined;
          delete d.headers['content-type'];
        },
      }),
    );
  } else {
    mutations.push(
      fc.tuple(malformedJson, fc.constantFrom('application/json', ...WRONG_CONTENT_TYPES)).map(([raw, type]) => ({
        kind: `unexpected body (${type})`,
        apply: (d: Draft) => {
          d.rawBody = raw;
          d.headers['content-type'] = type;
        },
      })),
    );
  }

  return fc.array(fc.oneof(...mutations), { minLength: 1, maxLength: 3 }).map((chosen) => {
    const draft: Draft = {
      pathValues: { ...values },
      query: [],
      headers: {
        ...(op.secured && { authorization: `Bearer ${key}` }),
        ...(op.body && { 'content-type': op.body.contentType }),
        ...(op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key') && { 'idempotency-key': crypto.randomUUID() }),
      },
      body: op.body && json ? structuredClone(op.body.example) : undefined,
    };
    const kinds: string[] = [];
    for (const mutation of chosen) {
      // A fresh object per use: mutation objects may record what they did in `kind`.
      const own = { ...mutation };
      own.apply.call(own, draft);
      kinds.push(own.kind);
    }
    const query = new URLSearchParams(draft.query);
    let body = draft.rawBody;
    if (body === undefined && draft.body !== undefined) body = op.body && !json && typeof draft.body === 'string' ? draft.body : JSON.stringify(draft.body);
    return {
      kind: kinds.join('; '),
      method: op.method,
      path: `${prefix}${fill(op.path, draft.pathValues)}${query.size > 0 ? `?${query}` : ''}`,
      headers: draft.headers,
      ...(body !== undefined && op.method !== 'GET' && { body }),
    };
  });
}
