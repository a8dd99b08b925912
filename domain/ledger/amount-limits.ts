import { sqlState } from '../db/errors.ts';
import { DomainError } from '../kernel/errors.ts';

/**
 * How large money may get, chosen together with the SQL type (bigint) and the wire type (a JSON
 * integer, exact up to 2^53-1 = 9 007 199 254 740 991): docs/amounts.md has the reasoning.
 */

/** One amount a caller sends (a journal line, a salary, a fixed tax): 10^13 öre, 100 000 000 000 kr. */
export const MAX_AMOUNT_ORE = 10_000_000_000_000;

/**
 * The company's committed debits over all time. Committed entries balance, so its credits are
 * the same; any sum a report forms is a signed sum of a subset of these lines and stays within
 * 2 × 4·10^15 = 8·10^15 < 2^53-1. Kept by the commit trigger in companies.committed_debit.
 */
export const MAX_COMMITTED_DEBIT_ORE = 4_000_000_000_000_000;

/** SQLSTATE program_limit_exceeded: the commit trigger's word for "past MAX_COMMITTED_DEBIT_ORE". */
const LIMIT_STATE = '54000';

/**
 * Runs a statement that commits entries and turns the trigger's refusal into AMOUNT_LIMIT_REACHED
 * (the transaction is aborted by then, so the caller's whole write rolls back).
 */
export async function committingWithinBound<T>(commit: () => Promise<T>): Promise<T> {
  try {
    return await commit();
  } catch (error) {
    if (sqlState(error) !== LIMIT_STATE) throw error;
    throw new DomainError('AMOUNT_LIMIT_REACHED', {
      message: `Committing this would take the company's committed debits past ${MAX_COMMITTED_DEBIT_ORE} öre, the bound the books can carry (docs/amounts.md).`,
      details: [{ path: 'lines', message: `committed debits are bounded at ${MAX_COMMITTED_DEBIT_ORE} öre per company` }],
    });
  }
}
