import type { Http } from '../http.ts';
import type { Services } from '../../services/index.ts';
import { AppError } from '../../domain/errors.ts';
import { errors } from '../../wire/common.ts';
import { SandboxClock, SandboxClockAdvance } from '../../wire/sandbox.ts';

const DOCS = {
  get: {
    summary: "Read this platform's sandbox clock",
    description: "The sandbox's time (real time plus the offset); every timestamp the sandbox shows uses it.",
  },
  advance: {
    summary: 'Move the sandbox clock forward and run every delayed outcome, expiry and retry that became due',
    description:
      'Sandbox only. Give milliseconds or seconds (exactly one). Quotes expire, rail outcomes settle and ' +
      'webhook retries run as if that time had passed; the clock never goes back.',
  },
};

export function sandboxClockRoutes(api: Http, { sandboxClock }: Services): void {
  const tags = ['Sandbox'];
  api.get('/sandbox/clock', {
    config: { permission: 'VIEW', sandboxOnly: true },
    schema: {
      tags,
      ...DOCS.get,
      response: { 200: SandboxClock, ...errors(401, 403) },
    },
    handler: async (req) => sandboxClock.get(req.principal),
  });
  api.post('/sandbox/clock/advance', {
    config: { permission: 'TRANSACT', sandboxOnly: true },
    schema: {
      tags,
      ...DOCS.advance,
      body: SandboxClockAdvance,
      response: { 200: SandboxClock, ...errors(400, 401, 403) },
    },
    handler: async (req) => {
      const { milliseconds, seconds } = req.body ?? {};
      if ((milliseconds === undefined) === (seconds === undefined)) {
        throw new AppError('INVALID_INPUT', 'give exactly one of milliseconds or seconds', { field: 'milliseconds' });
      }
      return sandboxClock.advance(req.principal, milliseconds ?? seconds! * 1000);
    },
  });
}
