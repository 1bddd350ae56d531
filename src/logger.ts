// The service's log: JSON lines for a collector, one readable line per entry on a terminal, and credentials
// censored wherever they appear.
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.ts';

/** Secret-bearing properties, wherever they appear in a logged object up to three levels down. */
const SECRET_KEYS = ['clientSecret', 'secret', 'privateKey', 'password', 'signingSecret'];
/** Header records are logged by Fastify (`req.headers`) and by plugins at trace (multipart's `busboyOptions`). */
const SECRET_HEADERS = ['authorization', 'cookie', '["set-cookie"]', '["proxy-authorization"]'];

/** Every path pino must censor: credentials never reach a log, at any level. */
export const REDACTED_PATHS = [
  ...['', '*.', '*.*.'].flatMap((depth) => SECRET_KEYS.map((key) => `${depth}${key}`)),
  ...['headers', '*.headers', '*.*.headers'].flatMap((at) =>
    SECRET_HEADERS.map((h) => (h.startsWith('[') ? `${at}${h}` : `${at}.${h}`)),
  ),
  // Node's HTTP parser attaches the unparsed bytes, headers and all, to a client error.
  'rawPacket',
  '*.rawPacket',
];

/**
 * JSON lines for a log collector; one readable line per entry when a person watches the terminal. The
 * choice is stdout's: a service manager, a pipe or a file gets JSON.
 */
export function makeLogger(config: Config, terminal = process.stdout.isTTY): Logger {
  if (config.logStream === 'stderr') {
    // stdout is someone else's (the MCP protocol): JSON lines on stderr, which an MCP client keeps as the log.
    return pino(
      { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
      pino.destination(2),
    );
  }
  const options = {
    level: config.logLevel,
    // Credentials never reach the logs, whatever a serializer or a plugin later decides to include.
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (!terminal) return pino(options);
  // In-process and synchronous (no worker thread): a line is on the terminal before the next one is made.
  const stream = pretty({ singleLine: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return pino(options, stream);
}
