// CONNECTORS_FILE checked whole at start (one line naming the problem), the route a payment takes, and what
// a rail event does to a payment: pure rules, the same on both engines.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { routeFor } from '../../src/domain/connector-routes.ts';
import { railEffect } from '../../src/domain/rail-events.ts';
import { describe, it } from '../helpers/node-test.ts';
import { runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dirs.ts';
import { schemaDirForTests } from '../helpers/iso20022.ts';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const good = {
  connectors: { acme: { type: 'http', url: 'http://127.0.0.1:9100', secret: { env: 'ACME_SECRET' } } },
  routes: [
    { currency: 'USD', connector: 'acme' },
    { currency: 'EUR', platform: 'Platform:p1', connector: 'acme' },
  ],
};

describe('CONNECTORS_FILE', () => {
  const dir = tempDir('connectors-file');
  const write = (content: unknown) => {
    const path = join(dir, `${randomBytes(4).toString('hex')}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const load = (content: unknown, env: Record<string, string> = { ACME_SECRET: SECRET }) =>
    loadConfig({ DATA_DIR: dir, CONNECTORS_FILE: write(content), ...env });

  it('reads the connectors, their secrets by reference, and the routes', () => {
    const { connectors } = load(good);
    assert.deepEqual(Object.keys(connectors.byName), ['acme']);
    assert.equal(connectors.byName.acme?.key.length, 32, 'the secret read from its variable');
    assert.equal(connectors.byName.acme?.timeoutMs, 10_000, 'defaults filled in');
    const fromFile = join(dir, 'secret.txt');
    writeFileSync(fromFile, `${SECRET}\n`);
    const byFile = load({ ...good, connectors: { acme: { ...good.connectors.acme, secret: { file: fromFile } } } }, {});
    assert.equal(byFile.connectors.byName.acme?.key.length, 32, 'or from its file');
  });

  const bad: [string, unknown, Record<string, string> | undefined, RegExp][] = [
    ['not JSON', '{"connectors":', undefined, /CONNECTORS_FILE .*: .*JSON/],
    [
      'a route to no connector',
      { ...good, routes: [{ currency: 'USD', connector: 'nope' }] },
      undefined,
      /routes\[0\]\.connector names no connector/,
    ],
    [
      'an inline secret',
      { ...good, connectors: { acme: { ...good.connectors.acme, secret: SECRET } } },
      undefined,
      /connectors\.acme\.secret must be/,
    ],
    ['a secret variable not set', good, {}, /connectors\.acme\.secret: the variable ACME_SECRET is not set/],
    [
      'a secret that is not whsec_',
      good,
      { ACME_SECRET: 'hunter2' },
      /connectors\.acme\.secret is not a whsec_ secret/,
    ],
    [
      'a URL with credentials',
      { ...good, connectors: { acme: { ...good.connectors.acme, url: 'http://u:p@x' } } },
      undefined,
      /connectors\.acme\.url must be/,
    ],
    [
      'an unknown type',
      { ...good, connectors: { acme: { ...good.connectors.acme, type: 'ftp' } } },
      undefined,
      /connectors\.acme\.type must be "http"/,
    ],
    [
      'an unknown setting',
      { ...good, connectors: { acme: { ...good.connectors.acme, retries: 3 } } },
      undefined,
      /connectors\.acme\.retries is not a setting/,
    ],
    [
      'an unknown currency',
      { ...good, routes: [{ currency: 'XXX', connector: 'acme' }] },
      undefined,
      /routes\[0\]\.currency must be one of/,
    ],
    [
      'a route given twice',
      { ...good, routes: [good.routes[0], good.routes[0]] },
      undefined,
      /routes\[1\] repeats the route of USD \*/,
    ],
    [
      'a reserved name',
      { ...good, connectors: { manual: good.connectors.acme } },
      undefined,
      /connectors\.manual is not a usable name/,
    ],
  ];
  for (const [what, content, env, message] of bad) {
    it(`refuses ${what} in one line naming the problem, and never shows the secret`, () => {
      assert.throws(
        () => load(content, env),
        (err: unknown) =>
          err instanceof ConfigError &&
          message.test(err.message) &&
          !err.message.includes('\n') &&
          !err.message.includes(SECRET),
        what,
      );
    });
  }

  it('stops `payouts serve` with exit code 2 and that one line', async () => {
    const path = write({ ...good, routes: [{ currency: 'USD', connector: 'nope' }] });
    const run = await runCli(['serve'], {
      ...process.env,
      DATA_DIR: dir,
      DATABASE_URL: '',
      PORT: '0',
      CONNECTORS_FILE: path,
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^payouts: CONNECTORS_FILE .* routes\[0\]\.connector names no connector/);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  });
});

describe('CONNECTORS_FILE: an iso20022 bank-file connector', () => {
  const dir = tempDir('bank-connector-file');
  const bank = (over: Record<string, unknown> = {}) => ({
    type: 'iso20022',
    debtor: { name: 'Acme Payouts SA', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
    outbox: join(dir, 'outbox'),
    inbox: join(dir, 'inbox'),
    schemas: schemaDirForTests(),
    cutOffs: ['14:30', '09:00'],
    ...over,
  });
  const file = (connector: unknown) => ({
    connectors: { 'bank-eu': connector },
    routes: [{ currency: 'EUR', connector: 'bank-eu' }],
  });
  const load = (content: unknown, env: Record<string, string> = {}) => {
    const path = join(dir, `${randomBytes(4).toString('hex')}.json`);
    writeFileSync(path, JSON.stringify(content));
    return loadConfig({ DATA_DIR: dir, CONNECTORS_FILE: path, ...env });
  };

  it('reads the debtor, the folders (made at start), the variant and the cut-offs, sorted', () => {
    const { connectors } = load(file(bank()));
    assert.deepEqual(Object.keys(connectors.byName), [], 'no HTTP connector');
    const settings = connectors.banks['bank-eu'];
    assert.equal(settings?.variant, 'iso');
    assert.deepEqual(settings?.cutOffs, [
      { hour: 9, minute: 0 },
      { hour: 14, minute: 30 },
    ]);
    assert.equal(settings?.inboxPollMs, 5000);
    assert.deepEqual(connectors.routes, [{ currency: 'EUR', platform: undefined, connector: 'bank-eu' }]);
    assert.equal(load(file(bank({ variant: 'epc-sct' }))).connectors.banks['bank-eu']?.variant, 'epc-sct');
  });

  const noSchemas = join(dir, 'no-schemas');
  mkdirSync(noSchemas, { recursive: true });
  // A file where a folder should be: no one, root included, can make a folder in it.
  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, '');
  const debtor = bank().debtor;
  const bad: [string, unknown, Record<string, string> | undefined, RegExp][] = [
    ['no xmllint on PATH', bank(), { PATH: join(dir, 'empty-path') }, /connectors\.bank-eu: xmllint is not found/],
    [
      'a schema folder without the XSD',
      bank({ schemas: noSchemas }),
      undefined,
      /connectors\.bank-eu\.schemas: .* holds no readable pain\.001\.001\.09\.xsd/,
    ],
    [
      'a bad debtor IBAN (check digits)',
      bank({ debtor: { ...debtor, iban: 'DE88370400440532013000' } }),
      undefined,
      /connectors\.bank-eu\.debtor\.iban must be an IBAN/,
    ],
    [
      'a bad debtor BIC',
      bank({ debtor: { ...debtor, bic: 'COBA-DE' } }),
      undefined,
      /connectors\.bank-eu\.debtor\.bic must be a BIC/,
    ],
    ['a bad cut-off', bank({ cutOffs: ['9:00'] }), undefined, /connectors\.bank-eu\.cutOffs\[0\] must be a UTC time/],
    ['a cut-off at 24:00', bank({ cutOffs: ['24:00'] }), undefined, /cutOffs\[0\] must be a UTC time/],
    [
      'a relative outbox',
      bank({ outbox: 'outbox' }),
      undefined,
      /connectors\.bank-eu\.outbox must be an absolute path/,
    ],
    [
      'an outbox that cannot be created',
      bank({ outbox: join(aFile, 'outbox') }),
      undefined,
      /connectors\.bank-eu\.outbox: the folder .* cannot be created or written \(\w+\)/,
    ],
    [
      'an inbox that cannot be written',
      bank({ inbox: aFile }),
      undefined,
      /connectors\.bank-eu\.inbox: the folder .* cannot be created or written/,
    ],
    ['an unknown variant', bank({ variant: 'swiss' }), undefined, /connectors\.bank-eu\.variant must be "iso"/],
    ['an unknown setting', bank({ sftp: true }), undefined, /connectors\.bank-eu\.sftp is not a setting/],
  ];
  for (const [what, connector, env, message] of bad) {
    it(`refuses ${what} in one line naming the problem`, () => {
      assert.throws(
        () => load(file(connector), env),
        (err: unknown) => err instanceof ConfigError && message.test(err.message) && !err.message.includes('\n'),
        what,
      );
    });
  }

  it('stops `payouts serve` with exit code 2 and that one line', async () => {
    const path = join(dir, 'serve.json');
    writeFileSync(path, JSON.stringify(file(bank({ schemas: noSchemas }))));
    const run = await runCli(['serve'], {
      ...process.env,
      DATA_DIR: dir,
      DATABASE_URL: '',
      PORT: '0',
      CONNECTORS_FILE: path,
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^payouts: CONNECTORS_FILE .* connectors\.bank-eu\.schemas: .* holds no readable/);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  });
});

describe('routes and rail events', () => {
  it('a platform route first, then the currency, then manual', () => {
    assert.equal(routeFor(good.routes, 'USD', 'Platform:any'), 'acme');
    assert.equal(routeFor(good.routes, 'EUR', 'Platform:p1'), 'acme');
    assert.equal(routeFor(good.routes, 'EUR', 'Platform:p2'), 'manual', 'EUR is routed for p1 only');
    assert.equal(routeFor(good.routes, 'MXN', 'Platform:p1'), 'manual');
  });

  it('an event moves a payment once, from the state it names; a return comes after completion', () => {
    assert.equal(railEffect('TRANSFER_OUT', 'PROCESSING', 'COMPLETED'), 'COMPLETE');
    assert.equal(railEffect('TRANSFER_OUT', 'PROCESSING', 'FAILED'), 'FAIL');
    assert.equal(railEffect('TRANSFER_OUT', 'PROCESSING', 'RETURNED'), 'FAIL', 'returned before we heard it completed');
    assert.equal(railEffect('TRANSFER_OUT', 'PROCESSING', 'PENDING'), 'NONE');
    assert.equal(railEffect('QUOTE', 'COMPLETED', 'RETURNED'), 'RETURN');
    assert.equal(railEffect('TRANSFER_IN', 'COMPLETED', 'RETURNED'), 'NONE', 'a credited pull is for an operator');
    for (const late of ['COMPLETED', 'FAILED', 'PENDING'] as const) {
      assert.equal(railEffect('TRANSFER_OUT', 'COMPLETED', late), 'NONE', `${late} after COMPLETED`);
      assert.equal(railEffect('TRANSFER_OUT', 'FAILED', late), 'NONE', `${late} after FAILED`);
    }
  });
});
