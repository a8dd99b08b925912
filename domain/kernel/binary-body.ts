/**
 * A success body that is bytes rather than JSON — a report PDF, an SIE file, an uploaded
 * document. Binary bodies are exempt from the envelope (spec Endpoints 9) and are streamed, never
 * collected: the producer writes as the reader takes (domain/reports/snapshot.ts).
 */
export interface BinaryBody {
  /** The Content-Type sent, e.g. `application/pdf` or `text/plain; charset=cp437`. */
  contentType: string;
  stream: ReadableStream<Uint8Array>;
  /** Suggested file name for a download (Content-Disposition: attachment). */
  filename?: string;
  /** The language it is written in (Content-Language), when it has one to choose. */
  language?: string;
  /** Size in bytes when known before streaming (Content-Length); streamed reports omit it. */
  length?: number;
}

/** A small file already in memory (a tax return's XML) as a binary body with its length. */
export function bytesBody(contentType: string, filename: string, bytes: Uint8Array): BinaryBody {
  return {
    contentType,
    filename,
    length: bytes.byteLength,
    stream: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    }),
  };
}
