import { DomainError } from '../domain/kernel/errors.ts';
import type { Operation } from '../registry/define-operation.ts';
import { mediaEssence, offeredMediaTypes } from '../registry/media-types.ts';

/**
 * Which representation of an operation's success response a caller gets. One rule for every
 * surface: REST passes its Accept header, other surfaces (an MCP resource, the CLI) may name a
 * media type the same way.
 */

interface AcceptRange {
  type: string;
  subtype: string;
  quality: number;
}

function parseAccept(header: string): AcceptRange[] {
  const ranges: AcceptRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...parameters] = part.split(';').map((piece) => piece.trim());
    const [type, subtype] = (range ?? '').toLowerCase().split('/');
    if (!type || !subtype) continue;
    let quality = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=').map((piece) => piece.trim());
      if (name?.toLowerCase() === 'q') quality = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : -1;
    }
    // A malformed q makes the range unusable rather than guessing at it.
    if (quality >= 0) ranges.push({ type, subtype, quality });
  }
  return ranges;
}

/**
 * RFC 9110 §12.5.1: each offer takes the quality of the most specific range matching it; the
 * offer with the highest quality above 0 wins, ties going to the operation's own order (so
 * `*\/*` and a missing header get the default). null when nothing offered is acceptable.
 */
export function negotiate(offers: readonly string[], accept: string | undefined): string | null {
  if (accept === undefined || accept.trim() === '') return offers[0] ?? null;
  const ranges = parseAccept(accept);
  let best: { offer: string; quality: number } | null = null;
  for (const offer of offers) {
    const [type, subtype] = mediaEssence(offer).split('/');
    let specificity = -1;
    let quality = 0;
    for (const range of ranges) {
      const rank =
        range.type === '*' && range.subtype === '*'
          ? 0
          : range.type === type && range.subtype === '*'
            ? 1
            : range.type === type && range.subtype === subtype
              ? 2
              : -1;
      if (rank > specificity) {
        specificity = rank;
        quality = range.quality;
      }
    }
    if (quality > 0 && (best === null || quality > best.quality)) best = { offer, quality };
  }
  return best?.offer ?? null;
}

/** The representation to answer with, or 406 NOT_ACCEPTABLE naming the ones on offer. */
export function chooseMediaType(op: Pick<Operation, 'id' | 'output' | 'produces'>, accept: string | undefined): string {
  const offers = offeredMediaTypes(op);
  const chosen = negotiate(offers, accept);
  if (chosen === null) {
    throw new DomainError('NOT_ACCEPTABLE', {
      message: `${op.id} answers in ${offers.join(' or ')}; the Accept header allows none of them.`,
      validAlternatives: offers,
    });
  }
  return chosen;
}

/**
 * The language of a representation offered in several (RFC 9110 §12.5.4): Accept-Language's
 * ranges with their quality values; a range matches an offer when they are equal or when the
 * range's primary subtag is the offer (`en-GB` and `en` choose `en`), `*` matches any. The
 * best quality above 0 wins, ties going to the offers' order. Nothing acceptable, a missing or an
 * unreadable header: the default, the first offer — a language is a preference, so never a 406
 * (RFC 9110 §12.5.4 lets a server answer in another language).
 */
export function negotiateLanguage(offers: readonly string[], acceptLanguage: string | undefined): string | undefined {
  const fallback = offers[0];
  if (acceptLanguage === undefined || acceptLanguage.trim() === '') return fallback;
  const ranges: { tag: string; quality: number }[] = [];
  for (const part of acceptLanguage.split(',')) {
    const [range, ...parameters] = part.split(';').map((piece) => piece.trim());
    const tag = (range ?? '').toLowerCase();
    if (!/^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/.test(tag)) continue;
    let quality = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=').map((piece) => piece.trim());
      if (name?.toLowerCase() === 'q') quality = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : -1;
    }
    if (quality >= 0) ranges.push({ tag, quality });
  }
  let best: { offer: string; quality: number } | null = null;
  for (const offer of offers) {
    const wanted = offer.toLowerCase();
    let specificity = -1;
    let quality = 0;
    for (const range of ranges) {
      const rank = range.tag === wanted ? 2 : range.tag.split('-')[0] === wanted ? 1 : range.tag === '*' ? 0 : -1;
      if (rank > specificity) {
        specificity = rank;
        quality = range.quality;
      }
    }
    if (quality > 0 && (best === null || quality > best.quality)) best = { offer, quality };
  }
  return best?.offer ?? fallback;
}
