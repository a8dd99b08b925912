/** Bytes a stream buffers ahead of its reader before the producer waits (flat memory). */
export const STREAM_HIGH_WATER_BYTES = 1024 * 1024;

/** Where a streamed report writes its bytes. */
export interface ByteSink {
  /** Queues bytes for the reader; after the reader cancelled, bytes are dropped. */
  write(chunk: Uint8Array): void;
  /**
   * Resolves once the reader has caught up (less than STREAM_HIGH_WATER_BYTES queued); rejects
   * with StreamCancelled when the reader went away, which ends the producer.
   */
  ready(): Promise<void>;
}

export class StreamCancelled extends Error {
  constructor() {
    super('the reader cancelled the stream');
    this.name = 'StreamCancelled';
  }
}

export interface ByteChannel {
  readonly stream: ReadableStream<Uint8Array>;
  readonly sink: ByteSink;
  readonly cancelled: () => boolean;
  close(): void;
  fail(error: unknown): void;
}

/**
 * A pull-driven byte stream: the producer writes to `sink` and awaits `sink.ready()` between
 * pages; the reader's pace decides how far ahead it may run (backpressure).
 */
export function byteChannel(): ByteChannel {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  let wake: (() => void) | null = null;
  const wakeProducer = (): void => {
    const waiting = wake;
    wake = null;
    waiting?.();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
      },
      pull: () => wakeProducer(),
      cancel: () => {
        cancelled = true;
        wakeProducer();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: STREAM_HIGH_WATER_BYTES }),
  );
  const sink: ByteSink = {
    write: (chunk) => {
      if (!cancelled && chunk.byteLength > 0) controller.enqueue(chunk);
    },
    ready: async () => {
      if (!cancelled && (controller.desiredSize ?? 0) <= 0) await new Promise<void>((done) => (wake = done));
      if (cancelled) throw new StreamCancelled();
    },
  };
  return {
    stream,
    sink,
    cancelled: () => cancelled,
    close: () => {
      if (!cancelled) controller.close();
    },
    fail: (error) => {
      if (!cancelled) controller.error(error);
    },
  };
}
