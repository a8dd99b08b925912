import type { ACCOUNT_TYPES, VatCodeValue } from '../ledger/schemas.ts';

/**
 * The VAT return (momsdeklaration) box by box: which BAS accounts or which accounts' VAT codes
 * feed each box, and which side of the ledger counts as positive. The computation
 * (domain/tax/vat.ts), the settlement entry and the docs table (docs/reference/vat-boxes.md) all
 * read this one declaration.
 *
 * Source of the boxes, their blocks and what goes in each: Skatteverket, "Fylla i
 * momsdeklarationen" (skatteverket.se/foretag/moms/deklareramoms/fyllaimomsdeklarationen),
 * blocks A-I, boxes 05-08, 10-12, 20-24, 30-32, 35-42, 48, 49, 50 and 60-62. The VAT accounts are
 * the BAS chart's (BAS 2015 and later): 2610-2617 output VAT 25 % (2614 reverse charge on
 * purchases, 2615 import, 2617 domestic reverse charge), 2620-2627 12 %, 2630-2637 6 %,
 * 2640-2649 input VAT, 2650 the VAT settlement account. The "vilande" (dormant) accounts
 * 2618, 2628, 2638 and 2648 hold VAT not yet due and feed no box.
 */

type AccountType = (typeof ACCOUNT_TYPES)[number];

/** Sales and output VAT are credits, purchases and input VAT debits: the side that counts as positive. */
export type Side = 'credit' | 'debit';

export type VatBoxSource =
  /** Accounts carrying one of these VAT codes (of these types; any type when omitted). */
  | { vatCodes: readonly VatCodeValue[]; accountTypes?: readonly AccountType[] }
  /** These BAS accounts by number. */
  | { accounts: readonly string[] }
  /** Box 49: declared boxes added and subtracted. */
  | { add: readonly string[]; subtract: readonly string[] };

export interface VatBoxDefinition {
  box: string;
  block: 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I';
  label: string;
  side: Side;
  source: VatBoxSource;
}

const SALES: readonly AccountType[] = ['revenue'];

/** Output VAT boxes, each with its accounts; 49 adds them all. */
const OUTPUT_VAT = {
  '10': ['2610', '2611', '2612', '2613', '2616'],
  '11': ['2620', '2621', '2622', '2623', '2626'],
  '12': ['2630', '2631', '2632', '2633', '2636'],
  '30': ['2614', '2617'],
  '31': ['2624', '2627'],
  '32': ['2634', '2637'],
  '60': ['2615'],
  '61': ['2625'],
  '62': ['2635'],
} as const;
const INPUT_VAT = ['2640', '2641', '2642', '2645', '2646', '2647', '2649'] as const;

