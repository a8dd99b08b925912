import type { IncomingMessage } from 'node:http';
import type { Principal } from '../domain/kernel/context.ts';

/** Hono environment shared by every REST module. */
export interface AppEnv {
  Bindings: { incoming?: IncomingMessage };
  Variables: {
    requestId: string;
    principal: Principal | null;
  };
}
