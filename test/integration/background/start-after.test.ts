import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstAnswered } from '../../../cli/first-answer.ts';
import { startClaimLoop } from '../../../domain/background/claim-loop.ts';
import { DELIVERY_CHANNEL } from '../../../domain/events/emit.ts';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { until } from '../../helpers/until.ts';

/**
 * Issue 30: `npm start` holds its loops' first claims until the server has answered its first
 * request, so they do not queue ahead of it on PGlite's one connection. The loop still counts as
 * running from the start (health reports it), and a stop before the gate opens ends it cleanly.
 */
describe('a claim loop started after a gate', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices('pglite');
  });
  afterAll(async () => t?.close());

  const gate = () => {
    let open: () => void = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };

  it('counts as running at once, and runs its first round only after the gate opens', async () => {
    const { opened, open } = gate();
    let isOpen = false;
    const roundsSeenOpen: boolean[] = [];
    const loop = startClaimLoop(t.services, {
      name: 'delivery',
      channel: DELIVERY_CHANNEL,
      idlePollMs: 60_000,
      failureMessage: 'test round failed',
      startAfter: opened,
      round: async () => {
        roundsSeenOpen.push(isOpen);
        return false;
      },
    });
    try {
      expect(t.services.loops.delivery).toBe(1);
      isOpen = true;
      open();
      await until(() => roundsSeenOpen.length > 0, 'the first round');
      expect(roundsSeenOpen).toEqual([true]);
    } finally {
      await loop.stop();
    }
    expect(t.services.loops.delivery).toBe(0);
  });

  it('stops before the gate opens without running a round', async () => {
    let rounds = 0;
    const loop = startClaimLoop(t.services, {
      name: 'operations',
      channel: 'start_after_test',
      idlePollMs: 60_000,
      failureMessage: 'test round failed',
      startAfter: new Promise(() => {}), // never opens
      round: async () => {
        rounds++;
        return false;
      },
    });
    expect(t.services.loops.operations).toBe(1);
    await loop.stop();
    expect(t.services.loops.operations).toBe(0);
    expect(rounds).toBe(0);
  });
});

describe('firstAnswered', () => {
  let server: Server;
  const events: string[] = [];
  beforeAll(async () => {
    server = createServer((_request, response) => {
      events.push('answered');
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it("resolves once the server's first response has closed (the fallback wait is far off)", async () => {
    const first = firstAnswered(server, 600_000).then(() => events.push('gate'));
    const { port } = server.address() as AddressInfo;
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
    await first;
    expect(events).toEqual(['answered', 'gate']);
    // It stops watching: later requests find no listener of its own.
    expect(server.listenerCount('request')).toBe(1);
  });

  it('resolves after the wait when nothing is asked', async () => {
    await firstAnswered(server, 0);
    expect(server.listenerCount('request')).toBe(1);
  });
});
