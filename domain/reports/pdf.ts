import { createRequire } from 'node:module';
import type PDFDocumentClass from 'pdfkit';
import type { ByteSink } from './byte-stream.ts';
import type { PdfWords } from './pdf-locale.ts';

/**
 * A streamed PDF table: a header on every page (report title, company name and organisation
 * number, period), a footer with the generated-at line and the page number, and rows written as
 * they come. pdfkit emits each finished page's bytes at once, and the caller awaits `flush()`
 * between batches of rows, so a report of any length keeps a page or so in memory.
 */

// pdfkit and its fonts load on the first PDF, not at start-up (about half a second of CPU).
const require = createRequire(import.meta.url);
let pdfkit: typeof PDFDocumentClass | undefined;
const PDFDocument = (): typeof PDFDocumentClass => {
  pdfkit ??= require('pdfkit') as typeof PDFDocumentClass;
  return pdfkit;
};

export interface PdfReportHeader {
  title: string;
  companyName: string;
  orgNumber: string;
  /** e.g. "2026-01-01 – 2026-12-31". */
  period: string;
  generatedAt: Date;
  /** Every word the page prints around the rows (labels, footer), in the PDF's one language. */
  words: PdfWords;
}

export interface PdfColumn {
  header: string;
  /** Share of the printable width; the shares of a table add up to 1. */
  width: number;
  /** Left-aligned columns wrap long text (an account name) onto more lines; right-aligned ones hold amounts. */
  align: 'left' | 'right';
}

/** `normal` rows may start a page; a `total` (a subtotal or the grand total) never does. */
export type PdfRowStyle = 'normal' | 'total';

type Item = { kind: 'heading'; text: string } | { kind: 'row'; cells: readonly string[]; style: PdfRowStyle };

const PAGE = { size: 'A4', margin: 40 } as const;
const FONT = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const BODY_SIZE = 8.5;
const HEADING_SIZE = BODY_SIZE + 1;
const ROW_HEIGHT = 12.5;
const CELL_PADDING = 4;
const FOOTER_OFFSET = 28;

