import type { CliCommand } from '../command.ts';
import { withServices } from '../services.ts';

export const migrateCommand: CliCommand = {
  path: ['migrate'],
  summary: 'bring the database schema up to date (sets the database up where there is none)',
  database: 'creates',
  writes: true,
  async run({ config }) {
    const [{ openConfiguredStore }, { migrate }, { holdShared }] = await Promise.all([
      import('../../open-store.ts'),
      import('../../store/migrate.ts'),
      import('../../store/data-dir-lock.ts'),
    ]);
    const lock = config.databaseUrl ? undefined : holdShared(config.dataDir);
    const store = await openConfiguredStore(config);
    try {
      const applied = await migrate(store);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
    } finally {
      await store.close();
      lock?.release();
    }
    return 0;
  },
};

export const operationCommands: CliCommand[] = [
  {
    path: ['ledger', 'verify'],
    summary: 'check every ledger invariant; exits 1 naming each violation',
    database: 'uses',
    writes: false,
    async run({ config }) {
      const { verifyLedger } = await import('../../ledger/verify.ts');
      const violations = await withServices(config, ({ store }) => verifyLedger(store));
      if (violations.length === 0) {
        process.stdout.write('ledger ok: every invariant holds\n');
        return 0;
      }
      for (const v of violations) process.stdout.write(`VIOLATION ${v.invariant}: ${v.detail}\n`);
      return 1;
    },
  },
  {
    path: ['accounts', 'activate'],
    args: '<id>',
    summary: 'make a PENDING or UNDER_REVIEW external account ACTIVE (operator review)',
    database: 'uses',
    writes: true,
    async run({ config, args }) {
      const id = args[0] ?? '';
      const account = await withServices(config, ({ services }) => services.externalAccounts.activate(id));
      process.stdout.write(`${account.id} is ${account.status}\n`);
      return 0;
    },
  },
  {
    path: ['connectors', 'check'],
    summary: "check CONNECTORS_FILE and whether each connector's adapter answers; exits 1 when one does not",
    database: 'uses',
    writes: false,
    async run({ config }) {
      const health = await withServices(config, ({ services }) => services.connectors.check());
      const banks = Object.values(config.connectors.banks);
      if (health.length === 0 && banks.length === 0)
        process.stdout.write('no connectors: every production payment waits for an operator\n');
      // Checked at start (xmllint, the schemas, the folders): a bank connector that got this far is usable.
      for (const b of banks)
        process.stdout.write(`${b.name} (iso20022, ${b.debtor.iban}, outbox ${b.outbox}): ready\n`);
      for (const c of health)
        process.stdout.write(
          `${c.name} (${c.type}, ${c.url}): ${c.reachable ? 'reachable' : `NOT reachable: ${c.error}`}\n`,
        );
      for (const route of config.connectors.routes)
        process.stdout.write(
          `route ${route.currency}${route.platform ? ` ${route.platform}` : ''} -> ${route.connector}\n`,
        );
      return health.every((c) => c.reachable) ? 0 : 1;
    },
  },
];
