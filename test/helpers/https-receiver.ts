/**
 * A real HTTPS webhook receiver on loopback for dispatcher tests.
 *
 *   const receiver = await startReceiver();                  // 127.0.0.1, port 0, test-CA cert for localhost
 *   await sender.send({ ..., url: receiver.url('/hook') });  // https://localhost:<port>/hook
 *   receiver.requests[0].body                                // raw body as received
 *   receiver.setHandler(() => ({ status: 500, body: 'boom' }));
 *   receiver.setHandler(() => ({ hang: true }));             // never answers (timeout tests)
 *   receiver.setHandler(() => ({ stream: 50e6 }));           // a 50 MB body, written as the client reads
 *   receiver.setHandler(() => ({ trickle: true }));          // headers, then a byte now and then, never ending
 *   await receiver.close();                                  // also destroys open sockets
 *
 * The URL always names `localhost`: point your resolver at the address the receiver listens on
 * (testResolver maps localhost → 127.0.0.1, ::1; use ['::1'] for a receiver on host '::1').
 */
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { getTestPki, type KeyAndCert } from './test-ca.ts';

export interface RecordedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  /** Node's parsed headers: lower-case names. */
  headers: IncomingHttpHeaders;
  /** Raw body bytes decoded as UTF-8. */
  body: string;
  /** TLS server name (SNI) the client asked for; false when it sent none. */
  servername: string | false;
  /** Which TLS connection carried it (1-based, in accept order). */
  connection: number;
}

export interface ReceiverReply {
  /** Default 200. */
  status?: number;
  headers?: OutgoingHttpHeaders;
  body?: string | Uint8Array;
  /** Never answer: the request stays open until the client gives up or close() runs. */
  hang?: boolean;
  /** Answer with a body of this many bytes, written only as fast as the client reads (backpressure). */
  stream?: number;
  /** Send the headers, then one byte every few milliseconds, never ending the body. */
  trickle?: boolean;
}

export type ReceiverHandler = (request: RecordedRequest) => ReceiverReply | Promise<ReceiverReply>;

export interface ReceiverOptions {
  handler?: ReceiverHandler;
  /** Listen address, default '127.0.0.1'; '::1' for IPv6. Loopback only. */
  host?: '127.0.0.1' | '::1';
  /** Server key and certificate, default the test CA's localhost certificate. */
  tls?: KeyAndCert;
}

export interface Receiver {
  readonly port: number;
  /** `https://localhost:<port><path>`. */
  url(path?: string): string;
  /** Every request whose body arrived, in order; recorded before the handler answers. */
  readonly requests: RecordedRequest[];
  /** TLS handshakes completed so far: connection reuse shows up as fewer handshakes than requests. */
  readonly tlsConnections: number;
  /** Body bytes that `stream` and `trickle` replies handed to their sockets so far. */
  readonly bodyBytesWritten: number;
  setHandler(handler: ReceiverHandler): void;
  close(): Promise<void>;
}

const OK_REPLY: ReceiverHandler = () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' });

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const { key, cert } = options.tls ?? getTestPki().localhost;
  const host = options.host ?? '127.0.0.1';
  let handler = options.handler ?? OK_REPLY;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const connectionIds = new WeakMap<TLSSocket, number>();
  let tlsConnections = 0;
  let bodyBytesWritten = 0;

  /** Writes `total` bytes in 64 KiB chunks, waiting for 'drain', until done or the client hangs up. */
  const streamBody = (res: ServerResponse, total: number): void => {
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    let left = total;
    const pump = (): void => {
      while (left > 0 && !res.destroyed) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        bodyBytesWritten += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (left === 0) res.end();
    };
    pump();
  };
  const trickleBody = (res: ServerResponse): void => {
    res.flushHeaders();
    const timer = setInterval(() => {
      bodyBytesWritten++;
      res.write('x');
    }, 20);
    res.once('close', () => clearInterval(timer));
  };

  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const socket = req.socket as TLSSocket;
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        servername: socket.servername ?? false,
        connection: connectionIds.get(socket) ?? 0,
      };
      requests.push(recorded);
      Promise.resolve()
        .then(() => handler(recorded))
        .then((reply) => {
          if (reply.hang) return;
          res.writeHead(reply.status ?? 200, reply.headers ?? {});
          if (reply.stream !== undefined) return streamBody(res, reply.stream);
          if (reply.trickle) return trickleBody(res);
          res.end(reply.body ?? '');
        })
        .catch((error: unknown) => {
          res.writeHead(500);
          res.end(`receiver handler failed: ${String(error)}`);
        });
    });
  });
  // Raw TCP sockets, so close() can cut hanging and kept-alive connections alike.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    connectionIds.set(socket, ++tlsConnections);
  });
  // Failed handshakes (negative TLS tests) are expected; keep them from surfacing as errors.
  server.on('tlsClientError', () => {});

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver: no TCP address');
  const port = address.port;

  return {
    port,
    url: (path = '/') => `https://localhost:${port}${path.startsWith('/') ? path : `/${path}`}`,
    requests,
    get tlsConnections() {
      return tlsConnections;
    },
    get bodyBytesWritten() {
      return bodyBytesWritten;
    },
    setHandler(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
