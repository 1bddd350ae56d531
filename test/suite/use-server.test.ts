// useServer() (test/helpers/harness.ts), the start and stop most test files share: a server for the tests
// of one suite, whose handle fails by name when it is read too early and closes once however often asked.
import assert from 'node:assert/strict';
import { useServer } from '../helpers/harness.ts';
import { describe, it } from '../helpers/node-test.ts';

const healthz = (baseUrl: string) => fetch(`${baseUrl}/healthz`).then((res) => res.status);

describe('useServer: started for the tests of its suite', () => {
  const server = useServer({ RUN_WORKERS: 'false' });
  let early = '';
  try {
    early = server.baseUrl;
  } catch (err) {
    early = (err as Error).message;
  }

  it('is not there yet while the suite is being defined, and says so', () => {
    assert.match(early, /^useServer: not started yet/, 'a read before the before hook names the mistake');
  });

  it('answers over HTTP in a test, with the environment it was given', async () => {
    assert.equal(await healthz(server.baseUrl), 200, 'the server listens');
    assert.equal(server.config.runWorkers, false, 'RUN_WORKERS reached the config');
    const p = await server.platform('used');
    assert.equal((await p.api.get('/customers')).status, 200, 'a platform made through the handle works');
  });
});

describe('useServer: closed early by a test', () => {
  const server = useServer();

  it("closes once, however often asked; the suite's own close then does nothing more", async () => {
    const baseUrl = server.baseUrl;
    await Promise.all([server.close(), server.close()]);
    await server.close();
    await assert.rejects(healthz(baseUrl), 'nothing listens after the close');
  });
});
