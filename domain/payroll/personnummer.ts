import * as loaded from 'personnummer';

// The package's types declare an ES default export, but it ships CommonJS whose module.exports is
// the class itself; Node's interop puts that class on `default`. One place absorbs the mismatch.
type PersonnummerClass = typeof import('personnummer').default;
const Personnummer: PersonnummerClass = (loaded as unknown as { default?: PersonnummerClass }).default ?? (loaded as unknown as PersonnummerClass);

/** Checksum, date and coordination-number rules of a Swedish personal identity number. */
export const isValidPin = (value: string): boolean => Personnummer.valid(value);

/** YYYYMMDDNNNN → YYYYMMDD-NNNN (the full, unambiguous form we store). */
export const normalisePin = (value: string): string =>
  Personnummer.parse(value)
    .format(true)
    .replace(/^(\d{8})(\d{4})$/, '$1-$2');
