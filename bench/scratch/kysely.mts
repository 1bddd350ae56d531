import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
const store = openStore({ dataDir: mkdtempSync(join(tmpdir(), 'mb-')) });
await migrate(store);
const db = store.db;
const build = (id: string) =>
  db
    .selectFrom('ledger_accounts')
    .leftJoin('customers', 'customers.id', 'ledger_accounts.owner')
    .selectAll('ledger_accounts')
    .select(['customers.platform_customer_id', 'customers.uma_address', 'customers.is_deleted'])
    .where('ledger_accounts.id', '=', id)
    .where('ledger_accounts.kind', 'in', ['CUSTOMER', 'PLATFORM']);
const compiled = build('x').compile();
const N = 50000;
for (let r = 0; r < 3; r++) {
  let t = performance.now();
  for (let i = 0; i < N; i++) build('x' + i).compile();
  const compileUs = ((performance.now() - t) * 1000) / N;
  t = performance.now();
  for (let i = 0; i < N; i++) await build('x' + i).executeTakeFirst();
  const execUs = ((performance.now() - t) * 1000) / N;
  t = performance.now();
  for (let i = 0; i < N; i++) await db.executeQuery({ ...compiled, parameters: ['x' + i, 'CUSTOMER', 'PLATFORM'] });
  const precompiledUs = ((performance.now() - t) * 1000) / N;
  console.log({ compileUs: compileUs.toFixed(1), execUs: execUs.toFixed(1), precompiledUs: precompiledUs.toFixed(1) });
}
await store.close();
