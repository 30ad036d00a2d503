// The web speaks the verdict, in a browser: every failure code page the index
// links to opens with a banner that says it failed, as the JSON API's verdict
// for the same code says (its class when no reason is known); and the index
// finds codes by words, as one types and, without the script, by the form.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, startServer, stopServer } from './server.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const buildDir = resolve(root, process.env.BUILD_DIR || 'build');
const shots = join(buildDir, 'screenshots');
// words and codes each must find (item 6 of the verdict issue, and the placeholder's example)
const searches = [
	['user unknown', ['X.1.1', '550']],
	['mailbox full', ['552', 'X.2.2']],
	['relay denied', ['550', '554', 'X.7.1']],
	['spf', ['X.7.23', 'X.7.26']],
	['no such user', ['X.1.1']],
];

let server, base, withJs, withoutJs;
const profiles = [];
const problems = [];

async function browser(javaScriptEnabled) {
	const { context, profile } = await launch({ javaScriptEnabled });
	profiles.push(profile);
	return context;
}

async function newPage(context) {
	const page = await context.newPage();
	await page.setViewportSize({ width: 1280, height: 900 });
	page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
	page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
	return page;
}

async function json(path) {
	const r = await fetch(base + path);
	assert.equal(r.status, 200, path);
	return r.json();
}

/* The class a verdict has: its own, else (a status alone) the one the registry allows. */
function kind(v, allowed) {
	if (v.class === 'success' || v.class === 'intermediate' || v.reason === 'delivered') return 'ok';
	if (v.class) return v.class;
	return { 5: 'permanent', 4: 'transient', 2: 'ok' }[allowed] || 'either';
}

/* The banner head the verdict asks for. */
function expectedHead(v, k) {
	if (k === 'ok') return /^Nothing failed/;
	if (v.advice === 'suppress-recipient') return /^Do not retry: remove the address\./;
	if (!v.reason || v.reason === 'undefined') {
		if (k === 'permanent' && !v.retry) return /^Permanent failure: the receiving server refused; read the text it sent\./;
		if (k === 'transient' || v.retry) return /^Temporary failure: keep it queued and retry/;
		return /^The first digit decides: 4\.x\.x is a temporary failure/;
	}
	if (v.advice === 'none') return /^Nothing to do: /;
	return v.retry ? /^Retry later/ : /^Do not retry unchanged/;
}

before(async () => {
	mkdirSync(shots, { recursive: true });
	({ proc: server, base } = await startServer(buildDir));
	withJs = await browser(true);
	withoutJs = await browser(false);
});

after(async () => {
	for (const c of [withJs, withoutJs]) if (c) await c.close();
	stopServer(server);
	for (const d of profiles) rmSync(d, { recursive: true, force: true });
});

test('every failure code page opens with a failure banner that agrees with the API', async () => {
	const page = await newPage(withJs);
	const all = await json('/api/v1/codes');
	const allowed = new Map(all.map((c) => [c.code, c.allowed]));
	await page.goto(base + '/');
	const codes = await page.locator('#codes li a').evaluateAll((as) => as.map((a) => decodeURIComponent(a.getAttribute('href').slice(6))));
	assert.ok(codes.length >= 130, `the index links to ${codes.length} codes`);
	// every page serve has: the index links to each code of the API's list, once
	assert.deepEqual([...codes].sort(), all.map((c) => c.code).sort());
	// the failure pages: every 4xx and 5xx reply code, every X.Y.Z status not of success only
	const failing = all.filter((c) => /^[45]/.test(c.code) || (/^X\./.test(c.code) && c.allowed !== '2')).map((c) => c.code);
	const wrong = [];
	const opened = new Set();
	let failures = 0;
	for (const code of codes) {
		const v = await json('/api/v1/explain?q=' + encodeURIComponent(code));
		const k = kind(v, allowed.get(code));
		const r = await page.goto(base + '/code/' + code);
		assert.equal(r.status(), 200, `/code/${code}`);
		opened.add(code);
		const head = await page.locator('#verdict .v-head').innerText();
		const facts = await page.locator('#verdict .v-facts').innerText();
		if (k !== 'ok') failures++;
		if (k !== 'ok' && /^Nothing failed/.test(head)) wrong.push(`${code}: a ${k} failure reads "${head}"`);
		else if (!expectedHead(v, k).test(head)) wrong.push(`${code}: "${head}", the API says ${JSON.stringify(
			{ class: v.class, allowed: allowed.get(code), reason: v.reason, advice: v.advice, retry: v.retry })}`);
		else if (!new RegExp(`Retry\\s+${v.retry ? 'yes' : 'no'}`).test(facts)) wrong.push(`${code}: retry is not ${v.retry}`);
		else if (!new RegExp(`Suppress the address\\s+${v.advice === 'suppress-recipient' ? 'yes' : 'no'}`).test(facts))
			wrong.push(`${code}: suppress disagrees with advice ${v.advice}`);
	}
	assert.ok(failures >= 120, `${failures} failure pages`);
	assert.equal(failures, failing.length, 'each 4xx, 5xx and X.Y.Z page reads as a failure');
	assert.ok(opened.size === codes.length && failing.every((c) => opened.has(c)), 'every failure page was opened');
	assert.deepEqual(wrong, []);
	for (const code of ['531', 'X.1.1']) {
		await page.goto(base + '/code/' + code);
		await page.locator('#verdict').screenshot({ path: join(shots, `banner-${code}.png`) });
	}
	await page.close();
});

/* The codes shown in the list (rows not hidden). */
async function shown(page) {
	return page.locator('#codes li:not([hidden]) .code').allInnerTexts();
}

test('word searches find their codes as one types', async () => {
	const page = await newPage(withJs);
	await page.goto(base + '/');
	for (const [q, want] of searches) {
		await page.fill('#q', q);
		await page.locator('#codes a[href="/code/250"]').waitFor({ state: 'hidden' });
		const got = await shown(page);
		for (const c of want) assert.ok(got.includes(c), `'${q}' finds ${c} (found ${got.join(' ')})`);
		assert.match(await page.locator('#count').innerText(), new RegExp(`^${got.length} codes?$`));
	}
	await page.fill('#q', 'user unknown');
	await shot(page, 'search-user-unknown');
	await page.close();
});

test('word searches find their codes without the script, through the form', async () => {
	const page = await newPage(withoutJs);
	for (const [q, want] of searches) {
		await page.goto(base + '/');
		await page.fill('#q', q);
		await Promise.all([page.waitForURL(/\/\?q=/), page.press('#q', 'Enter')]);
		const got = await shown(page);
		for (const c of want) assert.ok(got.includes(c), `'${q}' finds ${c} without the script (found ${got.join(' ')})`);
		assert.ok(!got.includes('250'), `'${q}' leaves 250 out`);
	}
	await page.close();
});

async function shot(page, name) {
	await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

test('no page errors', () => {
	assert.deepEqual(problems, []);
});
