/* test_charset.c - the per-thread iconv cache: the descriptors a thread opened
 * are closed when the thread ends. iconv_open and iconv_close are wrapped here
 * (the library is linked statically, so its calls come to these) to count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <iconv.h>
#include <pthread.h>
#include <string.h>

#include "mime/charset.h"

#define THREADS 8

static int opened, closed;

iconv_t iconv_open(const char *to, const char *from)
{
	iconv_t (*real)(const char *, const char *);
	iconv_t cd;

	*(void **)&real = dlsym(RTLD_NEXT, "iconv_open");
	cd = real(to, from);
	if (cd != (iconv_t)-1)
		__atomic_add_fetch(&opened, 1, __ATOMIC_SEQ_CST);
	return cd;
}

int iconv_close(iconv_t cd)
{
	int (*real)(iconv_t);

	*(void **)&real = dlsym(RTLD_NEXT, "iconv_close");
	__atomic_add_fetch(&closed, 1, __ATOMIC_SEQ_CST);
	return real(cd);
}

/* Two conversions that need iconv: two descriptors in this thread's cache. */
static void *convert(void *arg)
{
	sd_buf b;

	sd_buf_init(&b);
	sd_buf_put_utf8(&b, SD_STR("koi8-r"), SD_STR("\xf0\xd2\xc9\xd7\xc5\xd4"), 64);
	sd_buf_put_utf8(&b, SD_STR("gb2312"), SD_STR("\xd6\xd0\xce\xc4"), 64);
	*(int *)arg = b.len == 12 + 6;
	sd_buf_free(&b);
	return NULL;
}

static void test_thread_end_closes(void **state)
{
	pthread_t t[THREADS];
	int ok[THREADS];

	(void)state;
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, convert, &ok[i]), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_true(ok[i]);
	}
	assert_int_equal(__atomic_load_n(&opened, __ATOMIC_SEQ_CST), 2 * THREADS);
	assert_int_equal(__atomic_load_n(&closed, __ATOMIC_SEQ_CST), 2 * THREADS);
}

/* What iconv itself makes of in (name: iconv's name of the charset), as the
 * library writes a byte it refuses: U+FFFD, and on to the next byte. */
static size_t iconv_whole(const char *name, const char *in, size_t n, char *out, size_t cap)
{
	iconv_t cd = iconv_open("UTF-8", name);
	char *ip = (char *)in, *op = out;
	size_t il = n, ol = cap;

	assert_true(cd != (iconv_t)-1);
	while (il > 0) {
		if (iconv(cd, &ip, &il, &op, &ol) != (size_t)-1)
			continue;
		assert_int_equal(errno, EILSEQ);
		assert_true(ol >= 3);
		memcpy(op, "\xef\xbf\xbd", 3);
		op += 3;
		ol -= 3;
		ip++;
		il--;
	}
	iconv_close(cd);
	return (size_t)(op - out);
}

/* The single-byte charsets converted by a table read from iconv give what
 * iconv gives, for every byte and after a run of ASCII, and cut at any
 * length where iconv's output would be cut: not inside a character. */
static void test_single_byte_as_iconv(void **state)
{
	/* iconv's names: the library's but Latin-1, read as its superset windows-1252 */
	static const char *const cs[] = { "iso-8859-1", "iso-8859-2", "iso-8859-5", "iso-8859-7",
					  "iso-8859-8", "iso-8859-15", "windows-1250", "windows-1251",
					  "windows-1253", "windows-1255", "windows-1257", "windows-1258",
					  "koi8-r", "koi8-u" };
	char in[3 + 255 + 128], want[4 * sizeof(in)];
	size_t n = 0;

	(void)state;
	memcpy(in, "ab ", 3);
	n = 3;
	for (int c = 0x80; c <= 0xff; c++)
		in[n++] = (char)c;
	for (int c = 1; c <= 0xff; c++)
		in[n++] = (char)c;
	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		size_t wn = iconv_whole(i ? cs[i] : "CP1252", in, n, want, sizeof(want));
		for (size_t max = 0; max <= wn + 1; max += max < 64 ? 1 : 37) {
			size_t end = wn;
			sd_buf b;
			if (max < wn) {
				end = max;
				while (end > 0 && ((unsigned char)want[end] & 0xc0) == 0x80)
					end--;
			}
			sd_buf_init(&b);
			sd_buf_put_utf8(&b, (sd_str){ cs[i], strlen(cs[i]) }, (sd_str){ in, n }, max);
			assert_int_equal(b.len, end);
			assert_memory_equal(b.data, want, end);
			sd_buf_free(&b);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_end_closes),
		cmocka_unit_test(test_single_byte_as_iconv),
	};
	return cmocka_run_group_tests_name("charset", tests, NULL, NULL);
}
