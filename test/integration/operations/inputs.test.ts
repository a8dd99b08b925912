import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import type { OperationContext } from '../../../domain/context.ts';
import { STORED_CHUNK_BYTES } from '../../../domain/db/chunks.ts';
import { sqlState } from '../../../domain/db/errors.ts';
import { byteSourceOf, collectBytes, type ByteSource } from '../../../domain/kernel/byte-source.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { readOperationInput } from '../../../domain/operations/inputs.ts';
import { createOperationRunner, type Job } from '../../../domain/operations/runner.ts';
import { deleteOperation, enqueueOperation } from '../../../domain/operations/store.ts';

/**
 * Operation inputs (an uploaded SIE file) stored in chunks (issue 28): written piece by piece,
 * read back by readOperationInput in order, guarded by the database like the operation itself.
 */
describe.each(DB_TARGETS)('operation inputs in chunks (%s)', (target) => {
  let t: TestServices;
  let tenant: Tenant;
  let other: Tenant;
  const ctxOf = (who: Tenant): OperationContext => ({
    services: t.services,
    actor: {
      apiKeyId: who.apiKeyId,
      apiKeyName: 'test',
      userId: who.userId,
      companyId: who.companyId,
      scopes: [...SCOPES],
      mode: 'test',
      rateLimitPerMinute: 0,
    },
    requestId: 'test',
    db: t.services.database.prisma,
    inTransaction: false,
    dryRun: false,
  });
  const enqueue = (who: Tenant, content: ByteSource) => enqueueOperation(ctxOf(who), who.companyId, 'sie_import', { filename: 'x.se' }, content);
  const chunkSizes = async (operationId: string): Promise<number[]> =>
    (
      await t.services.database.prisma.$queryRaw<{ bytes: number }[]>`
        SELECT octet_length(data) AS bytes FROM operation_input_chunks WHERE operation_id = ${operationId}::uuid ORDER BY seq`
    ).map((row) => row.bytes);
  const refused = (code: string) => (error: unknown) => sqlState(error) === code;

  beforeAll(async () => {
    t = await createTestServices(target);
    tenant = await makeTenant(t.services.database.prisma);
    other = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  it('stores an input of several chunks and readOperationInput gives it back in order, byte for byte', async () => {
    const bytes = randomBytes(3 * STORED_CHUNK_BYTES + 1234);
    const operation = await enqueue(tenant, byteSourceOf(bytes));
    expect(await chunkSizes(operation.id)).toEqual([STORED_CHUNK_BYTES, STORED_CHUNK_BYTES, STORED_CHUNK_BYTES, 1234]);
    const pieces: number[] = [];
    const read: Uint8Array[] = [];
    for await (const piece of readOperationInput(ctxOf(tenant), operation.id)) {
      pieces.push(piece.byteLength);
      read.push(piece);
    }
    expect(pieces.every((size) => size <= STORED_CHUNK_BYTES)).toBe(true);
    expect(Buffer.concat(read).equals(bytes)).toBe(true);
    // An operation without an input reads as nothing.
    const bare = await enqueueOperation(ctxOf(tenant), tenant.companyId, 'close_fiscal_year', {});
    expect((await collectBytes(readOperationInput(ctxOf(tenant), bare.id))).length).toBe(0);
  });

  it("hands a job its input through job.file(), the runner's readOperationInput", async () => {
    const bytes = randomBytes(2 * STORED_CHUNK_BYTES + 5);
    const operation = await enqueue(tenant, byteSourceOf(bytes));
    let received: Buffer | null = null;
    const runner = createOperationRunner(t.services, {
      kinds: {
        sie_import: {
          scopes: [],
          handler: async (job: Job) => {
            if (job.operationId === operation.id) received = await collectBytes(job.file());
            return {};
          },
        },
      },
    });
    while (await runner.runOnce()) if (received) break;
    expect((received as Buffer | null)?.equals(bytes)).toBe(true);
  });

  it('refuses at commit an input whose chunks do not add up to its size, and leaves nothing of it', async () => {
    const before = await t.services.database.prisma.operationInputChunk.count();
    const bytes = randomBytes(STORED_CHUNK_BYTES + 10);
    // A source claiming one byte more than it yields: the chunks are one byte short.
    const lying: ByteSource = { ...byteSourceOf(bytes), size: bytes.length + 1 };
    await expect(enqueue(tenant, lying)).rejects.toSatisfy(refused('23514'));
    expect(await t.services.database.prisma.operationInputChunk.count()).toBe(before);
  });

  it('keeps an input as it was: chunks never change nor go without their operation, which takes them along', async () => {
    const db = t.services.database.prisma;
    const operation = await enqueue(tenant, byteSourceOf(randomBytes(STORED_CHUNK_BYTES + 1)));
    await expect(db.$executeRaw`UPDATE operation_input_chunks SET data = decode('00', 'hex') WHERE operation_id = ${operation.id}::uuid`).rejects.toSatisfy(
      refused('23514'),
    );
    await expect(db.$executeRaw`DELETE FROM operation_input_chunks WHERE operation_id = ${operation.id}::uuid AND seq = 1`).rejects.toSatisfy(refused('23514'));
    await expect(db.$executeRaw`UPDATE operation_inputs SET size_bytes = 1 WHERE operation_id = ${operation.id}::uuid`).rejects.toSatisfy(refused('23514'));
    await expect(db.$executeRaw`DELETE FROM operation_inputs WHERE operation_id = ${operation.id}::uuid`).rejects.toSatisfy(refused('23514'));
    const extra = db.$executeRaw`INSERT INTO operation_input_chunks (company_id, operation_id, seq, data)
      VALUES (${tenant.companyId}::uuid, ${operation.id}::uuid, 2, decode('00', 'hex'))`;
    await expect(extra).rejects.toSatisfy(refused('23514'));
    expect(await chunkSizes(operation.id)).toEqual([STORED_CHUNK_BYTES, 1]);

    // A queued operation may be deleted (spec): its input and chunks go with it.
    await deleteOperation(ctxOf(tenant), tenant.companyId, operation.id);
    expect(await db.operationInput.count({ where: { operationId: operation.id } })).toBe(0);
    expect(await chunkSizes(operation.id)).toEqual([]);
  });

  it("an input belongs to its operation's company in SQL (composite keys)", async () => {
    const db = t.services.database.prisma;
    const theirs = await enqueueOperation(ctxOf(other), other.companyId, 'close_fiscal_year', {});
    const crossed = db.$executeRaw`INSERT INTO operation_inputs (operation_id, company_id, size_bytes)
      VALUES (${theirs.id}::uuid, ${tenant.companyId}::uuid, 1)`;
    await expect(crossed).rejects.toSatisfy(refused('23503'));
  });
});
