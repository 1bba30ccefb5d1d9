/* sha256.h — SHA-256 (FIPS 180-4), streaming, for verifying downloaded weights.
 *
 * The downloader checks a whole model.safetensors against the Hub's X-Linked-Etag
 * (the file's sha256) and records a sha256 of each tensor it extracts. Written here
 * rather than pulled from a crypto library so that the project depends on nothing
 * beyond libcurl for downloading; it is checked against the FIPS 180 examples in
 * tests/test_sha256.c.
 *
 * Deliberately left out: SHA-224/384/512, HMAC, any hardware acceleration.
 */
#ifndef G2E_SHA256_H
#define G2E_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64   /* without the terminating NUL */

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t total;          /* bytes absorbed so far */
    uint8_t block[64];       /* partial block */
    size_t fill;             /* bytes in block */
} sha256_ctx;

/* Starts a new digest. Cannot fail. */
void sha256_init(sha256_ctx *c);
/* Absorbs len bytes of data (data may be NULL when len is 0). */
void sha256_update(sha256_ctx *c, const void *data, size_t len);
/* Writes the 32-byte digest to out; c must be re-initialised before reuse. */
void sha256_final(sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN]);
/* One-shot digest of data[len]. */
void sha256_digest(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN]);
/* Lower-case hex of a digest into hex[SHA256_HEX_LEN + 1] (NUL-terminated). */
void sha256_hex(const uint8_t digest[SHA256_DIGEST_LEN], char hex[SHA256_HEX_LEN + 1]);

#endif
