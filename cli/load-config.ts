import { ConfigError, loadConfig, type Config } from '../domain/kernel/config.ts';
import { describeStartupFailure, type ListenContext } from './startup-failure.ts';

/** The one place that reads process.env; a bad configuration stops the process with one clear line. */
export function configFromEnvironment(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Runs a start-up step; whatever it fails with (a setting, a held data directory, a taken port, an
 * unreachable database) stops the process with one clear line on stderr, never a stack trace.
 */
export async function startupStep<T>(step: () => Promise<T>, context: ListenContext = {}): Promise<T> {
  try {
    return await step();
  } catch (error) {
    process.stderr.write(`${describeStartupFailure(error, context)}\n`);
    process.exit(1);
  }
}
