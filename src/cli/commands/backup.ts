import type { CliCommand } from '../command.ts';

export const backupCommands: CliCommand[] = [];
