/* SPDX-License-Identifier: MIT */
/* sha256.c — SHA-256 through nettle (see sha256.h). */
#include <nettle/sha2.h>
/* nettle's header renames these to nettle_sha256_*; ours keep their own names and
 * signatures, and call nettle's by their real names below. */
#undef sha256_init
#undef sha256_update
#undef sha256_digest

#include "sha256.h"

#include <string.h>

_Static_assert(sizeof(struct sha256_ctx) <= sizeof(((sha256_ctx *)0)->opaque),
               "sha256_ctx.opaque too small for nettle's struct sha256_ctx");
_Static_assert(_Alignof(struct sha256_ctx) <= _Alignof(uint64_t),
               "sha256_ctx.opaque not aligned enough for nettle's struct sha256_ctx");

static struct sha256_ctx *state(sha256_ctx *c)
{
    return (struct sha256_ctx *)(void *)c->opaque;
}

void sha256_init(sha256_ctx *c)
{
    nettle_sha256_init(state(c));
}

void sha256_update(sha256_ctx *c, const void *data, size_t len)
{
    if (len)
        nettle_sha256_update(state(c), len, data);
}

void sha256_final(sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN])
{
    nettle_sha256_digest(state(c), SHA256_DIGEST_SIZE, out);   /* also resets the state */
    memset(c, 0, sizeof *c);
}

void sha256_digest(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN])
{
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, data, len);
    sha256_final(&c, out);
}

void sha256_hex(const uint8_t digest[SHA256_DIGEST_LEN], char hex[SHA256_HEX_LEN + 1])
{
    static const char X[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_DIGEST_LEN; i++) {
        hex[2 * i] = X[digest[i] >> 4];
        hex[2 * i + 1] = X[digest[i] & 15];
    }
    hex[SHA256_HEX_LEN] = '\0';
}
