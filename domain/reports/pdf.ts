import { createRequire } from 'node:module';
import type PDFDocumentClass from 'pdfkit';
import type { ByteSink } from './byte-stream.ts';

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
}

export interface PdfColumn {
  header: string;
  /** Share of the printable width; the shares of a table add up to 1. */
  width: number;
  align: 'left' | 'right';
}

export type PdfRowStyle = 'normal' | 'bold' | 'heading';

const PAGE = { size: 'A4', margin: 40 } as const;
const FONT = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const BODY_SIZE = 8.5;
const ROW_HEIGHT = 12.5;
const CELL_PADDING = 4;
const FOOTER_OFFSET = 28;

/** Kronor with two decimals, Swedish style: `-1 234 567,89`. Exact: integer öre, no floats. */
export function formatOre(amount: number | bigint): string {
  const ore = BigInt(amount);
  const negative = ore < 0n;
  const absolute = negative ? -ore : ore;
  const kronor = (absolute / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  const cents = (absolute % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${kronor},${cents}`;
}

/** `2026-11-21T10:00:00.000Z` → `2026-11-21 10:00 UTC`. */
const formatInstant = (instant: Date): string => `${instant.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export class PdfTable {
  private readonly doc: PDFKit.PDFDocument;
  private readonly finished: Promise<void>;
  private readonly left = PAGE.margin;
  private right = 0;
  private bottom = 0;
  private y = 0;
  private pageNumber = 0;

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

  /** A section heading spanning the table. */
  heading(text: string): void {
    this.ensureRoom(ROW_HEIGHT * 2);
    this.y += ROW_HEIGHT * 0.5;
    this.doc.font(BOLD).fontSize(BODY_SIZE + 1);
    this.doc.text(this.fit(text, this.right - this.left), this.left, this.y, { lineBreak: false });
    this.y += ROW_HEIGHT;
  }

  row(cells: readonly string[], style: PdfRowStyle = 'normal'): void {
    this.ensureRoom(ROW_HEIGHT);
    if (style === 'bold') this.rule(this.y - 2);
    this.writeCells(cells, style === 'normal' ? FONT : BOLD);
    this.y += ROW_HEIGHT;
  }

  /** Lets the reader catch up before more rows are written. */
  async flush(): Promise<void> {
    await this.sink.ready();
  }

  async end(): Promise<void> {
    this.doc.end();
    await this.finished;
  }

  private writeCells(cells: readonly string[], font: string): void {
    this.doc.font(font).fontSize(BODY_SIZE);
    let x = this.left;
    const width = this.right - this.left;
    this.columns.forEach((column, index) => {
      const columnWidth = column.width * width;
      const text = this.fit(cells[index] ?? '', columnWidth - CELL_PADDING);
      const textX = column.align === 'right' ? x + columnWidth - CELL_PADDING - this.doc.widthOfString(text) : x;
      this.doc.text(text, textX, this.y, { lineBreak: false });
      x += columnWidth;
    });
  }

  /** Cuts text to the width with an ellipsis; a long account name never runs into the next column. */
  private fit(text: string, width: number): string {
    if (this.doc.widthOfString(text) <= width) return text;
    let cut = text;
    while (cut.length > 0 && this.doc.widthOfString(`${cut}…`) > width) cut = cut.slice(0, -1);
    return `${cut}…`;
  }

  private rule(y: number): void {
    this.doc.moveTo(this.left, y).lineTo(this.right, y).lineWidth(0.5).stroke();
  }

  private ensureRoom(height: number): void {
    if (this.y + height > this.bottom) this.newPage();
  }

  private newPage(): void {
    this.doc.addPage();
    this.pageNumber += 1;
    const { left } = this;
    const right = this.doc.page.width - PAGE.margin;
    this.right = right;
    this.bottom = this.doc.page.height - PAGE.margin - FOOTER_OFFSET;
    const { header } = this;
    let y = PAGE.margin;
    this.doc.font(BOLD).fontSize(14).text(header.title, left, y, { lineBreak: false });
    y += 20;
    this.doc.font(FONT).fontSize(9).text(`${header.companyName}  ·  Org.nr ${header.orgNumber}`, left, y, { lineBreak: false });
    y += 12;
    this.doc.text(`Period ${header.period}`, left, y, { lineBreak: false });
    // The footer goes in the bottom margin; with lineBreak off pdfkit never wraps it onto a new page.
    const footerY = this.doc.page.height - PAGE.margin - 10;
    this.doc.fontSize(7.5).text(`Generated ${formatInstant(header.generatedAt)}`, left, footerY, { lineBreak: false });
    const pageLabel = `Page ${this.pageNumber}`;
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
  }
}
