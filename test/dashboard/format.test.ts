// The quote countdown's text: what the server writes at load time (the page's script ticks the same shape).
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.ts';
import { countdown, remaining } from '../../src/dashboard/format.ts';

describe('dashboard countdown', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('counts minutes and seconds down to expiry, hours past an hour, then says expired', () => {
    assert.equal(remaining(now + 245_000, now), '4:05', 'four minutes five seconds');
    assert.equal(remaining(now + 3_723_000, now), '1:02:03', 'past an hour');
    assert.equal(remaining(now + 999, now), 'expired', 'under a second left is over');
    assert.equal(remaining(now - 1, now), 'expired', 'past it');
  });
  it('writes an element the script can tick, escaped, and nothing for no time', () => {
    const html = countdown(new Date(now + 60_000).toISOString(), now);
    assert.equal(html, '<span class="countdown" data-until="2026-01-01T12:01:00.000Z">1:00 left</span>', 'the span');
    assert.equal(countdown(undefined, now), '', 'no expiry, no countdown');
    assert.equal(countdown('not a time', now), '', 'an unreadable one neither');
  });
});
