/**
 * Every word and number format a report PDF prints, one table per language: a PDF is entirely in
 * Swedish or entirely in English, chosen by the caller's Accept-Language (pipeline/negotiate.ts).
 * Account names are the company's own data and print as stored.
 *
 * Section and class names follow BAS (BAS-kontoplanen, bas.se) and the statement forms of
 * Årsredovisningslagen (1995:1554) bilaga 1-2; the English names follow the BAS English edition's
 * usual renderings.
 */

/** The languages a report PDF is offered in, the default first (Swedish books, Swedish reports). */
export const PDF_LANGUAGES = ['sv', 'en'] as const;
export type PdfLanguage = (typeof PDF_LANGUAGES)[number];

export interface PdfWords {
  reportTitles: {
    accountBalances: string;
    trialBalance: string;
    incomeStatement: string;
    balanceSheet: string;
    generalLedger: string;
  };
  orgNumber: string;
  period: string;
  generated: string;
  page: string;
  columns: {
    account: string;
    name: string;
    opening: string;
    debit: string;
    credit: string;
    closing: string;
    amount: string;
    date: string;
    voucher: string;
    description: string;
    balance: string;
  };
  total: string;
  classTotal: (accountClass: string) => string;
  sectionTotal: (section: string) => string;
  balanced: string;
  unbalanced: string;
  result: string;
  operatingResult: string;
  resultAfterFinancialItems: string;
  yearResult: string;
  assets: string;
  totalAssets: string;
  equityAndLiabilities: string;
  totalEquityAndLiabilities: string;
  resultNotTransferred: string;
  resultFiscalYear: string;
  resultEarlierYears: string;
  openingBalance: string;
  closingBalance: (account: string) => string;
  /** BAS account class names by class digit; absent: the statement's own (Swedish) name. */
  classes: Readonly<Record<string, string>>;
  /** Statement section names by the section's stable key; absent: the statement's own (Swedish) name. */
  sections: Readonly<Record<string, string>>;
  /** Thousands separator and decimal mark: Swedish `1 234,50`, English `1,234.50`. */
  thousands: string;
  decimal: string;
}

const SV: PdfWords = {
  reportTitles: {
    accountBalances: 'Saldolista',
    trialBalance: 'Råbalans',
    incomeStatement: 'Resultaträkning',
    balanceSheet: 'Balansräkning',
    generalLedger: 'Huvudbok',
  },
  orgNumber: 'Org.nr',
  period: 'Period',
  generated: 'Skapad',
  page: 'Sida',
  columns: {
    account: 'Konto',
    name: 'Benämning',
    opening: 'Ingående',
    debit: 'Debet',
    credit: 'Kredit',
    closing: 'Utgående',
    amount: 'Belopp',
    date: 'Datum',
    voucher: 'Verifikat',
    description: 'Text',
    balance: 'Saldo',
  },
  total: 'Summa',
  classTotal: (accountClass) => `Summa klass ${accountClass}`,
  sectionTotal: (section) => `Summa ${section.toLowerCase()}`,
  balanced: 'Debet och kredit är lika.',
  unbalanced: 'Debet och kredit skiljer sig åt.',
  result: 'Resultat',
  operatingResult: 'Rörelseresultat',
  resultAfterFinancialItems: 'Resultat efter finansiella poster',
  yearResult: 'Årets resultat',
  assets: 'TILLGÅNGAR',
  totalAssets: 'Summa tillgångar',
  equityAndLiabilities: 'EGET KAPITAL OCH SKULDER',
  totalEquityAndLiabilities: 'Summa eget kapital och skulder',
  resultNotTransferred: 'Resultat ej överfört till eget kapital',
  resultFiscalYear: 'Årets resultat',
  resultEarlierYears: 'Tidigare års resultat',
  openingBalance: 'Ingående saldo',
  closingBalance: (account) => `Utgående saldo ${account}`,
  // The statements' own names are the Swedish BAS names (statements.ts).
  classes: {},
  sections: {},
  thousands: ' ',
  decimal: ',',
};

