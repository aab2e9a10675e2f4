// Validates a HAR file against the HAR 1.2 JSON schema (har-schema, draft-06) with ajv, plus the rules
// of the HAR 1.2 spec a schema cannot say. Usage: node validate-har.mjs FILE
// Prints "valid: N entries" and exits 0, or prints each problem and exits 1 (2: unreadable input).
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const schemas = require('har-schema');
const draft06 = require('ajv/dist/refs/json-schema-draft-06.json');

const file = process.argv[2];
if (!file) {
  console.error('usage: validate-har.mjs FILE');
  process.exit(2);
}
let har;
try {
  har = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.error(`${file}: ${error.message}`);
  process.exit(2);
}

// har-schema uses keywords of its own ("optional", "min"): not strict.
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addMetaSchema(draft06);
addFormats(ajv);
for (const schema of Object.values(schemas))
  ajv.addSchema(schema);
const validate = ajv.getSchema('har.json#');

const problems = [];
if (!validate(har))
  for (const error of validate.errors)
    problems.push(`schema: ${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);

const log = har?.log ?? {};
if (log.version !== '1.2')
  problems.push(`log.version is ${JSON.stringify(log.version)}, not "1.2"`);
(log.entries ?? []).forEach((entry, i) => {
  const where = `/log/entries/${i}`;
  const timings = entry.timings ?? {};
  // HAR 1.2: time is the sum of the timings that apply (-1: does not apply; ssl is inside connect).
  const sum = ['blocked', 'dns', 'connect', 'send', 'wait', 'receive']
    .map((name) => timings[name])
    .filter((value) => typeof value === 'number' && value >= 0)
    .reduce((a, b) => a + b, 0);
  if (Math.abs(sum - entry.time) > 0.001)
    problems.push(`${where}/time ${entry.time} is not the sum of its timings (${sum})`);
  for (const name of ['send', 'wait', 'receive'])
    if (typeof timings[name] === 'number' && timings[name] < 0)
      problems.push(`${where}/timings/${name} is negative (only blocked, dns, connect and ssl may be -1)`);
  if (Number.isNaN(Date.parse(entry.startedDateTime)))
    problems.push(`${where}/startedDateTime ${JSON.stringify(entry.startedDateTime)} is not a date`);
  if (entry.request?.method === 'POST' && entry.request?.postData === undefined)
    problems.push(`${where}/request has no postData although it is a POST`);
  // Fields outside the spec must begin with an underscore.
  const known = {
    entry: ['pageref', 'startedDateTime', 'time', 'request', 'response', 'cache', 'timings', 'serverIPAddress',
      'connection', 'comment'],
    request: ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'postData', 'headersSize',
      'bodySize', 'comment'],
    response: ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize',
      'bodySize', 'comment'],
  };
  for (const [kind, object] of [['entry', entry], ['request', entry.request], ['response', entry.response]])
    for (const key of Object.keys(object ?? {}))
      if (!known[kind].includes(key) && !key.startsWith('_'))
        problems.push(`${where}: ${kind} field "${key}" is neither HAR 1.2 nor a custom "_" field`);
});

if (problems.length) {
  for (const problem of problems)
    console.log(problem);
  process.exit(1);
}
console.log(`valid: ${(log.entries ?? []).length} entries`);
