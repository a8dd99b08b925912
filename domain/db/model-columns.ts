/** A column name from its Prisma field name: the schema's one naming rule (`companyId` is `company_id`). */
export const columnOf = (field: string): string => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The select list that reads a table's row in its Prisma model's shape (`company_id AS
 * "companyId"`, …), for a raw statement whose rows the code treats as the model's: the row is
 * then typed once, by the model Prisma generates from prisma/schema.prisma. Built from Prisma's
 * generated list of the model's fields (`Prisma.<Model>ScalarFieldEnum`) and the naming rule,
 * which test/integration/db/facts.test.ts holds for every field of every model.
 */
export function modelColumns(fields: Readonly<Record<string, string>>): string {
  return Object.values(fields)
    .map((field) => (columnOf(field) === field ? field : `${columnOf(field)} AS "${field}"`))
    .join(', ');
}
