import { z } from 'zod';

/**
 * The days the books can hold: real calendar dates in the years 1900-2199. PostgreSQL's `date`
 * reaches far wider (4713 BC to 5874897 AD) but has no year 0, and JavaScript's Date, the SIE
 * format (YYYYMMDD) and Skatteverket's files all assume four-digit years; 1900-2199 covers every
 * fiscal year a company existing today can book, with room on both sides. Every date, instant and
 * month the API takes is held to it (docs/amounts.md#dates).
 */
export const FIRST_BOOKS_YEAR = 1900;
export const LAST_BOOKS_YEAR = 2199;

const RANGE_MESSAGE = `A year from ${FIRST_BOOKS_YEAR} to ${LAST_BOOKS_YEAR}.`;

/** Whether an ISO date, instant or month (YYYY-…) lies in the books' years. */
export function inBooksYears(text: string): boolean {
  const year = /^(\d{4})-/.exec(text)?.[1];
  return year !== undefined && Number(year) >= FIRST_BOOKS_YEAR && Number(year) <= LAST_BOOKS_YEAR;
}

/** A real calendar day, YYYY-MM-DD, in the books' years. */
export const BooksDate = z.iso.date().refine(inBooksYears, RANGE_MESSAGE);

/** An ISO 8601 instant in the books' years (options as z.iso.datetime's). */
export const booksInstant = (options?: Parameters<typeof z.iso.datetime>[0]) => z.iso.datetime(options).refine(inBooksYears, RANGE_MESSAGE);

/** A calendar month, YYYY-MM, in the books' years. */
export const BooksMonth = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'A month as YYYY-MM.')
  .refine(inBooksYears, RANGE_MESSAGE);
