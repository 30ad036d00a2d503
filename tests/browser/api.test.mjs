// API tests that need real parsers from npm: the OpenAPI description checked
// by a strict OpenAPI 3.1 validator, and /metrics read by a Prometheus text
// format parser. No browser: plain fetch against a server on a loopback port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startServer, stopServer } from './server.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const buildDir = resolve(root, process.env.BUILD_DIR || 'build');
let server, base;

before(async () => {
	({ proc: server, base } = await startServer(buildDir));
});

after(() => stopServer(server));

test('GET /api/v1/openapi.json is valid OpenAPI 3.1', async () => {
	const resp = await fetch(base + '/api/v1/openapi.json');
	assert.equal(resp.status, 200);
	assert.match(resp.headers.get('content-type'), /^application\/json/);
	const doc = await resp.json();
	assert.equal(doc.openapi, '3.1.0');
	const result = await new Validator().validate(doc);
	assert.deepEqual(result, { valid: true }, JSON.stringify(result.errors));
});

test('every route the server answers is in the description, and answers', async () => {
	const doc = await (await fetch(base + '/api/v1/openapi.json')).json();
	const paths = Object.keys(doc.paths);
	for (const p of ['/', '/code/{code}', '/reasons', '/analyze', '/api', '/api/v1/explain', '/api/v1/decode',
		'/api/v1/codes', '/api/v1/openapi.json', '/healthz', '/metrics', '/static/{file}', '/api/v1/events',
		'/api/v1/suppressions', '/api/v1/suppressions/{address}'])
		assert.ok(paths.includes(p), `${p} is described`);
	for (const p of paths) {
		if (!doc.paths[p].get || p.includes('{')) continue;
		const url = p === '/api/v1/explain' ? p + '?q=431' : p;
		const resp = await fetch(base + url);
		/* this server runs without a store: the suppression routes answer 404 */
		assert.equal(resp.status, p.startsWith('/api/v1/suppressions') ? 404 : 200, `GET ${url}`);
	}
	const page = await (await fetch(base + '/api')).text();
	for (const p of ['/api/v1/decode', '/api/v1/openapi.json', '/metrics'])
		assert.ok(page.includes(`<code>${p}</code>`), `the API page lists ${p}`);
});

test('explain answers match the described schema', async () => {
	const resp = await fetch(base + '/api/v1/explain', { method: 'POST', headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ q: '552 4.3.1' }) });
	assert.equal(resp.status, 200);
	const e = await resp.json();
	assert.ok(Array.isArray(e.fixer), 'fixer is an array');
	assert.ok(e.reference_links.every((l) => /^https:\/\/www\.rfc-editor\.org\/rfc\/rfc\d+/.test(l.url)));
	const d = await (await fetch(base + '/api/v1/decode', { method: 'POST', headers: { 'Content-Type': 'application/mbox' },
		body: readFileSync(join(root, 'samples/two-bounces.mbox')) })).json();
	const c = d.counts;
	assert.equal(c.messages, c.bounces + c.not_bounces + c.errors, 'counts add up');
	assert.equal(c.results, d.results.length);
});

test('/metrics parses as the Prometheus text format and counts what happened', async () => {
	await fetch(base + '/code/431');
	await fetch(base + '/nope');
	await fetch(base + '/api/v1/decode', { method: 'POST', headers: { 'Content-Type': 'application/mbox' },
		body: readFileSync(join(root, 'samples/two-bounces.mbox')) });
	await fetch(base + '/api/v1/decode', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
	const resp = await fetch(base + '/metrics');
	assert.equal(resp.status, 200);
	assert.match(resp.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
	const families = parsePrometheusTextFormat(await resp.text());
	const by = Object.fromEntries(families.map((f) => [f.name, f]));
	const req = by.smtpdiag_http_requests_total;
	assert.equal(req.type, 'COUNTER');
	const one = (route, status) => req.metrics.find((m) => m.labels.route === route && m.labels.status === status);
	assert.ok(Number(one('/code/', '200').value) >= 1, 'a code page counted');
	assert.ok(Number(one('none', '404').value) >= 1, 'a 404 counted');
	const h = by.smtpdiag_http_request_duration_seconds;
	assert.equal(h.type, 'HISTOGRAM');
	assert.ok(Number(h.metrics[0].count) >= 4);
	assert.equal(h.metrics[0].buckets['+Inf'], h.metrics[0].count, 'the last bucket holds every request');
	const v = by.smtpdiag_verdicts_total.metrics;
	assert.ok(v.some((m) => m.labels.reason === 'mailboxfull' && m.labels.advice === 'retry'), 'verdicts by reason and advice');
	assert.ok(by.smtpdiag_decode_errors_total);
	const refused = by.smtpdiag_http_bodies_refused_total.metrics.find((m) => m.labels.why === 'wrong_type');
	assert.ok(Number(refused.value) >= 1, 'a refused body counted');
});
