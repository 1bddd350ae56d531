/**
 * The stateless baseline of `npm run bench`: the service's body validation and a canned Transaction as the
 * answer (lib/baseline-http.ts). No database, no auth, no work: what serving POST /transfer-out costs before
 * the service does anything.
 */
import { baselineApp, CANNED_TRANSACTION, listenForBench, transferOutRoute } from './lib/baseline-http.ts';

const app = baselineApp();
transferOutRoute(app, async () => ({ status: 201, body: CANNED_TRANSACTION }));
await listenForBench(app);
