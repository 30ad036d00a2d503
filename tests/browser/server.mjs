// What the browser tests share: `smtpdiag serve` on a free loopback port, and
// headless Debian Chromium with a throw-away profile.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/* Start the server with extra arguments; resolves to { proc, base } once it listens. */
export function startServer(buildDir, extra = []) {
	return new Promise((ok, fail) => {
		const proc = spawn(join(buildDir, 'smtpdiag'), ['serve', '--listen', '127.0.0.1:0', '--quiet', ...extra],
			{ stdio: ['ignore', 'ignore', 'pipe'] });
		let err = '';
		const timer = setTimeout(() => {
			proc.kill('SIGKILL');
			fail(new Error('server did not start: ' + err));
		}, 10000);
		proc.stderr.on('data', (d) => {
			err += d;
			const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(err);
			if (m) {
				clearTimeout(timer);
				ok({ proc, base: m[1] });
			}
		});
		proc.on('exit', (code) => fail(new Error(`server exited (${code}): ${err}`)));
	});
}

/* Stop a server started above (nothing when it never started). */
export function stopServer(proc) {
	if (!proc) return;
	proc.removeAllListeners('exit');
	proc.kill('SIGTERM');
}

/* A persistent Chromium context in a new profile directory (the caller removes
 * it); options go to playwright (javaScriptEnabled: false, ...). */
export async function launch(options = {}) {
	const profile = mkdtempSync(join(tmpdir(), 'smtpdiag-chromium-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: '/usr/bin/chromium',
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
		...options,
	});
	return { context, profile };
}
