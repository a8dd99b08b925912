/** How a process on this machine reaches a server (a wildcard address is reached on loopback). */
export function localUrl(host: string, boundPort: number): string {
  const name = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${boundPort}`;
}
