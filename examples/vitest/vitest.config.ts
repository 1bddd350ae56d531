// Vitest starts one sandbox for the whole run (global-setup.ts); each test makes a workspace of its own in it.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./global-setup.ts'],
    include: ['*.test.ts'],
    // A payout's webhooks arrive within a second or two; generous for a loaded CI machine.
    testTimeout: 30_000,
  },
});
