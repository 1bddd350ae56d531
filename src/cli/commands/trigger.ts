// `payouts trigger EVENT`: makes a webhook event happen in a running sandbox, through POST /sandbox/trigger.
// The event names are the API's own list (domain/sandbox-triggers.ts), so a typo is a usage error here and
// the server would refuse nothing this command lets through.
import { isTriggerEvent, TRIGGER_EVENTS } from '../../domain/sandbox-triggers.ts';
import { API_OPTIONS, apiClientOf, expectOk, type ApiRequest } from '../api-client.ts';
import type { CliCommand } from '../command.ts';

interface TriggerAnswer {
  event: string;
  eventId: string;
  objects: Record<string, string | string[]>;
  clockAdvancedMs: number;
}

/** The answer for a person: the event, then one line per object created. */
function summary(answer: TriggerAnswer): string {
  const names = Object.keys(answer.objects);
  const width = Math.max(0, ...names.map((name) => name.length));
  const lines = [`${answer.event} recorded: ${answer.eventId} (GET /webhook-events/${answer.eventId})`];
  for (const name of names) {
    const value = answer.objects[name];
    lines.push(`  ${name.padEnd(width)}  ${Array.isArray(value) ? value.join(', ') : value}`);
  }
  if (answer.clockAdvancedMs > 0)
    lines.push(`  the sandbox clock moved ${answer.clockAdvancedMs / 1000} s forward for the expiry`);
  return `${lines.join('\n')}\n`;
}

export const triggerCommand: CliCommand = {
  path: ['trigger'],
  args: '<event>',
  summary:
    'Make a webhook event happen in a running sandbox (OUTGOING_PAYMENT.FAILED, INVITATION.CLAIMED, TEST, …): ' +
    'runs the flow that records it and names what it created',
  options: [...API_OPTIONS, { flags: '--json', description: 'print the answer as JSON' }],
  database: 'none',
  writes: false,
  async run(input) {
    const given = input.args[0] ?? '';
    // Lenient on case: `payouts trigger outgoing_payment.failed` means the same event.
    const event = given.toUpperCase();
    if (!isTriggerEvent(event)) return input.fail(`unknown event "${given}"; one of: ${TRIGGER_EVENTS.join(', ')}`);
    const api = await apiClientOf(input);
    const request: ApiRequest = { method: 'POST', path: '/sandbox/trigger', body: { event } };
    const answer = expectOk(request, await api.call(request)).body as TriggerAnswer;
    process.stdout.write(input.options.json ? `${JSON.stringify(answer, null, 2)}\n` : summary(answer));
    return 0;
  },
};
