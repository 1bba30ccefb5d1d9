/* SPDX-License-Identifier: MIT */
/* sha256.h — SHA-256 (FIPS 180-4), streaming, for verifying downloaded weights.
 *
 * The downloader checks a whole model.safetensors against the Hub's X-Linked-Etag
 * (the file's sha256) and records a sha256 of each tensor it extracts. The digest is
 * nettle's (libnettle, a well-kept library that libcurl's TLS stack already brings along),
 * which uses the CPU's SHA extensions where it has them: about 5x the speed of the portable
 * C this module held before, with the same interface and digests (tests/test_sha256.c
 * checks the FIPS 180 examples and coreutils' sha256sum).
 *
 * Why nettle rather than OpenSSL's EVP: nettle's context is a plain struct the caller owns
 * (no allocation, so init/update/final cannot fail, as this interface promises), and the
 * library is small; EVP needs EVP_MD_CTX_new/free and error checks at every step.
 *
 * The context holds nettle's state in opaque storage, so that this header does not pull
 * in nettle's (whose macros rename sha256_init & co. to nettle_sha256_*).
 *
 * Deliberately left out: SHA-224/384/512, HMAC.
 */
#ifndef G2E_SHA256_H
#define G2E_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64   /* without the terminating NUL */

typedef struct g2e_sha256_state {
    uint64_t opaque[16];     /* nettle's struct sha256_ctx (checked at compile time) */
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