/** In the order of Skatteverket's form (blocks A, B, C, D, H, I, E, F, G). */
export const VAT_BOXES: readonly VatBoxDefinition[] = [
  {
    box: '05',
    block: 'A',
    label: 'Momspliktig försäljning som inte ingår i ruta 06, 07 eller 08',
    side: 'credit',
    source: { vatCodes: ['standard_25', 'reduced_12', 'reduced_6'], accountTypes: SALES },
  },
  { box: '06', block: 'A', label: 'Momspliktiga uttag', side: 'credit', source: { vatCodes: ['withdrawal'], accountTypes: SALES } },
  {
    box: '07',
    block: 'A',
    label: 'Beskattningsunderlag vid vinstmarginalbeskattning',
    side: 'credit',
    source: { vatCodes: ['margin_scheme'], accountTypes: SALES },
  },
  {
    box: '08',
    block: 'A',
    label: 'Hyresinkomster vid frivillig skattskyldighet',
    side: 'credit',
    source: { vatCodes: ['rental_voluntary'], accountTypes: SALES },
  },
  { box: '10', block: 'B', label: 'Utgående moms 25 %', side: 'credit', source: { accounts: OUTPUT_VAT['10'] } },
  { box: '11', block: 'B', label: 'Utgående moms 12 %', side: 'credit', source: { accounts: OUTPUT_VAT['11'] } },
  { box: '12', block: 'B', label: 'Utgående moms 6 %', side: 'credit', source: { accounts: OUTPUT_VAT['12'] } },
  { box: '20', block: 'C', label: 'Inköp av varor från ett annat EU-land', side: 'debit', source: { vatCodes: ['eu_goods_purchase'] } },
  {
    box: '21',
    block: 'C',
    label: 'Inköp av tjänster från ett annat EU-land enligt huvudregeln',
    side: 'debit',
    source: { vatCodes: ['eu_service_purchase'] },
  },
  { box: '22', block: 'C', label: 'Inköp av tjänster från ett land utanför EU', side: 'debit', source: { vatCodes: ['non_eu_service_purchase'] } },
  { box: '23', block: 'C', label: 'Inköp av varor i Sverige', side: 'debit', source: { vatCodes: ['se_reverse_charge_goods_purchase'] } },
  { box: '24', block: 'C', label: 'Övriga inköp av tjänster', side: 'debit', source: { vatCodes: ['se_reverse_charge_service_purchase'] } },
  { box: '30', block: 'D', label: 'Utgående moms 25 %', side: 'credit', source: { accounts: OUTPUT_VAT['30'] } },
  { box: '31', block: 'D', label: 'Utgående moms 12 %', side: 'credit', source: { accounts: OUTPUT_VAT['31'] } },
  { box: '32', block: 'D', label: 'Utgående moms 6 %', side: 'credit', source: { accounts: OUTPUT_VAT['32'] } },
  { box: '50', block: 'H', label: 'Beskattningsunderlag vid import', side: 'debit', source: { vatCodes: ['import_goods'] } },
  { box: '60', block: 'I', label: 'Utgående moms 25 %', side: 'credit', source: { accounts: OUTPUT_VAT['60'] } },
  { box: '61', block: 'I', label: 'Utgående moms 12 %', side: 'credit', source: { accounts: OUTPUT_VAT['61'] } },
  { box: '62', block: 'I', label: 'Utgående moms 6 %', side: 'credit', source: { accounts: OUTPUT_VAT['62'] } },
  { box: '35', block: 'E', label: 'Försäljning av varor till ett annat EU-land', side: 'credit', source: { vatCodes: ['eu_goods_sale'], accountTypes: SALES } },
  { box: '36', block: 'E', label: 'Försäljning av varor utanför EU', side: 'credit', source: { vatCodes: ['export_goods'], accountTypes: SALES } },
  { box: '37', block: 'E', label: 'Mellanmans inköp av varor vid trepartshandel', side: 'debit', source: { vatCodes: ['triangular_purchase'] } },
  {
    box: '38',
    block: 'E',
    label: 'Mellanmans försäljning av varor vid trepartshandel',
    side: 'credit',
    source: { vatCodes: ['triangular_sale'], accountTypes: SALES },
  },
  {
    box: '39',
    block: 'E',
    label: 'Försäljning av tjänster till en näringsidkare i ett annat EU-land enligt huvudregeln',
    side: 'credit',
    source: { vatCodes: ['eu_service_sale'], accountTypes: SALES },
  },
  {
    box: '40',
    block: 'E',
    label: 'Övrig försäljning av tjänster omsatta utanför Sverige',
    side: 'credit',
    source: { vatCodes: ['export_services'], accountTypes: SALES },
  },
  {
    box: '41',
    block: 'E',
    label: 'Försäljning när köparen är skattskyldig i Sverige',
    side: 'credit',
    source: { vatCodes: ['se_reverse_charge_sale'], accountTypes: SALES },
  },
  { box: '42', block: 'E', label: 'Övrig försäljning m.m.', side: 'credit', source: { vatCodes: ['exempt'], accountTypes: SALES } },
  { box: '48', block: 'F', label: 'Ingående moms att dra av', side: 'debit', source: { accounts: INPUT_VAT } },
  {
    box: '49',
    block: 'G',
    label: 'Moms att betala eller få tillbaka',
    side: 'credit',
    source: { add: Object.keys(OUTPUT_VAT), subtract: ['48'] },
  },
];

/** The accounts whose balances the return declares as VAT, and the settlement moves to 2650. */
export const VAT_ACCOUNTS: readonly string[] = [...Object.values(OUTPUT_VAT).flat(), ...INPUT_VAT].sort();
/** Redovisningskonto för moms: what is to be paid or reclaimed once the return is settled. */
export const VAT_SETTLEMENT_ACCOUNT = '2650';
/** Öres- och kronutjämning: the öre the return drops, when the settlement is booked. */
export const ROUNDING_ACCOUNT = '3740';
/** Dormant VAT (vilande moms): not yet due, in no box, never settled. */
export const DORMANT_VAT_ACCOUNTS: readonly string[] = ['2618', '2628', '2638', '2648'];

