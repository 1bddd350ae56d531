// `payouts listen`: the sandbox's webhooks, received on this machine, like `stripe listen`. It points the
// workspace's webhook endpoint at a local receiver (the test API's, so both signatures are checked the
// same way), prints each delivery as it arrives, and on Ctrl-C puts the previous endpoint back.
import { systemClock } from '../../domain/clock.ts';
import type { WebhookPublicKeys } from '../../testing/signatures.ts';
import { startWebhookReceiver, type WebhookDelivery } from '../../testing/webhooks.ts';
import { API_OPTIONS, apiClientOf, expectOk, type ApiClient } from '../api-client.ts';
import { stringOption, type CliCommand } from '../command.ts';

/** One line for a person: time, type, event id, the object it is about, and whether it verified. */
function line(delivery: WebhookDelivery): string {
  const at = new Date(delivery.receivedAtMs).toISOString();
  const about = typeof delivery.data.id === 'string' ? `  ${delivery.data.id}` : '';
  const verdict = delivery.verified ? 'verified' : `REFUSED: ${delivery.problem}`;
  return `${at}  ${delivery.type || '?'}  ${delivery.id || '?'}${about}  ${verdict}\n`;
}

async function config(api: ApiClient, method: 'GET' | 'PATCH', body?: unknown) {
  const request = { method, path: '/config', body };
  return expectOk(request, await api.call(request)).body as WebhookPublicKeys & { webhookEndpoint?: string | null };
}

/** Resolves at the first SIGINT or SIGTERM. */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
  });
}

export const listenCommand: CliCommand = {
  path: ['listen'],
  summary:
    "Receive a running sandbox's webhooks on this machine: points the workspace's endpoint at a local receiver, " +
    'checks both signatures and prints each delivery until Ctrl-C, then puts the previous endpoint back',
  options: [
    ...API_OPTIONS,
    { flags: '--port <port>', description: 'the receiver port on 127.0.0.1 (default: a free one)' },
    { flags: '--json', description: 'one JSON line per delivery, with its body' },
  ],
  database: 'none',
  writes: false,
  async run(input) {
    const portText = stringOption(input.options, 'port') ?? '0';
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65535)
      return input.fail(`--port takes a port from 0 to 65535, not "${portText}"`);
    const api = await apiClientOf(input);
    const before = await config(api, 'GET');
    const receiver = await startWebhookReceiver(systemClock, port);
    const inbox = receiver.inbox(before);
    inbox.onDelivery = (delivery) => {
      if (!input.options.json) return void process.stdout.write(line(delivery));
      const { id, type, verified, problem, receivedAtMs, body } = delivery;
      process.stdout.write(`${JSON.stringify({ id, type, verified, problem, receivedAt: receivedAtMs, body })}\n`);
    };
    const stopped = stopSignal();
    try {
      await config(api, 'PATCH', { webhookEndpoint: inbox.url });
      process.stderr.write(`payouts: listening at ${inbox.url} for ${api.baseUrl}'s webhooks; Ctrl-C stops\n`);
      await stopped;
    } finally {
      // Closed first: a sandbox that stopped before this command cannot be told anything, and the command
      // must still end (it says so in one line) instead of listening on with nobody to stop it.
      await receiver.close();
      // Another endpoint set meanwhile (the dashboard, a test) is left alone: only ours is put back.
      const now = await config(api, 'GET');
      if (now.webhookEndpoint === inbox.url)
        await config(api, 'PATCH', { webhookEndpoint: before.webhookEndpoint ?? null });
    }
    process.stderr.write(`payouts: ${inbox.deliveries.length} verified, ${inbox.rejected.length} refused\n`);
    return 0;
  },
};
