// Rotating SECRET_KEY without downtime. SECRET_KEY only seals the data key (store/data-key.ts), so a
// rotation re-seals one value: `--new-key-file` adds a seal under the new key (both keys now work),
// the operator restarts every process with the new key, and `--finish` (run with the new key) drops the
// old seal. `--abort` (run with the old key) drops the new seal instead.
import { readFileSync } from 'node:fs';
import { systemClock } from '../../domain/clock.ts';
import { stringOption, type CliCommand, type CliInput } from '../command.ts';
import { printJson, withServices } from '../services.ts';

const KEY_FORMAT = 'hex (64 characters or more) or base64 of at least 32 bytes, as from `openssl rand -hex 32`';

/** The new key from --new-key-file or NEW_SECRET_KEY; a usage error when it is missing or malformed. */
async function newKeyOf(options: Record<string, unknown>, fail: CliInput['fail']): Promise<Buffer> {
  const file = stringOption(options, 'newKeyFile');
  let raw: string;
  let source: string;
  if (file !== undefined) {
    source = `--new-key-file ${file}`;
    try {
      raw = readFileSync(file, 'utf8').trim();
    } catch (err) {
      return fail(`${source} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  } else {
    source = 'NEW_SECRET_KEY';
    raw = process.env.NEW_SECRET_KEY?.trim() ?? '';
  }
  const { decodeSecretKey } = await import('../../config.ts');
  const key = raw === '' ? undefined : decodeSecretKey(raw);
  if (!key || key.length < 32) return fail(`${source} does not hold a key: it must be ${KEY_FORMAT}`);
  return key;
}

/** Which step was asked for: exactly one of start (a new key given), --finish, --abort. */
function stepOf(options: Record<string, unknown>, fail: CliInput['fail']): 'start' | 'finish' | 'abort' {
  const starts = options.newKeyFile !== undefined || (process.env.NEW_SECRET_KEY ?? '') !== '';
  const asked = [
    options.newKeyFile !== undefined && 'start',
    options.finish === true && 'finish',
    options.abort,
  ].filter(Boolean).length;
  if (asked > 1) fail('give one of --new-key-file, --finish and --abort');
  if (options.finish === true) return 'finish';
  if (options.abort === true) return 'abort';
  if (!starts) fail('give --new-key-file FILE (or set NEW_SECRET_KEY) to start a rotation, or --finish or --abort');
  return 'start';
}

async function rotate({ config, options, fail }: CliInput): Promise<number> {
  const step = stepOf(options, fail);
  const newKey = step === 'start' ? await newKeyOf(options, fail) : undefined;
  // A rotation that cannot go on (KeyRotationError) is the operator's to fix: main.ts prints its message.
  const [{ addKey, keepOnlyKey }, { keyCheckValue, keyFingerprint }] = await Promise.all([
    import('../../store/data-key.ts'),
    import('../../store/key-check.ts'),
  ]);
  return withServices(config, async ({ store }) => {
    if (newKey) {
      const added = await addKey(store, config.secretKey, newKey, systemClock.nowMs());
      const [from, to] = [keyCheckValue(config.secretKey), keyCheckValue(newKey)].map(keyFingerprint);
      process.stdout.write(
        `${added ? 'added' : 'already added'}: the database accepts the old key (${from}) and the new key ` +
          `(${to}).\nNext: restart every payouts process with SECRET_KEY set to the new key, then run ` +
          '`payouts keys rotate --finish` with it.\n',
      );
      return 0;
    }
    const end = step === 'finish' ? 'finish' : 'abort';
    const dropped = await keepOnlyKey(store, config.secretKey, end);
    const kept = keyFingerprint(keyCheckValue(config.secretKey));
    process.stdout.write(
      dropped === 0
        ? `no rotation in progress: the database accepts only this key (${kept})\n`
        : `${end === 'finish' ? 'finished' : 'aborted'}: the database accepts only this key (${kept}); ` +
            'a process started with the other key now refuses to start\n',
    );
    return 0;
  });
}

export const keyCommands: CliCommand[] = [
  {
    path: ['keys', 'rotate'],
    summary:
      'rotate SECRET_KEY without downtime: --new-key-file FILE (or NEW_SECRET_KEY) makes both keys work, ' +
      '--finish (run with the new key) drops the old one, --abort (run with the old key) drops the new one',
    options: [
      { flags: '--new-key-file <file>', description: `start: the file holding the new key, ${KEY_FORMAT}` },
      { flags: '--finish', description: 'end the rotation, keeping only the key this runs with (the new one)' },
      { flags: '--abort', description: 'cancel the rotation, keeping only the key this runs with (the old one)' },
    ],
    database: 'uses',
    writes: true,
    run: rotate,
  },
  {
    path: ['keys', 'status'],
    summary: 'the server keys the database accepts (two during a rotation), by fingerprint',
    options: [{ flags: '--json', description: 'print one JSON line' }],
    database: 'uses',
    writes: false,
    async run({ config, options }) {
      const { acceptedKeys } = await import('../../store/data-key.ts');
      const keys = await withServices(config, ({ store }) => acceptedKeys(store, config.secretKey));
      if (options.json) printJson({ rotating: keys.length > 1, keys }, true);
      else {
        for (const k of keys)
          process.stdout.write(`${k.fingerprint}\tadded ${k.addedAt}${k.current ? '\tthis SECRET_KEY' : ''}\n`);
        if (keys.length > 1) process.stdout.write('a rotation is in progress (see `payouts keys rotate --help`)\n');
      }
      return 0;
    },
  },
];