const EN: PdfWords = {
  reportTitles: {
    accountBalances: 'Account balances',
    trialBalance: 'Trial balance',
    incomeStatement: 'Income statement',
    balanceSheet: 'Balance sheet',
    generalLedger: 'General ledger',
  },
  orgNumber: 'Reg. no.',
  period: 'Period',
  generated: 'Generated',
  page: 'Page',
  columns: {
    account: 'Account',
    name: 'Name',
    opening: 'Opening',
    debit: 'Debit',
    credit: 'Credit',
    closing: 'Closing',
    amount: 'Amount',
    date: 'Date',
    voucher: 'Voucher',
    description: 'Description',
    balance: 'Balance',
  },
  total: 'Total',
  classTotal: (accountClass) => `Total class ${accountClass}`,
  sectionTotal: (section) => `Total ${section.toLowerCase()}`,
  balanced: 'Debit equals credit.',
  unbalanced: 'Debit and credit differ.',
  result: 'Result',
  operatingResult: 'Operating result',
  resultAfterFinancialItems: 'Result after financial items',
  yearResult: 'Result for the year',
  assets: 'ASSETS',
  totalAssets: 'Total assets',
  equityAndLiabilities: 'EQUITY AND LIABILITIES',
  totalEquityAndLiabilities: 'Total equity and liabilities',
  resultNotTransferred: 'Result not yet transferred to equity',
  resultFiscalYear: 'Result for the year',
  resultEarlierYears: 'Result of earlier years',
  openingBalance: 'Opening balance',
  closingBalance: (account) => `Closing balance ${account}`,
  classes: {
    '1': 'Assets',
    '2': 'Equity and liabilities',
    '3': 'Operating income',
    '4': 'Goods, materials and services',
    '5': 'Other external expenses',
    '6': 'Other external expenses',
    '7': 'Personnel, depreciation etc.',
    '8': 'Financial items, appropriations and tax',
    '9': 'Internal accounts',
  },
  sections: {
    operating_income: 'Operating income',
    goods_and_services: 'Raw materials, goods and purchased services',
    other_external_expenses: 'Other external expenses',
    personnel: 'Personnel costs',
    depreciation: 'Depreciation and write-downs',
    other_operating_expenses: 'Other operating expenses',
    financial_items: 'Financial items',
    appropriations: 'Appropriations',
    tax: 'Tax and result for the year',
    fixed_assets: 'Fixed assets',
    inventory: 'Inventories',
    receivables: 'Current receivables',
    short_term_investments: 'Short-term investments',
    cash_and_bank: 'Cash and bank',
    equity: 'Equity',
    untaxed_reserves: 'Untaxed reserves',
    provisions: 'Provisions',
    long_term_liabilities: 'Long-term liabilities',
    current_liabilities: 'Current liabilities',
  },
  thousands: ',',
  decimal: '.',
};

const WORDS: Readonly<Record<PdfLanguage, PdfWords>> = { sv: SV, en: EN };

export const wordsOf = (language: PdfLanguage): PdfWords => WORDS[language];

export const isPdfLanguage = (tag: string): tag is PdfLanguage => (PDF_LANGUAGES as readonly string[]).includes(tag);

/** A section's name in the language, or the statement's own (Swedish) name for a key the table lacks. */
export const sectionName = (words: PdfWords, key: string, fallback: string): string => words.sections[key] ?? fallback;

/** A BAS class's name in the language, or the statement's own (Swedish) name. */
export const className = (words: PdfWords, accountClass: string, fallback: string): string => words.classes[accountClass] ?? fallback;

/** Kronor with two decimals in the language's format: `-1 234 567,89` or `-1,234,567.89`. Exact: integer öre, no floats. */
export function formatAmount(words: Pick<PdfWords, 'thousands' | 'decimal'>, amount: number | bigint): string {
  const ore = BigInt(amount);
  const negative = ore < 0n;
  const absolute = negative ? -ore : ore;
  const kronor = (absolute / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, words.thousands);
  const cents = (absolute % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${kronor}${words.decimal}${cents}`;
}
