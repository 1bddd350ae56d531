import { resolve } from 'node:path';
import type { Config } from '../../config.ts';
import { systemClock } from '../../domain/clock.ts';
import { VERSION } from '../../version.ts';
import type { CliCommand } from '../command.ts';

function embeddedOnly(config: Config, fail: (message: string) => never, what: string): void {
  if (config.databaseUrl) {
    fail(`${what} is for the embedded database; on PostgreSQL use pg_dump and pg_restore (docs/production.md)`);
  }
}

export const backupCommands: CliCommand[] = [
  {
    path: ['backup'],
    args: '<file>',
    summary: 'write the embedded database, its documents and key file to FILE (.tar.gz); safe while servers run',
    database: 'uses',
    writes: false,
    async run({ config, args, fail }) {
      embeddedOnly(config, fail, 'backup');
      const file = resolve(args[0] ?? '');
      const [{ backupDataDir }, { holdShared }] = await Promise.all([
        import('../../store/backup.ts'),
        import('../../store/data-dir-lock.ts'),
      ]);
      const lock = holdShared(config.dataDir);
      try {
        const made = await backupDataDir(config.dataDir, file, { payoutsVersion: VERSION, nowMs: systemClock.nowMs() });
        process.stdout.write(
          `backup written to ${file}: the database, ${made.documents} document file(s)` +
            `${made.includesKeyFile ? ' and the server key file' : ''}\n`,
        );
        if (made.includesKeyFile) {
          process.stderr.write('payouts: the backup holds the server key (secret.key): keep it as secret as the key\n');
        }
        for (const sha256 of made.missingDocuments) {
          process.stderr.write(`payouts: document file ${sha256} was removed while the backup ran; not in it\n`);
        }
      } finally {
        lock.release();
      }
      return 0;
    },
  },
  {
    path: ['restore'],
    args: '<file>',
    summary: 'restore a backup into DATA_DIR; refuses while any payouts process uses DATA_DIR',
    options: [
      { flags: '--force', description: 'replace an existing database (moved aside into DATA_DIR/replaced-TIME/)' },
    ],
    database: 'creates',
    writes: true,
    async run({ config, args, options, fail }) {
      embeddedOnly(config, fail, 'restore');
      const file = resolve(args[0] ?? '');
      const [{ restoreDataDir }, { holdExclusive }, { keyCheckValue }] = await Promise.all([
        import('../../store/backup.ts'),
        import('../../store/data-dir-lock.ts'),
        import('../../store/key-check.ts'),
      ]);
      // Exclusive: fails at once while a server (or any other command) has DATA_DIR open.
      const lock = holdExclusive(config.dataDir);
      try {
        const { manifest, replacedInto } = await restoreDataDir(config.dataDir, file, {
          currentKeyCheck: keyCheckValue(config.secretKey),
          keyFromFile: config.secretKeyFile !== undefined,
          force: options.force === true,
          nowMs: systemClock.nowMs(),
        });
        if (replacedInto) process.stdout.write(`the replaced database and documents are in ${replacedInto}\n`);
        process.stdout.write(
          `restored ${file} (made ${manifest.createdAt} by payouts ${manifest.payoutsVersion}, ` +
            `${manifest.documents} document file(s)) into ${config.dataDir}\n`,
        );
      } finally {
        lock.release();
      }
      return 0;
    },
  },
];
