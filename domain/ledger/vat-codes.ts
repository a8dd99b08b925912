import type { VatCodeValue } from './schemas.ts';

/**
 * The VAT code a BAS account gets by its number when nobody chose one: the starter chart and
 * accounts an SIE import creates. Only where the BAS chart's own naming settles it; anything else
 * is null, for a person to set (updateAccount). Sources (docs/tax.md#vat-codes):
 *
 * - BAS-kontoplanen (BAS 2026, BAS-intressenternas Förening, bas.se): 30xx sales in Sweden with
 *   the rate in the last digit (3001 25 %, 3002 12 %, 3003 6 %, 3004 exempt); 31xx goods sold
 *   outside Sweden (3105 outside the EU, 3106 to another EU country with Swedish VAT, 3108 to
 *   another EU country without); 3231 construction sales with reverse charge; 33xx services sold
 *   outside Sweden (3305 outside the EU, 3308 to another EU country); 34xx withdrawals (3401-3403
 *   taxable); 4415-4417 and 4425-4427 domestic reverse-charge purchases of goods and services;
 *   4512 an intermediary's purchase in triangular trade; 4515-4517 goods from another EU country;
 *   4531-4533 services from outside the EU; 4535-4537 services from another EU country;
 *   4545-4547 imported goods.
 * - The same last-digit convention in older charts (EU-BAS 97/99, e.g. Visma's 3005 "utanför EU",
 *   3006 "EU-land momspliktig", 3007 "mellanman", 3008 "EU-land"), which SIE files still carry.
 */
export function defaultVatCode(number: string): VatCodeValue | null {
  const group = number.slice(0, 2);
  const last = number.at(-1) ?? '';
  if (group === '30' || group === '31') {
    const goods: Record<string, VatCodeValue> = {
      '1': 'standard_25',
      '2': 'reduced_12',
      '3': 'reduced_6',
      '4': 'exempt',
      '5': 'export_goods',
      // Sold to a buyer in another EU country without a VAT number: Swedish VAT, box 05.
      '6': 'standard_25',
      '7': 'triangular_sale',
      '8': 'eu_goods_sale',
    };
    // 31xx is goods sold abroad only: its 1-4 have no meaning in BAS.
    if (group === '31' && last < '5') return null;
    return goods[last] ?? null;
  }
  if (number === '3231') return 'se_reverse_charge_sale';
  if (group === '33') return last === '5' ? 'export_services' : last === '8' ? 'eu_service_sale' : null;
  if (group === '34') return last === '1' || last === '2' || last === '3' ? 'withdrawal' : null;
  if (number === '4512') return 'triangular_purchase';
  // 44x5-44x7, 45x5-45x7: the purchase families, the rate (25, 12, 6 %) in the last digit.
  const purchases: Record<string, VatCodeValue> = {
    '441': 'se_reverse_charge_goods_purchase',
    '442': 'se_reverse_charge_service_purchase',
    '451': 'eu_goods_purchase',
    '453': 'eu_service_purchase',
    '454': 'import_goods',
  };
  if (number.startsWith('453') && (last === '1' || last === '2' || last === '3')) return 'non_eu_service_purchase';
  const family = purchases[number.slice(0, 3)];
  return family && (last === '5' || last === '6' || last === '7') ? family : null;
}
