import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { SIE_SAMPLES_DIR } from '../../helpers/sie-samples.ts';
import { books } from '../../helpers/ledger.ts';
import { importSieFile } from '../../helpers/sie-import.ts';
import { buildApp } from '../../../cli/build-app.ts';

/**
 * Real books: Visma Compact 6.00's SIE 4 file (../shared/sie-samples, byte for byte as published).
 * Its January 2010 ends with the program's own momsavräkning, verification A9:
 *   2610 debit 26 157,43 · 2640 credit 6 026,45 · 2650 credit 20 131,00 · 3740 debit 0,02
 * so the January return Visma filed declared box 10 = 26 157, box 48 = 6 026 and box 49 = 20 131
 * (öre dropped, 26 157 − 6 026 = 20 131). Ours must say the same although that settlement is in
 * the books, and must have nothing left to settle.
 */
const SAMPLE = join(SIE_SAMPLES_DIR ?? '', 'visma-compact-6.00.se');

describe.runIf(SIE_SAMPLES_DIR !== null)('Visma Compact 6.00 sample', () =>
  engineSuite(
    "the Visma Compact sample's January VAT return",
    { now: () => new Date('2011-03-20T10:00:00.000Z'), app: (services) => buildApp(services), tenant: true },
    (t) => {
      let b: ReturnType<typeof books>;

      beforeAll(async () => {
        b = books(t.app, t.tenant.key, t.tenant.companyId);
      });

      it('imports the file as published', async () => {
        const done = await importSieFile(t.app, t.services, t.tenant, readFileSync(SAMPLE), 'visma-compact-6.00.se');
        expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
      });

      it('declares boxes 10, 48 and 49 as Visma did: 26 157, 6 026 and 20 131 kr; nothing left to settle', async () => {
        const periods = (await b.send('GET', '/periods')).body.data.periods;
        const january = periods.find((p: { start_date: string }) => p.start_date === '2010-01-01');
        expect((await b.send('POST', `/periods/${january.id}/lock`)).status).toBe(200);
        const generated = await b.send('POST', '/vat-returns', { period_start: '2010-01-01', period_end: '2010-01-31' });
        expect(generated.status, generated.text).toBe(201);
        const box = (n: string) => generated.body.data.boxes.find((x: { box: string }) => x.box === n);
        expect(box('10')).toMatchObject({ amount: 2_615_700, accounts: [{ account: '2610', amount: 2_615_743 }] });
        expect(box('48')).toMatchObject({ amount: 602_600, accounts: [{ account: '2640', amount: 602_645 }] });
        expect(box('49').amount).toBe(2_013_100);
        expect(generated.body.data.settlement.lines).toEqual([]);
      });
    },
  ),
);
