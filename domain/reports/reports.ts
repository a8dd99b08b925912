import type { BinaryBody } from '../kernel/binary-body.ts';
import type { OperationContext } from '../context.ts';
import { requireScope } from '../context.ts';
import { companyHeading, type CompanyHeading } from './company-heading.ts';
import type { PaginationMeta } from '../kernel/pagination.ts';
import { accountBalances, closingOf, resultBeforeYear } from './balances.ts';
import type { ByteSink } from './byte-stream.ts';
import { accountFilterOf, generalLedgerPage, keyOfRow, ledgerPage, toLedgerLine } from './general-ledger.ts';
import { keysetPages } from './keyset.ts';
import { formatOre, PdfTable, type PdfReportHeader } from './pdf.ts';
import { printAccountBalances, printBalanceSheet, printIncomeStatement, printTrialBalance } from './pdf-layouts.ts';
import { type PeriodRules, resolvePeriod } from './range.ts';
import { type ObjectFilter, resolveObjectFilter } from './object-filter.ts';
import type {
  AccountBalances,
  BalanceSheet,
  GeneralLedgerLine,
  GeneralLedgerQuery,
  IncomeStatement,
  ReportPeriod,
  ReportRangeQuery,
  TrialBalance,
} from './schemas.ts';
import { buildAccountBalances, buildBalanceSheet, buildIncomeStatement, buildTrialBalance } from './statements.ts';
import { streamFrom, streamFromSnapshot, withSnapshot } from './snapshot.ts';

/**
 * The report verbs: each statement as data (JSON) and as a PDF. Only committed entries count.
 * Each report reads one snapshot (snapshot.ts); statements are aggregated in SQL (balances.ts),
 * the general ledger is read in keyset pages (general-ledger.ts, keyset.ts).
 */

interface Statement<R extends { period: ReportPeriod }> {
  title: string;
  slug: string;
  load: (tx: OperationContext, companyId: string, period: ReportPeriod, filter: ObjectFilter | null) => Promise<R>;
  print: (sink: ByteSink, header: PdfReportHeader, report: R) => Promise<void>;
  /** Which date ranges it takes (the balance sheet is as of a date). */
  rules?: PeriodRules;
}

const ACCOUNT_BALANCES: Statement<AccountBalances> = {
  title: 'Account balances (Saldolista)',
  slug: 'account-balances',
  load: async (tx, companyId, period, filter) => buildAccountBalances(period, await accountBalances(tx, companyId, period, filter)),
  print: printAccountBalances,
};

const TRIAL_BALANCE: Statement<TrialBalance> = {
  title: 'Trial balance (Råbalans)',
  slug: 'trial-balance',
  load: async (tx, companyId, period, filter) => buildTrialBalance(period, await accountBalances(tx, companyId, period, filter)),
  print: printTrialBalance,
};

const INCOME_STATEMENT: Statement<IncomeStatement> = {
  title: 'Income statement (Resultaträkning)',
  slug: 'income-statement',
  load: async (tx, companyId, period, filter) => buildIncomeStatement(period, await accountBalances(tx, companyId, period, filter)),
  print: printIncomeStatement,
};

const BALANCE_SHEET: Statement<BalanceSheet> = {
  title: 'Balance sheet (Balansräkning)',
  slug: 'balance-sheet',
  load: async (tx, companyId, period, filter) =>
    buildBalanceSheet(period, await accountBalances(tx, companyId, period, filter), await resultBeforeYear(tx, companyId, period, filter)),
  print: printBalanceSheet,
  rules: { asOf: true },
};

async function statementData<R extends { period: ReportPeriod }>(
  ctx: OperationContext,
  companyId: string,
  query: ReportRangeQuery,
  statement: Statement<R>,
): Promise<R> {
  requireScope(ctx, 'companies:read');
  return withSnapshot(ctx, async (tx) => {
    const period = await resolvePeriod(tx, companyId, query, statement.rules);
    return statement.load(tx, companyId, period, await resolveObjectFilter(tx, companyId, query));
  });
}

const headerOf = (ctx: OperationContext, title: string, company: CompanyHeading, period: ReportPeriod): PdfReportHeader => ({
  title,
  companyName: company.name,
  orgNumber: company.orgNumber,
  period: `${period.from} – ${period.to}`,
  generatedAt: ctx.services.now(),
});

const pdfName = (slug: string, period: ReportPeriod): string => `${slug}-${period.from}-${period.to}.pdf`;

/** A statement's PDF: the same report object as the JSON answer, read in one snapshot, then printed. */
async function statementPdf<R extends { period: ReportPeriod }>(
  ctx: OperationContext,
  companyId: string,
  query: ReportRangeQuery,
  statement: Statement<R>,
): Promise<BinaryBody> {
  requireScope(ctx, 'companies:read');
  const { report, company } = await withSnapshot(ctx, async (tx) => ({
    report: await statement.load(tx, companyId, await resolvePeriod(tx, companyId, query, statement.rules), await resolveObjectFilter(tx, companyId, query)),
    company: await companyHeading(tx, companyId),
  }));
  const header = headerOf(ctx, statement.title, company, report.period);
  return {
    contentType: 'application/pdf',
    filename: pdfName(statement.slug, report.period),
    stream: streamFrom(ctx, (sink) => statement.print(sink, header, report)),
  };
}

