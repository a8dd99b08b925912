import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import SwaggerParser from '@apidevtools/swagger-parser';
// ajv 8 (draft 2020-12, OpenAPI 3.1's dialect) is not a direct dependency: it comes with
// @apidevtools/swagger-parser and the MCP SDK, as does ajv-formats.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createApp } from '../../rest/app.ts';
import { registry } from '../../registry/index.ts';
import { createDiscoveryRoutes, type DiscoveryOptions } from '../../discovery/routes.ts';
import type { Services } from '../../domain/context.ts';

/** The registry's routes plus only the discovery module (other surfaces are tested on their own). */
export const discoveryApp = (services: Services, options: DiscoveryOptions = {}) =>
  createApp(services, options.registry ?? registry, [createDiscoveryRoutes(options)]);

/** The OpenAPI document a JSON Schema validator can use: every $ref resolved in place. */
export type Dereferenced = {
  paths: Record<string, Record<string, { responses: Record<string, { description?: string; content?: Record<string, { schema: object }> }> }>>;
};

export async function dereference(document: unknown): Promise<Dereferenced> {
  return (await SwaggerParser.dereference(structuredClone(document) as never)) as unknown as Dereferenced;
}

// ajv-formats is CommonJS with a default export; under NodeNext its callable sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** Validates bodies against the documented schemas with ajv (draft 2020-12 + formats). */
export function responseValidator(document: Dereferenced) {
  // strict off: OpenAPI schemas may carry annotation keywords ajv does not know (e.g. `example`).
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const cache = new Map<string, ValidateFunction>();
  return (path: string, method: string, status: number, body: unknown): { documented: boolean; errors: string | null; description?: string } => {
    // As OpenAPI reads responses: the exact status, else `default` (the document keys no ranges).
    const responses = document.paths[path]?.[method.toLowerCase()]?.responses ?? {};
    const response = responses[String(status)] ?? responses.default;
    const key = `${method} ${path} ${status}`;
    let validate = cache.get(key);
    if (!validate) {
      const schema = response?.content?.['application/json']?.schema;
      if (!schema) return { documented: false, errors: null };
      validate = ajv.compile(schema);
      cache.set(key, validate);
    }
    const description = response?.description;
    return validate(body) ? { documented: true, errors: null, description } : { documented: true, errors: ajv.errorsText(validate.errors), description };
  };
}

export interface LocalServer {
  url: string;
  /** Request paths received, in order. */
  paths: string[];
  close(): Promise<void>;
}

/** A stand-in upstream on 127.0.0.1 (tests never leave the machine). */
export async function startLocalServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<LocalServer> {
  const paths: string[] = [];
  const server = createServer((request, response) => {
    paths.push(request.url ?? '');
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
