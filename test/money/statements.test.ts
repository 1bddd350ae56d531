import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { engine, jobFor, useServer, type TestPlatform } from '../helpers/harness.ts';
import { recordStatements, type StatementLog } from '../helpers/statements.ts';
import { accountQuote, eventTypes, externalAccount, fundedCustomer, transferOut } from './fixtures.ts';

// What the money path sends to the database, statement by statement: on PostgreSQL each one is a round
// trip, and the service's throughput follows their number (docs/performance.md, "Where the time goes").
const writes = (log: string[], table: string) => log.filter((s) => new RegExp(`insert into "${table}"`, 'i').test(s));
/** The reads of a payment's accounts, internal or external. */
const accountReads = (log: string[]) => log.filter((s) => /^select .*"(ledger|external)_accounts"/i.test(s));
/** Every UPDATE of `table`, whether a statement of its own or one part of a statement's WITH. */
const updates = (log: string[], table: string) =>
  log.flatMap((s) => s.match(new RegExp(`(?:^|as \\()update "${table}"`, 'gi')) ?? []);
/** UPDATEs of `table` that are statements of their own (on PostgreSQL, a round trip each). */
const ownUpdates = (log: string[], table: string) => log.filter((s) => new RegExp(`^update "${table}"`, 'i').test(s));

