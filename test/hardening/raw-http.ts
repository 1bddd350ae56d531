// Requests that fetch refuses to send (bad request lines, bytes that are not UTF-8, hand-made multipart)
// go over a plain socket; the answer is parsed just enough to read its status and JSON body.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: string;
  body: any;
  text: string;
}

/** Sends `request` as is and reads until the server closes or a whole Content-Length body has arrived. */
export function rawRequest(port: number, request: Buffer | string, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString('latin1')}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const headers = split < 0 ? all : all.slice(0, split);
      const text = split < 0 ? '' : all.slice(split + 4);
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // left as text: the assertion on it will say what came back
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0), headers, body, text });
    };
    const complete = () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return false;
      const length = /content-length: *(\d+)/i.exec(all.subarray(0, split).toString('latin1'))?.[1];
      return length !== undefined && all.length - split - 4 >= Number(length);
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (complete()) {
        socket.destroy();
        finish();
      }
    });
    socket.on('error', () => finish());
    socket.on('close', () => finish());
    socket.write(request);
  });
}

/** A request with a body, Content-Length set, the connection closed after the answer. */
export function rawWithBody(method: string, path: string, headers: Record<string, string>, body: Buffer | string) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const head = Object.entries({ host: 'localhost', connection: 'close', ...headers, 'content-length': bytes.length })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  return Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\n${head}\r\n\r\n`, 'latin1'), bytes]);
}
