import { MAX_DIMENSION_NUMBER, SIE_DIMENSIONS } from '../ledger/dimension-schemas.ts';
import type { SieLineObject } from './import.ts';
import type { SieField, SieHead } from './parse.ts';

/**
 * Dimensions and objects of an SIE file (SIE 4B §4 *Objektredovisning* and §8 #DIM, #UNDERDIM,
 * #OBJEKT, #TRANS): #TRANS rows carry an object list `{dim code dim code …}`, at most one object
 * per dimension. An object a row uses that no #OBJEKT declares, or a dimension no #DIM declares,
 * is still the file's: it is created, named by its code (a dimension by SIE's reserved name, e.g.
 * 1 Kostnadsställe, or "Dimension n"). A sub-dimension (#UNDERDIM) needs its super-dimension.
 * The rows are read as the file streams (readObjects keeps only the distinct objects used); the
 * declarations are merged in at the end, so a #OBJEKT after the row that uses it still names it.
 */
const MAX_NAME = 200;
const MAX_CODE = 100;
const CONTROL = /[\u0000-\u001f\u007f]/;

const reservedName = (number: number): string | undefined => (SIE_DIMENSIONS as Record<number, { name: string }>)[number]?.name;

export function sieDimensions(problem: (line: number, message: string) => void) {
  /** Objects rows use, in first-use order, with the first line using each. */
  const used = new Map<string, { dimension: number; code: string; line: number }>();
  const key = (dimension: number, code: string): string => `${dimension}\u0000${code}`;
  const checkCode = (code: string, line: number, label: string): boolean => {
    if (code === '' || code.length > MAX_CODE || CONTROL.test(code)) {
      problem(line, `${label}: an object code is 1-${MAX_CODE} characters without control characters, found ${JSON.stringify(code)}.`);
      return false;
    }
    return true;
  };
  const checkDimension = (dimension: number, line: number, label: string): boolean => {
    if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIMENSION_NUMBER) {
      problem(line, `${label}: a dimension number is 1-${MAX_DIMENSION_NUMBER}.`);
      return false;
    }
    return true;
  };

  /** A #TRANS row's object list → its objects; problems name the row's line. */
  function readObjects(list: readonly string[] | SieField, line: number): SieLineObject[] {
    if (!Array.isArray(list) || list.length === 0) return [];
    if (list.length % 2 !== 0) {
      problem(line, '#TRANS: the object list must hold pairs of dimension number and object code.');
      return [];
    }
    const found: SieLineObject[] = [];
    for (let index = 0; index < list.length; index += 2) {
      const dimension = /^\d+$/.test(list[index] as string) ? Number(list[index]) : Number.NaN;
      const code = list[index + 1] as string;
      if (!checkDimension(dimension, line, '#TRANS') || !checkCode(code, line, '#TRANS')) return [];
      if (found.some((object) => object.dimension === dimension)) {
        problem(line, `#TRANS: dimension ${dimension} appears twice in the object list; a row carries one object per dimension.`);
        return [];
      }
      found.push({ dimension, code });
      const id = key(dimension, code);
      if (!used.has(id)) used.set(id, { dimension, code, line });
    }
    return found;
  }

  /** Once the file is read: its declared dimensions and objects, then those only rows use; parents before their sub-dimensions. */
  function dimensionsAndObjects(document: Pick<SieHead, 'dimensions' | 'objects'>) {
    const dimensions = new Map<number, { number: number; name: string; parent: number | null; line: number }>();
    for (const dimension of document.dimensions) {
      if (dimension.number < 1 || dimension.number > MAX_DIMENSION_NUMBER) {
        problem(dimension.line, `#DIM ${dimension.number}: a dimension number is 1-${MAX_DIMENSION_NUMBER}.`);
        continue;
      }
      const name = dimension.name.trim().slice(0, MAX_NAME) || reservedName(dimension.number) || `Dimension ${dimension.number}`;
      if (!dimensions.has(dimension.number))
        dimensions.set(dimension.number, { number: dimension.number, name, parent: dimension.parent, line: dimension.line });
    }
    const objects = new Map<string, { dimension: number; code: string; name: string }>();
    const declare = (dimension: number, line: number): void => {
      if (!dimensions.has(dimension))
        dimensions.set(dimension, { number: dimension, name: reservedName(dimension) ?? `Dimension ${dimension}`, parent: null, line });
    };
    for (const object of document.objects) {
      if (!checkDimension(object.dimension, object.line, '#OBJEKT') || !checkCode(object.code, object.line, '#OBJEKT')) continue;
      declare(object.dimension, object.line);
      const id = key(object.dimension, object.code);
      if (!objects.has(id)) objects.set(id, { dimension: object.dimension, code: object.code, name: object.name.trim().slice(0, MAX_NAME) });
    }

    for (const { dimension, code, line } of used.values()) {
      declare(dimension, line);
      const id = key(dimension, code);
      if (!objects.has(id)) objects.set(id, { dimension, code, name: code.slice(0, MAX_NAME) });
    }
    // Parents before their sub-dimensions, each sub-dimension's parent declared.
    const ordered: { number: number; name: string; parent: number | null }[] = [];
    const placed = new Set<number>();
    const place = (number: number, trail: readonly number[]): void => {
      const dimension = dimensions.get(number);
      if (!dimension || placed.has(number)) return;
      if (dimension.parent !== null) {
        if (!dimensions.has(dimension.parent) || trail.includes(dimension.parent)) {
          problem(dimension.line, `#UNDERDIM ${number}: its super-dimension ${dimension.parent} is not declared (or the chain loops).`);
          return;
        }
        place(dimension.parent, [...trail, number]);
      }
      placed.add(number);
      ordered.push({ number, name: dimension.name, parent: dimension.parent });
    };
    for (const number of dimensions.keys()) place(number, []);
    return { dimensions: ordered, objects: [...objects.values()] };
  }

  return { readObjects, dimensionsAndObjects };
}