export const getAccountBalances = (ctx: OperationContext, companyId: string, query: ReportRangeQuery) => statementData(ctx, companyId, query, ACCOUNT_BALANCES);
export const getTrialBalance = (ctx: OperationContext, companyId: string, query: ReportRangeQuery) => statementData(ctx, companyId, query, TRIAL_BALANCE);
export const getIncomeStatement = (ctx: OperationContext, companyId: string, query: ReportRangeQuery) => statementData(ctx, companyId, query, INCOME_STATEMENT);
export const getBalanceSheet = (ctx: OperationContext, companyId: string, query: ReportRangeQuery) => statementData(ctx, companyId, query, BALANCE_SHEET);

export const accountBalancesPdf = (ctx: OperationContext, companyId: string, query: ReportRangeQuery) => statementPdf(ctx, companyId, query, ACCOUNT_BALANCES);
export const trialBalancePdf = (ctx: OperationContext, companyId: string, query: ReportRangeQuery) => statementPdf(ctx, companyId, query, TRIAL_BALANCE);
export const incomeStatementPdf = (ctx: OperationContext, companyId: string, query: ReportRangeQuery) => statementPdf(ctx, companyId, query, INCOME_STATEMENT);
export const balanceSheetPdf = (ctx: OperationContext, companyId: string, query: ReportRangeQuery) => statementPdf(ctx, companyId, query, BALANCE_SHEET);

export async function getGeneralLedger(
  ctx: OperationContext,
  companyId: string,
  query: GeneralLedgerQuery,
): Promise<{ period: ReportPeriod; lines: GeneralLedgerLine[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'companies:read');
  return withSnapshot(ctx, async (tx) => {
    const period = await resolvePeriod(tx, companyId, query);
    return { period, ...(await generalLedgerPage(tx, companyId, period, query, await resolveObjectFilter(tx, companyId, query))) };
  });
}

const LEDGER_COLUMNS = [
  { header: 'Date', width: 0.11, align: 'left' },
  { header: 'Voucher', width: 0.08, align: 'left' },
  { header: 'Description', width: 0.37, align: 'left' },
  { header: 'Debit', width: 0.14, align: 'right' },
  { header: 'Credit', width: 0.14, align: 'right' },
  { header: 'Balance', width: 0.16, align: 'right' },
] as const;

/**
 * The whole general ledger of the period (every account in the filter; `cursor` and `limit` page
 * the JSON list only) as one streamed PDF: per account its opening balance, its lines read in
 * keyset pages of REPORT_PAGE_SIZE with the running balance, and its closing balance.
 */
export async function generalLedgerPdf(ctx: OperationContext, companyId: string, query: GeneralLedgerQuery): Promise<BinaryBody> {
  requireScope(ctx, 'companies:read');
  const accounts = accountFilterOf(query);
  let filename = '';
  const stream = await streamFromSnapshot(ctx, async (tx) => {
    const period = await resolvePeriod(tx, companyId, query);
    const company = await companyHeading(tx, companyId);
    filename = pdfName('general-ledger', period);
    const filter = await resolveObjectFilter(tx, companyId, query);
    const balances = (await accountBalances(tx, companyId, period, filter)).filter(
      (row) => (accounts.from === undefined || row.account >= accounts.from) && (accounts.to === undefined || row.account <= accounts.to),
    );
    return async (sink) => {
      const table = new PdfTable(sink, headerOf(ctx, 'General ledger (Huvudbok)', company, period), LEDGER_COLUMNS);
      let debit = 0n;
      let credit = 0n;
      for (const account of balances) {
        table.heading(`${account.account} ${account.name}`);
        table.row(['', '', 'Opening balance', '', '', formatOre(account.opening)]);
        let balance = account.opening;
        const only = { from: account.account, to: account.account };
        for await (const page of keysetPages((after, limit) => ledgerPage(tx, companyId, period, only, after, limit, filter), keyOfRow)) {
          for (const row of page) {
            balance += row.debit - row.credit;
            const line = toLedgerLine(row, balance);
            table.row([line.date, line.voucher, line.description, formatOre(line.debit), formatOre(line.credit), formatOre(line.balance)]);
          }
          await table.flush();
        }
        table.row(['', '', `Closing balance ${account.account}`, formatOre(account.debit), formatOre(account.credit), formatOre(closingOf(account))], 'bold');
        debit += account.debit;
        credit += account.credit;
      }
      table.row(['', '', 'Total', formatOre(debit), formatOre(credit), ''], 'bold');
      await table.end();
    };
  });
  return { contentType: 'application/pdf', filename, stream };
}