/**
 * A momsavräkning: an entry that only moves VAT accounts (2610-2649) to 2650, with any rounding
 * to 3740. Whoever booked it (this service on submission, or the program an SIE file came from),
 * it never counts in a return: the return declares the VAT, the settlement clears it.
 */
export const SETTLEMENT_ENTRY_SQL = `bool_or(number = '${VAT_SETTLEMENT_ACCOUNT}') AND bool_and(number BETWEEN '2610' AND '${VAT_SETTLEMENT_ACCOUNT}' OR number = '${ROUNDING_ACCOUNT}')`;

/** One account's sum over the period, debit minus credit, in öre. */
export interface AccountSum {
  number: string;
  name: string;
  type: AccountType;
  vatCode: VatCodeValue | null;
  balance: number;
}

export interface ComputedBox {
  box: string;
  label: string;
  /** Declared: whole kronor as Skatteverket takes them (öre dropped), in öre. */
  amount: number;
  /** The ledger's sum, öre. */
  exact: number;
  accounts: { account: string; name: string; amount: number }[];
}

/**
 * "Belopp ... ska anges i heltal så att öretal bortfaller" (skatteförfarandeförordningen
 * (2011:1244) 22 kap. 1 §): whole kronor, the öre dropped (toward zero), kept in öre here.
 */
export const wholeKronor = (ore: number): number => Math.trunc(ore / 100) * 100;

const feeds = (source: VatBoxSource, account: AccountSum): boolean =>
  'accounts' in source
    ? source.accounts.includes(account.number)
    : 'vatCodes' in source
      ? account.vatCode !== null && source.vatCodes.includes(account.vatCode) && (!source.accountTypes || source.accountTypes.includes(account.type))
      : false;

/** Every box, in form order, from the period's account sums (settlement entries already left out). */
export function computeBoxes(sums: readonly AccountSum[]): ComputedBox[] {
  const boxes = new Map<string, ComputedBox>();
  for (const definition of VAT_BOXES) {
    const { source } = definition;
    if ('add' in source) {
      const total = (boxNumbers: readonly string[], pick: (box: ComputedBox) => number) =>
        boxNumbers.reduce((sum, box) => sum + pick(boxes.get(box) as ComputedBox), 0);
      boxes.set(definition.box, {
        box: definition.box,
        label: definition.label,
        amount: total(source.add, (b) => b.amount) - total(source.subtract, (b) => b.amount),
        exact: total(source.add, (b) => b.exact) - total(source.subtract, (b) => b.exact),
        accounts: [],
      });
      continue;
    }
    const sign = definition.side === 'credit' ? -1 : 1;
    const accounts = sums
      .filter((sum) => feeds(source, sum) && sum.balance !== 0)
      .map((sum) => ({ account: sum.number, name: sum.name, amount: sign * sum.balance }));
    const exact = accounts.reduce((sum, account) => sum + account.amount, 0);
    boxes.set(definition.box, { box: definition.box, label: definition.label, amount: wholeKronor(exact), exact, accounts });
  }
  return [...boxes.values()];
}

/** One line of the settlement entry (momsavräkning), öre. */
export interface SettlementLine {
  account: string;
  debit: number;
  credit: number;
}

/**
 * The momsavräkning a return's submission books: each VAT account's balance left in the period
 * (earlier settlements included, so a correction moves only the difference) to zero, 2650 to
 * what the return declares in box 49 (less what earlier settlements of the period put there), and
 * the öre in between to 3740 — as Swedish programs book it on the period's last day.
 *
 * @param vatTotals each VAT account's sum over the period, settlements included (debit − credit)
 * @param settled2650 what settlement entries of the period already put on 2650 (debit − credit)
 * @param declared49 box 49 as declared (whole kronor, in öre): positive to pay
 */
export function settlementLines(vatTotals: ReadonlyMap<string, number>, settled2650: number, declared49: number): SettlementLine[] {
  const line = (account: string, amount: number): SettlementLine[] =>
    amount === 0 ? [] : [{ account, debit: Math.max(amount, 0), credit: Math.max(-amount, 0) }];
  const moves = VAT_ACCOUNTS.map((account) => ({ account, amount: -(vatTotals.get(account) ?? 0) }));
  const toSettlementAccount = -declared49 - settled2650;
  const rounding = -(moves.reduce((sum, move) => sum + move.amount, 0) + toSettlementAccount);
  return [
    ...moves.flatMap((move) => line(move.account, move.amount)),
    ...line(VAT_SETTLEMENT_ACCOUNT, toSettlementAccount),
    ...line(ROUNDING_ACCOUNT, rounding),
  ];
}
