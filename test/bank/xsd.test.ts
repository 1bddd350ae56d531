// Bank files held to their official schemas (xmllint --stream), and the ids they carry: pure, no database.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newId } from '../../src/domain/ids.ts';
import { bankFileIdOfMsgId, endToEndIdOf, msgIdOf, transactionIdOfEndToEnd } from '../../src/rails/iso20022/ids.ts';
import { describeErrors, schemaPathOf, validateFile } from '../../src/rails/iso20022/xsd.ts';
import { describe, it } from '../helpers/node-test.ts';
import { schemaDirForTests } from '../helpers/iso20022.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const schemas = schemaDirForTests();
const sample = readFileSync(join(schemas, 'samples', 'pain.001.001.09.sample.xml'), 'utf8');

describe('validateFile', () => {
  const dir = tempDir('xsd');
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('a valid file validates against both pain.001 schemas', async () => {
    const path = write('good.xml', sample);
    assert.deepEqual(await validateFile(schemaPathOf({ schemas, variant: 'iso' }, 'pain.001'), path), { ok: true });
    assert.deepEqual(await validateFile(schemaPathOf({ schemas, variant: 'epc-sct' }, 'pain.001'), path), { ok: true });
  });

  it('an invalid one answers each error with its line, the namespace left out', async () => {
    const path = write('bad.xml', sample.replace('<PmtMtd>TRF', '<PmtMtd>XXX'));
    const result = await validateFile(join(schemas, 'pain.001.001.09.xsd'), path);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.errors.length, 1, JSON.stringify(result.errors));
    assert.equal(result.errors[0]?.line, 15);
    assert.match(result.errors[0]?.message ?? '', /Element 'PmtMtd': \[facet 'enumeration'\] The value 'XXX'/);
    assert.match(describeErrors(result.errors), /^line 15: .*PmtMtd/);
  });

  it('a file that is not well-formed, or of another namespace, is not valid', async () => {
    const broken = await validateFile(join(schemas, 'pain.001.001.09.xsd'), write('broken.xml', sample.slice(0, 400)));
    assert.equal(broken.ok, false);
    const other = sample.replace('pain.001.001.09"', 'pain.001.001.03"');
    const wrong = await validateFile(join(schemas, 'pain.001.001.09.xsd'), write('ns.xml', other));
    assert.equal(wrong.ok, false);
    if (!wrong.ok) assert.match(describeErrors(wrong.errors), /No matching global declaration/);
  });

  it('a schema that does not exist fails every file', async () => {
    const result = await validateFile(join(dir, 'nope.xsd'), write('any.xml', sample));
    assert.equal(result.ok, false);
  });
});

describe('bank file ids', () => {
  it('an EndToEndId is the transaction uuid in 32 hex digits, and maps back', () => {
    const id = newId('Transaction');
    const e2e = endToEndIdOf(id);
    assert.match(e2e, /^[0-9a-f]{32}$/);
    assert.equal(transactionIdOfEndToEnd(e2e), id);
    assert.equal(transactionIdOfEndToEnd(e2e.toUpperCase()), id, 'a bank may upper-case it');
    assert.equal(transactionIdOfEndToEnd('E2E-0001'), undefined, 'never one of ours');
    assert.throws(() => endToEndIdOf('Quote:0190'));
  });

  it('a MsgId is P and the file uuid (at most 35 characters), and maps back', () => {
    const id = newId('BankFile');
    const msgId = msgIdOf(id);
    assert.ok(msgId.length <= 35, msgId);
    assert.equal(bankFileIdOfMsgId(msgId), id);
    assert.equal(bankFileIdOfMsgId('MSG-20240115-0001'), undefined);
  });
});
