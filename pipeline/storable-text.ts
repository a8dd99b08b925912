/**
 * PostgreSQL text and jsonb cannot hold U+0000: a NUL anywhere in a string would reach the
 * database and fail there as a 500. The pipeline refuses it up front, naming each field.
 */
const UNSTORABLE = /\u0000/;

/** Dotted paths of every string (or object key) in `value` that the database cannot store. */
export function findUnstorableText(value: unknown, path: string): string[] {
  const found: string[] = [];
  const visit = (item: unknown, at: string, depth: number): void => {
    if (depth > 64) return; // parsed JSON is bounded by the body limit; this bounds recursion too
    if (typeof item === 'string') {
      if (UNSTORABLE.test(item)) found.push(at);
    } else if (Array.isArray(item)) {
      for (const [i, element] of item.entries()) visit(element, `${at}.${i}`, depth + 1);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) {
        if (UNSTORABLE.test(key)) found.push(`${at}.${key.replaceAll('\u0000', '\\u0000')}`);
        else visit(element, `${at}.${key}`, depth + 1);
      }
    }
  };
  visit(value, path, 0);
  return found;
}
