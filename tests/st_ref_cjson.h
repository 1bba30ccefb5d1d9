/* SPDX-License-Identifier: MIT */
/* st_ref_cjson.h — the old cJSON-based safetensors header reader, kept as a test reference
 * (see st_ref_cjson.c), and the comparison of the library's parser with it. */
#ifndef G2E_ST_REF_CJSON_H
#define G2E_ST_REF_CJSON_H

#include "safetensors.h"

/* The old st_parse_header: same contract, but the result must be freed with st_ref_close
 * (its names, keys and values are allocated one by one). */
int st_ref_parse_header(st_file **out, const uint8_t *json, size_t json_len, uint64_t data_len,
                        g2e_err *err);
void st_ref_close(st_file *f);

/* Parses json with both readers and compares them: verdict, then (accepted) every tensor
 * and metadata entry, or (refused) status and message, but for the differences listed at
 * st_ref_agree's definition. Returns 1 when they agree, else 0 with why[] saying how. */
int st_ref_agree(const uint8_t *json, size_t json_len, uint64_t data_len, char *why, size_t n);

#endif
