/* test_charset.c - the per-thread iconv cache: the descriptors a thread opened
 * are closed when the thread ends. iconv_open and iconv_close are wrapped here
 * (the library is linked statically, so its calls come to these) to count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <iconv.h>
#include <pthread.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_end_closes),
	};
	return cmocka_run_group_tests_name("charset", tests, NULL, NULL);
}
