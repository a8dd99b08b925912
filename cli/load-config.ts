import { ConfigError, loadConfig, type Config } from '../domain/kernel/config.ts';

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

/** Runs a start-up step; a configuration problem it finds stops the process with one line too. */
export async function startupStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
