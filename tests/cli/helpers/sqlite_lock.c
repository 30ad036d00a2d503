/* sqlite_lock FILE SECONDS: hold FILE's write lock (BEGIN EXCLUSIVE) for
 * SECONDS, as another process using the store would; prints "locked" once it
 * holds it. For tests/cli/serve_store_wait.sh. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	sqlite3 *db;
	int secs = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 10;

	if (argc < 2 || sqlite3_open(argv[1], &db) != SQLITE_OK) {
		fprintf(stderr, "usage: sqlite_lock FILE [SECONDS]\n");
		return 2;
	}
	sqlite3_busy_timeout(db, 10000);
	if (sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "sqlite_lock: %s\n", sqlite3_errmsg(db));
		return 1;
	}
	printf("locked\n");
	fflush(stdout);
	sleep((unsigned)secs);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	return 0;
}
