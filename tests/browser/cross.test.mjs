// Cross-origin attacks on the store, in a real Chromium: pages of other
// origins (evil.test, app.test: a small static server on another loopback
// port, the names mapped to 127.0.0.1 with --host-resolver-rules) against
// `smtpdiag serve --store`:
//   (a) a CORS simple request (text/plain POST, no preflight) to /api/v1/events
//       records nothing, from a server started without --token-file;
//   (b) fetch() of /api/v1/suppressions from that page cannot read the list;
//   (c) DNS rebinding: a name of the attacker's resolving to 127.0.0.1 (the
//       request carries Host: rebind.test) gets 421;
//   (d) an origin named by --cors-origin reads the list and DELETEs with a
//       bearer token: the preflight grants Authorization and DELETE.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const buildDir = resolve(root, process.env.BUILD_DIR || 'build');
const fixtures = join(root, 'tests/fixtures/esp');
const token = '0123456789abcdef0123456789abcdef';
const procs = [];
let tmp, pages, pagesPort, context, profile, open, guarded;

function startServer(args) {
	return new Promise((ok, fail) => {
		const proc = spawn(join(buildDir, 'smtpdiag'), ['serve', '--listen', '127.0.0.1:0', '--quiet', ...args],
			{ stdio: ['ignore', 'ignore', 'pipe'] });
		procs.push(proc);
		let err = '';
		const timer = setTimeout(() => fail(new Error('server did not start: ' + err)), 10000);
		proc.stderr.on('data', (d) => {
			err += d;
			const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
			if (m) {
				clearTimeout(timer);
				ok({ port: Number(m[1]), url: `http://127.0.0.1:${m[1]}` });
			}
		});
		proc.on('exit', (code) => fail(new Error(`server exited (${code}): ${err}`)));
	});
}

before(async () => {
	tmp = mkdtempSync(join(tmpdir(), 'smtpdiag-cross-'));
	writeFileSync(join(tmp, 'tokens'), `ops:${token}\n`);
	// the pages of the other origins: an empty HTML page on every path
	pages = createServer((req, res) => {
		res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
		res.end('<!doctype html><title>elsewhere</title><p>another origin</p>');
	});
	await new Promise((ok) => pages.listen(0, '127.0.0.1', ok));
	pagesPort = pages.address().port;
	// (a)-(c): started as the issue found it, without --token-file
	open = await startServer(['--store', `sqlite:${join(tmp, 'open.db')}`]);
	// (d): a token, and app.test allowed to ask across origins
	guarded = await startServer(['--store', `sqlite:${join(tmp, 'guarded.db')}`,
		'--token-file', join(tmp, 'tokens'), '--cors-origin', `http://app.test:${pagesPort}`]);
	const seed = await fetch(`${guarded.url}/api/v1/events`, {
		method: 'POST', body: readFileSync(join(fixtures, 'sendgrid/events.json')),
		headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
	});
	assert.equal(seed.status, 200, 'the guarded store is seeded with a token');
	profile = mkdtempSync(join(tmpdir(), 'smtpdiag-chromium-'));
	context = await chromium.launchPersistentContext(profile, {
		executablePath: '/usr/bin/chromium',
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync',
			'--host-resolver-rules=MAP evil.test 127.0.0.1, MAP app.test 127.0.0.1, MAP rebind.test 127.0.0.1'],
	});
});

after(async () => {
	if (context) await context.close();
	for (const p of procs) {
		p.removeAllListeners('exit');
		p.kill('SIGTERM');
	}
	if (pages) pages.close();
	if (profile) rmSync(profile, { recursive: true, force: true });
	if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function pageAt(origin) {
	const page = await context.newPage();
	await page.goto(`${origin}/`);
	return page;
}

test('(a) a text/plain POST from another origin records nothing', async () => {
	const page = await pageAt(`http://evil.test:${pagesPort}`);
	const body = readFileSync(join(fixtures, 'mailgun/failed-permanent.json'), 'utf8');
	const sent = await page.evaluate(async ({ url, body }) => {
		// a CORS simple request: the browser sends it without asking first
		await fetch(`${url}/api/v1/events`, { method: 'POST', mode: 'no-cors', body,
			headers: { 'Content-Type': 'text/plain' } });
		return true;
	}, { url: open.url, body });
	assert.ok(sent);
	const state = await fetch(`${open.url}/api/v1/suppressions/alice@mail.example.net`);
	assert.equal(state.status, 404, 'the address is not in the store: the post was not recorded');
	const list = await (await fetch(`${open.url}/api/v1/suppressions`)).json();
	assert.equal(list.results.length, 0, 'nothing is suppressed');
	await page.close();
});

test('(b) a page of another origin cannot read the suppression list', async () => {
	const page = await pageAt(`http://evil.test:${pagesPort}`);
	const got = await page.evaluate(async (url) => {
		try {
			const r = await fetch(`${url}/api/v1/suppressions`);
			return `read ${r.status}: ${await r.text()}`;
		} catch (e) {
			return 'blocked';
		}
	}, open.url);
	assert.equal(got, 'blocked', 'the browser does not let the page read the answer');
	await page.close();
});

test('(c) DNS rebinding: a foreign Host gets 421', async () => {
	const page = await context.newPage();
	const resp = await page.goto(`http://rebind.test:${open.port}/api/v1/suppressions`);
	assert.equal(resp.status(), 421);
	const same = await page.evaluate(async () => {
		const r = await fetch('/api/v1/suppressions');
		return r.status;
	});
	assert.equal(same, 421, 'a same-origin fetch of the rebound name is 421 too');
	await page.close();
});

test('(d) an origin of --cors-origin reads and DELETEs with a token', async () => {
	const page = await pageAt(`http://app.test:${pagesPort}`);
	const out = await page.evaluate(async ({ url, token }) => {
		const auth = { Authorization: `Bearer ${token}` };
		const list = await fetch(`${url}/api/v1/suppressions`, { headers: auth });
		const body = await list.json();
		const addr = body.results[0].address;
		const del = await fetch(`${url}/api/v1/suppressions/${encodeURIComponent(addr)}`,
			{ method: 'DELETE', headers: auth });
		return { status: list.status, n: body.results.length, addr, del: del.status, released: await del.json() };
	}, { url: guarded.url, token });
	assert.equal(out.status, 200);
	assert.ok(out.n > 0, 'the list is read');
	assert.equal(out.del, 200, 'the preflight let DELETE with Authorization through');
	assert.equal(out.released.released, true);
	assert.equal(out.released.by, 'ops');
	const evil = await pageAt(`http://evil.test:${pagesPort}`);
	const blocked = await evil.evaluate(async ({ url, token }) => {
		try {
			await fetch(`${url}/api/v1/suppressions`, { headers: { Authorization: `Bearer ${token}` } });
			return 'read';
		} catch (e) {
			return 'blocked';
		}
	}, { url: guarded.url, token });
	assert.equal(blocked, 'blocked', 'an origin not named by --cors-origin is not granted, even holding a token');
	await page.close();
	await evil.close();
});
