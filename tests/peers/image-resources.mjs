// A stdio server with one resource of each kind the Resources tab renders differently, for
// tst_resourcespage and `make screenshot`:
//   demo://image/gradient.png   image/png blob, a 64×64 gradient made here (zlib, no files)
//   demo://notes/readme.txt     text/plain text
//   demo://config/settings.json application/json text
//   demo://data/random.bin      application/octet-stream blob (256 bytes 0..255)
// It declares resources.subscribe: a subscribed URI gets notifications/resources/updated every
// UPDATE_MS milliseconds (default 1000) until it is unsubscribed (tst_clisubscribe). With PAGE_SIZE=N,
// resources/list answers N resources a page with a nextCursor (tst_resourcespage).
//
//   node image-resources.mjs
import zlib from 'node:zlib';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  ListResourcesRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; ++k) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/// An RGB PNG, width × height, of a diagonal gradient with a ring in the middle.
export function gradientPng(width = 64, height = 64) {
  const rows = [];
  for (let y = 0; y < height; ++y) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0, then RGB
    for (let x = 0; x < width; ++x) {
      const d = Math.hypot(x - width / 2, y - height / 2);
      const ring = d > width * 0.28 && d < width * 0.36;
      row[1 + x * 3] = ring ? 255 : Math.round((x / (width - 1)) * 255);
      row[2 + x * 3] = ring ? 255 : Math.round((y / (height - 1)) * 200);
      row[3 + x * 3] = ring ? 255 : 160;
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const server = new McpServer({ name: 'image-resources', version: '1.0.0' },
  { capabilities: { resources: { subscribe: true, listChanged: true } } });

const updateMs = Number(process.env.UPDATE_MS ?? 1000);
const timers = new Map();
server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
  const { uri } = request.params;
  if (!timers.has(uri)) {
    timers.set(uri, setInterval(() => {
      server.server.notification({ method: 'notifications/resources/updated', params: { uri } });
    }, updateMs));
  }
  return {};
});
server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
  clearInterval(timers.get(request.params.uri));
  timers.delete(request.params.uri);
  return {};
});

const png = gradientPng().toString('base64');
server.registerResource('Gradient', 'demo://image/gradient.png',
  { mimeType: 'image/png', description: 'A 64×64 PNG gradient with a ring' },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: png }] }));

const readme = 'Notes\n=====\n\nThis server serves one resource of each kind:\n'
  + '- an image (image/png blob)\n- this text\n- a JSON document\n- a binary blob\n';
server.registerResource('Readme', 'demo://notes/readme.txt',
  { mimeType: 'text/plain', description: 'Plain text' },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: readme }] }));

const settings = { name: 'demo', version: 3, features: { images: true, json: true }, sizes: [16, 32, 64] };
server.registerResource('Settings', 'demo://config/settings.json',
  { mimeType: 'application/json', description: 'A JSON document' },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(settings) }] }));

const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('base64');
server.registerResource('Random bytes', 'demo://data/random.bin',
  { mimeType: 'application/octet-stream', description: '256 bytes, 0 to 255' },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/octet-stream', blob: bytes }] }));

const pageSize = Number(process.env.PAGE_SIZE ?? 0);
if (pageSize > 0) {
  // Replaces the SDK's one-page listing: the cursor is the index of the page's first resource.
  const all = [
    { uri: 'demo://image/gradient.png', name: 'Gradient', mimeType: 'image/png' },
    { uri: 'demo://notes/readme.txt', name: 'Readme', mimeType: 'text/plain' },
    { uri: 'demo://config/settings.json', name: 'Settings', mimeType: 'application/json' },
    { uri: 'demo://data/random.bin', name: 'Random bytes', mimeType: 'application/octet-stream' },
  ];
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + pageSize;
    return { resources: all.slice(start, next), ...(next < all.length ? { nextCursor: String(next) } : {}) };
  });
}

await server.connect(new StdioServerTransport());
