import { expect, test } from 'bun:test';
import { ConfigError, loadConfig } from './config';

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('the configuration was accepted');
}

test('a bad setting is named with what it must be, in plain words, and its value when it is no secret', () => {
  const message = problems({ PORT: 'eighty', DEMO: 'maybe', DEMO_VEHICLES: '1.5', TELTONIKA_PORT: '70000', DEMO_EMAIL: 'nope', MAIL_FROM: 'ab' });
  expect(message.split('\n')).toEqual([
    'The configuration has 6 problems; the portal did not start:',
    '  - PORT must be a number (it is "eighty"); see "Configuration" in README.md.',
    '  - DEMO must be one of 0, 1, true, false, yes, no, on, off (it is "maybe"); see "Configuration" in README.md.',
    '  - DEMO_EMAIL must be an e-mail address (it is "nope"); see "Configuration" in README.md.',
    '  - DEMO_VEHICLES must be a whole number (it is "1.5"); see "Configuration" in README.md.',
    '  - MAIL_FROM must be at least 3 characters long (it is "ab"); see "Configuration" in README.md.',
    '  - TELTONIKA_PORT must be at most 65535 (it is "70000"); see "Configuration" in README.md.',
  ]);
  // Never the message keys of the API's validation.
  expect(message).not.toContain('validation.');
});

test('secrets, passwords and URLs that may hold one are never echoed', () => {
  const secret = 'my-very-secret-but-too-short';
  const message = problems({ AUTH_SECRET: secret, DEMO_PASSWORD: 'pw-x', DATABASE_URL: 'hunter2-not-a-url', SMTP_URL: 'smtp//user:pa55word' });
  for (const value of [secret, 'pw-x', 'hunter2', 'pa55word']) expect({ value, echoed: message.includes(value) }).toEqual({ value, echoed: false });
  expect(message).toContain('AUTH_SECRET must be at least 32 characters long (its value is not shown)');
  expect(message).toContain('DEMO_PASSWORD must be at least 8 characters long (its value is not shown)');
  expect(message).toContain('DATABASE_URL must be a URL such as https://host.example or postgres://user@host:5432/name (its value is not shown)');
  expect(message).toContain('SMTP_URL must be a URL');
  expect(message.split('\n')[0]).toBe('The configuration has 4 problems; the portal did not start:');
});

test('one problem reads as one; a long value is cut', () => {
  const message = problems({ LOG_LEVEL: 'x'.repeat(200) });
  expect(message.split('\n')[0]).toBe('The configuration has a problem; the portal did not start:');
  expect(message).toContain(`LOG_LEVEL must be one of debug, info, warn, error, silent (it is "${'x'.repeat(80)}…")`);
});

test('settings with a pattern say what the pattern asks for; the Twilio trio says what is missing', () => {
  const sid = 'AB0123456789abcdef0123456789abcdef';
  const message = problems({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 'token-0123456789abcdef', TWILIO_FROM: '+0123', VAPID_SUBJECT: 'admin@example.com' });
  expect(message.split('\n')).toEqual([
    'The configuration has 3 problems; the portal did not start:',
    '  - TWILIO_ACCOUNT_SID must be a Twilio account SID: AC followed by 32 hexadecimal digits (its value is not shown); see "Configuration" in README.md.',
    '  - TWILIO_FROM must be a phone number in international form such as +46701234567, or a sender name of up to 11 letters and digits (it is "+0123"); see "Configuration" in README.md.',
    '  - VAPID_SUBJECT must be a mailto: address or an https:// URL (it is "admin@example.com"); see "Configuration" in README.md.',
  ]);
  expect(message).not.toContain(sid);
  expect(message).not.toContain('regex');

  const partial = problems({ TWILIO_FROM: '+46701234567' });
  expect(partial.split('\n')).toEqual([
    'The configuration has 2 problems; the portal did not start:',
    '  - TWILIO_ACCOUNT_SID is not set, but SMS through Twilio needs it with TWILIO_FROM (set all three, or none); see "Configuration" in README.md.',
    '  - TWILIO_AUTH_TOKEN is not set, but SMS through Twilio needs it with TWILIO_FROM (set all three, or none); see "Configuration" in README.md.',
  ]);
});

test('the process started with a bad secret prints plain words and exits without echoing it', async () => {
  const secret = 'short-but-secret-value-x7';
  const child = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: `${import.meta.dir}/../..`,
    env: { ...process.env, AUTH_SECRET: secret, PORT: 'eighty', DATABASE_URL: '', DATA_DIR: '/nonexistent-never-opened' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  expect(code).toBe(1);
  expect(stderr.split('\n').filter(Boolean)).toEqual([
    'The configuration has 2 problems; the portal did not start:',
    '  - PORT must be a number (it is "eighty"); see "Configuration" in README.md.',
    '  - AUTH_SECRET must be at least 32 characters long (its value is not shown); see "Configuration" in README.md.',
  ]);
  expect(`${stdout}${stderr}`).not.toContain(secret);
  expect(stderr).not.toContain('validation.');
}, 30_000);
