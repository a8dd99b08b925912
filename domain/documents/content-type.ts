import { byteSourceOf, readSlice, type ByteSource } from '../kernel/byte-source.ts';

/**
 * What a document may be, decided by its bytes — magic numbers through file-type, which is
 * maintained against real files — never by the file name or the client's Content-Type.
 */

/** Receipts and invoices: scans and photos, PDFs, and XML e-invoices (Peppol BIS, Svefaktura). */
export const DOCUMENT_CONTENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'image/heic', 'image/heif', 'image/tiff', 'application/xml'] as const;
export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[number];

/** The largest document accepted: a multi-page scan fits; a video does not. */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

export interface DetectedType {
  contentType: DocumentContentType;
  /** The usual extension, for a name when the upload had none. */
  extension: string;
}

const EXTENSIONS: Record<DocumentContentType, string> = {
  'application/pdf': 'pdf',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/heic': 'heic',
  'image/heif': 'heif',
  'image/tiff': 'tif',
  'application/xml': 'xml',
};

const isAllowed = (mime: string): mime is DocumentContentType => (DOCUMENT_CONTENT_TYPES as readonly string[]).includes(mime);

/**
 * The document's type from its content, or null when it is none of the allowed ones. A stored
 * upload is read only at its ends: the first SNIFF_BYTES (every magic number we accept sits in
 * them) and the last TAIL_BYTES (an XML document's end), never whole.
 */
export async function detectDocumentType(input: Uint8Array | ByteSource): Promise<DetectedType | null> {
  const source = input instanceof Uint8Array ? byteSourceOf(input) : input;
  const head = await readSlice(source, 0, SNIFF_BYTES);
  const tail = await readSlice(source, Math.max(0, source.size - TAIL_BYTES), TAIL_BYTES);
  // Loaded on the first upload, not at start-up.
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(head);
  // file-type knows XML only by its declaration, and calls an SVG with one XML too: our own check decides.
  if (!found || found.mime === 'application/xml') return looksLikeXml(head, tail, head.length === source.size) ? typed('application/xml') : null;
  return isAllowed(found.mime) ? typed(found.mime) : null;
}

const typed = (contentType: DocumentContentType): DetectedType => ({ contentType, extension: EXTENSIONS[contentType] });

/** How much of the start is inspected: magic numbers, and an XML root element (prologs with comments and a DOCTYPE fit). */
const SNIFF_BYTES = 64 * 1024;
/** How much of the end an XML document's closing `>` is looked for in. */
const TAIL_BYTES = 256;
// Documents a browser would render as a page or a script host are not e-invoices, whatever they declare.
const RENDERABLE_ROOTS = new Set(['html', 'svg', 'xhtml']);

/**
 * A small XML check for e-invoices, which have no magic number: UTF-8 text (an optional BOM)
 * with no NUL bytes, whose first markup is an XML declaration or an element, whose root element
 * is not a renderable page (HTML, SVG), and that ends with `>`.
 */
export function looksLikeXmlDocument(bytes: Uint8Array): boolean {
  return looksLikeXml(bytes.subarray(0, SNIFF_BYTES), bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES)), bytes.length <= SNIFF_BYTES);
}

/** looksLikeXmlDocument on a file's first and last bytes; `whole` when the head is the entire file. */
function looksLikeXml(start: Uint8Array, end: Uint8Array, whole: boolean): boolean {
  const head = Buffer.from(start);
  if (head.includes(0)) return false;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(whole ? head : trimToCharBoundary(head));
  } catch {
    return false;
  }
  text = text.replace(/^\uFEFF/, '');
  if (!/^\s*<(\?xml[\s?]|[A-Za-z_!])/.test(text)) return false;
  const root = rootElementName(text);
  if (!root || RENDERABLE_ROOTS.has(root.toLowerCase())) return false;
  const tail = Buffer.from(end).toString('latin1');
  return tail.trimEnd().endsWith('>');
}

/** The local name of the first element after the prolog (declaration, comments, PIs, DOCTYPE). */
function rootElementName(text: string): string | null {
  const prolog = /^\s*(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>)/i;
  let rest = text;
  for (let match = prolog.exec(rest); match; match = prolog.exec(rest)) rest = rest.slice(match[0].length);
  const element = /^\s*<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/.exec(rest);
  return element ? (element[2] ?? null) : null;
}

/** Drops a UTF-8 sequence cut off at the end of a sniffed prefix, so only a real encoding error fails. */
function trimToCharBoundary(head: Buffer): Buffer {
  let end = head.length;
  // Step back over continuation bytes (10xxxxxx) to the lead byte of the last character, and drop it.
  let back = 0;
  while (back < 4 && end - back - 1 >= 0 && ((head[end - back - 1] as number) & 0xc0) === 0x80) back++;
  end -= back + 1;
  return head.subarray(0, Math.max(0, end));
}
