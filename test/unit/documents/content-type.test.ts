import { describe, expect, it } from 'vitest';
import { detectDocumentType, looksLikeXmlDocument } from '../../../domain/documents/content-type.ts';
import { sanitizeFilename } from '../../../domain/documents/filename.ts';
import { contentDisposition, ifNoneMatchHits } from '../../../rest/binary-response.ts';
import { HEIC, JPEG, PDF, PNG, REFUSED, TIFF, XML_INVOICE, XML_WITHOUT_DECLARATION } from '../../helpers/documents.ts';

describe('document types come from the content', () => {
  it.each([
    ['PDF', 'application/pdf', PDF],
    ['JPEG', 'image/jpeg', JPEG],
    ['PNG', 'image/png', PNG],
    ['HEIC', 'image/heic', HEIC],
    ['TIFF', 'image/tiff', TIFF],
    ['XML e-invoice', 'application/xml', XML_INVOICE],
    ['XML e-invoice without a declaration', 'application/xml', XML_WITHOUT_DECLARATION],
  ])('%s is accepted as %s', async (_name, type, bytes) => {
    expect((await detectDocumentType(bytes))?.contentType).toBe(type);
  });

  it.each(Object.entries(REFUSED))('%s is refused', async (_name, bytes) => {
    expect(await detectDocumentType(bytes)).toBeNull();
  });

  it('XML: no NUL bytes, not a page, not cut off, not another encoding', () => {
    expect(looksLikeXmlDocument(Buffer.from('<Invoice>\u0000</Invoice>'))).toBe(false);
    expect(looksLikeXmlDocument(Buffer.from('<?xml version="1.0"?>\n<!DOCTYPE svg><svg/>'))).toBe(false);
    expect(looksLikeXmlDocument(Buffer.from('<x:html xmlns:x="http://www.w3.org/1999/xhtml"/>'))).toBe(false);
    expect(looksLikeXmlDocument(Buffer.from('<Invoice><ID>1</I'))).toBe(false);
    expect(looksLikeXmlDocument(Buffer.from('<Invoice/>', 'utf16le'))).toBe(false);
    expect(looksLikeXmlDocument(Buffer.from('<Invoice>Å</Invoice>', 'latin1'))).toBe(false);
    expect(looksLikeXmlDocument(Buffer.from('<Faktura>Åäö</Faktura>'))).toBe(true);
    // A multi-byte character cut by the sniffing window is not an encoding error.
    const long = Buffer.from(`<Invoice>${'å'.repeat(40_000)}</Invoice>`);
    expect(looksLikeXmlDocument(long)).toBe(true);
  });
});

describe('file names are for display only', () => {
  it.each([
    ['../../etc/passwd.pdf', 'passwd.pdf'],
    ['C:\\Users\\eva\\kvitto.pdf', 'kvitto.pdf'],
    ['..', 'document.pdf'],
    ['/', 'document.pdf'],
    ['.htaccess', 'htaccess'],
    ['kvit\u0000to\r\n.pdf', 'kvitto.pdf'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['  kvitto åäö.pdf  ', 'kvitto åäö.pdf'],
    [null, 'document.pdf'],
  ])('%j → %j', (raw, expected) => {
    expect(sanitizeFilename(raw, 'pdf')).toBe(expected);
  });

  it('a long name keeps its extension within 255 characters', () => {
    const name = sanitizeFilename(`${'a'.repeat(300)}.pdf`, 'pdf');
    expect([...name]).toHaveLength(255);
    expect(name.endsWith('.pdf')).toBe(true);
  });
});

describe('Content-Disposition and If-None-Match', () => {
  it('gives an ASCII fallback and the exact UTF-8 name (RFC 6266, 5987)', () => {
    expect(contentDisposition('kvitto åäö.pdf')).toBe(`attachment; filename="kvitto ___.pdf"; filename*=UTF-8''kvitto%20%C3%A5%C3%A4%C3%B6.pdf`);
    expect(contentDisposition('a"b;c%d\\e.pdf')).toBe(`attachment; filename="a_b_c_d_e.pdf"; filename*=UTF-8''a%22b%3Bc%25d_e.pdf`);
    expect(contentDisposition("it's (1)*.pdf")).toBe(`attachment; filename="it's (1)*.pdf"; filename*=UTF-8''it%27s%20%281%29%2A.pdf`);
    expect(contentDisposition('x\r\nSet-Cookie: a=b')).not.toMatch(/[\r\n]/);
  });

  it('compares weakly, any of a list, and * matches', () => {
    expect(ifNoneMatchHits('"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('W/"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"x", "abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('*', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"abd"', '"abc"')).toBe(false);
    expect(ifNoneMatchHits(undefined, '"abc"')).toBe(false);
  });
});
