import { API, basicAuth, type Response, type TestPlatform, type TestServer } from '../helpers/harness.ts';
import type { Credentials } from '../../src/services/platforms.ts';

/** Tiny files that start with each accepted format's signature; the server recognises content, not names. */
export const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from('1 0 obj << >> endobj\n%%EOF\n')]);
export const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9]);
export const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);

export interface FilePart {
  bytes: Buffer;
  name: string;
  type?: string;
}

/** Sends multipart/form-data with fetch's own encoder (FormData + Blob), as a browser or SDK would. */
export async function sendForm(
  server: TestServer,
  creds: Credentials,
  method: 'POST' | 'PUT',
  path: string,
  fields: Record<string, string>,
  file?: FilePart,
  headers: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file)
    form.append(
      'file',
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }),
      file.name,
    );
  const res = await fetch(server.baseUrl + API + path, {
    method,
    body: form,
    headers: { authorization: basicAuth(creds), accept: 'application/json', ...headers },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

export async function download(
  server: TestServer,
  creds: Credentials,
  documentId: string,
): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const res = await fetch(`${server.baseUrl}${API}/documents/${encodeURIComponent(documentId)}/file`, {
    headers: { authorization: basicAuth(creds) },
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

export const address = { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

export function individual(platformCustomerId: string, extra: Record<string, unknown> = {}) {
  return {
    customerType: 'INDIVIDUAL',
    platformCustomerId,
    fullName: 'Ada Lovelace',
    birthDate: '1990-02-28',
    nationality: 'GB',
    address,
    ...extra,
  };
}

export function business(
  platformCustomerId: string,
  registrationNumber = 'REG-100',
  extra: Record<string, unknown> = {},
) {
  return {
    customerType: 'BUSINESS',
    platformCustomerId,
    address,
    businessInfo: { legalName: 'Acme Ltd', country: 'US', registrationNumber },
    ...extra,
  };
}

export function owner(customerId: string, lastName = 'Smith', extra: Record<string, unknown> = {}) {
  return {
    customerId,
    roles: ['UBO', 'DIRECTOR'],
    ownershipPercentage: 51,
    personalInfo: {
      firstName: 'Jane',
      lastName,
      birthDate: '1978-06-15',
      nationality: 'US',
      address,
      idType: 'PASSPORT',
      identifier: 'X1234567',
      phoneNumber: '+14155550192',
    },
    ...extra,
  };
}

export async function createCustomer(p: TestPlatform, body: Record<string, unknown>, prod = false): Promise<any> {
  const res = await (prod ? p.prod : p.api).post('/customers', body);
  if (res.status !== 201) throw new Error(`customer create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The events recorded for one platform and environment, oldest first. */
export async function eventsOf(server: TestServer, platformId: string, environment = 'sandbox') {
  return server.app.store.db
    .selectFrom('events')
    .selectAll()
    .where('platform_id', '=', platformId)
    .where('environment', '=', environment as 'sandbox')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
