import { buildRegistry } from './build-registry.ts';
import { GROUPS, isDefinedOperation, type Operation } from './define-operation.ts';
import { FOLDER_MODULES } from './operation-modules.ts';

/**
 * Every operation: whatever defineOperation declared in a file under registry/operations/<group>/
 * (one file each), so adding an operation is adding its file. The single source that REST routes,
 * OpenAPI, MCP tools, docs, llms.txt, skills and capability records read.
 */
const declared = FOLDER_MODULES.flatMap(([, module]) => Object.values(module).filter(isDefinedOperation));

/**
 * The order the docs list them in (and the examples replay runs them in): by group, then by
 * collection, a collection before the ones nested in it; within one, create, list, get, update,
 * the actions on one item, delete — so each documented example finds what an earlier one made.
 */
const VERB_ORDER = [['create', 'upload', 'generate'], ['list'], ['get'], ['update']];
const verbRank = (op: Operation): number => {
  const at = VERB_ORDER.findIndex((verbs) => verbs.some((verb) => op.id.startsWith(verb)));
  return at === -1 ? (op.method === 'DELETE' ? VERB_ORDER.length + 1 : VERB_ORDER.length) : at;
};
const unique = [...new Set(declared)];
const listedPaths = new Set(unique.filter((op) => op.method === 'GET').map((op) => op.path));
/**
 * `/companies/{companyId}/dimensions/{number}/objects` → `companies/dimensions/objects`; a POST to
 * a path nothing reads (`…/journal-entries/{id}/commit`) is an action on the item before it.
 */
const collection = (op: Operation): string => {
  const segments = op.path.split('/').filter(Boolean);
  const action = op.method === 'POST' && !listedPaths.has(op.path) && segments.at(-2)?.startsWith('{');
  return (action ? segments.slice(0, -1) : segments).filter((segment) => !segment.startsWith('{')).join('/');
};
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const inDocsOrder = (a: Operation, b: Operation): number =>
  GROUPS.indexOf(a.group) - GROUPS.indexOf(b.group) || compare(collection(a), collection(b)) || verbRank(a) - verbRank(b) || compare(a.id, b.id);

// Every check but the examples', which cost a start about 0.1 s (issue 30): test/unit/registry-load.test.ts
// runs exampleProblems over every operation, so a bad example still fails the tests.
export const registry = buildRegistry(unique.sort(inDocsOrder), { checkExamples: false });

export type { Operation } from './define-operation.ts';
