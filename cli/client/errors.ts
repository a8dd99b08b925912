import { CLI_EXIT } from '../../registry/cli-command.ts';

export const EXIT = CLI_EXIT;

export function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status >= 400 && status < 500 && status !== 429) return EXIT.validation;
  return EXIT.server;
}

/** A failure the CLI reports itself, with the exit code of its class and what to do next. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string, hint?: string): CliError => new CliError(message, EXIT.usage, hint);
