/* mhd_load.c - libmicrohttpd, loaded when `serve` starts and not before.
 *
 * libmicrohttpd pulls in GnuTLS and its dependencies; binding them at every
 * process start cost `smtpdiag explain` about 5 ms of dynamic linking for a
 * server it never runs. So the binary does not link the library: this file
 * defines the few MHD functions the server calls, and they forward to the
 * library opened by httpd_mhd_load(). */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "httpd_int.h"

/* The SONAME, read from the build machine's library by tools/sonames.sh (a
 * generated header, hence on the include path like a system one). */
#include <sd_sonames.h>

#define MHD_SONAME SD_MHD_SONAME

static struct {
	struct MHD_Daemon *(*start_va)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
				       MHD_AccessHandlerCallback, void *, va_list);
	MHD_socket (*quiesce)(struct MHD_Daemon *);
	void (*stop)(struct MHD_Daemon *);
	const union MHD_DaemonInfo *(*daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
	const union MHD_ConnectionInfo *(*conn_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
	int (*values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
	const char *(*lookup)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
	enum MHD_Result (*queue)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
	struct MHD_Response *(*from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
	struct MHD_Response *(*from_buffer_free)(size_t, void *, MHD_ContentReaderFreeCallback);
	struct MHD_Response *(*from_buffer_cls)(size_t, void *, MHD_ContentReaderFreeCallback, void *);
	void (*destroy)(struct MHD_Response *);
	enum MHD_Result (*add_header)(struct MHD_Response *, const char *, const char *);
	void (*suspend)(struct MHD_Connection *);
	void (*resume)(struct MHD_Connection *);
} mhd;

/* Each pointer has the type of the function <microhttpd.h> declares: a library
 * whose header changed a prototype fails the build here, not at run time. */
#define MHD_SAME(field, fn) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(mhd.field), __typeof__(&fn)), \
		       #fn " differs from <microhttpd.h>")
MHD_SAME(start_va, MHD_start_daemon_va);
MHD_SAME(quiesce, MHD_quiesce_daemon);
MHD_SAME(stop, MHD_stop_daemon);
MHD_SAME(daemon_info, MHD_get_daemon_info);
MHD_SAME(conn_info, MHD_get_connection_info);
MHD_SAME(values, MHD_get_connection_values);
MHD_SAME(lookup, MHD_lookup_connection_value);
MHD_SAME(queue, MHD_queue_response);
MHD_SAME(from_buffer, MHD_create_response_from_buffer);
MHD_SAME(from_buffer_free, MHD_create_response_from_buffer_with_free_callback);
MHD_SAME(from_buffer_cls, MHD_create_response_from_buffer_with_free_callback_cls);
MHD_SAME(destroy, MHD_destroy_response);
MHD_SAME(add_header, MHD_add_response_header);
MHD_SAME(suspend, MHD_suspend_connection);
MHD_SAME(resume, MHD_resume_connection);

static int sym(void *lib, const char *name, void *fp, char *err, size_t errlen)
{
	void *p = dlsym(lib, name);

	if (!p) {
		snprintf(err, errlen, "%s lacks %s", MHD_SONAME, name);
		return -1;
	}
	memcpy(fp, &p, sizeof(p)); /* object to function pointer, as POSIX dlsym intends */
	return 0;
}

int httpd_mhd_load(char *err, size_t errlen)
{
	void *lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(err, errlen, "cannot load %s (Debian package libmicrohttpd12): %s", MHD_SONAME, dlerror());
		return -1;
	}
	if (sym(lib, "MHD_start_daemon_va", &mhd.start_va, err, errlen) ||
	    sym(lib, "MHD_quiesce_daemon", &mhd.quiesce, err, errlen) ||
	    sym(lib, "MHD_stop_daemon", &mhd.stop, err, errlen) ||
	    sym(lib, "MHD_get_daemon_info", &mhd.daemon_info, err, errlen) ||
	    sym(lib, "MHD_get_connection_info", &mhd.conn_info, err, errlen) ||
	    sym(lib, "MHD_get_connection_values", &mhd.values, err, errlen) ||
	    sym(lib, "MHD_lookup_connection_value", &mhd.lookup, err, errlen) ||
	    sym(lib, "MHD_queue_response", &mhd.queue, err, errlen) ||
	    sym(lib, "MHD_create_response_from_buffer", &mhd.from_buffer, err, errlen) ||
	    sym(lib, "MHD_create_response_from_buffer_with_free_callback", &mhd.from_buffer_free, err, errlen) ||
	    sym(lib, "MHD_create_response_from_buffer_with_free_callback_cls", &mhd.from_buffer_cls, err, errlen) ||
	    sym(lib, "MHD_destroy_response", &mhd.destroy, err, errlen) ||
	    sym(lib, "MHD_add_response_header", &mhd.add_header, err, errlen) ||
	    sym(lib, "MHD_suspend_connection", &mhd.suspend, err, errlen) ||
	    sym(lib, "MHD_resume_connection", &mhd.resume, err, errlen)) {
		dlclose(lib);
		return -1;
	}
	return 0; /* the library stays loaded for the life of the process */
}

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
				    void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
	struct MHD_Daemon *d;
	va_list ap;

	va_start(ap, dh_cls);
	d = mhd.start_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
	va_end(ap);
	return d;
}

MHD_socket MHD_quiesce_daemon(struct MHD_Daemon *daemon)
{
	return mhd.quiesce(daemon);
}

void MHD_stop_daemon(struct MHD_Daemon *daemon)
{
	mhd.stop(daemon);
}

/* The server asks only for info types that take no extra argument. */
const union MHD_DaemonInfo *MHD_get_daemon_info(struct MHD_Daemon *daemon, enum MHD_DaemonInfoType t, ...)
{
	return mhd.daemon_info(daemon, t);
}

const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *c, enum MHD_ConnectionInfoType t, ...)
{
	return mhd.conn_info(c, t);
}

int MHD_get_connection_values(struct MHD_Connection *c, enum MHD_ValueKind kind, MHD_KeyValueIterator it, void *cls)
{
	return mhd.values(c, kind, it, cls);
}

const char *MHD_lookup_connection_value(struct MHD_Connection *c, enum MHD_ValueKind kind, const char *key)
{
	return mhd.lookup(c, kind, key);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *c, unsigned int status, struct MHD_Response *r)
{
	return mhd.queue(c, status, r);
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buf, enum MHD_ResponseMemoryMode mode)
{
	return mhd.from_buffer(size, buf, mode);
}

struct MHD_Response *MHD_create_response_from_buffer_with_free_callback(size_t size, void *buf,
									MHD_ContentReaderFreeCallback crfc)
{
	return mhd.from_buffer_free(size, buf, crfc);
}

struct MHD_Response *MHD_create_response_from_buffer_with_free_callback_cls(size_t size, void *buf,
									    MHD_ContentReaderFreeCallback crfc, void *cls)
{
	return mhd.from_buffer_cls(size, buf, crfc, cls);
}

void MHD_destroy_response(struct MHD_Response *r)
{
	mhd.destroy(r);
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *r, const char *header, const char *content)
{
	return mhd.add_header(r, header, content);
}

void MHD_suspend_connection(struct MHD_Connection *c)
{
	mhd.suspend(c);
}

void MHD_resume_connection(struct MHD_Connection *c)
{
	mhd.resume(c);
}
