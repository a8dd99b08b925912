import { Period } from '../../../domain/ledger/schemas.ts';
import { PeriodParams } from './params.ts';

/** What locking and unlocking a period share. */
export const periodWrite = {
  group: 'ledger',
  method: 'POST',
  auth: { scope: 'compliance:write' },
  risk: 'L2',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'period',
  input: { params: PeriodParams },
  output: Period,
  status: 200,
  surfaces: ['api', 'mcp', 'cli'],
} as const;
