/**
 * A document's file name is for people to recognise it, nothing else: it is never a storage path
 * (the bytes are keyed by their digest). What a client sends is cut down to a safe display name.
 */

export const MAX_FILENAME_LENGTH = 255;

// C0/C1 controls, and the bidirectional overrides that make `gpj.exe` display as `exe.jpg`.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The last path segment (either slash), with control and bidi-override characters removed,
 * leading dots and surrounding spaces trimmed, at most 255 characters (the extension kept). A
 * name that is empty after that becomes `document.<extension>`.
 */
export function sanitizeFilename(raw: string | null, extension: string): string {
  const base = (raw ?? '').normalize('NFC').split(/[/\\]/).at(-1) ?? '';
  const cleaned = base.replace(UNSAFE, '').trim().replace(/^\.+/, '').trim();
  if (cleaned === '') return `document.${extension}`;
  const chars = [...cleaned];
  if (chars.length <= MAX_FILENAME_LENGTH) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const suffix = dot > 0 && cleaned.length - dot <= 16 ? [...cleaned.slice(dot)] : [];
  return [...chars.slice(0, MAX_FILENAME_LENGTH - suffix.length), ...suffix].join('').trim();
}
