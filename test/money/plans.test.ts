import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import pg from 'pg';
import { engine, useServer, type TestPlatform } from '../helpers/harness.ts';
import { recordStatements, type Statement } from '../helpers/statements.ts';
import { accountQuote, externalAccount, fundedCustomer } from './fixtures.ts';

interface PlanNode {
  'Relation Name'?: string;
  'Index Name'?: string;
  'Node Type': string;
  Plans?: PlanNode[];
}

function scans(node: PlanNode): PlanNode[] {
  return [...(node['Relation Name'] ? [node] : []), ...(node.Plans ?? []).flatMap(scans)];
}

/** The tables a statement looks up by primary key: `"t"."id" = $n`, or `"id" = $n` on its one table. */
function lookedUpById(text: string): string[] {
  const qualified = [...text.matchAll(/"(\w+)"\."id" = \$\d+/g)].map((m) => m[1]!);
  const from = /from "(\w+)"/.exec(text)?.[1];
  return /(^|[^.])"id" = \$\d+/.test(text) && from ? [...qualified, from] : qualified;
}

// A young database has no planner statistics yet (autovacuum has not visited it), and the plan PostgreSQL
// caches for a prepared statement is then its generic one. A lookup by id that also names the platform and
// environment could be planned on a (platform_id, environment, …) index instead of the primary key: one
// payment found by reading every payment of the platform, slower with every row. Every lookup by id on the
// money path must be planned on the primary key whatever the statistics say.
describe('lookups by id on the money path use the primary key on a database without statistics', {
  skip: engine === 'postgres' ? false : 'PostgreSQL planner only',
}, () => {
  let p: TestPlatform;
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
  });

  it('plans every by-id lookup of a transfer-out, its rail step and its read on the primary key', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 100_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    await assertLookupsOnPrimaryKey(async () => {
      const res = await p.api.post('/transfer-out', {
        source: { accountId },
        destination: { accountId: destination },
        amount: 1,
      });
      assert.equal(res.status, 201);
      await server.app.services.worker.drain();
      assert.equal((await p.api.get(`/transactions/${res.body.id}`)).body.status, 'COMPLETED');
    });
  });

  it('plans every by-id lookup of a quote and its execution on the primary key', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 1_000_000);
    const destination = await externalAccount(p, customerId, 'EUR_ACCOUNT', '000');
    await assertLookupsOnPrimaryKey(async () => {
      const quote = await accountQuote(p, accountId, destination, 1_000);
      const executed = await p.api.post(`/quotes/${quote.id}/execute`);
      assert.equal(executed.status, 200, JSON.stringify(executed.body));
      await server.app.services.worker.drain();
    });
  });

  /**
   * Runs `flow` twenty times (so that the platform has rows an index on it could walk), then once more while
   * recording, and plans each of its by-id lookups as a generic plan.
   */
  async function assertLookupsOnPrimaryKey(flow: () => Promise<void>): Promise<void> {
    for (let i = 0; i < 20; i++) await flow();
    await server.app.services.worker.drain();
    const statements = recordStatements();
    await flow();
    const lookups = statements
      .takeWithValues()
      .filter((s) => /^select/i.test(s.text) && lookedUpById(s.text).length > 0);
    assert.ok(lookups.length >= 3, `the path looks rows up by id (${lookups.length} found)`);

    const client = new pg.Client({ connectionString: server.config.databaseUrl });
    await client.connect();
    try {
      await client.query('set plan_cache_mode = force_generic_plan');
      const wrong: string[] = [];
      for (const [i, s] of lookups.entries()) wrong.push(...(await offPrimaryKey(client, `lookup_${i}`, s)));
      assert.deepEqual(wrong, [], 'every table looked up by id is read through its primary key');
    } finally {
      await client.end();
    }
  }
});

/** The tables `s` looks up by id whose generic plan does not read them through their primary key. */
async function offPrimaryKey(client: pg.Client, name: string, s: Statement): Promise<string[]> {
  await client.query(`prepare ${name} as ${s.text}`);
  const args = s.values.map((v) => pg.Client.prototype.escapeLiteral(String(v))).join(', ');
  const { rows } = await client.query(`explain (format json) execute ${name}(${args})`);
  const plan = (rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
  const byId = new Set(lookedUpById(s.text));
  return scans(plan)
    .filter((node) => byId.has(node['Relation Name']!) && node['Index Name'] !== `${node['Relation Name']}_pkey`)
    .map((node) => `${node['Relation Name']} read by ${node['Index Name'] ?? node['Node Type']} in: ${s.text}`);
}
