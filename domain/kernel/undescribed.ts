import { z } from 'zod';

/**
 * The same shape without its descriptions, all the way down: for a resource embedded in another
 * (an expanded webhook inside a delivery), whose fields are documented on the resource itself.
 * Validation is unchanged; only the prose that would be repeated in every tool schema goes.
 */
export function undescribed<T extends z.ZodType>(schema: T): T {
  const bare = (node: z.ZodType): z.ZodType => {
    let inner: z.ZodType = node;
    if (node instanceof z.ZodObject) {
      const shape = Object.fromEntries(Object.entries(node.shape as Record<string, z.ZodType>).map(([key, value]) => [key, bare(value)]));
      inner = node.extend(shape);
    } else if (node instanceof z.ZodOptional) {
      inner = bare(node.unwrap() as z.ZodType).optional();
    } else if (node instanceof z.ZodNullable) {
      inner = bare(node.unwrap() as z.ZodType).nullable();
    } else if (node instanceof z.ZodArray) {
      inner = z.array(bare(node.element as z.ZodType));
    } else if (node instanceof z.ZodUnion) {
      inner = z.union((node.options as z.ZodType[]).map(bare) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    }
    // `description: undefined` replaces the inherited one; nothing else in the metadata changes.
    return inner.meta({ description: undefined as unknown as string });
  };
  return bare(schema) as T;
}
