// A minimal HTTPS receiver in its own process, so the benchmark's sender and receiver do not
// share one event loop. Prints its port, answers 200 to every POST, counts requests.
import { createServer } from 'node:https';
// The parent passes its test PKI, so both sides trust the same CA.
const key = process.env.BENCH_TLS_KEY ?? '';
const cert = process.env.BENCH_TLS_CERT ?? '';
let count = 0;
const server = createServer({ key, cert, keepAliveTimeout: 60_000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    count++;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    res.end('ok');
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('message', () => process.send?.({ count }));
