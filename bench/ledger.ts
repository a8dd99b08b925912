/**
 * `npm run bench ledger`: the general ledger's page 1 and page 500 (limit 50, the default) over
 * 1,000,000 committed lines, and page 1 over 10,000, through the real HTTP app on PostgreSQL.
 * Paired rounds: each round times every target in turn (the order rotating), so a quiet or a busy
 * moment of the machine falls on all of them; the ratios are taken within each round and printed
 * with their spread. Acceptance (issue 30): page 500 ÷ page 1 ≤ 1.3 at 1M lines, page 1 at 1M
 * within 2× of page 1 at 10k. `BENCH_LEDGER_LINES` changes the large size.
 */
import { BOOKS_YEAR, type Books, generateBooks, openBooksBench } from './books.ts';
import { median } from './http/load.ts';

const LARGE = Number(process.env.BENCH_LEDGER_LINES ?? 1_000_000);
const SMALL = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS_PER_ROUND = Number(process.env.BENCH_LEDGER_REQUESTS ?? 200);
const DEEP_PAGE = 500;
const GOALS = { deepOverFirst: 1.3, largeOverSmall: 2 };

interface Target {
  name: string;
  /** The request path, cursor included. */
  path: string;
  headers: Record<string, string>;
}

const spread = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;

async function main(): Promise<void> {
  const bench = await openBooksBench(1_000_000);
  const { services, pool, app } = bench;
  try {
    console.log(`\nGeneral ledger pages (PostgreSQL, limit 50), ${SMALL.toLocaleString('en')} and ${LARGE.toLocaleString('en')} committed lines:`);
    const small = await generateBooks(services, pool, SMALL);
    const large = await generateBooks(services, pool, LARGE);
    const query = `from=${BOOKS_YEAR.start}&to=${BOOKS_YEAR.end}`;
    const pathOf = (books: Books, cursor: string | null) =>
      `/api/v1/companies/${books.companyId}/reports/general-ledger?${query}${cursor ? `&cursor=${cursor}` : ''}`;
    const get = async (books: Books, cursor: string | null) => {
      const response = await app.request(pathOf(books, cursor), { headers: { authorization: `Bearer ${books.key}` } });
      if (response.status !== 200) throw new Error(`general ledger answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as {
        data: { lines: { balance: number; debit: number; credit: number }[] };
        meta: { pagination: { next_cursor: string | null } };
      };
    };
    // The cursor of page 500, as a caller reaches it: by walking pages 1-499.
    let cursor: string | null = null;
    const walked = performance.now();
    for (let page = 1; page < DEEP_PAGE; page += 1) {
      cursor = (await get(large, cursor)).meta.pagination.next_cursor;
      if (!cursor) throw new Error(`the large ledger ends before page ${DEEP_PAGE}`);
    }
    console.log(`  walked pages 1-${DEEP_PAGE - 1} in ${((performance.now() - walked) / 1000).toFixed(1)} s to reach page ${DEEP_PAGE}`);
    const targets: Target[] = [
      { name: `page 1 at ${SMALL.toLocaleString('en')}`, path: pathOf(small, null), headers: { authorization: `Bearer ${small.key}` } },
      { name: `page 1 at ${LARGE.toLocaleString('en')}`, path: pathOf(large, null), headers: { authorization: `Bearer ${large.key}` } },
      { name: `page ${DEEP_PAGE} at ${LARGE.toLocaleString('en')}`, path: pathOf(large, cursor), headers: { authorization: `Bearer ${large.key}` } },
    ];
    const timeOf = async (target: Target): Promise<number> => {
      const started = performance.now();
      for (let i = 0; i < REQUESTS_PER_ROUND; i += 1) {
        const response = await app.request(target.path, { headers: target.headers });
        if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}`);
        await response.arrayBuffer();
      }
      return (performance.now() - started) / REQUESTS_PER_ROUND;
    };
    for (const target of targets) await timeOf(target); // warm-up: caches, JIT, prepared plans
    const ms = targets.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let k = 0; k < targets.length; k += 1) {
        const index = (round + k) % targets.length;
        (ms[index] as number[]).push(await timeOf(targets[index] as Target));
      }
    }
    const [smallFirst, largeFirst, largeDeep] = ms as [number[], number[], number[]];
    console.log(`\n  ${'target'.padEnd(26)} ${'median ms/request'.padStart(18)}   spread over ${ROUNDS} rounds (${REQUESTS_PER_ROUND} requests each)`);
    for (const [i, target] of targets.entries()) {
      const values = ms[i] as number[];
      console.log(`  ${target.name.padEnd(26)} ${median(values).toFixed(2).padStart(18)}   ${spread(values, 2)} ms`);
    }
    const deepOverFirst = largeDeep.map((value, i) => value / (largeFirst[i] as number));
    const largeOverSmall = largeFirst.map((value, i) => value / (smallFirst[i] as number));
    const verdict = (value: number, goal: number) => (value <= goal ? 'met' : 'NOT MET');
    console.log(
      `  ratio page ${DEEP_PAGE} ÷ page 1 at ${LARGE.toLocaleString('en')}: ${median(deepOverFirst).toFixed(2)} (${spread(deepOverFirst, 2)}), goal ≤ ${GOALS.deepOverFirst}: ${verdict(median(deepOverFirst), GOALS.deepOverFirst)}`,
    );
    console.log(
      `  ratio page 1 at ${LARGE.toLocaleString('en')} ÷ at ${SMALL.toLocaleString('en')}: ${median(largeOverSmall).toFixed(2)} (${spread(largeOverSmall, 2)}), goal ≤ ${GOALS.largeOverSmall}: ${verdict(median(largeOverSmall), GOALS.largeOverSmall)}`,
    );
    if (median(deepOverFirst) > GOALS.deepOverFirst || median(largeOverSmall) > GOALS.largeOverSmall) process.exitCode = 1;
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await bench.close();
  }
}

await main();
