import { formatOre, PdfTable, type PdfColumn, type PdfReportHeader } from './pdf.ts';
import type { ByteSink } from './byte-stream.ts';
import type { AccountBalance, AccountBalances, BalanceSheet, BalanceTotals, IncomeStatement, TrialBalance } from './schemas.ts';

/** How each statement prints: its columns and its rows, from the same object the JSON answer carries. */

const BALANCE_COLUMNS: readonly PdfColumn[] = [
  { header: 'Account', width: 0.08, align: 'left' },
  { header: 'Name', width: 0.36, align: 'left' },
  { header: 'Opening', width: 0.14, align: 'right' },
  { header: 'Debit', width: 0.14, align: 'right' },
  { header: 'Credit', width: 0.14, align: 'right' },
  { header: 'Closing', width: 0.14, align: 'right' },
];

const balanceCells = (row: AccountBalance): string[] => [
  row.account,
  row.name,
  formatOre(row.opening_balance),
  formatOre(row.period_debit),
  formatOre(row.period_credit),
  formatOre(row.closing_balance),
];

const totalCells = (label: string, totals: BalanceTotals): string[] => [
  '',
  label,
  formatOre(totals.opening_balance),
  formatOre(totals.period_debit),
  formatOre(totals.period_credit),
  formatOre(totals.closing_balance),
];

export async function printAccountBalances(sink: ByteSink, header: PdfReportHeader, report: AccountBalances): Promise<void> {
  const table = new PdfTable(sink, header, BALANCE_COLUMNS);
  for (const row of report.accounts) table.row(balanceCells(row));
  table.row(totalCells('Total', report.totals), 'bold');
  await table.end();
}

export async function printTrialBalance(sink: ByteSink, header: PdfReportHeader, report: TrialBalance): Promise<void> {
  const table = new PdfTable(sink, header, BALANCE_COLUMNS);
  for (const accountClass of report.classes) {
    table.heading(`${accountClass.class} ${accountClass.name}`);
    for (const row of report.accounts.filter((account) => account.account.startsWith(accountClass.class))) table.row(balanceCells(row));
    table.row(totalCells(`Class ${accountClass.class}`, accountClass), 'bold');
  }
  table.row(totalCells('Total', report.totals), 'bold');
  table.row(['', report.balanced ? 'Debit equals credit.' : 'Debit and credit differ.', '', '', '', '']);
  await table.end();
}

export async function printIncomeStatement(sink: ByteSink, header: PdfReportHeader, report: IncomeStatement): Promise<void> {
  const table = new PdfTable(sink, header, [
    { header: 'Account', width: 0.1, align: 'left' },
    { header: 'Name', width: 0.65, align: 'left' },
    { header: 'Amount', width: 0.25, align: 'right' },
  ]);
  for (const section of report.sections) {
    table.heading(section.name);
    for (const row of section.accounts) table.row([row.account, row.name, formatOre(row.amount)]);
    table.row(['', `Summa ${section.name.toLowerCase()}`, formatOre(section.total)], 'bold');
  }
  table.heading('Resultat');
  table.row(['', 'Rörelseresultat', formatOre(report.operating_result)], 'bold');
  table.row(['', 'Resultat efter finansiella poster', formatOre(report.result_after_financial_items)], 'bold');
  table.row(['', 'Result (årets resultat)', formatOre(report.result)], 'bold');
  await table.end();
}

export async function printBalanceSheet(sink: ByteSink, header: PdfReportHeader, report: BalanceSheet): Promise<void> {
  const table = new PdfTable(sink, header, [
    { header: 'Account', width: 0.1, align: 'left' },
    { header: 'Name', width: 0.5, align: 'left' },
    { header: 'Opening', width: 0.2, align: 'right' },
    { header: 'Closing', width: 0.2, align: 'right' },
  ]);
  const printSections = (sections: BalanceSheet['assets']['sections']): void => {
    for (const section of sections) {
      table.heading(section.name);
      for (const row of section.accounts) table.row([row.account, row.name, formatOre(row.opening_balance), formatOre(row.closing_balance)]);
      table.row(['', `Summa ${section.name.toLowerCase()}`, formatOre(section.opening_total), formatOre(section.total)], 'bold');
    }
  };
  table.heading('TILLGÅNGAR (assets)');
  printSections(report.assets.sections);
  table.row(['', 'Total assets', '', formatOre(report.totals.assets)], 'bold');
  table.heading('EGET KAPITAL OCH SKULDER (equity and liabilities)');
  printSections(report.equity_and_liabilities.sections);
  const { result } = report.equity_and_liabilities;
  table.heading('Resultat ej överfört till eget kapital');
  table.row(['', 'Årets resultat (fiscal year)', '', formatOre(result.fiscal_year)]);
  if (result.earlier_years !== 0) table.row(['', 'Tidigare års resultat (earlier years)', '', formatOre(result.earlier_years)]);
  table.row(['', 'Total equity and liabilities', '', formatOre(report.totals.equity_and_liabilities)], 'bold');
  await table.end();
}
