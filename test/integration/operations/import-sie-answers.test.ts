import { sieImportRunnerWith } from '../../helpers/sie-import.ts';
import { expect, it } from 'vitest';
import { buildApp } from '../../../cli/build-app.ts';
import { SIE_IMPORT_BATCH } from '../../../domain/sie/import.ts';
import { blobOf, send } from '../../helpers/documents.ts';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { call } from '../../helpers/http.ts';
import { books } from '../../helpers/ledger.ts';
import { generatedSie } from '../../helpers/sie.ts';

const BATCHES = 8;
const NOW = new Date('2027-01-15T10:00:00.000Z');

/**
 * Issue 27: on PGlite (one connection, in this process) the whole server stopped answering while
 * an import ran. The import now commits small batches and yields between them, so a request that
 * arrives mid-import is answered between two batches. Deterministic, never timed: the requests go
 * out inside the first batch's transaction, and the test records at which of the import's
 * checkpoints each answer had come — it must be before the last batch's, so while the import was
 * still running (its entries hidden, the operation `running`).
 */
engineSuite('the server answers while an SIE import runs', { now: () => NOW, tenant: true, app: (services) => buildApp(services) }, (t, target) => {
  it('answers GET /health and a read (the accounts) between two batches, long before the import ends', async () => {
    const { tenant } = t;
    const form = new FormData();
    form.append('file', blobOf(generatedSie(SIE_IMPORT_BATCH[target] * BATCHES), 'text/plain'), 'bokforing.se');
    const started = await send(t.app, tenant.key, `/api/v1/companies/${tenant.companyId}/sie-imports`, form);
    expect(started.status, started.text).toBe(202);

    let checkpoints = 0;
    const answers: { name: string; status: number; atCheckpoint: number; operation: string }[] = [];
    const b = books(t.app, tenant.key, tenant.companyId);
    const ask = (name: string, request: () => Promise<{ status: number }>) =>
      request().then(async ({ status }) => {
        const atCheckpoint = checkpoints;
        // The operation as a client sees it, right after this answer.
        const operation = (await b.send('GET', `/operations/${started.body.data.id}`)).body.data.status as string;
        answers.push({ name, status, atCheckpoint, operation });
      });
    let asked: Promise<unknown> | null = null;
    const runner = sieImportRunnerWith(t.services, (job) => async (tx, ...rest) => {
      checkpoints += 1;
      // Checkpoint 1 is the setup's; 2 is the first batch's, inside its transaction.
      if (checkpoints === 2) {
        asked = Promise.all([ask('health', () => call(t.app, 'GET', '/api/v1/health')), ask('accounts', () => b.send('GET', '/accounts'))]);
      }
      await job.checkpointIn(tx, ...rest);
    });
    expect(await runner.runOnce()).toBe(true);
    await asked;
    // The setup, one checkpoint per batch (the last completes the import), then the announcements.
    const lastBatch = 1 + BATCHES;
    expect(checkpoints).toBeGreaterThan(lastBatch);
    expect(answers.map(({ name, status }) => [name, status]).sort()).toEqual([
      ['accounts', 200],
      ['health', 200],
    ]);
    for (const answer of answers) {
      expect(answer.atCheckpoint, `${answer.name} answered at checkpoint ${answer.atCheckpoint}`).toBeLessThan(lastBatch);
      expect(answer.operation).toBe('running');
    }
    expect((await b.send('GET', `/operations/${started.body.data.id}`)).body.data).toMatchObject({
      status: 'succeeded',
      result: { verifications: SIE_IMPORT_BATCH[target] * BATCHES },
    });
  });
});
