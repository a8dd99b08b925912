/**
 * Human output: a table for lists, aligned `field: value` lines for one resource. Generic over
 * whatever `data` an operation returns, so new operations print well with no change here.
 * `--json` bypasses all of this and prints `data` exactly.
 */

const MAX_COLUMNS = 6;
const MAX_CELL = 40;

type Row = Record<string, unknown>;

const isScalar = (value: unknown): boolean => value === null || ['string', 'number', 'boolean'].includes(typeof value);
const isRecord = (value: unknown): value is Row => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/** The one list in a list answer (`{ webhooks: [...] }`), or null when `data` is not shaped so. */
export function listOf(data: unknown): { key: string; items: unknown[] } | null {
  if (!isRecord(data)) return null;
  const arrays = Object.entries(data).filter(([, value]) => Array.isArray(value));
  if (arrays.length !== 1 || Object.keys(data).length !== 1) return null;
  const [key, items] = arrays[0]!;
  return { key, items: items as unknown[] };
}

export function renderHuman(data: unknown): string {
  const list = listOf(data);
  if (list) return renderTable(list.key, list.items);
  if (isRecord(data)) return renderRecord(data);
  if (data === null || data === undefined) return '';
  return `${typeof data === 'string' ? data : JSON.stringify(data, null, 2)}\n`;
}

const cellText = (value: unknown): string => {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
};

function renderTable(key: string, items: unknown[]): string {
  if (items.length === 0) return `No ${key.replace(/_/g, ' ')}.\n`;
  const rows = items.filter(isRecord);
  if (rows.length !== items.length) return `${items.map(cellText).join('\n')}\n`;
  // Scalar fields of the first row, id first; nested objects stay in --json.
  const columns = Object.keys(rows[0]!)
    .filter((column) => isScalar(rows[0]![column]))
    .sort((a, b) => Number(b === 'id') - Number(a === 'id'))
    .slice(0, MAX_COLUMNS);
  const table = [columns.map((column) => column.toUpperCase()), ...rows.map((row) => columns.map((column) => cellText(row[column])))];
  const widths = columns.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
  return `${table.map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n')}\n`;
}

function renderRecord(record: Row): string {
  const width = Math.max(...Object.keys(record).map((key) => key.length));
  return `${Object.entries(record)
    .map(([key, value]) => {
      const text = value === null ? '—' : typeof value === 'string' ? value : JSON.stringify(value);
      return `${`${key}:`.padEnd(width + 1)} ${text}`;
    })
    .join('\n')}\n`;
}
