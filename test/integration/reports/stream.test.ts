import { expect, it } from 'vitest';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { books, OFFICE_SUPPLIES } from '../../helpers/ledger.ts';
import { actingContext, sqlSums } from '../../helpers/reports.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { DomainError } from '../../../domain/kernel/errors.ts';
import { STREAM_HIGH_WATER_BYTES, StreamCancelled, type ByteSink } from '../../../domain/reports/byte-stream.ts';
import { streamFromSnapshot } from '../../../domain/reports/snapshot.ts';

const CHUNK = 256 * 1024;
const CHUNKS = 40;

/** Resolves once the producer finds the reader behind (ready() still pending after the microtasks it needs when not). */
async function readyOrParked(sink: ByteSink, parked: () => void): Promise<void> {
  let settled = false;
  const ready = sink.ready().finally(() => {
    settled = true;
  });
  ready.catch(() => undefined);
  await Promise.resolve();
  await Promise.resolve();
  if (!settled) parked();
  await ready;
}

engineSuite('streamed reports: backpressure, cancellation, one snapshot', { tenant: true }, (t, target) => {
  it('the producer waits for the reader: at most the high-water mark is buffered, then everything arrives', async () => {
    let written = 0;
    let parkedAt = -1;
    let onParked!: () => void;
    const parked = new Promise<void>((resolve) => (onParked = resolve));
    const stream = await streamFromSnapshot(actingContext(t.services), async () => async (sink) => {
      for (let chunk = 0; chunk < CHUNKS; chunk += 1) {
        sink.write(new Uint8Array(CHUNK).fill(chunk % 251));
        written += 1;
        await readyOrParked(sink, () => {
          if (parkedAt < 0) parkedAt = written;
          onParked();
        });
      }
    });
    await parked;
    expect(parkedAt * CHUNK).toBeLessThanOrEqual(STREAM_HIGH_WATER_BYTES + CHUNK);
    expect(written).toBe(parkedAt);
    let bytes = 0;
    for await (const chunk of stream) bytes += chunk.byteLength;
    expect(bytes).toBe(CHUNK * CHUNKS);
  });

  it('a reader that goes away ends the producer and its transaction; the database is free again', async () => {
    let stopped: unknown = null;
    let onParked!: () => void;
    const parked = new Promise<void>((resolve) => (onParked = resolve));
    let onStopped!: () => void;
    const ended = new Promise<void>((resolve) => (onStopped = resolve));
    const stream = await streamFromSnapshot(actingContext(t.services), async () => async (sink) => {
      try {
        for (let chunk = 0; chunk < CHUNKS; chunk += 1) {
          sink.write(new Uint8Array(CHUNK));
          await readyOrParked(sink, onParked);
        }
      } catch (error) {
        stopped = error;
        throw error;
      } finally {
        onStopped();
      }
    });
    await parked;
    await stream.cancel();
    await ended;
    expect(stopped).toBeInstanceOf(StreamCancelled);
    // On PGlite's single connection this would wait for the export's transaction if it were still open.
    const [row] = await t.services.database.prisma.$queryRaw<{ one: number }[]>`SELECT 1 AS one`;
    expect(row?.one).toBe(1);
  });

  it('a check that fails before the first byte rejects, so it still answers as an error', async () => {
    await expect(
      streamFromSnapshot(actingContext(t.services), async () => {
        throw new DomainError('NOT_FOUND');
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it.skipIf(target !== 'postgres')('the whole export reads one snapshot: an entry committed meanwhile is not in it', async () => {
    const app = buildApp(t.services);
    const b = books(app, t.tenant.key, t.tenant.companyId);
    await b.createYear('2026-01-01');
    await b.book('2026-05-01', OFFICE_SUPPLIES);
    const count = async (db: Parameters<typeof sqlSums>[0]) => (await sqlSums(db, t.tenant.companyId, { to: '2026-12-31' })).lines;
    let release!: () => void;
    const go = new Promise<void>((resolve) => (release = resolve));
    let before = -1n;
    const stream = await streamFromSnapshot(actingContext(t.services), async (tx) => {
      before = await count(tx.db);
      return async (sink) => {
        await go;
        sink.write(new TextEncoder().encode(String(await count(tx.db))));
      };
    });
    await b.book('2026-05-02', OFFICE_SUPPLIES);
    expect(await count(t.services.database.prisma)).toBe(before + 3n);
    release();
    expect(await new Response(stream).text()).toBe(String(before));
  });
});
