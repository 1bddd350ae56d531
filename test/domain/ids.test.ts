import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { validate, version } from 'uuid';
import { newId } from '../../src/domain/ids.ts';

describe('ids', () => {
  it('are UUIDv7 that sort in the order they were made, many to a millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('Job'));
    const uuids = ids.map((id) => id.slice('Job:'.length));
    for (const uuid of uuids.slice(0, 50)) {
      assert.ok(validate(uuid), uuid);
      assert.equal(version(uuid), 7);
    }
    assert.equal(new Set(ids).size, ids.length, 'no two alike');
    const millis = new Set(uuids.map((u) => u.slice(0, 13)));
    assert.ok(millis.size < ids.length / 2, 'several ids were made in one millisecond');
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  });
});
