// A node:test reporter that prints nothing. The bench starts its servers through test/helpers/processes.ts,
// whose clean-up hook wakes node:test up in the bench's own process; without this, `npm run bench` would
// end its tables with an empty test report ("TAP version 13", "# tests 0", …). The bench runs no test.
import { Transform } from 'node:stream';

export default new Transform({
  writableObjectMode: true,
  transform(event, encoding, done) {
    done();
  },
});
