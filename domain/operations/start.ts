import type { Services } from '../context.ts';
import { createOperationRunner, type Runner, type RunnerOptions } from './runner.ts';
import { OPERATION_KIND_RUNNERS } from './kinds.ts';

/** The operation runner `npm start` and `npm run worker` run beside the delivery loop. */
export function startOperationRunner(services: Services, options: Pick<RunnerOptions, 'onFinished' | 'startAfter'> = {}): Runner {
  const runner = createOperationRunner(services, { kinds: OPERATION_KIND_RUNNERS, ...options });
  runner.start();
  return runner;
}
