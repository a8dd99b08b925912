import { PdfTable, type PdfColumn, type PdfReportHeader } from './pdf.ts';
import { className, formatAmount, sectionName, type PdfWords } from './pdf-locale.ts';
import type { ByteSink } from './byte-stream.ts';
import type { AccountBalance, AccountBalances, BalanceSheet, BalanceTotals, IncomeStatement, TrialBalance } from './schemas.ts';

/**
 * How each statement prints: its columns and its rows, from the same object the JSON answer
 * carries, every word from the header's table (pdf-locale.ts).
 */

const balanceColumns = ({ columns }: PdfWords): readonly PdfColumn[] => [
  { header: columns.account, width: 0.08, align: 'left' },
  { header: columns.name, width: 0.36, align: 'left' },
  { header: columns.opening, width: 0.14, align: 'right' },
  { header: columns.debit, width: 0.14, align: 'right' },
  { header: columns.credit, width: 0.14, align: 'right' },
  { header: columns.closing, width: 0.14, align: 'right' },
];

const balanceCells = (words: PdfWords, row: AccountBalance): string[] => [
  row.account,
  row.name,
  formatAmount(words, row.opening_balance),
  formatAmount(words, row.period_debit),
  formatAmount(words, row.period_credit),
  formatAmount(words, row.closing_balance),
];

const totalCells = (words: PdfWords, label: string, totals: BalanceTotals): string[] => [
  '',
  label,
  formatAmount(words, totals.opening_balance),
  formatAmount(words, totals.period_debit),
  formatAmount(words, totals.period_credit),
  formatAmount(words, totals.closing_balance),
];

export async function printAccountBalances(sink: ByteSink, header: PdfReportHeader, report: AccountBalances): Promise<void> {
  const { words } = header;
  const table = new PdfTable(sink, header, balanceColumns(words));
  for (const row of report.accounts) table.row(balanceCells(words, row));
  table.row(totalCells(words, words.total, report.totals), 'total');
  await table.end();
}

export async function printTrialBalance(sink: ByteSink, header: PdfReportHeader, report: TrialBalance): Promise<void> {
  const { words } = header;
  const table = new PdfTable(sink, header, balanceColumns(words));
  for (const accountClass of report.classes) {
    table.heading(`${accountClass.class} ${className(words, accountClass.class, accountClass.name)}`);
    for (const row of report.accounts.filter((account) => account.account.startsWith(accountClass.class))) table.row(balanceCells(words, row));
    table.row(totalCells(words, words.classTotal(accountClass.class), accountClass), 'total');
  }
  table.row(totalCells(words, words.total, report.totals), 'total');
  table.row(['', report.balanced ? words.balanced : words.unbalanced, '', '', '', '']);
  await table.end();
}

export async function printIncomeStatement(sink: ByteSink, header: PdfReportHeader, report: IncomeStatement): Promise<void> {
  const { words } = header;
  const amount = (ore: number): string => formatAmount(words, ore);
  const table = new PdfTable(sink, header, [
    { header: words.columns.account, width: 0.1, align: 'left' },
    { header: words.columns.name, width: 0.65, align: 'left' },
    { header: words.columns.amount, width: 0.25, align: 'right' },
  ]);
  for (const section of report.sections) {
    const name = sectionName(words, section.key, section.name);
    table.heading(name);
    for (const row of section.accounts) table.row([row.account, row.name, amount(row.amount)]);
    table.row(['', words.sectionTotal(name), amount(section.total)], 'total');
  }
  table.heading(words.result);
  table.row(['', words.operatingResult, amount(report.operating_result)], 'total');
  table.row(['', words.resultAfterFinancialItems, amount(report.result_after_financial_items)], 'total');
  table.row(['', words.yearResult, amount(report.result)], 'total');
  await table.end();
}

export async function printBalanceSheet(sink: ByteSink, header: PdfReportHeader, report: BalanceSheet): Promise<void> {
  const { words } = header;
  const amount = (ore: number): string => formatAmount(words, ore);
  const table = new PdfTable(sink, header, [
    { header: words.columns.account, width: 0.1, align: 'left' },
    { header: words.columns.name, width: 0.5, align: 'left' },
    { header: words.columns.opening, width: 0.2, align: 'right' },
    { header: words.columns.closing, width: 0.2, align: 'right' },
  ]);
  const printSections = (sections: BalanceSheet['assets']['sections']): void => {
    for (const section of sections) {
      const name = sectionName(words, section.key, section.name);
      table.heading(name);
      for (const row of section.accounts) table.row([row.account, row.name, amount(row.opening_balance), amount(row.closing_balance)]);
      table.row(['', words.sectionTotal(name), amount(section.opening_total), amount(section.total)], 'total');
    }
  };
  table.heading(words.assets);
  printSections(report.assets.sections);
  table.row(['', words.totalAssets, '', amount(report.totals.assets)], 'total');
  table.heading(words.equityAndLiabilities);
  printSections(report.equity_and_liabilities.sections);
  const { result } = report.equity_and_liabilities;
  table.heading(words.resultNotTransferred);
  table.row(['', words.resultFiscalYear, '', amount(result.fiscal_year)]);
  if (result.earlier_years !== 0) table.row(['', words.resultEarlierYears, '', amount(result.earlier_years)]);
  table.row(['', words.totalEquityAndLiabilities, '', amount(report.totals.equity_and_liabilities)], 'total');
  await table.end();
}
