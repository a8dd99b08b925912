/**
 * Calendar arithmetic on ISO dates (`YYYY-MM-DD`), in UTC so no time zone can move a day.
 * Accounting dates have no time of day (DESIGN.md §14).
 */

const parts = (isoDate: string): [number, number, number] => {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  return [y, m, d];
};

const format = (date: Date): string => date.toISOString().slice(0, 10);

export const isFirstOfMonth = (isoDate: string): boolean => parts(isoDate)[2] === 1;

export const lastDayOfMonth = (isoDate: string): string => {
  const [y, m] = parts(isoDate);
  return format(new Date(Date.UTC(y, m, 0)));
};

export const isLastOfMonth = (isoDate: string): boolean => lastDayOfMonth(isoDate) === isoDate;

/** The first day of the month `months` after the month of `isoDate`. */
export const addMonths = (isoDate: string, months: number): string => {
  const [y, m] = parts(isoDate);
  return format(new Date(Date.UTC(y, m - 1 + months, 1)));
};

export const addDays = (isoDate: string, days: number): string => {
  const [y, m, d] = parts(isoDate);
  return format(new Date(Date.UTC(y, m - 1, d + days)));
};

/** Whole calendar months from the month of `start` to the month of `end`, both included. */
export const monthsSpanned = (start: string, end: string): number => {
  const [sy, sm] = parts(start);
  const [ey, em] = parts(end);
  return (ey - sy) * 12 + (em - sm) + 1;
};

/** Today in UTC as an ISO date. */
export const isoToday = (now: Date): string => format(now);