describe('statements on the money path', () => {
  let p: TestPlatform;
  let statements: StatementLog;
  const server = useServer({ RUN_WORKERS: 'false' });
  before(async () => {
    p = await server.platform();
    const scope = { platformId: p.platformId, environment: 'sandbox' as const };
    // An endpoint, so that every event also queues its delivery job.
    await server.app.services.platformConfig.update(scope, { webhookEndpoint: 'http://127.0.0.1:9/hooks' });
    statements = recordStatements();
  });

  /**
   * Starts a fresh record with nothing else due: the sandbox request log writes its entries on a timer, and a
   * write that fell inside a window (as it did on a loaded machine) is not the money path's.
   */
  async function newWindow(): Promise<void> {
    await server.app.services.sandboxRequests.flush();
    statements.take();
  }

  /** The id of the job of `kind` queued for the payment `paymentId`. */
  async function jobOf(kind: string, paymentId: string): Promise<string> {
    const job = await jobFor(server, kind, paymentId);
    assert.ok(job, `a ${kind} job for ${paymentId}`);
    return job.id;
  }

  it('a transfer-out writes its events and jobs together, and its rail step writes the payment once', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 10_000);
    const destination = await externalAccount(p, customerId, 'USD_ACCOUNT', '000');
    await newWindow();
    const res = await p.api.post('/transfer-out', {
      source: { accountId },
      destination: { accountId: destination },
      amount: 100,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const request = statements.take();
    assert.equal(accountReads(request).length, 1, `both accounts in one read:\n${request.join('\n')}`);
    if (engine === 'postgres') {
      // One read (both accounts), then every row in one statement that commits by itself: no BEGIN, no
      // COMMIT, and a request authenticated before any of it.
      const changes = request.filter((s) => !/^select /i.test(s));
      assert.equal(
        changes.length,
        1,
        `one statement writes the payment, its ledger entry, event and jobs:\n${request.join('\n')}`,
      );
      assert.match(changes[0]!, /update "ledger_accounts"/i, 'the balance moves in it');
      assert.match(changes[0]!, /insert into "transactions"/i, 'the payment is written in it');
      assert.match(changes[0]!, /insert into "postings"/i, 'the postings are written in it');
    }
    // The PENDING event, its delivery job and the rail step's job.
    if (engine === 'postgres') {
      assert.equal(
        writes(request, 'events').length,
        1,
        `one statement for the event and both jobs:\n${request.join('\n')}`,
      );
      assert.match(writes(request, 'events')[0]!, /insert into "jobs"/i, 'the jobs ride in the event statement');
    } else {
      assert.equal(writes(request, 'events').length, 1, `one INSERT of events:\n${request.join('\n')}`);
      assert.equal(writes(request, 'jobs').length, 1, `one INSERT of both jobs:\n${request.join('\n')}`);
    }

    const railJob = await jobOf('transaction.process', res.body.id);
    await newWindow();
    assert.equal(await server.app.services.worker.runNow(railJob), true, 'the rail step ran');
    const railStep = statements.take();
    assert.equal(
      updates(railStep, 'transactions').length,
      1,
      `PENDING → PROCESSING → COMPLETED in one UPDATE:\n${railStep.join('\n')}`,
    );
    assert.equal(writes(railStep, 'events').length, 1, `both events in one statement:\n${railStep.join('\n')}`);
    if (engine === 'postgres')
      assert.deepEqual(
        ownUpdates(railStep, 'transactions'),
        [],
        `the payment, locked by the step, is moved in the transaction's last statement:\n${railStep.join('\n')}`,
      );
    assert.deepEqual(await eventTypes(server, res.body.id), [
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
    ]);
    const done = await p.api.get(`/transactions/${res.body.id}`);
    assert.equal(done.body.status, 'COMPLETED');
    const deliveries = await server.app.store.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'webhook.deliver')
      .where('payload', 'like', `%${res.body.id}%`)
      .execute();
    assert.equal(deliveries.length, 3, 'each of the three events has its delivery job');
  });

  it('a quote is answered from what its creation and its execution wrote, never read back', async () => {
    const { customerId, accountId } = await fundedCustomer(p, 'USD', 10_000);
    const destination = await externalAccount(p, customerId, 'EUR_ACCOUNT', '000');
    const quoteReads = (log: string[]) => log.filter((s) => /^select .* from "quotes"/i.test(s));
    await newWindow();
    const quote = await accountQuote(p, accountId, destination, 1_000);
    const creation = statements.take();
    assert.deepEqual(quoteReads(creation), [], `the new quote is not read back:\n${creation.join('\n')}`);
    assert.equal(accountReads(creation).length, 1, `its two accounts in one read:\n${creation.join('\n')}`);
    assert.deepEqual((await p.api.get(`/quotes/${quote.id}`)).body, quote, 'the answer is what was stored');

    await newWindow();
    const executed = await p.api.post(`/quotes/${quote.id}/execute`);
    assert.equal(executed.status, 200, JSON.stringify(executed.body));
    const execution = statements.take();
    assert.equal(quoteReads(execution).length, 1, `the quote's row is read once:\n${execution.join('\n')}`);
    const paymentReads = execution.filter((s) => /^select .*"transactions"/i.test(s));
    assert.equal(paymentReads.length, 1, `the quote and its payment in one read:\n${execution.join('\n')}`);
    assert.match(paymentReads[0]!, /from "quotes"/i, 'the payment is read with its quote');
    if (engine === 'postgres') assert.match(paymentReads[0]!, /for update of "transactions"/i, 'and locked by it');
    assert.deepEqual(
      updates(execution, 'quotes'),
      [],
      `nothing writes the quote: its status is its payment's:\n${execution.join('\n')}`,
    );
    assert.equal(
      updates(execution, 'transactions').length,
      1,
      `funded, PENDING → PROCESSING → COMPLETED in one UPDATE of the payment:\n${execution.join('\n')}`,
    );
    if (engine === 'postgres')
      assert.deepEqual(
        ownUpdates(execution, 'transactions'),
        [],
        `the payment's move rides in the last statement:\n${execution.join('\n')}`,
      );
    assert.equal(executed.body.status, 'COMPLETED', 'a …000 account settles at once');
    const payment = await server.app.store.db
      .selectFrom('transactions')
      .select('funding')
      .where('id', '=', executed.body.transactionId)
      .executeTakeFirstOrThrow();
    assert.equal(payment.funding, 'INTERNAL', 'how it was funded is written with its move');
    assert.deepEqual((await p.api.get(`/quotes/${quote.id}`)).body, executed.body, 'the answer is what was stored');
  });

  it('a webhook attempt, what follows from it and the end of its job are written in one statement', async () => {
    const payout = await transferOut(p, 100);
    const { db } = server.app.store;
    const jobId = await jobOf('webhook.deliver', payout.id);
    await newWindow();
    // Nothing listens on port 9: the attempt fails, and the next one is queued.
    assert.equal(await server.app.services.worker.runNow(jobId), true, 'the delivery ran');
    const attempt = statements.take();
    const record = attempt.filter((s) => /"webhook_attempts"/i.test(s) && !/^select /i.test(s));
    assert.equal(record.length, 1, `one statement records the attempt:\n${attempt.join('\n')}`);
    if (engine === 'postgres') {
      assert.match(record[0]!, /insert into "jobs"/i, `the next attempt's job rides in it:\n${record[0]}`);
      assert.match(record[0]!, /update "jobs"/i, `the end of this job rides in it:\n${record[0]}`);
      // The claim is a transaction of its own; after it, the event's read and this one statement.
      const afterClaim = attempt.slice(attempt.indexOf('commit') + 1);
      assert.deepEqual(
        afterClaim.map((s) => s.split(' ')[0]),
        ['select', 'select', 'with'],
        `it commits by itself:\n${attempt.join('\n')}`,
      );
    }
    const done = await db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow();
    assert.equal(done.status, 'done');
    const tried = await db
      .selectFrom('webhook_attempts')
      .innerJoin('events', 'events.id', 'webhook_attempts.event_id')
      .select(['webhook_attempts.event_id', 'webhook_attempts.attempt'])
      .where('events.object_id', '=', payout.id)
      .execute();
    assert.deepEqual(
      tried.map((t) => t.attempt),
      [1n],
      'the attempt is recorded',
    );
    const next = await db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'webhook.deliver')
      .where('status', '=', 'pending')
      .where('payload', 'like', `%${tried[0]!.event_id}%`)
      .execute();
    assert.deepEqual(
      next.map((j) => (JSON.parse(j.payload) as { attempt: number }).attempt),
      [2],
      'the next attempt is queued',
    );
  });
});
