import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { client, jobFor, useServer, type TestPlatform } from '../helpers/harness.ts';
import { recordEvent } from '../../src/webhooks/events.ts';
import { createCustomer, eventsOf, individual } from './fixtures.ts';

describe('invitations', () => {
  let p: TestPlatform;
  let other: TestPlatform;
  let inviter: any;
  // The background worker polls rarely, so only the sandbox clock makes expiry jobs run.
  const server = useServer({ JOB_POLL_MS: '60000', PUBLIC_URL: 'https://pay.example.test' });
  before(async () => {
    p = await server.platform('inviter');
    other = await server.platform('claimer');
    inviter = await createCustomer(p, individual('inviter-1'));
  });

  const invite = (body: Record<string, unknown> = {}) =>
    p.api.post('/invitations', { inviterUma: inviter.umaAddress, ...body });

  it('creates a pending invitation with an unguessable code, a link and a display amount', async () => {
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const res = await invite({ firstName: 'Alice', amountToSend: 12550, expiresAt });
    assert.equal(res.status, 201);
    assert.match(res.body.code, /^[a-z2-9]{16}$/);
    assert.equal(res.body.url, `https://pay.example.test/invitations/${res.body.code}`);
    assert.equal(res.body.status, 'PENDING');
    assert.equal(res.body.firstName, 'Alice');
    assert.deepEqual(res.body.amountToSend, {
      amount: 12550,
      currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 },
    });
    assert.equal(res.body.expiresAt, expiresAt);
    assert.equal(res.body.inviteeUma, undefined);
    const eur = await invite({ amountToSend: 500, currency: 'EUR' });
    assert.equal(eur.body.amountToSend.currency.code, 'EUR');
    const codes = new Set([res.body.code, eur.body.code, (await invite()).body.code]);
    assert.equal(codes.size, 3);
  });

  it('refuses unknown inviters, malformed addresses, past expiry and stray currency', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ inviterUma: '$nobody@example.com' }, 'INVALID_INPUT', 'inviterUma'],
      [{ inviterUma: 'not-an-address' }, 'INVALID_UMA_ADDRESS', 'inviterUma'],
      [{ expiresAt: new Date(Date.now() - 1000).toISOString() }, 'INVALID_INPUT', 'expiresAt'],
      [{ expiresAt: 'tomorrow' }, 'INVALID_INPUT', 'expiresAt'],
      [{ currency: 'EUR' }, 'INVALID_INPUT', 'currency'],
      [{ amountToSend: 0 }, 'INVALID_INPUT', 'amountToSend'],
      [{ amountToSend: 1.5 }, 'INVALID_INPUT', 'amountToSend'],
    ];
    for (const [body, code, field] of cases) {
      const res = await invite(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, code, JSON.stringify(body));
      assert.equal(res.body.details.field, field, JSON.stringify(body));
    }
    // Another platform's customer is not an inviter here.
    const theirs = await createCustomer(other, individual('theirs'));
    assert.equal(
      (await p.api.post('/invitations', { inviterUma: theirs.umaAddress })).body.details.field,
      'inviterUma',
    );
    assert.equal(
      await server.app.store.db
        .selectFrom('invitations')
        .select('code')
        .where('platform_id', '=', other.platformId)
        .executeTakeFirst(),
      undefined,
    );
  });

  it('lets any platform of the environment read and claim it; the event goes to the inviter only', async () => {
    const created = (await invite({ amountToSend: 100 })).body;
    const read = await other.api.get(`/invitations/${created.code}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created);
    assert.equal(
      (await other.prod.get(`/invitations/${created.code}`)).status,
      404,
      'production does not see sandbox invitations',
    );

    const claimerEventsBefore = (await eventsOf(server, other.platformId)).length;
    const claimed = await other.api.post(`/invitations/${created.code}/claim`, {
      inviteeUma: '$bob@other.example.com',
    });
    assert.equal(claimed.status, 200);
    assert.equal(claimed.body.status, 'CLAIMED');
    assert.equal(claimed.body.inviteeUma, '$bob@other.example.com');
    assert.ok(
      Date.parse(claimed.body.claimedAt) >= Date.parse(created.createdAt),
      'Date.parse(claimed.body.claimedAt) >= Date.parse(created.createdAt)',
    );

    const events = (await eventsOf(server, p.platformId)).filter((e) => e.object_id === created.code);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'INVITATION.CLAIMED');
    assert.deepEqual(JSON.parse(events[0]!.data), claimed.body);
    assert.equal((await eventsOf(server, other.platformId)).length, claimerEventsBefore, 'the claimer gets no event');

    const again = await p.api.post(`/invitations/${created.code}/claim`, { inviteeUma: '$carol@other.example.com' });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'INVITATION_ALREADY_CLAIMED');
    const cancel = await p.api.post(`/invitations/${created.code}/cancel`);
    assert.equal(cancel.status, 400);
    assert.equal(cancel.body.code, 'INVITATION_ALREADY_CLAIMED');
    assert.equal(
      (await eventsOf(server, p.platformId)).filter((e) => e.object_id === created.code).length,
      1,
      'refusals record nothing',
    );
  });

  it('refuses a malformed invitee, the inviter itself and unknown codes', async () => {
    const { code } = (await invite()).body;
    const bad = await other.api.post(`/invitations/${code}/claim`, { inviteeUma: 'bob' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'INVALID_UMA_ADDRESS');
    assert.equal(bad.body.details.field, 'inviteeUma');
    const missing = await other.api.post(`/invitations/${code}/claim`, {});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.details.field, 'inviteeUma');
    const self = await p.api.post(`/invitations/${code}/claim`, { inviteeUma: inviter.umaAddress });
    assert.equal(self.status, 400);
    assert.equal(self.body.details.field, 'inviteeUma');
    for (const res of [
      await p.api.get('/invitations/nosuchcode'),
      await p.api.post('/invitations/nosuchcode/claim', { inviteeUma: '$a@b.com' }),
      await p.api.post('/invitations/nosuchcode/cancel'),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'INVITATION_NOT_FOUND');
    }
    assert.equal((await p.api.get(`/invitations/${code}`)).body.status, 'PENDING', 'refusals changed nothing');
  });

  it('cancels only for the creating platform and only while pending', async () => {
    const { code } = (await invite()).body;
    const foreign = await other.api.post(`/invitations/${code}/cancel`);
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.code, 'FORBIDDEN');
    const cancelled = await p.api.post(`/invitations/${code}/cancel`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'CANCELLED');
    const twice = await p.api.post(`/invitations/${code}/cancel`);
    assert.equal(twice.status, 400);
    assert.equal(twice.body.code, 'INVITATION_CANCELLED');
    const claim = await other.api.post(`/invitations/${code}/claim`, { inviteeUma: '$bob@other.example.com' });
    assert.equal(claim.status, 400);
    assert.equal(claim.body.code, 'INVITATION_CANCELLED');
  });

  const expiryJobOf = async (code: string) => (await jobFor(server, 'invitation.expire', code))?.status;

  it('a claimed or cancelled invitation calls off its expiry job in the same transaction', async () => {
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const claimed = (await invite({ expiresAt })).body;
    const cancelled = (await invite({ expiresAt })).body;
    const left = (await invite({ expiresAt })).body;
    for (const { code } of [claimed, cancelled, left])
      assert.equal(await expiryJobOf(code), 'pending', 'a new invitation waits for its expiry');
    const claim = await other.api.post(`/invitations/${claimed.code}/claim`, { inviteeUma: '$bob@other.example.com' });
    assert.equal(claim.status, 200);
    assert.equal((await p.api.post(`/invitations/${cancelled.code}/cancel`)).status, 200);
    assert.equal(await expiryJobOf(claimed.code), 'done', 'called off by the claim');
    assert.equal(await expiryJobOf(cancelled.code), 'done', 'called off by the cancel');
    // (That a job left alone expires its invitation is the next test's.)
    assert.equal(await expiryJobOf(left.code), 'pending', 'the one left alone still waits');
    assert.equal((await p.api.get(`/invitations/${claimed.code}`)).body.status, 'CLAIMED', 'the claimed one stays');
    assert.equal((await p.api.get(`/invitations/${cancelled.code}`)).body.status, 'CANCELLED');
  });

  it('expires with the sandbox clock: the job marks it, claims and cancels are refused', async () => {
    const soon = (await invite({ expiresAt: new Date(Date.now() + 120_000).toISOString() })).body;
    const later = (await invite({ expiresAt: new Date(Date.now() + 3600_000).toISOString() })).body;
    await p.api.post('/sandbox/clock/advance', { seconds: 180 });
    const row = await server.app.store.db
      .selectFrom('invitations')
      .select('status')
      .where('code', '=', soon.code)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'EXPIRED', 'the expiry job ran when the clock passed expiresAt');
    assert.equal((await other.api.get(`/invitations/${soon.code}`)).body.status, 'EXPIRED');
    assert.equal((await p.api.get(`/invitations/${later.code}`)).body.status, 'PENDING');
    const claim = await other.api.post(`/invitations/${soon.code}/claim`, { inviteeUma: '$bob@other.example.com' });
    assert.equal(claim.status, 400);
    assert.deepEqual([claim.body.code, claim.body.details.reason], ['EXPIRED', 'INVITATION_EXPIRED']);
    const cancel = await p.api.post(`/invitations/${soon.code}/cancel`);
    assert.equal(cancel.status, 400);
    assert.deepEqual([cancel.body.code, cancel.body.details.reason], ['EXPIRED', 'INVITATION_EXPIRED']);
  });

  it('reads a pending invitation past expiresAt as expired before its job has run', async () => {
    const { code } = (await invite({ expiresAt: new Date(Date.now() + 7200_000).toISOString() })).body;
    // Move only the offset, not the jobs, as if the worker had not got to it yet.
    await server.app.store.db
      .updateTable('platform_configs')
      .set((eb) => ({ clock_offset_ms: eb('clock_offset_ms', '+', BigInt(3 * 3600_000)) }))
      .where('platform_id', '=', p.platformId)
      .where('environment', '=', 'sandbox')
      .execute();
    assert.equal(
      (
        await server.app.store.db
          .selectFrom('invitations')
          .select('status')
          .where('code', '=', code)
          .executeTakeFirstOrThrow()
      ).status,
      'PENDING',
    );
    assert.equal((await p.api.get(`/invitations/${code}`)).body.status, 'EXPIRED');
    assert.equal(
      (await other.api.post(`/invitations/${code}/claim`, { inviteeUma: '$bob@other.example.com' })).body.code,
      'EXPIRED',
    );
  });

  it('records the claim event in the claim transaction: a failed commit leaves neither', async () => {
    const { code } = (await invite()).body;
    const { store } = server.app;
    const previous = (await eventsOf(server, p.platformId)).length;
    await assert.rejects(
      store.tx(async (trx) => {
        await trx.updateTable('invitations').set({ status: 'CLAIMED' }).where('code', '=', code).execute();
        await recordEvent(
          trx,
          { platformId: p.platformId, environment: 'sandbox' },
          { type: 'INVITATION.CLAIMED', objectId: code, data: {} },
          Date.now(),
        );
        throw new Error('crash previous commit');
      }),
    );
    assert.equal((await eventsOf(server, p.platformId)).length, previous);
    assert.equal((await p.api.get(`/invitations/${code}`)).body.status, 'PENDING');
  });

  it('checks permissions: reading needs VIEW, creating, claiming and cancelling TRANSACT', async () => {
    const viewer = await p.api.post('/tokens', { name: 'viewer', permissions: ['VIEW'] });
    const v = client(server.baseUrl, { tokenId: viewer.body.id, clientSecret: viewer.body.clientSecret });
    const { code } = (await invite()).body;
    assert.equal((await v.get(`/invitations/${code}`)).status, 200);
    assert.equal((await v.post('/invitations', { inviterUma: inviter.umaAddress })).status, 403);
    assert.equal((await v.post(`/invitations/${code}/claim`, { inviteeUma: '$x@y.com' })).status, 403);
    assert.equal((await v.post(`/invitations/${code}/cancel`)).status, 403);
  });
});
