/* pq_load.h - libpq, opened when a postgresql:// store is first used.
 *
 * libpq brings Kerberos, LDAP, OpenSSL and GnuTLS with it: binding them at
 * every process start cost `smtpdiag explain` about 3 ms for a database it
 * never opens. So nothing links libpq: pg.c includes this header after
 * <libpq-fe.h>, and its PQ* calls go through pointers that sd_pq_load() fills
 * from the library. The pointers take their types from libpq-fe.h itself, so
 * a prototype that changes fails the build. */
#ifndef SD_PQ_LOAD_H
#define SD_PQ_LOAD_H

#include <stddef.h>
#include <libpq-fe.h>

/* The SONAME, read from the build machine's library by tools/sonames.sh (a
 * generated header, hence on the include path like a system one). */
#include <sd_sonames.h> /* SD_PQ_SONAME */

/* Every libpq function the store calls. */
#define SD_PQ_FUNCS(X)                                                                        \
	X(PQclear) X(PQcmdTuples) X(PQconnectdb) X(PQerrorMessage) X(PQexec) X(PQexecParams)      \
	X(PQfinish) X(PQgetResult) X(PQgetisnull) X(PQgetvalue) X(PQnfields) X(PQputCopyData)     \
	X(PQputCopyEnd) X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus)           \
	X(PQsendQueryParams) X(PQsetNoticeProcessor) X(PQsetSingleRowMode) X(PQstatus)

#define SD_PQ_DECL(f) extern __typeof__(f) *sd_pq_##f;
SD_PQ_FUNCS(SD_PQ_DECL)
#undef SD_PQ_DECL

/* Open libpq once (thread-safe). 0, or -1 with why in err. */
int sd_pq_load(char *err, size_t errlen);

#ifndef SD_PQ_LOAD_IMPL
#define PQclear (*sd_pq_PQclear)
#define PQcmdTuples (*sd_pq_PQcmdTuples)
#define PQconnectdb (*sd_pq_PQconnectdb)
#define PQerrorMessage (*sd_pq_PQerrorMessage)
#define PQexec (*sd_pq_PQexec)
#define PQexecParams (*sd_pq_PQexecParams)
#define PQfinish (*sd_pq_PQfinish)
#define PQgetResult (*sd_pq_PQgetResult)
#define PQgetisnull (*sd_pq_PQgetisnull)
#define PQgetvalue (*sd_pq_PQgetvalue)
#define PQnfields (*sd_pq_PQnfields)
#define PQputCopyData (*sd_pq_PQputCopyData)
#define PQputCopyEnd (*sd_pq_PQputCopyEnd)
#define PQresultErrorField (*sd_pq_PQresultErrorField)
#define PQresultErrorMessage (*sd_pq_PQresultErrorMessage)
#define PQresultStatus (*sd_pq_PQresultStatus)
#define PQsendQueryParams (*sd_pq_PQsendQueryParams)
#define PQsetNoticeProcessor (*sd_pq_PQsetNoticeProcessor)
#define PQsetSingleRowMode (*sd_pq_PQsetSingleRowMode)
#define PQstatus (*sd_pq_PQstatus)
#endif

#endif
