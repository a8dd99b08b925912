import { COMPONENT_REF_PREFIX, type JsonSchema } from './json-schema.ts';

/**
 * Moves shared schema shapes of an OpenAPI document into `components/schemas` and refers to them
 * with `$ref`, so one shape (an id, a timestamp, a webhook, a delivery, an event object) is
 * written once instead of at every use. Pure: document in, document out, the same content once
 * every `$ref` is resolved (a `$ref` keeps its `description` beside it, as OpenAPI 3.1 allows).
 *
 * Two rules, applied in order:
 * 1. Named shapes (the API's resources and a few primitives): every occurrence becomes a `$ref`
 *    to its name, even a single one, so documents and generated clients read `Webhook`, `Delivery`.
 * 2. Any other subschema used more than once, where sharing makes the document smaller, becomes a
 *    component named after where it first appears (`Nullable<X>` for a nullable named shape).
 */

export interface NamedSchema {
  name: string;
  /** The shape as the converter emits it (`description` at its root is ignored when matching). */
  schema: JsonSchema;
}

type Document = JsonSchema & { components?: JsonSchema & { schemas?: Record<string, JsonSchema> } };

/** Annotations that may differ between uses of one shape; kept beside the `$ref` at each use. */
const ANNOTATIONS = ['description'] as const;
/** Keywords whose value is one subschema, a list of them, or a map of them (JSON Schema 2020-12). */
const ONE = ['items', 'additionalProperties', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'not', 'if', 'then', 'else'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
// `{"$ref":"#/components/schemas/"}` plus the name: what each use costs once shared.
const REF_OVERHEAD = JSON.stringify({ $ref: COMPONENT_REF_PREFIX }).length;

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * JSON with sorted keys: two schemas are the same shape exactly when their keys are equal.
 * Keys of objects are cached by identity; a pass that replaces nodes starts a fresh cache.
 */
let keys = new WeakMap<object, string>();
const freshKeys = (): void => {
  keys = new WeakMap();
};
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  const cached = keys.get(value);
  if (cached !== undefined) return cached;
  const key = `{${Object.keys(value)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonical(value[name])}`)
    .join(',')}}`;
  keys.set(value, key);
  return key;
}

/** The shape without its annotations, and the annotations. */
function split(node: JsonSchema): { core: JsonSchema; notes: JsonSchema } {
  const core: JsonSchema = {};
  const notes: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if ((ANNOTATIONS as readonly string[]).includes(key)) notes[key] = value;
    else core[key] = value;
  }
  return { core, notes };
}

const pascal = (text: string): string =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('') || 'Schema';

/** A schema position: the node, how to replace it, and a name hint from where it sits. */
interface Site {
  node: JsonSchema;
  replace: (next: JsonSchema) => void;
  hint: string;
  /** True for a components/schemas entry itself (never replaced by a reference to itself). */
  root?: string;
}

/** Every schema root of the document (parameters, bodies, responses, headers, components). */
function schemaRoots(document: Document): Site[] {
  const sites: Site[] = [];
  const fromMedia = (holder: JsonSchema | undefined, hint: string) => {
    for (const media of Object.values((holder?.content ?? {}) as Record<string, JsonSchema>)) {
      if (isObject(media.schema)) sites.push({ node: media.schema, replace: (next) => (media.schema = next), hint });
    }
  };
  const fromHeaders = (holder: JsonSchema | undefined) => {
    for (const [name, header] of Object.entries((holder?.headers ?? {}) as Record<string, JsonSchema>)) {
      if (isObject(header.schema)) sites.push({ node: header.schema, replace: (next) => (header.schema = next), hint: name });
    }
  };
  const fromParameter = (parameter: JsonSchema) => {
    if (isObject(parameter.schema))
      sites.push({ node: parameter.schema, replace: (next) => (parameter.schema = next), hint: String(parameter.name ?? 'Parameter') });
  };
  const fromOperation = (operation: JsonSchema, name: string) => {
    for (const parameter of (operation.parameters ?? []) as JsonSchema[]) fromParameter(parameter);
    fromMedia(operation.requestBody as JsonSchema | undefined, `${name}Body`);
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, JsonSchema>)) {
      fromMedia(response, `${name}${status}`);
      fromHeaders(response);
    }
  };
  for (const section of ['paths', 'webhooks']) {
    for (const item of Object.values((document[section] ?? {}) as Record<string, Record<string, JsonSchema>>)) {
      for (const operation of Object.values(item)) fromOperation(operation, String(operation.operationId ?? 'Operation'));
    }
  }
  const components = (document.components ?? {}) as Record<string, Record<string, JsonSchema>>;
  for (const parameter of Object.values(components.parameters ?? {})) fromParameter(parameter);
  for (const response of Object.values(components.responses ?? {})) {
    fromMedia(response, 'Response');
    fromHeaders(response);
  }
  fromHeaders(components);
  const schemas = components.schemas ?? {};
  for (const name of Object.keys(schemas)) sites.push({ node: schemas[name]!, replace: (next) => (schemas[name] = next), hint: name, root: name });
  return sites;
}

/** Visits every subschema below a site, depth first; `visit` returns false to skip a node's children. */
function walk(site: Site, visit: (site: Site) => boolean): void {
  if (!visit(site)) return;
  const { node, hint } = site;
  for (const key of ONE) {
    const child = node[key];
    if (isObject(child)) walk({ node: child, replace: (next) => (node[key] = next), hint: key === 'items' ? `${hint}Item` : hint }, visit);
  }
  for (const key of LIST) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    list.forEach((child, index) => {
      if (isObject(child)) walk({ node: child, replace: (next) => (list[index] = next), hint: `${hint}Variant` }, visit);
    });
  }
  for (const key of MAP) {
    const map = node[key];
    if (!isObject(map)) continue;
    for (const name of Object.keys(map)) {
      const child = map[name];
      if (isObject(child)) walk({ node: child, replace: (next) => (map[name] = next), hint: pascal(name) }, visit);
    }
  }
}

function forEachSchema(document: Document, visit: (site: Site) => boolean): void {
  for (const root of schemaRoots(document)) walk(root, visit);
}

const isRef = (node: JsonSchema): boolean => typeof node.$ref === 'string';

export function shareSchemas(input: JsonSchema, named: readonly NamedSchema[]): JsonSchema {
  const document = structuredClone(input) as Document;
  document.components ??= {};
  document.components.schemas ??= {};
  const schemas = document.components.schemas;

  // Shape key (with or without annotations) → component name; existing components keep theirs.
  const nameOf = new Map<string, string>();
  const remember = (name: string, node: JsonSchema) => nameOf.set(canonical(node), name);
  for (const [name, schema] of Object.entries(schemas)) remember(name, schema);
  const namedBy = new Map<string, NamedSchema>();
  for (const entry of named) {
    namedBy.set(canonical(entry.schema), entry);
    // Shapes that differ only in their description also match (it stays beside the $ref).
    if (!namedBy.has(canonical(split(entry.schema).core))) namedBy.set(canonical(split(entry.schema).core), { ...entry, schema: split(entry.schema).core });
  }

  const define = (name: string, node: JsonSchema): string => {
    let unique = name;
    for (let n = 2; schemas[unique] && canonical(schemas[unique]) !== canonical(node); n++) unique = `${name}${n}`;
    schemas[unique] ??= node;
    remember(unique, node);
    return unique;
  };
  /** Replaces the node at `site` by a reference to the component for `shape` (the whole node or its core). */
  const share = (site: Site, shape: JsonSchema, name: string): void => {
    const notes = shape === site.node ? {} : split(site.node).notes;
    site.replace({ $ref: COMPONENT_REF_PREFIX + (nameOf.get(canonical(shape)) ?? define(name, shape)), ...notes });
  };
  /** The two ways a node can match: as it is, or without its annotations. */
  const shapes = (node: JsonSchema): JsonSchema[] => {
    const { core } = split(node);
    return Object.keys(core).length === Object.keys(node).length ? [node] : [node, core];
  };

  // Rule 1: named shapes, wherever they occur (again inside each newly defined one, until none is left).
  for (let replaced = true; replaced; ) {
    replaced = false;
    freshKeys();
    forEachSchema(document, (site) => {
      if (isRef(site.node) || site.root !== undefined) return !isRef(site.node);
      for (const shape of shapes(site.node)) {
        const entry = namedBy.get(canonical(shape));
        if (!entry) continue;
        share(site, shape, entry.name);
        replaced = true;
        return false;
      }
      return true;
    });
  }

  // Rule 2: anything else used more than once, where sharing pays, until nothing more does.
  for (;;) {
    freshKeys();
    const uses = new Map<string, { count: number; size: number; hint: string }>();
    forEachSchema(document, (site) => {
      if (isRef(site.node)) return false;
      for (const shape of shapes(site.node)) {
        const key = canonical(shape);
        const seen = uses.get(key);
        if (seen) seen.count++;
        else uses.set(key, { count: 1, size: key.length, hint: hintFor(shape, site.hint) });
      }
      return true;
    });
    const pays = ({ count, size, hint }: { count: number; size: number; hint: string }): boolean =>
      count > 1 && count * size > size + hint.length + count * (REF_OVERHEAD + hint.length);
    const worth = new Map([...uses].filter(([, use]) => pays(use)));
    let replaced = false;
    forEachSchema(document, (site) => {
      if (isRef(site.node)) return false;
      if (site.root !== undefined) return true;
      // The whole node first: its annotations then live once, in the component.
      for (const shape of shapes(site.node)) {
        const use = worth.get(canonical(shape));
        if (!use) continue;
        share(site, shape, use.hint);
        replaced = true;
        return false;
      }
      return true;
    });
    // Repeats left only among component roots themselves cannot be shared further.
    if (!replaced) break;
  }
  return document;

  /** A readable name for a shared shape, from what it refers to or where it first appears. */
  function hintFor(shape: JsonSchema, hint: string): string {
    const refName = (node: unknown): string | null => (isObject(node) && typeof node.$ref === 'string' ? node.$ref.slice(COMPONENT_REF_PREFIX.length) : null);
    const variants = shape.anyOf;
    if (Array.isArray(variants) && variants.length === 2 && canonical(variants[1]) === '{"type":"null"}') {
      const target = refName(variants[0]);
      if (target) return `Nullable${target}`;
    }
    // An open object (a record of anything) is named for what it is, wherever it first appears.
    if (canonical(shape) === canonical({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} })) return 'AnyObject';
    // A success body `{ data: <X>, meta }` is X's response envelope.
    const properties = shape.properties;
    if (isObject(properties) && Object.keys(properties).sort().join() === 'data,meta') {
      const data = refName(properties.data);
      if (data) return `${data}Response`;
    }
    return pascal(hint);
  }
}

/**
 * Parameters repeated verbatim by several operations (a company id in every company path, the
 * cursor and limit of every list) become `components/parameters`, named after the parameter.
 */
export function shareParameters(input: JsonSchema): JsonSchema {
  const document = structuredClone(input) as Document;
  document.components ??= {};
  const components = document.components as Record<string, Record<string, JsonSchema>>;
  components.parameters ??= {};
  const parameters = components.parameters;
  const lists: JsonSchema[][] = [];
  for (const section of ['paths', 'webhooks']) {
    for (const item of Object.values((document[section] ?? {}) as Record<string, Record<string, JsonSchema>>)) {
      for (const operation of Object.values(item)) if (Array.isArray(operation.parameters)) lists.push(operation.parameters as JsonSchema[]);
    }
  }
  const counts = new Map<string, number>();
  for (const list of lists) for (const parameter of list) if (!isRef(parameter)) counts.set(canonical(parameter), (counts.get(canonical(parameter)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const list of lists) {
    list.forEach((parameter, index) => {
      const key = canonical(parameter);
      if (isRef(parameter) || (counts.get(key) ?? 0) < 2) return;
      let name = names.get(key);
      if (!name) {
        const base = pascal(String(parameter.name));
        name = base;
        for (let n = 2; parameters[name] && canonical(parameters[name]) !== key; n++) name = `${base}${n}`;
        parameters[name] = parameter;
        names.set(key, name);
      }
      list[index] = { $ref: `#/components/parameters/${name}` };
    });
  }
  return document;
}
