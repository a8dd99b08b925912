import { buildRegistry } from './build-registry.ts';
import { getHealth } from './operations/platform/health.ts';
import { listCompanies } from './operations/companies/list.ts';
import { updateCompany } from './operations/companies/update.ts';

/**
 * Every operation, in the order the docs list them. This explicit list is the single source
 * that REST routes, OpenAPI, MCP tools, docs, llms.txt, skills and capability records read.
 */
export const registry = buildRegistry([getHealth, listCompanies, updateCompany]);

export type { Operation } from './define-operation.ts';
