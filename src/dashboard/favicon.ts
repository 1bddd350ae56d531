// The service's icon: a white "P" on the dashboard's navy, drawn here as a 32×32 PNG so that no binary
// file sits in the repository and every page (the dashboard, the API reference, a browser's own
// /favicon.ico request) shows the same one.
import { deflateSync } from 'node:zlib';

const SIZE = 32;
const NAVY = [0x14, 0x21, 0x3d];
const WHITE = [0xff, 0xff, 0xff];
/** The letter on a 5×7 grid, each cell drawn 4 px square. */
const LETTER = ['11110', '10001', '10001', '11110', '10000', '10000', '10000'];
const CELL = 4;
const LEFT = (SIZE - 5 * CELL) / 2;
const TOP = (SIZE - 7 * CELL) / 2;
/** The square's rounded corners, in px. */
const RADIUS = 6;

function inLetter(x: number, y: number): boolean {
  const [col, row] = [Math.floor((x - LEFT) / CELL), Math.floor((y - TOP) / CELL)];
  return row >= 0 && row < LETTER.length && col >= 0 && col < 5 && LETTER[row]?.[col] === '1';
}

function outsideCorner(x: number, y: number): boolean {
  const dx = Math.max(RADIUS - x, x - (SIZE - 1 - RADIUS), 0);
  const dy = Math.max(RADIUS - y, y - (SIZE - 1 - RADIUS), 0);
  return dx * dx + dy * dy > RADIUS * RADIUS;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(): Buffer {
  const rows: number[] = [];
  for (let y = 0; y < SIZE; y++) {
    rows.push(0); // no filter
    for (let x = 0; x < SIZE; x++) {
      const alpha = outsideCorner(x, y) ? 0 : 0xff;
      rows.push(...(inLetter(x, y) ? WHITE : NAVY), alpha);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An .ico file holding the PNG: what a browser asks for at /favicon.ico. */
function ico(image: Buffer): Buffer {
  const head = Buffer.alloc(22);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2); // an icon
  head.writeUInt16LE(1, 4); // one image
  head.set([SIZE, SIZE, 0, 0], 6);
  head.writeUInt16LE(1, 10); // colour planes
  head.writeUInt16LE(32, 12); // bits per pixel
  head.writeUInt32LE(image.length, 14);
  head.writeUInt32LE(head.length, 18);
  return Buffer.concat([head, image]);
}

export const FAVICON_PNG = png();
export const FAVICON_ICO = ico(FAVICON_PNG);
