import type { Services } from '../kernel/context.ts';
import { createOperationRunner, type Runner } from './runner.ts';
import { OPERATION_KIND_RUNNERS } from './kinds/index.ts';

/** The operation runner `npm start` and `npm run worker` run beside the delivery loop. */
export function startOperationRunner(services: Services): Runner {
  const runner = createOperationRunner(services, { kinds: OPERATION_KIND_RUNNERS });
  runner.start();
  return runner;
}
