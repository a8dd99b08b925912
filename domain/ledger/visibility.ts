import { PrismaSql as Prisma } from '../db/client.ts';

/**
 * What an SIE import writes stays hidden until it completes (docs/sie.md "All or nothing";
 * migration 20261129400000). Fiscal years, accounts, dimensions and objects it creates carry its
 * id in import_id until the last batch clears it, so they are visible where `import_id IS NULL`.
 * Journal entries keep their import_id (clearing it would rewrite every imported entry) and are
 * visible once their import no longer has a pending_imports row: the predicate below, for an
 * entry row aliased `e`. Every read of the books uses one of the two.
 */
export const ENTRY_VISIBLE_SQL = 'NOT EXISTS (SELECT 1 FROM pending_imports pi WHERE pi.company_id = e.company_id AND pi.operation_id = e.import_id)';

/** ENTRY_VISIBLE_SQL as a fragment for Prisma's tagged templates. */
export const entryVisible = Prisma.raw(ENTRY_VISIBLE_SQL);
