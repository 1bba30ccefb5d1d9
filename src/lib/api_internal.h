/* SPDX-License-Identifier: MIT */
/* api_internal.h — what api.c lends the other files of the public door (api_study.c): the
 * model inside a gpt2embed_model, and the one way a module's status and message become the
 * public status and error detail. Not installed; not part of gpt2embed.h. */
#ifndef G2E_API_INTERNAL_H
#define G2E_API_INTERNAL_H

#include "../gpt2embed.h"
#include "err.h"
#include "model.h"

const g2e_model *g2e_api_model(const gpt2embed_model *m);   /* NULL for NULL */
const char *g2e_api_model_path(const gpt2embed_model *m);  /* the file that was opened */
struct eng;
struct eng *g2e_api_engine(const gpt2embed_tokenizer *t); /* its engine; NULL for NULL */
/* The tok_special of public flags, or -1 for unknown or contradictory flags. */
int g2e_api_special(unsigned flags);
/* err filled from the module's record: the public status of rc, e's message; returns it. */
gpt2embed_status g2e_api_fail(const g2e_err *e, int rc, gpt2embed_error *err);
/* err filled with status s, msg, the offset and the index (GPT2EMBED_NONE); returns s. */
gpt2embed_status g2e_api_detail(gpt2embed_status s, gpt2embed_error *err, const char *msg, size_t offset,
                                size_t index);
/* err filled with status s and msg (no offset, no index); returns s. */
gpt2embed_status g2e_api_say(gpt2embed_status s, gpt2embed_error *err, const char *msg);

#endif
