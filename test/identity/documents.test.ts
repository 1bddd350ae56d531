import { before, describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { useServer, type TestPlatform } from '../helpers/harness.ts';
import { MAX_DOCUMENT_BYTES } from '../../src/domain/documents.ts';
import { business, createCustomer, download, individual, JPEG, owner, PDF, PNG, sendForm } from './fixtures.ts';

/** Every file under DATA_DIR/documents, the temp folder included, as paths relative to it. */
function storedFiles(dataDir: string): string[] {
  const root = join(dataDir, 'documents');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('documents', () => {
  let p: TestPlatform;
  let other: TestPlatform;
  let person: any;
  let company: any;
  let bo: any;
  const server = useServer();
  before(async () => {
    p = await server.platform('docs');
    other = await server.platform('other');
    person = await createCustomer(p, individual('doc-person'));
    company = await createCustomer(p, business('doc-company'));
    bo = (await p.api.post('/beneficial-owners', owner(company.id))).body;
  });

  const upload = (fields: Record<string, string>, file?: { bytes: Buffer; name: string; type?: string }) =>
    sendForm(server, p.sandbox, 'POST', '/documents', fields, file);
  const fieldsFor = (holder: string, extra: Record<string, string> = {}) => ({
    documentType: 'PASSPORT',
    country: 'US',
    documentHolder: holder,
    ...extra,
  });
  const rowCount = async () =>
    Number(
      (
        await server.app.store.db
          .selectFrom('documents')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('accepts PDF, JPEG and PNG recognised by content, and stores each under its sha256', async () => {
    for (const [bytes, name, type] of [
      [PDF, 'passport.pdf', 'application/pdf'],
      [JPEG, 'front.jpg', 'image/jpeg'],
      [PNG, 'back.png', 'image/png'],
    ] as const) {
      const res = await upload(fieldsFor(person.id, { side: 'FRONT', documentNumber: 'P123' }), { bytes, name });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.match(res.body.id, /^Document:[0-9a-f-]{36}$/);
      assert.equal(res.body.documentHolder, person.id);
      assert.equal(res.body.documentType, 'PASSPORT');
      assert.equal(res.body.fileName, name);
      assert.equal(res.body.side, 'FRONT');
      assert.equal(res.body.documentNumber, 'P123');
      const got = await download(server, p.sandbox, res.body.id);
      assert.equal(got.status, 200);
      assert.equal(got.headers.get('content-type'), type);
      assert.ok(got.bytes.equals(bytes), 'download returns the same bytes');
      const hash = sha(bytes);
      assert.ok(
        existsSync(join(server.config.dataDir, 'documents', hash.slice(0, 2), hash)),
        "existsSync(join(server.config.dataDir, 'documents', hash.slice(0, 2), hash))",
      );
    }
  });

  it("accepts a beneficial owner as holder; refuses unknown and another platform's holders with 404", async () => {
    const ok = await upload(fieldsFor(bo.id, { documentType: 'DRIVERS_LICENSE' }), { bytes: PNG, name: 'dl.png' });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.documentHolder, bo.id);
    const theirs = await createCustomer(other, individual('theirs'));
    const previous = await rowCount();
    for (const holder of [
      'Customer:00000000-0000-7000-8000-000000000000',
      'BeneficialOwner:00000000-0000-7000-8000-000000000000',
      theirs.id,
      'Quote:abc',
    ]) {
      const res = await upload(fieldsFor(holder), { bytes: PDF, name: 'x.pdf' });
      assert.equal(res.status, 404, holder);
    }
    assert.equal(await rowCount(), previous);
  });

  it(
    'refuses a renamed text file, missing and bad fields with ' + '400 naming the field, leaving nothing behind',
    async () => {
      const filesBefore = storedFiles(server.config.dataDir);
      const rowsBefore = await rowCount();
      const cases: Array<[Record<string, string>, { bytes: Buffer; name: string; type?: string } | undefined, string]> =
        [
          [
            fieldsFor(person.id),
            { bytes: Buffer.from('just some text, honestly'), name: 'scan.pdf', type: 'application/pdf' },
            'file',
          ],
          [fieldsFor(person.id), undefined, 'file'],
          [fieldsFor(person.id), { bytes: Buffer.alloc(0), name: 'empty.pdf' }, 'file'],
          [{ country: 'US', documentHolder: person.id }, { bytes: PDF, name: 'a.pdf' }, 'documentType'],
          [fieldsFor(person.id, { documentType: 'DIPLOMA' }), { bytes: PDF, name: 'a.pdf' }, 'documentType'],
          [{ documentType: 'PASSPORT', documentHolder: person.id }, { bytes: PDF, name: 'a.pdf' }, 'country'],
          [fieldsFor(person.id, { country: 'XX' }), { bytes: PDF, name: 'a.pdf' }, 'country'],
          [{ documentType: 'PASSPORT', country: 'US' }, { bytes: PDF, name: 'a.pdf' }, 'documentHolder'],
          [fieldsFor(person.id, { side: 'LEFT' }), { bytes: PDF, name: 'a.pdf' }, 'side'],
          [fieldsFor(person.id, { colour: 'blue' }), { bytes: PDF, name: 'a.pdf' }, 'colour'],
        ];
      for (const [fields, file, field] of cases) {
        const res = await upload(fields, file);
        assert.equal(res.status, 400, `${field}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'INVALID_INPUT');
        assert.equal(res.body.details.field, field);
      }
      const json = await p.api.post('/documents', { documentType: 'PASSPORT' });
      assert.equal(json.status, 415);
      assert.equal(await rowCount(), rowsBefore);
      assert.deepEqual(storedFiles(server.config.dataDir), filesBefore, 'no stored file and no temp file is left');
    },
  );

  it('accepts exactly 10 MB and answers 413 to one byte more, keeping no row and no file', async () => {
    const exact = Buffer.alloc(MAX_DOCUMENT_BYTES, 0x20);
    PDF.copy(exact);
    const ok = await upload(fieldsFor(person.id, { documentType: 'BANK_STATEMENT' }), {
      bytes: exact,
      name: 'big.pdf',
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.ok(
      (await download(server, p.sandbox, ok.body.id)).bytes.equals(exact),
      '(await download(server, p.sandbox, ok.body.id)).bytes.equals(exact)',
    );

    const filesBefore = storedFiles(server.config.dataDir);
    const rowsBefore = await rowCount();
    const tooBig = Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 0x20);
    PDF.copy(tooBig);
    const res = await upload(fieldsFor(person.id), { bytes: tooBig, name: 'bigger.pdf' });
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(res.body.details.field, 'file');
    assert.equal(await rowCount(), rowsBefore);
    assert.deepEqual(storedFiles(server.config.dataDir), filesBefore);
  });

  it('lists by holder with pages, reads, replaces and deletes; shared content stays while referenced', async () => {
    const holder = await createCustomer(p, individual('lister'));
    const ids: string[] = [];
    for (const bytes of [PDF, PDF, JPEG]) ids.push((await upload(fieldsFor(holder.id), { bytes, name: 'f' })).body.id);
    const page1 = await p.api.get(`/documents?documentHolder=${encodeURIComponent(holder.id)}&limit=2`);
    assert.equal(page1.status, 200);
    assert.equal(page1.body.totalCount, 3);
    assert.equal(page1.body.hasMore, true);
    const page2 = await p.api.get(
      `/documents?documentHolder=${encodeURIComponent(holder.id)}&limit=2&cursor=${page1.body.nextCursor}`,
    );
    assert.deepEqual(
      [...page1.body.data, ...page2.body.data].map((d: any) => d.id),
      ids,
    );
    assert.equal(page2.body.nextCursor, undefined);
    assert.equal((await other.api.get(`/documents/${ids[0]}`)).status, 404, "another platform's document is 404");
    assert.equal(
      (await other.api.get(`/documents?documentHolder=${encodeURIComponent(holder.id)}`)).body.totalCount,
      0,
    );

    const replaced = await sendForm(
      server,
      p.sandbox,
      'PUT',
      `/documents/${ids[0]}`,
      { documentType: 'NATIONAL_ID', country: 'GB' },
      { bytes: PNG, name: 'id.png' },
    );
    assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
    assert.equal(replaced.body.documentType, 'NATIONAL_ID');
    assert.equal(replaced.body.documentHolder, holder.id);
    assert.equal(replaced.body.fileName, 'id.png');
    assert.ok(
      (await download(server, p.sandbox, ids[0]!)).bytes.equals(PNG),
      '(await download(server, p.sandbox, ids[0]!)).bytes.equals(PNG)',
    );
    const noHolder = await sendForm(
      server,
      p.sandbox,
      'PUT',
      `/documents/${ids[0]}`,
      { documentType: 'PASSPORT', country: 'GB', documentHolder: holder.id },
      { bytes: PNG, name: 'id.png' },
    );
    assert.equal(noHolder.status, 400);
    assert.equal(noHolder.body.details.field, 'documentHolder');

    const pdfPath = join(server.config.dataDir, 'documents', sha(PDF).slice(0, 2), sha(PDF));
    assert.equal((await p.api.delete(`/documents/${ids[1]}`)).status, 204);
    assert.equal((await p.api.get(`/documents/${ids[1]}`)).status, 404);
    assert.ok(existsSync(pdfPath), 'other rows still use the PDF content');
    const jpegPath = join(server.config.dataDir, 'documents', sha(JPEG).slice(0, 2), sha(JPEG));
    assert.equal((await p.api.delete(`/documents/${ids[2]}`)).status, 204);
    assert.ok(existsSync(jpegPath), 'the first test still references the JPEG content');
    assert.equal((await p.api.delete(`/documents/${ids[2]}`)).status, 404);
  });

  it('removes a content file when its last row goes', async () => {
    const unique = Buffer.concat([PDF, Buffer.from(`unique ${Date.now()}`)]);
    const path = join(server.config.dataDir, 'documents', sha(unique).slice(0, 2), sha(unique));
    const doc = (await upload(fieldsFor(person.id), { bytes: unique, name: 'u.pdf' })).body;
    assert.ok(existsSync(path), 'existsSync(path)');
    assert.equal((await p.api.delete(`/documents/${doc.id}`)).status, 204);
    assert.ok(!existsSync(path), '!existsSync(path)');
    assert.equal(
      await server.app.store.db
        .selectFrom('document_files')
        .select('sha256')
        .where('sha256', '=', sha(unique))
        .executeTakeFirst(),
      undefined,
    );
  });
});
