/**
 * Walks every operation of the OpenAPI document with hostile input (NUL, other control characters, over-long
 * strings, wrong types, deep nesting) in each body field, query parameter and path parameter, as an administrator
 * with a unit of its own, and asserts that none answers 5xx. A new endpoint is walked without a change here.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../support/app';

interface JsonSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  default?: unknown;
}
interface Operation {
  parameters?: Array<{ name: string; in: 'path' | 'query' | 'header'; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

const deep = (levels: number): unknown => (levels === 0 ? 'x' : [deep(levels - 1)]);
/** What each field, parameter and whole body is given in turn. */
const HOSTILE: Array<{ name: string; value: unknown }> = [
  { name: 'NUL', value: 'a\u0000b' },
  { name: 'control characters', value: '\u0001\u0007\u001b[2J\u007f' },
  { name: 'over-long string', value: 'x'.repeat(200_000) },
  { name: 'wrong type (object)', value: { nested: true } },
  { name: 'wrong type (number)', value: 1e308 },
  { name: 'deep nesting', value: deep(40) },
];
const HOSTILE_PATH = ['%00', '%01x', 'x'.repeat(5000), '-1', '99999999999999999999', '1.5', 'null'];
/** Operations that end the caller's own session would stop the walk; they are walked last. */
const WALK_LAST = new Set(['POST /api/logout', 'POST /api/user/update']);

let app: TestApp;
let token: string;
let unitId: number;
let document: { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, JsonSchema> } };

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  await app.services.units.addStock({ imeis: ['356307042489999'], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
  const [unit] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name) values (${account.accountId}, '356307042489999', 'Fuzz unit') returning id`);
  unitId = unit!.id;
  token = await app.login(account);
  document = (await (await app.api.handle(new Request('http://localhost/api/docs/json'))).json()) as typeof document;
}, 60_000);
afterAll(async () => {
  await app?.close();
});

function resolve(schema: JsonSchema | undefined): JsonSchema {
  if (!schema) return {};
  if (schema.$ref) return resolve(document.components?.schemas?.[schema.$ref.split('/').pop()!]);
  return schema;
}

/** A plausible value for a schema, so that one hostile field is what the endpoint sees wrong. */
function plausible(input: JsonSchema | undefined, depth = 0): unknown {
  const schema = resolve(input);
  if (depth > 6) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alternative = schema.anyOf ?? schema.oneOf;
  if (alternative?.length) return plausible(alternative[0], depth + 1);
  if (schema.allOf?.length) return Object.assign({}, ...schema.allOf.map((part) => plausible(part, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) value[key] = plausible(property, depth + 1);
      return value;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => plausible(schema.items, depth + 1));
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, (schema.exclusiveMinimum ?? 0) + 1);
    case 'boolean':
      return false;
    case 'string':
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format === 'date-time') return '2026-03-01T10:00:00Z';
      if (schema.format === 'date') return '2026-03-01';
      return 'a'.repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return 'x';
  }
}

function pathWith(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? String(unitId));
}

async function send(method: string, path: string, query: Record<string, string>, body: unknown, contentType = 'application/json') {
  const search = new URLSearchParams(query).toString();
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-lang': 'en' };
  let payload: BodyInit | undefined;
  if (body !== undefined) {
    if (contentType === 'multipart/form-data') {
      const form = new FormData();
      for (const [key, value] of Object.entries(body as Record<string, unknown>)) form.append(key, typeof value === 'string' ? value : JSON.stringify(value));
      payload = form;
    } else {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
  }
  const response = await app.api.handle(new Request(`http://localhost${path}${search ? `?${search}` : ''}`, { method, headers, body: payload }));
  await response.arrayBuffer();
  return response.status;
}

test('no operation answers 5xx to hostile input', async () => {
  const operations = Object.entries(document.paths)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })))
    .sort((a, b) => Number(WALK_LAST.has(`${a.method} ${a.path}`)) - Number(WALK_LAST.has(`${b.method} ${b.path}`)));
  expect(operations.length).toBeGreaterThan(50);
  const failures: string[] = [];
  let requests = 0;
  for (const { path, method, operation } of operations) {
    const parameters = operation.parameters ?? [];
    const query = Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, String(plausible(p.schema))]));
    const [contentType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
    const body = media ? plausible(media.schema) : undefined;
    const attempt = async (label: string, target: string, q: Record<string, string>, b: unknown) => {
      requests++;
      const status = await send(method, target, q, b, contentType);
      if (status >= 500) failures.push(`${method} ${path} ${label}: ${status}`);
    };
    for (const parameter of parameters.filter((p) => p.in === 'path')) {
      for (const value of HOSTILE_PATH) await attempt(`path ${parameter.name}=${value.slice(0, 12)}`, pathWith(path, { [parameter.name]: value }), query, body);
    }
    const target = pathWith(path, {});
    for (const parameter of parameters.filter((p) => p.in === 'query')) {
      for (const { name, value } of HOSTILE) {
        await attempt(`query ${parameter.name} ${name}`, target, { ...query, [parameter.name]: typeof value === 'string' ? value : JSON.stringify(value) }, body);
      }
    }
    if (body === undefined) continue;
    for (const { name, value } of HOSTILE) await attempt(`body ${name}`, target, query, value);
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      for (const key of Object.keys(body)) {
        for (const { name, value } of HOSTILE) await attempt(`body.${key} ${name}`, target, query, { ...body, [key]: value });
      }
    }
  }
  expect(failures).toEqual([]);
  expect(requests).toBeGreaterThan(500);
}, 600_000);
