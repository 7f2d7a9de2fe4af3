#ifndef STATIONDB_CSHA256_H
#define STATIONDB_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the SHA extensions (and the SSSE3/SSE4.1 the code
/// around them uses), else 0; always 0 off x86-64.
int csha256_cpu_has_sha(void);

/// Runs SHA-256's compression over `blocks` 64-byte blocks at `data`, updating
/// `state` (a, b, ..., h). Only to be called when csha256_cpu_has_sha() is 1.
void csha256_compress_sha(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