/** `2026-11-21T10:00:00.000Z` → `2026-11-21 10:00 UTC`. */
const formatInstant = (instant: Date): string => `${instant.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export class PdfTable {
  private readonly doc: PDFKit.PDFDocument;
  private readonly finished: Promise<void>;
  private readonly left = PAGE.margin;
  private right = 0;
  private bottom = 0;
  private y = 0;
  /** Where the rows of the current page begin (below the column headers). */
  private top = 0;
  private pageNumber = 0;
  /**
   * Rows held back until it is known where they may break: a heading with its first row, and the
   * last row of a group with the totals that follow it. A block goes onto one page, so a total
   * never starts a page and a heading never ends one. At most a heading, a row and its totals.
   */
  private pending: Item[] = [];

  constructor(
    private readonly sink: ByteSink,
    private readonly header: PdfReportHeader,
    private readonly columns: readonly PdfColumn[],
  ) {
    this.doc = new (PDFDocument())({
      size: PAGE.size,
      margin: PAGE.margin,
      autoFirstPage: false,
      bufferPages: false,
      info: { Title: `${header.title} – ${header.companyName}`, Producer: 'Accounting Service', CreationDate: header.generatedAt },
    });
    this.doc.on('data', (chunk: Uint8Array) => sink.write(chunk));
    this.finished = new Promise((resolve, reject) => {
      this.doc.on('end', () => resolve());
      this.doc.on('error', reject);
    });
    this.newPage();
  }

  /** A section heading spanning the table, kept on the page of the row that follows it. */
  heading(text: string): void {
    // Headings in a row (a part's and its first section's) wait together for the first row.
    if (!this.pending.every((item) => item.kind === 'heading')) this.commit();
    this.pending.push({ kind: 'heading', text });
  }

  row(cells: readonly string[], style: PdfRowStyle = 'normal'): void {
    const onlyHeadings = this.pending.every((item) => item.kind === 'heading');
    // A normal row ends the block before it, unless that block is headings waiting for their row.
    if (style === 'normal' && !onlyHeadings) this.commit();
    this.pending.push({ kind: 'row', cells, style });
  }

  /** Lets the reader catch up before more rows are written. */
  async flush(): Promise<void> {
    await this.sink.ready();
  }

  async end(): Promise<void> {
    this.commit();
    this.doc.end();
    await this.finished;
  }

  /** Writes the held-back block on one page: a new page first when it does not fit on this one. */
  private commit(): void {
    if (this.pending.length === 0) return;
    const height = this.pending.reduce((sum, item) => sum + this.heightOf(item), 0);
    if (this.y + height > this.bottom && this.y > this.top) this.newPage();
    for (const item of this.pending) {
      // Only a block taller than a whole page breaks inside it.
      if (this.y + this.heightOf(item) > this.bottom && this.y > this.top) this.newPage();
      this.draw(item);
    }
    this.pending = [];
  }

  /** The height an item takes, wrapped text included (pdfkit measures it with the font it will be drawn in). */
  private heightOf(item: Item): number {
    if (item.kind === 'heading') {
      this.doc.font(BOLD).fontSize(HEADING_SIZE);
      return ROW_HEIGHT * 0.5 + this.linesHeight(this.doc.heightOfString(item.text, { width: this.right - this.left }));
    }
    this.doc.font(item.style === 'normal' ? FONT : BOLD).fontSize(BODY_SIZE);
    const width = this.right - this.left;
    let tallest = 0;
    this.columns.forEach((column, index) => {
      if (column.align !== 'left') return;
      tallest = Math.max(tallest, this.doc.heightOfString(item.cells[index] ?? '', { width: column.width * width - CELL_PADDING }));
    });
    return this.linesHeight(tallest);
  }

  /** A row's height from its text's: one line is ROW_HEIGHT, each further line adds a line's height. */
  private linesHeight(textHeight: number): number {
    const line = this.doc.currentLineHeight(true);
    return Math.max(ROW_HEIGHT, ROW_HEIGHT - line + textHeight);
  }

  private draw(item: Item): void {
    const height = this.heightOf(item);
    if (item.kind === 'heading') {
      this.doc.font(BOLD).fontSize(HEADING_SIZE);
      this.doc.text(item.text, this.left, this.y + ROW_HEIGHT * 0.5, { width: this.right - this.left });
    } else {
      if (item.style === 'total') this.rule(this.y - 2);
      this.writeCells(item.cells, item.style === 'normal' ? FONT : BOLD);
    }
    this.y += height;
  }

  private writeCells(cells: readonly string[], font: string): void {
    this.doc.font(font).fontSize(BODY_SIZE);
    let x = this.left;
    const width = this.right - this.left;
    this.columns.forEach((column, index) => {
      const columnWidth = column.width * width;
      const text = cells[index] ?? '';
      if (column.align === 'left') {
        // Wrapped within the column, never cut: a long account name takes more lines.
        this.doc.text(text, x, this.y, { width: columnWidth - CELL_PADDING });
      } else {
        const fitted = this.fit(text, columnWidth - CELL_PADDING);
        this.doc.text(fitted, x + columnWidth - CELL_PADDING - this.doc.widthOfString(fitted), this.y, { lineBreak: false });
      }
      x += columnWidth;
    });
  }

  /** Cuts an amount to its column with an ellipsis; only amounts beyond any real book's get there. */
  private fit(text: string, width: number): string {
    if (this.doc.widthOfString(text) <= width) return text;
    let cut = text;
    while (cut.length > 0 && this.doc.widthOfString(`${cut}…`) > width) cut = cut.slice(0, -1);
    return `${cut}…`;
  }

  private rule(y: number): void {
    this.doc.moveTo(this.left, y).lineTo(this.right, y).lineWidth(0.5).stroke();
  }

  private newPage(): void {
    this.doc.addPage();
    this.pageNumber += 1;
    const { left } = this;
    const right = this.doc.page.width - PAGE.margin;
    this.right = right;
    this.bottom = this.doc.page.height - PAGE.margin - FOOTER_OFFSET;
    const { header } = this;
    const { words } = header;
    let y = PAGE.margin;
    this.doc.font(BOLD).fontSize(14).text(header.title, left, y, { lineBreak: false });
    y += 20;
    this.doc.font(FONT).fontSize(9).text(`${header.companyName}  ·  ${words.orgNumber} ${header.orgNumber}`, left, y, { lineBreak: false });
    y += 12;
    this.doc.text(`${words.period} ${header.period}`, left, y, { lineBreak: false });
    // The footer goes in the bottom margin; with lineBreak off pdfkit never wraps it onto a new page.
    const footerY = this.doc.page.height - PAGE.margin - 10;
    this.doc.fontSize(7.5).text(`${words.generated} ${formatInstant(header.generatedAt)}`, left, footerY, { lineBreak: false });
    const pageLabel = `${words.page} ${this.pageNumber}`;
    this.doc.text(pageLabel, right - this.doc.widthOfString(pageLabel), footerY, { lineBreak: false });
    y += 20;
    this.y = y;
    this.writeCells(
      this.columns.map((column) => column.header),
      BOLD,
    );
    this.y += ROW_HEIGHT;
    this.doc
      .moveTo(left, this.y - 3)
      .lineTo(right, this.y - 3)
      .lineWidth(0.5)
      .stroke();
    this.top = this.y;
  }
}
