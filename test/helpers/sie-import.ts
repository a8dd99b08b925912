import type { Hono } from 'hono';
import { expect } from 'vitest';
import type { Services } from '../../domain/context.ts';
import { OPERATION_KIND_RUNNERS } from '../../domain/operations/kinds.ts';
import { importSieJob } from '../../domain/operations/jobs/import-sie.ts';
import { createOperationRunner, type Job } from '../../domain/operations/runner.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { blobOf, send } from './documents.ts';
import type { Tenant } from './factories.ts';
import { books } from './ledger.ts';

/**
 * An SIE file imported as a client does it: uploaded to `…/sie-imports` (202), run by one claim of
 * a runner with every kind, then read back through `GET …/operations/{id}`. Returns that operation
 * (its `status`, `result` and `error` are the caller's to check).
 */
// Promise<any>: the operation's JSON as the API answers it; each test asserts the fields it reads.
export async function importSieFile(app: Hono<AppEnv>, services: Services, tenant: Tenant, bytes: Buffer, filename: string): Promise<any> {
  const form = new FormData();
  form.append('file', blobOf(bytes, 'text/plain'), filename);
  const started = await send(app, tenant.key, `/api/v1/companies/${tenant.companyId}/sie-imports`, form);
  expect(started.status, started.text).toBe(202);
  await createOperationRunner(services, { kinds: OPERATION_KIND_RUNNERS }).runOnce();
  return (await books(app, tenant.key, tenant.companyId).send('GET', `/operations/${started.body.data.id}`)).body.data;
}

/**
 * A runner of SIE imports alone whose job checkpoints through `checkpointIn(job)` instead of its
 * own: how the import tests stop a job dead inside a checkpoint's transaction (as SIGKILL would),
 * count checkpoints, or act at one.
 */
export function sieImportRunnerWith(services: Services, checkpointIn: (job: Job) => Job['checkpointIn']) {
  return createOperationRunner(services, {
    kinds: {
      sie_import: {
        scopes: OPERATION_KIND_RUNNERS.sie_import!.scopes,
        handler: (job: Job) => importSieJob({ ...job, checkpointIn: checkpointIn(job) }),
      },
    },
  });
}
