#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call. With memory statistics
// on (the default), every SQLite allocation takes a global mutex and updates
// counters; nothing here reads them, and binding a text value allocates.
static inline int stationdb_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
