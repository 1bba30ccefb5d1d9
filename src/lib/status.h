/* SPDX-License-Identifier: MIT */
/* status.h — the public status of every code the library returns: each library module lists
 * its codes with the status they are reported as (MOD_CODES, err.h), and G2E_LIB_CODES joins
 * the lists, so api.c's mapping is made from them rather than kept by hand, and
 * tests/test_err.c enumerates every code. A module with codes of its own adds its list here.
 */
#ifndef G2E_STATUS_H
#define G2E_STATUS_H

#include "../gpt2embed.h"
#include "embed.h"
#include "err.h"
#include "locate.h"
#include "model.h"
#include "safetensors.h"
#include "similarity.h"
#include "sinusoid.h"
#include "engine.h"
#include "exercise.h"
#include "order.h"
#include "pca.h"
#include "rope.h"
#include "reference.h"
#include "tokenizer.h"
#include "unicode.h"

#define G2E_COMMON_CODES(X) X(G2E_ENOMEM, NOMEM) X(G2E_EIO, IO) X(G2E_EINVAL, ARG)

#define G2E_LIB_CODES(X)                                                                      \
    G2E_COMMON_CODES(X) ST_CODES(X) MODEL_CODES(X) TOK_CODES(X) UNI_CODES(X) SIN_CODES(X)    \
    LOCATE_CODES(X) EMBED_CODES(X) SIM_CODES(X) ENG_CODES(X) ORDER_CODES(X) EX_CODES(X) REF_CODES(X) \
    PCA_CODES(X) ROPE_CODES(X)

/* The public status of a library code: GPT2EMBED_OK for 0, GPT2EMBED_E_INTERNAL for a code
 * no list holds (a bug). */
gpt2embed_status g2e_status_of(int code);

#endif
